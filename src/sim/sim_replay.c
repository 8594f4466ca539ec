/* SPDX-License-Identifier: Apache-2.0
 *
 * sim_replay.c - the event loop of sim_run(): the pool, the jobs, and
 * virtual time moving from one instant with events to the next.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_private.h"

/* Heap of running jobs: earliest end first, then lowest job index. */
static bool earlier(const struct sim *s, uint32_t a, uint32_t b)
{
    return s->end[a] < s->end[b] || (s->end[a] == s->end[b] && a < b);
}

static void heap_push(struct sim *s, uint32_t j)
{
    size_t i = s->nheap++;

    while (i > 0 && earlier(s, j, s->heap[(i - 1) / 2])) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = j;
}

static uint32_t heap_pop(struct sim *s)
{
    uint32_t top = s->heap[0], last = s->heap[--s->nheap];
    size_t i = 0, n = s->nheap;

    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && earlier(s, s->heap[c + 1], s->heap[c]))
            c++;
        if (!earlier(s, s->heap[c], last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (n)
        s->heap[i] = last;
    return top;
}

int64_t sim_job_duration(const struct swf_job *job)
{
    return job->run < job->estimate ? job->run : job->estimate;
}

uint64_t sim_alloc_cpus(const struct sched_alloc *a)
{
    uint64_t n = 0;

    for (uint32_t i = 0; i < a->node_count; i++)
        n += a->cpus[i];
    return n;
}

void sim_start_job(struct sim *s, uint32_t j, struct sched_alloc *a,
                   int64_t now)
{
    const struct swf_job *job = &s->t->jobs[j];

    s->start[j] = now;
    s->end[j] = now + sim_job_duration(job);
    s->alloc[j] = a;
    s->ridx[j] = (uint32_t)s->nrun;
    s->run[s->nrun++] = (struct sched_job){
        .id = j, .time_limit_s = s->limit[j], .start_time = now, .alloc = a,
    };
    s->free_cpus -= sim_alloc_cpus(a);
    heap_push(s, j);
}

static void end_job(struct sim *s, uint32_t j)
{
    uint32_t r = s->ridx[j];

    if (s->prio)
        sim_prio_leave(s, j, s->end[j]);
    sched_alloc_release(s->nodes, s->nnodes, s->alloc[j]);
    s->free_cpus += sim_alloc_cpus(s->alloc[j]);
    if (s->o->predict)
        (void)sim_predict_learn(s, j, s->end[j] - s->start[j]);
    s->run[r] = s->run[--s->nrun];
    s->ridx[s->run[r].id] = r;
    sched_alloc_destroy(s->alloc[j]);
    s->alloc[j] = NULL;
}

static void submit_job(struct sim *s, uint32_t j, int64_t now)
{
    s->limit[j] = s->t->jobs[j].estimate; /* planned anew at each pass */
    s->pend[s->tail++] = (struct sched_job){
        .id = j, .req = &s->reqs[j], .time_limit_s = s->limit[j],
    };
    if (s->prio) /* its place in priority order */
        sim_prio_submit(s, j, now);
}

static int by_submit(const void *a, const void *b, void *arg)
{
    const struct swf_trace *t = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int64_t sx = t->jobs[x].submit, sy = t->jobs[y].submit;

    if (sx != sy)
        return sx < sy ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Job indexes in submission order, ties in trace order.  NULL: ENOMEM. */
static uint32_t *sort_order(const struct swf_trace *t)
{
    uint32_t *order = malloc((t->njobs ? t->njobs : 1) * sizeof(*order));

    if (!order)
        return NULL;
    for (size_t i = 0; i < t->njobs; i++)
        order[i] = (uint32_t)i;
    qsort_r(order, t->njobs, sizeof(*order), by_submit, (void *)t);
    return order;
}

static void sim_free(struct sim *s)
{
    if (s->alloc)
        for (size_t j = 0; j < s->t->njobs; j++)
            sched_alloc_destroy(s->alloc[j]);
    for (size_t i = 0; s->nodes && i < s->nnodes; i++)
        bitmap_destroy(s->nodes[i].alloc_gpus);
    free(s->nodes);
    free(s->allowed);
    bitmap_destroy(s->nowhere);
    free(s->reqs);
    free(s->start);
    free(s->end);
    free(s->alloc);
    free(s->ridx);
    free(s->never);
    free(s->heap);
    free(s->run);
    free(s->pend);
    free(s->out);
    free(s->limit);
    free(s->first_plan);
    free(s->order);
    free(s->perm);
    free(s->waited);
    free(s->class);
    sched_predict_destroy(s->predict);
    sim_prio_free(s->prio);
}

/* The pool of o->nodes x o->cpus_per_node (or one node of the trace's
 * MaxProcs). */
static int pool_uniform(struct sim *s)
{
    const struct sim_opts *o = s->o;
    uint32_t nn = o->nodes ? o->nodes : 1;
    uint32_t cpn = o->cpus_per_node ? o->cpus_per_node : s->t->max_procs;

    if (!(s->nodes = sched_nodes_alloc(nn)))
        return -1;
    s->nnodes = nn;
    for (uint32_t i = 0; i < nn; i++)
        s->nodes[i] = (struct sched_node){
            .name = "sim", .cpus = cpn, .available = true, .weight = 1,
        };
    s->pool_cpus = (uint64_t)nn * cpn;
    return 0;
}

/* The cluster's nodes, idle, each with GPU usage of its own. */
static int pool_cluster(struct sim *s, const struct sim_cluster *c)
{
    if (!(s->nodes = sched_nodes_alloc(c->nnodes)))
        return -1;
    for (size_t i = 0; i < c->nnodes; i++) {
        const struct sched_node *cn = &c->nodes[i];
        s->nodes[i] = (struct sched_node){
            .name = cn->name, .cpus = cn->cpus, .mem_mib = cn->mem_mib,
            .gpus = cn->gpus, .gpu_type = cn->gpu_type,
            .features = cn->features, .available = true,
            .weight = cn->weight,
        };
        s->nnodes++;
        if (!(s->nodes[i].alloc_gpus = bitmap_create(cn->gpus)))
            return -1;
    }
    s->pool_cpus = c->cpus;
    return 0;
}

static int sim_init_pool(struct sim *s)
{
    int rc = s->o->cluster ? pool_cluster(s, s->o->cluster)
                           : pool_uniform(s);

    s->free_cpus = s->pool_cpus;
    return rc;
}

/* s->allowed: the nodes of each of the trace's partitions on the
 * cluster (index 0: the default partition). */
static int map_parts(struct sim *s, const struct sim_cluster *c)
{
    const struct swf_trace *t = s->t;

    if (!(s->allowed = calloc(t->nparts + 1, sizeof(*s->allowed)))
        || !(s->nowhere = bitmap_create(c->nnodes)))
        return -1;
    if (c->nparts)
        s->allowed[0] = c->parts[c->default_part].nodes;
    for (size_t k = 0; k < t->nparts; k++) {
        long p = sim_cluster_part(c, t->parts[k]);
        s->allowed[k + 1] = p < 0 ? s->nowhere : c->parts[p].nodes;
    }
    return 0;
}

/* A job's request on a cluster (see sim_run() in sim.h). */
static void cluster_request(const struct sim *s, const struct swf_job *job,
                            struct sched_request *r)
{
    r->min_nodes = r->max_nodes = job->nodes;
    r->mem_per_cpu_mib = job->mem_per_cpu_mib;
    if (job->gpus && job->nodes > 1 && job->gpus % job->nodes == 0)
        r->gpus_per_node = job->gpus / job->nodes;
    else
        r->gpus_total = job->gpus;
    r->allowed_nodes = job->part <= s->t->nparts ? s->allowed[job->part]
                                                 : s->nowhere;
}

static int sim_init(struct sim *s, const struct swf_trace *t,
                    const struct sim_opts *o)
{
    size_t n = t->njobs ? t->njobs : 1;

    memset(s, 0, sizeof(*s));
    s->t = t;
    s->o = o;
    if (!(s->reqs = calloc(n, sizeof(*s->reqs)))
        || !(s->start = malloc(n * sizeof(*s->start)))
        || !(s->end = calloc(n, sizeof(*s->end)))
        || !(s->alloc = calloc(n, sizeof(*s->alloc)))
        || !(s->ridx = calloc(n, sizeof(*s->ridx)))
        || !(s->never = calloc(n, sizeof(*s->never)))
        || !(s->heap = calloc(n, sizeof(*s->heap)))
        || !(s->run = calloc(n, sizeof(*s->run)))
        || !(s->pend = calloc(n, sizeof(*s->pend)))
        || !(s->out = calloc(n, sizeof(*s->out)))
        || !(s->limit = calloc(n, sizeof(*s->limit)))
        || !(s->first_plan = malloc(n * sizeof(*s->first_plan)))
        || !(s->order = calloc(n, sizeof(*s->order)))
        || !(s->perm = calloc(n, sizeof(*s->perm)))
        || !(s->waited = calloc(n, sizeof(*s->waited)))
        || !(s->class = calloc(n, sizeof(*s->class)))
        || (o->predict && !(s->predict = sched_predict_create())))
        return -1;
    if (o->cluster && map_parts(s, o->cluster) < 0)
        return -1;
    for (size_t j = 0; j < t->njobs; j++) {
        s->first_plan[j] = -1;
        s->reqs[j].ntasks = t->jobs[j].procs;
        s->reqs[j].cpus_per_task = 1;
        if (o->cluster)
            cluster_request(s, &t->jobs[j], &s->reqs[j]);
        s->start[j] = -1;
    }
    return 0;
}

/* Whether a calculation at its time would matter: a job is still to
 * come or waits (once neither, the usage is read no more). */
static bool calc_due(const struct sim *s, size_t next)
{
    return s->prio && (next < s->t->njobs || s->head < s->tail);
}

/* Run the events in time order: an instant's completions, then the
 * priority calculation when one is due then (multifactor), then its
 * submissions, then a pass.  When the queue's order is not the
 * submission order (backfill_sjf, multifactor), a submission that may
 * start gets its own pass first, as the controller schedules after each
 * sbatch: taking an instant's submissions together would change
 * decisions (in submission order it changes none: each pass decides the
 * earlier jobs first, the same way). */
static int sim_loop(struct sim *s, const uint32_t *order)
{
    size_t next = 0, n = s->t->njobs;
    bool one_by_one = s->o->backfill_sjf || s->prio;

    while (next < n || s->nheap) {
        int64_t now = INT64_MAX;
        if (s->nheap)
            now = s->end[s->heap[0]];
        if (next < n && s->t->jobs[order[next]].submit < now)
            now = s->t->jobs[order[next]].submit;
        if (calc_due(s, next) && sim_prio_next_calc(s) < now)
            now = sim_prio_next_calc(s);
        while (s->nheap && s->end[s->heap[0]] == now)
            end_job(s, heap_pop(s));
        if (calc_due(s, next) && sim_prio_next_calc(s) == now)
            sim_prio_calc(s, now);
        while (next < n && s->t->jobs[order[next]].submit == now) {
            uint32_t j = order[next++];
            submit_job(s, j, now);
            /* One by one, as sbatch runs and the controller schedules
             * after each; a job that cannot start now changes no
             * decision. */
            if (one_by_one && s->free_cpus >= s->t->jobs[j].procs
                && sim_pass(s, now) < 0)
                return -1;
        }
        if (sim_pass(s, now) < 0)
            return -1;
    }
    return 0;
}

int sim_run(const struct swf_trace *t, const struct sim_opts *o,
            struct sim_result *r, int64_t *start_out, drv_error_t *error)
{
    struct sim s;
    uint32_t *order = NULL;
    int rc = -1;

    memset(r, 0, sizeof(*r));
    if (sim_init(&s, t, o) < 0 || !(order = sort_order(t))) {
        errno = ENOMEM;
        errprintf(error, "out of memory");
        goto out;
    }
    if (o->cluster ? !o->cluster->nnodes
                   : !o->cpus_per_node && !t->max_procs) {
        errno = EINVAL;
        errprintf(error, o->cluster ? "the cluster has no node"
                                    : "the pool has no CPU (no MaxProcs, "
                                      "no job)");
        goto out;
    }
    if (sim_init_pool(&s) < 0 || sim_prio_init(&s) < 0) {
        errno = ENOMEM;
        errprintf(error, "out of memory");
        goto out;
    }
    if (sim_loop(&s, order) < 0) {
        errprintf(error, "scheduling pass: %s", strerror(errno));
        goto out;
    }
    if (sim_metrics(&s, r) < 0) {
        errprintf(error, "out of memory");
        goto out;
    }
    if (start_out)
        memcpy(start_out, s.start, t->njobs * sizeof(*start_out));
    rc = 0;
out:
    free(order);
    sim_free(&s);
    return rc;
}
