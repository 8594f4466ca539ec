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

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

/* --cpu-bind=help (or SLURM_CPU_BIND=help): print the types to 'out'
 * and return true (srun exits 0, needing no command, as Slurm's). */
bool srun_bind_help(json_t *extra, FILE *out);

/* 'extra' (borrowed): the options passed on, keyed "cpu_bind",
 * "gpu_bind", "hint" (sbatch_opt.c); the values go into 'req'
 * (borrowed, the step_create keys).  A bad variable gets
 * "srun: error: ..." on 'err' and 255.  Returns -1 to go on, else
 * srun's exit status. */
int srun_bind_options(json_t *extra, json_t *req, FILE *err);

#endif /* !DROVER_CMD_LIB_SRUN_BIND_H */
