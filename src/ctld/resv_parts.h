/* SPDX-License-Identifier: Apache-2.0
 *
 * resv_parts.h - reservations of part of their nodes: CoreCnt= and
 * TRES=cpu=N,gres/gpu=M (Slurm's core and GRES reservations)
 *
 * Such a reservation holds, on each of its nodes, a number of CPUs and a
 * set of GPU indexes (its "part" of the node) instead of the whole node:
 * other jobs may use the rest of the node over its time.  Its jobs may use
 * any free CPU and GPU of its nodes (Drover does not pin a job to the
 * reserved cores).  The part is kept as a sched_alloc (exclusive false,
 * no memory) and in the record as "parts":[{"node","cpus","gpus"}].
 */
#ifndef DROVER_CTLD_RESV_PARTS_H
#define DROVER_CTLD_RESV_PARTS_H

#include <jansson.h>

#include "common/bitmap.h"
#include "sched/sched.h"

struct ctld;
struct resv;

/* The parts a create or update body asks for on 'nodes': "core_cnts" (one
 * total, spread as evenly as it goes, the first nodes taking the rest, as
 * Slurm's CoreCnt/NodeCnt; or one count per node in node order) and
 * "gpu_cnt" (a total spread the same way; the lowest GPU indexes free
 * now, else the lowest).  Returns the "parts" array (a new reference),
 * NULL with *errnum 0 when the body asks for none, or NULL with *errnum
 * (EDRV_INVALID_CPU_COUNT, EDRV_INVALID_GRES) and *why. */
json_t *resv_parts_build(struct ctld *ctld, json_t *body,
                         const bitmap_t *nodes, int *errnum,
                         const char **why);

/* The part of each node a "parts" record array holds, on the controller's
 * nodes; NULL (logged) if a node or GPU index is unknown.  Caller frees
 * with sched_alloc_destroy(). */
struct sched_alloc *resv_parts_alloc(struct ctld *ctld, json_t *parts);

/* The "parts" array of 'part' (a new reference). */
json_t *resv_parts_json(struct ctld *ctld, const struct sched_alloc *part);

/* What the pass should hold for reservation 'r' (with a part) at 'now':
 * its part, less what the jobs naming it use of it now while it is
 * active.  Caller frees with sched_alloc_destroy(); NULL on ENOMEM. */
struct sched_alloc *resv_parts_hold(struct ctld *ctld, const struct resv *r,
                                    time_t now);

/* CPUs and GPUs the part holds in all (scontrol show: CoreCnt=, TRES=). */
void resv_parts_totals(const struct sched_alloc *part, uint32_t *cpus,
                       uint32_t *gpus);

#endif /* !DROVER_CTLD_RESV_PARTS_H */
