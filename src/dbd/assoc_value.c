/* SPDX-License-Identifier: Apache-2.0
 *
 * assoc_value.c - acct_modify's keys and values (a table, not code)
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/timefmt.h"
#include "common/xalloc.h"
#include "dbd/assoc_private.h"
#include "dbd/assoc_value.h"

static const struct assoc_key keys[] = {
    {"fairshare", "Fairshare", "shares", NULL, AV_INT},
    {"shares", "Fairshare", "shares", NULL, AV_INT},
    {"priority", "Priority", "priority", "priority", AV_INT},
    {"grptres", "GrpTRES", "grp_tres", "grp_tres", AV_TRES},
    {"grpjobs", "GrpJobs", "grp_jobs", "grp_jobs", AV_INT},
    {"grpsubmitjobs", "GrpSubmitJobs", "grp_submit_jobs", "grp_submit_jobs",
     AV_INT},
    {"grpsubmit", "GrpSubmitJobs", "grp_submit_jobs", "grp_submit_jobs",
     AV_INT},
    {"maxtres", "MaxTRESPerJob", "max_tres_per_job", "max_tres_per_job",
     AV_TRES},
    {"maxtresperjob", "MaxTRESPerJob", "max_tres_per_job",
     "max_tres_per_job", AV_TRES},
    {"maxtrespj", "MaxTRESPerJob", "max_tres_per_job", "max_tres_per_job",
     AV_TRES},
    {"maxtresperuser", "MaxTRESPerUser", NULL, "max_tres_per_user", AV_TRES},
    {"maxtrespu", "MaxTRESPerUser", NULL, "max_tres_per_user", AV_TRES},
    {"maxjobs", "MaxJobs", "max_jobs", "max_jobs_per_user", AV_INT},
    {"maxjobsperuser", "MaxJobsPerUser", NULL, "max_jobs_per_user", AV_INT},
    {"maxjobspu", "MaxJobsPerUser", NULL, "max_jobs_per_user", AV_INT},
    {"maxsubmitjobs", "MaxSubmitJobs", "max_submit_jobs",
     "max_submit_jobs_per_user", AV_INT},
    {"maxsubmit", "MaxSubmitJobs", "max_submit_jobs",
     "max_submit_jobs_per_user", AV_INT},
    {"maxsubmitjobsperuser", "MaxSubmitJobsPerUser", NULL,
     "max_submit_jobs_per_user", AV_INT},
    {"maxsubmitjobspu", "MaxSubmitJobsPerUser", NULL,
     "max_submit_jobs_per_user", AV_INT},
    {"maxsubmitpu", "MaxSubmitJobsPerUser", NULL, "max_submit_jobs_per_user",
     AV_INT},
    {"maxwall", "MaxWall", "max_wall_min", "max_wall_min", AV_WALL},
    {"maxwalldurationperjob", "MaxWall", "max_wall_min", "max_wall_min",
     AV_WALL},
    {"maxwallduration", "MaxWall", "max_wall_min", "max_wall_min", AV_WALL},
    {"qos", "QOS", "qos", NULL, AV_QOSLIST},
    {"defaultqos", "Default QOS", "def_qos", NULL, AV_QOSNAME},
    {"preempt", "Preempt", NULL, "preempt", AV_QOSLIST},
    {"preemptmode", "PreemptMode", NULL, "preempt_mode", AV_PMODE},
    {"gracetime", "GraceTime", NULL, "grace_time_s", AV_SECS},
    {"usagefactor", "UsageFactor", NULL, "usage_factor", AV_FLOAT},
    {"description", "Description", NULL, "description", AV_TEXT},
    {"flags", "Flags", NULL, "flags", AV_TEXT},
    {NULL, NULL, NULL, NULL, 0},
};

const struct assoc_key *assoc_key_find(const char *key)
{
    for (size_t i = 0; keys[i].key; i++) {
        if (!strcasecmp(keys[i].key, key))
            return &keys[i];
    }
    return NULL;
}

const char *assoc_value_text(const json_t *v, char *buf, size_t size)
{
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_integer(v)) {
        snprintf(buf, size, "%lld", (long long)json_integer_value(v));
        return buf;
    }
    if (json_is_real(v)) {
        snprintf(buf, size, "%f", json_real_value(v));
        return buf;
    }
    return NULL;
}

static json_t *bad(const struct assoc_key *k, const char *text,
                   drv_error_t *error)
{
    errno = EINVAL;
    errprintf(error, " Bad %s value: %s", k->label, text);
    return NULL;
}

static bool parse_count(const char *s, long long *out)
{
    char *end;

    errno = 0;
    *out = strtoll(s, &end, 10);
    return !errno && end != s && !*end && *out >= -1;
}

/* One "name=value" item of a TRES string is sane. */
static bool tres_item_ok(const char *item, size_t len)
{
    const char *eq = memchr(item, '=', len);
    size_t i;

    if (!eq || eq == item || eq + 1 == item + len)
        return false;
    for (i = 0; item + i < eq; i++) {
        if (!isalnum((unsigned char)item[i]) && !strchr("/_:-.", item[i]))
            return false;
    }
    if (!strncmp(eq + 1, "-1", 2) && eq + 3 == item + len)
        return true;
    for (i = 1; eq + i < item + len; i++) {
        char c = eq[i];
        if (!isdigit((unsigned char)c)
            && !(eq + i + 1 == item + len && strchr("KMGTPkmgtp", c)))
            return false;
    }
    return true;
}

/* Items of 'add' replace same-named items of 'cur'; "k=-1" drops k. */
static json_t *tres_merge(const char *cur, const char *add, bool for_assoc)
{
    json_t *items = json_object(); /* keeps insertion order */
    const char *lists[] = {cur, add};
    char *out = xstrdup(""), *next;
    const char *k;
    json_t *v;

    for (int l = 0; l < 2; l++) {
        for (const char *p = lists[l]; p && *p;) {
            size_t len = strcspn(p, ",");
            const char *eq = memchr(p, '=', len);
            char *name = eq ? xasprintf("%.*s", (int)(eq - p), p) : NULL;
            if (name)
                json_object_set_new(items, name,
                                    json_stringn(eq + 1,
                                                 len - (size_t)(eq + 1 - p)));
            free(name);
            p += len + (p[len] == ',');
        }
    }
    json_object_foreach(items, k, v) {
        if (!strcmp(json_string_value(v), "-1"))
            continue;
        next = xasprintf("%s%s%s=%s", out, out[0] ? "," : "", k,
                         json_string_value(v));
        free(out);
        out = next;
    }
    json_decref(items);
    v = (for_assoc && !out[0]) ? json_null() : json_string(out);
    free(out);
    return v;
}

static json_t *parse_tres(const struct assoc_key *k, const char *text,
                          const json_t *cur, bool for_assoc,
                          drv_error_t *error)
{
    if (!text[0] || !strcmp(text, "-1"))
        return for_assoc ? json_null() : json_string("");
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, ",");
        if (!tres_item_ok(p, len))
            return bad(k, text, error);
        p += len + (p[len] == ',');
    }
    return tres_merge(json_string_value(cur), text, for_assoc);
}

static int qos_check(db_t *db, const char *name, drv_error_t *error)
{
    bool yes = false;

    if (assoc__exists(db, "qos", name, &yes, error) < 0)
        return -1;
    if (!yes) {
        errno = EINVAL;
        return errprintf(error, " Unknown QOS name: %s", name);
    }
    return 0;
}

/* "a,b" replaces; "+a,+b" adds to and "-a" removes from 'cur'. */
static json_t *parse_qos_list(db_t *db, const char *text, const json_t *cur,
                              bool for_assoc, drv_error_t *error)
{
    json_t *out = json_array(), *v;
    bool delta = text[0] == '+' || text[0] == '-';
    size_t i;

    if (delta && json_is_array(cur))
        json_array_extend(out, (json_t *)cur);
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, ",");
        char sign = (*p == '+' || *p == '-') ? *p : 0;
        char *lc = xasprintf("%.*s", (int)(len - (sign != 0)), p + (sign != 0));
        char *name = assoc__lower(lc);
        free(lc);
        if (name[0] && qos_check(db, name, error) < 0) {
            free(name);
            json_decref(out);
            return NULL;
        }
        json_array_foreach(out, i, v) {
            if (!strcmp(json_string_value(v), name)) {
                json_array_remove(out, i);
                break;
            }
        }
        if (sign != '-' && name[0])
            json_array_append_new(out, json_string(name));
        free(name);
        p += len + (p[len] == ',');
    }
    if (for_assoc && !delta && !json_array_size(out)) {
        json_decref(out);
        return json_null();
    }
    return out;
}

static json_t *parse_time(const struct assoc_key *k, const char *text,
                          bool for_assoc, drv_error_t *error)
{
    drv_error_t why = {{0}};
    int64_t secs;
    long long n;

    if (!strcmp(text, "-1") || !text[0])
        return for_assoc ? json_null() : json_integer(k->kind == AV_SECS ? 0
                                                                        : -1);
    if (k->kind == AV_SECS && parse_count(text, &n))
        return json_integer(n);
    if (timefmt_parse_limit(text, &secs, &why) < 0)
        return bad(k, text, error);
    if (k->kind == AV_SECS)
        return json_integer(secs);
    return secs < 0 ? (for_assoc ? json_null() : json_integer(-1))
                    : json_integer((secs + 59) / 60);
}

json_t *assoc_value_parse(db_t *db, const struct assoc_key *k,
                          const char *text, const json_t *cur, bool for_assoc,
                          drv_error_t *error)
{
    static const char *const modes[] = {"cluster", "off", "cancel", "requeue",
                                        "suspend", NULL};
    long long n;
    char *end;
    double f;

    switch (k->kind) {
    case AV_INT:
        if (!text[0])
            n = -1;
        else if (!parse_count(text, &n))
            return bad(k, text, error);
        if (!strcmp(k->assoc_col ? k->assoc_col : "", "shares") && for_assoc)
            return json_integer(n < 0 ? 1 : n);
        return (n < 0 && for_assoc) ? json_null() : json_integer(n);
    case AV_TRES:
        return parse_tres(k, text, cur, for_assoc, error);
    case AV_WALL:
    case AV_SECS:
        return parse_time(k, text, for_assoc, error);
    case AV_QOSLIST:
        return parse_qos_list(db, text, cur, for_assoc, error);
    case AV_QOSNAME: {
        char *name = assoc__lower(text);
        json_t *v = NULL;
        if (!name[0] || !strcmp(name, "-1"))
            v = json_null();
        else if (qos_check(db, name, error) == 0)
            v = json_string(name);
        free(name);
        return v;
    }
    case AV_PMODE:
        for (size_t i = 0; modes[i]; i++) {
            if (!strcasecmp(modes[i], text))
                return json_string(modes[i]);
        }
        return bad(k, text, error);
    case AV_FLOAT:
        f = strtod(text, &end);
        if (end == text || *end || f < 0)
            return bad(k, text, error);
        return json_real(f);
    case AV_TEXT:
        return json_string(text);
    }
    return bad(k, text, error);
}

char *assoc_value_show(const struct assoc_key *k, const json_t *v)
{
    char buf[64];

    if (json_is_null(v) || !v)
        return xstrdup("");
    if (json_is_array(v))
        return assoc__join(v);
    if (k->kind == AV_WALL && json_integer_value(v) >= 0)
        return xstrdup(timefmt_limit(json_integer_value(v) * 60, 0, buf,
                                     sizeof(buf)));
    return xstrdup(assoc_value_text(v, buf, sizeof(buf)));
}
