/* SPDX-License-Identifier: Apache-2.0
 *
 * jobs_store.h - job and step accounting records in the database
 *
 * Records have the JSON shape of docs/protocol.md ("Accounting job
 * record", "Step record"); these functions move them in and out of the
 * schema of schema.c, on either backend.
 */
#ifndef DROVER_DBD_JOBS_STORE_H
#define DROVER_DBD_JOBS_STORE_H

#include <stdint.h>

#include <jansson.h>

#include "dbd/db.h"

/* Store every event of an acct_send body ({"cluster":..., "events":[{"seq":
 * N, "job":record}...]}) in one transaction: each job is upserted by
 * (cluster, job_id, submit_time) and each of its steps by (job, step_id),
 * so sending a record again changes nothing.  *acked_seq gets the highest
 * seq (0 for no events).  Returns 0 once committed, or -1 with errno
 * EINVAL (a malformed body; nothing stored) or EIO (the database; rolled
 * back) and 'error' saying what.
 */
int jobs_store_send(db_t *db, json_t *body, int64_t *acked_seq,
                    drv_error_t *error);

/* Upsert one job record with its steps for 'cluster', inside the caller's
 * transaction.  Returns as jobs_store_send.
 */
int jobs_store_upsert(db_t *db, const char *cluster, json_t *job,
                      drv_error_t *error);

/* The records matching an acct_job_query 'filter' (docs/protocol.md), in
 * job id then array task order, steps in id order with batch and extern
 * first; each record also carries "cluster".  'only_uid' >= 0 limits the
 * answer to that user's jobs (a non-admin under PrivateData=jobs).
 * Returns a new array (caller decrefs), or NULL with errno EINVAL (a
 * malformed filter), EIO or ENOMEM and 'error' set.
 */
json_t *jobs_store_query(db_t *db, json_t *filter, int64_t only_uid,
                         drv_error_t *error);

/* PurgeJobAfter: delete the jobs (with their steps) of every cluster
 * submitted at or before 'cutoff' (seconds since the epoch) that have
 * ended, as Slurm's slurmdbd purges its job table; running and pending
 * jobs stay.  One transaction.  *purged gets the count of jobs deleted.
 * Returns 0, or -1 with errno EIO (rolled back) and 'error' set.
 */
int jobs_store_purge(db_t *db, time_t cutoff, int64_t *purged,
                     drv_error_t *error);

#endif /* !DROVER_DBD_JOBS_STORE_H */
