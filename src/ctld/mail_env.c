/* SPDX-License-Identifier: Apache-2.0
 *
 * mail_env.c - the environment slurmctld 22.05 gives MailProg (mail_env.h)
 */
#include <stdlib.h>
#include <sys/wait.h>

#include "common/mailtype.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/job_info.h"
#include "ctld/job_env.h"
#include "ctld/mail_env.h"
#include "proto/job_state.h"

/* SLURM_JOB_EXIT_CODE* of an END or FAIL mail, as slurmctld 22.05 (a
 * summary of tasks ended by a signal: SLURM_JOB_TERM_SIGNAL_MAX). */
static void env_exit(struct job_env *e, const struct mail_what *w)
{
    int st = w->summary ? w->exit_max : w->exit_zero ? 0 : w->job->exit_status;
    char *ec;

    if (w->summary && w->max_signal) {
        job_env_add(e, "SLURM_JOB_DERIVED_EC", "0");
        job_env_add(e, "SLURM_JOB_EXIT_CODE", "0");
        job_env_add(e, "SLURM_JOB_EXIT_CODE2", "0:0");
        job_env_add(e, "SLURM_JOB_TERM_SIGNAL_MAX", "%d", w->max_signal);
        return;
    }
    ec = job_info_exit_code(st);

    job_env_add(e, "SLURM_JOB_DERIVED_EC", "0");
    job_env_add(e, "SLURM_JOB_EXIT_CODE", "%d", st);
    job_env_add(e, "SLURM_JOB_EXIT_CODE2", "%s", ec);
    job_env_add(e, "SLURM_JOB_EXIT_CODE_MAX", "%d",
            WIFEXITED(st) ? WEXITSTATUS(st) : 0);
    if (w->summary)
        job_env_add(e, "SLURM_JOB_EXIT_CODE_MIN", "%d",
                WIFEXITED(w->exit_min) ? WEXITSTATUS(w->exit_min) : 0);
    free(ec);
}

char **mail_env(const struct ctld *ctld, const struct mail_what *w,
                int64_t secs)
{
    const struct job *job = w->job;
    struct job_env e = {0};
    char t[32];

    job_env_array(&e, job);
    job_env_add(&e, "SLURM_CLUSTER_NAME", "%s",
            ctld->conf->cluster_name ? ctld->conf->cluster_name : "");
    job_env_add(&e, "SLURM_JOBID", "%u", job->id);
    job_env_add(&e, "SLURM_JOB_ACCOUNT", "%s",
            job->account ? job->account : "(null)");
    job_env_nodes(&e, job);
    if (w->type == MAIL_END || w->type == MAIL_FAIL)
        env_exit(&e, w);
    job_env_add(&e, "SLURM_JOB_GID", "%u", (unsigned)job->gid);
    job_env_add(&e, "SLURM_JOB_GROUP", "%s", job->group_name);
    job_env_add(&e, "SLURM_JOB_ID", "%u", job->id);
    job_env_add(&e, "SLURM_JOB_MAIL_TYPE", "%s", mailtype_event(w->type));
    job_env_add(&e, "SLURM_JOB_NAME", "%s", job->name ? job->name : "");
    job_env_add(&e, "SLURM_JOB_PARTITION", "%s",
            job->partition ? job->partition : "");
    if (secs >= 0)
        job_env_add(&e, w->type == MAIL_BEGIN ? "SLURM_JOB_QUEUED_TIME"
                                          : "SLURM_JOB_RUN_TIME",
                "%s", timefmt_duration(secs, 1, t, sizeof(t)));
    job_env_add(&e, "SLURM_JOB_RESTART_COUNT", "%u", job->restarts);
    job_env_add(&e, "SLURM_JOB_STATE", "%s",
            w->type == MAIL_REQUEUE ? "PENDING" : job_state_name(job->state));
    if (!job->interactive)
        job_env_add(&e, "SLURM_JOB_STDIN", "%s",
                job->std_in ? job->std_in : "/dev/null");
    job_env_add(&e, "SLURM_JOB_UID", "%u", (unsigned)job->uid);
    job_env_add(&e, "SLURM_JOB_USER", "%s", job->user_name);
    job_env_add(&e, "SLURM_JOB_WORK_DIR", "%s",
            job->work_dir ? job->work_dir : "");
    return e.v;
}
