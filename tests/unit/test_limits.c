/* SPDX-License-Identifier: Apache-2.0
 *
 * test_limits.c - association/QOS limits (src/sched/limits.h) on
 * constructed acct_assoc_list tables
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

#include "sched/limits.h"

#define ALL (LIMITS_ENFORCE_ASSOCS | LIMITS_ENFORCE_LIMITS | LIMITS_ENFORCE_QOS)

/* The tutorial's accounting: account research (child of root, with a
 * child account 'lab'), alice in research with QOS normal,gpu4 (default
 * gpu4), bob in lab with normal only.  'qos_extra' and 'assoc_extra' are
 * JSON members merged into gpu4 and into alice's association. */
static limits_table_t *table(const char *gpu4_extra, const char *research,
                             const char *alice_extra)
{
    char text[4096];
    json_error_t jerr;
    json_t *body;
    limits_table_t *t;
    drv_error_t error = {{0}};

    snprintf(text, sizeof(text),
             "{\"version\":3,"
             "\"qos\":[{\"name\":\"normal\"},"
             "{\"name\":\"gpu4\",\"max_tres_per_user\":\"gres/gpu=4\"%s}],"
             "\"assocs\":["
             "{\"cluster\":\"c\",\"account\":\"root\",\"user\":\"\"},"
             "{\"cluster\":\"c\",\"account\":\"research\",\"user\":\"\","
             "\"parent_account\":\"root\"%s},"
             "{\"cluster\":\"c\",\"account\":\"lab\",\"user\":\"\","
             "\"parent_account\":\"research\"},"
             "{\"cluster\":\"c\",\"account\":\"research\",\"user\":\"alice\","
             "\"qos\":[\"normal\",\"gpu4\"],\"def_qos\":\"gpu4\"%s},"
             "{\"cluster\":\"c\",\"account\":\"lab\",\"user\":\"bob\","
             "\"qos\":[\"normal\"]},"
             "{\"cluster\":\"other\",\"account\":\"x\",\"user\":\"alice\"}],"
             "\"users\":[{\"name\":\"alice\",\"default_account\":\"research\"},"
             "{\"name\":\"bob\",\"default_account\":\"lab\"}]}",
             gpu4_extra, research, alice_extra);
    body = json_loads(text, 0, &jerr);
    assert_non_null(body);
    t = limits_table_parse(body, "c", &error);
    json_decref(body);
    assert_non_null(t);
    return t;
}

static struct limits_job job(const char *user, const char *account,
                             const char *qos, int64_t gpus)
{
    return (struct limits_job){
        .user = user, .account = account, .partition = "gpu", .qos = qos,
        .tres = { .v = { 1, 1000, 1, gpus } }, .time_limit_min = 60,
    };
}

static void resolve_defaults_and_errors(void **state)
{
    limits_table_t *t = table("", "", "");
    struct limits_resolved r;
    drv_error_t error = {{0}};

    (void)state;
    assert_int_equal(limits_table_version(t), 3);
    assert_int_equal(limits_resolve(t, "alice", NULL, "gpu", NULL, ALL, &r,
                                    &error), 0);
    assert_string_equal(r.account, "research");
    assert_string_equal(r.qos, "gpu4");
    assert_int_equal(limits_resolve(t, "bob", NULL, "gpu", NULL, ALL, &r,
                                    &error), 0);
    assert_string_equal(r.account, "lab");
    assert_string_equal(r.qos, "normal");
    assert_int_equal(limits_resolve(t, "alice", "nosuch", "gpu", NULL, ALL,
                                    &r, &error), -1);
    assert_int_equal(errno, EDRV_INVALID_ACCOUNT);
    assert_int_equal(limits_resolve(t, "carol", NULL, "gpu", NULL, ALL, &r,
                                    &error), -1);
    assert_int_equal(errno, EDRV_INVALID_ACCOUNT);
    assert_int_equal(limits_resolve(t, "alice", "x", "gpu", NULL, ALL, &r,
                                    &error), -1); /* other cluster */
    assert_int_equal(limits_resolve(t, "alice", NULL, "gpu", "nosuch", ALL,
                                    &r, &error), -1);
    assert_int_equal(errno, EDRV_INVALID_QOS);
    assert_int_equal(limits_resolve(t, "bob", NULL, "gpu", "gpu4", ALL, &r,
                                    &error), -1); /* not in bob's list */
    assert_int_equal(errno, EDRV_INVALID_QOS);
    /* Without enforcement of associations, anything goes as given. */
    assert_int_equal(limits_resolve(t, "carol", "any", "gpu", NULL, 0, &r,
                                    &error), 0);
    assert_string_equal(r.account, "any");
    limits_table_destroy(t);
}

/* The tutorial: a second 4-GPU job waits QOSMaxGRESPerUser while the
 * first runs, and may start once it ends; other users are not held. */
static void gpu4_second_job_waits_for_first(void **state)
{
    limits_table_t *t = table("", "", "");
    struct limits_job j = job("alice", "research", "gpu4", 4);
    struct limits_job b = job("bob", "lab", "gpu4", 4);

    (void)state;
    assert_int_equal(limits_check_start(t, &j, ALL), LIMITS_OK);
    limits_usage_add(t, &j, LIMITS_USE_RUNNING, 1);
    assert_int_equal(limits_check_start(t, &j, ALL), LIMITS_QOS_MAX_GRES_PU);
    assert_string_equal(limits_reason_string(LIMITS_QOS_MAX_GRES_PU),
                        "QOSMaxGRESPerUser");
    assert_int_equal(limits_check_start(t, &b, ALL), LIMITS_OK);
    /* a CPU-only job of alice's is not held by a GPU limit */
    j.tres.v[TRES_GPU] = 0;
    assert_int_equal(limits_check_start(t, &j, ALL), LIMITS_OK);
    limits_usage_clear(t); /* the first ended */
    j.tres.v[TRES_GPU] = 4;
    assert_int_equal(limits_check_start(t, &j, ALL), LIMITS_OK);
    /* without qos enforcement nothing is held */
    limits_usage_add(t, &j, LIMITS_USE_RUNNING, 1);
    assert_int_equal(limits_check_start(t, &j, LIMITS_ENFORCE_ASSOCS),
                     LIMITS_OK);
    /* a job of 8 GPUs can never fit: it waits (Slurm 22.05) */
    limits_usage_clear(t);
    j.tres.v[TRES_GPU] = 8;
    assert_int_equal(limits_check_start(t, &j, ALL), LIMITS_QOS_MAX_GRES_PU);
    limits_table_destroy(t);
}

/* GrpTRES of the parent account applies to jobs of its children. */
static void parent_grp_tres_applies_to_children(void **state)
{
    limits_table_t *t = table("", ",\"grp_tres\":\"cpu=4,gres/gpu=2\"", "");
    struct limits_job a = job("alice", "research", "normal", 2);
    struct limits_job b = job("bob", "lab", "normal", 1);

    (void)state;
    assert_int_equal(limits_check_start(t, &b, ALL), LIMITS_OK);
    limits_usage_add(t, &a, LIMITS_USE_RUNNING, 1);
    assert_int_equal(limits_check_start(t, &b, ALL), LIMITS_ASSOC_GRP_GRES);
    b.tres.v[TRES_GPU] = 0;
    b.tres.v[TRES_CPU] = 4;
    assert_int_equal(limits_check_start(t, &b, ALL), LIMITS_ASSOC_GRP_CPU);
    b.tres.v[TRES_CPU] = 3;
    assert_int_equal(limits_check_start(t, &b, ALL), LIMITS_OK);
    /* association limits need "limits" */
    b.tres.v[TRES_CPU] = 4;
    assert_int_equal(limits_check_start(t, &b, LIMITS_ENFORCE_ASSOCS),
                     LIMITS_OK);
    limits_table_destroy(t);
}

static void max_jobs_per_user_and_max_wall(void **state)
{
    limits_table_t *t = table(",\"max_jobs_per_user\":2,\"max_wall_min\":30",
                              "", ",\"max_jobs\":1");
    struct limits_job j = job("alice", "research", "gpu4", 0);

    (void)state;
    assert_int_equal(limits_check_start(t, &j, ALL),
                     LIMITS_QOS_MAX_WALL_PJ);
    assert_int_equal(limits_max_wall_min(t, &j, ALL), 30);
    assert_int_equal(limits_max_wall_min(t, &j, LIMITS_ENFORCE_LIMITS), -1);
    j.time_limit_min = 30;
    assert_int_equal(limits_check_start(t, &j, ALL), LIMITS_OK);
    limits_usage_add(t, &j, LIMITS_USE_RUNNING, 1);
    /* the association's MaxJobs=1 holds it before the QOS's 2 */
    assert_int_equal(limits_check_start(t, &j, ALL), LIMITS_ASSOC_MAX_JOBS);
    limits_usage_add(t, &j, LIMITS_USE_RUNNING, 1);
    assert_int_equal(limits_check_start(t, &j, ALL), LIMITS_QOS_MAX_JOBS_PU);
    assert_string_equal(limits_reason_string(LIMITS_QOS_MAX_JOBS_PU),
                        "QOSMaxJobsPerUserLimit");
    /* pending jobs do not count against running-job limits */
    limits_usage_clear(t);
    limits_usage_add(t, &j, LIMITS_USE_PENDING, 5);
    assert_int_equal(limits_check_start(t, &j, ALL), LIMITS_OK);
    /* two of them start in one pass: the second is held */
    limits_usage_add(t, &j, LIMITS_USE_START, 1);
    assert_int_equal(limits_check_start(t, &j, ALL), LIMITS_ASSOC_MAX_JOBS);
    limits_usage_add(t, &j, LIMITS_USE_START, 1);
    assert_int_equal(limits_check_start(t, &j, ALL), LIMITS_QOS_MAX_JOBS_PU);
    limits_table_destroy(t);
}

static void submit_limits(void **state)
{
    limits_table_t *t = table(",\"max_submit_jobs_per_user\":2", "",
                              ",\"max_submit_jobs\":3");
    struct limits_job j = job("alice", "research", "gpu4", 0);
    struct limits_job n = job("alice", "research", "normal", 0);
    drv_error_t error = {{0}};

    (void)state;
    assert_int_equal(limits_check_submit(t, &j, 1, ALL, &error), 0);
    assert_int_equal(limits_check_submit(t, &j, 2, ALL, &error), 0);
    assert_int_equal(limits_check_submit(t, &j, 3, ALL, &error), -1);
    limits_usage_add(t, &j, LIMITS_USE_PENDING, 1);
    limits_usage_add(t, &j, LIMITS_USE_RUNNING, 1);
    assert_int_equal(limits_check_submit(t, &j, 1, ALL, &error), -1);
    assert_int_equal(errno, EDRV_ACCOUNTING_POLICY);
    assert_int_equal(limits_check_submit(t, &n, 1, ALL, &error), 0);
    limits_usage_add(t, &n, LIMITS_USE_PENDING, 1);
    assert_int_equal(limits_check_submit(t, &n, 1, ALL, &error), -1);
    assert_int_equal(errno, EDRV_ACCOUNTING_POLICY);
    limits_table_destroy(t);
}

static void tres_strings_and_bad_input(void **state)
{
    struct limits_tres tr;
    drv_error_t error = {{0}};
    json_t *bad = json_loads("{\"version\":1,\"assocs\":[{\"account\":\"a\","
                             "\"grp_tres\":\"cpu=x\"}]}", 0, NULL);

    (void)state;
    assert_int_equal(limits_tres_parse("cpu=8,gres/gpu=4,mem=16G,node=2,"
                                       "billing=3", &tr, &error), 0);
    assert_int_equal(tr.v[TRES_CPU], 8);
    assert_int_equal(tr.v[TRES_MEM], 16384);
    assert_int_equal(tr.v[TRES_NODE], 2);
    assert_int_equal(tr.v[TRES_GPU], 4);
    assert_int_equal(limits_tres_parse("", &tr, &error), 0);
    assert_int_equal(tr.v[TRES_CPU], -1);
    assert_int_equal(limits_tres_parse("cpu", &tr, &error), -1);
    assert_null(limits_table_parse(bad, NULL, &error));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(error.text, "cpu=x"));
    assert_null(limits_table_parse(json_array_get(bad, 0), NULL, &error));
    json_decref(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(resolve_defaults_and_errors),
        cmocka_unit_test(gpu4_second_job_waits_for_first),
        cmocka_unit_test(parent_grp_tres_applies_to_children),
        cmocka_unit_test(max_jobs_per_user_and_max_wall),
        cmocka_unit_test(submit_limits),
        cmocka_unit_test(tres_strings_and_bad_input),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
