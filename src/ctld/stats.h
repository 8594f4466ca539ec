/* SPDX-License-Identifier: Apache-2.0
 *
 * stats.h - the controller's statistics, as sdiag shows them
 *
 * Job counters come from the events (a subscriber of ctld_apply(),
 * event.h); the scheduling pass reports each cycle (scheduler.c); the
 * request counts and times are the server's (proto/rpc_stats.h).  The
 * stats_info request answers them all; {"reset": true} (an operator or
 * administrator: sdiag -r) starts them again.
 */
#ifndef DROVER_CTLD_STATS_H
#define DROVER_CTLD_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "proto/server.h"

#include "common/histogram.h"

struct ctld;
struct ctld_event;

#define STATS_TURN_PARTS 16 /* part names summed apart in one turn */

struct ctld_stats {
    time_t since;          /* start, or the last reset (epoch s) */
    uint64_t jobs_submitted, jobs_started, jobs_completed, jobs_canceled,
        jobs_failed;
    /* scheduling passes (microseconds of wall time) */
    uint64_t cycles, cycle_total_us, cycle_max_us, cycle_last_us;
    struct histogram cycle_hist; /* pass times, us (Prometheus buckets) */
    uint64_t depth_total, last_depth; /* pending jobs each pass judged */
    uint64_t last_queue;   /* pending jobs at the last pass */
    time_t last_cycle_when;
    uint64_t backfilled;   /* started ahead of a pending job of higher
                            * priority that could not start */
    uint64_t backfilled_since_start; /* the same, kept over a reset */
    /* the event loop: its longest and last turn (us of work between two
     * waits: callbacks, the journal flush; issue 18's "longest turn") */
    uint64_t loop_turn_max_us, loop_turn_last_us;
    uint64_t loop_turn_mark_ns, loop_idle_mark_ns; /* stats_loop_turn() */
    /* the CPU time of the turn that took most (us): on a loaded machine
     * a turn's length is also the time other processes held the CPU */
    uint64_t loop_turn_max_cpu_us, loop_cpu_mark_ns;
    /* the parts of the turn under way (stats_turn_part()), summed by
     * name, and the longest such sum of the longest turn with how many
     * parts made it */
    struct stats_part {
        char what[40];
        uint64_t us;
        uint32_t count;
    } turn_parts[STATS_TURN_PARTS];
    size_t nturn_parts;
    char loop_turn_max_part[40];
    uint64_t loop_turn_max_part_us;
    uint32_t loop_turn_max_part_count;
};

/* Count what event 'ev' means for the job counters (a subscriber). */
void stats_event(struct ctld *ctld, const struct ctld_event *ev);

/* A scheduling pass at 'now' took 'us' microseconds over 'queue' pending
 * jobs, and started 'backfilled' of them ahead of a higher-priority one
 * that waits. */
void stats_cycle(struct ctld *ctld, time_t now, uint64_t us, size_t queue,
                 size_t backfilled);

/* Once per loop turn, before the loop waits (ctld_flush_cb): the work
 * since the last call, less the time the loop waited meanwhile
 * (uv_metrics_idle_time(); the loop is configured with
 * UV_METRICS_IDLE_TIME), is the last turn. */
void stats_loop_turn(struct ctld *ctld);

/* A part of the turn under way, named 'what' (copied; a message type, a
 * "scheduling pass"...), began at uv_hrtime() 'began_ns' and has just
 * ended.  Parts of one name are summed over the turn (300 answers to
 * launches of 0.5 ms each are one part of 150 ms); the largest sum of the
 * longest turn is reported with it and its count (sdiag, and a log line
 * at each new longest turn), so a long turn says where it went.  Beyond
 * STATS_TURN_PARTS names in one turn, a new name is dropped unless it
 * alone is longer than the shortest sum kept, which it then replaces. */
void stats_turn_part(struct ctld *ctld, const char *what, uint64_t began_ns);

/* stats_info: {"reset"?: bool} -> the statistics (docs/protocol.md). */
extern const struct proto_handler rpc_stats_handlers[];

#endif /* !DROVER_CTLD_STATS_H */
