/* SPDX-License-Identifier: Apache-2.0
 *
 * state.h - the controller's state on disk: restore at start, snapshots,
 * and purging finished jobs (MinJobAge)
 */
#ifndef DROVER_CTLD_STATE_H
#define DROVER_CTLD_STATE_H

#include <time.h>

#include <jansson.h>

#include "common/error.h"

struct ctld;

/* Replay snapshot + journal into the (empty) job table, then re-apply the
 * allocations of running jobs to the nodes.  next_job_id ends above every
 * id ever journaled, so no id is handed out twice.  Returns 0, or -1 with
 * 'error' set.
 */
int state_restore(struct ctld *ctld, drv_error_t *error);

/* Load snapshot object 'snap' (state_to_json()'s shape) into the
 * (empty) tables.  0, or -1 with 'error' set.  state_restore() and a Raft
 * snapshot (ha.h) both use it. */
int state_load(struct ctld *ctld, json_t *snap, drv_error_t *error);

/* After loading a snapshot and replaying records: arrays' shared launch
 * data and the nodes' availability, as they follow from the tables. */
void state_restored(struct ctld *ctld);

/* The whole state as one object: every job (with steps, allocation and
 * script), node, the fair-share usage and the reservations.  New
 * reference. */
json_t *state_to_json(struct ctld *ctld);

/* After acct_init(): every job the replayed journal named gets its
 * accounting record spooled again.  The journal and the accounting spool
 * are flushed together (journal_flush_together()), so a crash in the
 * middle may leave the journal ahead of the spool; records are upserts,
 * so sending them again is harmless.  Frees the list of ids. */
void state_respool_replayed(struct ctld *ctld);

/* Write a snapshot of every job and node and empty the journal.  Returns 0
 * or -1 with errno.
 */
int state_snapshot(struct ctld *ctld);

/* Compact the journal without stopping the loop: when the log holds more
 * than 'records', a forked child writes the snapshot
 * (journal_snapshot_async()); one that failed, or could not be started,
 * is replaced by a synchronous state_snapshot().  Call periodically; it
 * also reaps the child.  Returns 0, or -1 when the synchronous snapshot
 * failed (logged by the caller). */
int state_snapshot_periodic(struct ctld *ctld, size_t records);

/* Forget finished jobs that ended MinJobAge seconds before 'now'
 * (journaled as purge records).
 */
void state_purge_old_jobs(struct ctld *ctld, time_t now);

#endif /* !DROVER_CTLD_STATE_H */
