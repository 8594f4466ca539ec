/* SPDX-License-Identifier: Apache-2.0
 *
 * job_listing.h - job_info answers (squeue, scontrol show job, sacct's
 * running jobs, REST), written straight into the answer's frame
 *
 * A request naming job ids is answered at once from the id index and the
 * arrays' index (array.h).  A listing of the whole table is written a
 * slice at a time (listing.h), so a 100,000-job `squeue` does not stop
 * the controller for the 100 ms it takes (issue 18: the loop's longest
 * turn).  Each job is written whole,
 * as it is when its turn comes: the listing is the table over those
 * turns, not at one instant, as a job changed meanwhile shows its newer
 * state.  What it never does is show a job twice or leave one out:
 *   - a job removed before its turn is not shown;
 *   - a job submitted after the listing began is not shown;
 *   - an array task split from its master after the listing passed the
 *     master is shown once, pending, in the master's line; split before
 *     the listing reached the master, it is shown as its own record.
 */
#ifndef DROVER_CTLD_JOB_LISTING_H
#define DROVER_CTLD_JOB_LISTING_H

#include <stdint.h>

#include "proto/server.h"

struct ctld;
struct job;

/* The job_info handler (docs/protocol-messages.md); 'arg' is the ctld. */
void job_listing_rpc(proto_req_t *req, void *arg);

/* From ctld_job_unlink(), before 'job' leaves the table: listings whose
 * next or last job it is step over it. */
void job_listing_unlinked(struct ctld *ctld, const struct job *job);

/* From the array_task_split event: task record 'new_job_id' left master
 * 'master_id'.  Listings that have not reached the master yet will show
 * it (it entered the table after they began). */
void job_listing_split(struct ctld *ctld, uint32_t master_id,
                       uint32_t new_job_id);

#endif /* !DROVER_CTLD_JOB_LISTING_H */
