/* SPDX-License-Identifier: Apache-2.0
 *
 * backfill.h - Drover's default backfill policy around sched_pass()
 * (SchedulerParameters drover_backfill=predict; docs/config.md,
 * docs/simulator.md for the figures that chose it)
 *
 * Four rules, each from the literature, replace Slurm's "every job tested
 * gets a reservation, in priority order":
 *  - selective reservation: a waiting job gets a reservation only once it
 *    has waited SCHED_RESERVE_XF times its planned time, or
 *    SCHED_RESERVE_AFTER_MAX_S at most (Srinivasan, Kettimuthu,
 *    Subramani and Sadayappan, "Selective reservation strategies for
 *    backfill job scheduling", 2002); such jobs, the leads, keep priority
 *    order and are the only ones to hold reservations;
 *  - order: every other job is a backfill candidate, tried shortest
 *    planned time first (SJBF) within a priority class: the caller's
 *    class keeps what the site's priority says (partition tiers, QOS,
 *    fair-share, an operator's setting) above job length, and leaves out
 *    only what stands for age, which the leads take care of;
 *  - prediction: a job is planned with the mean of its user's last two run
 *    times, at most its time limit (Tsafrir, Etsion and Feitelson,
 *    "Backfilling using system-generated predictions rather than user
 *    runtime estimates", 2007); it is still killed at its limit, and a
 *    running job that outlives its prediction is planned to its limit
 *    from then on;
 *  - slip guard: predictions can make a reservation slip (a backfilled job
 *    runs longer than planned).  Once a waiting job's planned start has
 *    slipped more than SCHED_SLIP_GUARD_S past the first start planned for
 *    it, a pass plans with time limits only, and the jobs it starts keep
 *    their limits as their planned times, so that no job started then can
 *    delay a reservation.
 * A job therefore waits at most a day for its reservation, and a
 * reservation moves only while running jobs outlive their predictions.
 *
 * Pure code, as the rest of src/sched: the controller and drover-sim call
 * it the same way.
 */
#ifndef DROVER_SCHED_BACKFILL_H
#define DROVER_SCHED_BACKFILL_H

#include <stddef.h>
#include <stdint.h>

#include "sched/sched.h"

/* Seconds a planned start may slip before passes plan with limits only. */
#define SCHED_SLIP_GUARD_S 3600
/* A job leads (holds a reservation) once it has waited this many times its
 * planned time ... */
#define SCHED_RESERVE_XF 10
/* ... or this many seconds, whichever is less. */
#define SCHED_RESERVE_AFTER_MAX_S 86400

/* Seconds a job planned for 'planned_s' (-1: no limit) waits before it
 * leads: min(SCHED_RESERVE_XF x planned_s, SCHED_RESERVE_AFTER_MAX_S). */
int64_t sched_backfill_reserve_after(int64_t planned_s);

/* The order of a pass under the policy.  jobs[0..n) are in priority order
 * (time_limit_s: the planned time, -1 = none); waited_s[i] is how long job
 * i has been eligible, seconds; class[i] its priority class (higher
 * first), or class NULL for one class.  Fills order[0..n) (room for n)
 * with indexes into jobs: first the leads, in priority order — the jobs
 * that waited sched_backfill_reserve_after() their planned time, the
 * first 'extra_leads' jobs whatever their wait (consecutive entries with
 * the same id, an array's tasks, go together), and every job of a higher
 * class than one of those, so that no job starts or reserves ahead of a
 * job of a higher priority (sprio's order) — then the others, highest
 * class first, then shortest time_limit_s (none last), ties in priority
 * order.  Returns how many lead: the pass's reserve_depth, with
 * reserve_prefix.  -1 with errno ENOMEM.
 */
long sched_backfill_order(const struct sched_job *jobs, size_t n,
                          const int64_t *waited_s, const uint64_t *class,
                          uint32_t extra_leads, uint32_t *order);

/* Each user's last two run times.  Opaque; NULL is an empty history. */
struct sched_predict;

/* An empty history (caller frees with sched_predict_destroy()), or NULL
 * with errno ENOMEM. */
struct sched_predict *sched_predict_create(void);

/* Free 'p' (NULL: no-op). */
void sched_predict_destroy(struct sched_predict *p);

/* A job of 'user' ran 'ran_s' seconds (>= 0).  Returns 0, or -1 with errno
 * ENOMEM (the history is then unchanged). */
int sched_predict_learn(struct sched_predict *p, uint32_t user,
                        int64_t ran_s);

/* The planned time of a job of 'user' with time limit 'limit_s' (seconds,
 * -1 = none): the mean of the user's last two run times (the last one if
 * only one is known), rounded up, at least 1, at most the limit; the
 * limit when the user has no history (or p is NULL). */
int64_t sched_predict_limit(const struct sched_predict *p, uint32_t user,
                            int64_t limit_s);

/* The time a running job is planned with at 'now': its planned time
 * 'plan_s' while start_s + plan_s is still ahead, else (it outlived its
 * prediction) its limit 'limit_s'.  plan_s <= 0: the limit.  Seconds. */
int64_t sched_predict_running(int64_t plan_s, int64_t limit_s,
                              int64_t start_s, int64_t now);

#endif /* !DROVER_SCHED_BACKFILL_H */
