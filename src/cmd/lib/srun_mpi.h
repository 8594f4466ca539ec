/* SPDX-License-Identifier: Apache-2.0
 *
 * srun_mpi.h - srun's --mpi: the MPI types, and the hub of PMIx fences
 *
 * With --mpi=pmix every node's droverd serves its tasks PMIx and sends
 * srun its share of each fence ({"fence":id,"node":name,"data":base64});
 * once every node of the step has sent fence 'id', srun answers each
 * node with {"fence":id,"data":base64 of the shares concatenated}
 * (docs/protocol.md).
 */
#ifndef DROVER_CMD_LIB_SRUN_MPI_H
#define DROVER_CMD_LIB_SRUN_MPI_H

#include <stdio.h>
#include <jansson.h>

/* Check an --mpi value (or SLURM_MPI_TYPE): "none", "pmix", "pmix_v4".
 * "list" prints the types to 'out' and returns 1.  An unknown type gets
 * Slurm's error lines on 'err' and -1.  Returns 0 for a known type.
 */
int srun_mpi_check(const char *type, FILE *out, FILE *err);

struct srun_fence_hub;

/* A hub for a step of 'nodes' nodes.  Free with srun_fence_hub_destroy. */
struct srun_fence_hub *srun_fence_hub_create(int nodes);
void srun_fence_hub_destroy(struct srun_fence_hub *hub);

/* Take one node's share (a frame with "fence", "node", "data").  Returns
 * the answer to send to every node (new reference) when this was the
 * last share of its fence, else NULL.  A malformed frame, or a second
 * share of one node for one fence, is ignored (NULL) with *error set to
 * a message (static text), else *error is NULL.
 */
json_t *srun_fence_add(struct srun_fence_hub *hub, json_t *frame,
                       const char **error);

#endif /* !DROVER_CMD_LIB_SRUN_MPI_H */
