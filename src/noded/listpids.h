/* SPDX-License-Identifier: Apache-2.0
 *
 * listpids.h - scontrol listpids on the node (droverd)
 *
 * A user asks the node's droverd (src/cmd/lib/listpids.c): {"job_id"
 * (absent: every job), "step_id" (absent: every step)}.  For each
 * matching step running here droverd asks the step's droverstepd for its
 * live tasks with a "pids" control request (stepd.h) carrying the
 * sender's uid and whether it is root or SlurmUser; the step daemon
 * decides, so only the step's user, root or SlurmUser see a step (the
 * steps of others are left out of a listing of every job, and refuse a
 * named job with EDRV_ACCESS_DENIED).  The other processes of each step's
 * cgroup (cgroup.h: what the tasks started, srun in a batch script) are
 * added as Slurm's proctrack container adds them.  The answer is
 * {"node", "steps": [{"job_id", "step_id", "tasks": [{"pid", "local_id",
 * "global_id"}], "pids": [pid]}]}, by job, the batch step first.
 */
#ifndef DROVER_NODED_LISTPIDS_H
#define DROVER_NODED_LISTPIDS_H

#include "proto/server.h"

/* The handler of "step_pids" (PROTO_ROLE_USER; noded_handlers). */
void listpids_rpc(proto_req_t *req, void *arg);

#endif /* !DROVER_NODED_LISTPIDS_H */
