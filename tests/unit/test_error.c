/* SPDX-License-Identifier: Apache-2.0
 *
 * test_error.c - the error table (src/common/error.h): every code outside
 * errno's range and unique, errno values keep strerror's text, exit
 * statuses as Slurm's commands give them
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/error.h"

static const int codes[] = {
#define X(name, num, msg) num,
    DRV_ERRORS(X)
#undef X
};
#define NCODES (sizeof(codes) / sizeof(codes[0]))

static void codes_are_outside_errno_and_unique(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCODES; i++) {
        /* Linux's errno values stop below 200; Slurm's start at 1000. */
        assert_true(codes[i] >= 1000);
        for (size_t j = i + 1; j < NCODES; j++)
            assert_int_not_equal(codes[i], codes[j]);
    }
}

static void errno_values_keep_their_text(void **state)
{
    (void)state;
    for (int e = 1; e < 134; e++) {
        char text[256];

        /* strerror's text of an unknown number lives until its next
         * call: copied before the second. */
        snprintf(text, sizeof(text), "%s", drv_strerror(e));
        assert_string_equal(text, strerror(e));
        assert_string_equal(drv_errname(e), "errno");
    }
    assert_string_equal(drv_strerror(EPERM), "Operation not permitted");
    assert_string_equal(drv_strerror(EDRV_ERROR), "Unspecified error");
    assert_string_equal(drv_errname(EDRV_ERROR), "EDRV_ERROR");
}

static void exit_status_is_the_low_byte_or_1(void **state)
{
    (void)state;
    assert_int_equal(drv_exit_status(EDRV_INVALID_JOB_ID), 2017 & 0xff);
    assert_int_equal(drv_exit_status(EDRV_ALREADY_DONE), 2021 & 0xff);
    assert_int_equal(drv_exit_status(EDRV_ERROR), 1);
    assert_int_equal(drv_exit_status(EDRV_PROTOCOL_MALFORMED), 1);
    assert_int_equal(drv_exit_status(7168), 1); /* low byte 0 */
    assert_int_equal(drv_exit_status(ECONNREFUSED), ECONNREFUSED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(codes_are_outside_errno_and_unique),
        cmocka_unit_test(errno_values_keep_their_text),
        cmocka_unit_test(exit_status_is_the_low_byte_or_1),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
