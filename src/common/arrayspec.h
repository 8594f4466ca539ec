/* SPDX-License-Identifier: Apache-2.0
 *
 * arrayspec.h - job array index expressions (sbatch --array)
 *
 * "0-99", "1,3,5-9", "0-15:4", "0-19%5": comma-separated indexes and
 * ranges, a range with an optional ":step", and an optional "%N" at the
 * end limiting how many tasks run at once (Slurm's syntax).
 */
#ifndef DROVER_COMMON_ARRAYSPEC_H
#define DROVER_COMMON_ARRAYSPEC_H

#include <stdint.h>

#include "common/bitmap.h"
#include "common/error.h"

/* Slurm's task id of an array record that stands for tasks not started
 * yet (NO_VAL - 1); %a expands to it. */
#define ARRAY_TASK_NONE 4294967294u

/* Parse 'spec'.  Every index must be below 'max_size' (MaxArraySize: as
 * Slurm, indexes run 0..MaxArraySize-1).  Returns a new bitmap of
 * (largest index + 1) bits holding the indexes (free with
 * bitmap_destroy()), and the throttle in '*throttle' (0 = none; may be
 * NULL).  NULL with errno:
 *   EINVAL  syntax error or no index; 'error' says where
 *   ERANGE  an index >= max_size
 *   ENOMEM
 */
bitmap_t *array_spec_parse(const char *spec, uint32_t max_size,
                           uint32_t *throttle, drv_error_t *error);

/* Format a task set as Slurm's clients show a pending array: "2-7", or
 * "2-7%2" with a throttle; one progression with a step above 1 folds to
 * "4-12:4"; a list of ranges longer than 61 characters is cut to its
 * first 60 and "..." (Slurm's SLURM_BITSTR_LEN default of 64).  Caller
 * frees.  NULL on ENOMEM. */
char *array_spec_fmt(const bitmap_t *tasks, uint32_t throttle);

/* SLURM_ARRAY_TASK_STEP of a set: the common difference when the indexes
 * form one arithmetic progression, else 1 (also for fewer than 2). */
uint32_t array_spec_step(const bitmap_t *tasks);

#endif /* !DROVER_COMMON_ARRAYSPEC_H */
