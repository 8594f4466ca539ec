/* SPDX-License-Identifier: Apache-2.0
 *
 * sshare_print.c - sshare's table (sshare_print.h)
 *
 * A table of Slurm's sshare fields (name, default width, kind); -o names
 * pick rows by prefix, in table order, as Slurm's process.c does.  Values
 * go through print_fields.c, except the real numbers, which follow
 * Slurm's print_fields_double() ("%f" in the column, or "%e" when that is
 * too wide).
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/lib/jsonget.h"
#include "cmd/lib/sshare_print.h"
#include "common/xalloc.h"

const char sshare_usage_text[] =
    "Usage:  sshare [OPTION]                                              "
    "      \n"
    "  Valid OPTIONs are:                                                 "
    "      \n"
    "    -a or --all            list all users                            "
    "      \n"
    "    -A or --accounts=      display specific accounts (comma separated "
    "list)\n"
    "    -e or --helpformat     Print a list of fields that can be specified"
    "    \n"
    "                           with the '--format' option                "
    "      \n"
    "    -l or --long           include normalized usage in output        "
    "      \n"
    "    -m or --partition      print the partition part of the association"
    "     \n"
    "    -M or --cluster=names  clusters to issue commands to.            "
    "      \n"
    "                           NOTE: SlurmDBD must be up.                "
    "      \n"
    "    -n or --noheader       omit header from output                   "
    "      \n"
    "    -o or --format=        Comma separated list of fields (use       "
    "      \n"
    "                           \"--helpformat\" for a list of available "
    "fields).\n"
    "    -p or --parsable       '|' delimited output with a trailing '|'  "
    "      \n"
    "    -P or --parsable2      '|' delimited output without a trailing '|'"
    "     \n"
    "    -u or --users=         display specific users (comma separated "
    "list)   \n"
    "    -U or --Users          display only user information             "
    "      \n"
    "    -v or --verbose        display more information                  "
    "      \n"
    "    -V or --version        display tool version number               "
    "      \n"
    "          --help           display this usage description            "
    "      \n"
    "          --usage          display this usage description            "
    "      \n"
    "                                                                     "
    "      \n"
    "\n";

enum sshare_field {
    SF_ACCOUNT,
    SF_CLUSTER,
    SF_EUSED,
    SF_FAIRSHARE,
    SF_GRPTRESMINS,
    SF_GRPTRESRAW,
    SF_ID,
    SF_LEVELFS,
    SF_NORMSHARES,
    SF_NORMUSAGE,
    SF_PARTITION,
    SF_RAWSHARES,
    SF_RAWUSAGE,
    SF_TRESRUNMINS,
    SF_USER,
};

/* Slurm 22.05's sshare fields: default width (negative: left-justified),
 * name, in its order (which decides what a prefix such as "P" means). */
static const struct {
    int width;
    const char *name;
} fields[] = {
    [SF_ACCOUNT] = {-20, "Account"},
    [SF_CLUSTER] = {10, "Cluster"},
    [SF_EUSED] = {13, "EffectvUsage"},
    [SF_FAIRSHARE] = {10, "FairShare"},
    [SF_GRPTRESMINS] = {30, "GrpTRESMins"},
    [SF_GRPTRESRAW] = {30, "GrpTRESRaw"},
    [SF_ID] = {6, "ID"},
    [SF_LEVELFS] = {10, "LevelFS"},
    [SF_NORMSHARES] = {11, "NormShares"},
    [SF_NORMUSAGE] = {11, "NormUsage"},
    [SF_PARTITION] = {12, "Partition"},
    [SF_RAWSHARES] = {10, "RawShares"},
    [SF_RAWUSAGE] = {11, "RawUsage"},
    [SF_TRESRUNMINS] = {30, "TRESRunMins"},
    [SF_USER] = {10, "User"},
};

#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

void sshare_print_helpformat(FILE *out)
{
    for (size_t i = 0; i < NFIELDS; i++) {
        if (i & 3)
            fputc(' ', out);
        else if (i)
            fputc('\n', out);
        fprintf(out, "%-17s", fields[i].name);
    }
    fputc('\n', out);
}

struct column {
    enum sshare_field field;
    int width;
};

/* The columns of 'format' ("A,User,RawShares%12"), Slurm's way: names
 * match a field by prefix, case-insensitively, the first in table order;
 * "%N" sets the width (and so right-justifies); a repeated entry
 * ("User,user") counts once.  Returns the number of columns, or -1 with 'error' set. */
static int parse_columns(const char *format, struct column *cols,
                         size_t max, drv_error_t *error)
{
    char *copy = xstrdup(format), *save = NULL, *tok;
    char *seen[64];
    size_t n = 0, nseen = 0;
    int rc = 0;

    for (tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *pct = strchr(tok, '%');
        int width = 0;
        size_t i, k;

        for (k = 0; k < nseen && strcasecmp(seen[k], tok); k++)
            ;
        if (k < nseen)
            continue;
        if (nseen < sizeof(seen) / sizeof(seen[0]))
            seen[nseen++] = xstrdup(tok);
        if (pct) {
            *pct = '\0';
            width = atoi(pct + 1);
        }
        for (i = 0; i < NFIELDS; i++)
            if (!strncasecmp(fields[i].name, tok, strlen(tok)))
                break;
        if (i == NFIELDS) {
            errprintf(error, "Invalid field requested: \"%s\"", tok);
            rc = -1;
            break;
        }
        if (n < max)
            cols[n++] = (struct column){i, width ? width : fields[i].width};
    }
    for (size_t k = 0; k < nseen; k++)
        free(seen[k]);
    free(copy);
    return rc < 0 ? -1 : (int)n;
}

static const char *default_format(const json_t *resp,
                                  const struct sshare_out *o)
{
    bool fair_tree = jbool(resp, "fair_tree", true);

    if (o->long_list) {
        if (fair_tree)
            return o->partitions
                       ? "A,User,P,RawShares,NormShares,RawUsage,NormUsage,"
                         "Eff,Fairshare,LevelFS,GrpTRESMins,TRESRunMins"
                       : "A,User,RawShares,NormShares,RawUsage,NormUsage,"
                         "Eff,Fairshare,LevelFS,GrpTRESMins,TRESRunMins";
        return o->partitions
                   ? "A,User,P,RawShares,NormShares,RawUsage,NormUsage,Eff,"
                     "Fairshare,GrpTRESMins,TRESRunMins"
                   : "A,User,RawShares,NormShares,RawUsage,NormUsage,Eff,"
                     "Fairshare,GrpTRESMins,TRESRunMins";
    }
    return o->partitions
               ? "A,User,P,RawShares,NormShares,RawUsage,Eff,Fairshare"
               : "A,User,RawShares,NormShares,RawUsage,Eff,Fairshare";
}

static bool in_list(const char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(v[i], s))
            return true;
    return false;
}

/* Slurm's controller filters this way (assoc_mgr_get_shares): the user
 * list applies to user rows only, the account list to every row. */
static bool wanted(const json_t *row, const struct sshare_out *o)
{
    const char *user = jstr_or(row, "user", NULL);

    if (o->users_only && !user)
        return false;
    if (user && o->nusers && !in_list(o->users, o->nusers, user))
        return false;
    if (o->naccounts
        && !in_list(o->accounts, o->naccounts, jstr_or(row, "account", "")))
        return false;
    return true;
}

/* A real value of 'row': a number, or "inf"/"nan" as text.  False when
 * absent or null (the column is left empty). */
static bool real(const json_t *row, const char *key, double *v)
{
    json_t *j = jget(row, key);

    if (json_is_number(j)) {
        *v = json_number_value(j);
        return true;
    }
    if (json_is_string(j)) {
        char *end;

        *v = strtod(json_string_value(j), &end);
        return end != json_string_value(j);
    }
    return false;
}

/* Slurm's print_fields_double(): "%f" in the column, or when that does
 * not fit, "%e" with as many digits as the width allows. */
static void put_real(struct fmt_buf *out, const struct sshare_out *o,
                     bool set, double v, int width, bool last)
{
    int w = abs(width);
    char text[512];

    if (!set) {
        pf_cell(out, o->layout, NULL, NULL, width, true, last);
        return;
    }
    if (o->layout != PF_COLUMNS) {
        snprintf(text, sizeof(text), "%f", v);
        pf_cell(out, o->layout, NULL, text, width, true, last);
        return;
    }
    if (snprintf(text, sizeof(text), "%*f", w, v) > w) {
        int len = snprintf(text, sizeof(text), "%*.*e", w, w, v);

        if (len > w)
            w -= len - w;
        if (w < 0)
            w = 0;
        snprintf(text, sizeof(text), width < 0 ? "%-*.*e" : "%*.*e", w, w,
                 v);
    } else {
        snprintf(text, sizeof(text), width < 0 ? "%-*f" : "%*f", w, v);
    }
    pf_cell(out, o->layout, NULL, text, 0, true, last);
}

static void put_uint(struct fmt_buf *out, const struct sshare_out *o,
                     bool set, unsigned long long v, int width, bool last)
{
    char text[32];

    if (!set) {
        pf_cell(out, o->layout, NULL, NULL, width, true, last);
        return;
    }
    snprintf(text, sizeof(text), "%llu", v);
    pf_cell(out, o->layout, NULL, text, width, true, last);
}

static void put_str(struct fmt_buf *out, const struct sshare_out *o,
                    const char *v, int width, bool last)
{
    pf_cell(out, o->layout, NULL, v, width, false, last);
}

static void put_value(struct fmt_buf *out, const json_t *row,
                      const struct column *col, bool fair_tree,
                      const struct sshare_out *o, bool last)
{
    const char *user = jstr_or(row, "user", NULL);
    json_t *raw_shares = jget(row, "raw_shares");
    bool parent = json_is_string(raw_shares)
                  && !strcmp(json_string_value(raw_shares), "parent");
    int width = col->width;
    double v = 0;
    bool set;

    switch (col->field) {
    case SF_ACCOUNT: {
        int depth = (int)jint(row, "depth", 0);
        char *name = xasprintf("%*s%s", depth > 0 ? depth : 0, "",
                               jstr_or(row, "account", ""));

        put_str(out, o, name, width, last);
        free(name);
        break;
    }
    case SF_CLUSTER:
        put_str(out, o, jstr_or(row, "cluster", o->cluster), width, last);
        break;
    case SF_EUSED:
        set = real(row, "effective_usage", &v);
        put_real(out, o, set, v, width, last);
        break;
    case SF_FAIRSHARE:
        /* Fair Tree ranks users; an account has no factor of its own. */
        set = !(fair_tree && !user) && real(row, "fairshare", &v);
        put_real(out, o, set, v, width, last);
        break;
    case SF_GRPTRESMINS:
        put_str(out, o, jstr_or(row, "grp_tres_mins", ""), width, last);
        break;
    case SF_GRPTRESRAW:
        put_str(out, o, jstr_or(row, "grp_tres_raw", ""), width, last);
        break;
    case SF_ID:
        put_uint(out, o, json_is_integer(jget(row, "id")),
                 (unsigned long long)jint(row, "id", 0), width, last);
        break;
    case SF_LEVELFS:
        set = !parent && real(row, "level_fs", &v);
        put_real(out, o, set, v, width, last);
        break;
    case SF_NORMSHARES:
        set = real(row, "norm_shares", &v);
        put_real(out, o, set, v, width, last);
        break;
    case SF_NORMUSAGE:
        /* Slurm never computes the root's normalized usage: its column
         * stays empty whatever the controller sends. */
        set = (user || jint(row, "depth", 0) > 0)
              && real(row, "norm_usage", &v);
        put_real(out, o, set, v, width, last);
        break;
    case SF_PARTITION:
        put_str(out, o, jstr_or(row, "partition", NULL), width, last);
        break;
    case SF_RAWSHARES:
        if (parent) {
            put_str(out, o, "parent", width, last);
        } else {
            long long s = jint(row, "raw_shares", -1);

            put_uint(out, o, s >= 0, (unsigned long long)s, width, last);
        }
        break;
    case SF_RAWUSAGE:
        set = real(row, "raw_usage", &v) && v >= 0 && isfinite(v);
        put_uint(out, o, set, set ? (unsigned long long)v : 0, width, last);
        break;
    case SF_TRESRUNMINS:
        put_str(out, o, jstr_or(row, "tres_run_mins", ""), width, last);
        break;
    case SF_USER:
        put_str(out, o, user, width, last);
        break;
    }
}

int sshare_print(struct fmt_buf *out, const json_t *resp,
                 const struct sshare_out *o, drv_error_t *error)
{
    const char *format = o->format ? o->format : default_format(resp, o);
    bool fair_tree = jbool(resp, "fair_tree", true);
    json_t *rows = json_object_get(resp, "rows"), *row;
    struct column cols[64];
    int n = parse_columns(format, cols, sizeof(cols) / sizeof(cols[0]),
                          error);
    size_t i;

    if (n < 0)
        return -1;
    if (!o->noheader) {
        const char *titles[64];
        int widths[64];

        for (int k = 0; k < n; k++) {
            titles[k] = fields[cols[k].field].name;
            widths[k] = cols[k].width;
        }
        pf_titles(out, o->layout, NULL, titles, widths, (size_t)n);
    }
    json_array_foreach(rows, i, row) {
        if (!json_is_object(row) || !wanted(row, o))
            continue;
        for (int k = 0; k < n; k++)
            put_value(out, row, &cols[k], fair_tree, o, k + 1 == n);
        fmt_buf_puts(out, "\n");
    }
    return 0;
}
