/* SPDX-License-Identifier: Apache-2.0
 *
 * acct.h - sending job records to droverdbd, through an on-disk spool
 *
 * With AccountingStorageType=accounting_storage/slurmdbd, every journaled
 * change of a job makes the job "changed for accounting".  At the end of
 * each loop turn (before the journal flush) the changed jobs' records
 * (acct_record.h) become numbered events appended to the spool,
 * StateSaveLocation/acct_spool/ (a journal.h log: one fdatasync per turn).
 * A drainer sends pending events in order with `acct_send` and drops them
 * when droverdbd acks them; while droverdbd or its database is down the
 * events wait on disk (across controller restarts too) and the drainer
 * retries with a backoff of 1 to 10 s.  Events are whole records, upserted
 * by droverdbd, so a resend never duplicates a job (design.md: nothing
 * lost).
 */
#ifndef DROVER_CTLD_ACCT_H
#define DROVER_CTLD_ACCT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

struct ctld;
struct ctld_event;
struct job;

/* Open the spool and load events not yet acked, when accounting is
 * configured (otherwise every call below is a no-op).  Returns 0, or -1
 * with 'error' naming the spool path.
 */
int acct_init(struct ctld *ctld, drv_error_t *error);

/* 'job' changed: its record is spooled at the end of this loop turn. */
void acct_job_changed(struct ctld *ctld, const struct job *job);

/* Before a job_requeued event is applied (event.c): when the requeue ends
 * a run of the job (it had started and is not yet in a final state), the
 * record of that run is spooled now, as a record of its own: PREEMPTED if
 * it was preempted, REQUEUED if requeued on request or by its exit code
 * (RequeueExit, with that code), NODE_FAIL otherwise
 * (acct_record_run_ended()); a run that ended already (a cron job,
 * requeued as it ends) is spooled as it ended.  The requeue then gives the job a new
 * SubmitTime, so the next run is a new record, as in Slurm (sacct -D shows
 * every run, plain sacct the newest). */
void acct_run_ending(struct ctld *ctld, const struct ctld_event *ev);

/* A resv_changed event (event.c): before it is applied ('before'), an
 * update or delete closes the record of the reservation as it was, ended
 * now (not before its start, not after its end); after it, a create or
 * update spools the record of the reservation as it is
 * (resv_acct_record()).  droverdbd keeps one record per reservation and
 * start time (sreport's PLND Down: MAINT reservations). */
void acct_resv_changed(struct ctld *ctld, const struct ctld_event *ev,
                       bool before);

/* End of a loop turn (ctld_flush_cb), before the flush: queue the changed
 * jobs' events in the spool, and return the spool's journal for the
 * caller to flush with the state journal (journal_flush_together()); NULL
 * when accounting is off.  A failed flush leaves the events queued: the
 * next turn writes them. */
struct journal *acct_spool_prepare(struct ctld *ctld);

/* After the flush: send the spooled events to droverdbd soon: the events
 * of SEND_DELAY_MS (50 ms) go in one acct_send, so a busy controller does
 * not pay a credential and a connection per loop turn; at once when
 * SEND_MAX are waiting.  Nothing while a send is under way or a retry
 * is set. */
void acct_send_soon(struct ctld *ctld);

/* Periodic upkeep: compact the spool when its log has grown. */
void acct_periodic(struct ctld *ctld);

/* Events waiting for droverdbd's ack (sdiag-style figure, tests). */
size_t acct_pending(const struct ctld *ctld);

/* Flush and close the spool; the events not acked stay on disk. */
void acct_fini(struct ctld *ctld);

#endif /* !DROVER_CTLD_ACCT_H */
