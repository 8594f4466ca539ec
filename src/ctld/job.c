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
#include "common/strpool.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/depend.h"
#include "ctld/job.h"
#include "ctld/step.h"

/* CPU ids of a node are below this (Slurm's CPUs= is 16 bits). */
#define CPU_IDS_MAX 65536

const char *const job_container_keys[] = {
    "container", "container_image", "container_mounts", "container_workdir",
    NULL,
};

static const char *const job_reasons[] = {
#define X(name, text) text,
    JOB_REASONS(X)
#undef X
};

int64_t job_run_time(const struct job *job, time_t now)
{
    time_t end = job->end_time && job_state_is_final(job->state)
                     ? job->end_time : now;

    if (!job->start_time || job->state == JOB_PENDING)
        return 0;
    if (job->state == JOB_SUSPENDED)
        return job->pre_sus_s;
    if (job->suspend_time) /* resumed at suspend_time */
        return job->pre_sus_s
               + (end > job->suspend_time ? end - job->suspend_time : 0);
    return end > job->start_time ? end - job->start_time : 0;
}

const char *job_reason_string(enum job_reason r)
{
    if ((size_t)r < sizeof(job_reasons) / sizeof(job_reasons[0]))
        return job_reasons[r];
    return "None";
}

int job_reason_parse(const char *s)
{
    for (size_t i = 0; s && i < sizeof(job_reasons) / sizeof(job_reasons[0]);
         i++)
        if (!strcmp(s, job_reasons[i]))
            return (int)i;
    return -1;
}

/* The texts of every job record (job_set_str()). */
static struct strpool *job_strings;

void job_set_str(const char **field, const char *value)
{
    if (!job_strings)
        job_strings = strpool_create();
    strpool_set(job_strings, field, value);
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
    job_set_str(&job->name, NULL);
    job_set_str(&job->user_name, NULL);
    job_set_str(&job->group_name, NULL);
    job_set_str(&job->partition, NULL);
    job_set_str(&job->gres, NULL);
    job_set_str(&job->gpu_type, NULL);
    sched_alloc_destroy(job->alloc);
    free(job->nodes);
    free(job->last_nodes);
    free(job->sched_nodes);
    free(job->last_alloc_json);
    job_set_str(&job->work_dir, NULL);
    job_set_str(&job->std_out, NULL);
    job_set_str(&job->std_err, NULL);
    job_set_str(&job->std_in, NULL);
    job_set_str(&job->comment, NULL);
    job_set_str(&job->mail_user, NULL);
    job_set_str(&job->account, NULL);
    job_set_str(&job->qos, NULL);
    job_set_str(&job->reservation, NULL);
    job_set_str(&job->command, NULL);
    job_set_str(&job->submit_host, NULL);
    job_set_str(&job->cron_spec, NULL);
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
        char *ids = a->cpu_ids[i] ? bitmap_fmt(a->cpu_ids[i]) : NULL;
        json_t *o = json_pack("{s:s s:i s:i s:I s:s}", "node",
                              node_names[a->node_idx[i]], "tasks",
                              a->tasks[i], "cpus", a->cpus[i], "mem_mib",
                              (json_int_t)a->mem_mib[i], "gpus",
                              gpus ? gpus : "");
        if (o && ids)
            json_object_set_new(o, "cpu_ids", json_string(ids));
        if (a->shards[i]) /* lent by the one GPU in "gpus" (shard or mps,
                             * as the job asked) */
            json_object_set_new(o, "shards", json_integer(a->shards[i]));
        json_array_append_new(arr, o);
        free(gpus);
        free(ids);
    }
    return arr;
}

enum field_kind {
    K_JOB_ID, /* uint32_t id */
    K_STATE,  /* enum job_state, as its name */
    K_REASON, /* enum job_reason, as its name */
    K_STR,    /* char *, left out when NULL */
    K_SHARED, /* const char * shared by job_set_str(), left out when NULL */
    K_NODES,  /* char *, "" when NULL */
    K_U16,
    K_U32,
    K_I32,
    K_I64,
    K_U64,
    K_TIME,
    K_BOOL,
};

enum field_flags {
    F_OMIT_ZERO = 1 << 0, /* left out when 0 or false: most jobs ask for
                             none of these */
    F_OMIT_NEG = 1 << 1,  /* left out when negative (unset) */
};

/* The stored fields of the record: one row each for the journal, the
 * snapshot, job_submit and job_info answers (whole or by "fields"), as a
 * jansson object or written straight into a listing.  The allocation,
 * steps, array, dependency and placement groups are their modules'. */
static const struct job_field {
    const char *key;
    enum field_kind kind;
    size_t off;
    unsigned flags;
} job_fields[] = {
#define F(key, kind, member, flags) {key, kind, offsetof(struct job, member), flags}
    F("job_id", K_JOB_ID, id, 0),
    F("job_state", K_STATE, state, 0),
    F("state_reason", K_REASON, reason, 0),
    F("name", K_SHARED, name, 0),
    F("user_name", K_SHARED, user_name, 0),
    F("group_name", K_SHARED, group_name, 0),
    F("partition", K_SHARED, partition, 0),
    F("gres", K_SHARED, gres, 0),
    F("gpu_type", K_SHARED, gpu_type, 0),
    F("work_dir", K_SHARED, work_dir, 0),
    F("std_out", K_SHARED, std_out, 0),
    F("std_err", K_SHARED, std_err, 0),
    F("std_in", K_SHARED, std_in, 0),
    F("comment", K_SHARED, comment, 0),
    F("mail_user", K_SHARED, mail_user, 0),
    F("account", K_SHARED, account, 0),
    F("qos", K_SHARED, qos, 0),
    F("reservation", K_SHARED, reservation, 0),
    F("command", K_SHARED, command, 0),
    F("submit_host", K_SHARED, submit_host, 0),
    F("cron_spec", K_SHARED, cron_spec, 0),
    F("nodes", K_NODES, nodes, 0),
    F("last_nodes", K_STR, last_nodes, 0),
    F("user_id", K_U32, uid, 0),
    F("group_id", K_U32, gid, 0),
    F("priority", K_U32, priority, 0),
    F("nice", K_I32, nice, 0),
    F("hold", K_BOOL, hold, 0),
    F("hold_admin", K_BOOL, hold_admin, 0),
    F("priority_set", K_BOOL, priority_set, F_OMIT_ZERO),
    F("preempted", K_BOOL, preempted, F_OMIT_ZERO),
    F("preempt_suspended", K_BOOL, preempt_suspended, F_OMIT_ZERO),
    F("gang_suspended", K_BOOL, gang_suspended, F_OMIT_ZERO),
    F("oversubscribe", K_BOOL, oversub_req, F_OMIT_ZERO),
    F("completing", K_BOOL, completing, 0),
    F("configuring", K_BOOL, configuring, F_OMIT_ZERO),
    F("cancel_requested", K_BOOL, cancel_requested, 0),
    F("requeue_requested", K_BOOL, requeue_requested, 0),
    F("cancelled_by", K_I64, cancelled_by, F_OMIT_NEG),
    F("submit_time", K_TIME, submit_time, 0),
    F("eligible_time", K_TIME, eligible_time, 0),
    F("start_time", K_TIME, start_time, 0),
    F("end_time", K_TIME, end_time, 0),
    F("suspend_time", K_TIME, suspend_time, F_OMIT_ZERO),
    F("preempt_kill_at", K_TIME, preempt_kill_at, F_OMIT_ZERO),
    F("pre_sus_s", K_I64, pre_sus_s, F_OMIT_ZERO),
    F("time_limit_s", K_I64, time_limit_s, 0),
    F("exit_status", K_I32, exit_status, 0),
    F("requeue", K_BOOL, requeue, 0),
    F("no_kill", K_BOOL, no_kill, F_OMIT_ZERO),
    F("interactive", K_BOOL, interactive, F_OMIT_ZERO),
    F("restarts", K_U32, restarts, 0),
    F("run_id", K_U32, run_id, F_OMIT_ZERO),
    F("next_step_id", K_U32, next_step_id, F_OMIT_ZERO),
    F("mail_type", K_U32, mail_type, F_OMIT_ZERO),
    F("cron_line_start", K_U32, cron_line_start, F_OMIT_ZERO),
    F("cron_line_end", K_U32, cron_line_end, F_OMIT_ZERO),
    F("nodes_min", K_U32, req.min_nodes, 0),
    F("nodes_max", K_U32, req.max_nodes, 0),
    F("num_tasks", K_U32, req.ntasks, 0),
    F("cpus_per_task", K_U32, req.cpus_per_task, 0),
    F("min_cpus_per_node", K_U32, req.min_cpus_per_node, F_OMIT_ZERO),
    F("min_tmp_mib", K_U64, req.min_tmp_mib, F_OMIT_ZERO),
    F("ntasks_per_node", K_U32, req.ntasks_per_node, 0),
    F("sockets_per_node", K_U16, req.sockets_per_node, F_OMIT_ZERO),
    F("cores_per_socket", K_U16, req.cores_per_socket, F_OMIT_ZERO),
    F("threads_per_core", K_U16, req.threads_per_core, F_OMIT_ZERO),
    F("mem_per_node_mib", K_U64, req.mem_per_node_mib, 0),
    F("mem_per_cpu_mib", K_U64, req.mem_per_cpu_mib, 0),
    F("gpus_per_node", K_U32, req.gpus_per_node, 0),
    F("gpus", K_U32, req.gpus_total, 0),
    F("gpus_per_task", K_U32, req.gpus_per_task, F_OMIT_ZERO),
    F("gpus_per_socket", K_U32, gpus_per_socket, F_OMIT_ZERO),
    F("shards_per_node", K_U32, shards_per_node, F_OMIT_ZERO),
    F("mps_per_node", K_U32, mps_per_node, F_OMIT_ZERO),
    F("cpus_per_gpu", K_U32, req.cpus_per_gpu, F_OMIT_ZERO),
    F("mem_per_gpu_mib", K_U64, req.mem_per_gpu_mib, F_OMIT_ZERO),
    F("exclusive", K_BOOL, req.exclusive, 0),
#undef F
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int64_t int_field(const struct job *job, const struct job_field *f)
{
    const char *base = (const char *)job + f->off;

    switch (f->kind) {
    case K_U16:
        return *(const uint16_t *)base;
    case K_JOB_ID:
    case K_U32:
        return *(const uint32_t *)base;
    case K_I32:
        return *(const int *)base;
    case K_I64:
        return *(const int64_t *)base;
    case K_U64:
        return (int64_t) * (const uint64_t *)base;
    case K_TIME:
        return *(const time_t *)base;
    case K_BOOL:
        return *(const bool *)base;
    default:
        return 0;
    }
}

int job_field_lookup(const char *key)
{
    for (size_t i = 0; i < NELEM(job_fields); i++)
        if (!strcmp(key, job_fields[i].key))
            return (int)i;
    return -1;
}

const char *job_field_key(int field)
{
    return job_fields[field].key;
}

void job_field_put(const struct job *job, int field,
                   const struct jsonw_sink *out)
{
    const struct job_field *f = &job_fields[field];
    const char *str = NULL;
    int64_t v;

    switch (f->kind) {
    case K_STATE:
        jsonw_put_str(out, f->key, job_state_name(job->state));
        return;
    case K_REASON:
        jsonw_put_str(out, f->key, job_reason_string(job->reason));
        return;
    case K_STR:
    case K_SHARED:
    case K_NODES:
        str = *(char *const *)((const char *)job + f->off);
        jsonw_put_str(out, f->key, str ? str : f->kind == K_NODES ? "" : NULL);
        return;
    default:
        break;
    }
    v = int_field(job, f);
    if (((f->flags & F_OMIT_ZERO) && !v) || ((f->flags & F_OMIT_NEG) && v < 0))
        return;
    if (f->kind == K_BOOL)
        jsonw_put_bool(out, f->key, v != 0);
    else
        jsonw_put_int(out, f->key, v);
}

void job_fields_put(const struct job *job, const char *const *node_names,
                    int flags, const struct jsonw_sink *out)
{
    json_t *groups;

    for (size_t i = 0; i < NELEM(job_fields); i++)
        job_field_put(job, (int)i, out);
    job_place_put(&job->place, out);
    if (job->alloc)
        jsonw_put_json(out, "alloc", job_alloc_to_json(job->alloc, node_names));
    else if (job->last_alloc_json)
        jsonw_put_json(out, "last_alloc",
                       json_loads(job->last_alloc_json, 0, NULL));
    if (out->obj) {
        array_to_json(job, out->obj, flags & JOB_JSON_INFO);
        depend_to_json(job, out->obj);
    } else if ((groups = json_object())) {
        array_to_json(job, groups, flags & JOB_JSON_INFO);
        depend_to_json(job, groups);
        jsonw_put_members(out, groups);
    }
    if (job->steps)
        jsonw_put_json(out, "steps", job_steps_to_json(job, true));
    /* Split-off array tasks share the master's script (array.h). */
    if ((flags & JOB_JSON_LAUNCH) && job->launch
        && !(job->array && job->array->job_id != job->id))
        jsonw_put_json(out, "launch", json_incref(job->launch));
}

json_t *job_to_json(const struct job *job, const char *const *node_names,
                    int flags)
{
    json_t *o = json_object();

    if (o)
        job_fields_put(job, node_names, flags, &(struct jsonw_sink){.obj = o});
    return o;
}

static void apply_int(struct job *job, const struct job_field *f, json_t *v)
{
    char *base = (char *)job + f->off;
    json_int_t n = json_is_boolean(v) ? json_is_true(v) : json_integer_value(v);

    switch (f->kind) {
    case K_U16:
        *(uint16_t *)base = (uint16_t)n;
        break;
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
    default:
        break;
    }
}

/* Field 'f' from value 'v' of a record (a wrong type leaves it as is). */
static int apply_field(struct job *job, const struct job_field *f, json_t *v,
                       drv_error_t *error)
{
    char **dst = (char **)((char *)job + f->off);
    int s;

    switch (f->kind) {
    case K_JOB_ID: /* the record's id is the caller's */
        return 0;
    case K_STATE:
        if (!json_is_string(v))
            return 0;
        if ((s = job_state_parse(json_string_value(v))) < 0)
            return errprintf(error, "JobId=%u: bad job_state", job->id);
        job->state = (enum job_state)s;
        return 0;
    case K_REASON:
        if (json_is_string(v)) {
            int r = job_reason_parse(json_string_value(v));
            job->reason = r < 0 ? JOB_REASON_NONE : (enum job_reason)r;
        }
        return 0;
    case K_SHARED:
        if (json_is_string(v))
            job_set_str((const char **)dst, json_string_value(v));
        return 0;
    case K_STR:
    case K_NODES:
        if (!json_is_string(v))
            return 0;
        free(*dst);
        *dst = f->kind == K_NODES && !*json_string_value(v)
                   ? NULL
                   : xstrdup(json_string_value(v));
        return 0;
    default:
        if (json_is_integer(v) || json_is_boolean(v))
            apply_int(job, f, v);
        return 0;
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
        const char *node = "", *gpus = "", *ids = NULL;
        int cpus = 0, tasks = 1, shards = 0;
        json_int_t mem = 0;
        uint32_t ngpus = 0;
        long idx;

        json_unpack(e, "{s?s s?i s?i s?I s?s s?i s?s}", "node", &node,
                    "tasks", &tasks, "cpus", &cpus, "mem_mib", &mem, "gpus",
                    &gpus, "shards", &shards, "cpu_ids", &ids);
        if ((idx = node_index(node, &ngpus, arg)) < 0) {
            sched_alloc_destroy(a);
            errprintf(error, "unknown node '%s' in allocation", node);
            return NULL;
        }
        a->node_idx[i] = (uint32_t)idx;
        a->cpus[i] = (uint32_t)cpus;
        a->tasks[i] = (uint32_t)tasks;
        a->mem_mib[i] = (uint64_t)mem;
        if ((*gpus && !(a->gpus[i] = bitmap_parse(gpus, ngpus, NULL)))
            || shards < 0 || (shards && (!a->gpus[i]
                                         || bitmap_count(a->gpus[i]) != 1))) {
            sched_alloc_destroy(a);
            errprintf(error, "bad GPU set '%s'%s", gpus,
                      shards ? " for shards" : "");
            return NULL;
        }
        if (ids && *ids
            && !(a->cpu_ids[i] = bitmap_parse(ids, bitmap_list_bits(ids, CPU_IDS_MAX),
                                       NULL))) {
            sched_alloc_destroy(a);
            errprintf(error, "bad CPU id set '%s'", ids);
            return NULL;
        }
        a->shards[i] = (uint32_t)shards;
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

    for (size_t i = 0; i < NELEM(job_fields); i++) {
        if ((v = json_object_get(o, job_fields[i].key))
            && apply_field(job, &job_fields[i], v, error) < 0)
            return -1;
    }
    job->req.gpu_type = job->gpu_type;
    job->req.shards_per_node = job->mps_per_node ? job->mps_per_node
                                                 : job->shards_per_node;
    job->req.share_name = job->mps_per_node      ? "mps"
                          : job->shards_per_node ? "shard"
                                                 : NULL;
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
