/* SPDX-License-Identifier: Apache-2.0
 *
 * test_mailtype.c - --mail-type words and the subjects of job mail, against
 * what a real slurmctld 22.05.8 passed to MailProg
 * (tests/e2e/data/mail_reference.txt)
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "common/mailtype.h"

static void parses_lists_and_all(void **state)
{
    uint32_t b = 77;

    (void)state;
    assert_int_equal(mailtype_parse("END,FAIL", &b), 0);
    assert_int_equal(b, MAIL_END | MAIL_FAIL);
    assert_int_equal(mailtype_parse("begin,time_limit_90", &b), 0);
    assert_int_equal(b, 33); /* Slurm logs "setting mail_type to 33" */
    assert_int_equal(mailtype_parse("NONE", &b), 0);
    assert_int_equal(b, 0);
    assert_int_equal(mailtype_parse("ALL", &b), 0);
    assert_int_equal(b, MAIL_ALL);
    b = 5;
    assert_int_equal(mailtype_parse("END,bogus", &b), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(b, 5);
    assert_int_equal(mailtype_parse("", &b), -1);
    assert_int_equal(mailtype_parse("END,", &b), -1);
    assert_int_equal(mailtype_parse("TIME_LIMIT_5", &b), -1);
}

static void prints_in_slurm_order(void **state)
{
    char buf[160];
    uint32_t b;

    (void)state;
    assert_string_equal(mailtype_string(MAIL_ALL, buf, sizeof(buf)),
                        "INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT");
    assert_int_equal(mailtype_parse("ARRAY_TASKS,TIME_LIMIT,ALL,TIME_LIMIT_50",
                                    &b), 0);
    assert_string_equal(mailtype_string(b, buf, sizeof(buf)),
                        "ARRAY_TASKS,INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,"
                        "STAGE_OUT,TIME_LIMIT_50,TIME_LIMIT");
    assert_int_equal(mailtype_parse("TIME_LIMIT,TIME_LIMIT_50,TIME_LIMIT_80,"
                                    "TIME_LIMIT_90,END,FAIL", &b), 0);
    assert_string_equal(mailtype_string(b, buf, sizeof(buf)),
                        "END,FAIL,TIME_LIMIT_50,TIME_LIMIT_80,TIME_LIMIT_90,"
                        "TIME_LIMIT");
    assert_string_equal(mailtype_string(0, buf, sizeof(buf)), "NONE");
    assert_string_equal(mailtype_string(MAIL_BEGIN | MAIL_TIME90, buf, 8),
                        "BEGIN,T");
}

static const char *subj(const struct mail_subject *m)
{
    static char buf[256];

    return mail_subject_write(m, buf, sizeof(buf));
}

static void job_subjects(void **state)
{
    struct mail_subject m = {.type = MAIL_BEGIN, .job_id = 1,
                             .name = "allok", .secs = 1};

    (void)state;
    assert_string_equal(subj(&m),
                        "Slurm Job_id=1 Name=allok Began, Queued time 00:00:01");
    m.type = MAIL_END, m.secs = 2, m.state = "COMPLETED", m.exit_status = 0;
    assert_string_equal(subj(&m), "Slurm Job_id=1 Name=allok Ended, "
                        "Run time 00:00:02, COMPLETED, ExitCode 0");
    m.type = MAIL_FAIL, m.secs = 0, m.state = "FAILED", m.exit_status = 3 << 8;
    assert_string_equal(subj(&m), "Slurm Job_id=1 Name=allok Failed, "
                        "Run time 00:00:00, FAILED, ExitCode 3");
    m.exit_status = 9; /* killed by SIGKILL: no ExitCode */
    assert_string_equal(subj(&m), "Slurm Job_id=1 Name=allok Failed, "
                        "Run time 00:00:00, FAILED");
    m.type = MAIL_FAIL, m.secs = 77, m.state = "TIMEOUT", m.exit_status = 0;
    assert_string_equal(subj(&m), "Slurm Job_id=1 Name=allok Failed, "
                        "Run time 00:01:17, TIMEOUT, ExitCode 0");
    m.type = MAIL_REQUEUE, m.secs = 4;
    assert_string_equal(subj(&m),
                        "Slurm Job_id=1 Name=allok Requeued, Run time 00:00:04");
    m.type = MAIL_TIME50, m.secs = 47;
    assert_string_equal(subj(&m), "Slurm Job_id=1 Name=allok Reached 50% of "
                        "time limit, Run time 00:00:47");
    m.type = MAIL_TIME100, m.secs = 90061;
    assert_string_equal(subj(&m), "Slurm Job_id=1 Name=allok Reached time "
                        "limit, Run time 1-01:01:01");
    m.type = MAIL_INVALID_DEPEND;
    assert_string_equal(subj(&m), "Slurm Job_id=1 Name=allok Invalid dependency");
}

static void array_subjects(void **state)
{
    struct mail_subject m = {.type = MAIL_BEGIN, .job_id = 14, .name = "arrt",
                             .array_task = true, .array_job_id = 6,
                             .array_task_id = 0, .secs = 1};

    (void)state;
    assert_string_equal(subj(&m), "Slurm Array Task Job_id=6_0 (14) Name=arrt "
                        "Began, Queued time 00:00:01");
    m.type = MAIL_FAIL, m.state = "FAILED", m.exit_status = 1 << 8;
    assert_string_equal(subj(&m), "Slurm Array Task Job_id=6_0 (14) Name=arrt "
                        "Failed, Run time 00:00:01, FAILED, ExitCode 1");
    m = (struct mail_subject){.type = MAIL_BEGIN, .job_id = 5, .name = "arr",
                              .array_summary = true, .array_job_id = 5,
                              .secs = -1};
    assert_string_equal(subj(&m), "Slurm Array Summary Job_id=5_* (5) "
                        "Name=arr Began");
    m.type = MAIL_FAIL, m.state = "Mixed", m.exit_min = 0, m.exit_max = 2 << 8;
    assert_string_equal(subj(&m), "Slurm Array Summary Job_id=5_* (5) "
                        "Name=arr Failed, Mixed, ExitCode [0-2]");
    m.type = MAIL_END, m.state = "COMPLETED", m.exit_max = 0;
    assert_string_equal(subj(&m), "Slurm Array Summary Job_id=5_* (5) "
                        "Name=arr Ended, COMPLETED, ExitCode [0-0]");
    m.state = "Mixed", m.max_signal = 9;
    assert_string_equal(subj(&m), "Slurm Array Summary Job_id=5_* (5) "
                        "Name=arr Ended, Mixed, MaxSignal [9]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_lists_and_all),
        cmocka_unit_test(prints_in_slurm_order),
        cmocka_unit_test(job_subjects),
        cmocka_unit_test(array_subjects),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
