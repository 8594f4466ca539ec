/* SPDX-License-Identifier: Apache-2.0
 *
 * rlimits.h - the resource limits srun propagates to its tasks
 *
 * Slurm's srun --propagate and slurm.conf PropagateResourceLimits /
 * PropagateResourceLimitsExcept name the limits without "RLIMIT_" (AS,
 * CORE, CPU, DATA, FSIZE, MEMLOCK, NOFILE, NPROC, RSS, STACK), or ALL or
 * NONE.  A set of them is a bit mask over rlimit_table's rows.
 */
#ifndef DROVER_COMMON_RLIMITS_H
#define DROVER_COMMON_RLIMITS_H

#include <stddef.h>

struct rlimit_row {
    const char *name; /* "CORE" */
    int resource;     /* RLIMIT_CORE */
};

/* In Slurm's order (its -vv "propagating RLIMIT_..." lines). */
#define RLIMIT_ROWS 10
extern const struct rlimit_row rlimit_table[RLIMIT_ROWS];

/* Every row's bit. */
#define RLIMITS_ALL ((1u << RLIMIT_ROWS) - 1)

/* Parse a comma-separated list of names (case-insensitive, "RLIMIT_"
 * prefix allowed), "ALL" or "NONE" into *mask.  Returns 0, or -1 with
 * *bad pointing at the first unknown name in 'list' (not terminated at
 * the comma).  As Slurm's parse_rlimits().
 */
int rlimits_parse(const char *list, unsigned *mask, const char **bad);

#endif /* !DROVER_COMMON_RLIMITS_H */
