/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_resv.c - resv_create, resv_update, resv_delete, resv_info: the
 * requests behind scontrol create|update|delete|show reservation
 *
 * Only operators and administrators change reservations (others: Slurm's
 * "Invalid user id").  A reservation's nodes are Nodes= (a hostlist or
 * ALL, of PartitionName= when given) or NodeCnt= of them chosen among the
 * available nodes no other reservation holds then, idle ones first; they
 * may not run a job past StartTime (IGNORE_JOBS allows it) nor meet
 * another reservation in time (OVERLAP allows it).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/resv.h"
#include "ctld/resv_parts.h"

static bool operator(proto_req_t *req)
{
    return proto_req_roles(req) & (PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN);
}

static void answer_error(proto_req_t *req, int errnum, const char *text)
{
    if (proto_respond_error(req, errnum, text) < 0)
        log_err("reservation: responding");
}

/* Does [s1, e1) meet [s2, e2)? */
static bool meets(time_t s1, time_t e1, time_t s2, time_t e2)
{
    return s1 < e2 && s2 < e1;
}

/* Jobs running on 'nodes' past 'start' (IGNORE_JOBS not set). */
static bool nodes_busy(struct ctld *ctld, const bitmap_t *nodes, time_t start)
{
    struct job *job, *tmp;

    HASH_ITER(hh, ctld->jobs, job, tmp) {
        if (!job->alloc)
            continue;
        if (job->time_limit_s != TIME_INFINITE
            && job->start_time + job->time_limit_s <= start)
            continue;
        for (uint32_t i = 0; i < job->alloc->node_count; i++)
            if (bitmap_test(nodes, job->alloc->node_idx[i]))
                return true;
    }
    return false;
}

/* Another reservation (not 'self') on 'nodes' at the same time. */
static bool overlaps_other(struct ctld *ctld, const struct resv *self,
                           const bitmap_t *nodes, time_t s, time_t e)
{
    struct resv *r, *tmp;

    HASH_ITER(hh, ctld->resvs, r, tmp) {
        if (r != self && meets(s, e, r->start, r->end)
            && !(r->flags & RESV_OVERLAP) && bitmap_overlap(nodes, r->nodes))
            return true;
    }
    return false;
}

/* NodeCnt= nodes of 'pool', available and free of other reservations over
 * [s, e), idle ones (or all with IGNORE_JOBS) first. */
static bitmap_t *pick_nodes(struct ctld *ctld, const bitmap_t *pool,
                            uint32_t count, time_t s, time_t e,
                            uint32_t flags)
{
    size_t n = ctld->nodes->count;
    bitmap_t *out = bitmap_create(n ? n : 1), *one = bitmap_create(n ? n : 1);
    uint32_t got = 0;

    for (int pass = 0; pass < 2 && got < count; pass++)
        for (size_t i = 0; i < n && got < count; i++) {
            bool idle = ctld->nodes->sched[i].running_jobs == 0;
            if ((pool && !bitmap_test(pool, i)) || bitmap_test(out, i)
                || !ctld->nodes->sched[i].available
                || (pass == 0 && !idle && !(flags & RESV_IGNORE_JOBS)))
                continue;
            bitmap_clear_all(one);
            bitmap_set(one, i);
            if (overlaps_other(ctld, NULL, one, s, e)
                || (!(flags & RESV_IGNORE_JOBS) && nodes_busy(ctld, one, s)))
                continue;
            bitmap_set(out, i);
            got++;
        }
    bitmap_destroy(one);
    if (got < count) {
        bitmap_destroy(out);
        return NULL;
    }
    return out;
}

/* The parts (resv_parts.h) of the reservation on 'b': asked for by the
 * body, else an update's old ones if its nodes stay; NULL for whole
 * nodes.  *errnum 0, or the error with *why. */
static json_t *build_parts(struct ctld *ctld, json_t *body,
                           const struct resv *old, bool new_nodes,
                           const bitmap_t *b, int *errnum, const char **why)
{
    json_t *parts = resv_parts_build(ctld, body, b, errnum, why);

    if (parts || *errnum)
        return parts;
    if (old && old->part && !new_nodes)
        return resv_parts_json(ctld, old->part);
    return NULL;
}

/* Whether any GPU of 'gpus' (may be NULL) is in use on 'nd': held whole or
 * lending shards. */
static bool gpus_busy(const struct sched_node *nd, const bitmap_t *gpus)
{
    for (long g = gpus ? bitmap_first_set(gpus, 0) : -1; g >= 0;
         g = bitmap_first_set(gpus, (size_t)g + 1))
        if (sched_gpu_busy(nd, (size_t)g))
            return true;
    return false;
}

/* Jobs in the way of a reservation from 'start' on 'b': for whole nodes,
 * any job running there past 'start'; for parts, one there past 'start'
 * when the node has not the part's CPUs and GPU indexes free now. */
static bool busy_for(struct ctld *ctld, const bitmap_t *b, json_t *parts,
                     time_t start)
{
    struct sched_alloc *a;
    bool busy = false;

    if (!parts)
        return nodes_busy(ctld, b, start);
    if (!(a = resv_parts_alloc(ctld, parts)))
        return true;
    for (uint32_t k = 0; k < a->node_count && !busy; k++) {
        const struct sched_node *nd = &ctld->nodes->sched[a->node_idx[k]];
        bitmap_t *one = bitmap_create(ctld->nodes->count);
        bool room = nd->cpus - (nd->alloc_cpus < nd->cpus ? nd->alloc_cpus
                                                          : nd->cpus)
                        >= a->cpus[k]
                    && !gpus_busy(nd, a->gpus[k]);
        bitmap_set(one, a->node_idx[k]);
        busy = !room && nodes_busy(ctld, one, start);
        bitmap_destroy(one);
    }
    sched_alloc_destroy(a);
    return busy;
}

/* CoreCnt=/TRES= without Nodes= or NodeCnt=: the fewest nodes (idle ones
 * first) whose parts the counts fit. */
static bitmap_t *pick_for_parts(struct ctld *ctld, json_t *body,
                                const bitmap_t *pool, time_t s, time_t e,
                                uint32_t flags)
{
    for (uint32_t k = 1; k <= ctld->nodes->count; k++) {
        bitmap_t *b = pick_nodes(ctld, pool, k, s, e, flags);
        const char *why;
        int errnum;
        json_t *parts;
        if (!b)
            return NULL;
        if ((parts = resv_parts_build(ctld, body, b, &errnum, &why))) {
            json_decref(parts);
            return b;
        }
        bitmap_destroy(b);
    }
    return NULL;
}

/* One Flags= word: a flag's name, or PURGE_COMP=time (minutes, or
 * [D-]HH:MM:SS) setting *purge_s.  Returns 0, or -1 for anything else. */
static int parse_flag(const char *word, uint32_t *flag, int64_t *purge_s)
{
    const char *eq = strchr(word, '=');
    int64_t secs;

    if (!eq)
        return resv_flag_parse(word, flag);
    if (strncasecmp(word, "PURGE_COMP=", 11)
        || timefmt_parse_limit(eq + 1, &secs, NULL) < 0 || secs <= 0)
        return -1;
    *flag = RESV_PURGE_COMP;
    *purge_s = secs;
    return 0;
}

/* What a create or update asks for, as it is being checked. */
struct ask {
    json_t *body;
    const struct resv *old; /* update: what the body leaves out */
    time_t start, end;
    uint32_t flags;
    int64_t purge_s;
    const struct ctld_partition *part; /* PartitionName=, or NULL */
    const char *nodes;                 /* Nodes= as given, or NULL */
    int errnum;
    const char *why;
};

/* StartTime=, EndTime= or Duration=, and Flags=.  0, or -1 (errnum). */
static int ask_window(struct ask *q, time_t now)
{
    json_t *v;
    uint32_t flag;
    size_t i;

    q->start = q->old ? q->old->start : now;
    if ((v = json_object_get(q->body, "start_time")))
        q->start = (time_t)json_integer_value(v);
    q->end = q->old ? q->old->end - q->old->start + q->start : 0;
    if ((v = json_object_get(q->body, "end_time")))
        q->end = (time_t)json_integer_value(v);
    else if ((v = json_object_get(q->body, "duration_s")))
        q->end = q->start + (time_t)json_integer_value(v);
    q->flags = q->old ? q->old->flags : 0;
    q->purge_s = q->old ? q->old->purge_s : 0;
    if (json_object_get(q->body, "flags"))
        q->flags = q->old ? q->old->flags & RESV_SPEC_NODES : 0;
    json_array_foreach(json_object_get(q->body, "flags"), i, v) {
        if (!json_is_string(v)
            || parse_flag(json_string_value(v), &flag, &q->purge_s) < 0) {
            q->why = "unknown or unsupported reservation flag";
            return q->errnum = EINVAL, -1;
        }
        q->flags |= flag;
    }
    if (q->end <= q->start)
        return q->errnum = EDRV_INVALID_TIME_VALUE, -1;
    return 0;
}

/* Nodes=ALL: the partition's nodes, or every node. */
static bitmap_t *all_nodes(struct ctld *ctld, const struct ask *q)
{
    bitmap_t *b = bitmap_create(ctld->nodes->count ? ctld->nodes->count : 1);

    for (size_t k = 0; k < ctld->nodes->count; k++)
        if (!q->part || bitmap_test(q->part->nodes, k))
            bitmap_set(b, k);
    return b;
}

/* The nodes: Nodes= (a hostlist or ALL), NodeCnt=, an update's, or for
 * CoreCnt=/TRES= alone the fewest that hold them.  NULL with errnum. */
static bitmap_t *ask_nodes(struct ctld *ctld, struct ask *q)
{
    const bitmap_t *pool = q->part ? q->part->nodes : NULL;
    json_t *cnt = json_object_get(q->body, "node_cnt");
    bitmap_t *b = NULL;

    if (q->nodes && !strcasecmp(q->nodes, "ALL")) {
        b = all_nodes(ctld, q);
    } else if (q->nodes) {
        if ((b = node_table_bitmap(ctld->nodes, q->nodes, NULL)))
            q->flags |= RESV_SPEC_NODES;
    } else if (cnt) {
        b = pick_nodes(ctld, pool, (uint32_t)json_integer_value(cnt),
                       q->start, q->end, q->flags);
        q->errnum = b ? 0 : EDRV_NODES_BUSY;
    } else if (q->old) {
        b = bitmap_copy(q->old->nodes);
    } else if (json_object_get(q->body, "core_cnts")
               || json_object_get(q->body, "gpu_cnt")) {
        b = pick_for_parts(ctld, q->body, pool, q->start, q->end, q->flags);
        q->errnum = b ? 0 : EDRV_NODES_BUSY;
    } else {
        q->why = "Nodes= or NodeCnt= is required";
    }
    if (b && !bitmap_count(b)) {
        bitmap_destroy(b);
        b = NULL;
    }
    if (!b && !q->errnum)
        q->errnum = EDRV_INVALID_NODE_NAME;
    return b;
}

/* Busy nodes and overlapping reservations refuse it.  0, or -1. */
static int ask_fits(struct ctld *ctld, struct ask *q, const bitmap_t *b,
                    json_t *parts)
{
    if (!(q->flags & RESV_OVERLAP)
        && overlaps_other(ctld, q->old, b, q->start, q->end))
        q->errnum = EDRV_RESERVATION_OVERLAP;
    else if (!(q->flags & RESV_IGNORE_JOBS) && (!q->old || q->nodes)
             && busy_for(ctld, b, parts, q->start))
        q->errnum = EDRV_NODES_BUSY;
    return q->errnum ? -1 : 0;
}

/* A text of the body, else the old reservation's ('fallback'). */
static char *body_or(json_t *body, const char *key, char *fallback)
{
    json_t *v = json_object_get(body, key);

    return v ? (char *)json_string_value(v) : fallback;
}

/* The record of the checked ask on nodes 'b' with 'parts' (consumed). */
static json_t *ask_record(struct ctld *ctld, const struct ask *q,
                          const bitmap_t *b, json_t *parts)
{
    const char *pname = json_string_value(json_object_get(q->body,
                                                          "partition"));
    struct resv r = {
        .name = (char *)json_string_value(json_object_get(q->body, "name")),
        .start = q->start, .end = q->end,
        .node_list = node_table_hostlist(ctld->nodes, b),
        .flags = q->flags,
        .purge_s = q->flags & RESV_PURGE_COMP ? q->purge_s : 0,
        .users = body_or(q->body, "users", q->old ? q->old->users : NULL),
        .accounts = body_or(q->body, "accounts",
                            q->old ? q->old->accounts : NULL),
        .partition = (char *)(pname ? pname
                                    : q->old ? q->old->partition : NULL),
    };
    json_t *rec = resv_to_json(ctld, &r);

    if (parts)
        json_object_set_new(rec, "parts", parts);
    free(r.node_list);
    return rec;
}

/* The record a create or update asks for, checked: 'old' (update) gives
 * what the body leaves out.  NULL with *errnum and 'why'. */
static json_t *build(struct ctld *ctld, json_t *body, const struct resv *old,
                     time_t now, int *errnum, const char **why)
{
    struct ask q = {.body = body, .old = old};
    const char *pname = json_string_value(json_object_get(body, "partition"));
    json_t *rec = NULL, *parts = NULL;
    bitmap_t *b = NULL;

    q.nodes = json_string_value(json_object_get(body, "nodes"));
    if (pname && !(q.part = node_table_partition(ctld->nodes, pname)))
        q.errnum = EDRV_INVALID_PARTITION_NAME;
    if (!q.errnum && ask_window(&q, now) == 0 && (b = ask_nodes(ctld, &q))) {
        parts = build_parts(ctld, body, old, q.nodes != NULL, b, &q.errnum,
                            &q.why);
        if (!q.errnum && ask_fits(ctld, &q, b, parts) == 0) {
            rec = ask_record(ctld, &q, b, parts);
            parts = NULL;
        }
    }
    json_decref(parts);
    bitmap_destroy(b);
    *errnum = q.errnum;
    *why = q.why;
    return rec;
}

/* A name for a reservation created without one: Slurm's USER_N. */
static char *default_name(struct ctld *ctld, json_t *body)
{
    const char *who = json_string_value(json_object_get(body, "users"));
    char base[64];

    if (!who || !*who)
        who = json_string_value(json_object_get(body, "accounts"));
    snprintf(base, sizeof(base), "%.*s", (int)strcspn(who ? who : "resv", ","),
             who ? who : "resv");
    for (unsigned n = 1;; n++) {
        char *name = xasprintf("%s_%u", base, n);
        if (!resv_find(ctld, name))
            return name;
        free(name);
    }
}

static void change(struct ctld *ctld, proto_req_t *req, const char *op,
                   json_t *rec, json_t *answer)
{
    struct ctld_event ev = {.type = CTLD_EV_RESV_CHANGED,
                            .t = ctld_now(ctld),
                            .resv = json_pack("{s:s s:o}", "op", op, "resv",
                                              rec)};

    if (ctld_apply(ctld, &ev) < 0) {
        json_decref(ev.resv);
        json_decref(answer);
        return answer_error(req, EDRV_RESERVATION_INVALID, NULL);
    }
    /* 'rec' belongs to ev.resv: named before it goes */
    log_info("reservation %s: %s by uid %u",
             json_string_value(json_object_get(rec, "name")), op,
             (unsigned)proto_req_uid(req));
    json_decref(ev.resv);
    ctld_respond_durable(ctld, req, answer);
    scheduler_request(ctld);
}

static void rpc_resv_create(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *body = json_deep_copy(proto_req_body(req)), *rec;
    const char *why;
    int errnum;

    if (!operator(req)) {
        json_decref(body);
        return answer_error(req, EDRV_USER_ID_MISSING, NULL);
    }
    if (!json_string_value(json_object_get(body, "name"))) {
        char *name = default_name(ctld, body);
        json_object_set_new(body, "name", json_string(name));
        free(name);
    }
    if (resv_find(ctld, json_string_value(json_object_get(body, "name")))) {
        json_decref(body);
        return answer_error(req, EDRV_RESERVATION_NAME_DUP, NULL);
    }
    if (!(rec = build(ctld, body, NULL, ctld_now(ctld), &errnum, &why))) {
        json_decref(body);
        return answer_error(req, errnum, why);
    }
    change(ctld, req, "create", rec,
           json_pack("{s:O}", "name", json_object_get(body, "name")));
    json_decref(body);
}

static void rpc_resv_update(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *body = proto_req_body(req), *rec;
    struct resv *old = resv_find(
        ctld, json_string_value(json_object_get(body, "name")));
    const char *why;
    int errnum;

    if (!operator(req))
        return answer_error(req, EDRV_USER_ID_MISSING, NULL);
    if (!old)
        return answer_error(req, EDRV_RESERVATION_INVALID, NULL);
    if (!(rec = build(ctld, body, old, ctld_now(ctld), &errnum, &why)))
        return answer_error(req, errnum, why);
    change(ctld, req, "update", rec, NULL);
}

static void rpc_resv_delete(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    struct resv *r = resv_find(
        ctld, json_string_value(json_object_get(proto_req_body(req),
                                                "name")));

    if (!operator(req))
        return answer_error(req, EDRV_USER_ID_MISSING, NULL);
    if (!r)
        return answer_error(req, EDRV_RESERVATION_INVALID, NULL);
    change(ctld, req, "delete", json_pack("{s:s}", "name", r->name), NULL);
}

static void rpc_resv_info(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    const char *name = json_string_value(json_object_get(proto_req_body(req),
                                                         "name"));
    time_t now = ctld_now(ctld);
    json_t *list = json_array();
    struct resv *r, *tmp;

    HASH_ITER(hh, ctld->resvs, r, tmp) {
        json_t *o;
        uint32_t cores = 0, gpus = 0;
        if (name && strcmp(name, r->name))
            continue;
        if (r->part)
            resv_parts_totals(r->part, &cores, &gpus);
        for (size_t i = 0; !r->part && i < ctld->nodes->count; i++)
            if (bitmap_test(r->nodes, i))
                cores += ctld->nodes->sched[i].cpus;
        o = resv_to_json(ctld, r);
        if (gpus)
            json_object_set_new(o, "gpu_cnt", json_integer(gpus));
        json_object_set_new(o, "node_cnt",
                            json_integer((json_int_t)bitmap_count(r->nodes)));
        json_object_set_new(o, "core_cnt", json_integer(cores));
        json_object_set_new(o, "active", json_boolean(resv_active(r, now)));
        json_array_append_new(list, o);
    }
    if (proto_respond(req, json_pack("{s:I s:o}", "now", (json_int_t)now,
                                     "reservations", list))
        < 0)
        log_err("resv_info: responding");
}

const struct proto_handler rpc_resv_handlers[] = {
    {"resv_create", rpc_resv_create, PROTO_ROLE_USER},
    {"resv_update", rpc_resv_update, PROTO_ROLE_USER},
    {"resv_delete", rpc_resv_delete, PROTO_ROLE_USER},
    {"resv_info", rpc_resv_info, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
