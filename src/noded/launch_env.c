/* SPDX-License-Identifier: Apache-2.0
 *
 * launch_env.c - SLURM_* variables for a batch script
 *
 * Names and values follow what Slurm 22.05 sets (slurm-golden jobenv-*).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/taskcount.h"
#include "common/xalloc.h"
#include "noded/cgroup.h"
#include "noded/launch_env.h"
#include "noded/noded.h"

struct envb {
    json_t *vars; /* name -> value, insertion-ordered by jansson */
};

static void env_set(struct envb *e, const char *name, const char *value)
{
    json_object_set_new(e->vars, name, json_string(value ? value : ""));
}

static void env_setf(struct envb *e, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void env_setf(struct envb *e, const char *name, const char *fmt, ...)
{
    va_list ap;
    char *s;

    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    env_set(e, name, s);
    free(s);
}

static const char *jstr(json_t *job, const char *key)
{
    const char *s = json_string_value(json_object_get(job, key));
    return s ? s : "";
}

static json_int_t jint(json_t *job, const char *key)
{
    return json_integer_value(json_object_get(job, key));
}

/* This node's entry in the allocation. */
static json_t *my_alloc(struct noded *nd, json_t *job, size_t *index)
{
    json_t *e;
    size_t i;

    json_array_foreach(json_object_get(job, "alloc"), i, e) {
        if (!strcmp(jstr(e, "node"), nd->node->name)) {
            *index = i;
            return e;
        }
    }
    *index = 0;
    return NULL;
}

/* "0-2,5" -> "0,1,2,5" */
static char *gpu_list(const char *ranges)
{
    size_t cap = strlen(ranges) * 8 + 16, len = 0;
    char *out = xzalloc(cap), *copy = xstrdup(ranges), *save = NULL;

    for (char *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        unsigned lo = 0, hi = 0;
        int n = sscanf(tok, "%u-%u", &lo, &hi);
        if (n < 2)
            hi = lo;
        for (unsigned g = lo; g <= hi && len + 12 < cap; g++)
            len += (size_t)snprintf(out + len, cap - len, "%s%u",
                                    len ? "," : "", g);
    }
    free(copy);
    return out;
}

/* One key of every node of the allocation in Slurm's compressed form
 * ("2(x2),1"): SLURM_TASKS_PER_NODE ("tasks"), SLURM_JOB_CPUS_PER_NODE
 * ("cpus"). */
static void per_node(struct envb *e, json_t *job, const char *key,
                     const char *name)
{
    json_t *allocs = json_object_get(job, "alloc"), *a;
    int64_t *counts = xzalloc(sizeof(*counts) * (json_array_size(allocs) + 1));
    char *s;
    size_t i;

    json_array_foreach(allocs, i, a) counts[i] = jint(a, key);
    s = taskcount_encode(counts, json_array_size(allocs));
    env_set(e, name, s);
    free(s);
    free(counts);
}

/* Slurm sets an end time of a year after the start for a job without a
 * time limit.
 */
#define NO_LIMIT_END_S (365 * 24 * 3600)

/* Account, QOS, times, restarts and the cluster triple
 * (docs/job-environment.md).  SLURM_TASK_PID is a placeholder that the
 * child fills in with its own pid (launch.c).
 */
static void set_more_job_vars(struct envb *e, struct noded *nd, json_t *job)
{
    json_int_t start = jint(job, "start_time");
    json_int_t limit = jint(job, "time_limit_s");
    const char *account = jstr(job, "account");
    const char *qos = jstr(job, "qos");

    if (*account)
        env_set(e, "SLURM_JOB_ACCOUNT", account);
    env_set(e, "SLURM_JOB_QOS", *qos ? qos : "normal");
    if (jint(job, "restarts") > 0)
        env_setf(e, "SLURM_RESTART_COUNT", "%lld",
                 (long long)jint(job, "restarts"));
    if (start > 0) {
        env_setf(e, "SLURM_JOB_START_TIME", "%lld", (long long)start);
        env_setf(e, "SLURM_JOB_END_TIME", "%lld",
                 (long long)(start + (limit > 0 ? limit : NO_LIMIT_END_S)));
    }
    env_set(e, "SLURM_TASK_PID", "");
    env_setf(e, "SLURM_WORKING_CLUSTER", "%s:%s:%u:9728:109",
             jstr(job, "cluster_name"),
             nd->conf->ctld_host ? nd->conf->ctld_host : "localhost",
             (unsigned)nd->conf->ctld_port);
}

/* Array tasks: SLURM_ARRAY_JOB_ID, _TASK_ID and the whole array's
 * _TASK_COUNT/_MIN/_MAX/_STEP (golden jobenv-envdump-array-task0). */
static void set_array_vars(struct envb *e, json_t *job)
{
    static const struct {
        const char *var, *key;
    } vars[] = {
        {"SLURM_ARRAY_JOB_ID", "array_job_id"},
        {"SLURM_ARRAY_TASK_ID", "array_task_id"},
        {"SLURM_ARRAY_TASK_COUNT", "array_task_count"},
        {"SLURM_ARRAY_TASK_MIN", "array_task_min"},
        {"SLURM_ARRAY_TASK_MAX", "array_task_max"},
        {"SLURM_ARRAY_TASK_STEP", "array_task_step"},
    };

    if (!json_object_get(job, "array_task_id"))
        return;
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        env_setf(e, vars[i].var, "%lld", (long long)jint(job, vars[i].key));
}

static void set_job_vars(struct envb *e, struct noded *nd, json_t *job)
{
    const char *nodes = jstr(job, "nodes");

    env_setf(e, "SLURM_JOB_ID", "%lld", (long long)jint(job, "job_id"));
    env_setf(e, "SLURM_JOBID", "%lld", (long long)jint(job, "job_id"));
    env_set(e, "SLURM_JOB_NAME", jstr(job, "name"));
    env_set(e, "SLURM_JOB_NODELIST", nodes);
    env_set(e, "SLURM_NODELIST", nodes);
    env_setf(e, "SLURM_JOB_NUM_NODES", "%lld", (long long)jint(job, "node_count"));
    env_setf(e, "SLURM_NNODES", "%lld", (long long)jint(job, "node_count"));
    env_setf(e, "SLURM_NTASKS", "%lld", (long long)jint(job, "num_tasks"));
    env_setf(e, "SLURM_NPROCS", "%lld", (long long)jint(job, "num_tasks"));
    if (jint(job, "cpus_per_task") > 0)
        env_setf(e, "SLURM_CPUS_PER_TASK", "%lld",
                 (long long)jint(job, "cpus_per_task"));
    env_set(e, "SLURM_JOB_PARTITION", jstr(job, "partition"));
    env_set(e, "SLURM_JOB_USER", jstr(job, "user_name"));
    env_setf(e, "SLURM_JOB_UID", "%lld", (long long)jint(job, "user_id"));
    env_setf(e, "SLURM_JOB_GID", "%lld", (long long)jint(job, "group_id"));
    /* sbatch sends the directory it ran in, which -D may differ from. */
    if (!json_object_get(e->vars, "SLURM_SUBMIT_DIR"))
        env_set(e, "SLURM_SUBMIT_DIR", jstr(job, "work_dir"));
    env_set(e, "SLURM_SUBMIT_HOST", jstr(job, "submit_host"));
    env_set(e, "SLURM_CLUSTER_NAME", jstr(job, "cluster_name"));
    env_set(e, "SLURMD_NODENAME", nd->node->name);
    env_set(e, "SLURM_TOPOLOGY_ADDR", nd->node->name);
    env_set(e, "SLURM_TOPOLOGY_ADDR_PATTERN", "node");
    env_set(e, "SLURM_NODEID", "0");
    env_set(e, "SLURM_PROCID", "0");
    env_set(e, "SLURM_LOCALID", "0");
    env_set(e, "SLURM_GTIDS", "0");
    env_set(e, "SLURM_PRIO_PROCESS", "0");
    env_set(e, "SLURM_NODE_ALIASES", "(null)");
    if (nd->conf->path)
        env_set(e, "SLURM_CONF", nd->conf->path);
    /* sbatch --container: Slurm's output variable (srun reads it) */
    if (json_is_string(json_object_get(json_object_get(job, "launch"),
                                       "container")))
        env_set(e, "SLURM_CONTAINER",
                jstr(json_object_get(job, "launch"), "container"));
    per_node(e, job, "tasks", "SLURM_TASKS_PER_NODE");
    per_node(e, job, "cpus", "SLURM_JOB_CPUS_PER_NODE");
    set_more_job_vars(e, nd, job);
    set_array_vars(e, job);
}

/* "0,1,...,n-1": n GPUs numbered as the job sees them. */
static char *local_list(size_t n)
{
    size_t cap = n * 8 + 1, len = 0;
    char *out = xzalloc(cap);

    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%zu", i ? "," : "",
                                i);
    return out;
}

/* Whether the job's cgroup hides the node's other GPUs: then CUDA numbers
 * the job's GPUs from 0, and so does Slurm's CUDA_VISIBLE_DEVICES
 * (SLURM_JOB_GPUS keeps the node's indices). */
static bool gpus_isolated(const struct noded *nd)
{
    if (!cgroup_root_isolates_devices(nd->cgroup))
        return false;
    for (size_t i = 0; i < nd->node->gres_dev_count; i++)
        if (!strcmp(nd->node->gres_devs[i].name, "gpu")
            && nd->node->gres_devs[i].file)
            return true;
    return false;
}

static void set_node_vars(struct envb *e, json_t *alloc, json_t *job,
                          bool isolated)
{
    const char *gpus = jstr(alloc, "gpus");
    json_int_t mem = jint(job, "mem_per_node_mib");
    json_int_t shards = jint(alloc, "shards");

    env_setf(e, "SLURM_CPUS_ON_NODE", "%lld", (long long)jint(alloc, "cpus"));
    if (mem > 0)
        env_setf(e, "SLURM_MEM_PER_NODE", "%lld", (long long)mem);
    else if (jint(job, "mem_per_cpu_mib") > 0)
        env_setf(e, "SLURM_MEM_PER_CPU", "%lld",
                 (long long)jint(job, "mem_per_cpu_mib"));
    else if (jint(job, "mem_per_gpu_mib") > 0)
        env_setf(e, "SLURM_MEM_PER_GPU", "%lld",
                 (long long)jint(job, "mem_per_gpu_mib"));
    if (jint(job, "gpus_per_task") > 0)
        env_setf(e, "SLURM_GPUS_PER_TASK", "%lld",
                 (long long)jint(job, "gpus_per_task"));
    if (jint(job, "cpus_per_gpu") > 0)
        env_setf(e, "SLURM_CPUS_PER_GPU", "%lld",
                 (long long)jint(job, "cpus_per_gpu"));
    if (*gpus) {
        char *list = gpu_list(gpus), *visible;
        size_t n = 1;
        for (const char *p = list; *p; p++)
            n += *p == ',';
        visible = isolated ? local_list(n) : xstrdup(list);
        env_set(e, "CUDA_VISIBLE_DEVICES", visible);
        env_set(e, "GPU_DEVICE_ORDINAL", visible);
        if (shards > 0 && jint(job, "mps_per_node") > 0) { /* gres/mps */
            env_setf(e, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "%lld",
                     (long long)jint(job, "mps_percent"));
        } else if (shards > 0) { /* gres/shard: the GPU, not as a GPU */
            env_setf(e, "SLURM_SHARDS_ON_NODE", "%lld", (long long)shards);
        } else {
            env_set(e, "SLURM_JOB_GPUS", list);
            env_setf(e, "SLURM_GPUS_ON_NODE", "%zu", n);
        }
        free(visible);
        free(list);
    }
}

char **launch_env_build(struct noded *nd, json_t *job)
{
    struct envb e = {.vars = json_object()};
    json_t *submit = json_object_get(json_object_get(job, "launch"), "env");
    json_t *alloc;
    const char *k;
    json_t *v;
    size_t i = 0, idx;
    char **envp;

    json_object_foreach(submit, k, v) {
        /* A submit shell's GPU and job variables must not leak in. */
        if (json_is_string(v) && strcmp(k, "CUDA_VISIBLE_DEVICES")
            && strcmp(k, "GPU_DEVICE_ORDINAL"))
            env_set(&e, k, json_string_value(v));
    }
    set_job_vars(&e, nd, job);
    if ((alloc = my_alloc(nd, job, &idx)))
        set_node_vars(&e, alloc, job, gpus_isolated(nd));
    envp = xzalloc(sizeof(*envp) * (json_object_size(e.vars) + 1));
    json_object_foreach(e.vars, k, v)
        envp[i++] = xasprintf("%s=%s", k, json_string_value(v));
    json_decref(e.vars);
    return envp;
}
