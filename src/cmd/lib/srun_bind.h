/* SPDX-License-Identifier: Apache-2.0
 *
 * srun_bind.h - srun's --cpu-bind, --gpu-bind and --hint
 *
 * Each comes from its option, else from the variable Slurm's srun reads
 * (SLURM_CPU_BIND, SLURM_GPU_BIND, SLURM_HINT), is checked
 * (common/cpubind.h) and goes to the controller in step_create as
 * "cpu_bind", "gpu_bind" and "hint", which passes them to every node in
 * step_launch; droverstepd binds each task (src/noded/affinity.h).
 */
#ifndef DROVER_CMD_LIB_SRUN_BIND_H
#define DROVER_CMD_LIB_SRUN_BIND_H

#include <stdio.h>
#include <jansson.h>

/* 'extra' (borrowed): the options passed on, keyed "cpu_bind",
 * "gpu_bind", "hint" (sbatch_opt.c); the values go into 'req'
 * (borrowed, the step_create keys).  --cpu-bind=help prints the types
 * to 'out' and returns 0; a bad variable gets "srun: error: ..." on
 * 'err' and 255.  Returns -1 to go on, else srun's exit status. */
int srun_bind_options(json_t *extra, json_t *req, FILE *out, FILE *err);

#endif /* !DROVER_CMD_LIB_SRUN_BIND_H */
