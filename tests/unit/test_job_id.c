/* SPDX-License-Identifier: Apache-2.0
 *
 * test_job_id.c - the next job id between FirstJobId and MaxJobId
 * (src/ctld/job_id.h): the sequence, the wrap, ids in use skipped, none
 * left.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ctld/job_id.h"

/* Ids in use: a bit per id below 64. */
static bool used_in(uint32_t id, void *arg)
{
    return id < 64 && (*(const uint64_t *)arg >> id) & 1;
}

static void sequence_runs_then_wraps(void **state)
{
    uint64_t used = 0;
    uint32_t next = 0, seen[8];

    (void)state;
    /* FirstJobId=5 MaxJobId=8: 5, 6, 7, then 5 again (8 is never one) */
    for (int i = 0; i < 6; i++) {
        seen[i] = job_id_next(next, 5, 8, used_in, &used);
        next = seen[i] + 1;
    }
    assert_int_equal(seen[0], 5);
    assert_int_equal(seen[1], 6);
    assert_int_equal(seen[2], 7);
    assert_int_equal(seen[3], 5);
    assert_int_equal(seen[4], 6);
    assert_int_equal(seen[5], 7);
    /* a sequence below FirstJobId starts at it; FirstJobId=0 is 1 */
    assert_int_equal(job_id_next(2, 5, 8, NULL, NULL), 5);
    assert_int_equal(job_id_next(0, 0, 8, NULL, NULL), 1);
    /* past MaxJobId (lowered since): back to FirstJobId */
    assert_int_equal(job_id_next(100, 5, 8, NULL, NULL), 5);
}

static void ids_in_use_are_skipped(void **state)
{
    uint64_t used = (1u << 5) | (1u << 7);

    (void)state;
    assert_int_equal(job_id_next(5, 5, 9, used_in, &used), 6);
    assert_int_equal(job_id_next(7, 5, 9, used_in, &used), 8);
    used |= 1u << 8;
    /* 7 and 8 held: wraps past MaxJobId to 5 (held), then 6 */
    assert_int_equal(job_id_next(7, 5, 9, used_in, &used), 6);
}

static void none_left(void **state)
{
    uint64_t used = (1u << 5) | (1u << 6) | (1u << 7);

    (void)state;
    assert_int_equal(job_id_next(6, 5, 8, used_in, &used), 0);
    used &= ~(uint64_t)(1u << 5);
    assert_int_equal(job_id_next(6, 5, 8, used_in, &used), 5);
    /* FirstJobId not below MaxJobId: no id at all */
    assert_int_equal(job_id_next(8, 8, 8, NULL, NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sequence_runs_then_wraps),
        cmocka_unit_test(ids_in_use_are_skipped),
        cmocka_unit_test(none_left),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
