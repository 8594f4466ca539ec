/* SPDX-License-Identifier: Apache-2.0
 *
 * srun_env.h - what srun passes of its own process to the tasks, as
 * Slurm 22.05's srun: resource limits (--propagate, slurm.conf
 * PropagateResourceLimits/PropagateResourceLimitsExcept), its umask
 * (SLURM_UMASK) and nice value (SLURM_PRIO_PROCESS), and -E's counts.
 */
#ifndef DROVER_CMD_LIB_SRUN_ENV_H
#define DROVER_CMD_LIB_SRUN_ENV_H

#include <stdio.h>

#include <jansson.h>

#include "conf/conf.h"

/* The limits to propagate (rlimits.h bits): --propagate's list when
 * given ('given'; 'list' NULL or "" for ALL), else slurm.conf's
 * PropagateResourceLimitsExcept (every limit but those) or
 * PropagateResourceLimits (default ALL).  Returns 0, or -1 after Slurm's
 * "srun: error: --propagate=LIST is not valid." on 'err'.
 */
int srun_propagate_mask(bool given, const char *list,
                        const struct slurm_conf *conf, unsigned *mask,
                        FILE *err);

/* srun's soft limits in 'mask' as step_create's "rlimits":
 * {"CORE":N,...}, -1 for unlimited.  New reference. */
json_t *srun_rlimits_json(unsigned mask);

/* SLURM_UMASK (srun's umask, "0022") and SLURM_PRIO_PROCESS (its nice
 * value) in srun's environment, which the tasks get, unless already set
 * (a job's srun inherits its batch script's, as in Slurm). */
void srun_env_umask_prio(void);

#endif /* !DROVER_CMD_LIB_SRUN_ENV_H */
