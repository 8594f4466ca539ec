/* SPDX-License-Identifier: Apache-2.0
 *
 * attach.h - sattach's step_attach on the node (droverd)
 *
 * A user asks each node of a step (src/cmd/sattach.c): {"job_id",
 * "step_id", "io_port", "io_key", "layout": bool}.  droverd passes it to
 * the step's droverstepd as an "attach" control request (stepd.h) with
 * the sender's uid from the MUNGE credential, whether the sender is root
 * or SlurmUser, and the sender's address as seen here (the step connects
 * back to that address and io_port, never to one the user names).  The
 * step daemon decides, as Slurm's slurmd asks its slurmstepd for the
 * step's uid: only the step's user, root or SlurmUser may attach.  The
 * answer is {"node","ranks","node_index"}; errors are Slurm's numbers:
 * EDRV_INVALID_JOB_ID (no such step here), EDRV_ACCESS_DENIED,
 * EDRV_ALREADY_DONE (the step is ending).
 */
#ifndef DROVER_NODED_ATTACH_H
#define DROVER_NODED_ATTACH_H

#include "proto/server.h"

/* The handler of "step_attach" (PROTO_ROLE_USER; noded_handlers). */
void attach_rpc(proto_req_t *req, void *arg);

#endif /* !DROVER_NODED_ATTACH_H */
