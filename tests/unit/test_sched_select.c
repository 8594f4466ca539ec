/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sched_select.c - node selection on constructed clusters
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sched/sched.h"
#include "sched_cluster.h"

#define GIB 1024

static void select_fits_cpu_job_on_first_node(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(4, 32, 64 * GIB, 0, NULL);
    struct sched_request req = { .ntasks = 1 };
    struct sched_alloc *a = NULL;

    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_OK);
    assert_int_equal(a->node_count, 1);
    assert_int_equal(a->node_idx[0], 0);
    assert_int_equal(a->tasks[0], 1);
    assert_int_equal(a->cpus[0], 1);
    assert_int_equal(a->mem_mib[0], 0);
    assert_null(a->gpus[0]);
    assert_false(a->exclusive);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void select_rejects_16_gpus_on_8_gpu_nodes_as_never(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(4, 64, 512 * GIB, 8, NULL);
    struct sched_request req = { .gpus_per_node = 16 };
    struct sched_alloc *a = NULL;
    drv_error_t error = { 0 };

    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_NEVER);
    assert_null(a);
    assert_int_equal(sched_check_never(c->nodes, c->n, &req, &error),
                     SCHED_NEVER);
    assert_non_null(strstr(error.text, "16 GPUs per node"));
    assert_non_null(strstr(error.text, "at most 8"));
    cluster_destroy(c);
}

static void select_gives_disjoint_gpu_indices_to_two_jobs(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(1, 64, 512 * GIB, 8, NULL);
    struct sched_request req = { .gpus_per_node = 2 };
    struct sched_alloc *a = cluster_take(c, &req);
    struct sched_alloc *b = cluster_take(c, &req);

    assert_string_equal(gpu_str(a, 0), "0-1");
    assert_string_equal(gpu_str(b, 0), "2-3");
    assert_false(bitmap_overlap(a->gpus[0], b->gpus[0]));
    assert_int_equal(bitmap_count(c->nodes[0].alloc_gpus), 4);
    sched_alloc_destroy(a);
    sched_alloc_destroy(b);
    cluster_destroy(c);
}

static void select_reuses_gpus_freed_by_a_finished_job(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(1, 64, 512 * GIB, 8, NULL);
    struct sched_request req = { .gpus_per_node = 2 };
    struct sched_alloc *a = cluster_take(c, &req);
    struct sched_alloc *b = cluster_take(c, &req);
    struct sched_alloc *d;

    assert_int_equal(sched_alloc_release(c->nodes, c->n, a), 0);
    d = cluster_take(c, &req);
    assert_string_equal(gpu_str(d, 0), "0-1");
    sched_alloc_destroy(a);
    sched_alloc_destroy(b);
    sched_alloc_destroy(d);
    cluster_destroy(c);
}

static void select_places_several_jobs_per_node(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 4, 8 * GIB, 0, NULL);
    struct sched_request req = { .ntasks = 1, .cpus_per_task = 2 };
    struct sched_alloc *a[4], *extra = NULL;

    for (int i = 0; i < 4; i++)
        a[i] = cluster_take(c, &req);
    assert_int_equal(a[0]->node_idx[0], 0);
    assert_int_equal(a[1]->node_idx[0], 0);
    assert_int_equal(a[2]->node_idx[0], 1);
    assert_int_equal(a[3]->node_idx[0], 1);
    assert_int_equal(c->nodes[0].running_jobs, 2);
    assert_int_equal(c->nodes[0].alloc_cpus, 4);
    assert_int_equal(sched_select(c->nodes, c->n, &req, &extra), SCHED_BUSY);
    assert_null(extra);
    for (int i = 0; i < 4; i++)
        sched_alloc_destroy(a[i]);
    cluster_destroy(c);
}

static void select_skips_drained_node(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 32, 64 * GIB, 0, NULL);
    struct sched_request req = { .ntasks = 1 };
    struct sched_alloc *a = NULL;

    c->nodes[0].available = false;
    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_OK);
    assert_int_equal(a->node_idx[0], 1);
    sched_alloc_destroy(a);
    a = NULL;
    c->nodes[1].available = false;
    /* Down nodes come back: busy, not never. */
    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_BUSY);
    assert_null(a);
    cluster_destroy(c);
}

static void select_exclusive_takes_whole_node(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 32, 64 * GIB, 8, NULL);
    struct sched_request excl = { .ntasks = 1, .exclusive = true };
    struct sched_request one = { .ntasks = 1 };
    struct sched_alloc *a = cluster_take(c, &excl);
    struct sched_alloc *b = cluster_take(c, &one);

    assert_true(a->exclusive);
    assert_int_equal(a->node_idx[0], 0);
    assert_int_equal(a->cpus[0], 32);
    assert_int_equal(a->mem_mib[0], 64 * GIB);
    assert_string_equal(gpu_str(a, 0), "0-7");
    assert_true(c->nodes[0].exclusive_alloc);
    assert_int_equal(b->node_idx[0], 1); /* nothing else on node 0 */
    sched_alloc_destroy(a);
    sched_alloc_destroy(b);
    cluster_destroy(c);
}

static void select_exclusive_needs_node_with_nothing_running(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 32, 64 * GIB, 0, NULL);
    struct sched_request one = { .ntasks = 1 };
    struct sched_request excl = { .min_nodes = 2, .exclusive = true };
    struct sched_alloc *a = cluster_take(c, &one), *b = NULL;

    assert_int_equal(sched_select(c->nodes, c->n, &excl, &b), SCHED_BUSY);
    assert_int_equal(sched_alloc_release(c->nodes, c->n, a), 0);
    assert_int_equal(sched_select(c->nodes, c->n, &excl, &b), SCHED_OK);
    assert_int_equal(b->node_count, 2);
    sched_alloc_destroy(a);
    sched_alloc_destroy(b);
    cluster_destroy(c);
}

static void select_release_clears_exclusive_hold(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(1, 8, 16 * GIB, 2, NULL);
    struct sched_request excl = { .exclusive = true };
    struct sched_alloc *a = cluster_take(c, &excl);

    assert_int_equal(sched_alloc_release(c->nodes, c->n, a), 0);
    assert_false(c->nodes[0].exclusive_alloc);
    assert_int_equal(c->nodes[0].alloc_cpus, 0);
    assert_int_equal(c->nodes[0].alloc_mem_mib, 0);
    assert_int_equal(c->nodes[0].running_jobs, 0);
    assert_int_equal(bitmap_count(c->nodes[0].alloc_gpus), 0);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void select_typed_gpu_matches_type_only(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(3, 64, 512 * GIB, 0, NULL);
    struct sched_request a100 = { .gpus_per_node = 2, .gpu_type = "a100" };
    struct sched_request h100 = { .gpus_per_node = 1, .gpu_type = "h100" };
    struct sched_request any = { .gpus_per_node = 2 };
    struct sched_alloc *a = NULL;
    drv_error_t error = { 0 };

    cluster_set_gpus(c, 0, 4, "v100");
    cluster_set_gpus(c, 1, 4, "a100");
    cluster_set_gpus(c, 2, 4, NULL);
    assert_int_equal(sched_select(c->nodes, c->n, &a100, &a), SCHED_OK);
    assert_int_equal(a->node_idx[0], 1);
    sched_alloc_destroy(a);
    assert_int_equal(sched_select(c->nodes, c->n, &any, &a), SCHED_OK);
    assert_int_equal(a->node_idx[0], 0);
    sched_alloc_destroy(a);
    assert_int_equal(sched_select(c->nodes, c->n, &h100, &a), SCHED_NEVER);
    assert_int_equal(sched_check_never(c->nodes, c->n, &h100, &error),
                     SCHED_NEVER);
    assert_non_null(strstr(error.text, "type h100"));
    cluster_destroy(c);
}

/* A node with GPUs of two types (Gres=gpu:a100:2,gpu:v100:2): a typed
 * request takes GPUs of its type only, whatever is free of the other,
 * an untyped one any; the never-check counts the type's GPUs. */
static void select_node_with_two_gpu_types(void **state)
{
    (void)state;
    static const char *const types[] = { "a100", "a100", "v100", "v100" };
    struct cluster *c = cluster_create(1, 64, 512 * GIB, 0, NULL);
    struct sched_request v100 = { .gpus_per_node = 1, .gpu_type = "v100" };
    struct sched_request a100x2 = { .gpus_per_node = 2, .gpu_type = "a100" };
    struct sched_request v100x3 = { .gpus_per_node = 3, .gpu_type = "v100" };
    struct sched_request any = { .gpus_per_node = 1 };
    struct sched_alloc *a = NULL, *b = NULL;
    drv_error_t error = { 0 };

    cluster_set_gpus(c, 0, 4, NULL);
    c->nodes[0].gpu_types = types;
    assert_int_equal(sched_select(c->nodes, c->n, &v100, &a), SCHED_OK);
    assert_true(bitmap_test(a->gpus[0], 2) && bitmap_count(a->gpus[0]) == 1);
    assert_int_equal(sched_alloc_apply(c->nodes, c->n, a), 0);
    assert_int_equal(sched_select(c->nodes, c->n, &v100, &b), SCHED_OK);
    assert_true(bitmap_test(b->gpus[0], 3));
    assert_int_equal(sched_alloc_apply(c->nodes, c->n, b), 0);
    /* both V100s held: another V100 waits, though the A100s are free */
    sched_alloc_destroy(b);
    assert_int_equal(sched_select(c->nodes, c->n, &v100, &b), SCHED_BUSY);
    assert_int_equal(sched_select(c->nodes, c->n, &a100x2, &b), SCHED_OK);
    assert_true(bitmap_test(b->gpus[0], 0) && bitmap_test(b->gpus[0], 1));
    sched_alloc_destroy(b);
    assert_int_equal(sched_select(c->nodes, c->n, &any, &b), SCHED_OK);
    assert_true(bitmap_test(b->gpus[0], 0));
    sched_alloc_destroy(b);
    assert_int_equal(sched_alloc_release(c->nodes, c->n, a), 0);
    sched_alloc_destroy(a);
    assert_int_equal(sched_check_never(c->nodes, c->n, &v100x3, &error),
                     SCHED_NEVER);
    assert_non_null(strstr(error.text, "at most 2"));
    c->nodes[0].gpu_types = NULL;
    cluster_destroy(c);
}

/* --mincpus: each node gives the job at least that many CPUs, only a
 * node with them free is taken, and none that could never is. */
static void select_mincpus(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 4, 64 * GIB, 0, NULL);
    struct sched_request three = { .ntasks = 1, .min_cpus_per_node = 3 };
    struct sched_request two = { .ntasks = 1, .min_cpus_per_node = 2 };
    struct sched_request five = { .ntasks = 1, .min_cpus_per_node = 5 };
    struct sched_alloc *a = NULL, *b = NULL;
    drv_error_t error = { 0 };

    assert_int_equal(sched_select(c->nodes, c->n, &three, &a), SCHED_OK);
    assert_int_equal(a->cpus[0], 3);
    assert_int_equal(sched_alloc_apply(c->nodes, c->n, a), 0);
    assert_int_equal(sched_select(c->nodes, c->n, &two, &b), SCHED_OK);
    assert_int_equal(b->node_idx[0], 1); /* node 0 has one CPU free */
    assert_int_equal(b->cpus[0], 2);
    sched_alloc_destroy(b);
    assert_int_equal(sched_check_never(c->nodes, c->n, &five, &error),
                     SCHED_NEVER);
    assert_non_null(strstr(error.text, "--mincpus=5"));
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

/* A partition's MaxCPUsPerNode: the job gets at most that many CPUs of a
 * node, spreads over more nodes, and never runs when one node must give
 * it more. */
static void select_max_cpus_per_node_caps_each_node(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 8, 64 * GIB, 0, NULL);
    struct sched_request six = { .ntasks = 6, .max_cpus_per_node = 4 };
    struct sched_request wide = { .ntasks = 1, .cpus_per_task = 5,
                                  .max_cpus_per_node = 4 };
    struct sched_alloc *a = NULL;
    drv_error_t error = { 0 };

    assert_int_equal(sched_select(c->nodes, c->n, &six, &a), SCHED_OK);
    assert_int_equal(a->node_count, 2);
    assert_true(a->cpus[0] <= 4 && a->cpus[1] <= 4);
    assert_int_equal(a->cpus[0] + a->cpus[1], 6);
    sched_alloc_destroy(a);
    assert_int_equal(sched_check_never(c->nodes, c->n, &wide, &error),
                     SCHED_NEVER);
    wide.max_cpus_per_node = 0;
    assert_int_equal(sched_check_never(c->nodes, c->n, &wide, &error),
                     SCHED_OK);
    cluster_destroy(c);
}

static void select_mem_over_realmemory_never(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(4, 32, 64 * GIB, 0, NULL);
    struct sched_request mem = { .mem_per_node_mib = 65 * GIB };
    struct sched_request per_cpu = { .cpus_per_task = 16,
                                     .mem_per_cpu_mib = 5 * GIB };
    struct sched_request fits = { .mem_per_node_mib = 64 * GIB };
    struct sched_alloc *a = NULL;
    drv_error_t error = { 0 };

    assert_int_equal(sched_select(c->nodes, c->n, &mem, &a), SCHED_NEVER);
    assert_int_equal(sched_check_never(c->nodes, c->n, &mem, &error),
                     SCHED_NEVER);
    assert_non_null(strstr(error.text, "memory"));
    assert_int_equal(sched_select(c->nodes, c->n, &per_cpu, &a), SCHED_NEVER);
    assert_int_equal(sched_select(c->nodes, c->n, &fits, &a), SCHED_OK);
    assert_int_equal(a->mem_mib[0], 64 * GIB);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void select_rejects_more_nodes_than_configured_as_never(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(4, 32, 64 * GIB, 0, NULL);
    struct sched_request req = { .min_nodes = 10 };
    struct sched_alloc *a = NULL;
    drv_error_t error = { 0 };

    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_NEVER);
    assert_int_equal(sched_check_never(c->nodes, c->n, &req, &error),
                     SCHED_NEVER);
    assert_string_equal(error.text, "10 nodes requested, 4 available");
    cluster_destroy(c);
}

static void select_rejects_64_cpus_per_task_on_32_cpu_nodes_as_never(void **s)
{
    (void)s;
    struct cluster *c = cluster_create(4, 32, 64 * GIB, 0, NULL);
    struct sched_request req = { .ntasks = 1, .cpus_per_task = 64 };
    drv_error_t error = { 0 };

    assert_int_equal(sched_check_never(c->nodes, c->n, &req, &error),
                     SCHED_NEVER);
    assert_non_null(strstr(error.text, "64 CPUs per task"));
    cluster_destroy(c);
}

static void check_never_judges_sizes_not_usage(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 32, 64 * GIB, 0, NULL);
    struct sched_request req = { .min_nodes = 2, .exclusive = true };

    c->nodes[0].available = false;
    c->nodes[1].alloc_cpus = 32;
    c->nodes[1].running_jobs = 1;
    assert_int_equal(sched_check_never(c->nodes, c->n, &req, NULL), SCHED_OK);
    cluster_destroy(c);
}

static void select_never_counts_only_partition_nodes(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(4, 32, 64 * GIB, 0, NULL);
    bitmap_t *part = bitmap_create(4);
    struct sched_request req = { .min_nodes = 3, .allowed_nodes = part };
    struct sched_alloc *a = NULL;

    bitmap_set(part, 2);
    bitmap_set(part, 3);
    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_NEVER);
    req.min_nodes = 1;
    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_OK);
    assert_int_equal(a->node_idx[0], 2);
    sched_alloc_destroy(a);
    bitmap_destroy(part);
    cluster_destroy(c);
}

static void select_spreads_tasks_like_block_layout(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(4, 32, 64 * GIB, 0, NULL);
    struct sched_request req = { .min_nodes = 2, .ntasks = 5,
                                 .cpus_per_task = 2, .mem_per_cpu_mib = 100 };
    struct sched_alloc *a = NULL;

    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_OK);
    assert_int_equal(a->node_count, 2);
    assert_int_equal(a->tasks[0], 3);
    assert_int_equal(a->tasks[1], 2);
    assert_int_equal(a->cpus[0], 6);
    assert_int_equal(a->cpus[1], 4);
    assert_int_equal(a->mem_mib[0], 600);
    assert_int_equal(a->mem_mib[1], 400);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void select_without_node_count_uses_as_few_nodes_as_fit(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(4, 32, 64 * GIB, 0, NULL);
    struct sched_request req = { .ntasks = 40 };
    struct sched_alloc *a = NULL;

    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_OK);
    assert_int_equal(a->node_count, 2);
    assert_int_equal(a->tasks[0], 20);
    assert_int_equal(a->tasks[1], 20);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void select_gives_partly_used_node_what_fits(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 32, 64 * GIB, 0, NULL);
    struct sched_request req = { .min_nodes = 2, .ntasks = 40 };
    struct sched_alloc *a = NULL;

    c->nodes[0].alloc_cpus = 24;
    c->nodes[0].running_jobs = 1;
    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_OK);
    assert_int_equal(a->tasks[0], 8);
    assert_int_equal(a->tasks[1], 32);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void select_passes_over_small_nodes_for_one_big_enough(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(3, 32, 64 * GIB, 0, NULL);
    struct sched_request req = { .min_nodes = 1, .ntasks = 32 };
    struct sched_alloc *a = NULL;

    c->nodes[0].alloc_cpus = 16;
    c->nodes[1].alloc_cpus = 1;
    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_OK);
    assert_int_equal(a->node_count, 1);
    assert_int_equal(a->node_idx[0], 2);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void select_prefers_lowest_weight_then_index(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(4, 32, 64 * GIB, 0, NULL);
    struct sched_request req = { .min_nodes = 2 };
    struct sched_alloc *a = NULL;

    c->nodes[0].weight = 10;
    c->nodes[1].weight = 5;
    c->nodes[2].weight = 20;
    c->nodes[3].weight = 5;
    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_OK);
    assert_int_equal(a->node_count, 2);
    assert_int_equal(a->node_idx[0], 1); /* listed by index */
    assert_int_equal(a->node_idx[1], 3);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

/* 40 nodes: node i has i % 8 of its 8 CPUs in use; odd nodes weigh less.
 * A one-CPU job takes the lightest, lowest node; -N3 -n24 needs three idle
 * nodes, which the preferred order does not give, so the largest are taken
 * (select.c sorts by weight with a counting sort and takes the largest with
 * a partial sort: the answers are those of a full sort).
 */
static void select_large_cluster_orders_like_a_full_sort(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(40, 8, 64 * GIB, 0, NULL);
    struct sched_request small = { .ntasks = 1 };
    struct sched_request three = { .min_nodes = 3, .ntasks = 24 };
    struct sched_alloc *a = NULL;

    for (size_t i = 0; i < c->n; i++) {
        c->nodes[i].alloc_cpus = (uint32_t)(i % 8);
        c->nodes[i].weight = i % 2 ? 1 : 2;
    }
    assert_int_equal(sched_select(c->nodes, c->n, &small, &a), SCHED_OK);
    assert_int_equal(a->node_idx[0], 1);
    sched_alloc_destroy(a);
    assert_int_equal(sched_select(c->nodes, c->n, &three, &a), SCHED_OK);
    assert_int_equal(a->node_count, 3);
    assert_int_equal(a->node_idx[0], 0);
    assert_int_equal(a->node_idx[1], 8);
    assert_int_equal(a->node_idx[2], 16);
    sched_alloc_destroy(a);
    c->nodes[0].alloc_cpus = 1; /* 8, 16, 24 now */
    assert_int_equal(sched_select(c->nodes, c->n, &three, &a), SCHED_OK);
    assert_int_equal(a->node_idx[0], 8);
    assert_int_equal(a->node_idx[1], 16);
    assert_int_equal(a->node_idx[2], 24);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

/* The node set sched_select() must choose for -N k -n t of one CPU per
 * task on CPU-only nodes, computed the slow way: candidates fully sorted
 * in Slurm's order (weight, index), the shortest prefix holding the job;
 * else fully sorted by free CPUs (largest first, ties in that order).
 * in[i] is set for the chosen nodes; false if none will do. */
struct ref_cand {
    uint32_t idx, weight, cap;
};

static int ref_by_pref(const void *pa, const void *pb)
{
    const struct ref_cand *a = pa, *b = pb;

    if (a->weight != b->weight)
        return a->weight < b->weight ? -1 : 1;
    return a->idx < b->idx ? -1 : 1;
}

static int ref_by_cap(const void *pa, const void *pb)
{
    const struct ref_cand *a = pa, *b = pb;

    if (a->cap != b->cap)
        return a->cap > b->cap ? -1 : 1;
    return ref_by_pref(pa, pb);
}

static bool ref_prefix(const struct ref_cand *c, size_t nc, uint32_t k,
                       uint32_t t, bool *in)
{
    uint32_t sum = 0;

    for (size_t i = 0; i < nc && i < k; i++) {
        sum += c[i].cap;
        if (i + 1 == k && sum >= t) {
            for (size_t j = 0; j <= i; j++)
                in[c[j].idx] = true;
            return true;
        }
    }
    return false;
}

static bool ref_choose(const struct cluster *cl, uint32_t k, uint32_t t,
                       bool *in)
{
    struct ref_cand c[64];
    size_t nc = 0;

    for (size_t i = 0; i < cl->n; i++) {
        uint32_t free_cpus = cl->nodes[i].cpus - cl->nodes[i].alloc_cpus;
        if (free_cpus)
            c[nc++] = (struct ref_cand){ (uint32_t)i, cl->nodes[i].weight,
                                         free_cpus };
    }
    qsort(c, nc, sizeof(*c), ref_by_pref);
    if (ref_prefix(c, nc, k, t, in))
        return true;
    qsort(c, nc, sizeof(*c), ref_by_cap);
    return ref_prefix(c, nc, k, t, in);
}

/* Random clusters of 60 eight-CPU nodes in three weights, partly used, and
 * -N k -n t requests: sched_select() chooses the nodes the slow way does
 * (select.c counts capacities to find the largest; ties at the last
 * capacity taken go in Slurm's node order). */
static void select_largest_nodes_match_a_full_sort(void **state)
{
    (void)state;
    uint64_t seed = 7;
    int chosen = 0;

    for (int round = 0; round < 400; round++) {
        struct cluster *c = cluster_create(60, 8, 64 * GIB, 0, NULL);
        struct sched_request req = { 0 };
        struct sched_alloc *a = NULL;
        bool in[60] = { false };
        bool ok;

        for (size_t i = 0; i < c->n; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            c->nodes[i].alloc_cpus = (uint32_t)(seed >> 33) % 9;
            c->nodes[i].weight = 1 + (uint32_t)(seed >> 40) % 3;
        }
        req.min_nodes = req.max_nodes = 1 + (uint32_t)(seed >> 50) % 6;
        req.ntasks = req.min_nodes
                     + (uint32_t)(seed >> 20) % (7 * req.min_nodes + 1);
        ok = ref_choose(c, req.min_nodes, req.ntasks, in);
        assert_int_equal(sched_select(c->nodes, c->n, &req, &a),
                         ok ? SCHED_OK : SCHED_BUSY);
        if (ok) {
            assert_int_equal(a->node_count, req.min_nodes);
            for (uint32_t j = 0; j < a->node_count; j++)
                assert_true(in[a->node_idx[j]]);
            chosen++;
        }
        sched_alloc_destroy(a);
        cluster_destroy(c);
    }
    assert_true(chosen > 100);
}

static void select_gpus_total_fills_nodes_in_order(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(4, 64, 512 * GIB, 8, NULL);
    struct sched_request req = { .gpus_total = 12 };
    struct sched_alloc *a = NULL, *b = NULL;

    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_OK);
    assert_int_equal(a->node_count, 2);
    assert_string_equal(gpu_str(a, 0), "0-7");
    assert_string_equal(gpu_str(a, 1), "0-3");
    for (int g = 0; g < 6; g++)
        bitmap_set(c->nodes[0].alloc_gpus, g);
    assert_int_equal(sched_select(c->nodes, c->n, &req, &b), SCHED_OK);
    assert_int_equal(b->node_count, 3);
    assert_string_equal(gpu_str(b, 0), "6-7");
    assert_string_equal(gpu_str(b, 1), "0-7");
    assert_string_equal(gpu_str(b, 2), "0-1");
    sched_alloc_destroy(a);
    sched_alloc_destroy(b);
    cluster_destroy(c);
}

static void select_gpus_total_gives_each_node_at_least_one(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(3, 64, 512 * GIB, 8, NULL);
    struct sched_request req = { .min_nodes = 3, .gpus_total = 4 };
    struct sched_alloc *a = NULL;

    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_OK);
    assert_string_equal(gpu_str(a, 0), "0-1");
    assert_string_equal(gpu_str(a, 1), "0");
    assert_string_equal(gpu_str(a, 2), "0");
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void select_mem_per_cpu_limits_tasks_on_a_node(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 32, 8 * GIB, 0, NULL);
    struct sched_request req = { .ntasks = 8, .mem_per_cpu_mib = 2 * GIB };
    struct sched_alloc *a = NULL;

    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_OK);
    assert_int_equal(a->node_count, 2);
    assert_int_equal(a->tasks[0], 4);
    assert_int_equal(a->mem_mib[0], 8 * GIB);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void select_ntasks_per_node_sets_tasks_on_each(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(3, 16, 64 * GIB, 0, NULL);
    struct sched_request req = { .min_nodes = 2, .ntasks_per_node = 4,
                                 .cpus_per_task = 2 };
    struct sched_alloc *a = NULL;

    c->nodes[0].alloc_cpus = 10; /* 6 free: not room for 4 x 2 */
    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_OK);
    assert_int_equal(a->node_idx[0], 1);
    assert_int_equal(a->node_idx[1], 2);
    assert_int_equal(a->tasks[0], 4);
    assert_int_equal(a->cpus[1], 8);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void select_rejects_malformed_requests_with_einval(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 32, 64 * GIB, 8, NULL);
    const struct sched_request bad[] = {
        { .mem_per_node_mib = 1, .mem_per_cpu_mib = 1 },
        { .gpus_per_node = 1, .gpus_total = 2 },
        { .min_nodes = 3, .ntasks = 2 },
        { .min_nodes = 3, .max_nodes = 2 },
        { .min_nodes = 2, .gpus_total = 1 },
        { .gpu_type = "a100" },
    };
    struct sched_alloc *a = NULL;
    drv_error_t error = { 0 };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        errno = 0;
        assert_int_equal(sched_select(c->nodes, c->n, &bad[i], &a), -1);
        assert_int_equal(errno, EINVAL);
        assert_null(a);
        error.text[0] = '\0';
        assert_int_equal(sched_check_never(c->nodes, c->n, &bad[i], &error),
                         -1);
        assert_int_equal(errno, EINVAL);
        assert_true(error.text[0] != '\0');
    }
    errno = 0;
    assert_int_equal(sched_select(c->nodes, c->n, NULL, &a), -1);
    assert_int_equal(errno, EINVAL);
    cluster_destroy(c);
}

static void alloc_apply_rejects_bad_node_index_and_changes_nothing(void **s)
{
    (void)s;
    struct cluster *c = cluster_create(2, 32, 64 * GIB, 0, NULL);
    struct sched_alloc *a = sched_alloc_create(2);

    assert_non_null(a);
    a->node_idx[0] = 0;
    a->cpus[0] = 4;
    a->node_idx[1] = 7;
    errno = 0;
    assert_int_equal(sched_alloc_apply(c->nodes, c->n, a), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(c->nodes[0].alloc_cpus, 0);
    assert_int_equal(c->nodes[0].running_jobs, 0);
    sched_alloc_destroy(a);
    sched_alloc_destroy(NULL);
    cluster_destroy(c);
}

static void alloc_gpu_fmt_is_empty_without_gpus(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(1, 4, GIB, 0, NULL);
    struct sched_request req = { .ntasks = 1 };
    struct sched_alloc *a = cluster_take(c, &req);

    assert_string_equal(gpu_str(a, 0), "");
    errno = 0;
    assert_null(sched_alloc_gpu_fmt(a, 1));
    assert_int_equal(errno, EINVAL);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

/* --no-kill: a failed node's entry leaves the allocation, the others
 * keep their order, GPUs and counts. */
static void alloc_drop_removes_one_entry(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(3, 4, GIB, 2, NULL);
    struct sched_request req = { .min_nodes = 3, .ntasks = 3,
                                 .gpus_per_node = 1 };
    struct sched_alloc *a = cluster_take(c, &req);

    assert_non_null(a);
    assert_int_equal(a->node_count, 3);
    assert_int_equal(sched_alloc_drop(a, 1), 0);
    assert_int_equal(a->node_count, 2);
    assert_int_equal(a->node_idx[0], 0);
    assert_int_equal(a->node_idx[1], 2);
    assert_string_equal(gpu_str(a, 1), "0");
    assert_int_equal(a->tasks[1], 1);
    errno = 0;
    assert_int_equal(sched_alloc_drop(a, 2), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(sched_alloc_drop(a, 1), 0);
    assert_int_equal(sched_alloc_drop(a, 0), -1); /* never the last one */
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(select_fits_cpu_job_on_first_node),
        cmocka_unit_test(select_rejects_16_gpus_on_8_gpu_nodes_as_never),
        cmocka_unit_test(select_gives_disjoint_gpu_indices_to_two_jobs),
        cmocka_unit_test(select_reuses_gpus_freed_by_a_finished_job),
        cmocka_unit_test(select_places_several_jobs_per_node),
        cmocka_unit_test(select_skips_drained_node),
        cmocka_unit_test(select_exclusive_takes_whole_node),
        cmocka_unit_test(select_exclusive_needs_node_with_nothing_running),
        cmocka_unit_test(select_release_clears_exclusive_hold),
        cmocka_unit_test(select_typed_gpu_matches_type_only),
        cmocka_unit_test(select_node_with_two_gpu_types),
        cmocka_unit_test(select_mincpus),
        cmocka_unit_test(select_max_cpus_per_node_caps_each_node),
        cmocka_unit_test(select_mem_over_realmemory_never),
        cmocka_unit_test(select_rejects_more_nodes_than_configured_as_never),
        cmocka_unit_test(
            select_rejects_64_cpus_per_task_on_32_cpu_nodes_as_never),
        cmocka_unit_test(check_never_judges_sizes_not_usage),
        cmocka_unit_test(select_never_counts_only_partition_nodes),
        cmocka_unit_test(select_spreads_tasks_like_block_layout),
        cmocka_unit_test(select_without_node_count_uses_as_few_nodes_as_fit),
        cmocka_unit_test(select_gives_partly_used_node_what_fits),
        cmocka_unit_test(select_passes_over_small_nodes_for_one_big_enough),
        cmocka_unit_test(select_prefers_lowest_weight_then_index),
        cmocka_unit_test(select_largest_nodes_match_a_full_sort),
        cmocka_unit_test(select_large_cluster_orders_like_a_full_sort),
        cmocka_unit_test(select_gpus_total_fills_nodes_in_order),
        cmocka_unit_test(select_gpus_total_gives_each_node_at_least_one),
        cmocka_unit_test(select_mem_per_cpu_limits_tasks_on_a_node),
        cmocka_unit_test(select_ntasks_per_node_sets_tasks_on_each),
        cmocka_unit_test(select_rejects_malformed_requests_with_einval),
        cmocka_unit_test(alloc_drop_removes_one_entry),
        cmocka_unit_test(
            alloc_apply_rejects_bad_node_index_and_changes_nothing),
        cmocka_unit_test(alloc_gpu_fmt_is_empty_without_gpus),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
