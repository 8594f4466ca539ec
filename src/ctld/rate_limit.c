/* SPDX-License-Identifier: Apache-2.0
 *
 * rate_limit.c - the controller's per-user RPC rate limit: a token bucket
 * per uid in an open-addressed table of fixed size (rate_limit.h)
 */
#include <errno.h>
#include <stdlib.h>

#include "ctld/rate_limit.h"

struct bucket {
    uid_t uid;         /* 0: a free slot (root is never limited) */
    uint32_t tokens;
    uint64_t period;   /* refill period of the last update */
    uint32_t logged;   /* refusals logged in that period */
};

struct rate_limit {
    struct conf_rate_limit c;
    uint64_t period_ms;
    struct bucket *slots; /* c.table_size of them */
};

rate_limit_t *rate_limit_create(const struct conf_rate_limit *c)
{
    rate_limit_t *rl;

    if (!c->bucket_size || !c->refill_rate || !c->refill_period
        || !c->table_size) {
        errno = EINVAL;
        return NULL;
    }
    if (!(rl = calloc(1, sizeof(*rl))))
        return NULL;
    rl->c = *c;
    rl->period_ms = (uint64_t)c->refill_period * 1000;
    if (!(rl->slots = calloc(c->table_size, sizeof(*rl->slots)))) {
        free(rl);
        return NULL;
    }
    return rl;
}

void rate_limit_destroy(rate_limit_t *rl)
{
    int saved_errno = errno;

    if (rl) {
        free(rl->slots);
        free(rl);
    }
    errno = saved_errno;
}

/* The slot of 'uid', or the free one it would take; NULL when the table
 * is full and 'uid' is not in it. */
static struct bucket *slot_of(rate_limit_t *rl, uid_t uid)
{
    uint32_t n = rl->c.table_size, start = (uint32_t)uid % n, i = start;

    do {
        if (rl->slots[i].uid == uid || rl->slots[i].uid == 0)
            return &rl->slots[i];
        i = i + 1 == n ? 0 : i + 1;
    } while (i != start);
    return NULL;
}

enum rate_verdict rate_limit_take(rate_limit_t *rl, uid_t uid,
                                  uint64_t now_ms, bool *log)
{
    uint64_t period = now_ms / rl->period_ms;
    struct bucket *b = slot_of(rl, uid);

    if (log)
        *log = false;
    if (!b)
        return RATE_UNTRACKED;
    if (b->uid == 0) {
        *b = (struct bucket){ .uid = uid, .tokens = rl->c.bucket_size,
                              .period = period };
    } else if (period > b->period) {
        uint64_t more = (period - b->period) * rl->c.refill_rate;

        b->tokens = more >= rl->c.bucket_size - b->tokens
                        ? rl->c.bucket_size
                        : b->tokens + (uint32_t)more;
        b->period = period;
        b->logged = 0;
    }
    if (b->tokens) {
        b->tokens--;
        return RATE_OK;
    }
    if (log)
        *log = !rl->c.log_freq || b->logged < rl->c.log_freq;
    if (b->logged < UINT32_MAX)
        b->logged++;
    return RATE_EXCEEDED;
}
