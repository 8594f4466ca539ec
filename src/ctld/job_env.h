/* SPDX-License-Identifier: Apache-2.0
 *
 * job_env.h - building the SLURM_JOB_* environment of a program the
 * controller runs for a job: MailProg (mail_env.h), PrologSlurmctld and
 * EpilogSlurmctld (prolog_ctld.h)
 */
#ifndef DROVER_CTLD_JOB_ENV_H
#define DROVER_CTLD_JOB_ENV_H

#include <stddef.h>

#include "ctld/job.h"

/* A growing NULL-terminated array of "NAME=value" strings; start from
 * {0}.  'v' (each string and the array malloc'd) is the caller's once
 * built (prog_run_start() takes it). */
struct job_env {
    char **v;
    size_t n, cap;
};

/* Append NAME=value, the value printf-formatted.  Never fails
 * (allocation failure aborts, xalloc.h). */
void job_env_add(struct job_env *e, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* An array job's SLURM_ARRAY_JOB_ID, _TASK_COUNT, _TASK_ID (a task),
 * _TASK_MAX, _TASK_MIN and _TASK_STEP, as slurmctld 22.05; nothing for
 * another job. */
void job_env_array(struct job_env *e, const struct job *job);

/* SLURM_JOB_NODELIST (its nodes, or its last run's; "(null)" when none),
 * with SLURM_JOB_CPUS_PER_NODE ("2(x3),1") and SLURM_JOB_NUM_NODES once
 * it was allocated. */
void job_env_nodes(struct job_env *e, const struct job *job);

#endif /* !DROVER_CTLD_JOB_ENV_H */
