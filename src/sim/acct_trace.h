/* SPDX-License-Identifier: Apache-2.0
 *
 * acct_trace.h - Drover's own accounting as a trace to replay: the output
 * of `sacct --json` (Slurm's v0.0.38 shape, docs/json.md; what Slurm's
 * sacct --json prints too) read into a struct swf_trace.
 *
 * Each job record becomes one swf_job (steps are ignored):
 *   id        job_id
 *   submit    time.submission, relative to the first kept job's
 *   run       time.end - time.start: the time it held its nodes
 *             (time.elapsed, which leaves suspended time out, is not used)
 *   estimate  time.limit (minutes) x 60; the run time when unlimited (0)
 *   procs     required.CPUs (else the cpu of tres.requested, else of
 *             tres.allocated): the job's tasks x CPUs per task
 *   nodes     the node count of tres.requested when over 1, else 0
 *   mem_per_cpu_mib  the mem of tres.requested (MiB, the whole job's)
 *             over procs, rounded down (at least 1): the record does
 *             not say whether it was asked per node or per CPU
 *   gpus      the gres/gpu count of tres.requested
 *   part      partition ("" or absent: 0, the default partition)
 *   user      user, numbered in order of first appearance from 0; the
 *             names in swf_trace.users
 *   group     account ("" when absent), numbered likewise; the names in
 *             swf_trace.accounts (the association under multifactor)
 *   status    1 for COMPLETED, 0 otherwise (as SWF's field 11)
 *   alloc_procs, req_procs  the cpu of tres.allocated, procs
 *   wait      time.start - time.submission
 * Jobs are sorted by job id (the controller's submission order).
 */
#ifndef DROVER_SIM_ACCT_TRACE_H
#define DROVER_SIM_ACCT_TRACE_H

#include <stddef.h>

#include "common/error.h"
#include "sim/swf.h"

/* How many bad records are named on stderr before the rest are only
 * counted. */
#define ACCT_TRACE_NAMED_MAX 20

/* Read sacct --json output from the file at 'path' ("-": standard input)
 * into *out (caller frees with swf_trace_free()).  Jobs that never
 * started (cancelled while pending) or have not ended yet are counted in
 * out->skipped; a record that is not a job object or lacks a field the
 * replay needs (job_id, time.submission, a CPU count; an end before its
 * start) is named on stderr ("SOURCE: jobs[I] (JobId=N): what is wrong,
 * skipped", the first ACCT_TRACE_NAMED_MAX) and counted in
 * out->malformed.
 * Returns 0, or -1 with errno (ENOENT, EACCES ... from opening it;
 * EINVAL: not JSON, or no "jobs" array; ENOMEM) and the reason in
 * 'error' (may be NULL), naming the file and, for bad JSON, the line and
 * column; *out is then empty.
 */
int acct_trace_read(const char *path, struct swf_trace *out,
                    drv_error_t *error);

/* As acct_trace_read(), from the 'len' bytes of 'text' (need not be
 * NUL-terminated); 'source' names them in messages.
 */
int acct_trace_parse(const char *text, size_t len, const char *source,
                     struct swf_trace *out, drv_error_t *error);

#endif /* !DROVER_SIM_ACCT_TRACE_H */
