/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_stats.h - how many requests of each type and from each user a
 * server handled, and how long they took (sdiag's "Remote Procedure Call
 * statistics")
 *
 * A request's time runs from its arrival (before its credential is
 * checked) to its answer being queued, so an answer that waits for its
 * event to be durable (ctld_respond_durable()) counts that wait, as a
 * client sees it.  Besides Slurm's count and total time, each type keeps
 * a histogram of its times (common/histogram.h), from which percentiles
 * and Prometheus' buckets are read.
 */
#ifndef DROVER_PROTO_RPC_STATS_H
#define DROVER_PROTO_RPC_STATS_H

#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

struct rpc_stats;

/* Empty statistics.  Never NULL (aborts on ENOMEM, as xalloc.h). */
struct rpc_stats *rpc_stats_create(void);

/* NULL is a no-op. */
void rpc_stats_destroy(struct rpc_stats *st);

/* Count one request of message type 'type' from 'uid' that took 'us'
 * microseconds. */
void rpc_stats_add(struct rpc_stats *st, const char *type, uid_t uid,
                   uint64_t us);

/* Forget every count (sdiag -r). */
void rpc_stats_reset(struct rpc_stats *st);

/* The statistics as JSON (new reference):
 *   {"types": [{"type", "count", "total_us", "max_us", "p50_us",
 *               "p99_us", "le_us": histogram_le_json()}, ...],
 *    "users": [{"uid", "count", "total_us"}, ...]}
 * types and users by count, highest first (Slurm's default order).
 * Percentiles are the upper bound of the histogram bucket holding them.
 */
json_t *rpc_stats_to_json(const struct rpc_stats *st);

#endif /* !DROVER_PROTO_RPC_STATS_H */
