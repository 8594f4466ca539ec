/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sched_pass.c - the scheduling pass and its backfill, with explicit
 * times on constructed clusters
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sched/sched.h"
#include "sched_cluster.h"

#define NOW 1700000000
#define GIB 1024
#define MAXJ 64

/* A cluster, its running jobs and the decisions of one pass. */
struct world {
    struct cluster *c;
    struct sched_job running[MAXJ];
    struct sched_alloc *allocs[MAXJ];
    size_t nrunning;
    struct sched_decision out[MAXJ];
    size_t nout;
};

static struct world *world_create(size_t n, uint32_t cpus, uint32_t gpus)
{
    struct world *w = calloc(1, sizeof(*w));

    if (!w)
        abort();
    w->c = cluster_create(n, cpus, 64 * GIB, gpus, NULL);
    return w;
}

static void world_destroy(struct world *w)
{
    for (size_t i = 0; i < w->nrunning; i++)
        sched_alloc_destroy(w->allocs[i]);
    sched_decisions_clear(w->out, w->nout);
    cluster_destroy(w->c);
    free(w);
}

/* A job running on node 'idx' with 'cpus' CPUs since 'start' for at most
 * 'limit' seconds (-1: no limit).
 */
static void run_on(struct world *w,
                   uint32_t idx,
                   uint32_t cpus,
                   int64_t start,
                   int64_t limit)
{
    struct sched_alloc *a = sched_alloc_create(1);

    assert_non_null(a);
    a->node_idx[0] = idx;
    a->tasks[0] = 1;
    a->cpus[0] = cpus;
    assert_int_equal(sched_alloc_apply(w->c->nodes, w->c->n, a), 0);
    w->allocs[w->nrunning] = a;
    w->running[w->nrunning++] = (struct sched_job){
        .id = 900 + (uint32_t)w->nrunning,
        .time_limit_s = limit,
        .start_time = start,
        .alloc = a,
    };
}

static int pass(struct world *w,
                const struct sched_job *pending,
                size_t npending,
                const struct sched_pass_opts *opts)
{
    sched_decisions_clear(w->out, w->nout);
    w->nout = npending;
    return sched_pass(w->c->nodes, w->c->n, w->running, w->nrunning, pending,
                      npending, NOW, opts, w->out);
}

static void assert_waits(const struct sched_decision *d,
                         enum sched_reason reason,
                         int64_t start)
{
    assert_int_equal(d->action, SCHED_ACT_WAIT);
    assert_int_equal(d->reason, reason);
    assert_int_equal(d->start_time, start);
    if (start < 0)
        assert_null(d->alloc);
    else
        assert_non_null(d->alloc);
}

static void assert_starts_on(const struct sched_decision *d, uint32_t idx)
{
    assert_int_equal(d->action, SCHED_ACT_START);
    assert_int_equal(d->start_time, NOW);
    assert_non_null(d->alloc);
    assert_int_equal(d->alloc->node_idx[0], idx);
}

static void pass_starts_in_priority_order(void **state)
{
    (void)state;
    struct world *w = world_create(2, 4, 0);
    struct sched_request whole = { .ntasks = 1, .cpus_per_task = 4 };
    struct sched_job q[] = {
        { .id = 1, .req = &whole, .time_limit_s = 100 },
        { .id = 2, .req = &whole, .time_limit_s = 100 },
        { .id = 3, .req = &whole, .time_limit_s = 100 },
    };

    assert_int_equal(pass(w, q, 3, NULL), 0);
    assert_int_equal(w->out[0].job_id, 1);
    assert_starts_on(&w->out[0], 0);
    assert_starts_on(&w->out[1], 1);
    assert_waits(&w->out[2], SCHED_REASON_RESOURCES, NOW + 100);
    assert_int_equal(w->c->nodes[0].alloc_cpus, 4);
    assert_int_equal(w->c->nodes[1].alloc_cpus, 4);
    assert_int_equal(w->c->nodes[1].running_jobs, 1);
    world_destroy(w);
}

/* max_starts ends the pass at its cap: the jobs after the last start are
 * not taken (no allocation, no usage), while a job waiting before it
 * keeps its reservation and a later one is still held off it. */
static void pass_ends_at_max_starts(void **state)
{
    (void)state;
    struct world *w = world_create(4, 4, 0);
    struct sched_request whole = { .ntasks = 1, .cpus_per_task = 4 };
    struct sched_request all = { .ntasks = 4, .cpus_per_task = 4,
                                 .min_nodes = 4 };
    struct sched_pass_opts opts = SCHED_PASS_OPTS_DEFAULT;
    struct sched_job q[] = {
        { .id = 1, .req = &all, .time_limit_s = 100 },
        { .id = 2, .req = &whole, .time_limit_s = 100 }, /* would delay 1 */
        { .id = 3, .req = &whole, .time_limit_s = 50 },  /* backfills */
        { .id = 4, .req = &whole, .time_limit_s = 50 },
        { .id = 5, .req = &whole, .time_limit_s = 50 },
    };

    run_on(w, 3, 4, NOW - 10, 100); /* node 3 until NOW + 90 */
    opts.max_starts = 2;
    assert_int_equal(pass(w, q, 5, &opts), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 90);
    assert_waits(&w->out[1], SCHED_REASON_PRIORITY, NOW + 190);
    assert_int_equal(w->out[2].action, SCHED_ACT_START);
    assert_int_equal(w->out[3].action, SCHED_ACT_START);
    assert_int_equal(w->out[4].action, SCHED_ACT_LATER);
    assert_null(w->out[4].alloc);
    assert_int_equal(w->c->nodes[0].alloc_cpus + w->c->nodes[1].alloc_cpus
                         + w->c->nodes[2].alloc_cpus, 8);
    world_destroy(w);
}

/* A one-node request on nodes of one weight: the pass stops at the first
 * node that holds all of it (select_now()); on random usage its choice is
 * always sched_select()'s, which judges every node. */
static void pass_one_node_choice_is_sched_selects(void **state)
{
    (void)state;
    uint64_t seed = 12345;

    for (int round = 0; round < 2000; round++) {
        struct world *w = world_create(12, 8, 4);
        struct sched_request req = { 0 };
        struct sched_job q[1] = {{ .id = 1, .req = &req,
                                   .time_limit_s = 100 }};
        struct sched_alloc *want = NULL;
        int rc;

        for (size_t i = 0; i < w->c->n; i++) { /* random usage */
            struct sched_node *nd = &w->c->nodes[i];
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            if ((seed >> 40) % 3)
                run_on(w, (uint32_t)i, 1 + (uint32_t)(seed >> 33) % 8,
                       NOW - 1, 100);
            nd->alloc_mem_mib = (seed >> 50) % 64 * GIB;
            for (uint32_t g = 0; g < (uint32_t)(seed >> 45) % 5; g++)
                bitmap_set(nd->alloc_gpus, g);
        }
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        req.ntasks = 1 + (uint32_t)(seed >> 20) % 4;
        req.cpus_per_task = 1 + (uint32_t)(seed >> 24) % 3;
        req.gpus_per_node = (uint32_t)(seed >> 28) % 3;
        req.mem_per_node_mib = (seed >> 32) % 32 * GIB;
        req.min_nodes = req.max_nodes = 1;
        rc = sched_select(w->c->nodes, w->c->n, &req, &want);
        assert_true(rc >= 0);
        assert_int_equal(pass(w, q, 1, NULL), 0);
        if (rc == SCHED_OK) {
            assert_int_equal(w->out[0].action, SCHED_ACT_START);
            assert_int_equal(w->out[0].alloc->node_idx[0], want->node_idx[0]);
            assert_int_equal(w->out[0].alloc->tasks[0], want->tasks[0]);
        } else {
            assert_int_not_equal(w->out[0].action, SCHED_ACT_START);
        }
        sched_alloc_destroy(want);
        world_destroy(w);
    }
}

/* The admit gate: at most 'max' starts in the pass, counted through
 * 'started'; job 2 (index 1) does not fit the nodes anyway. */
struct gate {
    int max, started, asked;
};

static bool gate_admit(void *arg, size_t i)
{
    struct gate *g = arg;

    (void)i;
    g->asked++;
    return g->started < g->max;
}

static void gate_started(void *arg, size_t i)
{
    struct gate *g = arg;

    (void)i;
    g->started++;
}

static void pass_gate_holds_jobs_after_those_it_started(void **state)
{
    (void)state;
    struct world *w = world_create(3, 4, 0);
    struct sched_request whole = { .ntasks = 1, .cpus_per_task = 4 };
    struct sched_request huge = { .ntasks = 1, .cpus_per_task = 8 };
    struct sched_job q[] = {
        { .id = 1, .req = &whole, .time_limit_s = 100 },
        { .id = 2, .req = &huge, .time_limit_s = 100 },
        { .id = 3, .req = &whole, .time_limit_s = 100 },
        { .id = 4, .req = &whole, .time_limit_s = 100 },
    };
    struct gate g = { .max = 2 };
    struct sched_pass_opts opts = SCHED_PASS_OPTS_DEFAULT;

    opts.admit = gate_admit;
    opts.started = gate_started;
    opts.gate_arg = &g;
    assert_int_equal(pass(w, q, 4, &opts), 0);
    assert_starts_on(&w->out[0], 0);
    assert_int_equal(w->out[1].action, SCHED_ACT_NEVER);
    assert_starts_on(&w->out[2], 1);
    assert_waits(&w->out[3], SCHED_REASON_LIMIT, -1); /* n2 stays free */
    assert_int_equal(g.asked, 4);
    assert_int_equal(g.started, 2);
    assert_int_equal(w->c->nodes[2].alloc_cpus, 0);
    assert_string_equal(sched_reason_string(SCHED_REASON_LIMIT),
                        "AccountingPolicy");
    world_destroy(w);
}

/* n0 and n1 each run a 2-CPU job (ending at +100 and +1000); n2 is idle. */
static struct world *two_busy_nodes(void)
{
    struct world *w = world_create(3, 4, 0);

    run_on(w, 0, 2, NOW - 50, 150);
    run_on(w, 1, 2, NOW - 50, 1050);
    return w;
}

static struct sched_request bigsim = { .min_nodes = 2, .exclusive = true };

static void pass_blocked_job_gets_resources_later_fit_gets_priority(void **s)
{
    (void)s;
    struct world *w = two_busy_nodes();
    struct sched_request wide = { .min_nodes = 3 };
    struct sched_job q[] = {
        { .id = 10, .req = &bigsim, .time_limit_s = 3600 },
        { .id = 11, .req = &wide, .time_limit_s = 3600 },
    };

    assert_int_equal(pass(w, q, 2, NULL), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 100);
    assert_int_equal(w->out[0].alloc->node_count, 2);
    assert_int_equal(w->out[0].alloc->node_idx[0], 0);
    assert_int_equal(w->out[0].alloc->node_idx[1], 2);
    /* wide fits now but would hold n0 and n2 past +100: after bigsim. */
    assert_waits(&w->out[1], SCHED_REASON_PRIORITY, NOW + 100 + 3600);
    assert_int_equal(w->c->nodes[2].alloc_cpus, 0);
    world_destroy(w);
}

static void pass_backfills_short_job_before_reservation(void **state)
{
    (void)state;
    struct world *w = two_busy_nodes();
    struct sched_request one = { .ntasks = 1 };
    struct sched_job q[] = {
        { .id = 10, .req = &bigsim, .time_limit_s = 3600 },
        { .id = 11, .req = &one, .time_limit_s = 60 },
        { .id = 12, .req = &one, .time_limit_s = 100 }, /* ends just then */
    };

    assert_int_equal(pass(w, q, 3, NULL), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 100);
    assert_starts_on(&w->out[1], 0);
    assert_starts_on(&w->out[2], 0);
    assert_int_equal(w->c->nodes[0].alloc_cpus, 4);
    world_destroy(w);
}

static void pass_long_job_starts_off_the_reserved_nodes(void **state)
{
    (void)state;
    struct world *w = two_busy_nodes();
    struct sched_request one = { .ntasks = 1 };
    struct sched_job q[] = {
        { .id = 10, .req = &bigsim, .time_limit_s = 3600 },
        { .id = 11, .req = &one, .time_limit_s = 7200 },
    };

    assert_int_equal(pass(w, q, 2, NULL), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 100);
    /* n0 is first in order but reserved from +100; n1 is not. */
    assert_starts_on(&w->out[1], 1);
    world_destroy(w);
}

/* Nodes of several weights (3 1 2 1 2 3): the pass gathers candidates
 * tier by tier, lightest first, as sched_select() orders them.  Nodes 1,
 * 3 and 5 are full until +100, node 0 half full for longer.  A -N3 job of
 * whole nodes waits and reserves the two lightest and the lower of the
 * weight-2 nodes; a one-task job that outlasts +100 has nodes 0 and 4
 * free throughout and takes the lighter, 4; one that ends before +100
 * takes the lowest of the lightest free now, 2. */
static void pass_takes_nodes_lightest_first(void **state)
{
    (void)state;
    struct world *w = world_create(6, 8, 0);
    static const uint32_t weight[] = { 3, 1, 2, 1, 2, 3 };
    struct sched_request three = { .min_nodes = 3, .ntasks = 24 };
    struct sched_request one = { .ntasks = 1 };
    struct sched_job q[] = {
        { .id = 1, .req = &three, .time_limit_s = 1000 },
        { .id = 2, .req = &one, .time_limit_s = 500 },
        { .id = 3, .req = &one, .time_limit_s = 50 },
    };

    for (size_t i = 0; i < 6; i++)
        w->c->nodes[i].weight = weight[i];
    run_on(w, 1, 8, NOW, 100);
    run_on(w, 3, 8, NOW, 100);
    run_on(w, 5, 8, NOW, 100);
    run_on(w, 0, 4, NOW, 2000);
    assert_int_equal(pass(w, q, 3, NULL), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 100);
    assert_int_equal(w->out[0].alloc->node_count, 3);
    assert_int_equal(w->out[0].alloc->node_idx[0], 1);
    assert_int_equal(w->out[0].alloc->node_idx[1], 2);
    assert_int_equal(w->out[0].alloc->node_idx[2], 3);
    assert_starts_on(&w->out[1], 4);
    assert_starts_on(&w->out[2], 2);
    world_destroy(w);
}

/* A GPU job's plan computes the view of the GPU nodes only; the CPU
 * job after it, which outlasts that reservation's start, still finds the
 * CPU node the plan left uncomputed (pass.c: stale). */
static void pass_cpu_job_after_gpu_plan_finds_the_cpu_node(void **state)
{
    (void)state;
    struct world *w = world_create(2, 8, 4);
    struct sched_request gpu = { .ntasks = 1, .gpus_per_node = 1 };
    struct sched_request one = { .ntasks = 1 };
    struct sched_job q[] = {
        { .id = 1, .req = &gpu, .time_limit_s = 1000 },
        { .id = 2, .req = &one, .time_limit_s = 1000 },
    };

    w->c->nodes[0].gpus = 0; /* node 0: CPUs only */
    bitmap_destroy(w->c->nodes[0].alloc_gpus);
    w->c->nodes[0].alloc_gpus = NULL;
    run_on(w, 1, 8, NOW, 100); /* the GPU node's CPUs, until +100 */
    assert_int_equal(pass(w, q, 2, NULL), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 100);
    assert_int_equal(w->out[0].alloc->node_idx[0], 1);
    assert_starts_on(&w->out[1], 0);
    world_destroy(w);
}

/* An exclusive job's plan leaves out the nodes busy within its window:
 * node 1, full only until +100, is reserved for it; node 0, with one CPU
 * in use until +7200, is not computed, and the one-task job after it,
 * which outlasts +100, still finds it. */
static void pass_exclusive_plan_skips_busy_nodes_others_still_see_them(void **s)
{
    (void)s;
    struct world *w = world_create(2, 8, 0);
    struct sched_request excl = { .min_nodes = 1, .exclusive = true };
    struct sched_request one = { .ntasks = 1 };
    struct sched_job q[] = {
        { .id = 1, .req = &excl, .time_limit_s = 10000 },
        { .id = 2, .req = &one, .time_limit_s = 5000 },
    };

    run_on(w, 0, 1, NOW, 7200);
    run_on(w, 1, 8, NOW, 100);
    assert_int_equal(pass(w, q, 2, NULL), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 100);
    assert_int_equal(w->out[0].alloc->node_idx[0], 1);
    assert_starts_on(&w->out[1], 0);
    world_destroy(w);
}

/* A plan's view stops at the first node in Slurm's order when it holds
 * the whole request (a one-task job's), leaving the rest stale: the
 * -N2 job after it still finds nodes 1 and 2 free from +100. */
static void pass_first_fit_view_leaves_the_rest_for_the_next_job(void **s)
{
    (void)s;
    struct world *w = world_create(3, 8, 0);
    struct sched_request one = { .ntasks = 1 };
    struct sched_request two = { .min_nodes = 2, .ntasks = 16 };
    struct sched_job q[] = {
        { .id = 1, .req = &one, .time_limit_s = 1000 },
        { .id = 2, .req = &two, .time_limit_s = 1000 },
    };

    for (uint32_t i = 0; i < 3; i++)
        run_on(w, i, 8, NOW, 100);
    assert_int_equal(pass(w, q, 2, NULL), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 100);
    assert_int_equal(w->out[0].alloc->node_idx[0], 0);
    assert_waits(&w->out[1], SCHED_REASON_RESOURCES, NOW + 100);
    assert_int_equal(w->out[1].alloc->node_idx[0], 1);
    assert_int_equal(w->out[1].alloc->node_idx[1], 2);
    world_destroy(w);
}

/* The view stops early only when the first candidate holds the job
 * alone.  -N1 -n5 from +100: node 0 holds two tasks, node 1 five, node 2
 * eight; the first, node 0, does not hold it, so sched_select()'s rule
 * takes the largest, node 2, not node 1, the first that holds it. */
static void pass_first_fit_view_only_when_the_first_holds_all(void **s)
{
    (void)s;
    struct world *w = world_create(3, 8, 0);
    struct sched_request five = { .min_nodes = 1, .max_nodes = 1,
                                  .ntasks = 5 };
    struct sched_job q[] = {
        { .id = 1, .req = &five, .time_limit_s = 1000 },
    };

    run_on(w, 0, 6, NOW, 50000);
    run_on(w, 1, 3, NOW, 50000);
    run_on(w, 1, 2, NOW, 100);
    run_on(w, 2, 8, NOW, 100);
    assert_int_equal(pass(w, q, 1, NULL), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 100);
    assert_int_equal(w->out[0].alloc->node_count, 1);
    assert_int_equal(w->out[0].alloc->node_idx[0], 2);
    world_destroy(w);
}

static void pass_small_job_shares_node_with_reservation_when_room(void **s)
{
    (void)s;
    struct world *w = world_create(1, 4, 0);
    struct sched_request two = { .ntasks = 2 };
    struct sched_request one = { .ntasks = 1 };
    struct sched_job q[] = {
        { .id = 1, .req = &two, .time_limit_s = 3600 },
        { .id = 2, .req = &one, .time_limit_s = 3600 },
        { .id = 3, .req = &one, .time_limit_s = 3600 },
    };

    run_on(w, 0, 3, NOW, 100);
    assert_int_equal(pass(w, q, 3, NULL), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 100);
    /* 3 CPUs now, 2 reserved from +100: one CPU is free throughout. */
    assert_starts_on(&w->out[1], 0);
    /* Full now; at +100 the two reserved and the one started leave one. */
    assert_waits(&w->out[2], SCHED_REASON_RESOURCES, NOW + 100);
    world_destroy(w);
}

static void pass_oversubscribed_gpu_jobs_some_start_rest_resources(void **s)
{
    (void)s;
    struct world *w = world_create(4, 64, 8);
    struct sched_request gpu = { .gpus_per_node = 1 };
    struct sched_job q[40];
    size_t started = 0;

    for (uint32_t i = 0; i < 40; i++)
        q[i] = (struct sched_job){ .id = 100 + i, .req = &gpu,
                                   .time_limit_s = 3600 };
    assert_int_equal(pass(w, q, 40, NULL), 0);
    for (size_t i = 0; i < 32; i++) {
        assert_int_equal(w->out[i].action, SCHED_ACT_START);
        started++;
    }
    for (size_t i = 32; i < 40; i++)
        assert_waits(&w->out[i], SCHED_REASON_RESOURCES, NOW + 3600);
    assert_int_equal(started, 32);
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(bitmap_count(w->c->nodes[i].alloc_gpus), 8);
    assert_int_equal(w->out[0].alloc->node_idx[0], 0);
    assert_string_equal(gpu_str(w->out[0].alloc, 0), "0");
    assert_string_equal(gpu_str(w->out[1].alloc, 0), "1");
    assert_int_equal(w->out[8].alloc->node_idx[0], 1);
    assert_string_equal(gpu_str(w->out[8].alloc, 0), "0");
    world_destroy(w);
}

static void pass_job_that_can_never_fit_is_never(void **state)
{
    (void)state;
    struct world *w = world_create(4, 32, 0);
    struct sched_request ten = { .min_nodes = 10 };
    struct sched_request bad = { .min_nodes = 3, .ntasks = 1 };
    struct sched_request one = { .ntasks = 1 };
    struct sched_job q[] = {
        { .id = 1, .req = &ten, .time_limit_s = 60 },
        { .id = 2, .req = &bad, .time_limit_s = 60 },
        { .id = 3, .req = NULL, .time_limit_s = 60 },
        { .id = 4, .req = &one, .time_limit_s = 60 },
    };

    assert_int_equal(pass(w, q, 4, NULL), 0);
    assert_int_equal(w->out[0].action, SCHED_ACT_NEVER);
    assert_int_equal(w->out[1].action, SCHED_ACT_NEVER);
    assert_int_equal(w->out[2].action, SCHED_ACT_NEVER);
    assert_null(w->out[0].alloc);
    assert_starts_on(&w->out[3], 0);
    world_destroy(w);
}

static void pass_blocked_job_without_end_time_blocks_nobody(void **state)
{
    (void)state;
    struct world *w = world_create(2, 4, 0);
    struct sched_request two_nodes = { .min_nodes = 2, .ntasks = 8 };
    struct sched_request one = { .ntasks = 1 };
    struct sched_job q[] = {
        { .id = 1, .req = &two_nodes, .time_limit_s = 60 },
        { .id = 2, .req = &one, .time_limit_s = -1 },
    };

    run_on(w, 0, 4, NOW - 10, -1);
    assert_int_equal(pass(w, q, 2, NULL), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, -1);
    assert_starts_on(&w->out[1], 1);
    world_destroy(w);
}

static void pass_second_reservation_follows_the_first(void **state)
{
    (void)state;
    struct world *w = world_create(1, 4, 0);
    struct sched_request whole = { .ntasks = 1, .cpus_per_task = 4 };
    struct sched_request one = { .ntasks = 1 };
    struct sched_job q[] = {
        { .id = 1, .req = &whole, .time_limit_s = 100 },
        { .id = 2, .req = &whole, .time_limit_s = 100 },
        { .id = 3, .req = &one, .time_limit_s = 50 },
    };

    run_on(w, 0, 4, NOW, 100);
    assert_int_equal(pass(w, q, 3, NULL), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 100);
    assert_waits(&w->out[1], SCHED_REASON_RESOURCES, NOW + 200);
    assert_waits(&w->out[2], SCHED_REASON_RESOURCES, NOW + 300);
    world_destroy(w);
}

/* reserve_prefix: reservations for the first reserve_depth positions of
 * the queue only, not for the first reserve_depth jobs that wait. */
static void pass_reserve_prefix_counts_positions(void **state)
{
    (void)state;
    struct world *w = world_create(1, 4, 0);
    struct sched_request whole = { .ntasks = 1, .cpus_per_task = 4 };
    struct sched_request one = { .ntasks = 1 };
    struct sched_job q[] = {
        { .id = 1, .req = &one, .time_limit_s = 50 },
        { .id = 2, .req = &whole, .time_limit_s = 100 },
        { .id = 3, .req = &whole, .time_limit_s = 100 },
    };
    struct sched_pass_opts o = SCHED_PASS_OPTS_DEFAULT;

    run_on(w, 0, 3, NOW, 100);
    o.reserve_depth = 1;
    assert_int_equal(pass(w, q, 3, &o), 0);
    assert_starts_on(&w->out[0], 0);
    assert_waits(&w->out[1], SCHED_REASON_RESOURCES, NOW + 100);
    assert_waits(&w->out[2], SCHED_REASON_RESOURCES, -1);
    o.reserve_prefix = true;
    sched_alloc_release(w->c->nodes, w->c->n, w->out[0].alloc);
    assert_int_equal(pass(w, q, 3, &o), 0);
    assert_starts_on(&w->out[0], 0);
    assert_waits(&w->out[1], SCHED_REASON_RESOURCES, -1);
    assert_waits(&w->out[2], SCHED_REASON_RESOURCES, -1);
    world_destroy(w);
}

/* Jobs with equal requests (the same one, or an equal copy) and limits
 * queue up in order; the pass starts each one's search where the one
 * before ended (pass.c, struct key), which must not change the answers.
 */
static void pass_equal_requests_queue_up_in_order(void **state)
{
    (void)state;
    struct world *w = world_create(2, 4, 0);
    struct sched_request whole = { .ntasks = 1, .cpus_per_task = 4 };
    struct sched_request copy = whole;
    struct sched_request one = { .ntasks = 1 };
    struct sched_job q[] = {
        { .id = 1, .req = &whole, .time_limit_s = 100 },
        { .id = 2, .req = &copy, .time_limit_s = 100 },
        { .id = 3, .req = &whole, .time_limit_s = 100 },
        { .id = 4, .req = &whole, .time_limit_s = 100 },
        { .id = 5, .req = &one, .time_limit_s = 50 },
        { .id = 6, .req = &whole, .time_limit_s = 50 },
    };

    run_on(w, 0, 4, NOW, 100);
    run_on(w, 1, 4, NOW, 200);
    assert_int_equal(pass(w, q, 6, NULL), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 100);
    assert_int_equal(w->out[0].alloc->node_idx[0], 0);
    assert_waits(&w->out[1], SCHED_REASON_RESOURCES, NOW + 200);
    assert_int_equal(w->out[1].alloc->node_idx[0], 0);
    assert_waits(&w->out[2], SCHED_REASON_RESOURCES, NOW + 200);
    assert_int_equal(w->out[2].alloc->node_idx[0], 1);
    assert_waits(&w->out[3], SCHED_REASON_RESOURCES, NOW + 300);
    assert_int_equal(w->out[3].alloc->node_idx[0], 0);
    assert_waits(&w->out[4], SCHED_REASON_RESOURCES, NOW + 300);
    assert_int_equal(w->out[4].alloc->node_idx[0], 1);
    assert_waits(&w->out[5], SCHED_REASON_RESOURCES, NOW + 350);
    assert_int_equal(w->out[5].alloc->node_idx[0], 1);
    world_destroy(w);
}

static void pass_job_without_limit_cannot_jump_a_reservation(void **state)
{
    (void)state;
    struct world *w = world_create(1, 4, 0);
    struct sched_request whole = { .ntasks = 1, .cpus_per_task = 4 };
    struct sched_request one = { .ntasks = 1 };
    struct sched_job q[] = {
        { .id = 1, .req = &whole, .time_limit_s = 100 },
        { .id = 2, .req = &one, .time_limit_s = -1 },
    };

    run_on(w, 0, 2, NOW, 100);
    assert_int_equal(pass(w, q, 2, NULL), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 100);
    assert_waits(&w->out[1], SCHED_REASON_PRIORITY, NOW + 200);
    assert_int_equal(w->c->nodes[0].alloc_cpus, 2);
    world_destroy(w);
}

static void pass_job_past_its_limit_is_expected_to_end_next_second(void **s)
{
    (void)s;
    struct world *w = world_create(1, 4, 0);
    struct sched_request whole = { .ntasks = 1, .cpus_per_task = 4 };
    struct sched_job q[] = { { .id = 1, .req = &whole, .time_limit_s = 60 } };

    run_on(w, 0, 4, NOW - 1000, 100);
    assert_int_equal(pass(w, q, 1, NULL), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 1);
    world_destroy(w);
}

static void pass_plans_no_further_than_the_window(void **state)
{
    (void)state;
    struct world *w = world_create(1, 4, 0);
    struct sched_request whole = { .ntasks = 1, .cpus_per_task = 4 };
    struct sched_job q[] = { { .id = 1, .req = &whole, .time_limit_s = 60 } };
    struct sched_pass_opts opts = { .reserve_depth = 10, .window_s = 50 };

    run_on(w, 0, 4, NOW, 100);
    assert_int_equal(pass(w, q, 1, &opts), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, -1);
    opts.window_s = 100;
    assert_int_equal(pass(w, q, 1, &opts), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 100);
    world_destroy(w);
}

static void pass_without_reservations_later_jobs_take_free_nodes(void **s)
{
    (void)s;
    struct world *w = two_busy_nodes();
    struct sched_request wide = { .min_nodes = 3 };
    struct sched_job q[] = {
        { .id = 10, .req = &bigsim, .time_limit_s = 3600 },
        { .id = 11, .req = &wide, .time_limit_s = 3600 },
    };
    struct sched_pass_opts opts = { .reserve_depth = 0 };

    assert_int_equal(pass(w, q, 2, &opts), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, -1);
    assert_int_equal(w->out[1].action, SCHED_ACT_START);
    assert_int_equal(w->out[1].alloc->node_count, 3);
    world_destroy(w);
}

static void pass_reserve_depth_one_plans_only_the_first_blocked(void **s)
{
    (void)s;
    struct world *w = world_create(1, 4, 0);
    struct sched_request whole = { .ntasks = 1, .cpus_per_task = 4 };
    struct sched_job q[] = {
        { .id = 1, .req = &whole, .time_limit_s = 100 },
        { .id = 2, .req = &whole, .time_limit_s = 100 },
    };
    struct sched_pass_opts opts = { .reserve_depth = 1 };

    run_on(w, 0, 4, NOW, 100);
    assert_int_equal(pass(w, q, 2, &opts), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 100);
    assert_waits(&w->out[1], SCHED_REASON_RESOURCES, -1);
    world_destroy(w);
}

static void pass_rejects_bad_arguments_and_changes_nothing(void **state)
{
    (void)state;
    struct world *w = world_create(2, 4, 2);
    struct sched_request one = { .ntasks = 1 };
    struct sched_job q[] = { { .id = 1, .req = &one, .time_limit_s = 60 } };
    struct sched_alloc *bad = sched_alloc_create(1);
    struct sched_job run = { .id = 9, .alloc = bad, .time_limit_s = -1 };

    errno = 0;
    assert_int_equal(sched_pass(w->c->nodes, w->c->n, NULL, 0, q, 1, NOW,
                                NULL, NULL), -1);
    assert_int_equal(errno, EINVAL);
    bad->node_idx[0] = 5; /* no such node */
    errno = 0;
    assert_int_equal(sched_pass(w->c->nodes, w->c->n, &run, 1, q, 1, NOW,
                                NULL, w->out), -1);
    assert_int_equal(errno, EINVAL);
    assert_null(w->out[0].alloc);
    assert_int_equal(w->c->nodes[0].alloc_cpus, 0);
    assert_int_equal(w->c->nodes[0].running_jobs, 0);
    sched_alloc_destroy(bad);
    world_destroy(w);
}

/* Property check on random clusters and queues: at every instant, what
 * runs, what the pass started and what it reserved fit on the nodes
 * together: no CPU, memory or GPU is promised twice.
 */
static uint32_t rnd(uint64_t *seed, uint32_t below)
{
    *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*seed >> 33) % below;
}

struct span {
    int64_t start, end;
    const struct sched_alloc *a;
};

static void check_instant(const struct cluster *c,
                          const struct span *sp,
                          size_t nsp,
                          int64_t t)
{
    for (size_t i = 0; i < c->n; i++) {
        uint64_t cpus = 0, mem = 0, gpus = 0, jobs = 0;
        bool excl = false;
        bitmap_t *seen = bitmap_create(c->nodes[i].gpus ? c->nodes[i].gpus : 1);

        for (size_t k = 0; k < nsp; k++) {
            const struct sched_alloc *a = sp[k].a;
            if (sp[k].start > t || sp[k].end <= t)
                continue;
            for (uint32_t j = 0; j < a->node_count; j++) {
                if (a->node_idx[j] != i)
                    continue;
                cpus += a->cpus[j];
                mem += a->mem_mib[j];
                jobs++;
                excl = excl || a->exclusive;
                if (a->gpus[j]) {
                    assert_false(bitmap_overlap(seen, a->gpus[j]));
                    bitmap_or(seen, a->gpus[j]);
                    gpus += bitmap_count(a->gpus[j]);
                }
            }
        }
        assert_true(cpus <= c->nodes[i].cpus);
        assert_true(mem <= c->nodes[i].mem_mib);
        assert_true(gpus <= c->nodes[i].gpus);
        assert_true(!excl || jobs <= 1);
        bitmap_destroy(seen);
    }
}

static void random_request(uint64_t *seed, struct sched_request *r)
{
    *r = (struct sched_request){ 0 };
    switch (rnd(seed, 5)) {
    case 0:
        r->ntasks = 1 + rnd(seed, 40);
        break;
    case 1:
        r->min_nodes = 1 + rnd(seed, 4);
        r->ntasks = r->min_nodes + rnd(seed, 20);
        r->cpus_per_task = 1 + rnd(seed, 4);
        break;
    case 2:
        r->gpus_per_node = 1 + rnd(seed, 4);
        r->mem_per_node_mib = rnd(seed, 32) * GIB;
        break;
    case 3:
        r->gpus_total = 1 + rnd(seed, 12);
        r->mem_per_cpu_mib = rnd(seed, 4) * GIB;
        break;
    default:
        r->min_nodes = 1 + rnd(seed, 3);
        r->exclusive = true;
        break;
    }
}

static int64_t span_end(int64_t start, int64_t limit, int64_t floor)
{
    int64_t end = limit < 0 ? INT64_MAX : start + limit;
    return end > floor ? end : floor;
}

static void one_random_world(uint64_t *seed)
{
    struct world *w = world_create(1 + rnd(seed, 8), 4 + rnd(seed, 29),
                                   rnd(seed, 3) * 4);
    struct sched_request reqs[MAXJ];
    struct sched_job q[MAXJ];
    struct span sp[2 * MAXJ];
    size_t nq = 1 + rnd(seed, 30), nsp = 0;
    const int64_t limits[] = { -1, 30, 100, 600, 3600 };

    for (size_t i = 0; i < w->c->n; i++)
        w->c->nodes[i].available = rnd(seed, 8) != 0;
    for (size_t i = 0; i < 12; i++) {
        struct sched_request r;
        struct sched_alloc *a = NULL;
        random_request(seed, &r);
        if (sched_select(w->c->nodes, w->c->n, &r, &a) != SCHED_OK)
            continue;
        assert_int_equal(sched_alloc_apply(w->c->nodes, w->c->n, a), 0);
        w->allocs[w->nrunning] = a;
        w->running[w->nrunning++] = (struct sched_job){
            .start_time = NOW - (int64_t)rnd(seed, 200),
            .time_limit_s = limits[rnd(seed, 5)], .alloc = a };
    }
    for (size_t i = 0; i < nq; i++) {
        random_request(seed, &reqs[i]);
        q[i] = (struct sched_job){ .id = (uint32_t)i, .req = &reqs[i],
                                   .time_limit_s = limits[rnd(seed, 5)] };
    }
    assert_int_equal(pass(w, q, nq, NULL), 0);
    for (size_t i = 0; i < w->nrunning; i++)
        sp[nsp++] = (struct span){ NOW, span_end(w->running[i].start_time,
                                   w->running[i].time_limit_s, NOW + 1),
                                   w->allocs[i] };
    for (size_t i = 0; i < nq; i++) {
        if (w->out[i].alloc)
            sp[nsp++] = (struct span){ w->out[i].start_time,
                                       span_end(w->out[i].start_time,
                                                q[i].time_limit_s, 0),
                                       w->out[i].alloc };
    }
    for (size_t k = 0; k < nsp; k++)
        check_instant(w->c, sp, nsp, sp[k].start);
    world_destroy(w);
}

static void pass_never_promises_a_resource_twice(void **state)
{
    (void)state;
    uint64_t seed = 42;

    for (int i = 0; i < 300; i++)
        one_random_world(&seed);
}

/* What a request learns (no start now, none before some time, none in the
 * window) holds for later requests larger in every way (pass_keys.c), and
 * only for those: a request smaller in one size is searched on its own,
 * and one that can never run says so.
 */
static void pass_larger_requests_inherit_what_smaller_ones_found(void **s)
{
    (void)s;
    struct world *w = world_create(2, 4, 0);
    struct sched_request four = { .ntasks = 1, .cpus_per_task = 4 };
    struct sched_request four_mem = { .ntasks = 1, .cpus_per_task = 4,
                                      .mem_per_cpu_mib = GIB };
    struct sched_request two = { .ntasks = 1, .cpus_per_task = 2 };
    struct sched_job q[] = {
        { .id = 1, .req = &four, .time_limit_s = 50 },
        { .id = 2, .req = &four_mem, .time_limit_s = 100 },
        { .id = 3, .req = &two, .time_limit_s = 1000 },
    };

    run_on(w, 0, 4, NOW, 100);
    run_on(w, 1, 2, NOW, 300);
    assert_int_equal(pass(w, q, 3, NULL), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 100);
    assert_waits(&w->out[1], SCHED_REASON_RESOURCES, NOW + 150);
    assert_int_equal(w->out[1].alloc->node_idx[0], 0);
    assert_starts_on(&w->out[2], 1);
    world_destroy(w);
}

static void pass_larger_request_than_one_without_start_gets_none(void **s)
{
    (void)s;
    struct world *w = world_create(1, 4, 0);
    struct sched_request four = { .ntasks = 1, .cpus_per_task = 4 };
    struct sched_request four_mem = { .ntasks = 1, .cpus_per_task = 4,
                                      .mem_per_node_mib = GIB };
    struct sched_request eight = { .ntasks = 1, .cpus_per_task = 8 };
    struct sched_request two = { .ntasks = 1, .cpus_per_task = 2 };
    struct sched_job q[] = {
        { .id = 1, .req = &four, .time_limit_s = 60 },
        { .id = 2, .req = &four_mem, .time_limit_s = 60 },
        { .id = 3, .req = &eight, .time_limit_s = 60 },
        { .id = 4, .req = &two, .time_limit_s = 60 },
    };
    struct sched_pass_opts opts = { .reserve_depth = 10, .window_s = 600 };

    run_on(w, 0, 2, NOW, 1000);
    run_on(w, 0, 2, NOW, 300);
    assert_int_equal(pass(w, q, 4, &opts), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, -1);
    assert_waits(&w->out[1], SCHED_REASON_RESOURCES, -1);
    assert_int_equal(w->out[2].action, SCHED_ACT_NEVER);
    assert_waits(&w->out[3], SCHED_REASON_RESOURCES, NOW + 300);
    world_destroy(w);
}

/* opts.resolution_s, as Slurm's bf_resolution: every end the plan counts
 * is rounded up to a multiple of it (NOW is 20 s past one), so planned
 * starts fall on multiples, and reservations end on one too.
 */
static void pass_resolution_rounds_every_end_up(void **s)
{
    (void)s;
    struct world *w = world_create(2, 4, 0);
    struct sched_request four = { .ntasks = 1, .cpus_per_task = 4 };
    struct sched_job q[] = {
        { .id = 1, .req = &four, .time_limit_s = 50 },
        { .id = 2, .req = &four, .time_limit_s = 30 },
        { .id = 3, .req = &four, .time_limit_s = 30 },
    };
    struct sched_pass_opts opts = { .reserve_depth = 10, .resolution_s = 60 };

    assert_int_equal(NOW % 60, 20);
    run_on(w, 0, 4, NOW, 110);      /* ends at NOW + 110: counted at 160 */
    run_on(w, 1, 4, NOW - 500, 10); /* past its limit: NOW + 1, so 40 */
    assert_int_equal(pass(w, q, 3, &opts), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 40);
    assert_int_equal(w->out[0].alloc->node_idx[0], 1);
    assert_waits(&w->out[1], SCHED_REASON_RESOURCES, NOW + 100);
    assert_int_equal(w->out[1].alloc->node_idx[0], 1);
    assert_waits(&w->out[2], SCHED_REASON_RESOURCES, NOW + 160);
    assert_int_equal(w->out[2].alloc->node_idx[0], 0);
    opts.resolution_s = 0; /* exact */
    assert_int_equal(pass(w, q, 3, &opts), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 1);
    assert_waits(&w->out[1], SCHED_REASON_RESOURCES, NOW + 51);
    assert_waits(&w->out[2], SCHED_REASON_RESOURCES, NOW + 81);
    world_destroy(w);
}

/* A reservation that begins on a step later than the exact end leaves room
 * for a job that ends before that step: with bf_resolution 60 the short
 * job starts; with exact ends it would delay the reservation: it waits
 * for the reservation to end.
 */
static void pass_resolution_backfills_up_to_the_rounded_start(void **s)
{
    (void)s;
    struct world *w = world_create(2, 4, 0);
    struct sched_request both = { .min_nodes = 2, .ntasks = 8 };
    struct sched_request one = { .ntasks = 1 };
    struct sched_job q[] = {
        { .id = 1, .req = &both, .time_limit_s = 100 },
        { .id = 2, .req = &one, .time_limit_s = 130 },
    };
    struct sched_pass_opts opts = { .reserve_depth = 10, .resolution_s = 60 };

    run_on(w, 0, 4, NOW, 110);
    assert_int_equal(pass(w, q, 2, &opts), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 160);
    assert_starts_on(&w->out[1], 1);
    sched_alloc_release(w->c->nodes, w->c->n, w->out[1].alloc);
    opts.resolution_s = 1;
    assert_int_equal(pass(w, q, 2, &opts), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 110);
    assert_waits(&w->out[1], SCHED_REASON_PRIORITY, NOW + 210);
    world_destroy(w);
}

/* An advance reservation held as a whole node over [NOW+100, NOW+200):
 * a job that ends by its start runs now, a longer one is planned after its
 * end, and one that cannot fit elsewhere is planned around it; an active
 * one (begun) holds from now. */
static void pass_holds_keep_jobs_out_of_their_window(void **s)
{
    (void)s;
    struct world *w = world_create(2, 4, 0);
    struct sched_request four = { .ntasks = 1, .cpus_per_task = 4 };
    struct sched_job q[] = {
        { .id = 1, .req = &four, .time_limit_s = 100 },
        { .id = 2, .req = &four, .time_limit_s = 150 },
        { .id = 3, .req = &four, .time_limit_s = 150 },
    };
    struct sched_alloc *a = sched_alloc_create(1);
    struct sched_hold hold = { NOW + 100, NOW + 200, a };
    struct sched_pass_opts opts = { .reserve_depth = 10, .holds = &hold,
                                    .nholds = 1 };

    a->node_idx[0] = 0;
    a->exclusive = true;
    a->tasks[0] = 1;
    a->cpus[0] = 4;
    a->mem_mib[0] = 64 * GIB;
    run_on(w, 1, 4, NOW, 300); /* node 1 busy until NOW + 300 */
    assert_int_equal(pass(w, q, 3, &opts), 0);
    assert_starts_on(&w->out[0], 0); /* ends as the hold begins */
    assert_waits(&w->out[1], SCHED_REASON_RESOURCES, NOW + 200);
    assert_int_equal(w->out[1].alloc->node_idx[0], 0);
    assert_waits(&w->out[2], SCHED_REASON_RESOURCES, NOW + 300);
    sched_alloc_release(w->c->nodes, w->c->n, w->out[0].alloc);
    /* begun: node 0 is held from now */
    hold.start = NOW - 10;
    assert_int_equal(pass(w, q, 1, &opts), 0);
    assert_waits(&w->out[0], SCHED_REASON_RESOURCES, NOW + 200);
    /* ended: no effect */
    hold.end = NOW;
    assert_int_equal(pass(w, q, 1, &opts), 0);
    assert_starts_on(&w->out[0], 0);
    sched_alloc_destroy(a);
    world_destroy(w);
}

/* OverSubscribe=FORCE:2: a busy node's CPUs count twice for requests
 * that may share them; a job still gets at most the node's CPUs; others
 * wait. */
static void pass_oversubscribed_jobs_share_cpus(void **s)
{
    (void)s;
    struct world *w = world_create(1, 4, 0);
    struct sched_request shared = { .ntasks = 4, .oversubscribe = 2 };
    struct sched_request big = { .ntasks = 6, .oversubscribe = 4 };
    struct sched_request plain = { .ntasks = 1 };
    struct sched_job q[] = {
        { .id = 1, .req = &shared, .time_limit_s = 100 },
        { .id = 2, .req = &shared, .time_limit_s = 100 },
        { .id = 3, .req = &big, .time_limit_s = 100 },
        { .id = 4, .req = &plain, .time_limit_s = 50 },
    };

    run_on(w, 0, 4, NOW, 200);
    assert_int_equal(pass(w, q, 4, NULL), 0);
    assert_starts_on(&w->out[0], 0);
    assert_int_equal(w->c->nodes[0].alloc_cpus, 8);
    assert_int_equal(w->out[1].action, SCHED_ACT_WAIT); /* 8 of 8 */
    assert_int_equal(w->out[2].action, SCHED_ACT_NEVER);
    assert_int_equal(w->out[3].action, SCHED_ACT_WAIT);
    world_destroy(w);
}

static void pass_reason_strings_are_slurms(void **state)
{
    (void)state;
    assert_string_equal(sched_reason_string(SCHED_REASON_RESOURCES),
                        "Resources");
    assert_string_equal(sched_reason_string(SCHED_REASON_PRIORITY),
                        "Priority");
    assert_string_equal(sched_reason_string(SCHED_REASON_NONE), "None");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pass_starts_in_priority_order),
        cmocka_unit_test(pass_ends_at_max_starts),
        cmocka_unit_test(pass_one_node_choice_is_sched_selects),
        cmocka_unit_test(
            pass_blocked_job_gets_resources_later_fit_gets_priority),
        cmocka_unit_test(pass_backfills_short_job_before_reservation),
        cmocka_unit_test(pass_long_job_starts_off_the_reserved_nodes),
        cmocka_unit_test(pass_takes_nodes_lightest_first),
        cmocka_unit_test(pass_cpu_job_after_gpu_plan_finds_the_cpu_node),
        cmocka_unit_test(
            pass_exclusive_plan_skips_busy_nodes_others_still_see_them),
        cmocka_unit_test(pass_first_fit_view_leaves_the_rest_for_the_next_job),
        cmocka_unit_test(pass_first_fit_view_only_when_the_first_holds_all),
        cmocka_unit_test(pass_small_job_shares_node_with_reservation_when_room),
        cmocka_unit_test(
            pass_oversubscribed_gpu_jobs_some_start_rest_resources),
        cmocka_unit_test(pass_job_that_can_never_fit_is_never),
        cmocka_unit_test(pass_blocked_job_without_end_time_blocks_nobody),
        cmocka_unit_test(pass_second_reservation_follows_the_first),
        cmocka_unit_test(pass_reserve_prefix_counts_positions),
        cmocka_unit_test(pass_equal_requests_queue_up_in_order),
        cmocka_unit_test(pass_job_without_limit_cannot_jump_a_reservation),
        cmocka_unit_test(
            pass_job_past_its_limit_is_expected_to_end_next_second),
        cmocka_unit_test(pass_plans_no_further_than_the_window),
        cmocka_unit_test(pass_without_reservations_later_jobs_take_free_nodes),
        cmocka_unit_test(pass_reserve_depth_one_plans_only_the_first_blocked),
        cmocka_unit_test(pass_rejects_bad_arguments_and_changes_nothing),
        cmocka_unit_test(pass_never_promises_a_resource_twice),
        cmocka_unit_test(pass_reason_strings_are_slurms),
        cmocka_unit_test(pass_gate_holds_jobs_after_those_it_started),
        cmocka_unit_test(pass_larger_requests_inherit_what_smaller_ones_found),
        cmocka_unit_test(pass_larger_request_than_one_without_start_gets_none),
        cmocka_unit_test(pass_resolution_rounds_every_end_up),
        cmocka_unit_test(pass_resolution_backfills_up_to_the_rounded_start),
        cmocka_unit_test(pass_holds_keep_jobs_out_of_their_window),
        cmocka_unit_test(pass_oversubscribed_jobs_share_cpus),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
