/* SPDX-License-Identifier: Apache-2.0
 *
 * assoc_mgr_print.c - scontrol show assoc_mgr (assoc_mgr_print.h)
 *
 * The layout is Slurm 22.05's scontrol (golden
 * scontrol-show-assoc-mgr-alice): a limit is N when unset, what it uses
 * follows in parentheses; GrpTRESMins and GrpTRESRunMins are
 * TRES-seconds over 60, GrpWall seconds over 60 with two decimals.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/lib/assoc_mgr_print.h"
#include "cmd/lib/jsonget.h"

/* Slurm's NO_VAL: the uid of a user the system does not know. */
#define NO_VAL_UID 4294967294u

/* --- the request --------------------------------------------------------- */

/* Slurm's slurm_addto_char_list(): comma separated, no repeats. */
static void add_names(json_t *list, const char *val)
{
    const char *p = val;

    while (*p) {
        size_t len = strcspn(p, ",");
        if (len) {
            bool seen = false;
            json_t *v;
            size_t i;
            json_array_foreach(list, i, v)
                seen = seen
                       || (strlen(json_string_value(v)) == len
                           && !strncasecmp(json_string_value(v), p, len));
            if (!seen)
                json_array_append_new(list, json_stringn(p, len));
        }
        p += len;
        if (*p == ',')
            p++;
    }
}

/* Slurm compares the word's first MAX(len, 1) characters. */
static bool tag_is(const char *tag, size_t len, const char *full)
{
    return len <= strlen(full) && !strncasecmp(tag, full, len ? len : 1);
}

int assoc_mgr_parse(int argc, char **argv, bool quiet, FILE *err,
                    json_t **body, unsigned *flags)
{
    json_t *b = json_object();
    unsigned f = 0;

    for (int i = 0; i < argc; i++) {
        const char *tag = argv[i], *val = strchr(tag, '=');
        size_t len = val ? (size_t)(val - tag) : strlen(tag);
        const char *key = NULL;

        if (val)
            val++;
        if (!val || !*val) {
            fprintf(err, "No value given for option %s\n", tag);
            goto fail;
        } else if (tag_is(tag, len, "accounts")) {
            key = "accounts";
        } else if (tag_is(tag, len, "flags")) {
            if (strcasestr(val, "users"))
                f |= ASSOC_MGR_USERS;
            if (strcasestr(val, "assoc"))
                f |= ASSOC_MGR_ASSOC;
            if (strcasestr(val, "qos"))
                f |= ASSOC_MGR_QOS;
            if (!f) {
                fprintf(err, "invalid flag '%s', valid options are "
                             "'Assoc, QOS, and/or Users'\n", val);
                goto fail;
            }
        } else if (tag_is(tag, len, "qos")) {
            key = "qos";
        } else if (tag_is(tag, len, "users")) {
            key = "users";
        } else {
            if (!quiet)
                fprintf(err, "invalid entity: %s for keyword:show "
                             "assoc_mgr\n", tag);
            goto fail;
        }
        if (key) {
            if (!json_object_get(b, key))
                json_object_set_new(b, key, json_array());
            add_names(json_object_get(b, key), val);
        }
    }
    if (!f)
        f = ASSOC_MGR_ASSOC | ASSOC_MGR_USERS | ASSOC_MGR_QOS;
    json_object_set_new(b, "flags", json_integer(f));
    *body = b;
    *flags = f;
    return 0;
fail:
    json_decref(b);
    *body = NULL;
    return -1;
}

/* --- the answer ---------------------------------------------------------- */

struct pr {
    FILE *out;
    bool one_liner;
    const char *nl; /* between a record's lines: "\n    ", or " " */
    json_t *tres;   /* the TRES names */
};

static double jreal(const json_t *o, const char *key)
{
    json_t *v = jget(o, key);

    return json_is_number(v) ? json_number_value(v) : 0;
}

/* An unsigned 32-bit count as Slurm prints it (-1 and below: 0). */
static uint64_t u64(int64_t v)
{
    return v < 0 ? 0 : (uint64_t)v;
}

/* Slurm's _print_tres_line(): "Name=" then, for each TRES with a limit
 * (or every TRES when 'used' is given), name=LIMIT (N when none) with
 * (USED/divider) after it. */
static void tres_line(const struct pr *p, const char *name,
                      const json_t *limits, const json_t *used,
                      uint64_t divider)
{
    bool comma = false;

    fprintf(p->out, "%s=", name);
    for (size_t i = 0; i < json_array_size(p->tres); i++) {
        json_t *l = json_array_get(limits, i);
        int64_t lim = json_is_integer(l) ? json_integer_value(l) : -1;
        if (!used && lim < 0)
            continue;
        fprintf(p->out, "%s%s=", comma ? "," : "",
                json_string_value(json_array_get(p->tres, i)));
        if (lim < 0)
            fputc('N', p->out);
        else
            fprintf(p->out, "%" PRId64, lim);
        if (used) {
            json_t *u = json_array_get(used, i);
            uint64_t v = json_is_integer(u) && json_integer_value(u) > 0
                             ? (uint64_t)json_integer_value(u)
                             : 0;
            fprintf(p->out, "(%" PRIu64 ")", divider ? v / divider : v);
        }
        comma = true;
    }
}

/* "Key=LIMIT(USED)", or "Key=N(USED)" with no limit. */
static void grp_count(const struct pr *p, const char *key, int64_t limit,
                      uint64_t used)
{
    if (limit >= 0)
        fprintf(p->out, "%s=%" PRId64 "(%" PRIu64 ")", key, limit, used);
    else
        fprintf(p->out, "%s=N(%" PRIu64 ")", key, used);
}

/* MaxWallPJ, MaxTRESPJ, MaxTRESPN and MaxTRESMinsPJ of an association or
 * a QOS record 'r', each followed by the record's separator. */
static void per_job_limits(const struct pr *p, const json_t *r)
{
    if (jint(r, "max_wall_pj", -1) >= 0)
        fprintf(p->out, "MaxWallPJ=%" PRId64, jint(r, "max_wall_pj", -1));
    else
        fputs("MaxWallPJ=", p->out);
    fputs(p->nl, p->out);
    tres_line(p, "MaxTRESPJ", jget(r, "max_tres_pj"), NULL, 0);
    fputs(p->nl, p->out);
    tres_line(p, "MaxTRESPN", jget(r, "max_tres_pn"), NULL, 0);
    fputs(p->nl, p->out);
    tres_line(p, "MaxTRESMinsPJ", jget(r, "max_tres_mins_pj"), NULL, 0);
    fputs(p->nl, p->out);
}

/* "Key=LIMIT(USED) ", or "Key= " with no limit (the Max* counts). */
static void max_count(const struct pr *p, const char *key, int64_t limit,
                      uint64_t used)
{
    if (limit >= 0)
        fprintf(p->out, "%s=%" PRId64 "(%" PRIu64 ") ", key, limit, used);
    else
        fprintf(p->out, "%s= ", key);
}

static void grp_wall(const struct pr *p, int64_t limit, double used_s)
{
    if (limit >= 0)
        fprintf(p->out, "GrpWall=%" PRId64 "(%.2f)", limit, used_s / 60);
    else
        fprintf(p->out, "GrpWall=N(%.2f)", used_s / 60);
}

static void print_user(const struct pr *p, const json_t *u)
{
    int64_t uid = jint(u, "uid", -1);

    /* Slurm prints a user without a default wckey's NULL as "(null)". */
    fprintf(p->out, "UserName=%s(%" PRIu64 ") DefAccount=%s DefWckey=%s "
                    "AdminLevel=%s\n",
            jstr_or(u, "name", ""), uid < 0 ? (uint64_t)NO_VAL_UID
                                            : (uint64_t)uid,
            jstr_or(u, "default_account", ""),
            jstr_or(u, "default_wckey", "(null)"),
            jstr_or(u, "admin_level", "None"));
}

static void print_assoc(const struct pr *p, const json_t *a)
{
    const json_t *used = jget(a, "used"), *usage = jget(a, "usage");
    const char *user = jstr_or(a, "user", "");
    int64_t uid = jint(a, "uid", -1);
    uint64_t jobs = u64(jint(used, "jobs", 0));
    uint64_t accrue = u64(jint(used, "accrue", 0));
    uint64_t submit = u64(jint(used, "submit_jobs", 0));
    int64_t level = jint(a, "level_shares", 0);

    fprintf(p->out, "ClusterName=%s Account=%s ", jstr_or(a, "cluster", ""),
            jstr_or(a, "account", ""));
    if (*user)
        fprintf(p->out, "UserName=%s(%" PRIu64 ") ", user,
                uid < 0 ? (uint64_t)NO_VAL_UID : (uint64_t)uid);
    else
        fputs("UserName= ", p->out);
    fprintf(p->out, "Partition=%s Priority=%" PRIu64 " ID=%" PRIu64 "%s",
            jstr_or(a, "partition", ""), u64(jint(a, "priority", 0)),
            u64(jint(a, "id", 0)), p->nl);
    /* Slurm shows a level without siblings' shares (the root's) as 1 */
    fprintf(p->out, "SharesRaw/Norm/Level/Factor=%" PRIu64 "/%.2f/%" PRIu64
                    "/%.2f%s",
            u64(jint(a, "shares", 1)), jreal(a, "shares_norm"),
            level > 0 ? (uint64_t)level : 1, jreal(a, "fs_factor"), p->nl);
    fprintf(p->out, "UsageRaw/Norm/Efctv=%.2f/%.2f/%.2f%s",
            jreal(usage, "raw"), jreal(a, "usage_norm"),
            jreal(a, "usage_efctv"), p->nl);
    if (jstr(a, "parent_account"))
        fprintf(p->out, "ParentAccount=%s(%" PRIu64 ") ",
                jstr(a, "parent_account"), u64(jint(a, "parent_id", 0)));
    else
        fputs("ParentAccount= ", p->out);
    fprintf(p->out, "Lft=%" PRIu64 " DefAssoc=%s%s", u64(jint(a, "lft", 0)),
            jbool(a, "is_def", false) ? "Yes" : "No", p->nl);
    grp_count(p, "GrpJobs", jint(a, "grp_jobs", -1), jobs);
    fputc(' ', p->out);
    grp_count(p, "GrpJobsAccrue", jint(a, "grp_jobs_accrue", -1), accrue);
    fputs(p->nl, p->out);
    grp_count(p, "GrpSubmitJobs", jint(a, "grp_submit_jobs", -1), submit);
    fputc(' ', p->out);
    grp_wall(p, jint(a, "grp_wall", -1), jreal(usage, "wall_s"));
    fputs(p->nl, p->out);
    tres_line(p, "GrpTRES", jget(a, "grp_tres"), jget(used, "tres"), 0);
    fputs(p->nl, p->out);
    tres_line(p, "GrpTRESMins", jget(a, "grp_tres_mins"),
              jget(usage, "tres_secs"), 60);
    fputs(p->nl, p->out);
    tres_line(p, "GrpTRESRunMins", jget(a, "grp_tres_run_mins"),
              jget(used, "tres_run_secs"), 60);
    fputs(p->nl, p->out);
    max_count(p, "MaxJobs", jint(a, "max_jobs", -1), jobs);
    max_count(p, "MaxJobsAccrue", jint(a, "max_jobs_accrue", -1), accrue);
    max_count(p, "MaxSubmitJobs", jint(a, "max_submit_jobs", -1), submit);
    per_job_limits(p, a);
    if (jint(a, "min_prio_thresh", -1) >= 0)
        fprintf(p->out, "MinPrioThresh=%" PRId64 "\n",
                jint(a, "min_prio_thresh", -1));
    else
        fputs("MinPrioThresh=\n", p->out);
}

/* One entry of a QOS's Account Limits or User Limits. */
static void print_qos_limit(const struct pr *p, const json_t *qos,
                            const json_t *l, bool user)
{
    const char *nl = p->one_liner ? " " : "\n        ";
    const char *sfx = user ? "PU" : "PA";
    char key[32];

    if (user)
        fprintf(p->out, "%s%s(%" PRIu64 ")%s", p->one_liner ? " " : "\n      ",
                jstr_or(l, "name", ""), u64(jint(l, "uid", 0)),
                p->one_liner ? "={" : nl);
    else
        fprintf(p->out, "%s%s%s", p->one_liner ? " " : "\n      ",
                jstr_or(l, "name", ""), p->one_liner ? "={" : nl);
    snprintf(key, sizeof(key), "max_jobs_%s", user ? "pu" : "pa");
    fprintf(p->out, "MaxJobs%s=", sfx);
    if (jint(qos, key, -1) >= 0)
        fprintf(p->out, "%" PRId64, jint(qos, key, -1));
    else
        fputc('N', p->out);
    fprintf(p->out, "(%" PRIu64 ") ", u64(jint(l, "jobs", 0)));
    snprintf(key, sizeof(key), "max_jobs_accrue_%s", user ? "pu" : "pa");
    fprintf(p->out, "MaxJobsAccrue%s=", sfx);
    if (jint(qos, key, -1) >= 0)
        fprintf(p->out, "%" PRId64, jint(qos, key, -1));
    else
        fputc('N', p->out);
    fprintf(p->out, "(%" PRIu64 ") ", u64(jint(l, "accrue", 0)));
    snprintf(key, sizeof(key), "max_submit_jobs_%s", user ? "pu" : "pa");
    fprintf(p->out, "MaxSubmitJobs%s=", sfx);
    if (jint(qos, key, -1) >= 0)
        fprintf(p->out, "%" PRId64, jint(qos, key, -1));
    else
        fputc('N', p->out);
    fprintf(p->out, "(%" PRIu64 ")%s", u64(jint(l, "submit_jobs", 0)), nl);
    snprintf(key, sizeof(key), "max_tres_%s", user ? "pu" : "pa");
    tres_line(p, user ? "MaxTRESPU" : "MaxTRESPA", jget(qos, key),
              jget(l, "tres"), 0);
    if (p->one_liner)
        fputc('}', p->out);
}

/* Slurm's preempt_mode_string() of a QOS's PreemptMode. */
static const char *preempt_mode(const char *m)
{
    static const char *const names[][2] = {
        {"cancel", "CANCEL"}, {"requeue", "REQUEUE"},
        {"suspend", "SUSPEND"}, {"gang", "GANG"},
    };

    for (size_t i = 0; m && i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcasecmp(m, names[i][0]))
            return names[i][1];
    return "OFF"; /* off, and "cluster" (the QOS sets none) */
}

static void print_qos(const struct pr *p, const json_t *q)
{
    const json_t *used = jget(q, "used"), *usage = jget(q, "usage");
    const json_t *lims;
    int64_t prio = jint(q, "priority", -1);

    fprintf(p->out, "QOS=%s(%" PRIu64 ")%s", jstr_or(q, "name", ""),
            u64(jint(q, "id", 0)), p->nl);
    fprintf(p->out, "UsageRaw=%f%s", jreal(usage, "raw"), p->nl);
    grp_count(p, "GrpJobs", jint(q, "grp_jobs", -1),
              u64(jint(used, "jobs", 0)));
    fputc(' ', p->out);
    grp_count(p, "GrpJobsAccrue", jint(q, "grp_jobs_accrue", -1),
              u64(jint(used, "accrue", 0)));
    fputc(' ', p->out);
    grp_count(p, "GrpSubmitJobs", jint(q, "grp_submit_jobs", -1),
              u64(jint(used, "submit_jobs", 0)));
    fputc(' ', p->out);
    grp_wall(p, jint(q, "grp_wall", -1), jreal(usage, "wall_s"));
    fputs(p->nl, p->out);
    tres_line(p, "GrpTRES", jget(q, "grp_tres"), jget(used, "tres"), 0);
    fputs(p->nl, p->out);
    tres_line(p, "GrpTRESMins", jget(q, "grp_tres_mins"),
              jget(usage, "tres_secs"), 60);
    fputs(p->nl, p->out);
    tres_line(p, "GrpTRESRunMins", jget(q, "grp_tres_run_mins"),
              jget(used, "tres_run_secs"), 60);
    fputs(p->nl, p->out);
    per_job_limits(p, q);
    if (jint(q, "min_prio_thresh", -1) >= 0)
        fprintf(p->out, "MinPrioThresh=%" PRId64 " ",
                jint(q, "min_prio_thresh", -1));
    else
        fputs("MinPrioThresh= ", p->out);
    fputs(p->nl, p->out);
    tres_line(p, "MinTRESPJ", jget(q, "min_tres_pj"), NULL, 0);
    fputs(p->nl, p->out);
    fprintf(p->out, "PreemptMode=%s%s", preempt_mode(jstr(q, "preempt_mode")),
            p->nl);
    if (prio < 0)
        fputs("Priority=NONE", p->out);
    else
        fprintf(p->out, "Priority=%" PRId64, prio);
    fputs(p->nl, p->out);
    fprintf(p->out, "Account Limits%s", p->one_liner ? "=" : "");
    lims = jget(q, "account_limits");
    if (json_array_size(lims))
        for (size_t i = 0; i < json_array_size(lims); i++)
            print_qos_limit(p, q, json_array_get(lims, i), false);
    else
        fprintf(p->out, "%sNo Accounts", p->one_liner ? "" : "\n        ");
    fputs(p->nl, p->out);
    fprintf(p->out, "User Limits%s", p->one_liner ? "=" : "");
    lims = jget(q, "user_limits");
    if (json_array_size(lims))
        for (size_t i = 0; i < json_array_size(lims); i++)
            print_qos_limit(p, q, json_array_get(lims, i), true);
    else
        fprintf(p->out, "%sNo Users", p->one_liner ? "" : "\n        ");
    fputc('\n', p->out);
}

/* A section's heading, or its "No ... currently cached" line when it is
 * empty and was asked for.  False when it is empty. */
static bool heading(const struct pr *p, const json_t *list, bool wanted,
                    const char *title, const char *none)
{
    const char *nl = p->one_liner ? "" : "\n";

    if (!json_array_size(list)) {
        if (wanted)
            fprintf(p->out, "%sNo %s currently cached in Slurm.%s\n", nl,
                    none, nl);
        return false;
    }
    fprintf(p->out, "%s%s%s\n", nl, title, nl);
    return true;
}

void assoc_mgr_print(FILE *out, const json_t *resp, unsigned flags,
                     bool one_liner)
{
    struct pr p = {out, one_liner, one_liner ? " " : "\n    ",
                   jget(resp, "tres")};
    const json_t *list;

    fputs("Current Association Manager state\n", out);
    list = jget(resp, "users");
    if (heading(&p, list, flags & ASSOC_MGR_USERS, "User Records", "users"))
        for (size_t i = 0; i < json_array_size(list); i++)
            print_user(&p, json_array_get(list, i));
    list = jget(resp, "assocs");
    if (heading(&p, list, flags & ASSOC_MGR_ASSOC, "Association Records",
                "associations"))
        for (size_t i = 0; i < json_array_size(list); i++)
            print_assoc(&p, json_array_get(list, i));
    list = jget(resp, "qos");
    if (heading(&p, list, flags & ASSOC_MGR_QOS, "QOS Records", "QOS"))
        for (size_t i = 0; i < json_array_size(list); i++)
            print_qos(&p, json_array_get(list, i));
}
