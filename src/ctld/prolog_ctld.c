/* SPDX-License-Identifier: Apache-2.0
 *
 * prolog_ctld.c - PrologSlurmctld= and EpilogSlurmctld= (prolog_ctld.h)
 */
#include <pwd.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/job_env.h"
#include "ctld/job_info.h"
#include "ctld/prog_run.h"
#include "ctld/prolog_ctld.h"

/* Programs at once per runner: Slurm starts one thread per job; a cap
 * keeps a burst of starts from forking without bound (the rest wait). */
#define PROLOG_CTLD_MAX_CHILDREN 64
#define PROLOG_CTLD_CHECK_MS 1000

/* A PrologSlurmctld this controller runs. */
struct pc_run {
    struct ctld *ctld;
    uint32_t job_id, run_id;
    struct pc_run *prev, *next;
};

struct prolog_ctld {
    struct prog_run *prolog, *epilog; /* NULL when not configured */
    struct pc_run *runs;
    uv_timer_t timer;
    bool primed;  /* the CONFIGURING jobs were checked since this
                   * controller became the one that applies events */
    bool stopped; /* the daemon is ending: a run's end changes nothing */
};

char **prolog_ctld_env(const struct ctld *ctld, const struct job *job,
                       bool epilog)
{
    const struct slurm_conf *c = ctld->conf;
    struct job_env e = {0};

    job_env_add(&e, "SLURM_SCRIPT_CONTEXT", "%s",
                epilog ? "epilog_slurmctld" : "prolog_slurmctld");
    if (c->path)
        job_env_add(&e, "SLURM_CONF", "%s", c->path);
    job_env_array(&e, job);
    job_env_add(&e, "SLURM_CLUSTER_NAME", "%s",
                c->cluster_name ? c->cluster_name : "");
    job_env_add(&e, "SLURM_JOB_ID", "%u", job->id);
    job_env_add(&e, "SLURM_JOBID", "%u", job->id);
    job_env_add(&e, "SLURM_JOB_NAME", "%s", job->name ? job->name : "");
    job_env_add(&e, "SLURM_JOB_USER", "%s", job->user_name);
    job_env_add(&e, "SLURM_JOB_UID", "%u", (unsigned)job->uid);
    job_env_add(&e, "SLURM_JOB_GROUP", "%s", job->group_name);
    job_env_add(&e, "SLURM_JOB_GID", "%u", (unsigned)job->gid);
    job_env_add(&e, "SLURM_JOB_ACCOUNT", "%s",
                job->account ? job->account : "");
    job_env_add(&e, "SLURM_JOB_PARTITION", "%s",
                job->partition ? job->partition : "");
    job_env_nodes(&e, job);
    if (job->req.features)
        job_env_add(&e, "SLURM_JOB_CONSTRAINTS", "%s", job->req.features);
    if (job->comment)
        job_env_add(&e, "SLURM_JOB_COMMENT", "%s", job->comment);
    job_env_add(&e, "SLURM_JOB_WORK_DIR", "%s",
                job->work_dir ? job->work_dir : "");
    if (!job->interactive) {
        job_env_add(&e, "SLURM_JOB_STDIN", "%s",
                    job->std_in ? job->std_in : "/dev/null");
        if (job->std_out)
            job_env_add(&e, "SLURM_JOB_STDOUT", "%s", job->std_out);
        if (job->std_err)
            job_env_add(&e, "SLURM_JOB_STDERR", "%s", job->std_err);
    }
    job_env_add(&e, "SLURM_JOB_RESTART_COUNT", "%u", job->restarts);
    if (epilog) {
        char *ec = job_info_exit_code(job->exit_status);

        job_env_add(&e, "SLURM_JOB_EXIT_CODE", "%d", job->exit_status);
        job_env_add(&e, "SLURM_JOB_EXIT_CODE2", "%s", ec);
        job_env_add(&e, "SLURM_JOB_DERIVED_EC", "0");
        free(ec);
    }
    return e.v;
}

bool prolog_ctld_wanted(const struct ctld *ctld)
{
    return ctld->conf->prolog_slurmctld != NULL;
}

static void run_unlink(struct prolog_ctld *pc, struct pc_run *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        pc->runs = r->next;
    if (r->next)
        r->next->prev = r->prev;
}

/* The configuring 'job' will not launch: a batch job that may requeue is
 * requeued, any other is cancelled (by SlurmUser).  Nothing of it runs
 * on its nodes yet, so it ends at once (ctld_job_signal_node()). */
static void prolog_failed(struct ctld *ctld, struct job *job, const char *why)
{
    time_t now = ctld_now(ctld);

    if (!job->interactive && job->requeue) {
        log_error("JobId=%u: %s: requeued", job->id, why);
        ctld_job_requeue(ctld, job, now, now + PROLOG_CTLD_REQUEUE_DELAY_S,
                         true);
        return;
    }
    log_error("JobId=%u: %s: cancelled", job->id, why);
    ctld_job_cancel(ctld, job, ctld->slurm_uid);
}

static void prolog_done(void *arg, bool ok)
{
    struct pc_run *r = arg;
    struct ctld *ctld = r->ctld;
    struct prolog_ctld *pc = ctld->prolog_ctld;
    struct job *job = ctld_job_find(ctld, r->job_id);

    run_unlink(pc, r);
    /* Cancelled or ended meanwhile, or this controller no longer leads
     * (the next leader judges the job) */
    if (pc->stopped || !job || job->run_id != r->run_id
        || job->state != JOB_RUNNING || !job->configuring
        || !ctld_active(ctld)) {
        free(r);
        return;
    }
    free(r);
    if (!ok) {
        prolog_failed(ctld, job, "PrologSlurmctld failed");
        return;
    }
    struct ctld_event ev = {.type = CTLD_EV_JOB_CONFIGURED,
                            .t = ctld_now(ctld),
                            .job_id = job->id};
    if (ctld_apply(ctld, &ev) < 0)
        return;
    log_debug("JobId=%u: PrologSlurmctld passed", job->id);
    if (!job->interactive)
        scheduler_launch(ctld, job);
}

void prolog_ctld_start(struct ctld *ctld, struct job *job)
{
    struct prolog_ctld *pc = ctld->prolog_ctld;
    struct pc_run *r;
    char label[48];

    if (!pc->prolog) { /* not configured now: nothing to wait for */
        prolog_failed(ctld, job, "no PrologSlurmctld to run");
        return;
    }
    r = xzalloc(sizeof(*r));
    r->ctld = ctld;
    r->job_id = job->id;
    r->run_id = job->run_id;
    r->next = pc->runs;
    if (r->next)
        r->next->prev = r;
    pc->runs = r;
    snprintf(label, sizeof(label), "JobId=%u", job->id);
    prog_run_start(pc->prolog, label, NULL, prolog_ctld_env(ctld, job, false),
                   prolog_done, r);
}

static bool runs_here(const struct prolog_ctld *pc, const struct job *job)
{
    for (const struct pc_run *r = pc->runs; r; r = r->next)
        if (r->job_id == job->id && r->run_id == job->run_id)
            return true;
    return false;
}

/* Once each time this controller becomes the one that applies events
 * (its start, a Raft takeover): a CONFIGURING job whose PrologSlurmctld it
 * does not run lost it with the controller that ran it. */
static void check_cb(uv_timer_t *t)
{
    struct ctld *ctld = t->data;
    struct prolog_ctld *pc = ctld->prolog_ctld;
    struct job *job, *tmp;

    if (!ctld_active(ctld)) {
        pc->primed = false;
        return;
    }
    if (pc->primed)
        return;
    pc->primed = true;
    HASH_ITER(hh, ctld->jobs, job, tmp) {
        if (job->state == JOB_RUNNING && job->configuring
            && !runs_here(pc, job))
            prolog_failed(ctld, job, "PrologSlurmctld interrupted by a "
                                     "controller restart or takeover");
    }
}

void prolog_ctld_event(struct ctld *ctld, const struct ctld_event *ev)
{
    struct prolog_ctld *pc = ctld->prolog_ctld;
    struct job *job;
    char label[48];

    if (!pc || !pc->epilog
        || !(ev->type == CTLD_EV_JOB_ENDED
             || (ev->type == CTLD_EV_JOB_REQUEUED && ev->restart))
        || !(job = ctld_job_find(ctld, ev->job_id)))
        return;
    snprintf(label, sizeof(label), "JobId=%u", job->id);
    prog_run_start(pc->epilog, label, NULL, prolog_ctld_env(ctld, job, true),
                   NULL, NULL);
}

static struct prog_run *runner(struct ctld *ctld, const char *what,
                               const char *prog)
{
    struct passwd *pw = getpwuid(ctld->slurm_uid);

    if (!prog)
        return NULL;
    return prog_run_create(ctld->loop, what, prog, ctld->slurm_uid,
                           pw ? pw->pw_gid : 0,
                           ctld->conf->prolog_epilog_timeout_s * 1000ull,
                           PROLOG_CTLD_MAX_CHILDREN);
}

int prolog_ctld_init(struct ctld *ctld, drv_error_t *error)
{
    struct prolog_ctld *pc = xzalloc(sizeof(*pc));

    (void)error;
    pc->prolog = runner(ctld, "PrologSlurmctld",
                        ctld->conf->prolog_slurmctld);
    pc->epilog = runner(ctld, "EpilogSlurmctld",
                        ctld->conf->epilog_slurmctld);
    uv_timer_init(ctld->loop, &pc->timer);
    pc->timer.data = ctld;
    uv_timer_start(&pc->timer, check_cb, 0, PROLOG_CTLD_CHECK_MS);
    uv_unref((uv_handle_t *)&pc->timer);
    ctld->prolog_ctld = pc;
    return 0;
}

void prolog_ctld_stop(struct ctld *ctld)
{
    if (ctld->prolog_ctld)
        ctld->prolog_ctld->stopped = true;
}

void prolog_ctld_fini(struct ctld *ctld)
{
    struct prolog_ctld *pc = ctld->prolog_ctld;
    struct pc_run *r, *next;

    if (!pc)
        return;
    prog_run_destroy(pc->prolog);
    prog_run_destroy(pc->epilog);
    for (r = pc->runs; r; r = next) {
        next = r->next;
        free(r);
    }
    free(pc);
    ctld->prolog_ctld = NULL;
}
