/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc.c - what the emulated nodes answer: ping, batch_launch, job_signal,
 * job_limit, step_launch (refused), step_signal
 *
 * The same messages and answers as droverd's rpc.c (docs/protocol-
 * messages.md); the node a request is for is found from its content
 * (emud.h), since several nodes may share the port it came in on.
 * Launch and signal come only from the controller (role daemon).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/log.h"
#include "emud/emud.h"

static void rpc_ping(proto_req_t *req, void *arg)
{
    struct emud *e = arg;
    struct emu_node *n = node_find(e, json_string_value(json_object_get(
                                          proto_req_body(req), "node")));

    if (!n)
        n = &e->nodes[0];
    if (proto_respond(req, json_pack("{s:s s:b}", "node", n->conf->name,
                                     "emulated", 1))
        < 0)
        log_err("ping: responding");
}

/* The batch script of a job on its batch host (one of ours). */
static void rpc_batch_launch(proto_req_t *req, void *arg)
{
    struct emud *e = arg;
    json_t *job = json_object_get(proto_req_body(req), "job");
    const char *host = json_string_value(json_object_get(job, "batch_host"));
    struct emu_node *n = node_find(e, host);
    const char *why = NULL;
    int errnum = 0;

    if (!json_is_object(job)) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED, "no job");
        return;
    }
    if (!n) {
        log_error("batch_launch: batch host \"%s\" is not emulated here",
                  host ? host : "");
        proto_respond_error(req, EDRV_INVALID_NODE_NAME, host);
        return;
    }
    if (job_launch(n, job, &errnum, &why) < 0)
        proto_respond_error(req, errnum, why);
    else
        proto_respond(req, NULL);
}

static void rpc_job_signal(proto_req_t *req, void *arg)
{
    struct emud *e = arg;
    json_int_t id = 0, run = 0;
    int signo = SIGKILL, terminate = 0, all = 0, steps = 0;
    struct emu_job *j;

    if (json_unpack(proto_req_body(req), "{s:I s?i s?b s?I s?b s?b}",
                    "job_id", &id, "signal", &signo, "terminate", &terminate,
                    "run_id", &run, "all", &all, "steps", &steps)
        < 0) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED, NULL);
        return;
    }
    j = id > 0 && id <= UINT32_MAX ? job_find(e, (uint32_t)id) : NULL;
    if (!j || (run && job_run_id(j) && job_run_id(j) != (uint32_t)run)
        || (steps && !terminate)) {
        /* Not here, another run, or only its steps (there are none). */
        proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL);
        return;
    }
    job_signal(j, signo, terminate);
    proto_respond(req, NULL);
}

static void rpc_job_limit(proto_req_t *req, void *arg)
{
    struct emud *e = arg;
    json_int_t id = 0, limit = -1;
    struct emu_job *j;

    if (json_unpack(proto_req_body(req), "{s:I s:I}", "job_id", &id,
                    "time_limit_s", &limit)
        < 0) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED, NULL);
        return;
    }
    if (id <= 0 || id > UINT32_MAX || !(j = job_find(e, (uint32_t)id))) {
        proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL);
        return;
    }
    job_set_limit(j, limit);
    proto_respond(req, NULL);
}

/* srun steps are not emulated: the step fails with this error. */
static void rpc_step_launch(proto_req_t *req, void *arg)
{
    struct emud *e = arg;
    json_int_t id = json_integer_value(json_object_get(proto_req_body(req),
                                                       "job_id"));
    struct emu_job *j = id > 0 && id <= UINT32_MAX
                            ? job_find(e, (uint32_t)id)
                            : NULL;
    char text[160];

    snprintf(text, sizeof(text),
             "node%s%s is emulated (drover-emud): job steps (srun) are not "
             "run on emulated nodes", j ? " " : "",
             j ? job_node(j)->conf->name : "");
    proto_respond_error(req, EDRV_NOT_SUPPORTED, text);
}

/* scancel N.batch reaches the batch step; no other step runs here. */
static void rpc_step_signal(proto_req_t *req, void *arg)
{
    struct emud *e = arg;
    json_int_t id = 0, step = 0;
    int signo = SIGKILL, cancelled = 0;
    struct emu_job *j;

    if (json_unpack(proto_req_body(req), "{s:I s:I s?i s?b}", "job_id", &id,
                    "step_id", &step, "signal", &signo, "cancelled",
                    &cancelled)
        < 0) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED, NULL);
        return;
    }
    if (step != EMUD_BATCH_STEP || id <= 0 || id > UINT32_MAX
        || !(j = job_find(e, (uint32_t)id))) {
        proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL);
        return;
    }
    job_signal(j, signo, false);
    proto_respond(req, json_pack("{s:i}", "count", 1));
}

const struct proto_handler emud_handlers[] = {
    {"step_signal", rpc_step_signal, PROTO_ROLE_DAEMON},
    {"step_launch", rpc_step_launch, PROTO_ROLE_DAEMON},
    {"job_limit", rpc_job_limit, PROTO_ROLE_DAEMON},
    {"ping", rpc_ping, PROTO_ROLE_USER},
    {"batch_launch", rpc_batch_launch, PROTO_ROLE_DAEMON},
    {"job_signal", rpc_job_signal, PROTO_ROLE_DAEMON},
    PROTO_HANDLER_END,
};
