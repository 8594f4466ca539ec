/* SPDX-License-Identifier: Apache-2.0
 *
 * explain.h - why a pending job waits, in words (Drover's "pending_explain"
 * field: scontrol -d show job's Explain=, squeue -O PendingExplain)
 *
 * Beside Slurm's one-word reason: what the job needs and when and where
 * the scheduler plans it ("needs cpu=4,gres/gpu=4 on 1 node; planned
 * 2026-11-26T14:05:00 on node03"), which reservation holds its nodes,
 * which limit holds it, what it waits for.
 */
#ifndef DROVER_CTLD_EXPLAIN_H
#define DROVER_CTLD_EXPLAIN_H

#include <time.h>

struct ctld;
struct job;

/* The explanation of pending 'job' at 'now' (caller frees), or NULL when
 * it is not pending. */
char *job_explain(struct ctld *ctld, const struct job *job, time_t now);

#endif /* !DROVER_CTLD_EXPLAIN_H */
