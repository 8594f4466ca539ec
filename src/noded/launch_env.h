/* SPDX-License-Identifier: Apache-2.0
 *
 * launch_env.h - the environment of a batch script, as Slurm sets it
 */
#ifndef DROVER_NODED_LAUNCH_ENV_H
#define DROVER_NODED_LAUNCH_ENV_H

#include <jansson.h>

struct noded;

/* The submit environment ("launch"."env") overlaid with SLURM_* variables
 * (SLURM_JOB_ID, SLURM_JOB_NODELIST, SLURM_NTASKS, ...), and GPU variables
 * (CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL, SLURM_JOB_GPUS) naming the
 * GPUs allocated on this node: SLURM_JOB_GPUS by the node's indices, the
 * other two by them too, or from 0 when the job's cgroup hides the other
 * GPUs (ConstrainDevices, as Slurm).  NULL-terminated "K=V" strings; caller frees
 * each and the array.
 */
char **launch_env_build(struct noded *nd, json_t *job);

#endif /* !DROVER_NODED_LAUNCH_ENV_H */
