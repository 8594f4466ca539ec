/* SPDX-License-Identifier: Apache-2.0
 *
 * sdiag_print.c - sdiag's report (sdiag_print.h)
 */
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/lib/sdiag_print.h"
#include "common/xalloc.h"

/* Drover's message types and the Slurm RPCs (slurm_protocol_defs.h,
 * 22.05) they stand for. */
static const struct {
    const char *type, *name;
    unsigned number;
} rpc_names[] = {
    {"node_register", "MESSAGE_NODE_REGISTRATION_STATUS", 1002},
    {"ping", "REQUEST_PING", 1008},
    {"config_info", "REQUEST_BUILD_INFO", 2001},
    {"job_info", "REQUEST_JOB_INFO", 2003},
    {"step_info", "REQUEST_JOB_STEP_INFO", 2005},
    {"node_info", "REQUEST_NODE_INFO", 2007},
    {"partition_info", "REQUEST_PARTITION_INFO", 2009},
    {"stats_info", "REQUEST_STATS_INFO", 2035},
    {"job_update", "REQUEST_UPDATE_JOB", 3001},
    {"job_hold", "REQUEST_UPDATE_JOB", 3001},
    {"node_update", "REQUEST_UPDATE_NODE", 3002},
    {"job_submit", "REQUEST_SUBMIT_BATCH_JOB", 4003},
    {"step_create", "REQUEST_JOB_STEP_CREATE", 5001},
    {"step_cancel", "REQUEST_CANCEL_JOB_STEP", 5005},
    {"step_complete", "REQUEST_STEP_COMPLETE", 5016},
    {"job_release", "REQUEST_COMPLETE_JOB_ALLOCATION", 5017},
    {"job_complete", "REQUEST_COMPLETE_BATCH_SCRIPT", 5018},
    {"job_requeue", "REQUEST_JOB_REQUEUE", 5023},
    {"job_cancel", "REQUEST_KILL_JOB", 5032},
};

const char *sdiag_rpc_name(const char *type, unsigned *number)
{
    for (size_t i = 0; i < sizeof(rpc_names) / sizeof(rpc_names[0]); i++)
        if (!strcmp(rpc_names[i].type, type)) {
            *number = rpc_names[i].number;
            return rpc_names[i].name;
        }
    *number = 0;
    return type;
}

static json_int_t num(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

/* "Wed Nov 25 17:54:09 2026 (1795629249)", as Slurm's slurm_ctime2(). */
static void put_time(FILE *out, json_int_t t)
{
    time_t tt = (time_t)t;
    char buf[64];

    if (!ctime_r(&tt, buf))
        buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    fprintf(out, "%s (%lld)\n", buf, (long long)t);
}

struct row {
    const char *name;
    unsigned id;
    uint64_t count, total;
};

static enum sdiag_sort row_sort;

static int by_order(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    uint64_t ax = x->count ? x->total / x->count : 0;
    uint64_t ay = y->count ? y->total / y->count : 0;

    switch (row_sort) {
    case SDIAG_BY_ID:
        return (x->id > y->id) - (x->id < y->id);
    case SDIAG_BY_TIME:
        return (x->total < y->total) - (x->total > y->total);
    case SDIAG_BY_AVE:
        return (ax < ay) - (ax > ay);
    default:
        return (x->count < y->count) - (x->count > y->count);
    }
}

/* The table by message type: Drover types that stand for one Slurm RPC
 * make one row. */
static size_t type_rows(json_t *types, struct row *rows)
{
    size_t n = 0, i, k;
    json_t *t;

    json_array_foreach(types, i, t) {
        unsigned id;
        const char *name = sdiag_rpc_name(
            json_string_value(json_object_get(t, "type")), &id);
        for (k = 0; k < n && strcmp(rows[k].name, name); k++)
            ;
        if (k == n)
            rows[n++] = (struct row){.name = name, .id = id};
        rows[k].count += (uint64_t)num(t, "count");
        rows[k].total += (uint64_t)num(t, "total_us");
    }
    return n;
}

static void print_rows(FILE *out, struct row *rows, size_t n, bool users)
{
    qsort(rows, n, sizeof(*rows), by_order);
    for (size_t i = 0; i < n; i++) {
        unsigned long long ave =
            rows[i].count ? rows[i].total / rows[i].count : 0;
        if (users)
            fprintf(out, "\t%-16s(%8u) ", rows[i].name, rows[i].id);
        else
            fprintf(out, "\t%-40s(%5u) ", rows[i].name, rows[i].id);
        fprintf(out, "count:%-6llu ave_time:%-6llu total_time:%llu\n",
                (unsigned long long)rows[i].count, ave,
                (unsigned long long)rows[i].total);
    }
}

static void print_rpcs(FILE *out, json_t *rpc)
{
    json_t *types = json_object_get(rpc, "types");
    json_t *users = json_object_get(rpc, "users"), *u;
    size_t n = json_array_size(types) + json_array_size(users) + 1, i, nu = 0;
    struct row *rows = xzalloc(n * sizeof(*rows));
    char **names = xzalloc(n * sizeof(*names));

    fprintf(out, "Remote Procedure Call statistics by message type\n");
    print_rows(out, rows, type_rows(types, rows), false);
    fprintf(out, "\nRemote Procedure Call statistics by user\n");
    json_array_foreach(users, i, u) {
        uid_t uid = (uid_t)num(u, "uid");
        struct passwd *pw = getpwuid(uid);
        names[nu] = pw ? xstrdup(pw->pw_name) : xasprintf("%u", uid);
        rows[nu] = (struct row){.name = names[nu], .id = uid,
                                .count = (uint64_t)num(u, "count"),
                                .total = (uint64_t)num(u, "total_us")};
        nu++;
    }
    print_rows(out, rows, nu, true);
    for (i = 0; i < nu; i++)
        free(names[i]);
    free(names);
    free(rows);
}

static void print_schedule(FILE *out, json_t *s)
{
    fprintf(out, "Main schedule statistics (microseconds):\n"
                 "\tLast cycle:   %lld\n\tMax cycle:    %lld\n"
                 "\tTotal cycles: %lld\n\tMean cycle:   %lld\n"
                 "\tMean depth cycle:  %lld\n\tCycles per minute: %lld\n"
                 "\tLast queue length: %lld\n\n",
            num(s, "last_cycle_us"), num(s, "max_cycle_us"), num(s, "cycles"),
            num(s, "mean_cycle_us"), num(s, "mean_depth"),
            num(s, "cycles_per_minute"), num(s, "last_queue_length"));
}

/* Drover's one pass plans the whole queue: it is also the backfill
 * scheduler, so its cycles fill this section too (compatibility.md). */
static void print_backfill(FILE *out, json_t *st, json_t *s)
{
    fprintf(out, "Backfilling stats\n"
                 "\tTotal backfilled jobs (since last slurm start): %lld\n"
                 "\tTotal backfilled jobs (since last stats cycle start): "
                 "%lld\n"
                 "\tTotal backfilled heterogeneous job components: 0\n"
                 "\tTotal cycles: %lld\n\tLast cycle when: ",
            num(st, "backfilled_since_start"), num(st, "backfilled_jobs"),
            num(s, "cycles"));
    put_time(out, num(s, "last_cycle_when"));
    fprintf(out, "\tLast cycle: %lld\n\tMax cycle:  %lld\n"
                 "\tMean cycle: %lld\n\tLast depth cycle: %lld\n"
                 "\tLast depth cycle (try sched): %lld\n"
                 "\tDepth Mean: %lld\n\tDepth Mean (try depth): %lld\n"
                 "\tLast queue length: %lld\n\tQueue length mean: %lld\n"
                 "\tLast table size: %lld\n\tMean table size: %lld\n\n",
            num(s, "last_cycle_us"), num(s, "max_cycle_us"),
            num(s, "mean_cycle_us"), num(s, "last_depth"),
            num(s, "last_depth"), num(s, "mean_depth"), num(s, "mean_depth"),
            num(s, "last_queue_length"), num(s, "mean_depth"),
            num(s, "last_queue_length"), num(s, "mean_depth"));
}

void sdiag_print(FILE *out, json_t *st, enum sdiag_sort sort)
{
    json_t *jobs = json_object_get(st, "jobs");

    row_sort = sort;
    fprintf(out, "*******************************************************\n"
                 "sdiag output at ");
    put_time(out, num(st, "req_time"));
    fprintf(out, "Data since      ");
    put_time(out, num(st, "since"));
    fprintf(out, "*******************************************************\n"
                 "Server thread count:  %lld\nAgent queue size:     %lld\n"
                 "Agent count:          %lld\nAgent thread count:   %lld\n"
                 "DBD Agent queue size: %lld\n\n",
            num(st, "server_thread_count"), num(st, "agent_queue_size"),
            num(st, "agent_count"), num(st, "agent_thread_count"),
            num(st, "dbd_agent_queue_size"));
    fprintf(out, "Jobs submitted: %lld\nJobs started:   %lld\n"
                 "Jobs completed: %lld\nJobs canceled:  %lld\n"
                 "Jobs failed:    %lld\n\nJob states ts:  ",
            num(jobs, "submitted"), num(jobs, "started"),
            num(jobs, "completed"), num(jobs, "canceled"),
            num(jobs, "failed"));
    put_time(out, num(st, "job_states_ts"));
    fprintf(out, "Jobs pending:   %lld\nJobs running:   %lld\n\n",
            num(st, "jobs_pending"), num(st, "jobs_running"));
    print_schedule(out, json_object_get(st, "schedule"));
    print_backfill(out, st, json_object_get(st, "schedule"));
    fprintf(out, "Latency for 1000 calls to gettimeofday(): %lld "
                 "microseconds\n\n",
            num(st, "gettimeofday_latency_us"));
    /* Drover's: the controller's one event loop (docs/compatibility.md) */
    fprintf(out, "Event loop turn statistics (microseconds):\n"
                 "\tLast turn:    %lld\n\tLongest turn: %lld\n",
            num(st, "loop_turn_last_us"), num(st, "loop_turn_max_us"));
    const char *part =
        json_string_value(json_object_get(st, "loop_turn_max_part"));
    if (part && *part)
        fprintf(out, "\tIts longest part: %lld (%s, %lld times)\n",
                num(st, "loop_turn_max_part_us"), part,
                num(st, "loop_turn_max_part_count"));
    fprintf(out, "\tMost CPU in a turn: %lld\n",
            num(st, "loop_turn_max_cpu_us"));
    fputc('\n', out);
    print_rpcs(out, json_object_get(st, "rpc"));
    fprintf(out, "\nPending RPC statistics\n\tNo pending RPCs\n");
}
