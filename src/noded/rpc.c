/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc.c - what the node daemon answers: ping, batch_launch, job_signal,
 * job_limit, step_launch, step_signal, file_bcast (bcast.h), step_attach
 * (attach.h), step_pids (listpids.h)
 *
 * Launch and signal come only from the controller (role daemon: root or
 * SlurmUser, from the MUNGE credential); file_bcast from users, checked
 * against the controller's record of the job; step_attach and step_pids
 * from users, checked by the step's droverstepd against the step's user.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/attach.h"
#include "noded/bcast.h"
#include "noded/jobstat.h"
#include "noded/listpids.h"
#include "noded/noded.h"
#include "noded/prolog.h"
#include "noded/stepd.h"

/* SIGTERM to the batch step (which sends SIGKILL after KillWait, and
 * SIGTERM to the job's other steps here). */
static void terminate_batch(struct noded *nd, uint32_t job_id)
{
    json_t *req = json_pack("{s:b}", "terminate", 1);

    stepmgr_batch_request(nd, job_id, req);
    json_decref(req);
}

static void rpc_ping(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;

    if (proto_respond(req, json_pack("{s:s}", "node", nd->node->name)) < 0)
        log_err("ping: responding");
}

/* The step daemon of a batch_launch or step_launch answered. */
static void launched(int errnum, const char *errstr, void *arg)
{
    proto_req_t *req = arg;

    if (errnum) {
        log_error("%s: %s", proto_req_type(req), errstr);
        proto_respond_error(req, errnum, errstr);
    } else if (proto_respond(req, NULL) < 0) {
        log_err("%s: responding", proto_req_type(req));
    }
}

/* A launch waiting for Prolog= (prolog.h). */
struct pending_launch {
    struct noded *nd;
    proto_req_t *req;
    json_t *body;       /* the stepmgr_launch() body */
    uint32_t job_id;
};

static void prolog_done(bool ok, void *arg)
{
    struct pending_launch *pl = arg;
    drv_error_t error = {0};

    if (!ok) {
        log_error("JobId=%u: launch refused: Prolog failed", pl->job_id);
        proto_respond_error(pl->req, EDRV_PROLOG_FAILED, NULL);
    } else if (stepmgr_launch(pl->nd, pl->body, launched, pl->req, &error)
               < 0) {
        log_error("JobId=%u: %s failed: %s", pl->job_id,
                  proto_req_type(pl->req), error.text);
        proto_respond_error(pl->req, EDRV_ERROR, error.text);
    }
    json_decref(pl->body);
    free(pl);
}

/* stepmgr_launch() 'body' (a reference is taken) once Prolog= passed for
 * the job here; 'env' is the launch's prolog_env. */
static void launch_after_prolog(struct noded *nd, proto_req_t *req,
                                uint32_t job_id, json_t *body, json_t *env)
{
    struct pending_launch *pl = xzalloc(sizeof(*pl));

    pl->nd = nd;
    pl->req = req;
    pl->body = json_incref(body);
    pl->job_id = job_id;
    prolog_before_launch(nd, job_id, env, prolog_done, pl);
}

static void prolog_answer(bool ok, void *arg)
{
    proto_req_t *req = arg;

    if (!ok)
        proto_respond_error(req, EDRV_PROLOG_FAILED, NULL);
    else if (proto_respond(req, NULL) < 0)
        log_err("job_prolog: responding");
}

/* PrologFlags=Alloc: the job's Prolog here at its allocation, answered
 * once it ended (prolog.h); its launch here later does not run it again. */
static void rpc_job_prolog(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;
    json_t *body = proto_req_body(req);
    json_int_t id = json_integer_value(json_object_get(body, "job_id"));

    prolog_before_launch(nd, (uint32_t)id,
                         json_object_get(body, "prolog_env"), prolog_answer,
                         req);
}

/* The batch script runs as step "batch" in its own droverstepd (stepd.h),
 * like srun's steps: it keeps running, and its completion arrives, across
 * a restart of droverd. */
static void rpc_batch_launch(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;
    json_t *job = json_object_get(proto_req_body(req), "job"), *body;
    json_int_t id = json_integer_value(json_object_get(job, "job_id"));
    uint32_t run = (uint32_t)json_integer_value(json_object_get(job, "run_id"));
    uint32_t here;

    if (!json_is_object(job) || id <= 0 || id > UINT32_MAX) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED, "no job");
        return;
    }
    if (stepmgr_batch_run(nd, (uint32_t)id, &here)) {
        if (here == run) { /* a retried launch */
            proto_respond(req, NULL);
            return;
        }
        /* An earlier run still here (the node was cut off while the job
         * was requeued): it ends, and the controller retries the launch
         * once it is gone (Slurm's slurmd answers the same). */
        log_error("JobId=%lld: run %u asked while run %u still runs here: "
                  "ending the old run", (long long)id, run, here);
        terminate_batch(nd, (uint32_t)id);
        proto_respond_error(req, EDRV_DUPLICATE_JOB_ID, NULL);
        return;
    }
    body = json_pack("{s:I s:I s:O}", "job_id", id, "step_id",
                     (json_int_t)STEPD_BATCH, "job", job);
    launch_after_prolog(nd, req, (uint32_t)id, body,
                        json_object_get(job, "prolog_env"));
    json_decref(body);
}

static void rpc_job_signal(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;
    json_int_t id = 0, run = 0;
    int signo = SIGKILL, terminate = 0, all = 0, steps = 0, limit = 0;
    int forget = 0;
    uint32_t here = 0;
    json_t *sig;

    if (json_unpack(proto_req_body(req), "{s:I s?i s?b s?I s?b s?b s?b s?b}",
                    "job_id", &id, "signal", &signo, "terminate", &terminate,
                    "run_id", &run, "all", &all, "steps", &steps,
                    "time_limit", &limit, "forget", &forget)
        < 0) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED, NULL);
        return;
    }
    /* The job ended (the controller's terminate of a finished job): its
     * Epilog here, whatever is left of it being killed below. */
    if (terminate && forget)
        prolog_job_ended(nd, (uint32_t)id,
                         json_object_get(proto_req_body(req), "prolog_env"));
    if (steps && !terminate) { /* scancel -s: the steps, not the script */
        if (stepmgr_signal_job(nd, (uint32_t)id, signo, false))
            proto_respond(req, NULL);
        else
            proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL);
        return;
    }
    if (all && !terminate) { /* suspend/resume: the script and every step */
        bool batch = stepmgr_batch_run(nd, (uint32_t)id, &here)
                     && (!run || !here || here == (uint32_t)run);
        if (batch) {
            sig = json_pack("{s:i}", "signal", signo);
            stepmgr_batch_request(nd, (uint32_t)id, sig);
            json_decref(sig);
        }
        if (stepmgr_signal_job(nd, (uint32_t)id, signo, false) || batch)
            proto_respond(req, NULL);
        else
            proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL);
        return;
    }
    if (!stepmgr_batch_run(nd, (uint32_t)id, &here)) {
        /* Not the batch host: only step tasks of the job run here. */
        if (stepmgr_signal_job(nd, (uint32_t)id, terminate ? SIGKILL : signo,
                               terminate && limit))
            proto_respond(req, NULL);
        else
            proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL);
        return;
    }
    if (run && here && here != (uint32_t)run) {
        /* Meant for another run of the job than the one here. */
        log_info("JobId=%lld: signal for run %lld, run %u here: ignored",
                 (long long)id, (long long)run, here);
        proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL);
        return;
    }
    if (terminate) {
        terminate_batch(nd, (uint32_t)id);
    } else {
        sig = json_pack("{s:i}", "signal", signo);
        stepmgr_batch_request(nd, (uint32_t)id, sig);
        json_decref(sig);
    }
    proto_respond(req, NULL);
}

static void rpc_job_limit(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;
    json_int_t id = 0, limit = -1, over = 0;
    json_t *lim;
    bool ok;

    if (json_unpack(proto_req_body(req), "{s:I s:I s?I}", "job_id", &id,
                    "time_limit_s", &limit, "over_time_s", &over)
        < 0) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED, NULL);
        return;
    }
    lim = json_pack("{s:I s:I}", "time_limit_s", limit, "over_time_s", over);
    ok = stepmgr_batch_request(nd, (uint32_t)id, lim);
    json_decref(lim);
    if (!ok)
        proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL);
    else
        proto_respond(req, NULL);
}


/* A job step's tasks on this node (from the controller, for srun): its
 * droverstepd answers once they started. */
static void rpc_step_launch(proto_req_t *req, void *arg)
{
    json_t *body = proto_req_body(req);

    launch_after_prolog(arg, req,
                        (uint32_t)json_integer_value(
                            json_object_get(body, "job_id")),
                        body, json_object_get(body, "prolog_env"));
}

static void step_signalled(int count, void *arg)
{
    proto_req_t *req = arg;

    if (count > 0)
        proto_respond(req, NULL);
    else
        proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL);
}

/* Signal one step's tasks here (scancel N.S); the batch step's are every
 * process of its cgroup (jobs_signal()). */
static void rpc_step_signal(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;
    json_int_t id = 0, step = 0;
    int signo = SIGKILL, cancelled = 0;

    if (json_unpack(proto_req_body(req), "{s:I s:I s?i s?b}", "job_id", &id,
                    "step_id", &step, "signal", &signo, "cancelled",
                    &cancelled)
        < 0) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED, NULL);
        return;
    }
    if (stepmgr_signal(nd, (uint32_t)id, (uint32_t)step, signo, cancelled,
                       step_signalled, req)
        < 0)
        proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL);
}

/* sstat: the job's steps' use of this node now (jobstat.h). */
static void rpc_step_stat(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;
    json_int_t job_id = json_integer_value(
        json_object_get(proto_req_body(req), "job_id"));

    if (proto_respond(req, json_pack("{s:s s:o}", "node", nd->node->name,
                                     "steps",
                                     jobstat_steps(nd, (uint32_t)job_id)))
        < 0)
        log_err("step_stat: responding");
}

const struct proto_handler noded_handlers[] = {
    {"step_signal", rpc_step_signal, PROTO_ROLE_DAEMON},
    {"step_stat", rpc_step_stat, PROTO_ROLE_DAEMON},
    {"step_launch", rpc_step_launch, PROTO_ROLE_DAEMON},
    {"job_limit", rpc_job_limit, PROTO_ROLE_DAEMON},
    {"ping", rpc_ping, PROTO_ROLE_USER},
    {"batch_launch", rpc_batch_launch, PROTO_ROLE_DAEMON},
    {"job_signal", rpc_job_signal, PROTO_ROLE_DAEMON},
    {"file_bcast", bcast_rpc, PROTO_ROLE_USER},
    {"step_attach", attach_rpc, PROTO_ROLE_USER},
    {"step_pids", listpids_rpc, PROTO_ROLE_USER},
    {"job_prolog", rpc_job_prolog, PROTO_ROLE_DAEMON},
    PROTO_HANDLER_END,
};
