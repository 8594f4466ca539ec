/* SPDX-License-Identifier: Apache-2.0
 *
 * step_res.h - what a job step takes of its job's allocation
 *
 * A step runs on some of its job's nodes.  As in Slurm 22.05, a step
 * takes every CPU of the job on each of its nodes unless it runs with
 * --exact (or -c), when it takes its tasks' CPUs only (with -O/--overcommit
 * its tasks may outnumber the job's CPUs there, and it takes at most
 * those); --mem takes that
 * much memory of each node; GPUs asked for (--gpus-per-task, --gres /
 * --gpus-per-node, --gpus) are the step's own; a step asking none sees
 * all the job's GPUs of its nodes and takes none.  An --overlap step
 * takes nothing.  Running steps' claims are what later steps must fit
 * beside.  Pure: no I/O, no clock.
 */
#ifndef DROVER_CTLD_STEP_RES_H
#define DROVER_CTLD_STEP_RES_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/sched.h"

/* The step's request (step_create's keys; 0: not given). */
struct step_req {
    uint32_t cpus_per_task;
    uint32_t min_cpus;         /* srun --mincpus: CPUs of the job a node of
                                * the step must have, and the least it
                                * takes there (Slurm's pn_min_cpus) */
    bool exact, overlap;
    bool overcommit;           /* srun -O: more tasks than CPUs */
    uint64_t mem_mib;          /* per node */
    uint32_t gpus_per_task, gpus_per_node, gpus;
    /* srun -m arbitrary: the job's entries (indexes into its allocation)
     * the step's nodes must be, in order (borrowed); NULL: the first
     * entries where it fits. */
    const uint32_t *entries;
    /* srun -w/-x: per job entry STEP_ENT_NO (never), STEP_ENT_MAY or
     * STEP_ENT_MUST (every such entry is one of the step's nodes);
     * NULL: every entry may.  Ignored with 'entries'.  Borrowed. */
    const uint8_t *ent_mask;
};

enum { STEP_ENT_NO = 0, STEP_ENT_MAY = 1, STEP_ENT_MUST = 2 };

/* What a running step holds, for its lifetime. */
struct step_claim {
    struct sched_alloc *part;  /* node_idx (cluster), tasks, cpus and
                                * mem_mib taken, gpus the tasks see */
    uint32_t *ent;             /* each node's entry in the job's alloc */
    bool overlap;              /* takes nothing */
    bool gpus_owned;           /* its GPUs are taken (it asked for some) */
};

/* Pick the step's 'nodes' nodes among the job's allocation 'job' (the
 * first entries where it fits, or rq->entries; with rq->ent_mask every
 * MUST entry and the first MAY entries where it fits, in allocation
 * order, as Slurm's step -w/-x) for tasks[i] tasks on its i-th node,
 * beside the 'nclaims' claims of running steps.  On success *out is the
 * new claim (free with step_claim_destroy) and 0 is returned; else
 * EDRV_TOO_MANY_REQUESTED_CPUS, EDRV_INVALID_TASK_MEMORY or
 * EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE when the step could never fit
 * the allocation (CPUs, memory, GPUs or nodes),
 * or EDRV_NODES_BUSY when it fits once running steps end.
 */
int step_res_pick(const struct sched_alloc *job, const struct step_req *rq,
                  uint32_t nodes, const uint32_t *tasks,
                  const struct step_claim *const *claims, size_t nclaims,
                  struct step_claim **out);

/* NULL is a no-op. */
void step_claim_destroy(struct step_claim *c);

#endif /* !DROVER_CTLD_STEP_RES_H */
