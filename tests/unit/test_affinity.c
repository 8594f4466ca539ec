/* SPDX-License-Identifier: Apache-2.0
 *
 * test_affinity.c - each task's CPUs on made-up topologies (affinity.h)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "noded/affinity.h"

/* 2 sockets x 2 cores x 2 threads; OS ids as Linux numbers them on many
 * machines: thread 0 of every core first (0-3), then the siblings (4-7). */
static struct topo_pu pus[8];
static struct topo topo = {pus, 8};

static int setup(void **state)
{
    (void)state;
    for (int i = 0; i < 8; i++) {
        int core = i / 2, thread = i % 2;

        pus[i] = (struct topo_pu){.os = core + 4 * thread, .core = core,
                                  .socket = core / 2};
    }
    return 0;
}

static const char *hex(const cpu_set_t *s)
{
    static char buf[4][AFFINITY_MASK_MAX];
    static int k;

    return affinity_mask_str(s, buf[k++ % 4]);
}

static struct affinity_req req(enum cpubind_type type, uint32_t ntasks)
{
    struct affinity_req r = {.topo = &topo, .ntasks = ntasks,
                             .cpus_per_task = 1, .type = type,
                             .whole_node = true};

    affinity_step_cpus(&topo, 0, NULL, &r.avail);
    return r;
}

static void step_cpus_follow_logical_order(void **state)
{
    cpu_set_t s;

    (void)state;
    affinity_step_cpus(&topo, 2, NULL, &s);
    assert_string_equal(hex(&s), "0x11"); /* core 0: PUs 0 and 4 */
    affinity_step_cpus(&topo, 100, NULL, &s);   /* more than exist: all */
    assert_string_equal(hex(&s), "0xff");
}

static void cores_cyclic_over_sockets_by_default(void **state)
{
    struct affinity_req r = req(CPUBIND_CORES, 4);
    cpu_set_t m[4];

    (void)state;
    assert_int_equal(affinity_masks(&r, m, NULL), 0);
    assert_string_equal(hex(&m[0]), "0x11"); /* socket 0 core 0 */
    assert_string_equal(hex(&m[1]), "0x44"); /* socket 1 core 2 */
    assert_string_equal(hex(&m[2]), "0x22");
    assert_string_equal(hex(&m[3]), "0x88");
    r.socket_dist = TASKDIST_LEVEL_BLOCK;
    assert_int_equal(affinity_masks(&r, m, NULL), 0);
    assert_string_equal(hex(&m[1]), "0x22");
}

static void threads_and_nomultithread(void **state)
{
    struct affinity_req r = req(CPUBIND_THREADS, 2);
    cpu_set_t m[2];

    (void)state;
    r.socket_dist = TASKDIST_LEVEL_BLOCK;
    assert_int_equal(affinity_masks(&r, m, NULL), 0);
    assert_string_equal(hex(&m[0]), "0x1");
    assert_string_equal(hex(&m[1]), "0x10"); /* core 0's sibling */
    r.one_thread_per_core = true;
    assert_int_equal(affinity_masks(&r, m, NULL), 0);
    assert_string_equal(hex(&m[1]), "0x2"); /* the next core */
}

static void cpus_per_task_and_fcyclic(void **state)
{
    struct affinity_req r = req(CPUBIND_CORES, 2);
    cpu_set_t m[2];

    (void)state;
    r.cpus_per_task = 4;
    r.socket_dist = TASKDIST_LEVEL_FCYCLIC;
    assert_int_equal(affinity_masks(&r, m, NULL), 0);
    assert_string_equal(hex(&m[0]), "0x55"); /* cores 0 and 2 */
    assert_string_equal(hex(&m[1]), "0xaa");
    r.type = CPUBIND_SOCKETS;
    assert_int_equal(affinity_masks(&r, m, NULL), 0);
    assert_string_equal(hex(&m[0]), "0x33");
    assert_string_equal(hex(&m[1]), "0xcc");
}

static void more_tasks_than_cpus_wrap(void **state)
{
    struct affinity_req r = req(CPUBIND_CORES, 3);
    cpu_set_t m[3];

    (void)state;
    affinity_step_cpus(&topo, 2, NULL, &r.avail); /* one core */
    assert_int_equal(affinity_masks(&r, m, NULL), 0);
    assert_string_equal(hex(&m[2]), "0x11");
}

static void map_mask_rank_within_the_step(void **state)
{
    struct affinity_req r = req(CPUBIND_MAP_CPU, 2);
    cpu_set_t m[2];
    drv_error_t e;

    (void)state;
    r.list = "5,0x2";
    assert_int_equal(affinity_masks(&r, m, NULL), 0);
    assert_string_equal(hex(&m[0]), "0x20");
    assert_string_equal(hex(&m[1]), "0x4");
    r.type = CPUBIND_MASK_CPU;
    r.list = "0x3";
    assert_int_equal(affinity_masks(&r, m, NULL), 0);
    assert_string_equal(hex(&m[1]), "0x3");
    affinity_step_cpus(&topo, 2, NULL, &r.avail); /* 0x11 */
    r.list = "0x6";
    assert_int_equal(affinity_masks(&r, m, &e), -1);
    assert_non_null(strstr(e.text, "not within the step's CPUs"));
    r.type = CPUBIND_RANK;
    r.whole_node = false;
    assert_int_equal(affinity_masks(&r, m, &e), -1);
    assert_string_equal(e.text, "Entire node must be allocated for rank");
    r.whole_node = true;
    assert_int_equal(affinity_masks(&r, m, NULL), 0);
    assert_string_equal(hex(&m[1]), "0x10");
}

static void auto_binding_as_slurm(void **state)
{
    cpu_set_t all, one_core;

    (void)state;
    affinity_step_cpus(&topo, 0, NULL, &all);
    affinity_step_cpus(&topo, 2, NULL, &one_core);
    assert_int_equal(affinity_auto_type(&topo, &all, 2, 1), CPUBIND_SOCKETS);
    assert_int_equal(affinity_auto_type(&topo, &all, 4, 1), CPUBIND_CORES);
    assert_int_equal(affinity_auto_type(&topo, &all, 4, 2), CPUBIND_THREADS);
    assert_int_equal(affinity_auto_type(&topo, &all, 3, 1), CPUBIND_NONE);
    assert_int_equal(affinity_auto_type(&topo, &one_core, 1, 1),
                     CPUBIND_CORES); /* no whole socket */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(step_cpus_follow_logical_order),
        cmocka_unit_test(cores_cyclic_over_sockets_by_default),
        cmocka_unit_test(threads_and_nomultithread),
        cmocka_unit_test(cpus_per_task_and_fcyclic),
        cmocka_unit_test(more_tasks_than_cpus_wrap),
        cmocka_unit_test(map_mask_rank_within_the_step),
        cmocka_unit_test(auto_binding_as_slurm),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, setup, NULL);
}
