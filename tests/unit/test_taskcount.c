/* SPDX-License-Identifier: Apache-2.0
 *
 * test_taskcount.c - Slurm's "2(x3),1" per-node counts
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "common/taskcount.h"

static void expands_repeats_in_order(void **state)
{
    uint32_t c[8] = {0};

    (void)state;
    assert_int_equal(taskcount_decode("2(x3),1", c, 8), 4);
    assert_int_equal(c[0], 2);
    assert_int_equal(c[2], 2);
    assert_int_equal(c[3], 1);
    assert_int_equal(taskcount_decode("4", c, 8), 1);
    assert_int_equal(c[0], 4);
    assert_int_equal(taskcount_decode("1,3,1(x2)", c, 8), 4);
    assert_int_equal(c[1], 3);
    assert_int_equal(c[3], 1);
    assert_int_equal(taskcount_decode("", c, 8), 0);
}

static void refuses_malformed_and_too_many(void **state)
{
    uint32_t c[4];

    (void)state;
    assert_int_equal(taskcount_decode("2(x5)", c, 4), -1);
    assert_int_equal(taskcount_decode("1,1,1,1,1", c, 4), -1);
    assert_int_equal(taskcount_decode("x", c, 4), -1);
    assert_int_equal(taskcount_decode("2(x0)", c, 4), -1);
    assert_int_equal(taskcount_decode("2(x2", c, 4), -1);
    assert_int_equal(taskcount_decode("2,", c, 4), -1);
    assert_int_equal(taskcount_decode("-1", c, 4), -1);
    assert_int_equal(taskcount_decode("2 ", c, 4), -1);
}

static void encodes_runs(void **state)
{
    const int64_t a[] = {2, 2, 2, 1}, b[] = {4}, c[] = {1, 3, 1, 1};
    char *s;

    (void)state;
    s = taskcount_encode(a, 4);
    assert_string_equal(s, "2(x3),1");
    free(s);
    s = taskcount_encode(b, 1);
    assert_string_equal(s, "4");
    free(s);
    s = taskcount_encode(c, 4);
    assert_string_equal(s, "1,3,1(x2)");
    free(s);
    s = taskcount_encode(NULL, 0);
    assert_string_equal(s, "");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expands_repeats_in_order),
        cmocka_unit_test(encodes_runs),
        cmocka_unit_test(refuses_malformed_and_too_many),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
