/* SPDX-License-Identifier: Apache-2.0
 *
 * step_nodes.h - srun -w/-x of a step: which of its job's nodes it may use
 *
 * As Slurm 22.05 creates a step inside an allocation: every node of -w
 * (--nodelist) must be one of the job's and is one of the step's nodes;
 * -x (--exclude) takes nodes out of those the step may use (names outside
 * the job are ignored, as srun ignores them); the step's other nodes come
 * from what is left, in allocation order (step_res.h).
 */
#ifndef DROVER_CTLD_STEP_NODES_H
#define DROVER_CTLD_STEP_NODES_H

#include <stdint.h>

#include "ctld/node_table.h"
#include "sched/sched.h"

struct step_nodes {
    uint8_t *mask;   /* per allocation entry, STEP_ENT_* (step_res.h);
                      * NULL when neither list was given */
    uint32_t must;   /* entries named by -w */
    uint32_t usable; /* entries not excluded (the -w ones included) */
};

/* Resolve 'nodelist' and 'exclude' (hostlist expressions, or NULL) against
 * the job's allocation 'alloc' with node table 'nt' into *out (free its
 * mask with free()).  Returns 0, or EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE
 * (Slurm's answer) when -w is not a hostlist, names a node outside the job
 * or one -x excludes; *out is then empty. */
int step_nodes_resolve(const struct node_table *nt,
                       const struct sched_alloc *alloc, const char *nodelist,
                       const char *exclude, struct step_nodes *out);

#endif /* !DROVER_CTLD_STEP_NODES_H */
