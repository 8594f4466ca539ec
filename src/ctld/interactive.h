/* SPDX-License-Identifier: Apache-2.0
 *
 * interactive.h - allocation-only jobs (salloc, srun outside a job)
 *
 * A job submitted with "interactive":true has no batch script: the
 * scheduler allocates it and sends no batch_launch.  Nothing on a node
 * reports its end, so the controller ends it itself: when its owner
 * releases it (job_release), when it is cancelled, or when its time
 * limit passes (checked by the periodic timer).
 */
#ifndef DROVER_CTLD_INTERACTIVE_H
#define DROVER_CTLD_INTERACTIVE_H

#include <stdbool.h>
#include <time.h>

#include "ctld/ctld.h"

/* End running interactive job 'job' now: step tasks are killed on every
 * node of the allocation, the allocation is released and the job settles
 * (ctld_job_finished()) from 'status' (raw wait status) and 'timed_out'.
 * Journals.  No-op for a job without an allocation.
 */
void interactive_end(struct ctld *ctld, struct job *job, int status,
                     bool timed_out);

/* End (TIMEOUT) every running interactive job whose time limit has
 * passed at 'now' (epoch s). */
void interactive_check_limits(struct ctld *ctld, time_t now);

/* job_release: {"job_id":N,"exit_status":raw wait status (default 0)}
 * from the job's owner or an operator, for an interactive job. */
extern const struct proto_handler rpc_alloc_handlers[];

#endif /* !DROVER_CTLD_INTERACTIVE_H */
