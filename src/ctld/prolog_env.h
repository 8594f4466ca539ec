/* SPDX-License-Identifier: Apache-2.0
 *
 * prolog_env.h - the environment of slurm.conf Prolog= and Epilog= for a
 * job on one of its nodes
 *
 * The controller knows the job; droverd runs the scripts (noded/prolog.h)
 * with what the launch or the end-of-job message carries, plus
 * SLURMD_NODENAME, SLURM_CONF and SLURM_SCRIPT_CONTEXT.  The names are
 * those slurm.conf(5) lists for Prolog/Epilog in Slurm 22.05, with the
 * GPU variables its gres plugins add (so that an MPS prolog, as Slurm's
 * etc/prolog.example, sees CUDA_VISIBLE_DEVICES and
 * CUDA_MPS_ACTIVE_THREAD_PERCENTAGE).
 */
#ifndef DROVER_CTLD_PROLOG_ENV_H
#define DROVER_CTLD_PROLOG_ENV_H

#include <stdint.h>

#include <jansson.h>

#include "ctld/ctld.h"

/* "NAME=value" strings for 'job' on the node of its allocation's entry
 * 'e': SLURM_JOB_ID (and SLURM_JOBID), SLURM_JOB_USER, SLURM_JOB_UID,
 * SLURM_JOB_GID, SLURM_JOB_PARTITION, SLURM_JOB_ACCOUNT (when set),
 * SLURM_JOB_NODELIST, SLURM_CLUSTER_NAME, SLURM_JOB_CONSTRAINTS (when
 * -C), and with GPUs there SLURM_JOB_GPUS and CUDA_VISIBLE_DEVICES (the
 * node's indexes: the scripts run outside the job's cgroup), with
 * gres/mps CUDA_MPS_ACTIVE_THREAD_PERCENTAGE.  NULL when slurm.conf has
 * neither Prolog nor Epilog (nothing to send) or the job has no
 * allocation.  Caller owns the array. */
json_t *prolog_env_json(const struct ctld *ctld, const struct job *job,
                        uint32_t e);

/* Milliseconds to wait for a node's answer that comes only once its
 * Prolog ended (batch_launch with a Prolog=, job_prolog): the Prolog's
 * PrologEpilogTimeout plus twice MessageTimeout, or a day when
 * PrologEpilogTimeout is 0 (Slurm's: no limit). */
int prolog_answer_timeout_ms(const struct slurm_conf *c);

#endif /* !DROVER_CTLD_PROLOG_ENV_H */
