/* SPDX-License-Identifier: Apache-2.0
 *
 * crontab.h - scrontab: each user's crontab in the controller, and the
 * cron jobs made from its entries
 *
 * As Slurm 22.05's (scrontab(1), ScronParameters=enable): a user's crontab
 * is kept as its text with the lines scancel disabled; each entry is a
 * batch job (cron_spec, cron_line_start/end in its record) pending with
 * reason BeginTime until the entry's next time.  When the job ends in any
 * state but CANCELLED it is requeued, the same job id, for the next time
 * after its end; scancel of it ends it and disables the entry's lines
 * (scrontab -l shows them "#DISABLED: ").  Setting a crontab cancels the
 * user's pending cron jobs and submits the new entries; removing it
 * cancels them; a running one finishes its run and does not recur (the
 * record's "job_ids" are the crontab's current jobs), as scrontab(1) -r.
 * The table changes only through CTLD_EV_CRONTAB_SET (event.h), so it is
 * journaled, replicated and snapshot as the jobs are.
 */
#ifndef DROVER_CTLD_CRONTAB_H
#define DROVER_CTLD_CRONTAB_H

#include <stdbool.h>
#include <time.h>
#include <jansson.h>

#include "proto/server.h"

struct ctld;
struct ctld_event;
struct job;

/* Is scrontab enabled (ScronParameters holds "enable", any case, as
 * Slurm's check)? */
bool crontab_enabled(const struct ctld *ctld);

/* The applier of CTLD_EV_CRONTAB_SET: ev->crontab {"user_id", "text",
 * "disabled", "job_ids"} replaces that user's crontab (copied), or without "text"
 * removes it.  Returns 0, or -1 for a record without a user id. */
int crontab_apply(struct ctld *ctld, struct ctld_event *ev);

/* The table for the snapshot (new reference) and back (borrowed 'o';
 * NULL: none). */
json_t *crontab_snapshot(struct ctld *ctld);
void crontab_restore(struct ctld *ctld, json_t *o);

/* The first time after 'after' that cron job 'job''s entry matches
 * (cron.h, local time); -1 for a job that is not a cron job or whose
 * entry never matches again. */
time_t crontab_next_run(const struct job *job, time_t after);

/* 'job' ended (CTLD_EV_JOB_ENDED applied at 'now'): a cron job that was
 * not cancelled, of its owner's current crontab, is requeued (CTLD_EV_JOB_REQUEUED, a new run for
 * accounting) eligible at its entry's next time. */
void crontab_job_ended(struct ctld *ctld, struct job *job, time_t now);

/* scancel of cron job 'job' at 'now': its entry's lines are disabled in
 * its owner's crontab (a CTLD_EV_CRONTAB_SET), as Slurm's. */
void crontab_job_cancelled(struct ctld *ctld, const struct job *job,
                           time_t now);

/* crontab_set, crontab_get, crontab_remove (rpc_crontab.c). */
extern const struct proto_handler rpc_crontab_handlers[];

#endif /* !DROVER_CTLD_CRONTAB_H */
