/* SPDX-License-Identifier: Apache-2.0
 *
 * jobview.h - derived values of a job record, shared by squeue and scontrol
 *
 * A job record is the controller's job_info object (docs/protocol.md).
 * These helpers turn it into what Slurm's commands show: the job id with its
 * array suffix, time used, the node list of a finished job, the end time of
 * a running one.
 */
#ifndef DROVER_CMD_LIB_JOBVIEW_H
#define DROVER_CMD_LIB_JOBVIEW_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <stdbool.h>
#include <jansson.h>

/* "8379", "8385_0" or "8385_[2-7%2]" (squeue %i).  Returns buf. */
char *job_view_id(const json_t *job, char *buf, size_t size);

/* The job's own id ("job_id"). */
uint32_t job_view_job_id(const json_t *job);

/* True when the record is part of a job array. */
int job_view_is_array(const json_t *job);

/* User and group names: the record's, else the local system's. */
const char *job_view_user(const json_t *job);
const char *job_view_group(const json_t *job);

/* Seconds the job has run, as squeue's job_time_used(): 0 while pending,
 * now - start while running, end - start once ended.
 */
int64_t job_view_time_used(const json_t *job, time_t now);

/* Time limit in seconds; TIME_INFINITE when unlimited or absent. */
int64_t job_view_time_limit(const json_t *job);

/* End time: the record's, or start + limit for a running job whose record
 * has none.  0 when unknown.
 */
time_t job_view_end_time(const json_t *job);

/* Allocated node list: "nodes", or for an ended job "last_nodes".
 * Borrowed; "" when none.
 */
const char *job_view_nodes(const json_t *job);

/* The batch host: the record's "batch_host", else the first allocated
 * node; NULL while pending.  Caller frees.
 */
char *job_view_batch_host(const json_t *job);

/* Node count: requested minimum while pending, allocated count after. */
uint32_t job_view_node_count(const json_t *job);

/* CPU count ("num_cpus", else tasks * cpus per task). */
uint32_t job_view_cpus(const json_t *job);

/* Minimum memory per node or per CPU in MiB; *per_cpu says which. */
uint64_t job_view_min_memory(const json_t *job, int *per_cpu);

/* CPUs per node the job asked for (Slurm's pn_min_cpus). */
uint32_t job_view_min_cpus(const json_t *job);

/* The pending reason, or "None". */
const char *job_view_reason(const json_t *job);

/* squeue -r: replace each pending array record in 'jobs' (a JSON array,
 * modified in place) by one record per pending task, with array_task_id
 * set and no array_task_str.  Records keep the controller's order. */
void job_view_expand_arrays(json_t *jobs);

/* True when task 'task' is among the pending tasks of array record
 * 'job' (its "array_pending" set). */
bool job_view_task_pending(const json_t *job, long task);

#endif /* !DROVER_CMD_LIB_JOBVIEW_H */
