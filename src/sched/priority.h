/* SPDX-License-Identifier: Apache-2.0
 *
 * priority.h - Slurm's priority/multifactor: a job's priority factors, the
 * weighted sum, and the half-life decay of usage
 *
 * Pure code: the caller resolves a job's inputs (its fair-share factor
 * from fairshare.h, its partition's, QOS's and association's priorities
 * and the largest of each, the cluster's size) and passes the time.
 * Formulas are Slurm 22.05's (slurm.schedmd.com/priority_multifactor.html):
 *
 *   priority = site + Wage * age + Wassoc * assoc + Wfs * fairshare
 *            + Wjs * jobsize + Wpart * partition + Wqos * qos
 *            + sum over TRES of Wtres * tres  - nice
 *
 * truncated to an integer and kept in [1, 0xfffffffe]; each factor is in
 * [0, 1] unless a NO_NORMAL_* flag keeps it raw.
 */
#ifndef DROVER_SCHED_PRIORITY_H
#define DROVER_SCHED_PRIORITY_H

#include <stdbool.h>
#include <stdint.h>

/* TRES a PriorityWeightTRES weight may name. */
enum prio_tres { PRIO_TRES_CPU, PRIO_TRES_MEM, PRIO_TRES_NODE,
                 PRIO_TRES_GPU, PRIO_TRES_COUNT };

/* Slurm's name of 't' ("cpu", "mem", "node", "gres/gpu"). */
const char *prio_tres_name(enum prio_tres t);

/* PriorityFlags bits (slurm.conf(5)). */
enum prio_flags {
    PRIO_FLAG_ACCRUE_ALWAYS = 1 << 0,    /* age from submission, held or not */
    PRIO_FLAG_SMALL_RELATIVE_TO_TIME = 1 << 1,
    PRIO_FLAG_CALCULATE_RUNNING = 1 << 2,
    PRIO_FLAG_DEPTH_OBLIVIOUS = 1 << 3,  /* refused by the config parser */
    PRIO_FLAG_NO_FAIR_TREE = 1 << 4,     /* classic fair-share */
    PRIO_FLAG_INCR_ONLY = 1 << 5,
    PRIO_FLAG_MAX_TRES = 1 << 6,
    PRIO_FLAG_NO_NORMAL_ASSOC = 1 << 7,
    PRIO_FLAG_NO_NORMAL_PART = 1 << 8,
    PRIO_FLAG_NO_NORMAL_QOS = 1 << 9,
    PRIO_FLAG_NO_NORMAL_TRES = 1 << 10,
};

/* The Priority* keywords of slurm.conf. */
struct prio_conf {
    bool multifactor;          /* PriorityType=priority/multifactor */
    uint32_t w_age, w_assoc, w_fairshare, w_jobsize, w_partition, w_qos;
    uint32_t w_tres[PRIO_TRES_COUNT]; /* PriorityWeightTRES= */
    int64_t max_age_s;         /* PriorityMaxAge, seconds (default 7 days) */
    int64_t decay_half_life_s; /* PriorityDecayHalfLife, s; 0: no decay */
    int64_t calc_period_s;     /* PriorityCalcPeriod, s (default 300) */
    bool favor_small;          /* PriorityFavorSmall */
    unsigned flags;            /* enum prio_flags */
};

/* What one job's factors are computed from. */
struct prio_job {
    int64_t age_start;    /* when it began to accrue age (eligible, or
                           * submitted with ACCRUE_ALWAYS), epoch s;
                           * 0: not yet */
    int32_t nice;         /* --nice */
    uint32_t nodes;       /* requested (minimum) nodes */
    uint32_t cpus;        /* requested CPUs */
    uint64_t mem_mib;     /* requested memory, MiB, all nodes */
    uint32_t gpus;        /* requested GPUs, all nodes */
    int64_t time_limit_s; /* -1: none */
    double fairshare;     /* fairshare.h's factor, 0..1 */
    uint32_t part_prio, part_prio_max;   /* PriorityJobFactor of its
                                          * partition, and the largest */
    uint32_t qos_prio, qos_prio_max;     /* its QOS's Priority, largest */
    uint32_t assoc_prio, assoc_prio_max; /* its association's, largest */
    /* the cluster (its partition's nodes for the TRES factor) */
    uint32_t cluster_nodes, cluster_cpus;
    uint64_t cluster_mem_mib;
    uint32_t cluster_gpus;
};

/* The factors of one job, as sprio -n prints them. */
struct prio_factors {
    double age, assoc, fairshare, jobsize, partition, qos;
    double tres[PRIO_TRES_COUNT];
    int64_t site;  /* Slurm's site factor (0: no site plugin) */
    int32_t nice;
};

/* The factors of 'job' at 'now' (epoch s) under 'conf'.  Age is the time
 * since age_start over PriorityMaxAge (at most 1).  Job size is Slurm's:
 * (nodes over the cluster's + CPUs over the cluster's) / 2, or one minus
 * that with PriorityFavorSmall; with SMALL_RELATIVE_TO_TIME, the CPUs
 * (at least nodes times the average CPUs of a node) per minute of time
 * limit over the cluster's CPUs.  Partition, QOS and association are
 * their priority over the largest (0 when the largest is 0), or raw with
 * NO_NORMAL_*; each TRES is the job's count over the cluster's.
 */
void prio_factors(const struct prio_conf *conf, const struct prio_job *job,
                  int64_t now, struct prio_factors *out);

/* The weighted sum of 'f' under 'conf' minus nice, truncated, in
 * [1, 0xfffffffe] (0 stays the held value, 0xffffffff is not used). */
uint32_t prio_total(const struct prio_conf *conf,
                    const struct prio_factors *f);

/* Usage decay over 'dt_s' seconds with half-life 'half_life_s':
 * 2^(-dt / half_life), 1 when half_life_s <= 0 or dt_s <= 0. */
double prio_decay(int64_t half_life_s, int64_t dt_s);

/* The calculation (every PriorityCalcPeriod), as the controller and
 * drover-sim run it on their usage of each association:
 *  1. every usage is multiplied by prio_calc_decay() (the time since the
 *     last calculation),
 *  2. every running job's association is charged prio_charge() for its
 *     run since prio_charged_from(),
 *  3. the pending jobs' priorities are computed again.
 * A job that leaves its nodes between calculations is charged then, from
 * prio_charged_from() to its end. */

/* The factor of step 1 for a calculation at 't' after one at 'last' (0:
 * none, this is the first: 1). */
double prio_calc_decay(const struct prio_conf *conf, int64_t last, int64_t t);

/* Where a job's uncharged run begins: its start, the last calculation or
 * its resumption ('resumed', 0: never suspended), the latest. */
int64_t prio_charged_from(int64_t start, int64_t last_calc, int64_t resumed);

/* The usage a job holding 'cpus' CPUs over [from, to) adds, times
 * 'usage_factor' (its QOS's UsageFactor, 1 without): CPU-seconds, as
 * Slurm's RawUsage with the default billing; 0 when to <= from. */
double prio_charge(uint32_t cpus, int64_t from, int64_t to,
                   double usage_factor);

#endif /* !DROVER_SCHED_PRIORITY_H */
