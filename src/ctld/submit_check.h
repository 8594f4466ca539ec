/* SPDX-License-Identifier: Apache-2.0
 *
 * submit_check.h - job_submit's placement checks, --begin, partition
 * limits that make a job pend, and the --test-only answer
 */
#ifndef DROVER_CTLD_SUBMIT_CHECK_H
#define DROVER_CTLD_SUBMIT_CHECK_H

#include <stdbool.h>
#include <time.h>
#include <jansson.h>

#include "ctld/ctld.h"

/* The script of job_submit body 'body' against
 * SchedulerParameters=max_script_size (EDRV_PATHNAME_TOO_LONG); the
 * server checked the rest of the body against its schema
 * (proto/schema_msgs.c) before the handler ran.  Returns 0, or -1 with
 * errno set and 'error' naming the key.
 */
int submit_check_script(const struct ctld *ctld, json_t *body,
                      drv_error_t *error);

/* Checks of a new job against partition 'part', run after the partition
 * is chosen and before the "could it ever run" check:
 *  -w/-x node names known (EDRV_INVALID_NODE_NAME), -w nodes inside the
 *  partition (EDRV_REQUESTED_NODES_NOT_IN_PARTITION), -C well formed and
 *  naming only features some node has (EDRV_INVALID_FEATURE).
 * Limits over the partition's MaxTime / MaxNodes make the job pend with
 * PartitionTimeLimit / PartitionNodeLimit (Slurm's EnforcePartLimits=NO).
 * Returns 0, or -1 with errno set and the reason in 'error'.
 */
int submit_check_place(struct ctld *ctld, struct job *job,
                       const struct ctld_partition *part, drv_error_t *error);

/* -C expression 'expr' (NULL: none) well formed and naming only features
 * some node has.  Returns 0, or -1 with errno EDRV_INVALID_FEATURE and the
 * reason in 'error'.
 */
int submit_check_features(struct ctld *ctld, const char *expr,
                          drv_error_t *error);

/* Set job->reason to PartitionTimeLimit / PartitionNodeLimit when the job
 * is over the MaxTime / MaxNodes of 'part' (leaves it alone otherwise).
 */
void submit_check_part_limits(struct job *job,
                              const struct ctld_partition *part);

/* A pending job's partition limits judged again (its partition or node
 * count changed, or the partition did: scontrol update): a
 * PartitionTimeLimit or PartitionNodeLimit reason is cleared, and a job
 * with no other reason gets the one its partition's limits give now. */
void submit_check_part_again(struct job *job,
                             const struct ctld_partition *part);

/* --begin: a begin time after 'now' becomes the eligible time, with
 * reason BeginTime unless the job is held.  Call after submit_time and
 * eligible_time are set.
 */
void submit_check_begin(struct job *job, time_t now);

/* True if 'job' pends because a node it requires (-w) cannot take jobs
 * (drained, down, not responding): Slurm's ReqNodeNotAvail.
 */
bool submit_req_node_unavail(const struct job *job,
                             const struct node_table *nt);

/* The --test-only answer for 'job' (validated, not queued), which would
 * get id 'job_id': {"job_id","start_time","cpus","nodes","partition"}
 * planned by a scheduling pass over the current queue with the job added
 * behind every queued job; start_time -1 when no start can be planned.
 * New reference, or NULL with errno: EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE
 * or EDRV_INVALID_TIME_LIMIT (the job would pend for a partition limit),
 * ENOMEM.
 */
json_t *submit_will_run(struct ctld *ctld, struct job *job, uint32_t job_id,
                        time_t now);

#endif /* !DROVER_CTLD_SUBMIT_CHECK_H */
