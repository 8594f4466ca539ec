/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc.c - what the node daemon answers: ping, batch_launch, job_signal,
 * job_limit, step_launch, step_signal
 *
 * Launch and signal come only from the controller (role daemon: root or
 * SlurmUser, from the MUNGE credential).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>

#include "common/log.h"
#include "noded/noded.h"
#include "noded/stepd.h"

static void rpc_ping(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;

    if (proto_respond(req, json_pack("{s:s}", "node", nd->node->name)) < 0)
        log_err("ping: responding");
}

static void rpc_batch_launch(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;
    json_t *job = json_object_get(proto_req_body(req), "job");
    json_int_t id = json_integer_value(json_object_get(job, "job_id"));
    uint32_t run = (uint32_t)json_integer_value(json_object_get(job, "run_id"));
    drv_error_t error = {0};
    struct nd_job *j;

    if (!json_is_object(job) || id <= 0) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED, "no job");
        return;
    }
    if ((j = jobs_find(nd, (uint32_t)id))) {
        if (j->run_id == run) { /* a retried launch */
            proto_respond(req, NULL);
            return;
        }
        /* An earlier run still here (the node was cut off while the job
         * was requeued): it ends, and the controller retries the launch
         * once it is gone (Slurm's slurmd answers the same). */
        log_error("JobId=%lld: run %u asked while run %u still runs here: "
                  "ending the old run", (long long)id, run, j->run_id);
        jobs_terminate(nd, j);
        proto_respond_error(req, EDRV_DUPLICATE_JOB_ID, NULL);
        return;
    }
    if (!(j = launch_batch(nd, job, &error))) {
        log_error("JobId=%lld: launch failed: %s", (long long)id, error.text);
        proto_respond_error(req, EDRV_ERROR, error.text);
        return;
    }
    jobs_track(nd, j);
    if (proto_respond(req, NULL) < 0)
        log_err("batch_launch: responding");
}

static void rpc_job_signal(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;
    json_int_t id = 0, run = 0;
    int signo = SIGKILL, terminate = 0;
    struct nd_job *job;

    if (json_unpack(proto_req_body(req), "{s:I s?i s?b s?I}", "job_id", &id,
                    "signal", &signo, "terminate", &terminate, "run_id", &run)
        < 0) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED, NULL);
        return;
    }
    job = jobs_find(nd, (uint32_t)id);
    if (job && run && job->run_id && job->run_id != (uint32_t)run) {
        /* Meant for another run of the job than the one here. */
        log_info("JobId=%lld: signal for run %lld, run %u here: ignored",
                 (long long)id, (long long)run, job->run_id);
        proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL);
        return;
    }
    if (!job) {
        /* Not the batch host: only step tasks of the job run here. */
        if (stepmgr_signal_job(nd, (uint32_t)id,
                               terminate ? SIGKILL : signo))
            proto_respond(req, NULL);
        else
            proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL);
        return;
    }
    if (terminate)
        jobs_terminate(nd, job);
    else
        jobs_signal(job, signo);
    proto_respond(req, NULL);
}

static void rpc_job_limit(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;
    json_int_t id = 0, limit = -1;
    struct nd_job *job;

    if (json_unpack(proto_req_body(req), "{s:I s:I}", "job_id", &id,
                    "time_limit_s", &limit)
        < 0) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED, NULL);
        return;
    }
    if (!(job = jobs_find(nd, (uint32_t)id))) {
        proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL);
        return;
    }
    jobs_set_limit(nd, job, limit);
    proto_respond(req, NULL);
}

static void step_started(int errnum, const char *errstr, void *arg)
{
    proto_req_t *req = arg;

    if (errnum) {
        log_error("step_launch: %s", errstr);
        proto_respond_error(req, errnum, errstr);
    } else if (proto_respond(req, NULL) < 0) {
        log_err("step_launch: responding");
    }
}

/* A job step's tasks on this node (from the controller, for srun): its
 * droverstepd answers once they started. */
static void rpc_step_launch(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;
    drv_error_t error = {0};

    if (stepmgr_launch(nd, proto_req_body(req), step_started, req, &error)
        < 0) {
        log_error("step_launch: %s", error.text);
        proto_respond_error(req, EDRV_ERROR, error.text);
    }
}

/* Signal one step's tasks here (scancel N.S).  The batch step is the
 * batch script's process group. */
static void rpc_step_signal(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;
    json_int_t id = 0, step = 0;
    int signo = SIGKILL, cancelled = 0;
    struct nd_job *job;

    if (json_unpack(proto_req_body(req), "{s:I s:I s?i s?b}", "job_id", &id,
                    "step_id", &step, "signal", &signo, "cancelled",
                    &cancelled)
        < 0) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED, NULL);
        return;
    }
    if (step == 0xfffffffb && (job = jobs_find(nd, (uint32_t)id))) {
        if (killpg(job->pid, signo) < 0)
            log_err("JobId=%u: signal %d", job->id, signo);
    } else if (!stepmgr_signal(nd, (uint32_t)id, (uint32_t)step, signo,
                               cancelled)) {
        proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL);
        return;
    }
    proto_respond(req, NULL);
}

const struct proto_handler noded_handlers[] = {
    {"step_signal", rpc_step_signal, PROTO_ROLE_DAEMON},
    {"step_launch", rpc_step_launch, PROTO_ROLE_DAEMON},
    {"job_limit", rpc_job_limit, PROTO_ROLE_DAEMON},
    {"ping", rpc_ping, PROTO_ROLE_USER},
    {"batch_launch", rpc_batch_launch, PROTO_ROLE_DAEMON},
    {"job_signal", rpc_job_signal, PROTO_ROLE_DAEMON},
    PROTO_HANDLER_END,
};
