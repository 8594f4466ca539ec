/* SPDX-License-Identifier: Apache-2.0
 *
 * stats.c - the controller's statistics and the stats_info request
 * (stats.h)
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "common/log.h"
#include "ctld/acct.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/stats.h"
#include "proto/client.h"
#include "proto/rpc_stats.h"

void stats_event(struct ctld *ctld, const struct ctld_event *ev)
{
    struct ctld_stats *st = &ctld->stats;
    const struct job *job;

    switch (ev->type) {
    case CTLD_EV_JOB_SUBMITTED:
        st->jobs_submitted++;
        break;
    case CTLD_EV_JOB_STARTED:
        st->jobs_started++;
        break;
    case CTLD_EV_JOB_CANCELLED: /* a pending one ends now */
        if ((job = ctld_job_find(ctld, ev->job_id)) && !job->completing)
            st->jobs_canceled++;
        break;
    case CTLD_EV_JOB_ENDED:
        if (ev->state == JOB_COMPLETED)
            st->jobs_completed++;
        else if (ev->state == JOB_CANCELLED)
            st->jobs_canceled++;
        else
            st->jobs_failed++;
        break;
    default:
        break;
    }
}

void stats_cycle(struct ctld *ctld, time_t now, uint64_t us, size_t queue,
                 size_t backfilled)
{
    struct ctld_stats *st = &ctld->stats;

    st->cycles++;
    histogram_add(&st->cycle_hist, us);
    st->cycle_total_us += us;
    st->cycle_last_us = us;
    if (us > st->cycle_max_us)
        st->cycle_max_us = us;
    st->last_queue = st->last_depth = queue;
    st->depth_total += queue;
    st->last_cycle_when = now;
    st->backfilled += backfilled;
    st->backfilled_since_start += backfilled;
}

/* A turn this long or longer, when the longest so far, is logged with
 * its longest part (us). */
#define LONG_TURN_LOG_US 50000

/* The loop thread's CPU time (ns). */
static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The largest sum of the turn's parts, NULL when none was timed. */
static const struct stats_part *turn_part_max(const struct ctld_stats *st)
{
    const struct stats_part *max = NULL;

    for (size_t i = 0; i < st->nturn_parts; i++)
        if (!max || st->turn_parts[i].us > max->us)
            max = &st->turn_parts[i];
    return max;
}

/* Log a turn of 'us' with every part timed in it, largest first, and
 * the time no part accounts for. */
static void turn_log(struct ctld_stats *st, uint64_t us)
{
    char line[1024];
    size_t len = 0;
    uint64_t timed = 0;
    bool done[STATS_TURN_PARTS] = { false };

    for (size_t n = 0; n < st->nturn_parts; n++) {
        size_t max = SIZE_MAX;

        for (size_t i = 0; i < st->nturn_parts; i++)
            if (!done[i] && (max == SIZE_MAX
                             || st->turn_parts[i].us > st->turn_parts[max].us))
                max = i;
        done[max] = true;
        timed += st->turn_parts[max].us;
        if (len < sizeof(line))
            len += (size_t)snprintf(line + len, sizeof(line) - len,
                                    "; %s %" PRIu64 " us (%" PRIu32 " times)",
                                    st->turn_parts[max].what,
                                    st->turn_parts[max].us,
                                    st->turn_parts[max].count);
    }
    log_info("loop: longest turn so far %" PRIu64 " us, %" PRIu64 " us of "
             "it in no timed part%s", us, us > timed ? us - timed : 0,
             len ? line : "");
}

/* A new longest turn of 'us': keep it with its largest part. */
static void turn_max_record(struct ctld_stats *st, uint64_t us)
{
    const struct stats_part *part = turn_part_max(st);

    st->loop_turn_max_us = us;
    snprintf(st->loop_turn_max_part, sizeof(st->loop_turn_max_part), "%s",
             part ? part->what : "");
    st->loop_turn_max_part_us = part ? part->us : 0;
    st->loop_turn_max_part_count = part ? part->count : 0;
    if (us >= LONG_TURN_LOG_US)
        turn_log(st, us);
}

void stats_loop_turn(struct ctld *ctld)
{
    struct ctld_stats *st = &ctld->stats;
    uint64_t now = uv_hrtime(), idle = uv_metrics_idle_time(ctld->loop);
    uint64_t cpu = thread_cpu_ns();

    if (st->loop_cpu_mark_ns && cpu > st->loop_cpu_mark_ns
        && (cpu - st->loop_cpu_mark_ns) / 1000 > st->loop_turn_max_cpu_us)
        st->loop_turn_max_cpu_us = (cpu - st->loop_cpu_mark_ns) / 1000;
    st->loop_cpu_mark_ns = cpu;

    if (st->loop_turn_mark_ns && now > st->loop_turn_mark_ns) {
        uint64_t waited = idle - st->loop_idle_mark_ns;
        uint64_t busy = now - st->loop_turn_mark_ns;

        st->loop_turn_last_us = (busy > waited ? busy - waited : 0) / 1000;
        if (st->loop_turn_last_us > st->loop_turn_max_us)
            turn_max_record(st, st->loop_turn_last_us);
    }
    st->loop_turn_mark_ns = now;
    st->loop_idle_mark_ns = idle;
    st->nturn_parts = 0;
}

void stats_turn_part(struct ctld *ctld, const char *what, uint64_t began_ns)
{
    struct ctld_stats *st = &ctld->stats;
    uint64_t us = (uv_hrtime() - began_ns) / 1000;
    struct stats_part *p = NULL, *min = NULL;

    for (size_t i = 0; i < st->nturn_parts && !p; i++) {
        if (!strcmp(st->turn_parts[i].what, what))
            p = &st->turn_parts[i];
        else if (!min || st->turn_parts[i].us < min->us)
            min = &st->turn_parts[i];
    }
    if (!p) {
        if (st->nturn_parts < STATS_TURN_PARTS)
            p = &st->turn_parts[st->nturn_parts++];
        else if (min->us < us)
            p = min;
        else
            return;
        snprintf(p->what, sizeof(p->what), "%s", what);
        p->us = 0;
        p->count = 0;
    }
    p->us += us;
    p->count++;
}

/* Microseconds 1000 calls of gettimeofday() take, as Slurm's sdiag. */
static json_int_t gettimeofday_cost_us(void)
{
    struct timespec a, b;
    struct timeval tv;

    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < 1000; i++)
        gettimeofday(&tv, NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (json_int_t)((b.tv_sec - a.tv_sec) * 1000000
                        + (b.tv_nsec - a.tv_nsec) / 1000);
}

static json_t *schedule_json(const struct ctld_stats *st, time_t now)
{
    double minutes = (double)(now - st->since) / 60.0;

    return json_pack(
        "{s:I s:I s:I s:I s:I s:I s:I s:I s:I s:I s:o}", "cycles",
        (json_int_t)st->cycles, "last_cycle_us", (json_int_t)st->cycle_last_us,
        "max_cycle_us", (json_int_t)st->cycle_max_us, "mean_cycle_us",
        (json_int_t)(st->cycles ? st->cycle_total_us / st->cycles : 0),
        "mean_depth",
        (json_int_t)(st->cycles ? st->depth_total / st->cycles : 0),
        "last_depth", (json_int_t)st->last_depth, "cycles_per_minute",
        (json_int_t)(minutes >= 1.0 ? (double)st->cycles / minutes
                                    : (double)st->cycles),
        "last_queue_length", (json_int_t)st->last_queue, "last_cycle_when",
        (json_int_t)st->last_cycle_when, "total_us",
        (json_int_t)st->cycle_total_us, "le_us",
        histogram_le_json(&st->cycle_hist));
}

static json_t *stats_json(struct ctld *ctld, time_t now)
{
    const struct ctld_stats *st = &ctld->stats;
    json_int_t pending = 0, running = 0;
    struct job *job, *tmp;

    HASH_ITER(hh, ctld->jobs, job, tmp) {
        pending += job->state == JOB_PENDING;
        running += job->state == JOB_RUNNING || job->completing;
    }
    return json_pack(
        "{s:I s:I s:i s:I s:I s:i s:I s:{s:I s:I s:I s:I s:I} s:I s:I s:I"
        " s:o s:I s:I s:I s:I s:s s:I s:I s:I s:I s:o s:[]}",
        "req_time", (json_int_t)now, "since", (json_int_t)st->since,
        "server_thread_count", 1, "agent_queue_size",
        (json_int_t)proto_call_count(), "agent_count",
        (json_int_t)proto_call_count(), "agent_thread_count", 0,
        "dbd_agent_queue_size", (json_int_t)acct_pending(ctld), "jobs",
        "submitted", (json_int_t)st->jobs_submitted, "started",
        (json_int_t)st->jobs_started, "completed",
        (json_int_t)st->jobs_completed, "canceled",
        (json_int_t)st->jobs_canceled, "failed", (json_int_t)st->jobs_failed,
        "job_states_ts", (json_int_t)now, "jobs_pending", pending,
        "jobs_running", running, "schedule", schedule_json(st, now),
        "backfilled_jobs", (json_int_t)st->backfilled,
        "backfilled_since_start", (json_int_t)st->backfilled_since_start,
        "gettimeofday_latency_us", gettimeofday_cost_us(),
        "loop_turn_max_us", (json_int_t)st->loop_turn_max_us,
        "loop_turn_max_part", st->loop_turn_max_part,
        "loop_turn_max_part_us", (json_int_t)st->loop_turn_max_part_us,
        "loop_turn_max_part_count", (json_int_t)st->loop_turn_max_part_count,
        "loop_turn_max_cpu_us", (json_int_t)st->loop_turn_max_cpu_us,
        "loop_turn_last_us", (json_int_t)st->loop_turn_last_us, "rpc",
        rpc_stats_to_json(proto_server_stats(ctld->server)), "pending_rpcs");
}

static void rpc_stats_info(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    time_t now = ctld_now(ctld);

    if (json_is_true(json_object_get(proto_req_body(req), "reset"))) {
        if (!(proto_req_roles(req)
              & (PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN))) {
            if (proto_respond_error(req, EDRV_ACCESS_DENIED, NULL) < 0)
                log_err("stats_info: responding");
            return;
        }
        ctld->stats = (struct ctld_stats){
            .since = now,
            .backfilled_since_start = ctld->stats.backfilled_since_start,
            .loop_turn_mark_ns = ctld->stats.loop_turn_mark_ns,
            .loop_idle_mark_ns = ctld->stats.loop_idle_mark_ns,
            .loop_cpu_mark_ns = ctld->stats.loop_cpu_mark_ns};
        rpc_stats_reset(proto_server_stats(ctld->server));
        log_info("statistics reset by uid %u", (unsigned)proto_req_uid(req));
    }
    if (proto_respond(req, stats_json(ctld, now)) < 0)
        log_err("stats_info: responding");
}

const struct proto_handler rpc_stats_handlers[] = {
    {"stats_info", rpc_stats_info, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
