/* SPDX-License-Identifier: Apache-2.0
 *
 * enforce.h - AccountingStorageEnforce in the controller: the association
 * and QOS tables from droverdbd, the submit check and the scheduling gate
 *
 * The tables come from droverdbd (acct_assoc_list, docs/protocol.md) at
 * start and every ENFORCE_POLL_MS with "if_changed_since"; the last good
 * copy is kept in StateSaveLocation/assoc_cache.json, so a controller
 * restarted while droverdbd is down still enforces.  The decisions are
 * src/sched/limits.h's.  Usage (jobs and TRES per QOS, user and
 * association) is recomputed from the job table at the start of each
 * scheduling pass (one hash lookup per job) and counted forward by each
 * submission and each start within the pass.
 */
#ifndef DROVER_CTLD_ENFORCE_H
#define DROVER_CTLD_ENFORCE_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "common/error.h"
#include "ctld/job.h"

#define ENFORCE_POLL_MS 5000

struct ctld;

/* Set up enforcement from ctld->conf (no-op, returning 0, when
 * AccountingStorageEnforce names none of associations, limits, qos, and
 * neither PriorityType=priority/multifactor (the association tree) nor
 * PreemptType=preempt/qos (QOS Preempt=) needs the tables of an
 * AccountingStorageType=accounting_storage/slurmdbd): load the
 * cached tables and start polling droverdbd.  Without enforcement flags
 * the tables only resolve the default account and feed the priority.  A cache that cannot be
 * parsed is logged and ignored.  Returns 0, or -1 with 'error' set on
 * ENOMEM.
 */
int enforce_init(struct ctld *ctld, drv_error_t *error);

/* The association and QOS tables (NULL until droverdbd or the cache gave
 * them, or when neither enforcement nor multifactor priority needs them).
 * Borrowed until the next poll replaces them. */
const limits_table_t *enforce_table(const struct ctld *ctld);

/* The acct_assoc_list answer the table was built from ({"version", "qos",
 * "assocs", "users", ...}, docs/protocol.md: every association of this
 * cluster with its effective limits, in sacctmgr's order), or NULL with
 * no table.  Borrowed until the next poll replaces it. */
const json_t *enforce_listing(const struct ctld *ctld);

/* Stop polling and free everything.  NULL-safe on a ctld without it. */
void enforce_fini(struct ctld *ctld);

/* job_submit's check, once the partition is known: resolve the account
 * (-A, else the user's default) and the QOS (-q, else the association's
 * default, else normal), store them in job->account/job->qos, and apply
 * the submit limits.  Returns 0 (also when enforcement is off), or -1 with
 * errno and 'error':
 *   EDRV_INVALID_ACCOUNT   unknown association, or no tables yet
 *   EDRV_INVALID_QOS       unknown QOS or one the association may not use
 *   EDRV_ACCOUNTING_POLICY a submit limit (MaxSubmitJobs...) is reached
 */
int enforce_submit(struct ctld *ctld, struct job *job, drv_error_t *error);

/* A subscriber of ctld_apply() (event.h): a job that ended or was
 * cancelled makes a submission that a limit would refuse count the
 * usage again first, so that a job ended since the last pass no longer
 * counts against MaxSubmitJobs. */
struct ctld_event;
void enforce_event(struct ctld *ctld, const struct ctld_event *ev);

/* Count a job just queued (after enforce_submit()) against submit limits
 * until the next pass recomputes the usage. */
void enforce_job_added(struct ctld *ctld, const struct job *job);

/* The gate for one scheduling pass over 'pend[0..np)' (the pass's queue,
 * highest priority first).  enforce_pass_begin() recomputes the usage and
 * returns false when enforcement is off (no gate needed); 'held' (np
 * entries) receives the reason of each job the gate holds back.
 */
struct enforce_pass {
    struct ctld *ctld;
    struct job **pend;
    enum job_reason *held;
};
bool enforce_pass_begin(struct ctld *ctld, struct enforce_pass *p,
                        struct job **pend, size_t np);

/* sched_pass_opts.admit / .started for an enforce_pass ('arg'). */
bool enforce_admit(void *arg, size_t i);
void enforce_started(void *arg, size_t i);

/* Free what enforce_pass_begin() allocated. */
void enforce_pass_end(struct enforce_pass *p);

#endif /* !DROVER_CTLD_ENFORCE_H */
