/* SPDX-License-Identifier: Apache-2.0
 *
 * backfill.c - Drover's default backfill policy: the pass's order, run
 * time predictions (backfill.h)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include <uthash.h>

#include "sched/backfill.h"

/* A candidate's sort key: class (highest first), planned time (none
 * last), then queue position. */
struct cand {
    uint64_t class;
    int64_t limit;
    uint32_t pos;
};

static int by_limit(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    uint64_t lx = (uint64_t)x->limit, ly = (uint64_t)y->limit; /* -1 last */

    if (x->class != y->class)
        return x->class > y->class ? -1 : 1;
    if (lx != ly)
        return lx < ly ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int64_t sched_backfill_reserve_after(int64_t planned_s)
{
    if (planned_s < 0 || planned_s > SCHED_RESERVE_AFTER_MAX_S / SCHED_RESERVE_XF)
        return SCHED_RESERVE_AFTER_MAX_S;
    return SCHED_RESERVE_XF * planned_s;
}

/* Whether entry i leads on its own: among the first 'extra_leads' distinct
 * jobs, or waited sched_backfill_reserve_after() its planned time; an
 * array's further entries (the same id) as its first. */
static void mark_leads(const struct sched_job *jobs, size_t n,
                       const int64_t *waited_s, uint32_t extra_leads,
                       bool *leads)
{
    size_t distinct = 0;

    for (size_t i = 0; i < n; i++) {
        bool same = i > 0 && jobs[i].id == jobs[i - 1].id;
        distinct += !same;
        leads[i] = same ? leads[i - 1]
                        : distinct <= extra_leads
                              || waited_s[i] >= sched_backfill_reserve_after(
                                     jobs[i].time_limit_s);
    }
}

long sched_backfill_order(const struct sched_job *jobs, size_t n,
                          const int64_t *waited_s, const uint64_t *class,
                          uint32_t extra_leads, uint32_t *order)
{
    struct cand *c = malloc(sizeof(*c) * (n + 1));
    bool *leads = malloc(sizeof(*leads) * (n + 1));
    uint64_t lowest = UINT64_MAX; /* the lowest class that leads */
    size_t lead = 0, nc = 0;

    if (!c || !leads) {
        free(c);
        free(leads);
        errno = ENOMEM;
        return -1;
    }
    mark_leads(jobs, n, waited_s, extra_leads, leads);
    for (size_t i = 0; class && i < n; i++)
        if (leads[i] && class[i] < lowest)
            lowest = class[i];
    for (size_t i = 0; i < n; i++) {
        /* No lead goes before a job of a higher class (a higher
         * priority): that job leads as well. */
        if (leads[i] || (class && lowest != UINT64_MAX && class[i] > lowest))
            order[lead++] = (uint32_t)i;
        else
            c[nc++] = (struct cand){.class = class ? class[i] : 0,
                                    .limit = jobs[i].time_limit_s,
                                    .pos = (uint32_t)i};
    }
    qsort(c, nc, sizeof(*c), by_limit);
    for (size_t k = 0; k < nc; k++)
        order[lead + k] = c[k].pos;
    free(leads);
    free(c);
    return (long)lead;
}

struct sched_predict_user {
    uint32_t user;
    int n;           /* run times known, 0..2 */
    int64_t last[2]; /* the most recent first, seconds */
    UT_hash_handle hh;
};

struct sched_predict {
    struct sched_predict_user *users; /* uthash by user */
};

struct sched_predict *sched_predict_create(void)
{
    struct sched_predict *p = calloc(1, sizeof(*p));

    if (!p)
        errno = ENOMEM;
    return p;
}

void sched_predict_destroy(struct sched_predict *p)
{
    struct sched_predict_user *u, *tmp;

    if (!p)
        return;
    HASH_ITER(hh, p->users, u, tmp) {
        HASH_DEL(p->users, u);
        free(u);
    }
    free(p);
}

int sched_predict_learn(struct sched_predict *p, uint32_t user,
                        int64_t ran_s)
{
    struct sched_predict_user *u = NULL;

    HASH_FIND(hh, p->users, &user, sizeof(user), u);
    if (!u) {
        if (!(u = calloc(1, sizeof(*u)))) {
            errno = ENOMEM;
            return -1;
        }
        u->user = user;
        HASH_ADD(hh, p->users, user, sizeof(u->user), u);
    }
    u->last[1] = u->last[0];
    u->last[0] = ran_s < 0 ? 0 : ran_s;
    if (u->n < 2)
        u->n++;
    return 0;
}

int64_t sched_predict_limit(const struct sched_predict *p, uint32_t user,
                            int64_t limit_s)
{
    struct sched_predict_user *u = NULL;
    int64_t m;

    if (p)
        HASH_FIND(hh, p->users, &user, sizeof(user), u);
    if (!u || u->n == 0)
        return limit_s;
    m = u->n == 1 ? u->last[0] : (u->last[0] + u->last[1] + 1) / 2;
    if (m < 1)
        m = 1;
    return limit_s >= 0 && limit_s < m ? limit_s : m;
}

int64_t sched_predict_running(int64_t plan_s, int64_t limit_s,
                              int64_t start_s, int64_t now)
{
    if (plan_s <= 0 || start_s + plan_s <= now)
        return limit_s;
    return plan_s;
}
