/* SPDX-License-Identifier: Apache-2.0
 *
 * test_step_layout.c - which ranks of a step run on which node (srun -m)
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ctld/step_layout.h"

/* "0,1|2,3": each node's ranks, nodes separated by '|'. */
static const char *ranks_of(const struct step_layout *l)
{
    static char buf[512];
    size_t n = 0;

    buf[0] = '\0';
    for (uint32_t i = 0; i < l->nodes; i++) {
        for (uint32_t k = 0; k < l->tasks[i]; k++)
            n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%u",
                                  k ? "," : (i ? "|" : ""),
                                  l->rank[l->start[i] + k]);
    }
    return buf;
}

static void expect(uint32_t nodes, const uint32_t *tasks,
                   enum taskdist_node node, uint32_t plane, const char *want)
{
    struct step_layout *l = step_layout_create(nodes, tasks, node, plane);

    assert_non_null(l);
    assert_string_equal(ranks_of(l), want);
    step_layout_destroy(l);
}

static void block_puts_consecutive_ranks_on_a_node(void **state)
{
    (void)state;
    expect(2, (uint32_t[]){2, 2}, TASKDIST_BLOCK, 0, "0,1|2,3");
    expect(3, (uint32_t[]){3, 1, 2}, TASKDIST_BLOCK, 0, "0,1,2|3|4,5");
    /* the default and arbitrary without a map number as block */
    expect(2, (uint32_t[]){2, 1}, TASKDIST_UNSET, 0, "0,1|2");
}

static void cyclic_deals_one_rank_per_node_per_round(void **state)
{
    (void)state;
    expect(2, (uint32_t[]){2, 2}, TASKDIST_CYCLIC, 0, "0,2|1,3");
    expect(3, (uint32_t[]){2, 2, 2}, TASKDIST_CYCLIC, 0, "0,3|1,4|2,5");
}

/* Uneven counts stay as given; a node that is full drops out of the
 * rounds (Slurm: round robin over the nodes with room left). */
static void cyclic_keeps_uneven_counts(void **state)
{
    (void)state;
    expect(2, (uint32_t[]){3, 2}, TASKDIST_CYCLIC, 0, "0,2,4|1,3");
    expect(3, (uint32_t[]){1, 3, 2}, TASKDIST_CYCLIC, 0, "0|1,3,5|2,4");
    expect(1, (uint32_t[]){4}, TASKDIST_CYCLIC, 0, "0,1,2,3");
}

/* block:cyclic and friends: only the node level matters here. */
static void two_level_forms_number_by_their_node_level(void **state)
{
    struct taskdist d;
    struct step_layout *l;

    (void)state;
    assert_int_equal(taskdist_parse("block:cyclic", NULL, &d, NULL), 0);
    l = step_layout_create(2, (uint32_t[]){2, 2}, d.node, 0);
    assert_string_equal(ranks_of(l), "0,1|2,3");
    step_layout_destroy(l);
    assert_int_equal(taskdist_parse("cyclic:block", NULL, &d, NULL), 0);
    l = step_layout_create(2, (uint32_t[]){2, 2}, d.node, 0);
    assert_string_equal(ranks_of(l), "0,2|1,3");
    step_layout_destroy(l);
}

static void plane_deals_blocks_of_its_size(void **state)
{
    uint32_t t[4];

    (void)state;
    /* -N2 -n8 -m plane=2 */
    step_layout_plane_counts(2, 8, 2, NULL, t);
    assert_int_equal(t[0], 4);
    assert_int_equal(t[1], 4);
    expect(2, t, TASKDIST_PLANE, 2, "0,1,4,5|2,3,6,7");
    /* -N4 -n8 -m plane=2: one block each */
    step_layout_plane_counts(4, 8, 2, NULL, t);
    expect(4, t, TASKDIST_PLANE, 2, "0,1|2,3|4,5|6,7");
    /* -N4 -n12 -m plane=2 */
    step_layout_plane_counts(4, 12, 2, NULL, t);
    expect(4, t, TASKDIST_PLANE, 2, "0,1,8,9|2,3,10,11|4,5|6,7");
}

/* Slurm's dist_plane.html: -N4 -n21 -m plane=4 gives the first node
 * 0-3 and 16-19, the second 4-7 and 20. */
static void plane_counts_follow_the_blocks_when_uneven(void **state)
{
    uint32_t t[4];

    (void)state;
    step_layout_plane_counts(4, 21, 4, NULL, t);
    assert_int_equal(t[0], 8);
    assert_int_equal(t[1], 5);
    assert_int_equal(t[2], 4);
    assert_int_equal(t[3], 4);
    expect(4, t, TASKDIST_PLANE, 4,
           "0,1,2,3,16,17,18,19|4,5,6,7,20|8,9,10,11|12,13,14,15");
    /* -N4 -n21 -m plane=2 */
    step_layout_plane_counts(4, 21, 2, NULL, t);
    expect(4, t, TASKDIST_PLANE, 2,
           "0,1,8,9,16,17|2,3,10,11,18,19|4,5,12,13,20|6,7,14,15");
}

/* Room per node limits the counts until no node has room (Slurm's
 * example: 4, 1 and 1 CPUs, plane=2, 6 tasks). */
static void plane_counts_respect_room_then_oversubscribe(void **state)
{
    uint32_t t[3];

    (void)state;
    step_layout_plane_counts(3, 6, 2, (uint32_t[]){4, 1, 1}, t);
    assert_int_equal(t[0], 4);
    assert_int_equal(t[1], 1);
    assert_int_equal(t[2], 1);
    expect(3, t, TASKDIST_PLANE, 2, "0,1,4,5|2|3");
    step_layout_plane_counts(2, 6, 2, (uint32_t[]){2, 2}, t);
    assert_int_equal(t[0] + t[1], 6);
    assert_int_equal(t[0], 4);
    /* one node: everything there, whatever the plane */
    step_layout_plane_counts(1, 5, 2, NULL, t);
    assert_int_equal(t[0], 5);
    expect(1, t, TASKDIST_PLANE, 2, "0,1,2,3,4");
}

static void arbitrary_follows_the_map(void **state)
{
    struct step_layout *l;

    (void)state;
    l = step_layout_from_map(2, 5, (uint32_t[]){1, 0, 0, 1, 1});
    assert_non_null(l);
    assert_int_equal(l->tasks[0], 2);
    assert_string_equal(ranks_of(l), "1,2|0,3,4");
    step_layout_destroy(l);
    errno = 0;
    assert_null(step_layout_from_map(2, 2, (uint32_t[]){0, 2}));
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_null(step_layout_from_map(2, 2, (uint32_t[]){0, 0}));
    assert_int_equal(errno, EINVAL); /* node 1 has no rank */
}

static void refuses_empty_nodes_and_zero_plane(void **state)
{
    (void)state;
    errno = 0;
    assert_null(step_layout_create(0, NULL, TASKDIST_BLOCK, 0));
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_null(step_layout_create(2, (uint32_t[]){2, 0}, TASKDIST_BLOCK, 0));
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_null(step_layout_create(2, (uint32_t[]){2, 2}, TASKDIST_PLANE, 0));
    assert_int_equal(errno, EINVAL);
    step_layout_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(block_puts_consecutive_ranks_on_a_node),
        cmocka_unit_test(cyclic_deals_one_rank_per_node_per_round),
        cmocka_unit_test(cyclic_keeps_uneven_counts),
        cmocka_unit_test(two_level_forms_number_by_their_node_level),
        cmocka_unit_test(plane_deals_blocks_of_its_size),
        cmocka_unit_test(plane_counts_follow_the_blocks_when_uneven),
        cmocka_unit_test(plane_counts_respect_room_then_oversubscribe),
        cmocka_unit_test(arbitrary_follows_the_map),
        cmocka_unit_test(refuses_empty_nodes_and_zero_plane),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
