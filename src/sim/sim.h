/* SPDX-License-Identifier: Apache-2.0
 *
 * sim.h - replay a workload trace through the scheduling core in virtual time
 *
 * The cluster is one processor pool: 'nodes' nodes of 'cpus_per_node' CPUs
 * (by default one node holding the trace's MaxProcs).  A job asks for
 * ntasks = its procs, one CPU each; its time limit is the user's estimate
 * and it runs min(run time, estimate): a job is killed at its limit, as on
 * a real system.  Events (submissions, completions) are taken in time
 * order; after all the events of one instant, one sched_pass() runs over
 * the pending queue in submission order, with now = that instant.
 * Nothing here reads a clock or does I/O: the same trace and options give
 * the same result.
 */
#ifndef DROVER_SIM_SIM_H
#define DROVER_SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "sched/sched.h"
#include "sim/swf.h"

enum sim_policy {
    SIM_POLICY_FCFS,    /* a job starts only when every earlier job has */
    SIM_POLICY_EASY,    /* EASY backfill: one reservation, for the first
                         * waiting job */
    SIM_POLICY_DEFAULT, /* Drover's controller default: the backfill of
                         * drover_backfill=predict (src/sched/backfill.h),
                         * bf_window 1 day, bf_resolution 60 s */
};

/* "fcfs", "easy", "default".  Static storage, never NULL. */
const char *sim_policy_name(enum sim_policy p);

/* Parse a policy name.  Returns 0, or -1 with errno=EINVAL. */
int sim_policy_parse(const char *name, enum sim_policy *out);

struct sim_opts {
    enum sim_policy policy;
    uint32_t nodes;          /* 0: one node */
    uint32_t cpus_per_node;  /* 0: the trace's max_procs (on one node) */
    struct sched_pass_opts pass; /* knobs of each pass; set from the policy
                                  * by sim_opts_init(), may be changed */
    bool backfill_sjf;       /* the pass's order per sched_backfill_order()
                              * (src/sched/backfill.h): the oldest waiting
                              * job (and 'extra_leads' more) keeps its
                              * place and a reservation, the others are
                              * tried shortest planned time first
                              * (EASY-SJBF) */
    uint32_t extra_leads;    /* with backfill_sjf: see above (0) */
    bool predict;            /* plan with predicted run times instead of
                              * the estimates: the mean of the user's last
                              * two jobs' run times, at most the estimate
                              * (sched_predict_limit(), Tsafrir, Etsion and
                              * Feitelson 2007), taken at submission; a job
                              * still runs to its estimate, and one that
                              * outruns its prediction is planned to its
                              * estimate from then on */
    bool slip_guard;         /* with predict: once a waiting job's planned
                              * start slipped SCHED_SLIP_GUARD_S past the
                              * first one planned for it, passes plan with
                              * estimates (backfill.h) */
};

/* Options for 'policy' on the default pool: see enum sim_policy and
 * docs/simulator.md for the pass knobs each policy takes.
 */
void sim_opts_init(struct sim_opts *o, enum sim_policy policy);

/* Figures of one replay.  Waits and times in seconds. */
struct sim_result {
    size_t jobs;           /* jobs replayed (started and ended) */
    size_t never;          /* jobs that could never fit the pool: dropped */
    double avg_wait_s;
    double avg_bsld;       /* bounded slowdown, tau = 10 s:
                            * max(1, (wait + run) / max(run, 10)) */
    int64_t p50_wait_s, p95_wait_s, p99_wait_s, max_wait_s; /* nearest rank */
    double utilization;    /* sum(procs * run) / (pool CPUs * makespan) */
    int64_t makespan_s;    /* last end - first submit */
    uint64_t pool_cpus;
    size_t passes;         /* sched_pass() calls */
};

/* Replay trace 't' with options 'o'.  'start_out', if not NULL, has room
 * for t->njobs entries and receives each job's start time (trace order;
 * -1 for a job that never fit).  Fills *r.  Returns 0, or -1 with errno
 * (ENOMEM; EINVAL for an empty pool) and the reason in 'error' (may be
 * NULL).
 */
int sim_run(const struct swf_trace *t, const struct sim_opts *o,
            struct sim_result *r, int64_t *start_out, drv_error_t *error);

/* Bounded slowdown of one job (tau = 10 s), seconds in. */
double sim_bsld(int64_t wait_s, int64_t run_s);

#endif /* !DROVER_SIM_SIM_H */
