/* SPDX-License-Identifier: Apache-2.0
 *
 * job_info.c - derived fields of job_info answers
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/jobpath.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/job_info.h"

static uint32_t job_node_count(const struct job *job)
{
    if (job->alloc)
        return job->alloc->node_count;
    return job->req.min_nodes ? job->req.min_nodes : 1;
}

static uint32_t job_num_tasks(const struct job *job)
{
    if (job->req.ntasks)
        return job->req.ntasks;
    if (job->req.ntasks_per_node)
        return job->req.ntasks_per_node * job_node_count(job);
    return job_node_count(job);
}

static uint32_t job_num_cpus(const struct job *job, uint32_t *gpus,
                             uint64_t *mem)
{
    uint32_t cpus = 0;
    uint32_t cpt = job->req.cpus_per_task ? job->req.cpus_per_task : 1;

    *gpus = 0;
    *mem = 0;
    if (!job->alloc) {
        uint32_t nodes = job_node_count(job);
        *gpus = job->req.gpus_total ? job->req.gpus_total
                                    : job->req.gpus_per_node * nodes
                                          + job->req.gpus_per_task
                                                * job_num_tasks(job);
        *mem = job->req.mem_per_node_mib
                   ? job->req.mem_per_node_mib * nodes
                   : job->req.mem_per_cpu_mib * job_num_tasks(job) * cpt;
        return job_num_tasks(job) * cpt;
    }
    for (uint32_t i = 0; i < job->alloc->node_count; i++) {
        cpus += job->alloc->cpus[i];
        *mem += job->alloc->mem_mib[i];
        if (job->alloc->gpus && job->alloc->gpus[i])
            *gpus += (uint32_t)bitmap_count(job->alloc->gpus[i]);
    }
    return cpus;
}

/* Slurm's "exit:signal". */
static char *exit_code_string(int status)
{
    if (WIFSIGNALED(status))
        return xasprintf("0:%d", WTERMSIG(status));
    return xasprintf("%d:0", WEXITSTATUS(status));
}

static void set_path(json_t *o, const char *key, const char *pattern,
                     const struct jobpath_vars *v)
{
    char *path = jobpath_expand(pattern, v);

    json_object_set_new(o, key, json_string(path ? path : pattern));
    free(path);
}

static void add_paths(json_t *o, const struct job *job, const char *host)
{
    struct jobpath_vars v = {
        .job_id = job->id,
        .job_name = job->name,
        .user = job->user_name,
        .node = host,
        .array_task_id = -1,
        .work_dir = job->work_dir,
    };
    const char *out = job->std_out ? job->std_out
                      : job->array ? "slurm-%A_%a.out"
                                   : "slurm-%j.out";

    if (job->array) {
        v.array_job_id = job->array->job_id;
        if (job->array->task_id != ARRAY_TASK_NONE)
            v.array_task_id = job->array->task_id;
    }

    set_path(o, "std_out", out, &v);
    set_path(o, "std_err", job->std_err ? job->std_err : out, &v);
    set_path(o, "std_in", job->std_in ? job->std_in : "/dev/null", &v);
}

static json_t *alloc_detail(struct ctld *ctld, const struct job *job)
{
    json_t *arr = job_alloc_to_json(job->alloc, ctld->nodes->names);
    json_t *e;
    size_t i;

    if (!arr)
        return json_array();
    /* CPU ids are not bound yet (no cpuset): number them 0..n-1 on each
     * node as Slurm prints for a job that starts on an idle node. */
    json_array_foreach(arr, i, e) {
        uint32_t cpus = job->alloc->cpus[i];
        char *ids = cpus > 1 ? xasprintf("0-%u", cpus - 1) : xstrdup("0");
        json_object_set_new(e, "cpu_ids", json_string(ids));
        free(ids);
    }
    return arr;
}

/* Finished jobs keep showing where they ran, as Slurm's do. */
static const char *last_batch_host(const struct job *job)
{
    static char host[256];
    json_t *a;

    if (!job->last_alloc_json
        || !(a = json_loads(job->last_alloc_json, 0, NULL)))
        return NULL;
    snprintf(host, sizeof(host), "%s",
             json_string_value(json_object_get(json_array_get(a, 0), "node"))
                 ?: "");
    json_decref(a);
    return *host ? host : NULL;
}

static char *tres_per_node(const struct job *job)
{
    if (job->req.gpus_per_node && job->gpu_type)
        return xasprintf("gres:gpu:%s:%u", job->gpu_type,
                         job->req.gpus_per_node);
    if (job->req.gpus_per_node)
        return xasprintf("gres:gpu:%u", job->req.gpus_per_node);
    return xstrdup("");
}

json_t *job_info_json(struct ctld *ctld, const struct job *job, time_t now)
{
    json_t *o = job_to_json(job, ctld->nodes->names, JOB_JSON_INFO);
    const char *host = job->alloc ? ctld->nodes->names[job->alloc->node_idx[0]]
                                  : last_batch_host(job);
    uint32_t gpus;
    uint64_t mem;
    uint32_t cpus = job_num_cpus(job, &gpus, &mem);
    uint32_t nodes = job_node_count(job);
    char *tres = node_table_tres(cpus, mem, (int)nodes, gpus, true);
    char *exit_code = exit_code_string(job->exit_status);
    char *tpn = tres_per_node(job);

    (void)now;
    json_object_set_new(o, "node_count", json_integer(nodes));
    json_object_set_new(o, "num_cpus", json_integer(cpus));
    json_object_set_new(o, "num_tasks", json_integer(job_num_tasks(job)));
    json_object_set_new(o, "batch_host", json_string(host ? host : ""));
    json_object_set_new(o, "exit_code", json_string(exit_code));
    json_object_set_new(o, job->alloc ? "tres_alloc" : "tres_req",
                        json_string(tres));
    json_object_set_new(o, "tres_per_node", json_string(tpn));
    json_object_set_new(o, "batch_flag", json_integer(1));
    json_object_set_new(o, "alloc", alloc_detail(ctld, job));
    if (!job->alloc && job->last_nodes)
        json_object_set_new(o, "nodes", json_string(job->last_nodes));
    /* squeue --start: a pending job's start is the scheduler's plan. */
    if (job->state == JOB_PENDING && job->sched_start_time)
        json_object_set_new(o, "start_time",
                            json_integer(job->sched_start_time));
    if (job->state == JOB_PENDING && job->sched_nodes)
        json_object_set_new(o, "sched_nodes", json_string(job->sched_nodes));
    add_paths(o, job, host);
    free(tres);
    free(exit_code);
    free(tpn);
    return o;
}
