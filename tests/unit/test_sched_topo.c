/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sched_topo.c - -B S:C:T (--sockets-per-node, --cores-per-socket,
 * --threads-per-core) as node filters: a job runs only on nodes configured
 * with at least that many sockets, cores per socket and threads per core
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sched/sched.h"
#include "sched_cluster.h"

#define NOW 1700000000

/* n0, n1: 1 socket x 4 cores x 1 thread; n2, n3: 2 x 4 x 2. */
static struct cluster *mixed(void)
{
    struct cluster *c = cluster_create(4, 8, 1024, 0, NULL);

    for (size_t i = 0; i < c->n; i++) {
        c->nodes[i].sockets = i < 2 ? 1 : 2;
        c->nodes[i].cores_per_socket = 4;
        c->nodes[i].threads_per_core = i < 2 ? 1 : 2;
    }
    return c;
}

static void sockets_keep_a_job_off_smaller_nodes(void **state)
{
    (void)state;
    struct cluster *c = mixed();
    struct sched_request req = { .ntasks = 1, .sockets_per_node = 2,
                                 .cores_per_socket = 4 };
    struct sched_alloc *a = cluster_take(c, &req);

    assert_int_equal(a->node_count, 1);
    assert_int_equal(a->node_idx[0], 2);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void threads_alone_filter_nodes(void **state)
{
    (void)state;
    struct cluster *c = mixed();
    struct sched_request req = { .min_nodes = 2, .ntasks = 2,
                                 .threads_per_core = 2 };
    struct sched_alloc *a = cluster_take(c, &req);

    assert_int_equal(a->node_count, 2);
    assert_int_equal(a->node_idx[0], 2);
    assert_int_equal(a->node_idx[1], 3);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void no_request_uses_any_node(void **state)
{
    (void)state;
    struct cluster *c = mixed();
    struct sched_request req = { .ntasks = 1 };
    struct sched_alloc *a = cluster_take(c, &req);

    assert_int_equal(a->node_idx[0], 0);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

static void a_request_no_node_meets_is_never_and_says_why(void **state)
{
    (void)state;
    struct cluster *c = mixed();
    struct sched_request sockets = { .ntasks = 1, .sockets_per_node = 4 };
    struct sched_request cores = { .ntasks = 1, .cores_per_socket = 5 };
    drv_error_t error = { 0 };

    assert_int_equal(sched_check_never(c->nodes, c->n, &sockets, &error),
                     SCHED_NEVER);
    assert_non_null(strstr(error.text, "-B 4:*:*"));
    assert_int_equal(sched_check_never(c->nodes, c->n, &cores, &error),
                     SCHED_NEVER);
    assert_non_null(strstr(error.text, "-B *:5:*"));
    cluster_destroy(c);
}

static void more_nodes_than_meet_the_request_is_never(void **state)
{
    (void)state;
    struct cluster *c = mixed();
    struct sched_request req = { .min_nodes = 3, .ntasks = 3,
                                 .sockets_per_node = 2 };

    assert_int_equal(sched_check_never(c->nodes, c->n, &req, NULL),
                     SCHED_NEVER);
    cluster_destroy(c);
}

static void busy_when_the_nodes_that_meet_it_are_full(void **state)
{
    (void)state;
    struct cluster *c = mixed();
    struct sched_request fill = { .min_nodes = 2, .ntasks = 16,
                                  .sockets_per_node = 2 };
    struct sched_request req = { .ntasks = 1, .sockets_per_node = 2 };
    struct sched_alloc *a = cluster_take(c, &fill), *b = NULL;

    /* n0 and n1 are idle, but have one socket */
    assert_int_equal(sched_select(c->nodes, c->n, &req, &b), SCHED_BUSY);
    assert_null(b);
    assert_int_equal(sched_check_never(c->nodes, c->n, &req, NULL),
                     SCHED_OK);
    sched_alloc_destroy(a);
    cluster_destroy(c);
}

/* The pass skips a job equal to one that did not fit: a job that differs
 * only in -B is not equal. */
static void pass_tells_requests_apart_by_topology(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(2, 4, 1024, 0, NULL);
    struct sched_request two = { .ntasks = 4, .sockets_per_node = 2 };
    struct sched_request any = { .ntasks = 4 };
    struct sched_job q[] = {
        { .id = 1, .req = &two, .time_limit_s = 60 },
        { .id = 2, .req = &two, .time_limit_s = 60 },
        { .id = 3, .req = &any, .time_limit_s = 60 },
    };
    struct sched_decision out[3];

    c->nodes[0].sockets = 1;
    c->nodes[1].sockets = 2;
    for (size_t i = 0; i < c->n; i++) {
        c->nodes[i].cores_per_socket = 2;
        c->nodes[i].threads_per_core = 1;
    }
    assert_int_equal(sched_pass(c->nodes, c->n, NULL, 0, q, 3, NOW, NULL,
                                out), 0);
    assert_int_equal(out[0].action, SCHED_ACT_START);
    assert_int_equal(out[0].alloc->node_idx[0], 1);
    assert_int_equal(out[1].action, SCHED_ACT_WAIT);
    assert_int_equal(out[1].reason, SCHED_REASON_RESOURCES);
    assert_int_equal(out[2].action, SCHED_ACT_START);
    assert_int_equal(out[2].alloc->node_idx[0], 0);
    sched_decisions_clear(out, 3);
    cluster_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sockets_keep_a_job_off_smaller_nodes),
        cmocka_unit_test(threads_alone_filter_nodes),
        cmocka_unit_test(no_request_uses_any_node),
        cmocka_unit_test(a_request_no_node_meets_is_never_and_says_why),
        cmocka_unit_test(more_nodes_than_meet_the_request_is_never),
        cmocka_unit_test(busy_when_the_nodes_that_meet_it_are_full),
        cmocka_unit_test(pass_tells_requests_apart_by_topology),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
