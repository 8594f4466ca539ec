/* SPDX-License-Identifier: Apache-2.0
 *
 * prolog_ctld.c - PrologSlurmctld= and EpilogSlurmctld= (prolog_ctld.h)
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "proto/client.h"
#include "ctld/job_env.h"
#include "ctld/job_info.h"
#include "ctld/prog_run.h"
#include "ctld/prolog_ctld.h"
#include "ctld/prolog_env.h"

/* Programs at once per runner: Slurm starts one thread per job; a cap
 * keeps a burst of starts from forking without bound (the rest wait). */
#define PROLOG_CTLD_MAX_CHILDREN 64
#define PROLOG_CTLD_CHECK_MS 1000

struct pc_run;

/* One node's Prolog at allocation (PrologFlags=Alloc). */
struct pc_node {
    struct pc_run *run;
    long node;
};

/* What a configuring job waits for here: its PrologSlurmctld and, with
 * PrologFlags=Alloc, each node's Prolog (the pieces). */
struct pc_run {
    struct ctld *ctld;
    uint32_t job_id, run_id;
    unsigned pending;      /* pieces not ended */
    bool failed;           /* a piece failed: the job was requeued or
                            * cancelled; the others are waited for only
                            * to free this */
    struct pc_node *nodes; /* PrologFlags=Alloc: one per node */
    struct pc_run *prev, *next;
};

struct prolog_ctld {
    struct prog_run *prolog, *epilog; /* NULL when not configured */
    struct pc_run *runs;
    uv_timer_t timer;
    bool primed;  /* the CONFIGURING jobs were checked since this
                   * controller became the one that applies events */
    bool stopped; /* the daemon is ending: a run's end changes nothing */
    /* jobs whose start is not yet on disk: their prologs run once it is
     * (prolog_ctld_flushed()) */
    struct pc_due {
        uint32_t job_id, run_id;
    } *due;
    size_t ndue, due_cap;
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

static bool alloc_prolog(const struct ctld *ctld)
{
    return (ctld->conf->prolog_flags & CONF_PROLOG_ALLOC)
           && ctld->conf->prolog;
}

bool prolog_ctld_wanted(const struct ctld *ctld)
{
    return ctld->conf->prolog_slurmctld != NULL || alloc_prolog(ctld);
}

bool prolog_ctld_nodes_know(const struct ctld *ctld, const struct job *job)
{
    return !job->configuring || alloc_prolog(ctld);
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
 * requeued (held after a node's Prolog failed, 'held'), any other is
 * cancelled (by SlurmUser).  Nothing of it runs on its nodes yet, so it
 * ends at once (ctld_job_signal_node()); nodes that ran its Prolog
 * (PrologFlags=Alloc) are told the end, and run its Epilog. */
static void prolog_failed(struct ctld *ctld, struct job *job, const char *why,
                          bool held)
{
    time_t now = ctld_now(ctld);

    if (!job->interactive && job->requeue) {
        log_error("JobId=%u: %s: requeued%s", job->id, why,
                  held ? " held" : "");
        for (uint32_t e = 0; alloc_prolog(ctld) && e < job->alloc->node_count;
             e++)
            ctld_job_end_on_node(ctld, job, e, false);
        if (held) { /* as a launch refused by a Prolog (scheduler.c) */
            struct ctld_event ev = {.type = CTLD_EV_JOB_HELD, .t = now,
                                    .job_id = job->id, .hold = true,
                                    .admin = true, .launch_failed = true};
            ctld_job_requeue(ctld, job, now, now, false);
            ctld_apply(ctld, &ev);
        } else {
            ctld_job_requeue(ctld, job, now,
                             now + PROLOG_CTLD_REQUEUE_DELAY_S, true);
        }
        return;
    }
    log_error("JobId=%u: %s: cancelled", job->id, why);
    ctld_job_cancel(ctld, job, ctld->slurm_uid);
}

/* The job of 'r' if it still waits for this run's pieces here. */
static struct job *waiting_job(struct pc_run *r)
{
    struct ctld *ctld = r->ctld;
    struct job *job = ctld_job_find(ctld, r->job_id);

    if (ctld->prolog_ctld->stopped || !job || job->run_id != r->run_id
        || job->state != JOB_RUNNING || !job->configuring || r->failed
        || !ctld_active(ctld))
        return NULL;
    return job;
}

/* One piece of 'r' (its PrologSlurmctld, or one node's Prolog) ended.
 * The first failure ends the wait (requeue or cancel); once every piece
 * passed the job is configured and a batch job launches.  'r' goes with
 * its last piece. */
static void piece_done(struct pc_run *r, bool ok, const char *why,
                       long node, bool held)
{
    struct ctld *ctld = r->ctld;
    struct job *job = waiting_job(r);

    r->pending--;
    if (!ok && node >= 0 && !ctld->prolog_ctld->stopped
        && ctld_active(ctld)) /* each node whose Prolog failed */
        ctld_node_drain_error(ctld, node, "Prolog error");
    if (job && !ok) {
        r->failed = true;
        prolog_failed(ctld, job, why, held);
    } else if (job && !r->pending) {
        struct ctld_event ev = {.type = CTLD_EV_JOB_CONFIGURED,
                                .t = ctld_now(ctld),
                                .job_id = job->id};
        if (ctld_apply(ctld, &ev) == 0) {
            log_debug("JobId=%u: configured", job->id);
            if (!job->interactive)
                scheduler_launch(ctld, job);
        }
    }
    if (!r->pending) {
        run_unlink(ctld->prolog_ctld, r);
        free(r->nodes);
        free(r);
    }
}

static void prolog_done(void *arg, bool ok)
{
    piece_done(arg, ok, "PrologSlurmctld failed", -1, false);
}

static void node_prolog_done(int errnum, const char *errstr, json_t *resp,
                             void *arg)
{
    struct pc_node *pn = arg;
    struct pc_run *r = pn->run;
    char why[200];

    (void)resp;
    if (errnum)
        snprintf(why, sizeof(why), "Prolog on %s (PrologFlags=Alloc): %s",
                 r->ctld->nodes->names[pn->node],
                 errstr && *errstr ? errstr : drv_strerror(errnum));
    /* a failed Prolog drains the node and holds the job, as at a launch;
     * a node that did not answer only requeues it */
    piece_done(r, !errnum, why, errnum == EDRV_PROLOG_FAILED ? pn->node : -1,
               errnum == EDRV_PROLOG_FAILED);
}

/* PrologFlags=Alloc: each node of the allocation runs its Prolog now
 * (job_prolog, answered when it ended). */
static void start_node_prologs(struct ctld *ctld, struct job *job,
                               struct pc_run *r)
{
    /* the answer comes when the Prolog ended */
    int timeout_ms = prolog_answer_timeout_ms(ctld->conf);

    r->nodes = xzalloc(job->alloc->node_count * sizeof(*r->nodes));
    /* a call not sent fails the job at once: its allocation goes */
    for (uint32_t e = 0; !r->failed && e < job->alloc->node_count; e++) {
        struct pc_node *pn = &r->nodes[e];
        const struct conf_node *cn;
        json_t *body = json_pack("{s:I s:I}", "job_id", (json_int_t)job->id,
                                 "run_id", (json_int_t)job->run_id);
        json_t *env = prolog_env_json(ctld, job, e);

        if (env)
            json_object_set_new(body, "prolog_env", env);
        pn->run = r;
        pn->node = job->alloc->node_idx[e];
        cn = ctld->nodes->info[pn->node].conf;
        r->pending++;
        if (proto_call_async(ctld->loop, cn->addr, cn->port, ctld->auth,
                             "job_prolog", body, timeout_ms,
                             node_prolog_done, pn)
            < 0) {
            log_err("JobId=%u: job_prolog to %s", job->id, cn->name);
            piece_done(r, false, "job_prolog not sent", -1, false);
        }
    }
}

void prolog_ctld_start(struct ctld *ctld, struct job *job)
{
    struct prolog_ctld *pc = ctld->prolog_ctld;

    if (pc->ndue == pc->due_cap) {
        pc->due_cap = pc->due_cap ? 2 * pc->due_cap : 16;
        pc->due = xrealloc(pc->due, pc->due_cap * sizeof(*pc->due));
    }
    pc->due[pc->ndue++] = (struct pc_due){job->id, job->run_id};
}

/* Run the prologs of configuring 'job' now. */
static void start_now(struct ctld *ctld, struct job *job)
{
    struct prolog_ctld *pc = ctld->prolog_ctld;
    struct pc_run *r;
    char label[48];

    if (!pc->prolog && !alloc_prolog(ctld)) {
        prolog_failed(ctld, job, "no PrologSlurmctld to run", false);
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
    r->pending = 1; /* held while the pieces start */
    if (pc->prolog) {
        snprintf(label, sizeof(label), "JobId=%u", job->id);
        r->pending++;
        prog_run_start(pc->prolog, label, NULL,
                       prolog_ctld_env(ctld, job, false), prolog_done, r);
    }
    if (alloc_prolog(ctld))
        start_node_prologs(ctld, job, r);
    piece_done(r, true, NULL, -1, false); /* the hold */
}

void prolog_ctld_flushed(struct ctld *ctld)
{
    struct prolog_ctld *pc = ctld->prolog_ctld;
    size_t n;

    if (!pc || !pc->ndue)
        return;
    n = pc->ndue;
    pc->ndue = 0; /* start_now() may fail a job: nothing is added here */
    for (size_t i = 0; i < n; i++) {
        struct job *job = ctld_job_find(ctld, pc->due[i].job_id);
        if (job && job->configuring && job->alloc
            && job->run_id == pc->due[i].run_id)
            start_now(ctld, job);
    }
}

static bool runs_here(const struct prolog_ctld *pc, const struct job *job)
{
    for (const struct pc_run *r = pc->runs; r; r = r->next)
        if (r->job_id == job->id && r->run_id == job->run_id)
            return true;
    for (size_t i = 0; i < pc->ndue; i++) /* to run once on disk */
        if (pc->due[i].job_id == job->id && pc->due[i].run_id == job->run_id)
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
            prolog_failed(ctld, job, "PrologSlurmctld or Prolog interrupted "
                                     "by a controller restart or takeover",
                          false);
    }
}

void prolog_ctld_event(struct ctld *ctld, const struct ctld_event *ev)
{
    struct prolog_ctld *pc = ctld->prolog_ctld;
    struct job *job;
    char label[48];

    if (!pc || !pc->epilog
        || !(ev->type == CTLD_EV_JOB_ENDED
             || (ev->type == CTLD_EV_JOB_REQUEUED && ev->restart
                 && !ev->run_ended)) /* else job_ended ran it */
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
    free(pc->due);
    for (r = pc->runs; r; r = next) {
        next = r->next;
        free(r->nodes);
        free(r);
    }
    free(pc);
    ctld->prolog_ctld = NULL;
}
