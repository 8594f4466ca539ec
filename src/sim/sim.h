/* SPDX-License-Identifier: Apache-2.0
 *
 * sim.h - replay a workload trace through the scheduling core in virtual time
 *
 * The cluster is one processor pool: 'nodes' nodes of 'cpus_per_node' CPUs
 * (by default one node holding the trace's MaxProcs), or a cluster's nodes
 * as they are, with its partitions (struct sim_cluster, from a slurm.conf).
 * A job asks for ntasks = its procs, one CPU each (on a cluster also its
 * nodes, memory and GPUs, on its partition's nodes); its time limit is the
 * user's estimate
 * and it runs min(run time, estimate): a job is killed at its limit, as on
 * a real system.  Events (submissions, completions) are taken in time
 * order; after all the events of one instant, one sched_pass() runs over
 * the pending queue in priority order (submission order, unless
 * sim_opts.prio says priority/multifactor), with now = that instant.
 * Nothing here reads a clock or does I/O: the same trace and options give
 * the same result.
 */
#ifndef DROVER_SIM_SIM_H
#define DROVER_SIM_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/bitmap.h"
#include "common/error.h"
#include "sched/priority.h"
#include "sched/sched.h"
#include "sim/swf.h"

struct slurm_conf;

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

/* A partition of a cluster: its name and its nodes. */
struct sim_part {
    const char *name;  /* borrowed from the cluster's conf */
    bitmap_t *nodes;   /* indexes into sim_cluster.nodes; NULL when the
                        * partition holds every node */
};

/* A cluster as configured: nodes of any sizes (CPUs, memory, GPUs) and
 * partitions.  Made by sim_cluster_from_conf(), freed by
 * sim_cluster_free(); read-only to the replays, which copy the nodes.
 */
struct sim_cluster {
    struct sched_node *nodes; /* configuration (usage all zero) */
    size_t nnodes;
    struct sim_part *parts;
    size_t nparts;
    size_t default_part;      /* index into parts (Default=YES, else the
                               * first); meaningless when nparts == 0:
                               * then every job may use every node */
    uint64_t cpus;            /* the nodes' CPUs together */
    struct prio_conf prio;    /* its Priority* keywords */
    struct slurm_conf *conf;  /* owned: the names above point into it */
};

/* Build *c from slurm.conf 'conf': each NodeName= record's CPUs,
 * RealMemory (MiB) and Gres=gpu counts (conf/conf_sched_node.h, as the
 * controller reads them; every node is taken as up, whatever its State=),
 * each PartitionName= line's nodes.  On success *c owns 'conf' (freed by
 * sim_cluster_free()); on failure 'conf' is left to the caller.
 * Returns 0, or -1 with errno (EINVAL: no node, a partition naming an
 * unknown node; ENOMEM) and the reason in 'error' (may be NULL); *c is
 * then empty.
 */
int sim_cluster_from_conf(struct sim_cluster *c, struct slurm_conf *conf,
                          drv_error_t *error);

/* Index into c->parts of the partition called 'name', or -1. */
long sim_cluster_part(const struct sim_cluster *c, const char *name);

/* Free what *c holds (its conf too) and zero it.  NULL is a no-op; errno
 * is kept. */
void sim_cluster_free(struct sim_cluster *c);

struct sim_opts {
    enum sim_policy policy;
    const struct sim_cluster *cluster; /* borrowed; NULL: the pool of
                                        * 'nodes' x 'cpus_per_node' */
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
    const struct prio_conf *prio; /* borrowed; NULL or priority/basic: the
                              * queue in submission order.  Multifactor:
                              * the queue in priority order, computed as
                              * the controller does (docs/simulator.md):
                              * each (group, user) of the trace a user
                              * association under an account named after
                              * the group (accounting: account, user),
                              * shares 1; usage the CPU-seconds run,
                              * decayed; a calculation every
                              * PriorityCalcPeriod of virtual time */
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
 * -1 for a job that never fit or never started).  Fills *r.
 * On a cluster (o->cluster) each job asks for its procs as tasks of one
 * CPU, its nodes (min = max) when it names some, its mem_per_cpu_mib, and
 * its GPUs (per node when they divide evenly over the nodes it names,
 * else over the whole job), on the nodes of its partition (the default
 * partition for part 0; a partition the cluster lacks: nowhere, the job
 * never runs).  On a pool only procs count.
 * Returns 0, or -1 with errno (ENOMEM; EINVAL for an empty pool) and the
 * reason in 'error' (may be NULL).
 */
int sim_run(const struct swf_trace *t, const struct sim_opts *o,
            struct sim_result *r, int64_t *start_out, drv_error_t *error);

/* How long job 'job' runs once started, seconds: min(run, estimate), as
 * a job is killed at its limit. */
int64_t sim_job_duration(const struct swf_job *job);

/* Bounded slowdown of one job (tau = 10 s), seconds in. */
double sim_bsld(int64_t wait_s, int64_t run_s);

#endif /* !DROVER_SIM_SIM_H */
