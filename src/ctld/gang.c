/* SPDX-License-Identifier: Apache-2.0
 *
 * gang.c - time slicing of jobs that share CPUs (gang.h)
 */
#include <stdlib.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/gang.h"
#include "ctld/suspend.h"

/* Does 'job' share its CPUs (ctld_job_oversubscribe())? */
static bool shares(struct ctld *ctld, const struct job *job)
{
    return ctld_job_oversubscribe(ctld, job) > 1;
}

static bool enabled(const struct ctld *ctld)
{
    if (!ctld->conf->preempt_gang)
        return false;
    for (size_t i = 0; i < ctld->nodes->part_count; i++)
        if (ctld->nodes->parts[i].conf->oversubscribe > 1)
            return true;
    return false;
}

/* A job the gang scheduler runs or suspends: sharing, holding its CPUs,
 * running or suspended by it. */
static bool member(struct ctld *ctld, const struct job *job)
{
    return job->alloc && !job->completing && shares(ctld, job)
           && (job->state == JOB_RUNNING
               || (job->state == JOB_SUSPENDED && job->gang_suspended));
}

static time_t since(const struct job *job)
{
    return job->gang_since ? job->gang_since : job->start_time;
}

/* Who runs first.  rotate: the suspended, longest waiting first, then the
 * running, most recently resumed first; else the running, oldest first,
 * then the suspended, longest waiting first. */
static int order(const void *a, const void *b, void *arg)
{
    const struct job *x = *(struct job *const *)a;
    const struct job *y = *(struct job *const *)b;
    bool rotate = *(const bool *)arg;
    bool rx = x->state == JOB_RUNNING, ry = y->state == JOB_RUNNING;

    if (rx != ry)
        return (rotate ? rx : ry) ? 1 : -1;
    if (since(x) != since(y))
        return (since(x) < since(y)) == !(rotate && rx) ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* CPUs running now on each node, of the jobs that are not members. */
static uint32_t *others_running(struct ctld *ctld)
{
    uint32_t *used = xzalloc((ctld->nodes->count + 1) * sizeof(*used));
    struct job *job, *tmp;

    HASH_ITER(hh, ctld->jobs, job, tmp) {
        if (!job->alloc || job->state != JOB_RUNNING || member(ctld, job))
            continue;
        for (uint32_t k = 0; k < job->alloc->node_count; k++)
            used[job->alloc->node_idx[k]] += job->alloc->cpus[k];
    }
    return used;
}

/* Does 'job' fit on what is left running; if so, count it. */
static bool take(struct ctld *ctld, const struct job *job, uint32_t *used)
{
    const struct sched_alloc *a = job->alloc;

    for (uint32_t k = 0; k < a->node_count; k++)
        if (used[a->node_idx[k]] + a->cpus[k]
            > ctld->nodes->sched[a->node_idx[k]].cpus)
            return false;
    for (uint32_t k = 0; k < a->node_count; k++)
        used[a->node_idx[k]] += a->cpus[k];
    return true;
}

/* Suspend or resume 'job' as 'run' says, if it is not so already. */
static void set_running(struct ctld *ctld, struct job *job, bool run,
                        time_t now)
{
    if (run == (job->state == JOB_RUNNING))
        return;
    if (suspend_job_gang(ctld, job, !run, now) < 0)
        return;
    job->gang_since = now;
    log_info("gang: JobId=%u %s", job->id, run ? "resumed" : "suspended");
}

void gang_check(struct ctld *ctld, time_t now, bool rotate)
{
    size_t n = 0;
    struct job **m, *job, *tmp;
    uint32_t *used;

    if (!enabled(ctld))
        return;
    m = xzalloc((HASH_COUNT(ctld->jobs) + 1) * sizeof(*m));
    HASH_ITER(hh, ctld->jobs, job, tmp) {
        if (member(ctld, job))
            m[n++] = job;
    }
    used = others_running(ctld);
    qsort_r(m, n, sizeof(*m), order, &rotate);
    for (size_t i = 0; i < n; i++)
        set_running(ctld, m[i], take(ctld, m[i], used), now);
    free(used);
    free(m);
}

void gang_periodic(struct ctld *ctld, time_t now)
{
    if (!enabled(ctld))
        return;
    if (!ctld->gang_last) /* the first slice begins now */
        ctld->gang_last = now;
    if (now - ctld->gang_last < (time_t)ctld->conf->sched_time_slice_s)
        return;
    ctld->gang_last = now;
    gang_check(ctld, now, true);
}
