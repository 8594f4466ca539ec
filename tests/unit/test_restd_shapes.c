/* SPDX-License-Identifier: Apache-2.0
 *
 * test_restd_shapes.c - droverrestd's v0.0.39/v0.0.40 records (shapes.c,
 * shapes_db.c) and the version a path asks for (api.c)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>

#include "restd/api.h"

/* o[key] is {"set":set,"infinite":inf,"number":n}. */
static void assert_no_val(const json_t *o, const char *key, int set, int inf,
                          json_int_t n)
{
    const json_t *v = json_object_get(o, key);

    assert_true(json_is_object(v));
    assert_int_equal(json_is_true(json_object_get(v, "set")), set);
    assert_int_equal(json_is_true(json_object_get(v, "infinite")), inf);
    assert_int_equal(json_integer_value(json_object_get(v, "number")), n);
}

static void test_versions(void **state)
{
    (void)state;
    assert_int_equal(rest_api_of("/slurm/v0.0.39/jobs")->minor, 39);
    assert_int_equal(rest_api_of("/slurmdb/v0.0.40/job/3")->minor, 40);
    assert_int_equal(rest_api_of("/slurm/v0.0.38/jobs")->minor, 38);
    assert_int_equal(rest_api_of("/slurm/v0.0.399/jobs")->minor, 38);
    assert_int_equal(rest_api_of("/drover/v1/jobs")->minor, 38);
    assert_int_equal(rest_api_of(NULL)->minor, 38);
}

static void test_job(void **state)
{
    json_t *rec = json_pack("{s:i s:s s:s s:i s:i s:i}", "job_id", 7,
                            "job_state", "COMPLETED", "name", "x",
                            "time_limit_s", 600, "exit_status", 9,
                            "submit_time", 1000);
    json_t *unl = json_pack("{s:i s:s s:i}", "job_id", 8, "job_state",
                            "PENDING", "time_limit_s", -1);
    json_t *j39 = shape_job_v39(rec), *j40 = shape_job_v40(rec);
    json_t *u40 = shape_job_v40(unl);

    (void)state;
    assert_no_val(j39, "time_limit", 1, 0, 10);
    assert_string_equal(json_string_value(json_object_get(j39, "job_state")),
                        "COMPLETED");
    assert_true(json_is_integer(json_object_get(j39, "submit_time")));
    assert_no_val(j40, "time_limit", 1, 0, 10);
    assert_no_val(j40, "submit_time", 1, 0, 1000);
    assert_string_equal(json_string_value(json_array_get(
                            json_object_get(j40, "job_state"), 0)),
                        "COMPLETED");
    assert_string_equal(
        json_string_value(json_array_get(
            json_object_get(json_object_get(j40, "exit_code"), "status"), 0)),
        "SIGNALED");
    assert_string_equal(json_string_value(json_object_get(json_object_get(
                            json_object_get(j40, "exit_code"), "signal"),
                                                          "name")),
                        "SIGKILL");
    assert_no_val(u40, "time_limit", 1, 1, 0);
    json_decref(rec), json_decref(unl);
    json_decref(j39), json_decref(j40), json_decref(u40);
}

/* An accounting job's exit codes in v0.0.40's verbose form, from the
 * record's wait statuses (v0.0.38's shape says SUCCESS for any exit, as
 * Slurm 22.05): the signal named as the controller's jobs get it, an
 * exit code kept. */
static void test_db_job_exit(void **state)
{
    json_t *o = json_pack(
        "{s:{s:s s:n s:{s:i s:s}} s:{s:s s:i} s:{s:i}}", "exit_code",
        "status", "SIGNALED", "return_code", "signal", "signal_id", 9,
        "name", "Killed", "derived_exit_code", "status", "SUCCESS",
        "return_code", 0, "time", "limit", 10);
    json_t *rec = json_pack("{s:i s:i}", "exit_status", 9,
                            "derived_exit_status", 3 << 8);
    json_t *e;

    (void)state;
    shape_db_job(o, rec, 40);
    e = json_object_get(o, "exit_code");
    assert_string_equal(json_string_value(json_array_get(
                            json_object_get(e, "status"), 0)),
                        "SIGNALED");
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(e, "signal"), "name")),
                        "SIGKILL");
    assert_no_val(json_object_get(e, "signal"), "id", 1, 0, 9);
    e = json_object_get(o, "derived_exit_code");
    assert_string_equal(json_string_value(json_array_get(
                            json_object_get(e, "status"), 0)),
                        "ERROR");
    assert_no_val(e, "return_code", 1, 0, 3);
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(e, "signal"), "name")),
                        "");
    json_decref(o);
    json_decref(rec);
}

static void test_node_partition(void **state)
{
    json_t *node = json_pack("{s:s s:s s:b s:i s:s}", "name", "n1", "state",
                             "IDLE", "drain", 1, "cpus", 4, "features",
                             "a,b");
    json_t *part = json_pack("{s:s s:I s:I s:s}", "name", "debug",
                             "max_time_s", (json_int_t)-1,
                             "default_time_s", (json_int_t)3600,
                             "state", "UP");
    json_t *n39 = shape_node_v39(node), *n40 = shape_node_v40(node);
    json_t *p39 = shape_partition_v39(part), *p40 = shape_partition_v40(part);

    (void)state;
    assert_int_equal(json_array_size(json_object_get(n39, "state")), 2);
    assert_string_equal(json_string_value(json_array_get(
                            json_object_get(n39, "state"), 1)), "DRAIN");
    assert_int_equal(json_array_size(json_object_get(n39, "features")), 2);
    assert_null(json_object_get(n39, "state_flags"));
    assert_no_val(n40, "boot_time", 1, 0, 0);
    assert_non_null(p39);
    assert_no_val(json_object_get(p39, "maximums"), "time", 1, 1, 0);
    assert_no_val(json_object_get(p39, "defaults"), "time", 1, 0, 60);
    assert_string_equal(json_string_value(json_array_get(json_object_get(
                            json_object_get(p40, "partition"), "state"), 0)),
                        "UP");
    json_decref(node), json_decref(part), json_decref(n39);
    json_decref(n40), json_decref(p39), json_decref(p40);
}

static void test_no_val_read(void **state)
{
    json_int_t n;
    int inf;
    json_t *v = json_pack("{s:b s:b s:i}", "set", 1, "infinite", 0,
                          "number", 5);
    json_t *i = json_pack("{s:b s:b}", "set", 1, "infinite", 1);
    json_t *u = json_pack("{s:b}", "set", 0), *bad = json_string("5");

    (void)state;
    assert_int_equal(shape_no_val_read(v, &n, &inf), 1);
    assert_int_equal(n, 5);
    assert_int_equal(inf, 0);
    assert_int_equal(shape_no_val_read(i, &n, &inf), 1);
    assert_int_equal(inf, 1);
    assert_int_equal(shape_no_val_read(u, &n, &inf), 0);
    assert_int_equal(shape_no_val_read(bad, &n, &inf), -1);
    json_decref(v), json_decref(i), json_decref(u), json_decref(bad);
}

/* A v0.0.38 QOS (slurmdb_v38.c's shape) with MaxJobsPerUser=3 and no
 * GrpJobs, and droverdbd's MaxSubmitJobsPerUser=5. */
static void test_db_qos(void **state)
{
    json_t *rec = json_pack("{s:I}", "max_submit_jobs_per_user",
                            (json_int_t)5);
    json_t *v38 = json_pack(
        "{s:s s:i s:{s:i s:{s:{s:n} s:{s:{s:i}} s:{s:{s:[] s:[{s:s s:s s:i}]}}"
        " s:{s:{s:n}}}} s:{s:n} s:f s:n}",
        "name", "gpu4", "priority", 7, "limits", "grace_time", 0, "max",
        "active_jobs", "count", "jobs", "per", "user", 3, "tres", "per",
        "job", "user", "type", "gres", "name", "gpu", "count", 4,
        "wall_clock", "per", "job", "preempt", "exempt_time",
        "usage_factor", 2.0, "usage_threshold");
    const struct rest_api *v39 = rest_api_of("/slurmdb/v0.0.39/qos");
    const struct rest_api *v40 = rest_api_of("/slurmdb/v0.0.40/qos");
    json_t *o = rest_api_db_entity(v39, json_deep_copy(v38), rec,
                                   REST_DB_QOS);

    (void)state;
    assert_no_val(shape_get(o, "limits.max.jobs.active_jobs.per"), "user",
                  1, 0, 3);
    assert_no_val(shape_get(o, "limits.max.jobs.per"), "user", 1, 0, 5);
    assert_no_val(shape_get(o, "limits.max.active_jobs"), "count", 1, 1, 0);
    assert_no_val(shape_get(o, "limits.max.wall_clock.per"), "job", 1, 1, 0);
    assert_no_val(shape_get(o, "limits.max.jobs.per"), "account", 0, 0, 0);
    assert_no_val(o, "usage_threshold", 0, 0, 0);
    assert_int_equal(
        json_array_size(shape_get(o, "limits.max.tres.per.user")), 1);
    assert_true(json_is_array(shape_get(o, "limits.max.tres.total")));
    assert_int_equal(json_integer_value(json_object_get(o, "priority")), 7);
    assert_string_equal(json_string_value(json_object_get(o, "name")),
                        "gpu4");
    json_decref(o);
    o = rest_api_db_entity(v40, json_deep_copy(v38), rec, REST_DB_QOS);
    assert_no_val(o, "priority", 1, 0, 7);
    json_decref(o);
    /* v0.0.38 is left as it is. */
    o = rest_api_db_entity(rest_api_of("/slurmdb/v0.0.38/qos"),
                           json_incref(v38), rec, REST_DB_QOS);
    assert_ptr_equal(o, v38);
    json_decref(o), json_decref(v38), json_decref(rec);
}

/* An association's v0.0.38 limits at v0.0.39's paths; a user's level as
 * an array. */
static void test_db_assoc_user(void **state)
{
    json_t *v38 = json_pack(
        "{s:s s:{s:{s:{s:i s:n s:i}} s:{s:{s:i s:n}} s:{s:[] s:{s:[]}}}"
        " s:n}",
        "account", "physics", "max", "jobs", "per", "count", 2, "submitted",
        "wall_clock", 30, "per", "account", "jobs", 4, "submitted", "tres",
        "total", "per", "job", "priority");
    json_t *user = json_pack("{s:s s:s}", "name", "root",
                             "administrator_level", "Administrator");
    const struct rest_api *v40 = rest_api_of("/slurmdb/v0.0.40/users");
    json_t *o = shape_db_entity(v38, NULL, REST_DB_ASSOC, 39);
    const json_t *jobs = shape_get(o, "max.jobs");

    (void)state;
    assert_no_val(jobs, "active", 1, 0, 2);
    assert_no_val(jobs, "total", 1, 1, 0);
    assert_no_val(json_object_get(jobs, "per"), "count", 1, 0, 4);
    assert_no_val(json_object_get(jobs, "per"), "submitted", 1, 1, 0);
    assert_no_val(json_object_get(jobs, "per"), "wall_clock", 1, 0, 30);
    assert_null(shape_get(o, "max.per.account.jobs"));
    assert_no_val(o, "priority", 0, 0, 0);
    assert_null(json_object_get(o, "comment"));
    json_decref(o);
    o = rest_api_db_entity(v40, user, NULL, REST_DB_USER);
    assert_string_equal(json_string_value(json_array_get(
                            json_object_get(o, "administrator_level"), 0)),
                        "Administrator");
    assert_true(json_is_array(json_object_get(o, "wckeys")));
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_job),
        cmocka_unit_test(test_db_job_exit),
        cmocka_unit_test(test_node_partition),
        cmocka_unit_test(test_no_val_read),
        cmocka_unit_test(test_db_qos),
        cmocka_unit_test(test_db_assoc_user),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
