/* SPDX-License-Identifier: Apache-2.0
 *
 * alloc.h - interactive allocations: what salloc and srun (outside a job)
 * share
 *
 * alloc_create() submits an allocation-only job ("interactive":true,
 * docs/protocol.md), prints Slurm's lines while it waits, and returns once
 * the job runs.  It learns that by polling job_info: first after 50 ms,
 * then every 0.2 s growing to 1 s; a pending job whose pending reason is
 * still "None" has not been looked at by the scheduler yet, so nothing is
 * printed about it until it has (or 1 s passed): a grant that comes at
 * once reads as Slurm's immediate grant.
 */
#ifndef DROVER_CMD_LIB_ALLOC_H
#define DROVER_CMD_LIB_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "cmd/lib/sbatch_opt.h"

/* Submit job description 'desc' (stolen; from sbatch_opts_job_desc()) for
 * command o->prog and wait until it runs, printing Slurm's lines:
 * salloc's "Pending job allocation N", "job N queued and waiting for
 * resources", "job N has been allocated resources", "Granted job
 * allocation N" (srun prints only the two middle ones), the refusal of a
 * submission, -I's "Requested nodes are busy" (o->immediate seconds),
 * cancellation while pending, and SIGINT/SIGTERM/SIGHUP while pending
 * (the job is cancelled).  Returns the running job's job_info object
 * (caller json_decref()s), or NULL with *rc the exit status to end with.
 */
json_t *alloc_create(const struct sbatch_opts *o, json_t *desc, int *rc);

/* --test-only (srun): the controller plans 'desc' (stolen) without
 * queueing it;
 * prints Slurm's "srun: Job N to start at TIME using N processors on
 * nodes LIST in partition P" on stderr (the job id is the one a real
 * submission would have got).  Returns 0, or 1 after Slurm's
 * "Unable to allocate resources" error.
 */
int alloc_test_only(const struct sbatch_opts *o, json_t *desc);

/* Put the job's variables into this process's environment, as Slurm's
 * salloc and srun do for the command (SLURM_JOB_ID, SLURM_JOBID,
 * SLURM_JOB_NAME, SLURM_JOB_NODELIST, SLURM_NODELIST, SLURM_NNODES,
 * SLURM_JOB_NUM_NODES, SLURM_JOB_CPUS_PER_NODE, SLURM_TASKS_PER_NODE,
 * SLURM_NTASKS/SLURM_NPROCS with -n, SLURM_CPUS_PER_TASK with -c,
 * SLURM_JOB_PARTITION, SLURM_SUBMIT_DIR, SLURM_SUBMIT_HOST,
 * SLURM_CLUSTER_NAME, SLURM_MEM_PER_NODE/CPU, SLURM_JOB_ACCOUNT/QOS,
 * SLURM_DISTRIBUTION and SLURM_DIST_PLANESIZE with -m).
 * 'job' is alloc_create()'s answer.
 */
void alloc_set_env(const struct sbatch_opts *o, const json_t *job);

/* Give allocation 'job_id' back (job_release) with the command's raw wait
 * status: the job ends COMPLETED (0) or FAILED.  salloc prints
 * "Relinquishing job allocation N" first ('announce').  Returns 0, or -1
 * when the controller refused (the job had already ended).
 */
int alloc_release(const char *prog, uint32_t job_id, int status,
                  bool announce);

/* How often (ms) the allocation's command tells the controller it is
 * alive (job_alive): a third of slurm.conf's InactiveLimit, from 1 s to
 * 30 s; 0 when InactiveLimit is 0 (nothing watched). */
int alloc_alive_interval_ms(const char *prog);

/* Tell the controller that the command of allocation 'job_id' is alive
 * (job_alive).  Returns 0, or -1 with errno (the allocation is gone:
 * the caller's next look says so). */
int alloc_alive(const char *prog, uint32_t job_id);

/* One look at a granted job: 0 while it runs, else -1 after printing
 * salloc's "Job N has exceeded its time limit and its allocation has been
 * revoked." or "Job allocation N has been revoked." ('prog' prefix).
 * A controller that does not answer counts as running.
 */
int alloc_check(const char *prog, uint32_t job_id);

/* The short host name (up to the first dot), for "submit_host".  Caller
 * frees. */
char *alloc_submit_host(void);

/* "4(x2),2": Slurm's compressed list of 'n' counts.  Caller frees. */
char *alloc_counts_fmt(const int64_t *counts, size_t n);

#endif /* !DROVER_CMD_LIB_ALLOC_H */
