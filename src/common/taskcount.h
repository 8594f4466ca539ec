/* SPDX-License-Identifier: Apache-2.0
 *
 * taskcount.h - Slurm's compressed per-node counts, "2(x3),1"
 *
 * The form of SLURM_TASKS_PER_NODE and SLURM_STEP_TASKS_PER_NODE: each
 * item is a count, optionally followed by "(xN)" to repeat it N times.
 */
#ifndef DROVER_COMMON_TASKCOUNT_H
#define DROVER_COMMON_TASKCOUNT_H

#include <stddef.h>
#include <stdint.h>

/* Expand 's' into counts[] (room for 'max').  Returns the number of
 * nodes (0 for ""), or -1 when 's' is malformed or has more than 'max'.
 */
int taskcount_decode(const char *s, uint32_t *counts, size_t max);

/* The compressed form of counts[0..n-1]: runs of equal counts as
 * "C(xN)", a single one as "C" ("2(x3),1"; "" for n 0).  Caller frees.
 */
char *taskcount_encode(const int64_t *counts, size_t n);

#endif /* !DROVER_COMMON_TASKCOUNT_H */
