/* SPDX-License-Identifier: Apache-2.0
 *
 * trigger.c - the trigger table, its events and snapshot (trigger.h)
 *
 * The periodic check and the programs are in trigger_fire.c.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/trigger.h"
#include "ctld/trigger_private.h"

static const char *const type_names[TRIGGER_TYPE_COUNT] = {
    [TRIGGER_DOWN] = "down", [TRIGGER_DRAINED] = "drained",
    [TRIGGER_UP] = "up",     [TRIGGER_IDLE] = "idle",
    [TRIGGER_FINI] = "fini", [TRIGGER_TIME] = "time",
    [TRIGGER_RECONFIG] = "reconfig",
};

int trigger_type_parse(const char *name)
{
    for (int i = 0; name && i < TRIGGER_TYPE_COUNT; i++)
        if (!strcmp(type_names[i], name))
            return i;
    return -1;
}

const char *trigger_type_name(enum trigger_type type)
{
    return (unsigned)type < TRIGGER_TYPE_COUNT ? type_names[type] : NULL;
}

bool trigger_type_is_job(enum trigger_type type)
{
    return type == TRIGGER_FINI || type == TRIGGER_TIME;
}

struct triggers *triggers_of(struct ctld *ctld)
{
    if (!ctld->triggers) {
        ctld->triggers = xzalloc(sizeof(*ctld->triggers));
        ctld->triggers->next_id = 1;
    }
    return ctld->triggers;
}

struct trigger *trigger_list(struct ctld *ctld)
{
    return triggers_of(ctld)->head;
}

uint32_t trigger_next_id(struct ctld *ctld)
{
    return triggers_of(ctld)->next_id;
}

static void trigger_free(struct trigger *t)
{
    if (!t)
        return;
    free(t->nodes_expr);
    bitmap_destroy(t->nodes);
    free(t->user);
    free(t->program);
    free(t);
}

json_t *trigger_to_json(const struct trigger *t)
{
    json_t *o = json_pack("{s:I s:s s:I s:I s:I s:s s:b s:s}", "id",
                          (json_int_t)t->id, "type", type_names[t->type],
                          "offset", (json_int_t)t->offset, "uid",
                          (json_int_t)t->uid, "gid", (json_int_t)t->gid,
                          "user", t->user, "perm", t->perm, "program",
                          t->program);

    if (trigger_type_is_job(t->type))
        json_object_set_new(o, "job_id", json_integer(t->job_id));
    else if (t->nodes_expr)
        json_object_set_new(o, "nodes", json_string(t->nodes_expr));
    if (t->fired_at)
        json_object_set_new(o, "fired_at", json_integer(t->fired_at));
    return o;
}

/* A trigger from its record; NULL (logged) for a bad one. */
static struct trigger *from_json(struct ctld *ctld, json_t *o)
{
    struct trigger *t = xzalloc(sizeof(*t));
    json_int_t id = json_integer_value(json_object_get(o, "id"));
    const char *nodes = json_string_value(json_object_get(o, "nodes"));
    const char *program = json_string_value(json_object_get(o, "program"));
    const char *user = json_string_value(json_object_get(o, "user"));
    int type = trigger_type_parse(
        json_string_value(json_object_get(o, "type")));
    drv_error_t error = {0};

    if (id <= 0 || id > UINT32_MAX || type < 0 || !program
        || program[0] != '/') {
        log_error("trigger: bad record ignored");
        free(t);
        return NULL;
    }
    t->id = (uint32_t)id;
    t->type = (enum trigger_type)type;
    t->job_id = (uint32_t)json_integer_value(json_object_get(o, "job_id"));
    t->offset = (int32_t)json_integer_value(json_object_get(o, "offset"));
    t->uid = (uid_t)json_integer_value(json_object_get(o, "uid"));
    t->gid = (gid_t)json_integer_value(json_object_get(o, "gid"));
    t->user = xstrdup(user ? user : "?");
    t->perm = json_is_true(json_object_get(o, "perm"));
    t->program = xstrdup(program);
    t->fired_at = (time_t)json_integer_value(json_object_get(o, "fired_at"));
    if (nodes && !trigger_type_is_job(t->type)) {
        t->nodes_expr = xstrdup(nodes);
        if (!(t->nodes = node_table_bitmap(ctld->nodes, nodes, &error))) {
            log_error("trigger %u: %s: ignored", t->id, error.text);
            trigger_free(t);
            return NULL;
        }
    }
    return t;
}

static struct trigger **find_link(struct triggers *ts, uint32_t id)
{
    struct trigger **p = &ts->head;

    while (*p && (*p)->id != id)
        p = &(*p)->next;
    return *p ? p : NULL;
}

static int add(struct ctld *ctld, json_t *rec)
{
    struct triggers *ts = triggers_of(ctld);
    struct trigger *t = from_json(ctld, rec), **tail = &ts->head;

    if (!t)
        return -1;
    if (find_link(ts, t->id)) {
        trigger_free(t);
        return -1;
    }
    while (*tail && (*tail)->id < t->id)
        tail = &(*tail)->next;
    t->next = *tail;
    *tail = t;
    if (t->id >= ts->next_id)
        ts->next_id = t->id + 1;
    return 0;
}

static int remove_id(struct triggers *ts, uint32_t id)
{
    struct trigger **p = find_link(ts, id), *t;

    if (!p)
        return -1;
    t = *p;
    *p = t->next;
    trigger_free(t);
    return 0;
}

static int clear(struct ctld *ctld, json_t *rec)
{
    struct triggers *ts = triggers_of(ctld);
    size_t i, removed = 0;
    json_t *v;

    json_array_foreach(json_object_get(rec, "ids"), i, v) {
        if (remove_id(ts, (uint32_t)json_integer_value(v)) == 0)
            removed++;
    }
    return removed ? 0 : -1;
}

static int fired(struct ctld *ctld, time_t t, json_t *rec)
{
    struct triggers *ts = triggers_of(ctld);
    uint32_t id = (uint32_t)json_integer_value(json_object_get(rec, "id"));
    struct trigger **p = find_link(ts, id);

    if (!p)
        return -1;
    if ((*p)->perm) {
        (*p)->fired_at = t;
        return 0;
    }
    return remove_id(ts, id);
}

int trigger_apply(struct ctld *ctld, enum ctld_event_type type, time_t t,
                  json_t *rec)
{
    switch (type) {
    case CTLD_EV_TRIGGER_SET:
        return add(ctld, rec);
    case CTLD_EV_TRIGGER_CLEARED:
        return clear(ctld, rec);
    case CTLD_EV_TRIGGER_FIRED:
        return fired(ctld, t, rec);
    default:
        return -1;
    }
}

json_t *trigger_snapshot(struct ctld *ctld)
{
    struct triggers *ts = triggers_of(ctld);
    json_t *list = json_array();

    for (struct trigger *t = ts->head; t; t = t->next)
        json_array_append_new(list, trigger_to_json(t));
    return json_pack("{s:I s:o}", "next_id", (json_int_t)ts->next_id,
                     "list", list);
}

static void free_all(struct triggers *ts)
{
    struct trigger *t, *next;

    for (t = ts->head; t; t = next) {
        next = t->next;
        trigger_free(t);
    }
    ts->head = NULL;
}

void trigger_restore(struct ctld *ctld, json_t *snap)
{
    struct triggers *ts = triggers_of(ctld);
    json_int_t next = json_integer_value(json_object_get(snap, "next_id"));
    size_t i;
    json_t *v;

    free_all(ts);
    json_array_foreach(json_object_get(snap, "list"), i, v)
        add(ctld, v);
    if (next > ts->next_id && next <= UINT32_MAX)
        ts->next_id = (uint32_t)next;
}

void trigger_fini(struct ctld *ctld)
{
    struct triggers *ts = ctld->triggers;

    if (!ts)
        return;
    free_all(ts);
    prog_run_destroy(ts->run);
    free(ts->seen);
    free(ts->idle_since);
    free(ts);
    ctld->triggers = NULL;
}
