/* SPDX-License-Identifier: Apache-2.0
 *
 * test_acct_trace.c - sacct --json output as a replay trace: the fixture
 * data/acct9.json (argv[1]) holds nine records, out of job id order:
 *   101  small, 4 CPUs, 4000 MiB, [T, T+100), limit 5 min
 *   102  no partition, 8 CPUs on 2 nodes, 8000 MiB, submitted T+10,
 *        [T+100, T+160), limit 2 min
 *   103  cancelled while pending (no start): skipped
 *   104  big, 2 CPUs, 2 GPUs, [T+40, T+70), no limit, FAILED
 *   105  no time.submission: bad
 *   "not a job": bad
 *   107  still running (no end): skipped
 *   108  ends before it starts: bad
 *   109  no CPU in required or tres.requested, 3 in tres.allocated,
 *        submitted T+60, [T+160, T+200), limit 1 min
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim/acct_trace.h"

static const char *fixture;

static void reads_kept_jobs_in_job_id_order(void **state)
{
    (void)state;
    struct swf_trace t;
    drv_error_t error = {{0}};

    assert_int_equal(acct_trace_read(fixture, &t, &error), 0);
    assert_int_equal(t.njobs, 4);
    assert_int_equal(t.skipped, 2);   /* 103 never started, 107 running */
    assert_int_equal(t.malformed, 3); /* 105, "not a job", 108 */
    assert_int_equal(t.jobs[0].id, 101);
    assert_int_equal(t.jobs[1].id, 102);
    assert_int_equal(t.jobs[2].id, 104);
    assert_int_equal(t.jobs[3].id, 109);
    assert_int_equal(t.max_procs, 8);
    swf_trace_free(&t);
}

static void times_are_relative_to_the_first_submission(void **state)
{
    (void)state;
    struct swf_trace t;

    assert_int_equal(acct_trace_read(fixture, &t, NULL), 0);
    /* submit, run (end - start), estimate (limit x 60; the run when
     * unlimited), wait (start - submit) */
    static const int64_t want[4][4] = {
        {0, 100, 300, 0}, {10, 60, 120, 90}, {30, 30, 30, 10},
        {60, 40, 60, 100},
    };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(t.jobs[i].submit, want[i][0]);
        assert_int_equal(t.jobs[i].run, want[i][1]);
        assert_int_equal(t.jobs[i].estimate, want[i][2]);
        assert_int_equal(t.jobs[i].wait, want[i][3]);
    }
    swf_trace_free(&t);
}

static void requests_carry_nodes_memory_gpus_partition(void **state)
{
    (void)state;
    struct swf_trace t;
    const struct swf_job *j;

    assert_int_equal(acct_trace_read(fixture, &t, NULL), 0);
    assert_int_equal(t.nparts, 2);
    j = &t.jobs[0]; /* 101: one node asked: any count */
    assert_int_equal(j->procs, 4);
    assert_int_equal(j->nodes, 0);
    assert_int_equal(j->mem_per_cpu_mib, 1000);
    assert_int_equal(j->gpus, 0);
    assert_true(j->part > 0);
    assert_string_equal(t.parts[j->part - 1], "small");
    assert_int_equal(j->status, 1);
    j = &t.jobs[1]; /* 102: 2 nodes, 8000 MiB over 8 CPUs, default part */
    assert_int_equal(j->procs, 8);
    assert_int_equal(j->nodes, 2);
    assert_int_equal(j->mem_per_cpu_mib, 1000);
    assert_int_equal(j->part, 0);
    j = &t.jobs[2]; /* 104 */
    assert_int_equal(j->gpus, 2);
    assert_string_equal(t.parts[j->part - 1], "big");
    assert_int_equal(j->status, 0);
    j = &t.jobs[3]; /* 109: CPUs from tres.allocated */
    assert_int_equal(j->procs, 3);
    assert_int_equal(j->mem_per_cpu_mib, 0);
    /* users numbered by first appearance in the file: bob (102) 0,
     * alice (101) 1, carol (104) 2 */
    assert_int_equal(t.jobs[0].user, 1);
    assert_int_equal(t.jobs[1].user, 0);
    assert_int_equal(t.jobs[2].user, 2);
    assert_int_equal(t.jobs[3].user, 1);
    /* their names, and the accounts (none given: "") for fair-share */
    assert_int_equal(t.nusers, 3);
    assert_string_equal(t.users[0], "bob");
    assert_string_equal(t.users[1], "alice");
    assert_string_equal(t.users[2], "carol");
    assert_int_equal(t.naccounts, 1);
    assert_string_equal(t.accounts[0], "");
    assert_int_equal(t.jobs[0].group, 0);
    swf_trace_free(&t);
}

static void bad_json_names_the_source_and_line(void **state)
{
    (void)state;
    struct swf_trace t;
    drv_error_t error = {{0}};
    static const char text[] = "{\"jobs\": [\n  {\"job_id\": 1,\n  oops]}";

    errno = 0;
    assert_int_equal(acct_trace_parse(text, sizeof(text) - 1, "acct.json",
                                      &t, &error), -1);
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(error.text, "acct.json:3:"));
    assert_int_equal(t.njobs, 0);
    assert_null(t.jobs);
}

static void a_document_without_jobs_is_refused(void **state)
{
    (void)state;
    struct swf_trace t;
    drv_error_t error = {{0}};
    static const char text[] = "{\"meta\": {}, \"jobs\": 3}";

    errno = 0;
    assert_int_equal(acct_trace_parse(text, strlen(text), "x", &t, &error),
                     -1);
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(error.text, "no \"jobs\" array"));
}

static void no_jobs_is_an_empty_trace(void **state)
{
    (void)state;
    struct swf_trace t;
    static const char text[] = "{\"errors\": [], \"jobs\": []}";

    assert_int_equal(acct_trace_parse(text, strlen(text), "x", &t, NULL), 0);
    assert_int_equal(t.njobs, 0);
    assert_int_equal(t.skipped + t.malformed, 0);
    swf_trace_free(&t);
}

static void wrong_types_are_bad_records_not_crashes(void **state)
{
    (void)state;
    struct swf_trace t;
    static const char text[] =
        "{\"jobs\": [{\"job_id\": \"7\"},"
        " {\"job_id\": 8, \"time\": {\"submission\": 100, \"start\": \"x\"}},"
        " {\"job_id\": 9, \"time\": {\"submission\": 100, \"start\": 100,"
        "  \"end\": 110}, \"required\": {\"CPUs\": 0}, \"tres\": 5},"
        " {\"job_id\": 10, \"time\": {\"submission\": 100, \"start\": 100,"
        "  \"end\": 110}, \"required\": {\"CPUs\": 2}, \"partition\": 3}]}";

    assert_int_equal(acct_trace_parse(text, strlen(text), "x", &t, NULL), 0);
    assert_int_equal(t.malformed, 3); /* 7: id a string; 8; 9: no CPUs */
    assert_int_equal(t.njobs, 1);     /* 10: a partition not a string is
                                       * no partition */
    assert_int_equal(t.jobs[0].part, 0);
    assert_int_equal(t.jobs[0].estimate, 10);
    swf_trace_free(&t);
}

static void a_missing_file_is_enoent(void **state)
{
    (void)state;
    struct swf_trace t;
    drv_error_t error = {{0}};

    errno = 0;
    assert_int_equal(acct_trace_read("/nonexistent/acct.json", &t, &error),
                     -1);
    assert_int_equal(errno, ENOENT);
    assert_non_null(strstr(error.text, "/nonexistent/acct.json"));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_kept_jobs_in_job_id_order),
        cmocka_unit_test(times_are_relative_to_the_first_submission),
        cmocka_unit_test(requests_carry_nodes_memory_gpus_partition),
        cmocka_unit_test(bad_json_names_the_source_and_line),
        cmocka_unit_test(a_document_without_jobs_is_refused),
        cmocka_unit_test(no_jobs_is_an_empty_trace),
        cmocka_unit_test(wrong_types_are_bad_records_not_crashes),
        cmocka_unit_test(a_missing_file_is_enoent),
    };

    if (argc < 2) {
        fprintf(stderr, "usage: test_acct_trace data/acct9.json\n");
        return 1;
    }
    fixture = argv[1];
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
