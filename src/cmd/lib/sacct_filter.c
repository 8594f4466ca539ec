/* SPDX-License-Identifier: Apache-2.0
 *
 * sacct_filter.c - sacct's selecting options as an acct_job_query filter
 *
 * Each option becomes one key of the filter droverdbd turns into its
 * WHERE clause (docs/protocol.md, "Accounting daemon").  Errors are
 * Slurm's sacct messages, and exit 1 as sacct does.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cmd/lib/names.h"
#include "cmd/lib/opt.h"
#include "cmd/lib/sacct_filter.h"
#include "cmd/lib/sbatch_req.h"
#include "cmd/lib/states.h"
#include "common/hostlist.h"
#include "common/timefmt.h"
#include "common/xalloc.h"

/* The filter sacct_filter_build() is filling: a fatal error frees it, so
 * nothing is left for LeakSanitizer at exit. */
static json_t *building;

static void fatal(const char *prog, const char *msg, const char *arg)
{
    fprintf(stderr, "%s: fatal: %s%s\n", prog, msg, arg ? arg : "");
    json_decref(building);
    building = NULL;
    exit(1);
}

static json_t *split(const char *text)
{
    json_t *arr = json_array();
    char *copy = xstrdup(text), *save = NULL;

    for (char *t = strtok_r(copy, ",", &save); t;
         t = strtok_r(NULL, ",", &save))
        json_array_append_new(arr, json_string(t));
    free(copy);
    return arr;
}

/* -u and -g: names or numbers as ids ('group': gids). */
static json_t *ids(const char *list, bool group, const char *prog)
{
    json_t *arr = json_array(), *names = split(list), *v;
    size_t i;
    uid_t uid;
    gid_t gid;

    json_array_foreach(names, i, v) {
        const char *s = json_string_value(v);

        if (group ? names_group_gid(s, &gid) < 0 : names_user_uid(s, &uid) < 0)
            fatal(prog, group ? "Invalid group id: " : "Invalid user id: ", s);
        json_array_append_new(arr, json_integer(group ? (json_int_t)gid
                                                      : (json_int_t)uid));
    }
    json_decref(names);
    return arr;
}

/* -s names or codes as the long names droverdbd matches. */
static json_t *state_names(const char *list, const char *prog)
{
    json_t *arr = split(list), *v;
    size_t i;

    json_array_foreach(arr, i, v) {
        job_state_t s = job_state_lookup(json_string_value(v));

        if (s < 0)
            fatal(prog, "unrecognized job state value", NULL);
        json_array_set_new(arr, i, json_string(job_state_name(s)));
    }
    return arr;
}

/* Slurm's parse_time() for sacct (sbatch_parse_past()). */
static time_t parse_when(const char *s, time_t now, const char *prog)
{
    time_t t;
    int pos;

    /* Slurm's parse_time() logs the error, and sacct exits 1. */
    if (sbatch_parse_past(s, now, &t, &pos) < 0) {
        cmd_error(prog, "Invalid time specification (pos=%d): %s", pos, s);
        exit(1);
    }
    return t;
}

static time_t today_midnight(time_t now)
{
    struct tm tm;

    localtime_r(&now, &tm);
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    tm.tm_isdst = -1;
    return mktime(&tm);
}

static json_t *job_ids(const char *list, const char *prog,
                       struct sacct_jobspec **specs, size_t *n)
{
    json_t *arr = json_array(), *texts = split(list), *v;
    size_t i;

    *specs = xzalloc((json_array_size(texts) + 1) * sizeof(**specs));
    json_array_foreach(texts, i, v) {
        struct sacct_jobspec *sp = &(*specs)[i];
        json_t *id;

        if (sacct_jobspec_parse(json_string_value(v), sp) < 0) {
            /* Freed first: nothing is left for LeakSanitizer at exit. */
            char bad[256];

            snprintf(bad, sizeof(bad), "%s", json_string_value(v));
            json_decref(arr);
            json_decref(texts);
            FREE_NULL(*specs);
            fatal(prog, "Bad job/step specified: ", bad);
        }
        id = json_pack("{s:I}", "job_id", (json_int_t)sp->job_id);
        if (sp->task >= 0)
            json_object_set_new(id, "array_task_id", json_integer(sp->task));
        json_array_append_new(arr, id);
    }
    *n = json_array_size(texts);
    json_decref(texts);
    return arr;
}

int sacct_range_parse(const char *s, long long out[2])
{
    char *end;

    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    out[0] = strtoll(s, &end, 10);
    out[1] = out[0];
    if (*end == '-') {
        if (!isdigit((unsigned char)end[1]))
            return -1;
        out[1] = strtoll(end + 1, &end, 10);
    }
    return *end || out[1] < out[0] ? -1 : 0;
}

/* -i/-I as [min, max]; Slurm's error names the range ("-i" for both). */
static json_t *range(const char *s, const char *what, const char *prog)
{
    long long r[2];

    if (sacct_range_parse(s, r) < 0) {
        cmd_error(prog, "invalid %s range -i '%s'", what, s);
        exit(1);
    }
    return json_pack("[I,I]", (json_int_t)r[0], (json_int_t)r[1]);
}

/* -k/-K as minutes (Slurm's time_str2mins(); -1 for UNLIMITED). */
static long long limit_minutes(const char *s, const char *prog)
{
    int64_t secs;

    if (timefmt_parse_limit(s, &secs, NULL) < 0
        || (secs != TIME_INFINITE && secs <= 0))
        fatal(prog, "Invalid time limit specification", NULL);
    return secs == TIME_INFINITE ? -1 : (secs + 59) / 60;
}

/* -k alone selects that limit; with -K, the range (-K alone: nothing). */
static json_t *timelimits(const struct sacct_query_opts *q, const char *prog)
{
    long long lo, hi;

    if (!q->timelimit_min) {
        if (q->timelimit_max)
            (void)limit_minutes(q->timelimit_max, prog); /* still checked */
        return NULL;
    }
    lo = limit_minutes(q->timelimit_min, prog);
    hi = q->timelimit_max ? limit_minutes(q->timelimit_max, prog) : lo;
    return json_pack("[I,I]", (json_int_t)lo, (json_int_t)hi);
}

/* -N: checked here, so a bad list is the command's error. */
static json_t *nodelist(const char *s, const char *prog)
{
    drv_error_t error = {{0}};
    hostlist_t *hl = hostlist_decode(s, &error);

    if (!hl || !hostlist_count(hl)) {
        hostlist_destroy(hl);
        cmd_error(prog, "Invalid node list -N '%s'%s%s", s,
                  error.text[0] ? ": " : "", error.text);
        exit(1);
    }
    hostlist_destroy(hl);
    return json_string(s);
}

/* -x: association ids, numbers only. */
static json_t *assoc_ids(const char *list, const char *prog)
{
    json_t *arr = split(list), *v;
    size_t i;
    char *end;

    json_array_foreach(arr, i, v) {
        const char *s = json_string_value(v);
        long long id = strtoll(s, &end, 10);

        if (!isdigit((unsigned char)s[0]) || *end)
            fatal(prog, "Invalid association id: ", s);
        json_array_set_new(arr, i, json_integer(id));
    }
    return arr;
}

static void set_list(json_t *f, const char *key, const char *list)
{
    if (list)
        json_object_set_new(f, key, split(list));
}

static void set_window(json_t *f, const struct sacct_query_opts *q,
                       time_t now, const char *prog)
{
    time_t start = 0, end = 0;

    if (q->start)
        start = parse_when(q->start, now, prog);
    else if (!q->jobs)
        start = q->states ? now : today_midnight(now);
    if (q->end)
        end = parse_when(q->end, now, prog);
    else if (start)
        end = now;
    if (start)
        json_object_set_new(f, "start", json_integer(start));
    if (end)
        json_object_set_new(f, "end", json_integer(end));
}

json_t *sacct_filter_build(const struct sacct_query_opts *q, const char *prog,
                           time_t now, struct sacct_jobspec **specs,
                           size_t *nspecs)
{
    json_t *f = building = json_object(), *v;

    if (q->jobs)
        json_object_set_new(f, "job_ids", job_ids(q->jobs, prog, specs,
                                                  nspecs));
    /* Slurm: root, -a, and -j or -N without -u look at every user's jobs
     * (droverdbd still limits a non-admin under PrivateData).
     */
    if (q->users && strcmp(q->users, "-1"))
        json_object_set_new(f, "user_ids", ids(q->users, false, prog));
    else if (q->users || q->all_users || q->jobs || q->nodelist
             || geteuid() == 0)
        json_object_set_new(f, "all_users", json_true());
    else
        json_object_set_new(f, "user_ids",
                            json_pack("[I]", (json_int_t)geteuid()));
    if (q->groups)
        json_object_set_new(f, "group_ids", ids(q->groups, true, prog));
    set_list(f, "accounts", q->accounts);
    set_list(f, "partitions", q->partitions);
    set_list(f, "names", q->names);
    set_list(f, "qos", q->qos);
    if (q->states)
        json_object_set_new(f, "states", state_names(q->states, prog));
    if (q->nodelist)
        json_object_set_new(f, "nodes", nodelist(q->nodelist, prog));
    if (q->nnodes)
        json_object_set_new(f, "nnodes", range(q->nnodes, "node", prog));
    if (q->ncpus)
        json_object_set_new(f, "ncpus", range(q->ncpus, "cpu", prog));
    if ((v = timelimits(q, prog)))
        json_object_set_new(f, "time_limit_min", v);
    if (q->assoc_ids)
        json_object_set_new(f, "assoc_ids", assoc_ids(q->assoc_ids, prog));
    if (q->duplicates)
        json_object_set_new(f, "duplicates", json_true());
    if (q->truncate)
        json_object_set_new(f, "truncate", json_true());
    set_window(f, q, now, prog);
    building = NULL;
    return f;
}

/* Slurm's slurm_ctime2_r(): "Fri Nov 27 00:00:00 2026". */
static const char *when(json_int_t t, char *buf, size_t size)
{
    time_t tt = (time_t)t;
    struct tm tm;

    localtime_r(&tt, &tm);
    strftime(buf, size, "%a %b %e %H:%M:%S %Y", &tm);
    return buf;
}

static void verbose_list(const json_t *filter, const char *key,
                         const char *what, const char *prog)
{
    json_t *list = json_object_get(filter, key), *v;
    size_t i;

    if (!json_array_size(list))
        return;
    fprintf(stderr, "%s: debug2: %s requested:\n", prog, what);
    json_array_foreach(list, i, v) {
        if (json_is_integer(v))
            fprintf(stderr, "%s: debug2: \t: %lld\n", prog,
                    (long long)json_integer_value(v));
        else
            fprintf(stderr, "%s: debug2: \t: %s\n", prog,
                    json_string_value(v));
    }
}

void sacct_filter_verbose(const struct sacct_query_opts *q,
                          const json_t *filter, int level,
                          const char *cluster, const char *prog)
{
    json_t *start = json_object_get(filter, "start");
    json_t *end = json_object_get(filter, "end");
    char s[64], e[64] = "Now";

    if (level < 1)
        return;
    if (q->end && end)
        when(json_integer_value(end), e, sizeof(e));
    fprintf(stderr, "%s: Jobs eligible from %s - %s\n", prog,
            when(start ? json_integer_value(start) : 0, s, sizeof(s)), e);
    if (level < 3)
        return;
    if (json_object_get(filter, "cluster"))
        fprintf(stderr, "%s: debug2: Clusters requested:\t%s\n", prog,
                cluster ? cluster : "");
    else
        fprintf(stderr, "%s: debug2: Clusters requested:\tall\n", prog);
    if (json_is_true(json_object_get(filter, "all_users")))
        fprintf(stderr, "%s: debug2: Userids requested:\tall\n", prog);
    else
        verbose_list(filter, "user_ids", "Userids", prog);
    verbose_list(filter, "group_ids", "Groupids", prog);
    verbose_list(filter, "partitions", "Partitions", prog);
    verbose_list(filter, "names", "Jobnames", prog);
}
