/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sched_gpu_opts.c - --gpus-per-task, --cpus-per-gpu and --mem-per-gpu
 * in node selection (Slurm cons_tres: a node's CPUs and memory follow the
 * GPUs it gives the job)
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

static void gpus_per_task_gives_each_node_its_tasks_gpus(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(4, 32, 64 * GIB, 4, NULL);
    struct sched_request req = { .min_nodes = 2, .ntasks = 3,
                                 .gpus_per_task = 2 };
    struct sched_alloc *a = cluster_take(c, &req);

    assert_int_equal(a->node_count, 2);
    assert_int_equal(a->tasks[0], 2);
    assert_int_equal(a->tasks[1], 1);
    assert_string_equal(gpu_str(a, 0), "0-3");
    assert_string_equal(gpu_str(a, 1), "0-1");
    assert_int_equal(a->cpus[0], 2);
    assert_int_equal(a->cpus[1], 1);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void gpus_per_task_limits_tasks_to_free_gpus(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 32, 64 * GIB, 4, NULL);
    struct sched_request req = { .ntasks = 4, .gpus_per_task = 2 };
    struct sched_alloc *a = cluster_take(c, &req);
    struct sched_request one = { .ntasks = 1, .gpus_per_task = 1 };
    struct sched_alloc *b = NULL;

    /* 2 tasks x 2 GPUs fill each 4-GPU node. */
    assert_int_equal(a->node_count, 2);
    assert_int_equal(a->tasks[0], 2);
    assert_int_equal(a->tasks[1], 2);
    assert_int_equal(sched_select(c->nodes, c->n, &one, &b), SCHED_BUSY);
    assert_null(b);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void gpus_per_task_over_node_size_is_never(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 32, 64 * GIB, 4, NULL);
    struct sched_request req = { .ntasks = 1, .gpus_per_task = 8 };
    drv_error_t error = { 0 };

    assert_int_equal(sched_check_never(c->nodes, c->n, &req, &error),
                     SCHED_NEVER);
    cluster_destroy(c);
}

static void cpus_per_gpu_raises_node_cpus(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 32, 64 * GIB, 8, NULL);
    struct sched_request req = { .ntasks = 1, .gpus_per_node = 2,
                                 .cpus_per_gpu = 4 };
    struct sched_alloc *a = cluster_take(c, &req);

    assert_int_equal(a->node_count, 1);
    assert_int_equal(a->cpus[0], 8);
    assert_string_equal(gpu_str(a, 0), "0-1");
    assert_int_equal(c->nodes[0].alloc_cpus, 8);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void cpus_per_gpu_keeps_larger_task_cpus(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(1, 32, 64 * GIB, 8, NULL);
    struct sched_request req = { .ntasks = 4, .cpus_per_task = 4,
                                 .gpus_per_node = 1, .cpus_per_gpu = 2 };
    struct sched_alloc *a = cluster_take(c, &req);

    assert_int_equal(a->cpus[0], 16);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void cpus_per_gpu_with_gpus_per_task_counts_per_task(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 16, 64 * GIB, 8, NULL);
    /* Each task: 2 GPUs x 3 CPUs = 6 CPUs, so 2 tasks fit a 16-CPU node. */
    struct sched_request req = { .ntasks = 3, .gpus_per_task = 2,
                                 .cpus_per_gpu = 3 };
    struct sched_alloc *a = cluster_take(c, &req);

    assert_int_equal(a->node_count, 2);
    assert_int_equal(a->tasks[0], 2);
    assert_int_equal(a->cpus[0], 12);
    assert_string_equal(gpu_str(a, 0), "0-3");
    assert_int_equal(a->tasks[1], 1);
    assert_int_equal(a->cpus[1], 6);
    assert_string_equal(gpu_str(a, 1), "0-1");
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void cpus_per_gpu_limits_gpus_total_per_node(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 8, 64 * GIB, 8, NULL);
    /* 8 CPUs / 4 per GPU: at most 2 GPUs per node, so 4 GPUs take 2. */
    struct sched_request req = { .ntasks = 2, .gpus_total = 4,
                                 .cpus_per_gpu = 4 };
    struct sched_alloc *a = cluster_take(c, &req);

    assert_int_equal(a->node_count, 2);
    assert_string_equal(gpu_str(a, 0), "0-1");
    assert_string_equal(gpu_str(a, 1), "0-1");
    assert_int_equal(a->cpus[0], 8);
    assert_int_equal(a->cpus[1], 8);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void mem_per_gpu_sets_node_memory(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 32, 64 * GIB, 8, NULL);
    struct sched_request req = { .ntasks = 1, .gpus_per_node = 3,
                                 .mem_per_gpu_mib = 10 * GIB };
    struct sched_alloc *a = cluster_take(c, &req);
    struct sched_alloc *b = cluster_take(c, &req);

    assert_int_equal(a->mem_mib[0], 30 * GIB);
    /* 64 GiB holds two such jobs' 30 GiB but not a third. */
    assert_int_equal(b->node_idx[0], 0);
    sched_alloc_destroy(b);
    b = cluster_take(c, &req);
    assert_int_equal(b->node_idx[0], 1);
    sched_alloc_destroy(a);
    sched_alloc_destroy(b);
    cluster_destroy(c);
}

static void mem_per_gpu_over_node_memory_is_never(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 32, 64 * GIB, 8, NULL);
    struct sched_request req = { .ntasks = 1, .gpus_per_node = 4,
                                 .mem_per_gpu_mib = 32 * GIB };
    drv_error_t error = { 0 };

    assert_int_equal(sched_check_never(c->nodes, c->n, &req, &error),
                     SCHED_NEVER);
    cluster_destroy(c);
}

static void gpu_options_reject_bad_combinations(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 32, 64 * GIB, 8, NULL);
    struct sched_request bad[] = {
        { .ntasks = 1, .gpus_per_task = 1, .gpus_per_node = 1 },
        { .ntasks = 2, .gpus_per_task = 1, .gpus_total = 2 },
        { .ntasks = 1, .gpus_per_node = 1, .mem_per_gpu_mib = 1,
          .mem_per_node_mib = 1 },
        { .ntasks = 1, .gpus_per_node = 1, .mem_per_gpu_mib = 1,
          .mem_per_cpu_mib = 1 },
    };
    drv_error_t error = { 0 };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        errno = 0;
        assert_int_equal(sched_check_never(c->nodes, c->n, &bad[i], &error),
                         -1);
        assert_int_equal(errno, EINVAL);
    }
    cluster_destroy(c);
}

static void gpu_type_with_gpus_per_task_is_accepted(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 32, 64 * GIB, 4, "a100");
    struct sched_request req = { .ntasks = 2, .gpus_per_task = 1,
                                 .gpu_type = "a100" };
    struct sched_alloc *a = cluster_take(c, &req);

    assert_int_equal(a->node_count, 1);
    assert_string_equal(gpu_str(a, 0), "0-1");
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpus_per_task_gives_each_node_its_tasks_gpus),
        cmocka_unit_test(gpus_per_task_limits_tasks_to_free_gpus),
        cmocka_unit_test(gpus_per_task_over_node_size_is_never),
        cmocka_unit_test(cpus_per_gpu_raises_node_cpus),
        cmocka_unit_test(cpus_per_gpu_keeps_larger_task_cpus),
        cmocka_unit_test(cpus_per_gpu_with_gpus_per_task_counts_per_task),
        cmocka_unit_test(cpus_per_gpu_limits_gpus_total_per_node),
        cmocka_unit_test(mem_per_gpu_sets_node_memory),
        cmocka_unit_test(mem_per_gpu_over_node_memory_is_never),
        cmocka_unit_test(gpu_options_reject_bad_combinations),
        cmocka_unit_test(gpu_type_with_gpus_per_task_is_accepted),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
