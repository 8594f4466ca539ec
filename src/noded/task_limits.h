/* SPDX-License-Identifier: Apache-2.0
 *
 * task_limits.h - the limits and umask srun passes to its tasks
 * (droverstepd), as Slurm 22.05's slurmstepd applies them
 */
#ifndef DROVER_NODED_TASK_LIMITS_H
#define DROVER_NODED_TASK_LIMITS_H

#include <jansson.h>

/* In a task's process, while still root: each limit of step_launch's
 * "rlimits" ({"CORE":N,...}, names of common/rlimits.h, -1 unlimited) as
 * the soft limit, the hard limit raised to it when lower (as
 * slurmstepd); then the umask SLURM_UMASK of 'envp' (octal) when set.
 * A limit that cannot be set is reported on 'err_fd' with Slurm's
 * "slurmstepd: error: Can't propagate RLIMIT_X of N from submit host:
 * REASON" and the task goes on.
 */
void task_limits_apply(json_t *rlimits, char *const *envp, int err_fd);

#endif /* !DROVER_NODED_TASK_LIMITS_H */
