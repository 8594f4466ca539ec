/* SPDX-License-Identifier: Apache-2.0
 *
 * pass.c - one scheduling pass with backfill, as Slurm's sched/backfill
 *
 * Pending jobs are taken in priority order.  A job that cannot start now is
 * given a reservation: the earliest time its resources will be free for its
 * whole time limit, found by projecting node usage forward through the end
 * times of running jobs.  Later jobs may start now only on resources that
 * no reservation needs while they run.  Usage is projected per CPU count,
 * memory and GPU index, not per whole node as Slurm does, so a small job
 * can share a node with a reservation when there is room for both.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched.h"
#include "sched/sched_private.h"

#define NEVER_ENDS INT64_MAX

/* Something that holds resources over [start, end): a running job, a job
 * started by this pass, or a reservation ('planned', not in node usage).
 */
struct item {
    int64_t start;
    int64_t end; /* NEVER_ENDS: no time limit */
    const struct sched_alloc *alloc;
    bool planned;
};

/* A change in usage: -1 when an item ends, +1 when a reservation begins. */
struct event {
    int64_t time;
    uint32_t item;
    int sign;
};

struct pass {
    struct sched_node *nodes;
    size_t n;
    int64_t now;
    struct sched_pass_opts opts;
    struct item *items;
    size_t nitems;
    struct event *events; /* sorted by time, ends before beginnings */
    size_t nevents;
    uint32_t tried;       /* blocked jobs a reservation was sought for */
    /* Projection: usage at one instant, and over a window in 'view'. */
    struct sched_node *view;
    int64_t *cpus;
    int64_t *mem;
    int64_t *running;
    int64_t *excl;
    size_t *gpu_off; /* node i's GPU counters begin at gpu_use[gpu_off[i]] */
    int32_t *gpu_use;
};

const char *sched_reason_string(enum sched_reason reason)
{
    static const char *const names[] = {
        [SCHED_REASON_NONE] = "None",
        [SCHED_REASON_RESOURCES] = "Resources",
        [SCHED_REASON_PRIORITY] = "Priority",
        [SCHED_REASON_LIMIT] = "AccountingPolicy",
    };

    if ((size_t)reason < sizeof(names) / sizeof(names[0]))
        return names[reason];
    return "None";
}

void sched_decisions_clear(struct sched_decision *out, size_t count)
{
    for (size_t i = 0; out && i < count; i++) {
        sched_alloc_destroy(out[i].alloc);
        out[i].alloc = NULL;
    }
}

/* End of something starting at 't' that runs 'limit_s' seconds (-1: no
 * limit); NEVER_ENDS rather than overflow.
 */
static int64_t end_of(int64_t t, int64_t limit_s)
{
    if (limit_s < 0 || limit_s > NEVER_ENDS - t)
        return NEVER_ENDS;
    return t + limit_s;
}

static void pass_destroy(struct pass *p)
{
    int saved_errno = errno;

    if (p->view) {
        for (size_t i = 0; i < p->n; i++)
            bitmap_destroy(p->view[i].alloc_gpus);
    }
    free(p->view);
    free(p->items);
    free(p->events);
    free(p->cpus);
    free(p->mem);
    free(p->running);
    free(p->excl);
    free(p->gpu_off);
    free(p->gpu_use);
    errno = saved_errno;
}

/* Every node with GPUs must have a usage bitmap of the right size. */
static bool nodes_valid(const struct sched_node *nodes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (nodes[i].gpus
            && (!nodes[i].alloc_gpus
                || bitmap_size(nodes[i].alloc_gpus) != nodes[i].gpus))
            return false;
    }
    return true;
}

/* The view: copies of the nodes' configuration, each with its own GPU
 * bitmap.  Returns 0 or -1 with errno=ENOMEM.
 */
static int view_create(struct pass *p)
{
    size_t ngpus = 0;

    if (!(p->view = calloc(p->n ? p->n : 1, sizeof(*p->view)))
        || !(p->gpu_off = calloc(p->n ? p->n : 1, sizeof(*p->gpu_off))))
        return -1;
    for (size_t i = 0; i < p->n; i++) {
        p->view[i] = p->nodes[i];
        p->view[i].alloc_gpus = NULL;
        p->gpu_off[i] = ngpus;
        ngpus += p->nodes[i].gpus;
        if (p->nodes[i].gpus
            && !(p->view[i].alloc_gpus = bitmap_create(p->nodes[i].gpus)))
            return -1;
    }
    if (!(p->gpu_use = calloc(ngpus ? ngpus : 1, sizeof(*p->gpu_use))))
        return -1;
    return 0;
}

/* Returns 0 or -1 with errno=ENOMEM; pass_destroy() cleans up either way. */
static int pass_init(struct pass *p,
                     struct sched_node *nodes,
                     size_t n,
                     size_t max_items,
                     int64_t now,
                     const struct sched_pass_opts *opts)
{
    size_t k = n ? n : 1;

    *p = (struct pass){
        .nodes = nodes,
        .n = n,
        .now = now,
        .opts = opts ? *opts : SCHED_PASS_OPTS_DEFAULT,
    };
    max_items = max_items ? max_items : 1;
    if (!(p->items = calloc(max_items, sizeof(*p->items)))
        || !(p->events = calloc(2 * max_items, sizeof(*p->events)))
        || !(p->cpus = calloc(k, sizeof(*p->cpus)))
        || !(p->mem = calloc(k, sizeof(*p->mem)))
        || !(p->running = calloc(k, sizeof(*p->running)))
        || !(p->excl = calloc(k, sizeof(*p->excl))))
        return -1;
    return view_create(p);
}

static int cmp_event(const struct event *a, const struct event *b)
{
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    if (a->sign != b->sign)
        return a->sign < b->sign ? -1 : 1;
    return a->item < b->item ? -1 : a->item > b->item ? 1 : 0;
}

/* Insert 'ev' keeping the events sorted (room was made in pass_init). */
static void event_insert(struct pass *p, struct event ev)
{
    size_t at = p->nevents;

    while (at > 0 && cmp_event(&p->events[at - 1], &ev) > 0)
        at--;
    memmove(&p->events[at + 1], &p->events[at],
            (p->nevents - at) * sizeof(ev));
    p->events[at] = ev;
    p->nevents++;
}

/* Record an item; a planned one also takes its resources at 'start'. */
static void item_add(struct pass *p,
                     int64_t start,
                     int64_t end,
                     const struct sched_alloc *alloc,
                     bool planned)
{
    uint32_t id = (uint32_t)p->nitems++;

    p->items[id] = (struct item){ start, end, alloc, planned };
    if (planned)
        event_insert(p, (struct event){ start, id, +1 });
    if (end != NEVER_ENDS)
        event_insert(p, (struct event){ end, id, -1 });
}

/* Usage at the projected instant := the nodes' usage now. */
static void proj_reset(struct pass *p)
{
    for (size_t i = 0; i < p->n; i++) {
        const struct sched_node *nd = &p->nodes[i];
        int32_t *use = &p->gpu_use[p->gpu_off[i]];

        p->cpus[i] = nd->alloc_cpus;
        p->mem[i] = (int64_t)nd->alloc_mem_mib;
        p->running[i] = nd->running_jobs;
        p->excl[i] = nd->exclusive_alloc;
        for (uint32_t g = 0; g < nd->gpus; g++)
            use[g] = bitmap_test(nd->alloc_gpus, g);
    }
}

/* Add (sign +1) or remove (-1) an allocation from the projected usage. */
static void proj_apply(struct pass *p, const struct sched_alloc *a, int sign)
{
    for (uint32_t j = 0; j < a->node_count; j++) {
        uint32_t idx = a->node_idx[j];
        int32_t *use = &p->gpu_use[p->gpu_off[idx]];

        p->cpus[idx] += sign * (int64_t)a->cpus[j];
        p->mem[idx] += sign * (int64_t)a->mem_mib[j];
        p->running[idx] += sign;
        p->excl[idx] += a->exclusive ? sign : 0;
        for (long g = a->gpus[j] ? bitmap_first_set(a->gpus[j], 0) : -1;
             g >= 0;
             g = bitmap_first_set(a->gpus[j], (size_t)g + 1))
            use[g] += sign;
    }
}

static uint64_t clamp_u(int64_t v, uint64_t max)
{
    return v < 0 ? 0 : (uint64_t)v > max ? max : (uint64_t)v;
}

/* view[i] usage := the projected usage ('fold': the larger of the two, so
 * the view holds the most used at any instant of a window).
 */
static void view_take(struct pass *p, size_t i, bool fold)
{
    struct sched_node *v = &p->view[i];
    const int32_t *use = &p->gpu_use[p->gpu_off[i]];
    uint32_t cpus = (uint32_t)clamp_u(p->cpus[i], UINT32_MAX);
    uint64_t mem = clamp_u(p->mem[i], UINT64_MAX);
    uint32_t running = (uint32_t)clamp_u(p->running[i], UINT32_MAX);

    if (!fold || cpus > v->alloc_cpus)
        v->alloc_cpus = cpus;
    if (!fold || mem > v->alloc_mem_mib)
        v->alloc_mem_mib = mem;
    if (!fold || running > v->running_jobs)
        v->running_jobs = running;
    v->exclusive_alloc = (fold && v->exclusive_alloc) || p->excl[i] > 0;
    if (!fold && v->alloc_gpus)
        bitmap_clear_all(v->alloc_gpus);
    for (uint32_t g = 0; g < v->gpus; g++) {
        if (use[g] > 0)
            bitmap_set(v->alloc_gpus, g);
    }
}

static void event_apply(struct pass *p, const struct event *ev, bool fold)
{
    const struct sched_alloc *a = p->items[ev->item].alloc;

    proj_apply(p, a, ev->sign);
    for (uint32_t j = 0; fold && j < a->node_count; j++)
        view_take(p, a->node_idx[j], true);
}

/* Fill the view with the most each node has in use at any instant of
 * [t, e): usage now, less what ends by t, plus reservations under way.
 * Changes inside the window are folded in one at a time, so two
 * reservations one after the other on a node do not add up.
 */
static void project_window(struct pass *p, int64_t t, int64_t e)
{
    size_t k = 0;

    proj_reset(p);
    for (; k < p->nevents && p->events[k].time <= t; k++)
        event_apply(p, &p->events[k], false);
    for (size_t i = 0; i < p->n; i++)
        view_take(p, i, false);
    for (; k < p->nevents && p->events[k].time < e; k++)
        event_apply(p, &p->events[k], true);
}

/* Does 'req' fit for all of [t, e)?  As sched__select_now(). */
static int fits_window(struct pass *p,
                       const struct sched_request *req,
                       int64_t t,
                       int64_t e,
                       struct sched_alloc **alloc)
{
    project_window(p, t, e);
    return sched__select_now(p->view, p->n, req, alloc);
}

/* Does any reservation begin before 'e'?  (All begin after now.) */
static bool plan_before(const struct pass *p, int64_t e)
{
    for (size_t i = 0; i < p->nitems; i++) {
        if (p->items[i].planned && p->items[i].start < e)
            return true;
    }
    return false;
}

/* Start 'a' now until 'end': it joins the nodes' usage. */
static void start_job(struct pass *p,
                      struct sched_alloc *a,
                      int64_t end,
                      struct sched_decision *d)
{
    (void)sched_alloc_apply(p->nodes, p->n, a); /* valid: chosen on them */
    item_add(p, p->now, end, a, false);
    d->action = SCHED_ACT_START;
    d->reason = SCHED_REASON_NONE;
    d->start_time = p->now;
    d->alloc = a;
}

/* Start 'job' now if it fits and delays no reservation; else say why it
 * waits.  Returns 0, or -1 with errno=ENOMEM.
 */
static int try_start(struct pass *p,
                     const struct sched_job *job,
                     struct sched_decision *d)
{
    int64_t end = end_of(p->now, job->time_limit_s);
    struct sched_alloc *a = NULL;
    int rc = sched_select(p->nodes, p->n, job->req, &a);

    if (rc < 0 && errno != EINVAL)
        return -1;
    if (rc < 0 || rc == SCHED_NEVER) {
        d->action = SCHED_ACT_NEVER;
        return 0;
    }
    d->reason = SCHED_REASON_RESOURCES;
    if (rc == SCHED_BUSY)
        return 0;
    if (plan_before(p, end)) {
        /* Place it, if it can be, where no reservation needs to be. */
        sched_alloc_destroy(a);
        if ((rc = fits_window(p, job->req, p->now, end, &a)) < 0)
            return -1;
        if (rc == SCHED_BUSY) {
            d->reason = SCHED_REASON_PRIORITY;
            return 0;
        }
    }
    start_job(p, a, end, d);
    return 0;
}

/* Reserve for a waiting job: try each time something ends, earliest first,
 * until it fits for its whole time limit.  No such time within the window
 * means no reservation, and nobody is held back for it.
 * Returns 0, or -1 with errno=ENOMEM.
 */
static int plan_job(struct pass *p,
                    const struct sched_job *job,
                    struct sched_decision *d)
{
    int64_t last = p->now;
    int64_t limit = end_of(p->now, p->opts.window_s ? p->opts.window_s : -1);

    if (p->tried >= p->opts.reserve_depth)
        return 0;
    p->tried++;
    for (size_t k = 0; k < p->nevents; k++) {
        const struct event *ev = &p->events[k];
        int64_t t = ev->time, end = end_of(t, job->time_limit_s);
        struct sched_alloc *a;
        int rc;

        if (ev->sign > 0 || t <= last)
            continue;
        if (t > limit)
            break;
        last = t;
        if ((rc = fits_window(p, job->req, t, end, &a)) < 0)
            return -1;
        if (rc == SCHED_OK) {
            item_add(p, t, end, a, true);
            d->start_time = t;
            d->alloc = a;
            return 0;
        }
    }
    return 0;
}

/* Running jobs free their resources at their end time; one past its limit
 * (still being killed) is taken to end in the next second.
 */
static int add_running(struct pass *p,
                       const struct sched_job *running,
                       size_t nrunning)
{
    for (size_t i = 0; i < nrunning; i++) {
        const struct sched_job *job = &running[i];
        int64_t end = end_of(job->start_time, job->time_limit_s);

        if (!job->alloc)
            continue;
        if (!sched__alloc_valid(p->nodes, p->n, job->alloc)) {
            errno = EINVAL;
            return -1;
        }
        item_add(p, job->start_time, end > p->now ? end : p->now + 1,
                 job->alloc, false);
    }
    return 0;
}

/* Undo the jobs this pass started and free every allocation in 'out'. */
static void pass_undo(struct pass *p, struct sched_decision *out, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (out[i].action == SCHED_ACT_START && out[i].alloc)
            (void)sched_alloc_release(p->nodes, p->n, out[i].alloc);
    }
    sched_decisions_clear(out, count);
}

int sched_pass(struct sched_node *nodes,
               size_t n,
               const struct sched_job *running,
               size_t nrunning,
               const struct sched_job *pending,
               size_t npending,
               int64_t now,
               const struct sched_pass_opts *opts,
               struct sched_decision *out)
{
    struct pass p;
    size_t i;

    if ((!nodes && n) || (!running && nrunning) || (!pending && npending)
        || (!out && npending) || !nodes_valid(nodes, n)) {
        errno = EINVAL;
        return -1;
    }
    for (i = 0; i < npending; i++)
        out[i] = (struct sched_decision){ .job_id = pending[i].id,
                                          .action = SCHED_ACT_WAIT,
                                          .start_time = -1 };
    if (pass_init(&p, nodes, n, nrunning + npending, now, opts) < 0
        || add_running(&p, running, nrunning) < 0)
        goto error;
    for (i = 0; i < npending; i++) {
        if (p.opts.admit && !p.opts.admit(p.opts.gate_arg, i)) {
            out[i].reason = SCHED_REASON_LIMIT;
            continue;
        }
        if (try_start(&p, &pending[i], &out[i]) < 0)
            goto error;
        if (out[i].action == SCHED_ACT_START && p.opts.started)
            p.opts.started(p.opts.gate_arg, i);
        if (out[i].action == SCHED_ACT_WAIT
            && plan_job(&p, &pending[i], &out[i]) < 0)
            goto error;
    }
    pass_destroy(&p);
    return 0;
error:
    pass_undo(&p, out, npending);
    pass_destroy(&p);
    return -1;
}
