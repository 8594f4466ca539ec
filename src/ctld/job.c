/* SPDX-License-Identifier: Apache-2.0
 *
 * job.c - job states, and the job record to and from JSON
 *
 * The journal, snapshots and job_info share these shapes, so a field added
 * here is saved, restored and shown at once.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/bitmap.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/depend.h"
#include "ctld/job.h"
#include "ctld/step.h"

static const struct {
    const char *name;
    const char *code;
} job_states[JOB_STATE_COUNT] = {
    [JOB_PENDING] = {"PENDING", "PD"},     [JOB_RUNNING] = {"RUNNING", "R"},
    [JOB_COMPLETED] = {"COMPLETED", "CD"}, [JOB_FAILED] = {"FAILED", "F"},
    [JOB_CANCELLED] = {"CANCELLED", "CA"}, [JOB_TIMEOUT] = {"TIMEOUT", "TO"},
    [JOB_NODE_FAIL] = {"NODE_FAIL", "NF"}, [JOB_OOM] = {"OUT_OF_MEMORY", "OOM"},
};

static const char *const job_reasons[] = {
#define X(name, text) text,
    JOB_REASONS(X)
#undef X
};

const char *job_state_string(enum job_state s)
{
    return s < JOB_STATE_COUNT ? job_states[s].name : "UNKNOWN";
}

const char *job_state_short(enum job_state s)
{
    return s < JOB_STATE_COUNT ? job_states[s].code : "??";
}

const char *job_reason_string(enum job_reason r)
{
    if ((size_t)r < sizeof(job_reasons) / sizeof(job_reasons[0]))
        return job_reasons[r];
    return "None";
}

static int job_reason_parse(const char *s)
{
    for (size_t i = 0; i < sizeof(job_reasons) / sizeof(job_reasons[0]); i++)
        if (!strcmp(s, job_reasons[i]))
            return (int)i;
    return JOB_REASON_NONE;
}

bool job_state_is_final(enum job_state s)
{
    return s != JOB_PENDING && s != JOB_RUNNING;
}

int job_state_parse(const char *s)
{
    for (int i = 0; i < JOB_STATE_COUNT; i++)
        if (!strcmp(s, job_states[i].name) || !strcmp(s, job_states[i].code))
            return i;
    return -1;
}

struct job *job_create(uint32_t id)
{
    struct job *job = xzalloc(sizeof(*job));

    job->id = id;
    job->state = JOB_PENDING;
    job->requeue = true;
    job->time_limit_s = TIME_INFINITE;
    job->cancelled_by = -1;
    job->req.cpus_per_task = 1; /* nodes and tasks: 0 = as src/sched decides */
    return job;
}

void job_destroy(struct job *job)
{
    if (!job)
        return;
    free(job->name);
    free(job->user_name);
    free(job->group_name);
    free(job->partition);
    free(job->gres);
    free(job->gpu_type);
    sched_alloc_destroy(job->alloc);
    free(job->nodes);
    free(job->last_nodes);
    free(job->sched_nodes);
    free(job->last_alloc_json);
    free(job->work_dir);
    free(job->std_out);
    free(job->std_err);
    free(job->std_in);
    free(job->comment);
    free(job->account);
    free(job->qos);
    free(job->command);
    free(job->submit_host);
    job_place_clear(&job->place);
    json_decref(job->launch);
    job_array_destroy(job->array);
    job_depend_destroy(job->depend);
    job_steps_destroy(job->steps);
    free(job);
}

json_t *job_alloc_to_json(const struct sched_alloc *a,
                          const char *const *node_names)
{
    json_t *arr;

    if (!a)
        return NULL;
    arr = json_array();
    for (uint32_t i = 0; i < a->node_count; i++) {
        char *gpus = a->gpus && a->gpus[i] ? bitmap_fmt(a->gpus[i]) : NULL;
        json_array_append_new(
            arr, json_pack("{s:s s:i s:i s:I s:s}", "node",
                           node_names[a->node_idx[i]], "tasks", a->tasks[i],
                           "cpus", a->cpus[i],
                           "mem_mib", (json_int_t)a->mem_mib[i], "gpus",
                           gpus ? gpus : ""));
        free(gpus);
    }
    return arr;
}

static void set_str(json_t *o, const char *key, const char *val)
{
    if (val)
        json_object_set_new(o, key, json_string(val));
}

/* Set only when given: most jobs ask for none of these. */
static void set_nonzero(json_t *o, const char *key, json_int_t v)
{
    if (v)
        json_object_set_new(o, key, json_integer(v));
}

static json_t *job_req_to_json(const struct job *job)
{
    const struct sched_request *r = &job->req;
    json_t *o = json_pack(
        "{s:i s:i s:i s:i s:i s:I s:I s:i s:i s:b}", "nodes_min", r->min_nodes,
        "nodes_max", r->max_nodes, "num_tasks", r->ntasks, "cpus_per_task",
        r->cpus_per_task, "ntasks_per_node", r->ntasks_per_node,
        "mem_per_node_mib", (json_int_t)r->mem_per_node_mib, "mem_per_cpu_mib",
        (json_int_t)r->mem_per_cpu_mib, "gpus_per_node", r->gpus_per_node,
        "gpus", r->gpus_total, "exclusive", r->exclusive);

    if (o) {
        set_nonzero(o, "gpus_per_task", r->gpus_per_task);
        set_nonzero(o, "cpus_per_gpu", r->cpus_per_gpu);
        set_nonzero(o, "mem_per_gpu_mib", (json_int_t)r->mem_per_gpu_mib);
    }
    return o;
}

json_t *job_to_json(const struct job *job, const char *const *node_names,
                    int flags)
{
    json_t *o = json_pack(
        "{s:I s:i s:i s:s s:s s:b s:b s:b s:I s:i s:b s:b s:I s:I s:I s:I s:I "
        "s:i s:b s:i}",
        "job_id", (json_int_t)job->id, "user_id", (int)job->uid, "group_id",
        (int)job->gid, "job_state", job_state_string(job->state),
        "state_reason", job_reason_string(job->reason), "completing",
        job->completing, "cancel_requested", job->cancel_requested,
        "requeue_requested", job->requeue_requested, "priority",
        (json_int_t)job->priority, "nice", job->nice, "hold", job->hold,
        "hold_admin", job->hold_admin, "submit_time",
        (json_int_t)job->submit_time, "eligible_time",
        (json_int_t)job->eligible_time, "start_time",
        (json_int_t)job->start_time, "end_time", (json_int_t)job->end_time,
        "time_limit_s", (json_int_t)job->time_limit_s, "exit_status",
        job->exit_status, "requeue", job->requeue, "restarts",
        (int)job->restarts);

    if (!o)
        return NULL;
    json_t *req = job_req_to_json(job);
    json_object_update(o, req);
    json_decref(req);
    if (job->interactive)
        json_object_set_new(o, "interactive", json_true());
    if (job->run_id)
        json_object_set_new(o, "run_id", json_integer(job->run_id));
    if (job->next_step_id)
        json_object_set_new(o, "next_step_id",
                            json_integer(job->next_step_id));
    job_place_to_json(&job->place, o);
    set_str(o, "name", job->name);
    set_str(o, "user_name", job->user_name);
    set_str(o, "group_name", job->group_name);
    set_str(o, "partition", job->partition);
    set_str(o, "gres", job->gres);
    set_str(o, "gpu_type", job->gpu_type);
    set_str(o, "work_dir", job->work_dir);
    set_str(o, "std_out", job->std_out);
    set_str(o, "std_err", job->std_err);
    set_str(o, "std_in", job->std_in);
    set_str(o, "comment", job->comment);
    set_str(o, "account", job->account);
    set_str(o, "qos", job->qos);
    set_str(o, "command", job->command);
    set_str(o, "submit_host", job->submit_host);
    set_str(o, "nodes", job->nodes ? job->nodes : "");
    set_str(o, "last_nodes", job->last_nodes);
    if (job->alloc)
        json_object_set_new(o, "alloc",
                            job_alloc_to_json(job->alloc, node_names));
    else if (job->last_alloc_json)
        json_object_set_new(o, "last_alloc",
                            json_loads(job->last_alloc_json, 0, NULL));
    array_to_json(job, o, flags & JOB_JSON_INFO);
    depend_to_json(job, o);
    if (job->steps)
        json_object_set_new(o, "steps", job_steps_to_json(job, true));
    /* Split-off array tasks share the master's script (array.h). */
    if ((flags & JOB_JSON_LAUNCH) && job->launch
        && !(job->array && job->array->job_id != job->id))
        json_object_set(o, "launch", job->launch);
    return o;
}

/* String fields shared by the journal, snapshots and job_submit. */
static const struct {
    const char *key;
    size_t off;
} job_str_fields[] = {
    {"name", offsetof(struct job, name)},
    {"user_name", offsetof(struct job, user_name)},
    {"group_name", offsetof(struct job, group_name)},
    {"partition", offsetof(struct job, partition)},
    {"gres", offsetof(struct job, gres)},
    {"gpu_type", offsetof(struct job, gpu_type)},
    {"work_dir", offsetof(struct job, work_dir)},
    {"std_out", offsetof(struct job, std_out)},
    {"std_err", offsetof(struct job, std_err)},
    {"std_in", offsetof(struct job, std_in)},
    {"comment", offsetof(struct job, comment)},
    {"account", offsetof(struct job, account)},
    {"qos", offsetof(struct job, qos)},
    {"command", offsetof(struct job, command)},
    {"submit_host", offsetof(struct job, submit_host)},
    {"last_nodes", offsetof(struct job, last_nodes)},
};

enum int_kind { K_U32, K_I32, K_I64, K_TIME, K_BOOL, K_U64 };

static const struct {
    const char *key;
    size_t off;
    enum int_kind kind;
} job_int_fields[] = {
    {"user_id", offsetof(struct job, uid), K_U32},
    {"group_id", offsetof(struct job, gid), K_U32},
    {"priority", offsetof(struct job, priority), K_U32},
    {"nice", offsetof(struct job, nice), K_I32},
    {"hold", offsetof(struct job, hold), K_BOOL},
    {"hold_admin", offsetof(struct job, hold_admin), K_BOOL},
    {"completing", offsetof(struct job, completing), K_BOOL},
    {"cancel_requested", offsetof(struct job, cancel_requested), K_BOOL},
    {"requeue_requested", offsetof(struct job, requeue_requested), K_BOOL},
    {"cancelled_by", offsetof(struct job, cancelled_by), K_I64},
    {"submit_time", offsetof(struct job, submit_time), K_TIME},
    {"eligible_time", offsetof(struct job, eligible_time), K_TIME},
    {"start_time", offsetof(struct job, start_time), K_TIME},
    {"end_time", offsetof(struct job, end_time), K_TIME},
    {"time_limit_s", offsetof(struct job, time_limit_s), K_I64},
    {"exit_status", offsetof(struct job, exit_status), K_I32},
    {"requeue", offsetof(struct job, requeue), K_BOOL},
    {"interactive", offsetof(struct job, interactive), K_BOOL},
    {"restarts", offsetof(struct job, restarts), K_U32},
    {"run_id", offsetof(struct job, run_id), K_U32},
    {"next_step_id", offsetof(struct job, next_step_id), K_U32},
    {"nodes_min", offsetof(struct job, req.min_nodes), K_U32},
    {"nodes_max", offsetof(struct job, req.max_nodes), K_U32},
    {"num_tasks", offsetof(struct job, req.ntasks), K_U32},
    {"cpus_per_task", offsetof(struct job, req.cpus_per_task), K_U32},
    {"ntasks_per_node", offsetof(struct job, req.ntasks_per_node), K_U32},
    {"mem_per_node_mib", offsetof(struct job, req.mem_per_node_mib), K_U64},
    {"mem_per_cpu_mib", offsetof(struct job, req.mem_per_cpu_mib), K_U64},
    {"gpus_per_node", offsetof(struct job, req.gpus_per_node), K_U32},
    {"gpus", offsetof(struct job, req.gpus_total), K_U32},
    {"gpus_per_task", offsetof(struct job, req.gpus_per_task), K_U32},
    {"cpus_per_gpu", offsetof(struct job, req.cpus_per_gpu), K_U32},
    {"mem_per_gpu_mib", offsetof(struct job, req.mem_per_gpu_mib), K_U64},
    {"exclusive", offsetof(struct job, req.exclusive), K_BOOL},
};

/* job_field_lookup() handles: small ids, then the two tables. */
enum {
    FIELD_JOB_ID,
    FIELD_STATE,
    FIELD_REASON,
    FIELD_STR = 0x100,
    FIELD_INT = 0x200,
    FIELD_OMIT_ZERO = 0x400, /* set_nonzero() in job_req_to_json() */
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

int job_field_lookup(const char *key)
{
    if (!strcmp(key, "job_id"))
        return FIELD_JOB_ID;
    if (!strcmp(key, "job_state"))
        return FIELD_STATE;
    if (!strcmp(key, "state_reason"))
        return FIELD_REASON;
    for (size_t i = 0; i < NELEM(job_str_fields); i++)
        if (!strcmp(key, job_str_fields[i].key))
            return FIELD_STR | (int)i;
    for (size_t i = 0; i < NELEM(job_int_fields); i++) {
        if (strcmp(key, job_int_fields[i].key))
            continue;
        if (!strcmp(key, "gpus_per_task") || !strcmp(key, "cpus_per_gpu")
            || !strcmp(key, "mem_per_gpu_mib"))
            return FIELD_INT | FIELD_OMIT_ZERO | (int)i;
        return FIELD_INT | (int)i;
    }
    return -1;
}

static json_int_t int_field(const struct job *job, size_t i)
{
    const char *base = (const char *)job + job_int_fields[i].off;

    switch (job_int_fields[i].kind) {
    case K_U32:
        return *(const uint32_t *)base;
    case K_I32:
        return *(const int *)base;
    case K_I64:
        return *(const int64_t *)base;
    case K_U64:
        return (json_int_t) * (const uint64_t *)base;
    case K_TIME:
        return *(const time_t *)base;
    case K_BOOL:
        return *(const bool *)base;
    }
    return 0;
}

void job_field_put(const struct job *job, int field, json_t *o)
{
    size_t i = (size_t)field & 0xff;
    json_int_t v;

    if (field == FIELD_JOB_ID)
        json_object_set_new(o, "job_id", json_integer(job->id));
    else if (field == FIELD_STATE)
        set_str(o, "job_state", job_state_string(job->state));
    else if (field == FIELD_REASON)
        set_str(o, "state_reason", job_reason_string(job->reason));
    else if (field & FIELD_STR)
        set_str(o, job_str_fields[i].key,
                *(char *const *)((const char *)job + job_str_fields[i].off));
    else if (field & FIELD_INT) {
        v = int_field(job, i);
        if (job_int_fields[i].kind == K_BOOL)
            json_object_set_new(o, job_int_fields[i].key, json_boolean(v));
        else if (v || !(field & FIELD_OMIT_ZERO))
            json_object_set_new(o, job_int_fields[i].key, json_integer(v));
    }
}

static void apply_int(struct job *job, size_t i, json_t *v)
{
    char *base = (char *)job + job_int_fields[i].off;
    json_int_t n = json_is_boolean(v) ? json_is_true(v) : json_integer_value(v);

    switch (job_int_fields[i].kind) {
    case K_U32:
        *(uint32_t *)base = (uint32_t)n;
        break;
    case K_I32:
        *(int *)base = (int)n;
        break;
    case K_I64:
        *(int64_t *)base = n;
        break;
    case K_U64:
        *(uint64_t *)base = (uint64_t)n;
        break;
    case K_TIME:
        *(time_t *)base = (time_t)n;
        break;
    case K_BOOL:
        *(bool *)base = n != 0;
        break;
    }
}

struct sched_alloc *job_alloc_from_json(json_t *arr,
                                       long (*node_index)(const char *,
                                                          uint32_t *, void *),
                                       void *arg, drv_error_t *error)
{
    size_t n = json_array_size(arr);
    struct sched_alloc *a;
    size_t i;
    json_t *e;

    if (!json_is_array(arr) || n == 0) {
        errprintf(error, "allocation is not a list of nodes");
        return NULL;
    }
    if (!(a = sched_alloc_create(n))) {
        errprintf(error, "out of memory");
        return NULL;
    }
    json_array_foreach(arr, i, e) {
        const char *node = "", *gpus = "";
        int cpus = 0, tasks = 1;
        json_int_t mem = 0;
        uint32_t ngpus = 0;
        long idx;

        json_unpack(e, "{s?s s?i s?i s?I s?s}", "node", &node, "tasks",
                    &tasks, "cpus", &cpus,
                    "mem_mib", &mem, "gpus", &gpus);
        if ((idx = node_index(node, &ngpus, arg)) < 0) {
            sched_alloc_destroy(a);
            errprintf(error, "unknown node '%s' in allocation", node);
            return NULL;
        }
        a->node_idx[i] = (uint32_t)idx;
        a->cpus[i] = (uint32_t)cpus;
        a->tasks[i] = (uint32_t)tasks;
        a->mem_mib[i] = (uint64_t)mem;
        if (*gpus && !(a->gpus[i] = bitmap_parse(gpus, ngpus, NULL))) {
            sched_alloc_destroy(a);
            errprintf(error, "bad GPU set '%s'", gpus);
            return NULL;
        }
    }
    return a;
}

static int apply_alloc(struct job *job, json_t *arr,
                       long (*node_index)(const char *, uint32_t *, void *), void *arg,
                       drv_error_t *error)
{
    drv_error_t e = {{0}};

    sched_alloc_destroy(job->alloc);
    job->alloc = NULL;
    if (!json_is_array(arr) || json_array_size(arr) == 0)
        return 0;
    if (!(job->alloc = job_alloc_from_json(arr, node_index, arg, &e)))
        return errprintf(error, "JobId=%u: %s", job->id, e.text);
    job->alloc->exclusive = job->req.exclusive;
    return 0;
}

int job_apply_json(struct job *job, json_t *o,
                   long (*node_index)(const char *name, uint32_t *ngpus, void *arg), void *arg,
                   drv_error_t *error)
{
    json_t *v;

    for (size_t i = 0; i < sizeof(job_str_fields) / sizeof(job_str_fields[0]);
         i++) {
        if ((v = json_object_get(o, job_str_fields[i].key))
            && json_is_string(v)) {
            char **dst = (char **)((char *)job + job_str_fields[i].off);
            free(*dst);
            *dst = xstrdup(json_string_value(v));
        }
    }
    for (size_t i = 0; i < sizeof(job_int_fields) / sizeof(job_int_fields[0]);
         i++) {
        if ((v = json_object_get(o, job_int_fields[i].key))
            && (json_is_integer(v) || json_is_boolean(v)))
            apply_int(job, i, v);
    }
    job->req.gpu_type = job->gpu_type;
    if ((v = json_object_get(o, "job_state")) && json_is_string(v)) {
        int s = job_state_parse(json_string_value(v));
        if (s < 0)
            return errprintf(error, "JobId=%u: bad job_state", job->id);
        job->state = (enum job_state)s;
    }
    if ((v = json_object_get(o, "state_reason")) && json_is_string(v))
        job->reason = (enum job_reason)job_reason_parse(json_string_value(v));
    if ((v = json_object_get(o, "nodes")) && json_is_string(v)) {
        free(job->nodes);
        job->nodes = *json_string_value(v) ? xstrdup(json_string_value(v))
                                           : NULL;
    }
    if ((v = json_object_get(o, "last_alloc"))) {
        free(job->last_alloc_json);
        job->last_alloc_json = json_dumps(v, JSON_COMPACT);
    }
    if ((v = json_object_get(o, "launch"))) {
        json_decref(job->launch);
        job->launch = json_is_object(v) ? json_incref(v) : NULL;
    }
    job_place_apply_json(&job->place, o);
    array_apply_json(job, o);
    depend_apply_json(job, o);
    if ((v = json_object_get(o, "steps"))
        && job_steps_apply_json(job, v, error) < 0)
        return -1;
    if ((v = json_object_get(o, "alloc")))
        return apply_alloc(job, v, node_index, arg, error);
    return 0;
}
