/* SPDX-License-Identifier: Apache-2.0
 *
 * job_info.h - the job object commands see (docs/protocol.md)
 */
#ifndef DROVER_CTLD_JOB_INFO_H
#define DROVER_CTLD_JOB_INFO_H

#include <stdint.h>
#include <time.h>
#include <jansson.h>

#include "proto/jsonw.h"

struct ctld;
struct job;

/* The job record plus what commands derive from it: node_count, num_cpus,
 * batch_host, exit_code ("0:0"), TRES strings, expanded std_out/err/in,
 * the allocation with CPU ids.  New reference.
 */
json_t *job_info_json(struct ctld *ctld, const struct job *job, time_t now);

/* CPUs of 'job': allocated while it holds an allocation, else requested
 * (tasks x cpus-per-task).  '*gpus' and '*mem' (MiB) get the matching
 * totals over all its nodes.
 */
uint32_t job_info_cpus(const struct job *job, uint32_t *gpus, uint64_t *mem);

/* gres/shard (or gres/mps: job_info_share()) of 'job' over all its nodes:
 * allocated while it holds an allocation, else requested (per node x
 * nodes). */
uint32_t job_info_shards(const struct job *job);

/* What the job's shares are: "mps" for --gres=mps:N, else "shard". */
const char *job_info_share(const struct job *job);

/* A raw wait status as Slurm's ExitCode= "exit:signal" ("3:0", "0:9").
 * Caller frees. */
char *job_info_exit_code(int status);

/* CUDA_MPS_ACTIVE_THREAD_PERCENTAGE of the job's entry i (not node index)
 * as Slurm computes it: its mps count on that GPU x 100 / the GPU's mps
 * count, at least 1; 0 when the entry has no mps. */
uint32_t job_info_mps_percent(const struct ctld *ctld, const struct job *job,
                              uint32_t i);

/* As job_info_cpus() for the request alone (allocated or not). */
uint32_t job_info_req_cpus(const struct job *job, uint32_t *gpus,
                           uint64_t *mem);

/* The keys a job_info request asks for ("fields"), resolved once. */
struct job_info_plan;

/* Resolve 'fields' (a JSON array of key names; unknown names are
 * skipped).  NULL when 'fields' is not an array: answer in full.
 */
struct job_info_plan *job_info_plan_create(json_t *fields);

/* NULL is a no-op. */
void job_info_plan_destroy(struct job_info_plan *plan);

/* The columns of a "rows" answer for 'plan': the keys asked for, fields
 * first (a derived key's group writes more keys as object members; a row
 * drops them).  Returns their count; *keys is the plan's (static
 * strings). */
size_t job_info_plan_columns(const struct job_info_plan *plan,
                             const char *const **keys);

/* Put the keys in 'plan' of 'job' into 'out' (a listing written
 * straight into the answer: rpc_job_info).  A key is written once: the
 * plan holds each record field or derived group once, and no two write
 * the same key. */
void job_info_put_plan(struct ctld *ctld, const struct job *job,
                       const struct job_info_plan *plan,
                       const struct jsonw_sink *out);

/* Only the keys in 'plan' (and, for keys derived together such as the
 * expanded std_out/std_err/std_in, the rest of their group) with the
 * values job_info_json() gives them.  New reference.
 */
json_t *job_info_json_plan(struct ctld *ctld, const struct job *job,
                           const struct job_info_plan *plan);

#endif /* !DROVER_CTLD_JOB_INFO_H */
