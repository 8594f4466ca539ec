/* SPDX-License-Identifier: Apache-2.0
 *
 * acct_record.h - a job as droverdbd stores it
 *
 * The accounting job record of docs/protocol.md ("Accounting job record"),
 * built from the controller's job: what sacct shows of it.
 */
#ifndef DROVER_CTLD_ACCT_RECORD_H
#define DROVER_CTLD_ACCT_RECORD_H

#include <stdint.h>
#include <time.h>
#include <jansson.h>

struct ctld;
struct job;

/* The accounting record of 'job' now (a new reference; NULL with
 * errno=ENOMEM).  Allocated values come from the job's allocation, or
 * after it ended from the allocation it had; before it starts they are
 * empty/zero and the requested ones are filled.  Its "steps" are those
 * marked acct_dirty (step.h), whose marks it clears: droverdbd keeps the
 * steps an earlier record sent, so a job with N steps costs O(N) in
 * accounting, not O(N^2).
 */
json_t *acct_record_build(struct ctld *ctld, struct job *job);

/* The record of the run of 'job' that a requeue ends now (a new
 * reference; NULL with errno=ENOMEM): state 'state' (PREEMPTED, REQUEUED
 * or NODE_FAIL), ended at 'end' (seconds since the epoch), its running
 * steps ended as the job's end ends them (CANCELLED; the batch step with
 * 'batch_status', its script's raw wait status) and all its steps in the
 * record.  It leaves the job's state and end time as they were; the
 * steps it ends belong to the run the requeue discards.  Slurm keeps one
 * accounting record per run (sacct -D), keyed by the run's submit time.
 */
json_t *acct_record_run_ended(struct ctld *ctld, struct job *job, int state,
                              time_t end, int batch_status);

/* Slurm's accounting TRES string, keys in sacct's (alphabetical) order:
 * "billing=4,cpu=4,gres/gpu=2,gres/shard=3,mem=8000M,node=1"; zero counts
 * are left out.  'mem_mib' in MiB; 'shards' over all nodes are gres/'share'
 * ("shard" or "mps"; NULL is "shard").  Returns a malloc'ed string (caller frees).
 */
char *acct_tres_string(uint32_t cpus, uint64_t mem_mib, uint32_t nodes,
                       uint32_t gpus, const char *share, uint32_t shards);

#endif /* !DROVER_CTLD_ACCT_RECORD_H */
