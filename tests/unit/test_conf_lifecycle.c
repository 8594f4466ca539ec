/* SPDX-License-Identifier: Apache-2.0
 *
 * test_conf_lifecycle.c - the job-lifecycle keywords of slurm.conf
 * (src/conf/conf_lifecycle.c): defaults, OverTimeLimit (global and per
 * partition), RequeueExit lists, the 0/1 keywords, MaxJobId against
 * FirstJobId, and the errors that name the keyword and line.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "conf/conf.h"

#define NODES "NodeName=n1 CPUs=1\n"

static struct slurm_conf *parse_ok(const char *text)
{
    drv_error_t error = {0};
    struct slurm_conf *conf = conf_parse("slurm.conf", text, "", &error);

    if (!conf)
        fail_msg("conf_parse failed: %s", error.text);
    return conf;
}

static void parse_fails(const char *text, const char *needle)
{
    drv_error_t error = {0};
    struct slurm_conf *conf = conf_parse("slurm.conf", text, "", &error);

    if (conf) {
        conf_destroy(conf);
        fail_msg("\"%s\" was accepted", text);
    }
    assert_int_equal(errno, EINVAL);
    if (!strstr(error.text, needle))
        fail_msg("\"%s\" lacks \"%s\"", error.text, needle);
}

static void defaults_are_slurms(void **state)
{
    struct slurm_conf *c = parse_ok(NODES "PartitionName=p Nodes=ALL\n");

    (void)state;
    assert_int_equal(c->over_time_min, 0);
    assert_int_equal(c->partitions[0].over_time_min, CONF_OVERTIME_UNSET);
    assert_int_equal(conf_over_time_min(c, &c->partitions[0]), 0);
    assert_int_equal(c->job_requeue, 1);
    assert_null(c->requeue_exit);
    assert_null(c->requeue_exit_hold);
    assert_int_equal(c->kill_on_bad_exit, 0);
    assert_int_equal(c->job_file_append, 0);
    assert_int_equal(c->max_job_id, CONF_MAX_JOB_ID_DEFAULT);
    assert_int_equal(c->complete_wait_s, 0);
    conf_destroy(c);
}

static void keys_are_parsed(void **state)
{
    struct slurm_conf *c = parse_ok(
        "OverTimeLimit=5 JobRequeue=0 KillOnBadExit=1 JobFileAppend=1\n"
        "RequeueExit=1-9,18 RequeueExitHold=100\n"
        "FirstJobId=10 MaxJobId=20 CompleteWait=7\n" NODES
        "PartitionName=a Nodes=ALL OverTimeLimit=UNLIMITED\n"
        "PartitionName=b Nodes=ALL OverTimeLimit=0\n"
        "PartitionName=c Nodes=ALL\n");

    (void)state;
    assert_int_equal(c->over_time_min, 5);
    assert_int_equal(c->job_requeue, 0);
    assert_int_equal(c->kill_on_bad_exit, 1);
    assert_int_equal(c->job_file_append, 1);
    assert_string_equal(c->requeue_exit, "1-9,18");
    assert_string_equal(c->requeue_exit_hold, "100");
    assert_int_equal(c->first_job_id, 10);
    assert_int_equal(c->max_job_id, 20);
    assert_int_equal(c->complete_wait_s, 7);
    /* a partition's own value wins, 0 included; else the global one */
    assert_int_equal(conf_over_time_min(c, &c->partitions[0]),
                     CONF_OVERTIME_UNLIMITED);
    assert_int_equal(conf_over_time_min(c, &c->partitions[1]), 0);
    assert_int_equal(conf_over_time_min(c, &c->partitions[2]), 5);
    assert_int_equal(conf_over_time_min(c, NULL), 5);
    conf_destroy(c);
    c = parse_ok("OverTimeLimit=unlimited\n" NODES);
    assert_int_equal(c->over_time_min, CONF_OVERTIME_UNLIMITED);
    conf_destroy(c);
}

static void exit_code_lists(void **state)
{
    (void)state;
    assert_true(conf_exit_code_listed("1-9,18", 1));
    assert_true(conf_exit_code_listed("1-9,18", 9));
    assert_true(conf_exit_code_listed("1-9,18", 18));
    assert_false(conf_exit_code_listed("1-9,18", 10));
    assert_false(conf_exit_code_listed("1-9,18", 0));
    assert_true(conf_exit_code_listed("0,255", 255));
    assert_true(conf_exit_code_listed("3", 3));
    assert_false(conf_exit_code_listed(NULL, 3));
    assert_false(conf_exit_code_listed("3", -1));
    assert_false(conf_exit_code_listed("3", 256));
}

static void bad_values_name_key_and_line(void **state)
{
    (void)state;
    parse_fails("ClusterName=x\nOverTimeLimit=soon\n" NODES,
                "slurm.conf:2: OverTimeLimit=soon: expected minutes or "
                "UNLIMITED");
    parse_fails("OverTimeLimit=65534\n" NODES, "more than 65533 minutes");
    parse_fails(NODES "PartitionName=p Nodes=ALL OverTimeLimit=x\n",
                "slurm.conf:2: PartitionName=p: OverTimeLimit=x: expected "
                "minutes or UNLIMITED");
    parse_fails("RequeueExit=1-\n" NODES, "slurm.conf:1: RequeueExit=1-:");
    parse_fails("RequeueExit=256\n" NODES, "RequeueExit=256: expected exit "
                "codes 0-255");
    parse_fails("RequeueExitHold=9-3\n" NODES, "RequeueExitHold=9-3:");
    parse_fails("RequeueExitHold=1,,2\n" NODES, "RequeueExitHold=1,,2:");
    parse_fails("RequeueExit=a\n" NODES, "RequeueExit=a:");
    parse_fails("JobRequeue=2\n" NODES, "slurm.conf:1: JobRequeue=2: too "
                "large");
    parse_fails("KillOnBadExit=yes\n" NODES, "KillOnBadExit=yes: not a "
                "number");
    parse_fails("JobFileAppend=2\n" NODES, "JobFileAppend=2: too large");
    parse_fails("MaxJobId=67108864\n" NODES, "MaxJobId=67108864: too large");
    parse_fails("CompleteWait=65534\n" NODES, "CompleteWait=65534: too "
                "large");
    parse_fails("FirstJobId=100 MaxJobId=100\n" NODES,
                "FirstJobId=100 is not below MaxJobId=100");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_slurms),
        cmocka_unit_test(keys_are_parsed),
        cmocka_unit_test(exit_code_lists),
        cmocka_unit_test(bad_values_name_key_and_line),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
