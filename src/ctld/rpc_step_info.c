/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_step_info.c - job steps as first-class records: step_info (list),
 * step_cancel (scancel N.S), step_complete (a node's report of its part
 * of a step, with usage), steps a restarted node lost, and the record
 * step_create starts.
 */
#include <libgen.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/step.h"
#include "ctld/step_res.h"
#include "common/hostlist.h"
#include "proto/client.h"

/* --- the record of a new srun step --------------------------------------- */

/* The step's name: its program's base name, as Slurm's srun names it.
 * A control character in it (a program named "a\nb") becomes '?', so the
 * name prints as one line in squeue -s, scontrol show step and sacct. */
static char *step_name(json_t *argv)
{
    char *copy = xstrdup(json_string_value(json_array_get(argv, 0)) ?: "");
    char *name = xstrdup(basename(copy));

    free(copy);
    for (unsigned char *c = (unsigned char *)name; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            *c = '?';
    return name;
}

struct job_step *ctld_step_record(struct ctld *ctld, struct job *job,
                                  uint32_t step_id, json_t *body,
                                  struct step_claim *claim, uint32_t ntasks)
{
    json_t *argv = json_object_get(body, "argv");
    uint32_t nodes = claim->part->node_count;
    uint64_t mem = 0;
    char *hl, *name = step_name(argv);
    struct job_step *s;
    uint32_t cpus = 0;

    hl = node_table_alloc_hostlist(ctld->nodes, claim->part);
    s = job_step_create(step_id, name, hl, ctld_now(ctld));
    for (uint32_t i = 0; i < nodes; i++) {
        uint32_t e = claim->ent[i];

        mem += claim->part->mem_mib[i] ? claim->part->mem_mib[i]
                                       : job->alloc->mem_mib[e];
        cpus += claim->part->cpus[i] ? claim->part->cpus[i]
                                     : claim->part->tasks[i];
    }
    s->claim = claim;
    s->nnodes = nodes;
    s->ntasks = ntasks;
    s->ncpus = cpus;
    s->alloc_tres = mem ? xasprintf("cpu=%u,mem=%lluM,node=%u", cpus,
                                    (unsigned long long)mem, nodes)
                        : xasprintf("cpu=%u,node=%u", cpus, nodes);
    s->srun_host = xstrdup(json_string_value(json_object_get(body,
                                                              "srun_host")));
    s->srun_pid = json_integer_value(json_object_get(body, "srun_pid"));
    free(hl);
    free(name);
    return s;
}

/* --- step_complete ------------------------------------------------------- */

void ctld_step_complete(struct ctld *ctld, json_t *report, long node)
{
    json_int_t job_id = 0, step_id = -1;
    const char *name = ctld->nodes->names[node];
    struct job_step *s;
    struct job *job;
    struct ctld_event ev = {.type = CTLD_EV_STEP_REPORTED,
                            .t = ctld_now(ctld),
                            .node = name,
                            .report = report};

    if (json_unpack(report, "{s:I s:I}", "job_id", &job_id, "step_id",
                    &step_id) < 0)
        return;
    if (step_id == STEP_ID_BATCH) { /* the batch script's end */
        ctld_job_complete(ctld, report, node);
        return;
    }
    if (job_id <= 0 || job_id > UINT32_MAX || step_id < 0
        || step_id > UINT32_MAX
        || !(job = ctld_job_find(ctld, (uint32_t)job_id))
        || !(s = job_step_find(job, (uint32_t)step_id)))
        return;
    ev.job_id = job->id;
    ev.step_id = s->id;
    /* A repeated report (droverd resends until acknowledged) does not
     * apply and is not journaled. */
    if (ctld_apply(ctld, &ev) == 0 && !s->pending)
        log_info("StepId=%u.%u done: %s status %d", job->id, s->id,
                 job_state_name(s->state), s->exit_status);
}

static void rpc_step_complete(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    const char *name = NULL;
    json_int_t job_id, step_id;
    long idx;

    if (json_unpack(proto_req_body(req), "{s:s s:I s:I}", "node", &name,
                    "job_id", &job_id, "step_id", &step_id)
            < 0
        || (idx = node_table_index(ctld->nodes, name)) < 0) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED,
                            "step_complete: node, job_id and step_id wanted");
        return;
    }
    ctld->nodes->info[idx].last_seen = ctld_now(ctld);
    ctld_step_complete(ctld, proto_req_body(req), idx);
    ctld_respond_durable(ctld, req, NULL);
}

/* --- step_info ----------------------------------------------------------- */

static bool job_listed(const struct job *job, json_t *ids)
{
    json_t *v;
    size_t i;

    if (!json_is_array(ids))
        return true;
    json_array_foreach(ids, i, v) {
        json_int_t id = json_integer_value(v);
        if (id == job->id || (job->array && id == job->array->job_id))
            return true;
    }
    return false;
}

/* The step record with its job's keys commands print beside it. */
static json_t *step_info_json(const struct job *job, const struct job_step *s)
{
    json_t *o = job_step_to_json(s, false);

    json_object_set_new(o, "job_id", json_integer(job->id));
    json_object_set_new(o, "user_id", json_integer((json_int_t)job->uid));
    if (job->user_name)
        json_object_set_new(o, "user_name", json_string(job->user_name));
    if (job->partition)
        json_object_set_new(o, "partition", json_string(job->partition));
    if (job->array) {
        json_object_set_new(o, "array_job_id",
                            json_integer(job->array->job_id));
        json_object_set_new(o, "array_task_id",
                            json_integer(job->array->task_id));
    }
    return o;
}

/* With "fields", keep only the keys asked for (job_info's contract). */
static void keep_fields(json_t *o, json_t *fields)
{
    const char *key;
    json_t *v, *f;
    void *tmp;
    size_t i;

    if (!json_is_array(fields))
        return;
    json_object_foreach_safe(o, tmp, key, v) {
        bool want = false;
        json_array_foreach(fields, i, f) {
            if (json_is_string(f) && !strcmp(json_string_value(f), key))
                want = true;
        }
        if (!want)
            json_object_del(o, key);
    }
}

static void rpc_step_info(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *body = proto_req_body(req), *steps = json_array();
    json_t *ids = json_object_get(body, "job_ids");
    json_t *fields = json_object_get(body, "fields");
    bool all = json_is_true(json_object_get(body, "all_states"));
    struct job *job, *tmp;

    HASH_ITER(hh, ctld->jobs, job, tmp) {
        if (!job_listed(job, ids)
            || (job->uid != proto_req_uid(req)
                && ctld_private(ctld, req, CONF_PRIVATE_JOBS)))
            continue;
        for (struct job_step *s = job->steps; s; s = s->next) {
            json_t *o;

            if (!all && s->state != JOB_RUNNING)
                continue;
            o = step_info_json(job, s);
            keep_fields(o, fields);
            json_array_append_new(steps, o);
        }
    }
    if (proto_respond(req, json_pack("{s:I s:o}", "now",
                                     (json_int_t)ctld_now(ctld), "steps",
                                     steps))
        < 0)
        log_err("step_info: responding");
}

/* --- step_cancel --------------------------------------------------------- */

static void signal_done(int errnum, const char *errstr, json_t *resp,
                        void *arg)
{
    (void)resp;
    (void)arg;
    if (errnum)
        log_error("step_signal: %s", errstr ? errstr : drv_strerror(errnum));
}

/* Send step_signal to every node of the step. */
/* Send step_signal for step 's' of 'job' to node 'idx'. */
static void signal_node(struct ctld *ctld, const struct job *job,
                        const struct job_step *s, long idx, int signo)
{
    const struct conf_node *cn = ctld->nodes->info[idx].conf;

    if (proto_call_async(ctld->loop, cn->addr, cn->port, ctld->auth,
                         "step_signal",
                         json_pack("{s:I s:I s:i s:b}", "job_id",
                                   (json_int_t)job->id, "step_id",
                                   (json_int_t)s->id, "signal", signo,
                                   "cancelled", s->cancelled),
                         (int)ctld->conf->msg_timeout_s * 1000, signal_done,
                         NULL)
        < 0)
        log_err("StepId=%u.%u: step_signal to %s", job->id, s->id,
                cn->name);
}

static void signal_nodes(struct ctld *ctld, const struct job *job,
                         const struct job_step *s, int signo)
{
    hostlist_t *hl = hostlist_decode(s->nodes, NULL);

    for (size_t i = 0; hl && i < hostlist_count(hl); i++) {
        long idx = node_table_index(ctld->nodes, hostlist_nth(hl, i));

        if (idx >= 0)
            signal_node(ctld, job, s, idx, signo);
    }
    hostlist_destroy(hl);
}

static int cancel_check(struct ctld *ctld, proto_req_t *req,
                        json_int_t job_id, json_int_t step_id,
                        struct job **job, struct job_step **s)
{
    *job = job_id > 0 && job_id <= UINT32_MAX
               ? ctld_job_find(ctld, (uint32_t)job_id)
               : NULL;
    if (!*job)
        return EDRV_INVALID_JOB_ID;
    if ((*job)->uid != proto_req_uid(req)
        && !(proto_req_roles(req) & (PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN)))
        return EDRV_ACCESS_DENIED;
    *s = step_id >= 0 && step_id <= UINT32_MAX
             ? job_step_find(*job, (uint32_t)step_id)
             : NULL;
    if (!*s)
        return EDRV_INVALID_JOB_ID;
    if ((*s)->state != JOB_RUNNING || !(*job)->alloc)
        return EDRV_ALREADY_DONE;
    return 0;
}

/* srun's word that 'node's connection broke with tasks running: the
 * step ends NODE_FAIL and its other nodes kill their tasks. */
static int step_node_failed(struct ctld *ctld, struct job *job,
                            struct job_step *s, const char *node)
{
    struct ctld_event ev = {.type = CTLD_EV_STEP_ENDED,
                            .t = ctld_now(ctld),
                            .job_id = job->id,
                            .step_id = s->id,
                            .state = JOB_NODE_FAIL,
                            .node = node};

    if (ctld_apply(ctld, &ev) < 0) /* the node reported already */
        return EDRV_INVALID_NODE_NAME;
    log_error("StepId=%u.%u: srun lost %s", job->id, s->id, node);
    signal_nodes(ctld, job, s, SIGKILL);
    return 0;
}

static void rpc_step_cancel(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_int_t job_id = 0, step_id = -1;
    int signo = 0, errnum, cancel = 0;
    const char *failed = NULL;
    struct job_step *s;
    struct job *job;

    if (json_unpack(proto_req_body(req), "{s:I s:I s?i s?s s?b}", "job_id",
                    &job_id, "step_id", &step_id, "signal", &signo,
                    "node_fail", &failed, "cancel", &cancel)
            < 0
        || signo < 0 || signo >= NSIG) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED,
                            "step_cancel: job_id and step_id wanted");
        return;
    }
    if ((errnum = cancel_check(ctld, req, job_id, step_id, &job, &s))) {
        proto_respond_error(req, errnum, NULL);
        return;
    }
    if (failed) {
        if ((errnum = step_node_failed(ctld, job, s, failed)))
            proto_respond_error(req, errnum, NULL);
        else
            ctld_respond_durable(ctld, req, NULL);
        return;
    }
    if (signo == 0 || signo == SIGKILL || cancel) {
        struct ctld_event ev = {.type = CTLD_EV_STEP_CANCELLED,
                                .t = ctld_now(ctld),
                                .job_id = job->id,
                                .step_id = s->id};
        ctld_apply(ctld, &ev);
        log_info("StepId=%u.%u cancelled", job->id, s->id);
    }
    signal_nodes(ctld, job, s, signo ? signo : SIGKILL);
    ctld_respond_durable(ctld, req, NULL);
}

/* --- a node's running steps at registration ---------------------------- */

static bool step_listed(json_t *running, uint32_t job_id, uint32_t step_id)
{
    json_t *v;
    size_t i;

    json_array_foreach(running, i, v) {
        if (json_integer_value(json_object_get(v, "job_id")) == job_id
            && json_integer_value(json_object_get(v, "step_id")) == step_id)
            return true;
    }
    return false;
}

void ctld_steps_reconcile(struct ctld *ctld, long node, json_t *running,
                          time_t now)
{
    const char *name = ctld->nodes->names[node];
    size_t n;
    uint32_t *ids = ctld_node_jobs(ctld, node, &n); /* its jobs only */
    struct job *job;

    for (size_t k = 0; k < n; k++) {
        if (!(job = ctld_job_find(ctld, ids[k])))
            continue;
        for (struct job_step *s = job->steps; s; s = s->next) {
            /* A cancel that did not reach the node (its droverd was
             * restarting: connection refused) is sent again with each
             * registration that still lists the step. */
            if (s->state == JOB_RUNNING && s->cancelled
                && s->id != STEP_ID_BATCH && job_step_pending_on(s, name)
                && step_listed(running, job->id, s->id)) {
                log_info("StepId=%u.%u: cancelled, still running on %s: "
                         "signalled again", job->id, s->id, name);
                signal_node(ctld, job, s, node, SIGKILL);
                continue;
            }
            if (s->state != JOB_RUNNING || s->id == STEP_ID_BATCH
                || now - s->start_time < 5 || !job_step_pending_on(s, name)
                || step_listed(running, job->id, s->id))
                continue;
            struct ctld_event ev = {.type = CTLD_EV_STEP_ENDED,
                                    .t = now,
                                    .job_id = job->id,
                                    .step_id = s->id,
                                    .state = JOB_NODE_FAIL,
                                    .node = name};
            log_error("StepId=%u.%u: its tasks on %s are gone", job->id,
                      s->id, name);
            ctld_apply(ctld, &ev);
            signal_nodes(ctld, job, s, SIGKILL);
        }
    }
    free(ids);
}

const struct proto_handler rpc_step_info_handlers[] = {
    {"step_info", rpc_step_info, PROTO_ROLE_USER},
    {"step_cancel", rpc_step_cancel, PROTO_ROLE_USER},
    {"step_complete", rpc_step_complete, PROTO_ROLE_DAEMON},
    PROTO_HANDLER_END,
};
