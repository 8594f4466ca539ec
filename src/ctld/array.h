/* SPDX-License-Identifier: Apache-2.0
 *
 * array.h - job arrays in the controller
 *
 * A submitted array is ONE job record (the "master", whose id is the
 * ArrayJobId) holding the bitmap of task ids not started yet.  When the
 * scheduler starts task k, a record for k is split off with a new job id;
 * the last task to start reuses the master record itself (Slurm's rule:
 * `sacct` shows 8374_0 as 8375 and 8374_1 as 8374).  So a 1000-task array
 * costs one record until its tasks start.
 */
#ifndef DROVER_CTLD_ARRAY_H
#define DROVER_CTLD_ARRAY_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "common/arrayspec.h"
#include "common/bitmap.h"
#include "proto/server.h"

struct ctld;
struct job;

struct job_array {
    uint32_t job_id;   /* ArrayJobId: the master's id */
    uint32_t task_id;  /* ARRAY_TASK_NONE while it stands for pending tasks */
    uint32_t throttle; /* "%N": at most N tasks running; 0 = no limit */
    uint32_t count, min, max, step; /* of the whole array: SLURM_ARRAY_TASK_* */
    bitmap_t *pending; /* master only: tasks not started; NULL otherwise */
    struct job *index_prev, *index_next; /* the array's records (array_first) */
};

/* The records of array 'array_id' (its master and the tasks split from
 * it) in the order they entered the table, from an index kept by
 * ctld_job_link() and ctld_job_unlink(), so that finding them does not
 * walk every job (100,000 at bench/scale):
 *     for (j = array_first(ctld, id); j; j = array_next(j))
 * NULL when the array has none.  A record may be unlinked once the
 * iteration has taken its successor. */
struct job *array_first(struct ctld *ctld, uint32_t array_id);
struct job *array_next(const struct job *job);

/* The index's side of ctld_job_link() and ctld_job_unlink(); no-ops for
 * a job that is not an array's.  Nothing else calls them. */
void array_index_add(struct ctld *ctld, struct job *job);
void array_index_del(struct ctld *ctld, struct job *job);

/* Parse a submitted --array 'spec' for 'job' (whose id is not set yet)
 * against MaxArraySize.  Returns 0, or -1 with errno
 * EDRV_INVALID_ARRAY and 'error' set.  Call array_set_id() once the job
 * has its id.
 */
int array_submit(struct job *job, const char *spec, uint32_t max_size,
                 drv_error_t *error);

/* How many jobs record 'job' stands for: a master's pending tasks, else
 * 1 (Slurm counts each array task as a job against MaxJobCount and the
 * submit limits, though it has no record until it starts). */
uint32_t array_jobs_of(const struct job *job);

/* The master's id is its ArrayJobId. */
void array_set_id(struct job *job);

/* True for a record that still holds tasks not started. */
bool array_is_master(const struct job *job);

/* Add the array fields of 'job' to 'o': array_job_id, array_task_id
 * (tasks), array_max_tasks, array_task_count/min/max/step,
 * array_pending (master); with 'info', array_task_str ("2-7%2").
 */
void array_to_json(const struct job *job, json_t *o, bool info);

/* Read them back (journal replay, record copies). */
void array_apply_json(struct job *job, json_t *o);

/* NULL is a no-op. */
void job_array_destroy(struct job_array *a);

/* Running (or completing) tasks of array 'array_id'. */
uint32_t array_running(struct ctld *ctld, uint32_t array_id);

/* The record for task 'task' of master 'master' (which must hold it
 * pending): a new record with the next job id, added to the table, or the
 * master itself when 'task' is its last pending task.  An
 * array_task_split event (event.h) through ctld_apply().  NULL when no job
 * id is free (every id from FirstJobId to MaxJobId in use, job_id.h).
 */
struct job *array_split(struct ctld *ctld, struct job *master, uint32_t task);

/* The array_task_split event: task 'task' leaves the pending tasks of
 * 'master' as job 'new_job_id' (a copy of the master's record), or, with
 * 'new_job_id' 0 when it is the last, the master becomes that task.
 * Returns 0, or -1 when the event does not fit the record (not a master,
 * the task not pending, 0 while others pend, an id in use). */
int array_split_apply(struct ctld *ctld, struct job *master, uint32_t task,
                      uint32_t new_job_id);

/* The array_throttle event: every record of array 'array_id' takes the
 * limit 'throttle' (running tasks; 0: none), as Slurm keeps it on the
 * master and each task. */
void array_throttle_apply(struct ctld *ctld, uint32_t array_id,
                          uint32_t throttle);

/* Split off the next task of master 'master' that may start (its
 * aftercorr dependencies hold), asking for another scheduling pass for
 * the rest.  NULL if none may start now. */
struct job *array_start_next(struct ctld *ctld, struct job *master);

/* Record of task 'task' of array 'array_id' that has been split off (or
 * the master once it is that task); NULL if none. */
struct job *array_find_task(struct ctld *ctld, uint32_t array_id,
                            uint32_t task);

/* job_cancel for arrays: "job_id" naming an array master cancels the
 * whole array; "array_tasks" ("7", "1-10") cancels those tasks.  Returns
 * true when it handled (and answered) the request, false to let the
 * plain handler run.
 */
bool array_cancel_rpc(struct ctld *ctld, proto_req_t *req);

/* job_update with "array_throttle": scontrol update JobId=N
 * ArrayTaskThrottle=M.  Returns true when it handled the request. */
bool array_update_rpc(struct ctld *ctld, proto_req_t *req);

/* After replay: split-off task records share the master's script. */
void array_restore_launch(struct ctld *ctld);

#endif /* !DROVER_CTLD_ARRAY_H */
