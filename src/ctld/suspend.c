/* SPDX-License-Identifier: Apache-2.0
 *
 * suspend.c - scontrol suspend/resume (job_suspend): a running job stops
 * where it is and keeps its nodes, CPUs, memory and GPUs; its time while
 * suspended counts neither against its time limit nor in its RunTime nor
 * in its fair-share usage (as Slurm)
 *
 * The state change is the job_suspended event (event.h); the handler then
 * has every node of the job signal all of the job's processes there
 * (SIGSTOP, or SIGCONT), and moves the batch host's time limit: none while
 * suspended, the limit plus the time spent suspended once resumed.
 */
#include <signal.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/suspend.h"

/* The batch host's limit: none while suspended; once resumed, the limit
 * plus the seconds spent suspended since the start. */
static void move_limit(struct ctld *ctld, struct job *job, time_t now)
{
    int64_t saved = job->time_limit_s;

    if (saved == TIME_INFINITE || job->interactive)
        return; /* the controller times interactive jobs by job_run_time() */
    if (job->state == JOB_SUSPENDED)
        job->time_limit_s = TIME_INFINITE;
    else
        job->time_limit_s = saved + (now - job->start_time)
                            - job_run_time(job, now);
    ctld_job_set_node_limit(ctld, job);
    job->time_limit_s = saved;
}

/* Slurm's answers: only operators suspend; a pending job "is pending
 * execution", an ended one "already completing or completed".  A job
 * suspended by preemption resumes by hand only when its CPUs are free
 * (Drover: "Requested nodes are busy"); otherwise when they come free. */
static int check(struct ctld *ctld, const struct job *job, bool suspend,
                 proto_req_t *req)
{
    if (!(proto_req_roles(req) & (PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN)))
        return EDRV_ACCESS_DENIED;
    if (job->state == JOB_PENDING)
        return EDRV_JOB_PENDING;
    if (job_state_is_final(job->state) || job->completing)
        return EDRV_ALREADY_DONE;
    if (!suspend && job->state != JOB_SUSPENDED)
        return EDRV_JOB_NOT_SUSPENDED;
    if (!suspend)
        return !job->preempt_suspended
                       || sched_alloc_resume_fits(ctld->nodes->sched,
                                                  ctld->nodes->count,
                                                  job->alloc)
                   ? 0
                   : EDRV_NODES_BUSY;
    return job->state == JOB_RUNNING && job->alloc ? 0 : EDRV_JOB_NOT_RUNNING;
}

/* The job_suspended event, the signal, the moved limit. */
static int apply_suspend(struct ctld *ctld, struct job *job,
                         struct ctld_event *ev)
{
    bool suspend = ev->suspend;
    time_t now = ev->t;

    if (ctld_apply(ctld, ev) < 0)
        return -1;
    ctld_job_signal_all(ctld, job, suspend ? SIGSTOP : SIGCONT);
    move_limit(ctld, job, now);
    return 0;
}

int suspend_job(struct ctld *ctld, struct job *job, bool suspend,
                bool preempt, time_t now)
{
    struct ctld_event ev = {.type = CTLD_EV_JOB_SUSPENDED, .t = now,
                            .job_id = job->id, .suspend = suspend,
                            .preempt = preempt};

    return apply_suspend(ctld, job, &ev);
}

int suspend_job_gang(struct ctld *ctld, struct job *job, bool suspend,
                     time_t now)
{
    struct ctld_event ev = {.type = CTLD_EV_JOB_SUSPENDED, .t = now,
                            .job_id = job->id, .suspend = suspend,
                            .gang = true};

    return apply_suspend(ctld, job, &ev);
}

static void rpc_job_suspend(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *body = proto_req_body(req);
    bool suspend = !json_is_false(json_object_get(body, "suspend"));
    struct job *job = ctld_job_find(
        ctld, (uint32_t)json_integer_value(json_object_get(body, "job_id")));
    int errnum = job ? check(ctld, job, suspend, req) : EDRV_INVALID_JOB_ID;

    if (errnum) {
        if (proto_respond_error(req, errnum, NULL) < 0)
            log_err("job_suspend: responding");
        return;
    }
    suspend_job(ctld, job, suspend, false, ctld_now(ctld));
    log_info("%s JobId=%u by uid %u", suspend ? "Suspend" : "Resume",
             job->id, (unsigned)proto_req_uid(req));
    ctld_respond_durable(ctld, req, NULL);
}

const struct proto_handler rpc_suspend_handlers[] = {
    {"job_suspend", rpc_job_suspend, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
