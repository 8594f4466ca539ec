/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_trigger.c - trigger_set, trigger_info, trigger_clear: the requests
 * behind strigger --set, --get and --clear (trigger.h)
 *
 * Who may do what, as slurmctld 22.05: with SlurmUser not root, only
 * SlurmUser sets triggers (root too is refused: the controller could not
 * run anyone else's program as its own user); with SlurmUser root, root
 * sets any trigger and other users job triggers on their own jobs (a
 * node trigger: Access/permission denied).  Everyone lists every trigger.
 * Root and SlurmUser clear any trigger, others their own; a clear that
 * matches nothing is ESRCH ("No such process"), one that matches only
 * others' triggers Access/permission denied.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/ident.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/trigger.h"
#include "ctld/trigger_private.h"
#include "proto/job_state.h"

static void answer_error(proto_req_t *req, int errnum, const char *text)
{
    if (proto_respond_error(req, errnum, text) < 0)
        log_err("trigger: responding");
}

/* Is the sender root or SlurmUser (by uid: a JWT of root's counts)? */
static bool slurm_user(const struct ctld *ctld, proto_req_t *req)
{
    uid_t uid = proto_req_uid(req);

    return uid == 0 || uid == ctld->slurm_uid;
}

/* May the sender set a trigger of 'type' (on job 'job' for job types)? */
static int may_set(struct ctld *ctld, proto_req_t *req,
                   enum trigger_type type, const struct job *job)
{
    uid_t uid = proto_req_uid(req);

    if (ctld->slurm_uid != 0 && uid != ctld->slurm_uid) {
        log_info("trigger_set: uid %u is not SlurmUser: denied",
                 (unsigned)uid);
        return EDRV_ACCESS_DENIED;
    }
    if (slurm_user(ctld, req))
        return 0;
    if (!trigger_type_is_job(type) || job->uid != uid)
        return EDRV_ACCESS_DENIED;
    return 0;
}

/* The trigger_set body's checks; 0, or an errnum with *why (static). */
static int check_set(struct ctld *ctld, json_t *body, int type,
                     struct job **job, const char **why)
{
    const char *program = json_string_value(json_object_get(body, "program"));
    const char *nodes = json_string_value(json_object_get(body, "nodes"));
    static char text[256];
    drv_error_t error = {0};
    bitmap_t *b;

    *why = NULL;
    if (type < 0) {
        *why = "unknown trigger type";
        return EINVAL;
    }
    if (!program || program[0] != '/') {
        *why = "the program must be an absolute path";
        return EINVAL;
    }
    if (!trigger_type_is_job((enum trigger_type)type)) {
        if (nodes && strcmp(nodes, "*")) {
            if (!(b = node_table_bitmap(ctld->nodes, nodes, &error))) {
                snprintf(text, sizeof(text), "%s", error.text);
                *why = text;
                return EDRV_INVALID_NODE_NAME;
            }
            bitmap_destroy(b);
        }
        return 0;
    }
    *job = ctld_job_find(ctld, (uint32_t)json_integer_value(
                                   json_object_get(body, "job_id")));
    if (!*job)
        return EDRV_INVALID_JOB_ID;
    if (job_state_is_final((int)(*job)->state))
        return EDRV_ALREADY_DONE;
    return 0;
}

/* The new trigger's record (trigger.h), id 'id', set by the sender. */
static json_t *record(struct ctld *ctld, proto_req_t *req, json_t *body,
                      int type, uint32_t id)
{
    const struct ident_user *u =
        ident_user(ctld->ident, proto_req_uid(req), ctld_now(ctld));
    const char *nodes = json_string_value(json_object_get(body, "nodes"));
    json_t *rec = json_pack(
        "{s:I s:s s:I s:I s:I s:s s:b s:O}", "id", (json_int_t)id, "type",
        trigger_type_name((enum trigger_type)type), "offset",
        json_integer_value(json_object_get(body, "offset")), "uid",
        (json_int_t)proto_req_uid(req), "gid",
        (json_int_t)(u->known ? u->gid : proto_req_gid(req)), "user",
        u->known ? u->name : "?", "perm",
        json_is_true(json_object_get(body, "perm")), "program",
        json_object_get(body, "program"));
    char uidbuf[32];

    if (!u->known) { /* no passwd entry: the number, as Slurm prints it */
        snprintf(uidbuf, sizeof(uidbuf), "%u", (unsigned)proto_req_uid(req));
        json_object_set_new(rec, "user", json_string(uidbuf));
    }
    if (trigger_type_is_job((enum trigger_type)type))
        json_object_set(rec, "job_id", json_object_get(body, "job_id"));
    else if (nodes && strcmp(nodes, "*"))
        json_object_set_new(rec, "nodes", json_string(nodes));
    return rec;
}

static void rpc_trigger_set(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *body = proto_req_body(req);
    int type = trigger_type_parse(
        json_string_value(json_object_get(body, "type")));
    uint32_t id = trigger_next_id(ctld);
    struct ctld_event ev = {.type = CTLD_EV_TRIGGER_SET,
                            .t = ctld_now(ctld)};
    struct job *job = NULL;
    const char *why;
    int errnum;

    if ((errnum = check_set(ctld, body, type, &job, &why))
        || (errnum = may_set(ctld, req, (enum trigger_type)type, job)))
        return answer_error(req, errnum, why);
    ev.trigger = record(ctld, req, body, type, id);
    if (!triggers_of(ctld)->head) /* the first: its nodes' baseline */
        trigger_watch(ctld, ev.t);
    if (ctld_apply(ctld, &ev) < 0) {
        json_decref(ev.trigger);
        return answer_error(req, EINVAL, "trigger not recorded");
    }
    log_info("trigger %u set by uid %u: %s %s", id,
             (unsigned)proto_req_uid(req),
             json_string_value(json_object_get(ev.trigger, "type")),
             json_string_value(json_object_get(ev.trigger, "program")));
    json_decref(ev.trigger);
    ctld_respond_durable(ctld, req, json_pack("{s:I}", "id",
                                              (json_int_t)id));
}

static void rpc_trigger_info(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *list = json_array();

    for (struct trigger *t = trigger_list(ctld); t; t = t->next)
        json_array_append_new(list, trigger_to_json(t));
    if (proto_respond(req, json_pack("{s:o}", "triggers", list)) < 0)
        log_err("trigger_info: responding");
}

/* Does 't' match the clear request 'body' ({"id","job_id","user_id"},
 * each optional)? */
static bool clear_matches(const struct trigger *t, json_t *body)
{
    json_t *id = json_object_get(body, "id");
    json_t *job = json_object_get(body, "job_id");
    json_t *user = json_object_get(body, "user_id");

    if (id && json_integer_value(id) != (json_int_t)t->id)
        return false;
    if (job && (!trigger_type_is_job(t->type)
                || json_integer_value(job) != (json_int_t)t->job_id))
        return false;
    return !user || json_integer_value(user) == (json_int_t)t->uid;
}

static void rpc_trigger_clear(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *body = proto_req_body(req), *ids = json_array();
    bool any_user = slurm_user(ctld, req), denied = false;
    struct ctld_event ev = {.type = CTLD_EV_TRIGGER_CLEARED,
                            .t = ctld_now(ctld)};

    if (!json_object_get(body, "id") && !json_object_get(body, "job_id")
        && !json_object_get(body, "user_id")) {
        json_decref(ids);
        return answer_error(req, EINVAL, "give an id, a job id or a user");
    }
    for (struct trigger *t = trigger_list(ctld); t; t = t->next) {
        if (!clear_matches(t, body))
            continue;
        if (!any_user && t->uid != proto_req_uid(req))
            denied = true;
        else
            json_array_append_new(ids, json_integer(t->id));
    }
    if (!json_array_size(ids)) {
        json_decref(ids);
        return answer_error(req, denied ? EDRV_ACCESS_DENIED : ESRCH, NULL);
    }
    ev.trigger = json_pack("{s:o}", "ids", ids);
    ctld_apply(ctld, &ev);
    json_decref(ev.trigger);
    ctld_respond_durable(ctld, req, json_object());
}

const struct proto_handler rpc_trigger_handlers[] = {
    {"trigger_set", rpc_trigger_set, PROTO_ROLE_USER},
    {"trigger_info", rpc_trigger_info, PROTO_ROLE_USER},
    {"trigger_clear", rpc_trigger_clear, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
