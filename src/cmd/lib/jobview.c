/* SPDX-License-Identifier: Apache-2.0
 *
 * jobview.c - derived values of a job record, shared by squeue and scontrol
 */
#include <stdio.h>
#include <string.h>

#include "cmd/lib/jobview.h"
#include "cmd/lib/jsonget.h"
#include "cmd/lib/names.h"
#include "cmd/lib/states.h"
#include "common/bitmap.h"
#include "common/decfmt.h"
#include "common/hostlist.h"
#include "common/timefmt.h"
#include "common/xalloc.h"

uint32_t job_view_job_id(const json_t *job)
{
    return (uint32_t)jint(job, "job_id", 0);
}

int job_view_is_array(const json_t *job)
{
    return jint(job, "array_job_id", 0) > 0;
}

char *job_view_id(const json_t *job, char *buf, size_t size)
{
    const char *tasks = jstr(job, "array_task_str");
    long long array_id = (long long)jint(job, "array_job_id", 0);

    if (array_id > 0 && tasks && tasks[0])
        snprintf(buf, size, "%lld_[%s]", array_id, tasks);
    else if (array_id > 0 && jhas(job, "array_task_id"))
        snprintf(buf, size, "%lld_%lld", array_id,
                 (long long)jint(job, "array_task_id", 0));
    else if (size > DECFMT_MAX) /* "%u" without printf: squeue prints many */
        buf[dec_format(buf, job_view_job_id(job), 1)] = '\0';
    else
        snprintf(buf, size, "%u", job_view_job_id(job));
    return buf;
}

const char *job_view_user(const json_t *job)
{
    const char *name = jstr(job, "user_name");

    return (name && name[0]) ? name
                             : names_user((uid_t)jint(job, "user_id", 0));
}

const char *job_view_group(const json_t *job)
{
    const char *name = jstr(job, "group_name");

    return (name && name[0]) ? name
                             : names_group((gid_t)jint(job, "group_id", 0));
}

int64_t job_view_time_used(const json_t *job, time_t now)
{
    job_state_t base = job_base_state_of(job);
    int64_t start = jint(job, "start_time", 0);
    int64_t end = jint(job, "end_time", 0);

    int64_t susp = jint(job, "suspend_time", 0);

    if (start == 0 || job_state_is_pending(base))
        return 0;
    if (base == JOB_SUSPENDED)
        return jint(job, "pre_sus_s", 0);
    if (job_state_is_running(base) || end == 0)
        end = (int64_t)now;
    if (susp) /* resumed then (or ended while suspended: end == susp) */
        return jint(job, "pre_sus_s", 0) + (end > susp ? end - susp : 0);
    return end > start ? end - start : 0;
}

int64_t job_view_time_limit(const json_t *job)
{
    int64_t limit = jint(job, "time_limit_s", TIME_INFINITE);

    return limit < 0 ? TIME_INFINITE : limit;
}

time_t job_view_end_time(const json_t *job)
{
    int64_t end = jint(job, "end_time", 0);
    int64_t start = jint(job, "start_time", 0);
    int64_t limit = job_view_time_limit(job);

    /* Running: the limit; pending with a planned start: the plan's end. */
    if (end == 0 && start > 0 && limit != TIME_INFINITE
        && (job_state_is_running(job_base_state_of(job))
            || job_state_is_pending(job_base_state_of(job))))
        end = start + limit;
    return (time_t)end;
}

const char *job_view_nodes(const json_t *job)
{
    const char *nodes = jstr(job, "nodes");

    if (nodes && nodes[0])
        return nodes;
    if (job_state_is_pending(job_base_state_of(job)))
        return "";
    return jstr_or(job, "last_nodes", "");
}

char *job_view_batch_host(const json_t *job)
{
    const char *host = jstr_or(job, "batch_host", NULL);
    hostlist_t *hl;
    char *first = NULL;

    if (host)
        return xstrdup(host);
    if (job_state_is_pending(job_base_state_of(job)))
        return NULL;
    hl = hostlist_decode(job_view_nodes(job), NULL);
    if (hl && hostlist_count(hl) > 0)
        first = xstrdup(hostlist_nth(hl, 0));
    hostlist_destroy(hl);
    return first;
}

static uint32_t hostlist_size(const char *expr)
{
    hostlist_t *hl = hostlist_decode(expr, NULL);
    uint32_t n = hl ? (uint32_t)hostlist_count(hl) : 0;

    hostlist_destroy(hl);
    return n;
}

uint32_t job_view_node_count(const json_t *job)
{
    int64_t n = 0;
    const char *nodes;

    if (!job_state_is_pending(job_base_state_of(job))) {
        n = jint(job, "node_count", 0);
        if (n <= 0 && (nodes = job_view_nodes(job))[0])
            n = hostlist_size(nodes);
    }
    if (n <= 0)
        n = jint(job, "nodes_min", 1);
    return n > 0 ? (uint32_t)n : 1;
}

uint32_t job_view_cpus(const json_t *job)
{
    int64_t n = jint(job, "num_cpus", 0);
    int64_t tasks = jint(job, "num_tasks", 1);
    int64_t cpt = jint(job, "cpus_per_task", 1);

    if (n <= 0)
        n = (tasks > 0 ? tasks : 1) * (cpt > 0 ? cpt : 1);
    return (uint32_t)n;
}

uint64_t job_view_min_memory(const json_t *job, int *per_cpu)
{
    int64_t per_node = jint(job, "mem_per_node_mib", 0);
    int64_t cpu = jint(job, "mem_per_cpu_mib", 0);

    *per_cpu = per_node <= 0 && cpu > 0;
    if (*per_cpu)
        return (uint64_t)cpu;
    return per_node > 0 ? (uint64_t)per_node : 0;
}

uint32_t job_view_min_cpus(const json_t *job)
{
    int64_t cpt = jint(job, "cpus_per_task", 1);
    int64_t tpn = jint(job, "ntasks_per_node", 0);
    int64_t min = jint(job, "min_cpus_per_node", 0), n;

    if (cpt <= 0)
        cpt = 1;
    n = tpn > 0 ? cpt * tpn : cpt;
    return (uint32_t)(min > n ? min : n);
}

const char *job_view_reason(const json_t *job)
{
    return jstr_or(job, "state_reason", "None");
}

/* One copy of 'job' per task of its pending set, appended to 'out'. */
static void expand_one(json_t *out, json_t *job)
{
    const char *pending = jstr(job, "array_pending");
    bitmap_t *set = pending && *pending
                        ? bitmap_parse(pending,
                                       (size_t)jint(job, "array_task_max", 0)
                                           + 1,
                                       NULL)
                        : NULL;

    for (long k = set ? bitmap_first_set(set, 0) : -1; k >= 0;
         k = bitmap_first_set(set, (size_t)k + 1)) {
        json_t *t = jcopy(job);
        jset(t, "array_task_str", NULL);
        jset(t, "array_task_id", json_integer(k));
        json_array_append_new(out, t);
    }
    if (!set)
        json_array_append(out, job);
    bitmap_destroy(set);
}

void job_view_expand_arrays(json_t *jobs)
{
    json_t *out = json_array(), *job;
    size_t i;

    json_array_foreach(jobs, i, job) {
        if (jhas(job, "array_task_str"))
            expand_one(out, job);
        else
            json_array_append(out, job);
    }
    json_array_clear(jobs);
    json_array_extend(jobs, out);
    json_decref(out);
}

bool job_view_task_pending(const json_t *job, long task)
{
    const char *pending = jstr(job, "array_pending");
    bitmap_t *set;
    bool hit;

    if (!pending || !*pending || task < 0)
        return false;
    set = bitmap_parse(pending, (size_t)jint(job, "array_task_max", 0) + 1,
                       NULL);
    hit = set && bitmap_test(set, (size_t)task);
    bitmap_destroy(set);
    return hit;
}
