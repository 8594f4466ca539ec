/* SPDX-License-Identifier: Apache-2.0 */
/*
 * acct_record.c - the accounting job record (docs/protocol.md)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arrayspec.h"
#include "common/bitmap.h"
#include "common/sizefmt.h"
#include "common/xalloc.h"
#include "ctld/acct_record.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/job_info.h"
#include "ctld/step.h"

char *acct_tres_string(uint32_t cpus, uint64_t mem_mib, uint32_t nodes,
                       uint32_t gpus, const char *share, uint32_t shards)
{
    char out[256] = "", part[64], mem[32];

    if (cpus)
        snprintf(out, sizeof(out), "billing=%u,cpu=%u,", cpus, cpus);
    if (gpus) {
        snprintf(part, sizeof(part), "gres/gpu=%u,", gpus);
        strcat(out, part);
    }
    if (shards) {
        snprintf(part, sizeof(part), "gres/%s=%u,", share ? share : "shard",
                 shards);
        strcat(out, part);
    }
    if (mem_mib) {
        snprintf(part, sizeof(part), "mem=%s,",
                 sizefmt_mib(mem_mib, mem, sizeof(mem)));
        strcat(out, part);
    }
    if (nodes) {
        snprintf(part, sizeof(part), "node=%u,", nodes);
        strcat(out, part);
    }
    if (*out)
        out[strlen(out) - 1] = '\0';
    return xstrdup(out);
}

struct totals {
    uint32_t nodes, cpus, gpus, shards;
    uint64_t mem;
};

/* Sums over [{"node","cpus","mem_mib","gpus":"0-1","shards"}]
 * (job_alloc_to_json); the GPU of an entry with shards is not counted. */
static void totals_of_alloc_json(const char *text, struct totals *t)
{
    json_t *arr = text ? json_loads(text, 0, NULL) : NULL, *e;
    size_t i;

    json_array_foreach(arr, i, e) {
        json_int_t cpus = 0, mem = 0, shards = 0;
        const char *gpus = "";
        bitmap_t *b;

        json_unpack(e, "{s?I s?I s?s s?I}", "cpus", &cpus, "mem_mib", &mem,
                    "gpus", &gpus, "shards", &shards);
        t->shards += (uint32_t)shards;
        if (shards)
            gpus = "";
        t->nodes++;
        t->cpus += (uint32_t)cpus;
        t->mem += (uint64_t)mem;
        if (*gpus && (b = bitmap_parse(gpus, 4096, NULL))) {
            t->gpus += (uint32_t)bitmap_count(b);
            bitmap_destroy(b);
        }
    }
    json_decref(arr);
}

/* What the job holds now, or held when it ran; zero before it started. */
static void alloc_totals(const struct job *job, struct totals *t)
{
    memset(t, 0, sizeof(*t));
    if (job->alloc) {
        t->nodes = job->alloc->node_count;
        t->cpus = job_info_cpus(job, &t->gpus, &t->mem);
        t->shards = job_info_shards(job);
    } else if (job->start_time) {
        totals_of_alloc_json(job->last_alloc_json, t);
    }
}

static void put_request(json_t *o, const struct job *job)
{
    uint32_t gpus = 0, nodes = job->req.min_nodes ? job->req.min_nodes : 1;
    uint64_t mem = 0;
    uint32_t cpus = job_info_req_cpus(job, &gpus, &mem);
    char *tres = acct_tres_string(cpus, mem, nodes, gpus,
                                  job_info_share(job),
                                  job->req.shards_per_node * nodes);

    json_object_set_new(o, "req_cpus", json_integer(cpus));
    json_object_set_new(o, "req_tres", json_string(tres));
    free(tres);
    json_object_set_new(o, "req_mem_per_cpu",
                        json_boolean(job->req.mem_per_cpu_mib != 0));
    json_object_set_new(
        o, "req_mem_mib",
        json_integer((json_int_t)(job->req.mem_per_cpu_mib
                                      ? job->req.mem_per_cpu_mib
                                      : job->req.mem_per_node_mib)));
}

static void put_alloc(json_t *o, const struct job *job)
{
    struct totals t;
    const char *nodes = job->nodes ? job->nodes : job->last_nodes;
    char *tres;

    alloc_totals(job, &t);
    tres = t.cpus ? acct_tres_string(t.cpus, t.mem, t.nodes, t.gpus,
                                     job_info_share(job), t.shards)
                  : xstrdup("");
    json_object_set_new(o, "alloc_tres", json_string(tres));
    free(tres);
    json_object_set_new(o, "ncpus", json_integer(t.cpus));
    json_object_set_new(
        o, "nnodes",
        json_integer(t.nodes ? t.nodes
                             : (job->req.min_nodes ? job->req.min_nodes : 1)));
    json_object_set_new(o, "nodes", json_string(job->start_time && nodes
                                                    ? nodes
                                                    : "None assigned"));
}

/* A task's ArrayJobId and ArrayTaskId; an array's record of the tasks
 * not yet split off (its master) is accounted too, as Slurm's meta
 * record: its ArrayJobId and those tasks as squeue writes them
 * ("2-9%2": sacct's JobID 8374_[2-9%2]), with ArrayTaskId -1.  The last
 * task split off keeps the master's id, so that row becomes the task's
 * (array_task_str ""). */
static void put_array(json_t *o, const struct job *job)
{
    const struct job_array *a = job->array;
    bool task = a && a->task_id != ARRAY_TASK_NONE;
    char *pending = a && a->pending ? array_spec_fmt(a->pending, a->throttle)
                                    : NULL;

    json_object_set_new(o, "array_job_id",
                        json_integer(task || pending ? a->job_id : 0));
    json_object_set_new(o, "array_task_id",
                        json_integer(task ? (json_int_t)a->task_id : -1));
    json_object_set_new(o, "array_task_str",
                        json_string(pending ? pending : ""));
    free(pending);
}

/* The steps changed since the last record (droverdbd keeps the others:
 * a record only grows), and Slurm's DerivedExitCode: the highest exit of
 * the srun steps (the batch step's is the job's own ExitCode). */
static void put_steps(json_t *o, struct job *job)
{
    json_t *steps = json_array();
    int derived = 0;

    for (struct job_step *s = job->steps; s; s = s->next) {
        if (s->id != STEP_ID_BATCH && s->end_time && s->exit_status > derived)
            derived = s->exit_status;
        if (s->acct_dirty)
            json_array_append_new(steps, job_step_to_json(s, false));
        s->acct_dirty = false;
    }
    json_object_set_new(o, "derived_exit_status", json_integer(derived));
    json_object_set_new(o, "steps", steps);
}

/* Seconds the job spent suspended up to 'now' (a suspension under way
 * counted to its start), and when the one under way began (0: none):
 * sacct's Suspended, which its Elapsed leaves out (Slurm's
 * time_suspended). */
static void put_suspended(json_t *o, const struct job *job, time_t now)
{
    int64_t susp = 0, since = 0;
    time_t end;

    if (job->state == JOB_SUSPENDED) {
        since = job->suspend_time;
        susp = (int64_t)(job->suspend_time - job->start_time) - job->pre_sus_s;
    } else if (job->start_time) {
        end = job->end_time && (job_state_is_final(job->state)
                                || job->state == JOB_REQUEUED)
                  ? job->end_time : now;
        susp = (int64_t)(end - job->start_time) - job_run_time(job, end);
    }
    json_object_set_new(o, "suspended_s", json_integer(susp > 0 ? susp : 0));
    json_object_set_new(o, "suspend_time", json_integer(since));
}

json_t *acct_record_build(struct ctld *ctld, struct job *job)
{
    json_t *o = json_pack(
        "{s:I s:I s:I s:I s:I s:s s:I s:s s:I s:s s:s s:s s:s s:s s:i s:I"
        " s:I s:s s:s s:s s:s}",
        "job_id", (json_int_t)job->id, "submit_time",
        (json_int_t)job->submit_time, "eligible_time",
        (json_int_t)job->eligible_time, "start_time",
        (json_int_t)job->start_time, "end_time",
        (json_int_t)(job_state_is_final(job->state)
                             || job->state == JOB_REQUEUED
                         ? job->end_time
                         : 0),
        "name", job->name ? job->name : "", "uid", (json_int_t)job->uid,
        "user", job->user_name ? job->user_name : "", "gid",
        (json_int_t)job->gid, "group", job->group_name ? job->group_name : "",
        "account", job->account ? job->account : "", "qos",
        job->qos ? job->qos : "normal", "partition",
        job->partition ? job->partition : "", "state",
        job_state_name(job->state), "exit_status",
        /* Slurm records a timed-out job as 0:0 (its batch step 0:15) */
        job->state == JOB_TIMEOUT ? 0 : job->exit_status,
        "time_limit_min",
        (json_int_t)(job->time_limit_s < 0 ? -1 : job->time_limit_s / 60),
        "priority", (json_int_t)job->priority, "reason",
        job_reason_string(job->state == JOB_PENDING ? job->reason
                                                    : JOB_REASON_NONE),
        "work_dir", job->work_dir ? job->work_dir : "", "comment",
        job->comment ? job->comment : "", "constraints",
        job->place.features ? job->place.features : "");

    if (!o) {
        errno = ENOMEM;
        return NULL;
    }
    if (job->state == JOB_CANCELLED && job->cancelled_by >= 0)
        json_object_set_new(o, "cancelled_by",
                            json_integer(job->cancelled_by));
    put_array(o, job);
    put_request(o, job);
    put_alloc(o, job);
    put_steps(o, job);
    put_suspended(o, job, ctld_now(ctld));
    return o;
}

json_t *acct_record_run_ended(struct ctld *ctld, struct job *job, int state,
                              time_t end, int batch_status)
{
    enum job_state saved_state = job->state;
    time_t saved_end = job->end_time;
    json_t *rec;

    job->state = (enum job_state)state;
    job->end_time = end;
    job_steps_end_all(job, end, batch_status);
    for (struct job_step *s = job->steps; s; s = s->next)
        s->acct_dirty = true;
    rec = acct_record_build(ctld, job);
    job->state = saved_state;
    job->end_time = saved_end;
    return rec;
}
