/* SPDX-License-Identifier: Apache-2.0
 *
 * sacctmgr_print.c - sacctmgr's show tables, one field table for every kind
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/lib/print_fields.h"
#include "cmd/lib/sacctmgr_print.h"
#include "common/timefmt.h"
#include "common/xalloc.h"

/* The record a field reads: 'rec' (assoc, QOS, user, account) and, for
 * users with associations, 'assoc'.
 */
typedef void (*smgr_get_f)(struct fmt_buf *b, const json_t *rec,
                           const json_t *assoc, const char *key);

struct smgr_field {
    const char *name;   /* format name */
    size_t min_len;     /* shortest prefix accepted */
    const char *header;
    int width;
    smgr_get_f get;
    const char *key;    /* JSON key read */
};

static const json_t *pick(const json_t *rec, const json_t *assoc)
{
    return assoc ? assoc : rec;
}

static void get_str(struct fmt_buf *b, const json_t *rec, const json_t *assoc,
                    const char *key)
{
    const json_t *v = json_object_get(pick(rec, assoc), key);

    if (json_is_string(v))
        fmt_buf_puts(b, json_string_value(v));
}

static void get_rec_str(struct fmt_buf *b, const json_t *rec,
                        const json_t *assoc, const char *key)
{
    (void)assoc;
    get_str(b, rec, NULL, key);
}

/* A limit: -1 is blank. */
static void get_int(struct fmt_buf *b, const json_t *rec, const json_t *assoc,
                    const char *key)
{
    const json_t *v = json_object_get(pick(rec, assoc), key);

    if (json_is_integer(v) && json_integer_value(v) >= 0)
        fmt_buf_printf(b, "%lld", (long long)json_integer_value(v));
}

static void get_mins(struct fmt_buf *b, const json_t *rec, const json_t *assoc,
                     const char *key)
{
    const json_t *v = json_object_get(pick(rec, assoc), key);
    char buf[32];

    if (json_is_integer(v) && json_integer_value(v) >= 0)
        fmt_buf_puts(b, timefmt_duration(json_integer_value(v) * 60, 1, buf,
                                         sizeof(buf)));
}

static void get_secs(struct fmt_buf *b, const json_t *rec, const json_t *assoc,
                     const char *key)
{
    const json_t *v = json_object_get(pick(rec, assoc), key);
    char buf[32];

    fmt_buf_puts(b, timefmt_duration(json_is_integer(v)
                                         ? json_integer_value(v) : 0,
                                     1, buf, sizeof(buf)));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A list of names, sorted, comma-separated (Slurm prints QOS so). */
static void get_list(struct fmt_buf *b, const json_t *rec, const json_t *assoc,
                     const char *key)
{
    const json_t *v = json_object_get(pick(rec, assoc), key);
    size_t n = json_array_size(v);
    const char **names = xzalloc((n + 1) * sizeof(*names));

    for (size_t i = 0; i < n; i++)
        names[i] = json_string_value(json_array_get(v, i));
    qsort(names, n, sizeof(*names), cmp_str);
    for (size_t i = 0; i < n; i++)
        fmt_buf_printf(b, "%s%s", i ? "," : "", names[i]);
    free(names);
}

static void get_real(struct fmt_buf *b, const json_t *rec, const json_t *assoc,
                     const char *key)
{
    const json_t *v = json_object_get(pick(rec, assoc), key);

    fmt_buf_printf(b, "%f", json_is_number(v) ? json_number_value(v) : 1.0);
}

/* The count of one TRES of a TRES string (MaxNodes, MaxCPUs). */
static void get_tres_one(struct fmt_buf *b, const json_t *rec,
                         const json_t *assoc, const char *key)
{
    const char *s = json_string_value(json_object_get(pick(rec, assoc),
                                                      "max_tres_per_job"));
    size_t klen = strlen(key);

    for (const char *p = s; p && *p;) {
        size_t len = strcspn(p, ",");
        if (len > klen && !strncmp(p, key, klen) && p[klen] == '=') {
            fmt_buf_printf(b, "%.*s", (int)(len - klen - 1), p + klen + 1);
            return;
        }
        p += len + (p[len] == ',');
    }
}

/* The account association's parent (users' associations show none). */
static void get_parent(struct fmt_buf *b, const json_t *rec,
                       const json_t *assoc, const char *key)
{
    const json_t *a = pick(rec, assoc);

    if (!json_string_value(json_object_get(a, "user"))[0])
        get_str(b, rec, assoc, key);
}

static void get_blank(struct fmt_buf *b, const json_t *rec,
                      const json_t *assoc, const char *key)
{
    (void)b, (void)rec, (void)assoc, (void)key;
}

/* Fields in sacctmgr's matching order; names match exactly, or by a prefix
 * of at least min_len letters.
 */
static const struct smgr_field fields[] = {
    {"Account", 1, "Account", 10, get_str, "account"},
    {"Acct", 4, "Account", 10, get_str, "account"},
    {"AdminLevel", 2, "Admin", 9, get_rec_str, "admin_level"},
    {"Cluster", 2, "Cluster", 10, get_str, "cluster"},
    {"ControlHost", 8, "ControlHost", 15, get_blank, NULL},
    {"ControlPort", 8, "ControlPort", 12, get_blank, NULL},
    {"DefaultAccount", 8, "Def Acct", 10, get_rec_str, "default_account"},
    {"DefaultQOS", 8, "Def QOS", 9, get_str, "def_qos"},
    {"Description", 3, "Descr", 20, get_rec_str, "description"},
    {"FairShare", 1, "Share", 9, get_int, "shares"},
    {"Flags", 2, "Flags", 10, get_str, "flags"},
    {"GraceTime", 3, "GraceTime", 10, get_secs, "grace_time_s"},
    {"GrpJobs", 4, "GrpJobs", 7, get_int, "grp_jobs"},
    {"GrpSubmitJobs", 4, "GrpSubmit", 9, get_int, "grp_submit_jobs"},
    {"GrpTRESMins", 8, "GrpTRESMins", 13, get_blank, NULL},
    {"GrpTRESRunMins", 8, "GrpTRESRunMins", 13, get_blank, NULL},
    {"GrpTRES", 4, "GrpTRES", 13, get_str, "grp_tres"},
    {"GrpWall", 4, "GrpWall", 11, get_blank, NULL},
    {"ID", 2, "ID", 6, get_int, "id"},
    {"MaxCPUMins", 7, "MaxCPUMins", 11, get_blank, NULL},
    {"MaxCPUs", 6, "MaxCPUs", 8, get_tres_one, "cpu"},
    {"MaxJobsPA", 9, "MaxJobsPA", 9, get_blank, NULL},
    {"MaxJobsPerUser", 9, "MaxJobsPU", 9, get_int, "max_jobs_per_user"},
    {"MaxJobsPU", 9, "MaxJobsPU", 9, get_int, "max_jobs_per_user"},
    {"MaxJobs", 4, "MaxJobs", 7, get_int, "max_jobs"},
    {"MaxNodes", 4, "MaxNodes", 8, get_tres_one, "node"},
    {"MaxSubmitPA", 11, "MaxSubmitPA", 11, get_blank, NULL},
    {"MaxSubmitJobsPerUser", 15, "MaxSubmitPU", 11, get_int,
     "max_submit_jobs_per_user"},
    {"MaxSubmitPU", 11, "MaxSubmitPU", 11, get_int,
     "max_submit_jobs_per_user"},
    {"MaxSubmitJobs", 4, "MaxSubmit", 9, get_int, "max_submit_jobs"},
    {"MaxTRESMins", 8, "MaxTRESMins", 13, get_blank, NULL},
    {"MaxTRESPA", 9, "MaxTRESPA", 13, get_blank, NULL},
    {"MaxTRESPerNode", 11, "MaxTRESPerNode", 14, get_blank, NULL},
    {"MaxTRESPerUser", 11, "MaxTRESPU", 13, get_str, "max_tres_per_user"},
    {"MaxTRESPU", 9, "MaxTRESPU", 13, get_str, "max_tres_per_user"},
    {"MaxTRES", 4, "MaxTRES", 13, get_str, "max_tres_per_job"},
    {"MaxWall", 4, "MaxWall", 11, get_mins, "max_wall_min"},
    {"MinTRES", 4, "MinTRES", 13, get_blank, NULL},
    {"Name", 2, "Name", 10, get_str, "name"},
    {"Organization", 1, "Org", 20, get_rec_str, "organization"},
    {"ParentName", 7, "Par Name", 10, get_parent, "parent_account"},
    {"Partition", 4, "Partition", 10, get_str, "partition"},
    {"PreemptExemptTime", 8, "PreemptExemptTime", 19, get_blank, NULL},
    {"PreemptMode", 8, "PreemptMode", 11, get_str, "preempt_mode"},
    {"Preempt", 7, "Preempt", 10, get_list, "preempt"},
    {"Priority", 3, "Priority", 10, get_int, "priority"},
    {"QOS", 1, "QOS", 20, get_list, "qos"},
    {"RPC", 3, "RPC", 5, get_blank, NULL},
    {"Share", 1, "Share", 9, get_int, "shares"},
    {"Type", 1, "Type", 8, get_str, "type"},
    {"UsageFactor", 6, "UsageFactor", 11, get_real, "usage_factor"},
    {"UsageThres", 6, "UsageThres", 10, get_blank, NULL},
    {"User", 1, "User", 10, get_str, "user"},
    {NULL, 0, NULL, 0, NULL, NULL},
};

const char *smgr_default_format(enum smgr_kind kind, bool withassoc)
{
    switch (kind) {
    case SMGR_ASSOC:
        return "Cluster,Account,User,Partition,Share,Priority,GrpJobs,"
               "GrpTRES,GrpSubmit,GrpWall,GrpTRESMins,MaxJobs,MaxTRES,"
               "MaxTRESPerNode,MaxSubmit,MaxWall,MaxTRESMins,QOS,DefaultQOS,"
               "GrpTRESRunMins";
    case SMGR_QOS:
        return "Name,Priority,GraceTime,Preempt,PreemptExemptTime,"
               "PreemptMode,Flags,UsageThres,UsageFactor,GrpTRES,"
               "GrpTRESMins,GrpTRESRunMins,GrpJobs,GrpSubmit,GrpWall,MaxTRES,"
               "MaxTRESPerNode,MaxTRESMins,MaxWall,MaxTRESPU,MaxJobsPU,"
               "MaxSubmitPU,MaxTRESPA,MaxJobsPA,MaxSubmitPA,MinTRES";
    case SMGR_USER:
        return withassoc ? "User,DefaultAccount,Admin,Cluster,Account,"
                           "Partition,Share,Priority,MaxJobs,MaxNodes,"
                           "MaxCPUs,MaxSubmit,MaxWall,MaxCPUMins,QOS,"
                           "DefaultQOS"
                         : "User,DefaultAccount,Admin";
    case SMGR_ACCOUNT:
        return "Account,Descr,Org";
    case SMGR_CLUSTER:
        return "Cluster,ControlHost,ControlPort,RPC,Share,GrpJobs,GrpTRES,"
               "GrpSubmit,MaxJobs,MaxTRES,MaxSubmit,MaxWall,QOS,DefaultQOS";
    case SMGR_TRES:
        return "Type,Name%15,ID";
    }
    return "";
}

/* Users and QOS print "Name" from "name"; their name column is "User". */
static const char *rename_key(enum smgr_kind kind, const char *key)
{
    if (kind == SMGR_USER && !strcmp(key, "user"))
        return "name";
    if (kind == SMGR_ACCOUNT && !strcmp(key, "account"))
        return "name";
    return key;
}

struct column {
    const struct smgr_field *f;
    int width; /* negative: left-justified */
};

static const struct smgr_field *find_field(const char *name, size_t len)
{
    for (size_t i = 0; fields[i].name; i++) {
        if (strlen(fields[i].name) == len
            && !strncasecmp(fields[i].name, name, len))
            return &fields[i];
    }
    for (size_t i = 0; fields[i].name; i++) {
        if (len >= fields[i].min_len && len <= strlen(fields[i].name)
            && !strncasecmp(fields[i].name, name, len))
            return &fields[i];
    }
    return NULL;
}

static struct column *parse_format(const char *format, size_t *count,
                                   drv_error_t *error)
{
    struct column *cols = xzalloc((strlen(format) + 1) * sizeof(*cols));

    *count = 0;
    for (const char *p = format; *p;) {
        size_t len = strcspn(p, ",");
        size_t nlen = strcspn(p, "%");
        struct column *c = &cols[*count];
        if (nlen > len)
            nlen = len;
        if (len && !(c->f = find_field(p, nlen))) {
            errno = EINVAL;
            errprintf(error, "Unknown field '%.*s'", (int)len, p);
            free(cols);
            return NULL;
        }
        if (len) {
            c->width = nlen < len ? atoi(p + nlen + 1) : c->f->width;
            if (!c->width)
                c->width = c->f->width;
            (*count)++;
        }
        p += len + (p[len] == ',');
    }
    return cols;
}

/* One value as print_fields_str() does. */
/* The title line(s): print_fields.h. */
static void put_header(struct fmt_buf *out, const struct column *cols,
                       size_t n, const struct smgr_out *o)
{
    const char **titles = xzalloc((n + 1) * sizeof(*titles));
    int *widths = xzalloc((n + 1) * sizeof(*widths));

    for (size_t i = 0; i < n; i++) {
        titles[i] = cols[i].f->header;
        widths[i] = cols[i].width;
    }
    pf_titles(out, (enum pf_layout)o->parsable, NULL, titles, widths, n);
    free(titles);
    free(widths);
}

int smgr_print(struct fmt_buf *out, enum smgr_kind kind, bool withassoc,
               const char *format, json_t *rows, const struct smgr_out *o,
               drv_error_t *error)
{
    size_t n, i;
    struct column *cols = parse_format(format ? format
                                              : smgr_default_format(kind,
                                                                    withassoc),
                                       &n, error);
    struct fmt_buf cell = {0};
    json_t *row;

    if (!cols)
        return -1;
    if (!o->noheader)
        put_header(out, cols, n, o);
    json_array_foreach(rows, i, row) {
        const json_t *rec = withassoc ? json_object_get(row, "user") : row;
        const json_t *assoc = withassoc ? json_object_get(row, "assoc") : NULL;
        for (size_t c = 0; c < n; c++) {
            const struct smgr_field *f = cols[c].f;
            fmt_buf_reset(&cell);
            if (f->key) {
                const char *key = f->key;
                /* a user's own columns read the user; the rest its assoc */
                if (f->get == get_rec_str || !assoc)
                    key = rename_key(kind, key);
                f->get(&cell, rec, f->get == get_rec_str ? NULL : assoc, key);
            }
            pf_cell(out, (enum pf_layout)o->parsable, NULL, fmt_buf_str(&cell),
                    cols[c].width, false, c + 1 == n);
        }
        fmt_buf_puts(out, "\n");
    }
    free(cell.s);
    free(cols);
    return 0;
}

json_t *smgr_tres_rows(const char *storage_tres)
{
    static const char *const dflt[][2] = {
        {"cpu", ""}, {"mem", ""}, {"energy", ""}, {"node", ""},
        {"billing", ""}, {"fs", "disk"}, {"vmem", ""}, {"pages", ""},
    };
    json_t *rows = json_array();
    json_int_t next = 1001;
    char *copy = xstrdup(storage_tres ? storage_tres : ""), *tok, *save;

    for (size_t i = 0; i < sizeof(dflt) / sizeof(dflt[0]); i++)
        json_array_append_new(rows, json_pack("{s:s s:s s:I}", "type",
                                              dflt[i][0], "name", dflt[i][1],
                                              "id", (json_int_t)i + 1));
    for (tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *slash = strchr(tok, '/');
        bool known = false;
        if (slash)
            *slash = '\0';
        for (size_t i = 0; i < sizeof(dflt) / sizeof(dflt[0]); i++)
            known |= !strcasecmp(tok, dflt[i][0]);
        if (known || !*tok)
            continue;
        json_array_append_new(rows, json_pack("{s:s s:s s:I}", "type", tok,
                                              "name", slash ? slash + 1 : "",
                                              "id", next++));
    }
    free(copy);
    return rows;
}
