/* SPDX-License-Identifier: Apache-2.0
 *
 * sim_private.h - the replay's state, shared by sim_replay.c, sim_pass.c
 * and sim_metrics.c only.
 */
#ifndef DROVER_SIM_SIM_PRIVATE_H
#define DROVER_SIM_SIM_PRIVATE_H

#include "sched/backfill.h"
#include "sched/fairshare.h"
#include "sched/priority.h"
#include "sim/sim.h"

struct sim_prio;

struct sim {
    const struct swf_trace *t;
    const struct sim_opts *o;
    struct sched_node *nodes;
    size_t nnodes;
    uint64_t pool_cpus;
    uint64_t free_cpus;
    const bitmap_t **allowed;   /* on a cluster: the nodes of each of the
                                 * trace's partitions (swf_job.part; NULL:
                                 * every node) */
    bitmap_t *nowhere;          /* no node: for a partition the cluster
                                 * lacks */
    struct sched_request *reqs; /* per job (trace order) */
    int64_t *start;             /* per job; -1 = not started */
    int64_t *end;               /* per job: start + min(run, estimate) */
    struct sched_alloc **alloc; /* per job, while it runs */
    uint32_t *ridx;             /* per job: its index in 'run' */
    bool *never;                /* per job: could never fit */
    uint32_t *heap;             /* running jobs by end time */
    size_t nheap;
    struct sched_job *run;      /* running jobs, any order */
    size_t nrun;
    struct sched_job *pend;     /* pending jobs: pend[head..tail) in
                                 * submission order, or priority order
                                 * under multifactor (s->prio) */
    size_t head, tail;
    struct sched_decision *out; /* room for t->njobs */
    size_t passes;
    int64_t *limit;             /* per job: the limit the passes plan with
                                 * (the estimate, or a prediction) */
    struct sched_predict *predict; /* run-time history (opts->predict) */
    int64_t *first_plan;        /* per job: the first start planned for it,
                                 * -1 for none yet (opts->slip_guard) */
    struct sched_job *order;    /* room for t->njobs: a pass's queue in
                                 * the order of sched_backfill_order() */
    uint32_t *perm;             /* room for t->njobs: that order */
    int64_t *waited;            /* room for t->njobs: the queue's waits */
    uint64_t *class;            /* room for t->njobs: the queue's priority
                                 * classes (multifactor: the priorities,
                                 * as the controller's priority_class()) */
    struct sim_prio *prio;      /* priority/multifactor (opts->prio); NULL:
                                 * the queue in submission order */
};

/* The CPUs an allocation holds (the job's procs, or more on a cluster:
 * whole nodes, CPUs per GPU). */
uint64_t sim_alloc_cpus(const struct sched_alloc *a);

/* sim_prio.c, under priority/multifactor (s->prio; see sim_opts.prio):
 * sim_prio_init(): the associations, their tree and the cluster's sizes,
 * after the pool (s->prio stays NULL without multifactor); 0, or -1
 * (ENOMEM).  sim_prio_submit(): job j, just queued at pend[tail - 1] at
 * 'now', gets its priority and its place in the queue.
 * sim_prio_leave(): job j leaves its nodes at 'now' (before they are
 * released): its association is charged.  sim_prio_calc(): the
 * calculation at 'now' (decay, charge the running jobs, the pending
 * jobs' priorities, the queue sorted); sim_prio_next_calc(): when the
 * next is due (INT64_MAX without multifactor).  sim_prio_sort(): the
 * queue by priority, then trace order. */
int sim_prio_init(struct sim *s);
void sim_prio_free(struct sim_prio *p);
void sim_prio_submit(struct sim *s, uint32_t j, int64_t now);
void sim_prio_leave(struct sim *s, uint32_t j, int64_t now);
void sim_prio_calc(struct sim *s, int64_t now);
int64_t sim_prio_next_calc(const struct sim *s);
void sim_prio_sort(struct sim *s);
/* Job j's priority as last computed (s->prio set). */
uint32_t sim_prio_of(const struct sim *s, uint32_t j);

/* With opts->predict: job j's planning limit at its submission
 * (sched_predict_limit() of its user).  sim_predict_learn(): job j ran
 * 'ran' seconds; returns 0 or -1 (ENOMEM).  sim_predict_outrun(): running
 * jobs past their predicted limit at 'now' are planned to their estimate
 * from then on (sched_predict_running()).  sim_predict.c. */
int64_t sim_predict(struct sim *s, uint32_t j);
int sim_predict_learn(struct sim *s, uint32_t j, int64_t ran);
void sim_predict_outrun(struct sim *s, int64_t now);

/* One scheduling pass at 'now' as the policy says; starts what it can.
 * Returns 0, or -1 with errno (ENOMEM, EINVAL from sched_pass()).
 */
int sim_pass(struct sim *s, int64_t now);

/* Record that job j starts at 'now' with 'a' (already applied to the
 * nodes by the pass; s takes ownership).
 */
void sim_start_job(struct sim *s, uint32_t j, struct sched_alloc *a,
                   int64_t now);

/* Fill r from the start and end times in s. */
int sim_metrics(const struct sim *s, struct sim_result *r);

#endif /* !DROVER_SIM_SIM_PRIVATE_H */
