/* SPDX-License-Identifier: Apache-2.0
 *
 * job_env.c - the SLURM_JOB_* environment of controller-run programs
 * (job_env.h)
 */
#include <stdarg.h>
#include <stdlib.h>

#include "common/taskcount.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/job_env.h"

void job_env_add(struct job_env *e, const char *name, const char *fmt, ...)
{
    va_list ap;
    char *value;

    va_start(ap, fmt);
    if (vasprintf(&value, fmt, ap) < 0)
        abort();
    va_end(ap);
    if (e->n + 2 > e->cap) {
        e->cap = e->cap ? 2 * e->cap : 32;
        e->v = xrealloc(e->v, e->cap * sizeof(*e->v));
    }
    e->v[e->n++] = xasprintf("%s=%s", name, value);
    e->v[e->n] = NULL;
    free(value);
}

/* "2(x3),1": the CPUs per node it holds, or held when it ran. */
static char *cpus_per_node(const struct job *job, size_t *nodes)
{
    json_t *arr = NULL, *e;
    int64_t *c;
    size_t i, n = 0;
    char *s;

    if (job->alloc)
        n = job->alloc->node_count;
    else if (job->last_alloc_json
             && (arr = json_loads(job->last_alloc_json, 0, NULL)))
        n = json_array_size(arr);
    c = xzalloc((n ? n : 1) * sizeof(*c));
    for (i = 0; i < n; i++)
        c[i] = job->alloc ? job->alloc->cpus[i]
                          : json_integer_value(json_object_get(
                                (e = json_array_get(arr, i)), "cpus"));
    json_decref(arr);
    s = n ? taskcount_encode(c, n) : NULL;
    free(c);
    *nodes = n;
    return s;
}

void job_env_array(struct job_env *e, const struct job *job)
{
    const struct job_array *a = job->array;

    if (!a)
        return;
    job_env_add(e, "SLURM_ARRAY_JOB_ID", "%u", a->job_id);
    job_env_add(e, "SLURM_ARRAY_TASK_COUNT", "%u", a->count);
    if (a->task_id != ARRAY_TASK_NONE)
        job_env_add(e, "SLURM_ARRAY_TASK_ID", "%u", a->task_id);
    job_env_add(e, "SLURM_ARRAY_TASK_MAX", "%u", a->max);
    job_env_add(e, "SLURM_ARRAY_TASK_MIN", "%u", a->min);
    job_env_add(e, "SLURM_ARRAY_TASK_STEP", "%u", a->step);
}

void job_env_nodes(struct job_env *e, const struct job *job)
{
    const char *nodes = job->nodes ? job->nodes : job->last_nodes;
    size_t n;
    char *cpus = cpus_per_node(job, &n);

    if (cpus) {
        job_env_add(e, "SLURM_JOB_CPUS_PER_NODE", "%s", cpus);
        job_env_add(e, "SLURM_JOB_NUM_NODES", "%zu", n);
    }
    job_env_add(e, "SLURM_JOB_NODELIST", "%s",
            nodes && *nodes ? nodes : "(null)");
    free(cpus);
}
