/* SPDX-License-Identifier: Apache-2.0
 *
 * mail.h - job mail, as Slurm's MailProg: --mail-type/--mail-user
 *
 * A subscriber of ctld_apply() (event.h): the job events a --mail-type
 * asks for (BEGIN at job_started, END/FAIL at job_ended or
 * job_cancelled, REQUEUE at job_requeued, INVALID_DEPEND when the gate
 * finds a dependency that can never be satisfied) run slurm.conf's
 * MailProg (default /bin/mail) as
 *     MailProg -s SUBJECT RECIPIENT
 * with Slurm 22.05's subject (common/mailtype.h) and SLURM_JOB_*
 * environment, as SlurmUser, stdin/stdout/stderr on /dev/null.  The
 * TIME_LIMIT_50/80/90 mails come from a check every MAIL_CHECK_MS of the
 * running jobs that ask for them; TIME_LIMIT when a job ends TIMEOUT.
 *
 * Rules (slurmctld 22.05.8, tests/e2e/data/mail_reference.txt): a job
 * ending COMPLETED or CANCELLED mails END; any other end mails FAIL only.
 * An array without ARRAY_TASKS mails one "Began" summary when its first
 * task starts and one summary once all its tasks ended; with
 * ARRAY_TASKS each task mails for itself.
 *
 * Never blocks the loop: uv_spawn, the exit reaped by libuv, a child
 * killed after MAIL_TIMEOUT_S, at most MAIL_RUN_MAX_CHILDREN at once (the
 * rest wait in order; prog_run.h).  A MailProg that cannot run is a log
 * line per mail,
 * never a failure of the job.  Replayed events (a restart, a Raft
 * follower) notify no subscriber, so they send nothing again; after a
 * restart or a takeover the time-limit shares already passed are marked
 * sent without mail.
 */
#ifndef DROVER_CTLD_MAIL_H
#define DROVER_CTLD_MAIL_H

#include "ctld/ctld.h"
#include "ctld/event.h"

#define MAIL_CHECK_MS 2000     /* the TIME_LIMIT_50/80/90 check */
#define MAIL_TIMEOUT_S 60      /* a MailProg still running is killed */

/* Start the time-limit check.  Returns 0, or -1 with 'error' set. */
int mail_init(struct ctld *ctld, drv_error_t *error);

/* Free what is left after the loop closed its handles (children still
 * running are not waited for).  NULL-safe on a ctld without it. */
void mail_fini(struct ctld *ctld);

/* The subscriber (event.c's list). */
void mail_event(struct ctld *ctld, const struct ctld_event *ev);

/* Before a job_requeued event is applied (ctld_apply(), not replaying):
 * REQUEUE, with the run time of the run it ends. */
void mail_requeue(struct ctld *ctld, const struct ctld_event *ev);

/* The recipient when --mail-user was not given, as Slurm's: the job's user
 * name, "@MailDomain" appended when MailDomain= is set.  New string. */
char *mail_default_user(const struct ctld *ctld, const struct job *job);

/* Is 'user' a recipient MailProg may be given?  One that begins with '-'
 * would be read as an option by mail(1) (s-nail's -S runs commands, as
 * SlurmUser), so it is refused: -1 with errno EINVAL and 'error' naming
 * it; 0 otherwise (NULL too).  A Drover rule: Slurm 22.05 passes it. */
int mail_check_user(const char *user, drv_error_t *error);

/* job_submit: mail_check_user() of the job's --mail-user, then a job with
 * a --mail-type and no --mail-user gets the default recipient (scontrol
 * show job shows it, as Slurm).  Returns 0, or -1 with errno and 'error'
 * set. */
int mail_submit(const struct ctld *ctld, struct job *job, drv_error_t *error);

#endif /* !DROVER_CTLD_MAIL_H */
