/* SPDX-License-Identifier: Apache-2.0
 *
 * mail.c - job mail, as Slurm's MailProg (mail.h): which event mails what
 */
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "common/log.h"
#include "common/mailtype.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/mail.h"
#include "ctld/mail_env.h"
#include "ctld/prog_run.h"
#include "proto/job_state.h"

struct mail {
    struct prog_run *run;
    uv_timer_t timer;
    bool primed; /* the time shares passed before this controller became
                  * the one that mails are marked sent */
};

char *mail_default_user(const struct ctld *ctld, const struct job *job)
{
    const char *domain = ctld->conf->mail_domain;

    return domain ? xasprintf("%s@%s", job->user_name, domain)
                  : xstrdup(job->user_name);
}

int mail_check_user(const char *user, drv_error_t *error)
{
    if (!user || user[0] != '-')
        return 0;
    errno = EINVAL;
    return errprintf(error, "Invalid --mail-user: %s (a recipient may not "
                     "begin with '-')", user);
}

int mail_submit(const struct ctld *ctld, struct job *job, drv_error_t *error)
{
    char *dflt;

    if (mail_check_user(job->mail_user, error) < 0)
        return -1;
    if (!job->mail_type || job->mail_user)
        return 0;
    dflt = mail_default_user(ctld, job);
    job_set_str(&job->mail_user, dflt);
    free(dflt);
    return 0;
}

/* --- one mail ------------------------------------------------------------ */

/* The subject's time: queued for BEGIN, run time for the others; -1 for
 * a summary and for INVALID_DEPEND, which show none. */
static int64_t mail_secs(const struct mail_what *w)
{
    const struct job *job = w->job;

    if (w->summary || w->type == MAIL_INVALID_DEPEND)
        return -1;
    if (w->type == MAIL_BEGIN)
        return job->start_time > job->submit_time
                   ? job->start_time - job->submit_time : 0;
    if (w->type == MAIL_REQUEUE) /* called before the run is forgotten */
        return job->start_time && w->now > job->start_time
                   ? w->now - job->start_time : 0;
    return job_run_time(job, w->now);
}

static void mail_send(struct ctld *ctld, const struct mail_what *what)
{
    struct mail_what sw = *what, *w = &sw;
    const struct job *job = w->job;
    struct mail_subject m;
    char subject[MAIL_SUBJECT_MAX];
    char *to;

    if (!ctld->mail || !ctld_active(ctld))
        return;
    /* a record that still holds pending tasks speaks for the array, or
     * with ARRAY_TASKS for itself as a plain job ("Slurm Job_id=N") */
    w->summary = w->summary
                 || (job->array && job->array->task_id == ARRAY_TASK_NONE
                     && !(job->mail_type & MAIL_ARRAY_TASKS));
    m = (struct mail_subject){.type = w->type, .job_id = job->id,
                             .name = job->name, .secs = mail_secs(w),
                             .exit_status = w->exit_zero ? 0
                                                         : job->exit_status,
                             .exit_min = w->exit_min,
                             .exit_max = w->exit_max,
                             .max_signal = w->max_signal};
    m.state = w->state ? w->state : job_state_name(job->state);
    if (job->array) {
        m.array_summary = w->summary;
        m.array_task = !w->summary && job->array->task_id != ARRAY_TASK_NONE;
        m.array_job_id = job->array->job_id;
        m.array_task_id = job->array->task_id;
    }
    mail_subject_write(&m, subject, sizeof(subject));
    to = job->mail_user ? xstrdup(job->mail_user)
                        : mail_default_user(ctld, job);
    if (mail_check_user(to, NULL) == 0) { /* refused at submission already */
        char **args = xzalloc(4 * sizeof(*args));
        char *label = xasprintf("mail to %s \"%s\"", to, subject);

        args[0] = xstrdup("-s");
        args[1] = xstrdup(subject);
        args[2] = xstrdup(to);
        prog_run_start(ctld->mail->run, label, args,
                       mail_env(ctld, w, m.secs), NULL, NULL);
        free(label);
    }
    free(to);
}

static void mail_job(struct ctld *ctld, const struct job *job, uint32_t type,
                     time_t now)
{
    struct mail_what w = {.job = job, .type = type, .now = now,
                          .exit_zero = job->state == JOB_TIMEOUT};

    if (job->mail_type & type)
        mail_send(ctld, &w);
}

/* --- arrays ---------------------------------------------------------------- */

static bool per_task(const struct job *job)
{
    return !job->array || (job->mail_type & MAIL_ARRAY_TASKS);
}

static bool state_ok(int s)
{
    return s == JOB_COMPLETED || s == JOB_CANCELLED;
}

/* The first task of an array to start: one "Began" summary. */
static void array_began(struct ctld *ctld, const struct job *job, time_t now)
{
    struct job *master = ctld_job_find(ctld, job->array->job_id);
    struct mail_what w = {.job = master ? master : job, .type = MAIL_BEGIN,
                          .now = now, .summary = true};

    for (struct job *j = array_first(ctld, job->array->job_id); j;
         j = array_next(j))
        if (j != job && (j->start_time || j->run_id))
            return; /* not the first */
    if (job->mail_type & MAIL_BEGIN)
        mail_send(ctld, &w);
}

/* A record of an array ended: once all have, one summary. */
static void array_ended(struct ctld *ctld, const struct job *job, time_t now)
{
    struct job *master = ctld_job_find(ctld, job->array->job_id);
    struct mail_what w = {.job = master ? master : job, .now = now,
                          .summary = true, .exit_min = job->exit_status,
                          .exit_max = job->exit_status};
    bool failed = false;
    int sig;

    for (struct job *j = array_first(ctld, job->array->job_id); j;
         j = array_next(j)) {
        if (!job_state_is_final(j->state)
            || (j->completing && !j->cancel_requested))
            return; /* tasks still to run or to end (a cancelled one was
                     * mailed for as it was cancelled) */
        if (j->state != job->state)
            w.state = "Mixed";
        failed = failed || !state_ok(j->state);
        if (j->exit_status < w.exit_min)
            w.exit_min = j->exit_status;
        if (j->exit_status > w.exit_max)
            w.exit_max = j->exit_status;
        sig = j->state == JOB_CANCELLED ? SIGKILL
              : WIFSIGNALED(j->exit_status) ? WTERMSIG(j->exit_status) : 0;
        w.max_signal = sig > w.max_signal ? sig : w.max_signal;
    }
    w.state = w.state ? w.state : job_state_name(job->state);
    w.type = failed && (job->mail_type & MAIL_FAIL) ? MAIL_FAIL
             : (job->mail_type & MAIL_END)          ? MAIL_END
                                                    : 0;
    if (w.type)
        mail_send(ctld, &w);
}

/* --- events ---------------------------------------------------------------- */

/* The shares of the time limit run time 'run' has passed. */
static uint32_t shares_passed(const struct job *job, int64_t run)
{
    int64_t lim = job->time_limit_s;
    uint32_t b = 0;

    if (lim == TIME_INFINITE || lim <= 0)
        return 0;
    b |= run * 2 >= lim ? MAIL_TIME50 : 0;
    b |= run * 10 >= lim * 8 ? MAIL_TIME80 : 0;
    b |= run * 10 >= lim * 9 ? MAIL_TIME90 : 0;
    return b;
}

/* TIME_LIMIT_50/80/90 not sent yet of those passed (all with 'all'), in
 * Slurm's order. */
static void mail_shares(struct ctld *ctld, struct job *job, time_t now,
                        bool all)
{
    static const uint32_t order[] = {MAIL_TIME50, MAIL_TIME80, MAIL_TIME90};
    uint32_t due = all ? MAIL_TIME50 | MAIL_TIME80 | MAIL_TIME90
                       : shares_passed(job, job_run_time(job, now));

    due &= job->mail_type & ~job->mail_sent;
    for (size_t i = 0; i < 3; i++)
        if (due & order[i])
            mail_job(ctld, job, order[i], now);
    job->mail_sent |= due;
}

/* A job ended (or a pending one was cancelled): END for COMPLETED and
 * CANCELLED, FAIL for every other end (TIMEOUT after TIME_LIMIT). */
static void mail_end(struct ctld *ctld, struct job *job, time_t now)
{
    if (job->state == JOB_TIMEOUT) {
        mail_shares(ctld, job, now, true);
        mail_job(ctld, job, MAIL_TIME100, now);
    }
    if (!per_task(job)) {
        array_ended(ctld, job, now);
        return;
    }
    mail_job(ctld, job, state_ok(job->state) ? MAIL_END : MAIL_FAIL, now);
}

static void mail_gate(struct ctld *ctld, struct job *job, time_t now)
{
    if (job->reason != JOB_REASON_DEP_NEVER) {
        job->mail_sent &= ~MAIL_INVALID_DEPEND;
        return;
    }
    if (!(job->mail_sent & MAIL_INVALID_DEPEND))
        mail_job(ctld, job, MAIL_INVALID_DEPEND, now);
    job->mail_sent |= MAIL_INVALID_DEPEND;
}

void mail_event(struct ctld *ctld, const struct ctld_event *ev)
{
    struct job *job;

    if (!ctld->mail || !(job = ctld_job_find(ctld, ev->job_id))
        || !job->mail_type)
        return;
    switch (ev->type) {
    case CTLD_EV_JOB_STARTED:
        job->mail_sent = 0;
        if (per_task(job))
            mail_job(ctld, job, MAIL_BEGIN, ev->t);
        else
            array_began(ctld, job, ev->t);
        break;
    case CTLD_EV_JOB_ENDED:
        if (!job->cancel_requested) /* mailed when it was cancelled */
            mail_end(ctld, job, ev->t);
        break;
    case CTLD_EV_JOB_CANCELLED:
        mail_end(ctld, job, ev->t);
        break;
    case CTLD_EV_JOB_GATE:
        mail_gate(ctld, job, ev->t);
        break;
    default:
        break;
    }
}

void mail_requeue(struct ctld *ctld, const struct ctld_event *ev)
{
    struct job *job = ctld_job_find(ctld, ev->job_id);
    struct mail_what w = {.job = job, .type = MAIL_REQUEUE, .now = ev->t};

    if (ctld->mail && job && (job->mail_type & MAIL_REQUEUE) && per_task(job))
        mail_send(ctld, &w);
}

/* --- the time-limit check ------------------------------------------------ */

static void check_cb(uv_timer_t *t)
{
    struct ctld *ctld = t->data;
    struct mail *m = ctld->mail;
    time_t now = ctld_now(ctld);
    struct job *job, *tmp;

    if (!ctld_active(ctld)) {
        m->primed = false;
        return;
    }
    HASH_ITER(hh, ctld->jobs, job, tmp) {
        if (job->state != JOB_RUNNING
            || !(job->mail_type & (MAIL_TIME50 | MAIL_TIME80 | MAIL_TIME90)))
            continue;
        if (m->primed)
            mail_shares(ctld, job, now, false);
        else /* sent before a restart or by the last leader, or not */
            job->mail_sent |= shares_passed(job, job_run_time(job, now));
    }
    m->primed = true;
}

int mail_init(struct ctld *ctld, drv_error_t *error)
{
    struct passwd *pw = getpwuid(ctld->slurm_uid);
    struct mail *m = xzalloc(sizeof(*m));

    (void)error;
    m->run = prog_run_create(ctld->loop, "MailProg", ctld->conf->mail_prog,
                             ctld->slurm_uid, pw ? pw->pw_gid : 0,
                             MAIL_TIMEOUT_S * 1000ull,
                             MAIL_RUN_MAX_CHILDREN);
    uv_timer_init(ctld->loop, &m->timer);
    m->timer.data = ctld;
    uv_timer_start(&m->timer, check_cb, MAIL_CHECK_MS, MAIL_CHECK_MS);
    uv_unref((uv_handle_t *)&m->timer);
    ctld->mail = m;
    return 0;
}

void mail_fini(struct ctld *ctld)
{
    if (!ctld->mail)
        return;
    prog_run_destroy(ctld->mail->run);
    free(ctld->mail);
    ctld->mail = NULL;
}
