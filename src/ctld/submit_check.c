/* SPDX-License-Identifier: Apache-2.0
 *
 * submit_check.c - placement checks at submit, --begin, partition limits,
 * and --test-only (a scheduling pass on a copy of the cluster, with the
 * would-be job added; nothing is queued or journaled)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/timefmt.h"
#include "common/xalloc.h"
#include "proto/schema.h"
#include "ctld/resv.h"
#include "ctld/submit_check.h"
#include "sched/feature_expr.h"

#define TOO_LONG EDRV_PATHNAME_TOO_LONG

int submit_check_script(const struct ctld *ctld, json_t *body,
                      drv_error_t *error)
{
    const struct schema_field script = {
        "script", SCHEMA_STR, 0, ctld->conf->sched.max_script_size, TOO_LONG, 0,
        "bytes", NULL};

    return schema_check_field(body, &script, error);
}

/* Does some node of the table have feature 'name'? */
static int feature_unknown(const char *name, void *arg)
{
    const struct node_table *nt = arg;

    for (size_t i = 0; i < nt->count; i++)
        if (feature_expr_has(nt->sched[i].features, name))
            return 0;
    return 1;
}

int submit_check_features(struct ctld *ctld, const char *expr,
                          drv_error_t *error)
{
    if (!expr)
        return 0;
    if (feature_expr_check(expr, error) < 0
        || feature_expr_each(expr, feature_unknown, ctld->nodes)) {
        errno = EDRV_INVALID_FEATURE;
        return errprintf(error, "invalid feature specification: %s", expr);
    }
    return 0;
}

static bool subset(const bitmap_t *a, const bitmap_t *b)
{
    for (size_t i = 0; i < bitmap_size(a); i++)
        if (bitmap_test(a, i) && (i >= bitmap_size(b) || !bitmap_test(b, i)))
            return false;
    return true;
}

int submit_check_place(struct ctld *ctld, struct job *job,
                       const struct ctld_partition *part, drv_error_t *error)
{
    const struct conf_partition *cp = part->conf;

    if (job_place_resolve(&job->place, &job->req, ctld->nodes, error) < 0
        || submit_check_features(ctld, job->place.features, error) < 0)
        return -1;
    if (job->place.req_bm && !subset(job->place.req_bm, part->nodes)) {
        errno = EDRV_REQUESTED_NODES_NOT_IN_PARTITION;
        return errprintf(error, "nodes %s are not all in partition %s",
                         job->place.req_nodes, cp->name);
    }
    submit_check_part_limits(job, part);
    return 0;
}

void submit_check_part_limits(struct job *job,
                              const struct ctld_partition *part)
{
    const struct conf_partition *cp = part->conf;

    /* No limit (TIME_INFINITE) is over every finite MaxTime. */
    if (cp->max_time_s != TIME_INFINITE
        && (job->time_limit_s == TIME_INFINITE
            || job->time_limit_s > cp->max_time_s))
        job->reason = JOB_REASON_PART_TIME_LIMIT;
    if (cp->max_nodes != UINT32_MAX && job->req.min_nodes > cp->max_nodes)
        job->reason = JOB_REASON_PART_NODE_LIMIT;
    /* MinNodes: a job whose node count cannot reach it (-N1 where
     * MinNodes=2; a job without -N was raised to it at submit) */
    if (job->req.min_nodes < cp->min_nodes)
        job->reason = JOB_REASON_PART_NODE_LIMIT;
}

void submit_check_part_again(struct job *job,
                             const struct ctld_partition *part)
{
    if (job->reason == JOB_REASON_PART_NODE_LIMIT
        || job->reason == JOB_REASON_PART_TIME_LIMIT)
        job->reason = JOB_REASON_NONE;
    if (job->reason != JOB_REASON_NONE)
        return;
    submit_check_part_limits(job, part);
    if (job->req.min_nodes > bitmap_count(part->nodes))
        job->reason = JOB_REASON_PART_NODE_LIMIT;
}

void submit_check_begin(struct job *job, time_t now)
{
    if (job->place.begin_time <= now)
        return;
    job->eligible_time = (time_t)job->place.begin_time;
    if (!job->hold && job->reason == JOB_REASON_NONE)
        job->reason = JOB_REASON_BEGIN_TIME;
}

bool submit_req_node_unavail(const struct job *job,
                             const struct node_table *nt)
{
    const bitmap_t *b = job->place.req_bm;

    for (size_t i = 0; b && i < bitmap_size(b) && i < nt->count; i++)
        if (bitmap_test(b, i) && !nt->sched[i].available)
            return true;
    return false;
}

/* A copy of the cluster's usage for a pass that must not change it. */
static struct sched_node *nodes_copy(const struct node_table *nt)
{
    struct sched_node *c = sched_nodes_copy(nt->sched, nt->count);

    if (!c)
        abort(); /* as xalloc.h: the controller's glue does not run on */
    return c;
}

static bool ahead_of(const struct job *j, const struct job *me, time_t now)
{
    return j->state == JOB_PENDING && !j->hold && j->priority > 0
           && j->reason != JOB_REASON_PART_NODE_LIMIT
           && j->reason != JOB_REASON_PART_TIME_LIMIT
           && j->reason != JOB_REASON_PN_MEM_LIMIT
           && j->eligible_time <= now && j->priority >= me->priority;
}

/* Running jobs and the pending jobs ahead of 'me', then 'me' last. */
static void collect(struct ctld *ctld, struct job *me, time_t now,
                    struct sched_job *run, size_t *nr, struct sched_job *pend,
                    size_t *np)
{
    struct job *j, *tmp, **ahead = xzalloc((HASH_COUNT(ctld->jobs) + 1)
                                           * sizeof(*ahead));
    size_t na = 0;

    *nr = *np = 0;
    HASH_ITER(hh, ctld->jobs, j, tmp) {
        if (j->alloc)
            run[(*nr)++] = (struct sched_job){ .id = j->id,
                .time_limit_s = j->time_limit_s,
                .start_time = j->start_time, .alloc = j->alloc };
        else if (ahead_of(j, me, now) && j->req.allowed_nodes
                 && job_place_resolve(&j->place, &j->req, ctld->nodes, NULL)
                        == 0)
            ahead[na++] = j;
    }
    qsort_r(ahead, na, sizeof(*ahead), ctld_job_order, ctld);
    for (size_t i = 0; i < na; i++)
        pend[(*np)++] = (struct sched_job){ .id = ahead[i]->id,
            .req = &ahead[i]->req, .time_limit_s = ahead[i]->time_limit_s };
    free(ahead);
    pend[(*np)++] = (struct sched_job){ .id = UINT32_MAX, .req = &me->req,
                                        .time_limit_s = me->time_limit_s };
}

static json_t *will_run_answer(struct ctld *ctld, const struct job *job,
                               uint32_t job_id, const struct sched_decision *d)
{
    uint32_t cpus = 0;
    char *nodes = d->alloc ? node_table_alloc_hostlist(ctld->nodes, d->alloc)
                           : xstrdup("");
    json_t *o;

    for (uint32_t i = 0; d->alloc && i < d->alloc->node_count; i++)
        cpus += d->alloc->cpus[i];
    o = json_pack("{s:I s:I s:I s:s s:s}", "job_id", (json_int_t)job_id,
                  "start_time", (json_int_t)d->start_time, "cpus",
                  (json_int_t)cpus, "nodes", nodes, "partition",
                  job->partition);
    free(nodes);
    return o;
}

json_t *submit_will_run(struct ctld *ctld, struct job *job, uint32_t job_id,
                        time_t now)
{
    size_t cap = HASH_COUNT(ctld->jobs) + 1, nr, np;
    struct sched_job *run = xzalloc(sizeof(*run) * cap);
    struct sched_job *pend = xzalloc(sizeof(*pend) * cap);
    struct sched_decision *dec = xzalloc(sizeof(*dec) * cap);
    struct sched_node *nodes = nodes_copy(ctld->nodes);
    int64_t t0 = job->eligible_time > now ? job->eligible_time : now;
    json_t *o = NULL;

    if (job->reason == JOB_REASON_PART_NODE_LIMIT
        || job->reason == JOB_REASON_PART_TIME_LIMIT
        || job->reason == JOB_REASON_PN_MEM_LIMIT) {
        errno = job->reason == JOB_REASON_PART_NODE_LIMIT
                    ? EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE
                : job->reason == JOB_REASON_PN_MEM_LIMIT
                    ? EDRV_INVALID_TASK_MEMORY
                    : EDRV_INVALID_TIME_LIMIT;
        sched_nodes_free(nodes, ctld->nodes->count);
        free(dec);
        free(pend);
        free(run);
        return NULL;
    }
    struct sched_pass_opts opts;

    job->priority = 1; /* last among equals: behind every queued job */
    collect(ctld, job, now, run, &nr, pend, &np);
    scheduler_opts(ctld, resv_find(ctld, job->reservation), (time_t)t0,
                   &opts);
    if (sched_pass(nodes, ctld->nodes->count, run, nr, pend, np, t0, &opts,
                   dec) == 0) {
        struct sched_decision *d = &dec[np - 1];
        if (d->action == SCHED_ACT_WAIT && !d->alloc)
            d->start_time = -1;
        o = will_run_answer(ctld, job, job_id, d);
        sched_decisions_clear(dec, np);
    } else {
        errno = ENOMEM;
    }
    resv_holds_free((struct sched_hold *)opts.holds, opts.nholds);
    sched_nodes_free(nodes, ctld->nodes->count);
    free(dec);
    free(pend);
    free(run);
    return o;
}
