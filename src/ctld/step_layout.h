/* SPDX-License-Identifier: Apache-2.0
 *
 * step_layout.h - which ranks of a step run on which of its nodes
 *
 * srun -m's first level (common/taskdist.h), as Slurm 22.05 lays out a
 * step: block and cyclic keep the per-node counts the caller chose and
 * only number the ranks differently (block: consecutive ranks share a
 * node; cyclic: round robin over the nodes that still have room); plane
 * deals blocks of plane_size ranks round robin and so sets its own
 * per-node counts (step_layout_plane_counts); arbitrary takes each
 * rank's node from a list.  Pure: no I/O, no clock.
 */
#ifndef DROVER_CTLD_STEP_LAYOUT_H
#define DROVER_CTLD_STEP_LAYOUT_H

#include <stdint.h>

#include "common/taskdist.h"

struct step_layout {
    uint32_t nodes;
    uint32_t ntasks;
    uint32_t *tasks;    /* [nodes] ranks on each node */
    uint32_t *start;    /* [nodes] where node i's ranks begin in rank[] */
    uint32_t *rank;     /* [ntasks] node 0's ranks ascending, node 1's, ... */
};

/* Plane's per-node counts, as Slurm's: one rank on each node first, then
 * rounds in which each node takes up to 'plane' more (the first round
 * counting the one it has), while it has room (cap[i] ranks; cap NULL:
 * no limit); once no node has room, rounds go on without the limit.
 * Writes tasks[nodes]; ntasks >= nodes >= 1 and plane >= 1.
 */
void step_layout_plane_counts(uint32_t nodes, uint32_t ntasks,
                              uint32_t plane, const uint32_t *cap,
                              uint32_t *tasks);

/* Number the ranks for tasks[i] ranks on node i (every tasks[i] >= 1) by
 * 'node' (TASKDIST_UNSET and TASKDIST_ARBITRARY: block) with 'plane_size'
 * for TASKDIST_PLANE.  Returns a new layout (step_layout_destroy), or
 * NULL with errno EINVAL (nodes 0, a count 0, plane_size 0) or ENOMEM.
 */
struct step_layout *step_layout_create(uint32_t nodes, const uint32_t *tasks,
                                       enum taskdist_node node,
                                       uint32_t plane_size);

/* Arbitrary: rank r runs on node task_node[r] (< nodes); each node gets
 * its ranks in ascending order.  NULL with errno EINVAL (a node index out
 * of range, or a node with no rank) or ENOMEM.
 */
struct step_layout *step_layout_from_map(uint32_t nodes, uint32_t ntasks,
                                         const uint32_t *task_node);

/* NULL is a no-op; errno is kept. */
void step_layout_destroy(struct step_layout *l);

#endif /* !DROVER_CTLD_STEP_LAYOUT_H */
