/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_step.c - step_create: srun inside a running job
 *
 * The job's owner (or an operator) asks for N tasks on M of the job's
 * nodes.  The step gets the job's next step id (journaled), the tasks are
 * laid out in blocks over the first M nodes of the allocation, and each
 * node's droverd gets step_launch with its ranks and srun's I/O address.
 * srun is answered once every node has answered (or the first error).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/step.h"
#include "proto/client.h"

struct step_ctx {
    struct ctld *ctld;
    proto_req_t *req;
    uint32_t job_id;
    uint32_t step_id;
    uint32_t nodes;
    uint32_t ntasks;
    uint32_t pending;
    int errnum;
    char *errstr;
};

static void step_answer(struct step_ctx *sc)
{
    if (sc->errnum)
        proto_respond_error(sc->req, sc->errnum, sc->errstr);
    else if (proto_respond(sc->req,
                           json_pack("{s:I s:I s:I}", "step_id",
                                     (json_int_t)sc->step_id, "nodes",
                                     (json_int_t)sc->nodes, "ntasks",
                                     (json_int_t)sc->ntasks))
             < 0)
        log_err("step_create: responding");
    free(sc->errstr);
    free(sc);
}

/* A node that could not launch its part reports it failed (status 1), so
 * the step record still ends. */
static void launch_failed(struct step_ctx *sc, long node)
{
    json_t *report = json_pack("{s:I s:I s:i}", "job_id",
                               (json_int_t)sc->job_id, "step_id",
                               (json_int_t)sc->step_id, "status", 1 << 8);

    ctld_step_complete(sc->ctld, report, node);
    json_decref(report);
}

struct launch_arg {
    struct step_ctx *sc;
    long node;
};

static void launch_done(int errnum, const char *errstr, json_t *resp,
                        void *arg)
{
    struct launch_arg *la = arg;
    struct step_ctx *sc = la->sc;

    (void)resp;
    if (errnum)
        launch_failed(sc, la->node);
    free(la);
    if (errnum && !sc->errnum) {
        sc->errnum = errnum;
        sc->errstr = xstrdup(errstr && *errstr ? errstr : NULL);
        log_error("StepId=%u.%u: launch failed: %s", sc->job_id, sc->step_id,
                  errstr ? errstr : drv_strerror(errnum));
    }
    if (--sc->pending == 0)
        step_answer(sc);
}

/* Slurm's tasks-per-node form: "2(x3),1". */
static char *tasks_per_node_fmt(const uint32_t *tasks, uint32_t n)
{
    char *s = xstrdup(""), *t;

    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;

        while (j < n && tasks[j] == tasks[i])
            j++;
        if (j - i > 1)
            t = xasprintf("%s%s%u(x%u)", s, *s ? "," : "", tasks[i], j - i);
        else
            t = xasprintf("%s%s%u", s, *s ? "," : "", tasks[i]);
        free(s);
        s = t;
        i = j;
    }
    return s;
}

/* Block layout: the job's own per-node counts when the step asks for the
 * whole allocation, else an even split with the remainder first. */
static void layout(const struct job *job, uint32_t nodes, uint32_t ntasks,
                   uint32_t *tasks)
{
    uint32_t total = 0;

    for (uint32_t i = 0; i < job->alloc->node_count; i++)
        total += job->alloc->tasks[i];
    for (uint32_t i = 0; i < nodes; i++) {
        if (nodes == job->alloc->node_count && ntasks == total)
            tasks[i] = job->alloc->tasks[i];
        else
            tasks[i] = ntasks / nodes + (i < ntasks % nodes ? 1 : 0);
    }
}

static int io_host(proto_req_t *req, char *buf, size_t len)
{
    const struct sockaddr *sa = proto_req_peer_addr(req);

    if (sa->sa_family == AF_INET6)
        return uv_ip6_name((const struct sockaddr_in6 *)sa, buf, len);
    return uv_ip4_name((const struct sockaddr_in *)sa, buf, len);
}

/* The step_launch body common to every node. */
static json_t *launch_body(struct ctld *ctld, struct job *job,
                           proto_req_t *req, struct step_ctx *sc,
                           const uint32_t *tasks)
{
    json_t *body = proto_req_body(req);
    struct sched_alloc sub = *job->alloc;
    char host[64] = "", *tpn, *nodes;
    json_t *o;

    sub.node_count = sc->nodes;
    nodes = node_table_alloc_hostlist(ctld->nodes, &sub);
    tpn = tasks_per_node_fmt(tasks, sc->nodes);
    io_host(req, host, sizeof(host));
    o = json_pack("{s:I s:I s:I s:I s:s s:O s:O s:O s:I s:s s:s s:I s:s s:O}",
                  "job_id", (json_int_t)job->id, "step_id",
                  (json_int_t)sc->step_id, "uid", (json_int_t)job->uid, "gid",
                  (json_int_t)job->gid, "user_name", job->user_name, "argv",
                  json_object_get(body, "argv"), "env",
                  json_object_get(body, "env"), "cwd",
                  json_object_get(body, "cwd"), "ntasks",
                  (json_int_t)sc->ntasks, "nodes", nodes, "tasks_per_node",
                  tpn, "num_nodes", (json_int_t)sc->nodes, "io_host", host,
                  "io_port", json_object_get(body, "io_port"));
    if (json_is_string(json_object_get(body, "mpi")))
        json_object_set(o, "mpi", json_object_get(body, "mpi"));
    free(nodes);
    free(tpn);
    /* srun --pty: passed on as given (docs/protocol.md step_launch). */
    if (json_is_true(json_object_get(body, "pty"))) {
        json_object_set_new(o, "pty", json_true());
        json_object_set_new(o, "pty_rows", json_integer(json_integer_value(
            json_object_get(body, "pty_rows"))));
        json_object_set_new(o, "pty_cols", json_integer(json_integer_value(
            json_object_get(body, "pty_cols"))));
    }
    return o;
}

static void send_launches(struct ctld *ctld, struct job *job,
                          struct step_ctx *sc, json_t *base,
                          const uint32_t *tasks)
{
    uint32_t rank = 0;

    sc->pending = sc->nodes;
    for (uint32_t i = 0; i < sc->nodes; i++) {
        const struct conf_node *cn =
            ctld->nodes->info[job->alloc->node_idx[i]].conf;
        json_t *o = json_deep_copy(base), *ranks = json_array();
        struct launch_arg *la = xzalloc(sizeof(*la));

        for (uint32_t t = 0; t < tasks[i]; t++)
            json_array_append_new(ranks, json_integer(rank++));
        json_object_set_new(o, "ranks", ranks);
        la->sc = sc;
        la->node = (long)job->alloc->node_idx[i];
        json_object_set_new(o, "node_index", json_integer(i));
        if (proto_call_async(ctld->loop, cn->addr, cn->port, ctld->auth,
                             "step_launch", o,
                             (int)ctld->conf->msg_timeout_s * 1000,
                             launch_done, la)
            < 0) {
            log_err("StepId=%u.%u: step_launch to %s", job->id, sc->step_id,
                    cn->name);
            launch_done(errno, NULL, NULL, la);
        }
    }
}

/* Defaults and limits of the step's size; 0 or an EDRV_* number. */
static int step_size(const struct job *job, json_int_t ntasks,
                     json_int_t nodes, struct step_ctx *sc)
{
    uint32_t total = 0;

    for (uint32_t i = 0; i < job->alloc->node_count; i++)
        total += job->alloc->tasks[i];
    if (ntasks <= 0)
        ntasks = total ? total : job->alloc->node_count;
    if (nodes <= 0)
        nodes = ntasks < job->alloc->node_count ? ntasks
                                                : job->alloc->node_count;
    if (nodes > job->alloc->node_count || ntasks < nodes
        || ntasks > 65536)
        return EDRV_INVALID_NODE_COUNT;
    sc->ntasks = (uint32_t)ntasks;
    sc->nodes = (uint32_t)nodes;
    return 0;
}

/* The job named, running, and the caller's (or an operator's). */
static struct job *step_job(struct ctld *ctld, proto_req_t *req,
                            json_int_t id, int *errnum)
{
    struct job *job = id > 0 && id <= UINT32_MAX
                          ? ctld_job_find(ctld, (uint32_t)id)
                          : NULL;

    *errnum = EDRV_INVALID_JOB_ID;
    if (!job)
        return NULL;
    *errnum = EDRV_ACCESS_DENIED;
    if (job->uid != proto_req_uid(req)
        && !(proto_req_roles(req) & (PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN)))
        return NULL;
    *errnum = EDRV_ALREADY_DONE;
    if (job->state != JOB_RUNNING || !job->alloc || job->completing)
        return NULL;
    return job;
}

static bool body_ok(json_t *body)
{
    json_t *argv = json_object_get(body, "argv");

    return json_is_array(argv) && json_array_size(argv) > 0
           && json_is_string(json_array_get(argv, 0))
           && json_is_array(json_object_get(body, "env"))
           && json_is_string(json_object_get(body, "cwd"))
           && json_is_integer(json_object_get(body, "io_port"));
}

static void rpc_step_create(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *body = proto_req_body(req);
    json_int_t id = 0, ntasks = 0, nodes = 0;
    struct step_ctx *sc;
    struct job *job;
    uint32_t *tasks;
    json_t *base;
    int errnum;

    if (json_unpack(body, "{s:I s?I s?I}", "job_id", &id, "ntasks", &ntasks,
                    "nodes", &nodes)
            < 0
        || !body_ok(body)) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED, NULL);
        return;
    }
    if (!(job = step_job(ctld, req, id, &errnum))) {
        proto_respond_error(req, errnum, NULL);
        return;
    }
    sc = xzalloc(sizeof(*sc));
    if ((errnum = step_size(job, ntasks, nodes, sc))) {
        proto_respond_error(req, EDRV_INVALID_NODE_COUNT,
                            "step does not fit the job's allocation");
        free(sc);
        return;
    }
    sc->ctld = ctld;
    sc->req = req;
    sc->job_id = job->id;
    sc->step_id = job->next_step_id++;
    ctld_step_record(ctld, job, sc->step_id, body, sc->nodes, sc->ntasks);
    ctld_journal_job(ctld, job, false);
    tasks = xzalloc(sizeof(*tasks) * sc->nodes);
    layout(job, sc->nodes, sc->ntasks, tasks);
    base = launch_body(ctld, job, req, sc, tasks);
    log_info("StepId=%u.%u: %u tasks on %u nodes", job->id, sc->step_id,
             sc->ntasks, sc->nodes);
    send_launches(ctld, job, sc, base, tasks);
    json_decref(base);
    free(tasks);
}

const struct proto_handler rpc_step_handlers[] = {
    {"step_create", rpc_step_create, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
