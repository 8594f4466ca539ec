/* SPDX-License-Identifier: Apache-2.0
 *
 * mail_env.h - the environment slurmctld 22.05 gives MailProg (mail.h)
 *
 * Only SLURM_* variables, as recorded from a real slurmctld 22.05.8
 * (tests/e2e/data/mail_reference.txt): SLURM_JOB_ID, SLURM_JOBID,
 * SLURM_JOB_NAME, SLURM_JOB_USER/UID, SLURM_JOB_GROUP/GID,
 * SLURM_JOB_ACCOUNT, SLURM_JOB_PARTITION, SLURM_JOB_NODELIST (with
 * SLURM_JOB_NUM_NODES and SLURM_JOB_CPUS_PER_NODE once it ran),
 * SLURM_JOB_STATE, SLURM_JOB_MAIL_TYPE ("Began", "Ended"...),
 * SLURM_JOB_QUEUED_TIME (BEGIN) or SLURM_JOB_RUN_TIME, SLURM_JOB_EXIT_CODE*
 * (END, FAIL), SLURM_JOB_RESTART_COUNT, SLURM_JOB_STDIN (batch jobs),
 * SLURM_JOB_WORK_DIR, SLURM_CLUSTER_NAME and an array's SLURM_ARRAY_*.
 */
#ifndef DROVER_CTLD_MAIL_ENV_H
#define DROVER_CTLD_MAIL_ENV_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "ctld/ctld.h"

/* What one mail is about.  For an array summary 'job' is the array's
 * master record and the state and exit codes are its tasks'. */
struct mail_what {
    const struct job *job;
    uint32_t type;       /* one MAIL_* bit */
    time_t now;
    bool summary;
    bool exit_zero;      /* TIMEOUT: mailed by Slurm at the timeout,
                          * before the job's status is known: 0 */
    const char *state;   /* NULL: the job's */
    int exit_min, exit_max;
    int max_signal;      /* a summary's: a cancel counts as SIGKILL */
};

/* The environment of the mail 'w' whose subject shows 'secs' (-1: none):
 * a NULL-terminated array of "NAME=value" strings, each and the array
 * malloc'd (prog_run_start() takes it). */
char **mail_env(const struct ctld *ctld, const struct mail_what *w,
                int64_t secs);

#endif /* !DROVER_CTLD_MAIL_ENV_H */
