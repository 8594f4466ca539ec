/* SPDX-License-Identifier: Apache-2.0
 *
 * test_job_state.c - the one job state table of the controller and the
 * commands: Slurm's numbers, names, codes and lookups
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "proto/job_state.h"

static void slurm_numbers_and_names(void **state)
{
    (void)state;
    /* Slurm 22.05's enum job_states (slurm.h). */
    assert_int_equal(JOB_PENDING, 0);
    assert_int_equal(JOB_COMPLETED, 3);
    assert_int_equal(JOB_NODE_FAIL, 7);
    assert_int_equal(JOB_OOM, 11);
    assert_string_equal(job_state_name(JOB_OOM), "OUT_OF_MEMORY");
    assert_string_equal(job_state_code(JOB_OOM), "OOM");
    assert_string_equal(job_state_code(JOB_COMPLETING), "CG");
    assert_string_equal(job_state_name(-1), "UNKNOWN");
    assert_string_equal(job_state_code(JOB_STATE_COUNT), "?");
    /* squeue's "Valid job states include:" text. */
    assert_non_null(strstr(job_state_names_list(),
                           "PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,"));
    assert_non_null(strstr(job_state_names_list(), ",SPECIAL_EXIT,"
                                                   "STAGE_OUT,STOPPED"));
}

static void parse_and_lookup(void **state)
{
    (void)state;
    for (int s = 0; s < JOB_STATE_COUNT; s++) {
        assert_int_equal(job_state_parse(job_state_name(s)), s);
        assert_int_equal(job_state_parse(job_state_code(s)), s);
        assert_int_equal(job_state_lookup(job_state_code(s)), s);
    }
    assert_int_equal(job_state_parse("running"), -1); /* the wire: exact */
    assert_int_equal(job_state_lookup("running"), JOB_RUNNING);
    assert_int_equal(job_state_lookup("pd"), JOB_PENDING);
    assert_int_equal(job_state_lookup(NULL), -1);
    assert_int_equal(job_state_lookup("DONE"), -1);
    assert_false(job_state_is_final(JOB_RUNNING));
    assert_true(job_state_is_final(JOB_CANCELLED));
    assert_true(job_state_is_final(JOB_OOM));
    assert_false(job_state_is_final(JOB_COMPLETING));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slurm_numbers_and_names),
        cmocka_unit_test(parse_and_lookup),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
