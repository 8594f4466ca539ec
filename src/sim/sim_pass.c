/* SPDX-License-Identifier: Apache-2.0
 *
 * sim_pass.c - the scheduling pass of one instant of the replay
 *
 * Backfill policies hand the whole pending queue to sched_pass().  FCFS
 * hands it a prefix with no reservations and keeps only the decisions
 * before the first job that waits: that job blocks everything behind it,
 * as in Slurm's sched/builtin.  The prefix doubles while every job in it
 * starts, so a pass costs about what it starts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_private.h"

#define FCFS_FIRST_CHUNK 8

/* Drop the jobs marked taken (id = UINT32_MAX) from pend[head..tail). */
static void compact(struct sim *s)
{
    size_t w = s->head;

    for (size_t i = s->head; i < s->tail; i++)
        if (s->pend[i].id != UINT32_MAX)
            s->pend[w++] = s->pend[i];
    s->tail = w;
}

static void take(struct sim *s, size_t i, struct sched_decision *d,
                 int64_t now)
{
    uint32_t j = s->pend[i].id;

    if (d->action == SCHED_ACT_START) {
        sim_start_job(s, j, d->alloc, now);
        d->alloc = NULL;
    } else {
        s->never[j] = true;
    }
    s->pend[i].id = UINT32_MAX;
}

static int by_index(const void *a, const void *b)
{
    const struct sched_job *x = a, *y = b;

    return x->id < y->id ? -1 : x->id > y->id;
}

/* The slip guard (backfill.h): a waiting job whose planned start slipped
 * more than SCHED_SLIP_GUARD_S past the first one planned for it. */
static bool slipped(const struct sim *s, const struct sched_job *p,
                    size_t np, int64_t now)
{
    for (size_t i = 0; i < np; i++) {
        int64_t first = s->first_plan[p[i].id];
        if (first >= 0 && now > first + SCHED_SLIP_GUARD_S)
            return true;
    }
    return false;
}

/* The queue p[0..np) in the order of sched_backfill_order(), in place.
 * Returns how many lead (their reservations), or -1 (ENOMEM). */
static long order_backfill(struct sim *s, struct sched_job *p, size_t np,
                           int64_t now)
{
    long lead;

    for (size_t i = 0; i < np; i++)
        s->waited[i] = now - s->t->jobs[p[i].id].submit;
    for (size_t i = 0; s->prio && i < np; i++) /* candidates keep priority
                                                 * order, as the controller's */
        s->class[i] = sim_prio_of(s, p[i].id);
    lead = sched_backfill_order(p, np, s->waited, s->prio ? s->class : NULL,
                                s->o->extra_leads,
                                s->perm);
    if (lead < 0)
        return -1;
    for (size_t i = 0; i < np; i++)
        s->order[i] = p[s->perm[i]];
    memcpy(p, s->order, np * sizeof(*p));
    return lead;
}

/* Before a pass under predict: each job's planned time, its prediction
 * now (under the slip guard, its estimate). */
static void plan_times(struct sim *s, struct sched_job *p, size_t np,
                       bool guard)
{
    for (size_t i = 0; i < np; i++)
        p[i].time_limit_s = guard ? s->t->jobs[p[i].id].estimate
                                  : sim_predict(s, p[i].id);
}

/* After a pass: the planned time of each job it started is the one its
 * run is planned with; each waiting job's first planned start (slip
 * guard). */
static void note_plans(struct sim *s, const struct sched_job *p, size_t np)
{
    for (size_t i = 0; i < np; i++) {
        uint32_t j = p[i].id;
        if (s->out[i].action == SCHED_ACT_START)
            s->limit[j] = p[i].time_limit_s;
        else if (s->out[i].action == SCHED_ACT_WAIT
                 && s->out[i].start_time >= 0 && s->first_plan[j] < 0)
            s->first_plan[j] = s->out[i].start_time;
    }
}

static int pass_backfill(struct sim *s, int64_t now)
{
    size_t np = s->tail - s->head;
    struct sched_job *p = s->pend + s->head;
    struct sched_pass_opts opts = s->o->pass;
    bool guard = s->o->slip_guard && slipped(s, p, np, now);

    if (s->o->predict)
        plan_times(s, p, np, guard);
    if (s->o->backfill_sjf && np > 1) {
        long lead = order_backfill(s, p, np, now);
        if (lead < 0)
            return -1;
        opts.reserve_depth = (uint32_t)lead;
        opts.reserve_prefix = true;
    }
    if (sched_pass(s->nodes, s->nnodes, s->run, s->nrun, p, np, now, &opts,
                   s->out) < 0)
        return -1;
    s->passes++;
    note_plans(s, p, np);
    for (size_t i = 0; i < np; i++)
        if (s->out[i].action != SCHED_ACT_WAIT)
            take(s, s->head + i, &s->out[i], now);
    sched_decisions_clear(s->out, np);
    compact(s);
    if (s->prio) /* the queue stays in priority order */
        sim_prio_sort(s);
    else if (s->o->backfill_sjf) /* ... in submission order */
        qsort(s->pend + s->head, s->tail - s->head, sizeof(*s->pend),
              by_index);
    return 0;
}

/* One chunk of FCFS: returns 1 when every job in it was taken, 0 when one
 * waits, -1 on error.
 */
static int fcfs_chunk(struct sim *s, size_t m, int64_t now)
{
    struct sched_job *p = s->pend + s->head;
    size_t i = 0;

    if (sched_pass(s->nodes, s->nnodes, s->run, s->nrun, p, m, now,
                   &s->o->pass, s->out) < 0)
        return -1;
    s->passes++;
    while (i < m && s->out[i].action != SCHED_ACT_WAIT)
        take(s, s->head + i, &s->out[i], now), i++;
    /* The pass also started jobs behind the first that waits: undo. */
    for (size_t k = i; k < m; k++)
        if (s->out[k].action == SCHED_ACT_START)
            sched_alloc_release(s->nodes, s->nnodes, s->out[k].alloc);
    sched_decisions_clear(s->out, m);
    s->head += i;
    return i == m;
}

static int pass_fcfs(struct sim *s, int64_t now)
{
    size_t chunk = FCFS_FIRST_CHUNK;
    int rc = 1;

    while (rc == 1 && s->head < s->tail && s->free_cpus) {
        size_t np = s->tail - s->head;
        rc = fcfs_chunk(s, np < chunk ? np : chunk, now);
        chunk *= 2;
    }
    /* Keep the queue's storage from creeping forward for ever. */
    if (s->head > 4096 && s->head * 2 > s->tail) {
        memmove(s->pend, s->pend + s->head,
                (s->tail - s->head) * sizeof(*s->pend));
        s->tail -= s->head;
        s->head = 0;
    }
    return rc < 0 ? -1 : 0;
}

/* Whether some pending job asks for no more CPUs than are free: else no
 * pass can start anything (a pass keeps nothing but its starts). */
static bool any_may_start(const struct sim *s)
{
    for (size_t i = s->head; i < s->tail; i++)
        if (s->t->jobs[s->pend[i].id].procs <= s->free_cpus)
            return true;
    return false;
}

int sim_pass(struct sim *s, int64_t now)
{
    if (s->head == s->tail || s->free_cpus == 0 || !any_may_start(s))
        return 0;
    if (s->o->predict)
        sim_predict_outrun(s, now);
    if (s->o->policy == SIM_POLICY_FCFS)
        return pass_fcfs(s, now);
    return pass_backfill(s, now);
}
