/* SPDX-License-Identifier: Apache-2.0
 *
 * step_nodes.h - srun -w/-x/-B of a step: which of its job's nodes it may
 * use
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

/* A step's -B S:C:T (--sockets-per-node, --cores-per-socket,
 * --threads-per-core): the job's nodes configured with fewer sockets,
 * cores per socket or threads per core are not the step's, as if -x named
 * them; 0 = any. */
struct step_topo {
    uint16_t sockets;
    uint16_t cores;
    uint16_t threads;
};

struct step_nodes {
    uint8_t *mask;   /* per allocation entry, STEP_ENT_* (step_res.h);
                      * NULL when neither list was given and -B leaves
                      * every node */
    uint32_t must;   /* entries named by -w */
    uint32_t usable; /* entries not excluded (the -w ones included) */
};

/* Resolve 'nodelist' and 'exclude' (hostlist expressions, or NULL) and
 * 'topo' (NULL: none) against the job's allocation 'alloc' with node table
 * 'nt' into *out (free its mask with free()); the mask stays NULL when
 * none of them leaves a node out or names one.  Returns 0, or
 * EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE (Slurm's answer) when -w is not a
 * hostlist, names a node outside the job or one -x or 'topo' excludes, or
 * 'topo' leaves no node; *out is then empty. */
int step_nodes_resolve(const struct node_table *nt,
                       const struct sched_alloc *alloc, const char *nodelist,
                       const char *exclude, const struct step_topo *topo,
                       struct step_nodes *out);

#endif /* !DROVER_CTLD_STEP_NODES_H */
