/* SPDX-License-Identifier: Apache-2.0
 *
 * usage_store.h - usage rollups (schema v3, v5) and the reports made of them
 *
 * Jobs' [start, end) intervals are split across hour boundaries into
 * hourly usage per (cluster, account, user) and per cluster, in TRES
 * seconds (cpu, mem in MiB-seconds, node, gres/gpu); days and months are
 * sums of hours (local time).  Per cluster hour it also keeps the planned
 * CPU seconds: eligible jobs' waits, capped at the hour's idle time (see
 * usage_store.c, "planned time").  A rollup recomputes whole hours, so
 * running it again changes nothing: each cluster keeps "redo_from", the
 * first hour to recompute, which acct_send lowers when a job record
 * touches an hour already rolled (from its eligible time or start), and
 * which a rollup moves to the current (partial) hour.
 */
#ifndef DROVER_DBD_USAGE_STORE_H
#define DROVER_DBD_USAGE_STORE_H

#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "dbd/db.h"

/* Schema version 3's steps (schema.c). */
extern const char *const usage_schema_v3[];

/* Schema version 5's steps: plan_cpu_s, plan_mem_s, plan_node_s and
 * plan_gpu_s (planned TRES seconds) on cluster_usage_hour/day/month. */
extern const char *const usage_schema_v5[];

/* Schema version 6's steps: the reservation table (one row per
 * reservation and start time, from acct_send's "resv" events) and
 * pdown_cpu_s... (planned down TRES seconds: MAINT reservations) on
 * cluster_usage_hour/day/month. */
extern const char *const usage_schema_v6[];

/* TRES seconds of one cell: cpu, mem (MiB-s), node, gres/gpu. */
enum { USAGE_CPU, USAGE_MEM, USAGE_NODE, USAGE_GPU, USAGE_NTRES };

/* Slurm's names of the TRES above ("cpu", "mem", "node", "gres/gpu"). */
extern const char *const usage_tres_names[USAGE_NTRES];

/* Index of TRES 'name' in usage_tres_names, or -1. */
int usage_tres_index(const char *name);

/* Record the capacity a controller reported for 'cluster_id' (acct_send's
 * "cluster_tres" {"cpu":N,"mem":MiB,"node":N,"gres/gpu":N}) from 'now' on,
 * when it differs from the last one.  Inside the caller's transaction.
 * Returns 0, or -1 with errno EINVAL (not an object of integers) or EIO.
 */
int usage_note_capacity(db_t *db, int64_t cluster_id, json_t *tres,
                        time_t now, drv_error_t *error);

/* The hour holding 'start_time' (epoch s) of a job of 'cluster_id' was
 * (re)sent: roll it up again from there.  Inside the caller's transaction.
 * Returns 0 or -1 (EIO).
 */
int usage_mark_dirty(db_t *db, int64_t cluster_id, int64_t start_time,
                     drv_error_t *error);

/* The first time of job record 'job' (acct_send's) that its usage counts
 * from: its eligible time when set (its wait is planned time) and earlier
 * than its start, else its start; 0 when it has neither.  Epoch seconds.
 * As Slurm's slurmdbd, which re-rolls from a job's start or, not started,
 * its eligible time; here a started job's wait is rolled again too.
 */
int64_t usage_first_time(json_t *job);

/* Recompute every hour from each cluster's redo_from through the hour
 * holding 'now' (running jobs count up to 'now'), then the days and
 * months holding them.  One transaction per cluster.  Returns 0, or -1
 * with errno EIO and 'error'.
 */
int usage_rollup(db_t *db, time_t now, drv_error_t *error);

/* Split [t0, t1) of a job using 'tres' (one row's TRES counts) at hour
 * boundaries: 'cb' gets each hour's start and the seconds in it.
 * Exposed for the unit tests.
 */
void usage_split_hours(int64_t t0, int64_t t1,
                       void (*cb)(int64_t hour, int64_t secs, void *arg),
                       void *arg);

/* Local-time day and month starts ("floor") and the next ones. */
int64_t usage_day_start(int64_t t);
int64_t usage_next_day(int64_t t);
int64_t usage_month_start(int64_t t);
int64_t usage_next_month(int64_t t);

/* The latest "start" or "end" of a report: 9999-12-31 23:59:59 UTC. */
#define USAGE_TIME_MAX INT64_C(253402300799)

/* The answer to acct_usage_report 'req' (docs/protocol.md): rows read from
 * the monthly, daily and hourly tables, over the part of the window that
 * holds data (a window of any width costs what the data's span costs).
 * "start" and "end" are brought into [0, USAGE_TIME_MAX].  'only_user' non-NULL
 * limits user rows to that user (PrivateData=usage).  Returns a new
 * object, or NULL with errno EINVAL (a bad request, 'error' names the key)
 * or EIO.
 */
json_t *usage_report(db_t *db, json_t *req, const char *only_user,
                     drv_error_t *error);

#endif /* !DROVER_DBD_USAGE_STORE_H */
