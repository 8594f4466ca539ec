/* SPDX-License-Identifier: Apache-2.0
 *
 * rate_limit.h - the controller's per-user RPC rate limit
 *
 * SlurmctldParameters=rl_enable (slurm.conf(5), Slurm 23.02's): every user
 * has a bucket of rl_bucket_size tokens; each request takes one, and
 * rl_refill_rate tokens come back every rl_refill_period seconds, up to
 * the bucket's size.  A request that finds the bucket empty is refused
 * with SLURMCTLD_COMMUNICATIONS_BACKOFF (EDRV_CTLD_COMMUNICATIONS_BACKOFF)
 * before its handler runs, and the user's command sleeps and sends it
 * again (src/cmd/lib/rpc.c).  Root and SlurmUser are exempt (the caller
 * decides: src/ctld/main.c).  At most rl_table_size users are tracked;
 * past that a new user is not limited, as in Slurm.
 *
 * Pure: no clock of its own, no logging; one table per controller, used
 * on its loop.
 */
#ifndef DROVER_CTLD_RATE_LIMIT_H
#define DROVER_CTLD_RATE_LIMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf/conf.h"

typedef struct rate_limit rate_limit_t;

enum rate_verdict {
    RATE_OK,        /* a token taken: serve the request */
    RATE_EXCEEDED,  /* the user's bucket is empty: answer the backoff */
    RATE_UNTRACKED, /* the table is full and this user is not in it: serve
                     * it unlimited (Slurm's choice), and say so in the log */
};

/* A table for the limits 'c' (copied; c->enable is not looked at).
 * Returns NULL with errno EINVAL (a size, rate or period of 0) or ENOMEM.
 * Free with rate_limit_destroy(). */
rate_limit_t *rate_limit_create(const struct conf_rate_limit *c);

/* NULL is a no-op; errno is preserved. */
void rate_limit_destroy(rate_limit_t *rl);

/* Charge one request of 'uid' (not 0: root is never limited) at 'now_ms'
 * (a monotonic clock in ms, the loop's uv_now()).  A user first seen gets
 * a full bucket less this request.  When the answer is RATE_EXCEEDED,
 * *log (may be NULL) says whether this refusal is one to log: all of them
 * with rl_log_freq=0, else the first rl_log_freq of each user in each
 * refill period.  Returns the verdict. */
enum rate_verdict rate_limit_take(rate_limit_t *rl, uid_t uid,
                                  uint64_t now_ms, bool *log);

#endif /* !DROVER_CTLD_RATE_LIMIT_H */
