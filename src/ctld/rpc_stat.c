/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_stat.c - job_stat: a running job's use of its nodes now (sstat)
 *
 * The controller asks each node of the job (step_stat, in parallel) and
 * answers once every node has answered or failed: a node that does not
 * answer within MessageTimeout is listed under "errors", the others'
 * figures still come back, as sstat prints what it could gather.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/job.h"
#include "ctld/rpc_stat.h"
#include "ctld/step.h"
#include "proto/client.h"

/* One job_stat waiting for its nodes. */
struct gather {
    proto_req_t *req;
    json_t *tasks;   /* {"batch":1,"0":N}: each running step's task count */
    json_t *nodes;   /* [{"node","steps"}] in answer order */
    json_t *errors;  /* [{"node","error"}] */
    unsigned pending;
    uint32_t job_id;
};

struct node_call {
    struct gather *g;
    char *node;
};

static void finish(struct gather *g)
{
    if (proto_respond(g->req, json_pack("{s:I s:o s:o s:o}", "job_id",
                                        (json_int_t)g->job_id, "nodes",
                                        g->nodes, "errors", g->errors,
                                        "tasks", g->tasks))
        < 0)
        log_err("job_stat: responding");
    free(g);
}

static void node_answered(int errnum, const char *errstr, json_t *resp,
                          void *arg)
{
    struct node_call *nc = arg;
    struct gather *g = nc->g;
    json_t *steps = resp ? json_object_get(resp, "steps") : NULL;

    if (errnum)
        json_array_append_new(g->errors,
                              json_pack("{s:s s:s}", "node", nc->node,
                                        "error", errstr));
    else
        json_array_append_new(
            g->nodes, json_pack("{s:s s:o}", "node", nc->node, "steps",
                                json_is_array(steps) ? json_incref(steps)
                                                     : json_array()));
    free(nc->node);
    free(nc);
    if (--g->pending == 0)
        finish(g);
}

static void rpc_job_stat(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    int errnum = 0;
    struct job *job = ctld_job_for_req(ctld, req, EDRV_ACCESS_DENIED,
                                       &errnum);
    struct gather *g;

    if (!job)
        return (void)proto_respond_error(req, errnum, NULL);
    if (job->state != JOB_RUNNING || !job->alloc)
        return (void)proto_respond_error(req, EDRV_JOB_NOT_RUNNING, NULL);
    g = xzalloc(sizeof(*g));
    g->req = req;
    g->job_id = job->id;
    g->nodes = json_array();
    g->errors = json_array();
    g->tasks = json_object();
    for (const struct job_step *st = job->steps; st; st = st->next) {
        char name[16];
        if (st->state != JOB_RUNNING)
            continue;
        if (st->id == STEP_ID_BATCH)
            snprintf(name, sizeof(name), "batch");
        else
            snprintf(name, sizeof(name), "%u", st->id);
        json_object_set_new(g->tasks, name, json_integer(st->ntasks));
    }
    g->pending = job->alloc->node_count + 1; /* +1: this function's own */
    for (uint32_t i = 0; i < job->alloc->node_count; i++) {
        const struct conf_node *cn =
            ctld->nodes->info[job->alloc->node_idx[i]].conf;
        struct node_call *nc = xzalloc(sizeof(*nc));

        nc->g = g;
        nc->node = xstrdup(cn->name);
        if (proto_call_async(ctld->loop, cn->addr, cn->port, ctld->auth,
                             "step_stat",
                             json_pack("{s:I}", "job_id",
                                       (json_int_t)job->id),
                             (int)ctld->conf->msg_timeout_s * 1000,
                             node_answered, nc)
            < 0)
            node_answered(errno, "cannot ask the node", NULL, nc);
    }
    if (--g->pending == 0)
        finish(g);
}

const struct proto_handler rpc_stat_handlers[] = {
    {"job_stat", rpc_job_stat, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
