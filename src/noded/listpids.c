/* SPDX-License-Identifier: Apache-2.0
 *
 * listpids.c - scontrol listpids' step_pids on the node (listpids.h)
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/cgroup.h"
#include "noded/listpids.h"
#include "noded/noded.h"
#include "noded/stepd.h"

/* One request under way: the steps asked, the answers so far. */
struct listing {
    struct noded *nd;
    proto_req_t *req;
    json_t *steps;  /* the answers' entries */
    size_t pending; /* step daemons not answered yet */
    bool named;     /* a job was named: a refusal is the answer's */
    bool denied;    /* a step daemon refused the sender */
};

struct asked {
    struct listing *l;
    uint32_t job_id, step_id;
};

/* The batch step first, then the others by id, each job's together. */
static int step_order(const void *a, const void *b)
{
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    json_int_t jx = json_integer_value(json_object_get(x, "job_id"));
    json_int_t jy = json_integer_value(json_object_get(y, "job_id"));
    uint32_t sx = (uint32_t)json_integer_value(json_object_get(x, "step_id"));
    uint32_t sy = (uint32_t)json_integer_value(json_object_get(y, "step_id"));

    if (jx != jy)
        return jx < jy ? -1 : 1;
    if ((sx == STEPD_BATCH) != (sy == STEPD_BATCH))
        return sx == STEPD_BATCH ? -1 : 1;
    return sx < sy ? -1 : sx > sy;
}

static bool has_task(json_t *tasks, json_int_t pid)
{
    json_t *t;
    size_t i;

    json_array_foreach(tasks, i, t)
        if (json_integer_value(json_object_get(t, "pid")) == pid)
            return true;
    return false;
}

/* The processes of each step's cgroup that are not its tasks. */
static void add_cgroup_pids(struct noded *nd, json_t *entry)
{
    uint32_t job = (uint32_t)json_integer_value(json_object_get(entry,
                                                                "job_id"));
    uint32_t step = (uint32_t)json_integer_value(json_object_get(entry,
                                                                 "step_id"));
    json_t *tasks = json_object_get(entry, "tasks");
    json_t *pids = json_object_get(entry, "pids");
    struct cgroup_step_procs *procs;
    char name[16];
    size_t n;

    if (step == STEPD_BATCH)
        snprintf(name, sizeof(name), "batch");
    else
        snprintf(name, sizeof(name), "%u", step);
    cgroup_job_procs(nd->cgroup, job, &procs, &n);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(procs[i].step, name))
            continue;
        for (size_t k = 0; k < procs[i].npids; k++)
            if (!has_task(tasks, procs[i].pids[k]))
                json_array_append_new(pids,
                                      json_integer(procs[i].pids[k]));
    }
    cgroup_step_procs_free(procs, n);
}

static void finish(struct listing *l)
{
    size_t n = json_array_size(l->steps), i;
    json_t **v = xzalloc((n + 1) * sizeof(*v)), *sorted = json_array();

    for (i = 0; i < n; i++)
        v[i] = json_array_get(l->steps, i);
    qsort(v, n, sizeof(*v), step_order);
    for (i = 0; i < n; i++) {
        add_cgroup_pids(l->nd, v[i]);
        json_array_append(sorted, v[i]);
    }
    free(v);
    if (!n && l->named && l->denied) {
        json_decref(sorted);
        proto_respond_error(l->req, EDRV_ACCESS_DENIED, NULL);
    } else if (proto_respond(l->req, json_pack("{s:s s:o}", "node",
                                               l->nd->node->name, "steps",
                                               sorted))
               < 0) {
        log_err("step_pids: responding");
    }
    json_decref(l->steps);
    free(l);
}

/* A step daemon's answer (NULL: it ended or did not answer: left out). */
static void answered(json_t *resp, void *arg)
{
    struct asked *a = arg;
    struct listing *l = a->l;
    json_t *tasks = json_object_get(resp, "tasks");

    if (json_is_array(tasks))
        json_array_append_new(l->steps,
                              json_pack("{s:I s:I s:O s:[]}", "job_id",
                                        (json_int_t)a->job_id, "step_id",
                                        (json_int_t)a->step_id, "tasks",
                                        tasks, "pids"));
    else if (json_integer_value(json_object_get(resp, "errnum"))
             == EDRV_ACCESS_DENIED)
        l->denied = true;
    free(a);
    if (--l->pending == 0)
        finish(l);
}

void listpids_rpc(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;
    json_t *body = proto_req_body(req);
    json_int_t job = 0, step = -1;
    struct listing *l;
    json_t *running, *s, *ctl;
    size_t i;

    if (json_unpack(body, "{s?I s?I}", "job_id", &job, "step_id", &step) < 0
        || job < 0 || job > UINT32_MAX || step < -1 || step > UINT32_MAX) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED,
                            "step_pids: job_id and step_id are ids");
        return;
    }
    l = xzalloc(sizeof(*l));
    l->nd = nd;
    l->req = req;
    l->steps = json_array();
    l->named = job > 0;
    l->pending = 1; /* until every request below is under way */
    ctl = json_pack("{s:b s:I s:b}", "pids", 1, "uid",
                    (json_int_t)proto_req_uid(req), "admin",
                    (proto_req_roles(req) & PROTO_ROLE_DAEMON) != 0);
    running = stepmgr_running(nd);
    json_array_foreach(running, i, s) {
        struct asked *a;
        json_int_t j = json_integer_value(json_object_get(s, "job_id"));
        json_int_t st = json_integer_value(json_object_get(s, "step_id"));
        if ((job && j != job) || (step >= 0 && st != step))
            continue;
        a = xzalloc(sizeof(*a));
        *a = (struct asked){l, (uint32_t)j, (uint32_t)st};
        l->pending++;
        if (stepctl_call(nd, (uint32_t)j, (uint32_t)st, ctl, answered, a)
            < 0) {
            l->pending--;
            free(a);
        }
    }
    json_decref(running);
    json_decref(ctl);
    if (--l->pending == 0)
        finish(l);
}
