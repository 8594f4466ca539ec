/* SPDX-License-Identifier: Apache-2.0
 *
 * interactive.c - ending allocation-only jobs (salloc, srun outside a
 * job): release by the owner, time limit (interactive.h)
 */
#include <errno.h>
#include <signal.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "ctld/interactive.h"

void interactive_end(struct ctld *ctld, struct job *job, int status,
                     bool timed_out)
{
    if (!job->alloc)
        return;
    /* ctld_job_finished() stops the tasks on the other nodes. */
    ctld_job_end_on_node(ctld, job, 0, timed_out);
    ctld_job_finished(ctld, job, status, timed_out, false);
}

/* InactiveLimit: has the command of 'job', which said it is alive once,
 * been silent for longer at 'now'? */
static bool inactive(const struct ctld *ctld, const struct job *job,
                     time_t now)
{
    uint32_t limit = ctld->conf->inactive_limit_s;

    return limit && job->alive_at && now - job->alive_at > (time_t)limit;
}

void interactive_check_limits(struct ctld *ctld, time_t now)
{
    struct job *job, *next;

    for (job = ctld_set_first(ctld, CTLD_SET_INTERACTIVE); job; job = next) {
        int64_t over = 0;

        next = ctld_set_next(ctld, CTLD_SET_INTERACTIVE, job);
        if (inactive(ctld, job, now)) {
            log_info("InactiveLimit: JobId=%u: its command was not heard "
                     "for %ld s", job->id, (long)(now - job->alive_at));
            interactive_end(ctld, job, 0, true);
            continue;
        }
        if (job->time_limit_s == TIME_INFINITE
            || job_run_time(job, now) < job->time_limit_s
            || (over = ctld_job_over_time_s(ctld, job)) < 0 /* UNLIMITED */
            || job_run_time(job, now) < job->time_limit_s + over)
            continue;
        log_info("Time limit exhausted for JobId=%u", job->id);
        interactive_end(ctld, job, 0, true);
    }
}

/* The running allocation 'id', if the caller may act on it; else 0 with
 * *errnum set. */
static struct job *alloc_job(struct ctld *ctld, proto_req_t *req,
                             json_int_t id, int *errnum)
{
    struct job *job;

    *errnum = EDRV_INVALID_JOB_ID;
    if (id <= 0 || id > UINT32_MAX
        || !(job = ctld_job_find(ctld, (uint32_t)id)))
        return NULL;
    *errnum = EDRV_ACCESS_DENIED;
    if (job->uid != proto_req_uid(req)
        && !(proto_req_roles(req) & (PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN)))
        return NULL;
    *errnum = EDRV_NOT_SUPPORTED;
    if (!job->interactive)
        return NULL;
    *errnum = EDRV_JOB_PENDING;
    if (job->state == JOB_PENDING)
        return NULL;
    *errnum = EDRV_ALREADY_DONE;
    if (job->state != JOB_RUNNING || !job->alloc)
        return NULL;
    return job;
}

/* The job named in the body, if the caller may act on it; else 0 with
 * *errnum set. */
static struct job *release_job(struct ctld *ctld, proto_req_t *req,
                               int *status, int *errnum)
{
    json_int_t id = 0;

    *status = 0;
    if (json_unpack(proto_req_body(req), "{s:I s?i}", "job_id", &id,
                    "exit_status", status)
        < 0) {
        *errnum = EDRV_PROTOCOL_MALFORMED;
        return NULL;
    }
    return alloc_job(ctld, req, id, errnum);
}

/* job_alive: not journaled (a restart forgets it, and watches the job
 * again from its command's next word). */
static void rpc_job_alive(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_int_t id = 0;
    int errnum = EDRV_PROTOCOL_MALFORMED;
    struct job *job = NULL;

    if (json_unpack(proto_req_body(req), "{s:I}", "job_id", &id) == 0)
        job = alloc_job(ctld, req, id, &errnum);
    if (!job) {
        if (proto_respond_error(req, errnum, NULL) < 0)
            log_err("job_alive: responding");
        return;
    }
    job->alive_at = ctld_now(ctld);
    if (proto_respond(req, NULL) < 0)
        log_err("job_alive: responding");
}

static void rpc_job_release(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    int status, errnum;
    struct job *job = release_job(ctld, req, &status, &errnum);

    if (!job) {
        if (proto_respond_error(req, errnum, NULL) < 0)
            log_err("job_release: responding");
        return;
    }
    log_info("%s: JobId=%u status %d", __func__, job->id, status);
    interactive_end(ctld, job, status, false);
    ctld_respond_durable(ctld, req, NULL);
}

const struct proto_handler rpc_alloc_handlers[] = {
    {"job_release", rpc_job_release, PROTO_ROLE_USER},
    {"job_alive", rpc_job_alive, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
