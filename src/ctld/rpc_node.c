/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_node.c - ping, node_info, partition_info, node_update, and what node
 * daemons send: node_register and job_complete
 */
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/hostlist.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "proto/jsonw.h"
#include "ctld/listing.h"
#include "ctld/ctld.h"
#include "ctld/resv.h"
#include "ctld/event.h"
#include "ctld/ha.h"
#include "ctld/node_epilog.h"
#include "common/ident.h"
#include "ctld/part_access.h"
#include "ctld/step.h"

static void respond(proto_req_t *req, json_t *body, const char *what)
{
    if (proto_respond(req, body) < 0)
        log_err("%s: responding", what);
}

static void respond_error(proto_req_t *req, int errnum, const char *text,
                          const char *what)
{
    if (proto_respond_error(req, errnum, text) < 0)
        log_err("%s: responding", what);
}

static void rpc_ping(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;

    json_t *o = json_pack("{s:s s:I}", "host", ctld->conf->ctld_host,
                          "now", (json_int_t)ctld_now(ctld));

    if (ctld->ha) /* its place in the Raft group (ha.h) */
        json_object_update_new(
            o, json_pack("{s:s s:I}", "role", ha_role(ctld->ha), "term",
                         (json_int_t)ha_term(ctld->ha)));
    respond(req, o, "ping");
}

static bool name_wanted(json_t *names, const char *name)
{
    json_t *v;
    size_t i;

    if (!json_array_size(names))
        return true;
    json_array_foreach(names, i, v) if (!strcmp(json_string_value(v) ?: "",
                                                name)) return true;
    return false;
}

/* A node_info answer being written (listing.h).  The node table keeps
 * its nodes and their order, so the cursor is an index; each node is
 * written as it is at its turn. */
struct node_listing {
    struct listing base;  /* first */
    proto_req_t *req;
    bool *wanted;         /* by name; NULL: every node */
    size_t next;          /* the next node to write */
    struct jsonw w;
};

static void put_node(struct ctld *ctld, struct node_listing *l, size_t i)
{
    struct node_flags f = {0};
    bool maint;

    if (resv_node_reserved(ctld, i, ctld_now(ctld), &maint)) {
        f.maint = maint;
        f.reserved = !maint;
    }
    f.planned = ctld->planned_nodes && bitmap_test(ctld->planned_nodes, i);
    jsonw_obj_open(&l->w);
    node_table_node_put(ctld->nodes, i, &f, &(struct jsonw_sink){.w = &l->w});
    jsonw_obj_close(&l->w);
}

static bool node_listing_write(struct ctld *ctld, struct listing *base,
                               uint64_t deadline)
{
    struct node_listing *l = (struct node_listing *)base;

    for (unsigned n = 0; l->next < ctld->nodes->count; l->next++) {
        if ((++n & 63) == 0 && uv_hrtime() >= deadline)
            return false;
        if (!l->wanted || l->wanted[l->next])
            put_node(ctld, l, l->next);
    }
    return true;
}

static void node_listing_finish(struct ctld *ctld, struct listing *base)
{
    struct node_listing *l = (struct node_listing *)base;

    (void)ctld;
    jsonw_arr_close(&l->w);
    jsonw_obj_close(&l->w);
    if (proto_respond_jsonw(l->req, &l->w) < 0)
        log_err("node_info: responding");
    free(l->wanted);
    free(l);
}

/* PrivateData=nodes: only operators list nodes, as Slurm.  Written
 * straight into the answer's frame (a 10,000-node listing as jansson
 * objects took a third of the controller while the nodes registered);
 * named nodes at once, every node over several turns (listing.h). */
static void rpc_node_info(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *names = json_object_get(proto_req_body(req), "names");
    struct node_listing *l;

    if (ctld_private(ctld, req, CONF_PRIVATE_NODES))
        return respond_error(req, EDRV_ACCESS_DENIED, NULL, "node_info");
    l = xzalloc(sizeof(*l));
    l->req = req;
    l->base.write = node_listing_write;
    l->base.finish = node_listing_finish;
    if (json_array_size(names)) { /* by the name index, in table order */
        size_t k;
        json_t *v;
        l->wanted = xzalloc(ctld->nodes->count + 1);
        json_array_foreach(names, k, v) {
            long i = node_table_index(ctld->nodes, json_string_value(v) ?: "");
            if (i >= 0)
                l->wanted[i] = true;
        }
    }
    jsonw_init(&l->w, PROTO_RESPOND_RESERVE);
    jsonw_obj_open(&l->w);
    jsonw_key(&l->w, "now");
    jsonw_int(&l->w, ctld_now(ctld));
    jsonw_key(&l->w, "nodes");
    jsonw_arr_open(&l->w);
    if (l->wanted) {
        node_listing_write(ctld, &l->base, UINT64_MAX);
        node_listing_finish(ctld, &l->base);
    } else {
        listing_queue(ctld, &l->base);
    }
}

/* PrivateData=partitions: only operators list partitions, as Slurm. */
static void rpc_partition_info(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *names = json_object_get(proto_req_body(req), "names");
    bool all = json_is_true(json_object_get(proto_req_body(req), "show_all"));
    json_t *arr;

    if (ctld_private(ctld, req, CONF_PRIVATE_PARTITIONS))
        return respond_error(req, EDRV_ACCESS_DENIED, NULL, "partition_info");
    arr = json_array();
    for (size_t p = 0; p < ctld->nodes->part_count; p++)
        if (name_wanted(names, ctld->nodes->parts[p].conf->name)
            && (all || part_access_visible(ctld->access,
                                           ctld->nodes->parts[p].conf,
                                           proto_req_uid(req),
                                           ctld_req_slurm_user(req),
                                           ctld_now(ctld))))
            json_array_append_new(arr,
                                  node_table_partition_json(ctld->nodes, p));
    respond(req, json_pack("{s:I s:o}", "now", (json_int_t)ctld_now(ctld),
                           "partitions", arr),
            "partition_info");
}

/* State=DRAIN|UNDRAIN|RESUME|DOWN (checked, with its reason, by the
 * caller) applied to administrative state 'a' at time 'now'. */
static void admin_set_state(struct node_admin *a, const char *state,
                            const char *reason, const char *user, time_t now)
{
    a->health_drain = false; /* an administrator's state from now on */
    if (!strcasecmp(state, "DRAIN") || !strcasecmp(state, "DOWN")) {
        if (!strcasecmp(state, "DRAIN"))
            a->drain = true;
        else
            a->down = true;
        a->reason = reason;
        a->reason_user = user;
        a->reason_time = now;
        return;
    }
    a->drain = false;
    if (!strcasecmp(state, "RESUME"))
        a->down = false;
    a->reason = a->reason_user = NULL;
    a->reason_time = 0;
}

static bool state_valid(const char *state)
{
    static const char *const ok[] = {"DRAIN", "UNDRAIN", "RESUME", "DOWN",
                                     NULL};
    for (size_t i = 0; ok[i]; i++)
        if (!strcasecmp(state, ok[i]))
            return true;
    return false;
}

/* The node indexes of hostlist 'name' (caller frees; *count of them), or
 * NULL when it is malformed or names an unknown node. */
static long *node_indexes(struct ctld *ctld, const char *name, size_t *count,
                          drv_error_t *error)
{
    hostlist_t *hl = hostlist_decode(name, error);
    long *idx;

    if (!hl)
        return NULL;
    *count = hostlist_count(hl);
    idx = xzalloc((*count + 1) * sizeof(*idx));
    for (size_t h = 0; h < *count; h++) {
        if ((idx[h] = node_table_index(ctld->nodes, hostlist_nth(hl, h))) < 0) {
            FREE_NULL(idx);
            break;
        }
    }
    hostlist_destroy(hl);
    return idx;
}

static bool needs_reason(const char *state)
{
    return !strcasecmp(state, "DRAIN") || !strcasecmp(state, "DOWN");
}

/* scontrol update NodeName= State= Reason= Weight=: operators only
 * (Slurm's "Invalid user id" otherwise); every node is checked first. */
static void rpc_node_update(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    const char *name = NULL, *state = NULL, *reason = NULL;
    json_int_t weight = -1;
    const struct ident_user *who = ident_user(ctld->ident, proto_req_uid(req),
                                              ctld_now(ctld));
    drv_error_t error = {0};
    size_t count = 0;
    long *idx;

    if (!(proto_req_roles(req) & (PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN)))
        return respond_error(req, EDRV_USER_ID_MISSING, NULL, "node_update");
    if (json_unpack(proto_req_body(req), "{s:s s?s s?s s?I}", "name", &name,
                    "state", &state, "reason", &reason, "weight", &weight) < 0
        || (!state && weight < 0) || weight >= UINT32_MAX)
        return respond_error(req, EDRV_PROTOCOL_MALFORMED, NULL,
                             "node_update");
    if (state && !state_valid(state))
        return respond_error(req, EDRV_INVALID_NODE_STATE, NULL, "node_update");
    if (state && needs_reason(state) && (!reason || !*reason))
        return respond_error(req, EDRV_INVALID_NODE_STATE,
                             "You must specify a reason when DOWNING or "
                             "DRAINING a node. Request denied",
                             "node_update");
    if (!(idx = node_indexes(ctld, name, &count, &error)))
        return respond_error(req, EDRV_INVALID_NODE_NAME,
                             error.text[0] ? error.text : NULL, "node_update");
    for (size_t h = 0; h < count; h++) {
        struct node_admin a;

        node_table_admin_get(ctld->nodes, (size_t)idx[h], &a);
        if (weight >= 0)
            a.weight = (uint32_t)weight;
        if (state)
            admin_set_state(&a, state, reason,
                            who->known ? who->name : "root", ctld_now(ctld));
        ctld_node_admin(ctld, idx[h], &a);
        log_info("update_node: node %s updated", ctld->nodes->names[idx[h]]);
    }
    free(idx);
    ctld_respond_durable(ctld, req, NULL);
    scheduler_request(ctld);
}

static struct job *job_on_node(struct ctld *ctld, json_int_t id, long node)
{
    struct job *job = ctld_job_find(ctld, (uint32_t)id);

    if (!job || !job->alloc || (long)job->alloc->node_idx[0] != node)
        return NULL;
    return job;
}

/* Is a node's report (with "run_id", when the node sent one) about the
 * current run of 'job'?  A report without it (an older droverd) is taken
 * as current.  A stale one is logged. */
static bool report_current(struct ctld *ctld, const struct job *job,
                           json_t *report, long node, const char *what)
{
    json_t *run = json_object_get(report, "run_id");

    if (!json_is_integer(run) || json_integer_value(run) == job->run_id)
        return true;
    log_info("JobId=%u: %s from %s is about run %lld, not the current run "
             "%u: ignored", job->id, what, ctld->nodes->names[node],
             (long long)json_integer_value(run), job->run_id);
    return false;
}

void ctld_job_complete(struct ctld *ctld, json_t *c, long node)
{
    json_int_t id = 0;
    int status = 0, timed_out = 0, oom = 0;
    struct job *job;

    if (json_unpack(c, "{s:I s?i s?b s?b}", "job_id", &id, "status", &status,
                    "timed_out", &timed_out, "oom", &oom)
        < 0)
        return;
    if (oom) /* the OOM killer struck the batch step: OUT_OF_MEMORY */
        status = JOB_STATUS_OOM;
    if (!(job = job_on_node(ctld, id, node))
        || !report_current(ctld, job, c, node, "completion"))
        return;
    ctld_job_completed(ctld, job, status, timed_out, false,
                       ctld->nodes->names[node], c);
}

static bool alloc_holds(const struct sched_alloc *a, long node)
{
    for (uint32_t i = 0; a && i < a->node_count; i++)
        if ((long)a->node_idx[i] == node)
            return true;
    return false;
}

uint32_t *ctld_node_jobs(struct ctld *ctld, long node, size_t *n)
{
    struct ctld_node *info = &ctld->nodes->info[node];
    uint32_t *ids = NULL;

    *n = 0;
    for (uint32_t k = 0; k < info->njobs;) {
        struct job *job = ctld_job_find(ctld, info->jobs[k]);

        if (!job || !alloc_holds(job->alloc, node)) {
            node_table_jobs_drop(ctld->nodes, (size_t)node, k);
            continue;
        }
        if (!ids)
            ids = xzalloc(info->njobs * sizeof(*ids));
        ids[(*n)++] = info->jobs[k++];
    }
    return ids;
}

/* Jobs the controller believes run on 'node' that the node does not
 * report are lost (the node daemon restarted): they failed with the node.
 * Only the node's own jobs are looked at (ctld_node_jobs()). */
static void reconcile(struct ctld *ctld, long node, json_t *running,
                      time_t now)
{
    size_t n, i;
    uint32_t *ids = ctld_node_jobs(ctld, node, &n);
    struct job *job;
    json_t *v;

    for (size_t k = 0; k < n; k++) {
        bool seen = false;
        if (!(job = ctld_job_find(ctld, ids[k])) || !job->alloc
            || (long)job->alloc->node_idx[0] != node
            || now - job->start_time < 5 || job->interactive)
            continue;
        json_array_foreach(running, i, v) {
            if (json_integer_value(json_object_get(v, "job_id")) == job->id
                && report_current(ctld, job, v, node, "registration"))
                seen = true;
        }
        if (!seen) {
            log_error("JobId=%u: not running on %s any more", job->id,
                      ctld->nodes->names[node]);
            ctld_job_finished(ctld, job, 0, false, !job->completing);
        }
    }
    free(ids);
    /* And jobs the node runs that the controller has ended: stop them. */
    json_array_foreach(running, i, v) {
        json_int_t id = json_integer_value(json_object_get(v, "job_id"));
        json_t *run = json_object_get(v, "run_id");
        job = ctld_job_find(ctld, (uint32_t)id);
        if (!job || !job->alloc || (long)job->alloc->node_idx[0] != node
            || (json_is_integer(run)
                && json_integer_value(run) != job->run_id)) {
            log_error("JobId=%ju on %s is unknown here: terminating it",
                      (uintmax_t)id, ctld->nodes->names[node]);
            ctld_node_terminate_stray(ctld, node, (uint32_t)id,
                                      (uint32_t)json_integer_value(run));
        }
    }
}

static void rpc_node_register(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *body = proto_req_body(req), *running, *done, *c, *answer;
    const char *name = NULL, *os = NULL;
    json_int_t start = 0;
    struct ctld_node *n;
    time_t now = ctld_now(ctld);
    long idx;
    size_t i;

    if (json_unpack(body, "{s:s s?I s?s}", "node", &name, "start_time",
                    &start, "os", &os)
        < 0)
        return respond_error(req, EDRV_PROTOCOL_MALFORMED, NULL,
                             "node_register");
    if ((idx = node_table_index(ctld->nodes, name)) < 0)
        return respond_error(req, EDRV_INVALID_NODE_NAME, name,
                             "node_register");
    n = &ctld->nodes->info[idx];
    if (!n->responding)
        log_info("Node %s now responding", name);
    if (n->down && n->reason && !strcmp(n->reason, "Not responding")) {
        struct node_admin a; /* ReturnToService */

        node_table_admin_get(ctld->nodes, (size_t)idx, &a);
        a.down = false;
        a.reason = NULL;
        ctld_node_admin(ctld, idx, &a);
    }
    n->responding = true;
    n->last_seen = now;
    n->slurmd_start_time = (time_t)start;
    if (!n->boot_time)
        n->boot_time = (time_t)start;
    if (os && (!n->os || strcmp(n->os, os))) {
        free(n->os);
        n->os = xstrdup(os);
    }
    node_table_update_avail(ctld->nodes, (size_t)idx);
    ctld_node_gpus_reported(ctld, idx, json_object_get(body, "gpus"));
    done = json_object_get(body, "done");
    json_array_foreach(done, i, c) {
        if (json_object_get(c, "step_id"))
            ctld_step_complete(ctld, c, idx);
        else
            ctld_job_complete(ctld, c, idx);
    }
    if ((running = json_object_get(body, "steps")))
        ctld_steps_reconcile(ctld, idx, running, now);
    if ((running = json_object_get(body, "jobs")))
        reconcile(ctld, idx, running, now);
    ctld_node_health(ctld, idx, body);
    node_epilog_reported(ctld, idx, body);
    /* The node forgets the completions it sent once answered: those wait
     * for their records on disk.  A heartbeat without any is answered at
     * once, so a journal flush delayed by a launch storm does not keep
     * 10,000 nodes' heartbeats waiting (bench/README.md, "launch storm"). */
    answer = ctld_node_health_answer(ctld, idx);
    /* which controller answered: one started since makes drover-emud
     * register every node at once (docs/emulator.md) */
    json_object_set_new(answer, "boot_time",
                        json_integer((json_int_t)ctld->boot_time));
    if (json_array_size(done))
        ctld_respond_durable(ctld, req, answer);
    else if (proto_respond(req, answer) < 0)
        log_err("node_register: responding");
    scheduler_request(ctld);
}

static void rpc_job_complete(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    const char *name = NULL;
    long idx;

    if (json_unpack(proto_req_body(req), "{s:s}", "node", &name) < 0
        || (idx = node_table_index(ctld->nodes, name)) < 0)
        return respond_error(req, EDRV_PROTOCOL_MALFORMED, NULL,
                             "job_complete");
    ctld->nodes->info[idx].last_seen = ctld_now(ctld);
    ctld_job_complete(ctld, proto_req_body(req), idx);
    ctld_respond_durable(ctld, req, NULL);
}

const struct proto_handler rpc_node_handlers[] = {
    {"ping", rpc_ping, PROTO_ROLE_USER},
    {"node_info", rpc_node_info, PROTO_ROLE_USER},
    {"partition_info", rpc_partition_info, PROTO_ROLE_USER},
    {"node_update", rpc_node_update, PROTO_ROLE_USER},
    {"node_register", rpc_node_register, PROTO_ROLE_DAEMON},
    {"job_complete", rpc_job_complete, PROTO_ROLE_DAEMON},
    PROTO_HANDLER_END,
};
