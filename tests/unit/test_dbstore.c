/* SPDX-License-Identifier: Apache-2.0
 *
 * test_dbstore.c - the storage layer of droverdbd (db, schema, jobs_store)
 *
 * `test_dbstore sqlite` runs every case on a fresh SQLite file per test;
 * `test_dbstore pgsql` runs the same cases on the PostgreSQL server named
 * by DROVER_TEST_PG_HOST/_PORT/_USER/_DB (tests/pg_private.sh run starts
 * a private one), each test in a fresh schema-less state (tables dropped).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "dbd/db.h"
#include "dbd/jobs_store.h"
#include "dbd/schema.h"
#include "dbtest.h"

#define INJECTION "'; DROP TABLE job; --"
#define UNICODE_COMMENT "say \"hi\" it's \xc3\xbcn\xc3\xaf \xe2\x9c\x93 ?"

static json_t *job(int id, int uid, const char *name, const char *comment)
{
    return json_pack(
        "{s:i s:i s:i s:i s:i s:s s:i s:s s:s s:s s:s s:b s:s"
        " s:[{s:I s:s s:i} {s:i s:s s:i}]}",
        "job_id", id, "submit_time", 1000 + id, "eligible_time", 1000 + id,
        "start_time", 1100 + id, "end_time", 1200 + id, "name", name, "uid",
        uid, "user", "u", "state", "COMPLETED", "comment", comment,
        "account", "acct", "req_mem_per_cpu", 1, "alloc_tres", "cpu=1",
        "steps", "step_id", (json_int_t)4294967291LL, "name", "batch",
        "exit_status", 0, "step_id", 0, "name", "srun", "exit_status", 256);
}

static json_t *send_body(json_t *jobs_array)
{
    json_t *events = json_array(), *j;
    size_t i;

    json_array_foreach(jobs_array, i, j)
        json_array_append_new(events, json_pack("{s:I s:O}", "seq",
                                                (json_int_t)i + 1, "job", j));
    json_decref(jobs_array);
    return json_pack("{s:s s:o}", "cluster", "c1", "events", events);
}

static json_t *query(db_t *db, const char *filter_text, int64_t only_uid)
{
    json_t *filter = json_loads(filter_text, 0, NULL);
    drv_error_t error = {{0}};
    json_t *jobs = jobs_store_query(db, filter, only_uid, &error);

    if (!jobs)
        print_error("query %s: %s\n", filter_text, error.text);
    json_decref(filter);
    return jobs;
}

static void schema_is_at_latest_and_migrating_again_is_a_no_op(void **state)
{
    drv_error_t error = {{0}};
    int64_t rows;
    int v = 0;

    assert_int_equal(schema_migrate(*state, &v, &error), 0);
    assert_int_equal(v, schema_latest());
    assert_int_equal(db_query_int(*state, "SELECT COUNT(*) FROM "
                                  "schema_version", NULL, 0, &rows, &error),
                     0);
    assert_int_equal(rows, schema_latest());
}

static void strings_come_back_unchanged(void **state)
{
    drv_error_t error = {{0}};
    int64_t acked = 0;
    json_t *body = send_body(json_pack("[o]", job(7, 100, INJECTION,
                                                  UNICODE_COMMENT)));
    json_t *jobs, *j, *steps;

    assert_int_equal(jobs_store_send(*state, body, &acked, &error), 0);
    assert_int_equal(acked, 1);
    assert_non_null(jobs = query(*state, "{}", -1));
    assert_int_equal(json_array_size(jobs), 1);
    j = json_array_get(jobs, 0);
    assert_string_equal(json_string_value(json_object_get(j, "name")),
                        INJECTION);
    assert_string_equal(json_string_value(json_object_get(j, "comment")),
                        UNICODE_COMMENT);
    assert_string_equal(json_string_value(json_object_get(j, "cluster")),
                        "c1");
    assert_true(json_is_true(json_object_get(j, "req_mem_per_cpu")));
    assert_int_equal(json_integer_value(json_object_get(j, "array_task_id")),
                     -1);
    assert_null(json_object_get(j, "cancelled_by"));
    steps = json_object_get(j, "steps");
    assert_int_equal(json_array_size(steps), 2);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(steps, 0), "name")), "batch");
    assert_int_equal(json_integer_value(json_object_get(
                         json_array_get(steps, 1), "exit_status")), 256);
    json_decref(jobs);
    json_decref(body);
}

static void a_record_sent_twice_is_stored_once(void **state)
{
    drv_error_t error = {{0}};
    int64_t acked = 0;
    json_t *body = send_body(json_pack("[o o]", job(8, 1, "a", ""),
                                       job(8, 1, "b", "")));
    json_t *jobs;

    assert_int_equal(jobs_store_send(*state, body, &acked, &error), 0);
    assert_int_equal(jobs_store_send(*state, body, &acked, &error), 0);
    assert_int_equal(acked, 2);
    assert_non_null(jobs = query(*state, "{}", -1));
    assert_int_equal(json_array_size(jobs), 1);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(jobs, 0), "name")), "b");
    assert_int_equal(json_array_size(json_object_get(json_array_get(jobs, 0),
                                                     "steps")), 2);
    json_decref(jobs);
    json_decref(body);
}

/* A requeued job's runs are records of their own (keyed by submit time):
 * a query returns the newest unless asked for "duplicates" (sacct -D), and
 * the other jobs around them are untouched. */
static void requeued_runs_are_records_of_their_own(void **state)
{
    drv_error_t error = {{0}};
    int64_t acked = 0;
    json_t *first = job(9, 1, "run1", ""), *second = job(9, 1, "run2", "");
    json_t *body, *jobs;

    json_object_set_new(first, "state", json_string("PREEMPTED"));
    json_object_set_new(second, "submit_time", json_integer(5000));
    body = send_body(json_pack("[o o o o]", job(8, 1, "a", ""), first, second,
                               job(10, 1, "c", "")));
    assert_int_equal(jobs_store_send(*state, body, &acked, &error), 0);
    assert_non_null(jobs = query(*state, "{}", -1));
    assert_int_equal(json_array_size(jobs), 3);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(jobs, 1), "name")), "run2");
    assert_int_equal(json_array_size(json_object_get(json_array_get(jobs, 1),
                                                     "steps")), 2);
    json_decref(jobs);
    assert_non_null(jobs = query(*state, "{\"duplicates\":true}", -1));
    assert_int_equal(json_array_size(jobs), 4);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(jobs, 1), "state")), "PREEMPTED");
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(jobs, 2), "name")), "run2");
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(jobs, 3), "name")), "c");
    json_decref(jobs);
    json_decref(body);
}

static void a_bad_event_rolls_back_the_whole_batch(void **state)
{
    drv_error_t error = {{0}};
    int64_t acked = 0;
    json_t *bad = job(10, 1, "x", "");
    json_t *body, *jobs;

    json_object_set_new(bad, "uid", json_string("root"));
    body = send_body(json_pack("[o o]", job(9, 1, "ok", ""), bad));
    errno = 0;
    assert_int_equal(jobs_store_send(*state, body, &acked, &error), -1);
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(error.text, "\"uid\""));
    assert_non_null(jobs = query(*state, "{}", -1));
    assert_int_equal(json_array_size(jobs), 0);
    json_decref(jobs);
    json_decref(body);
}

static void filters_and_privacy_select_jobs(void **state)
{
    drv_error_t error = {{0}};
    int64_t acked;
    json_t *body = send_body(json_pack("[o o o]", job(11, 1, "a", ""),
                                       job(12, 2, "b", ""),
                                       job(13, 1, "c", "")));
    json_t *jobs;

    assert_int_equal(jobs_store_send(*state, body, &acked, &error), 0);
    assert_non_null(jobs = query(*state, "{}", 1));
    assert_int_equal(json_array_size(jobs), 2);
    json_decref(jobs);
    assert_non_null(jobs = query(*state, "{\"user_ids\":[2]}", 1));
    assert_int_equal(json_array_size(jobs), 0);
    json_decref(jobs);
    assert_non_null(jobs = query(*state, "{\"names\":[\"b\",\"c\"]}", -1));
    assert_int_equal(json_array_size(jobs), 2);
    json_decref(jobs);
    assert_non_null(jobs = query(*state, "{\"start\":1212,\"end\":1300}",
                                 -1));
    assert_int_equal(json_array_size(jobs), 2); /* 12, 13 end >= 1212 */
    json_decref(jobs);
    assert_non_null(jobs = query(*state, "{\"cluster\":\"other\"}", -1));
    assert_int_equal(json_array_size(jobs), 0);
    json_decref(jobs);
    json_decref(body);
}

static json_t *placed(int id, const char *nodes, int nnodes, int ncpus,
                      const char *qos, int limit_min)
{
    json_t *j = job(id, 1, "p", "");

    json_object_set_new(j, "nodes", json_string(nodes));
    json_object_set_new(j, "nnodes", json_integer(nnodes));
    json_object_set_new(j, "ncpus", json_integer(ncpus));
    json_object_set_new(j, "qos", json_string(qos));
    json_object_set_new(j, "gid", json_integer(id * 10));
    json_object_set_new(j, "time_limit_min", json_integer(limit_min));
    return j;
}

/* The job ids a filter selects, as "21,23". */
static void expect_ids(void **state, const char *filter, const char *want)
{
    json_t *jobs = query(*state, filter, -1), *j;
    char got[64] = "";
    size_t i;

    assert_non_null(jobs);
    json_array_foreach(jobs, i, j)
        snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%lld",
                 i ? "," : "",
                 (long long)json_integer_value(json_object_get(j, "job_id")));
    if (strcmp(got, want))
        print_error("filter %s: got %s, want %s\n", filter, got, want);
    assert_string_equal(got, want);
    json_decref(jobs);
}

/* sacct -N -q -g -i -I -k/-K -x as filter keys (issue 13). */
static void placement_filters_select_jobs(void **state)
{
    drv_error_t error = {{0}};
    int64_t acked;
    json_t *body = send_body(json_pack(
        "[o o o]", placed(21, "n[01-02]", 2, 8, "high", 60),
        placed(22, "n03", 1, 1, "normal", 10),
        placed(23, "n02,m1", 2, 4, "normal", -1)));

    assert_int_equal(jobs_store_send(*state, body, &acked, &error), 0);
    expect_ids(state, "{\"nodes\":\"n02\"}", "21,23");
    expect_ids(state, "{\"nodes\":\"n[03-04],x\"}", "22");
    expect_ids(state, "{\"nodes\":\"zz\"}", "");
    expect_ids(state, "{\"qos\":[\"high\"]}", "21");
    expect_ids(state, "{\"group_ids\":[220,230]}", "22,23");
    expect_ids(state, "{\"nnodes\":[2,2]}", "21,23");
    expect_ids(state, "{\"ncpus\":[2,8]}", "21,23");
    expect_ids(state, "{\"time_limit_min\":[10,60]}", "21,22");
    expect_ids(state, "{\"time_limit_min\":[-1,-1]}", "23");
    expect_ids(state, "{\"assoc_ids\":[424242]}", "");
    errno = 0;
    assert_null(query(*state, "{\"nnodes\":[1]}", -1));
    assert_int_equal(errno, EINVAL);
    assert_null(query(*state, "{\"nodes\":\"n[\"}", -1));
    json_decref(body);
}

/* sacct -T: times outside the window come back as its edges. */
static void truncate_cuts_times_to_the_window(void **state)
{
    drv_error_t error = {{0}};
    int64_t acked;
    json_t *body = send_body(json_pack("[o]", job(31, 1, "t", "")));
    json_t *jobs, *j, *step;

    /* start 1131, end 1231; the window [1150, 1200] */
    assert_int_equal(jobs_store_send(*state, body, &acked, &error), 0);
    assert_non_null(jobs = query(*state, "{\"truncate\":true,"
                                 "\"start\":1150,\"end\":1200}", -1));
    j = json_array_get(jobs, 0);
    assert_int_equal(json_integer_value(json_object_get(j, "start_time")),
                     1150);
    assert_int_equal(json_integer_value(json_object_get(j, "end_time")),
                     1200);
    step = json_array_get(json_object_get(j, "steps"), 0);
    assert_int_equal(json_integer_value(json_object_get(step, "start_time")),
                     0); /* never started: left alone */
    json_decref(jobs);
    assert_non_null(jobs = query(*state, "{\"start\":1150,\"end\":1200}",
                                 -1));
    assert_int_equal(json_integer_value(json_object_get(
                         json_array_get(jobs, 0), "start_time")), 1131);
    json_decref(jobs);
    json_decref(body);
}

static void a_malformed_filter_is_einval(void **state)
{
    json_t *filter = json_pack("{s:s}", "states", "RUNNING");
    drv_error_t error = {{0}};

    errno = 0;
    assert_null(jobs_store_query(*state, filter, -1, &error));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(error.text, "states"));
    json_decref(filter);
}

static int text_row(const struct db_row *row, void *arg)
{
    snprintf(arg, 64, "%s|%s", db_row_text(row, 0), db_row_text(row, 1));
    return 0;
}

static void question_marks_in_quotes_are_not_parameters(void **state)
{
    struct db_param p[] = {DB_TEXT("it's")};
    drv_error_t error = {{0}};
    char out[64] = "";

    assert_int_equal(db_query(*state, "SELECT 'a?b', ?", p, 1, text_row, out,
                              &error), 0);
    assert_string_equal(out, "a?b|it's");
    errno = 0;
    assert_int_equal(db_exec(*state, "SELECT ?, ?", p, 1, &error), -1);
    assert_int_equal(errno, EINVAL);
}

static void a_database_error_says_why(void **state)
{
    drv_error_t error = {{0}};

    errno = 0;
    assert_int_equal(db_exec(*state, "SELECT nosuchcolumn FROM job", NULL, 0,
                             &error), -1);
    assert_int_equal(errno, EIO);
    assert_non_null(strstr(error.text, "nosuchcolumn"));
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, dbtest_setup, dbtest_teardown)
        T(schema_is_at_latest_and_migrating_again_is_a_no_op),
        T(strings_come_back_unchanged),
        T(a_record_sent_twice_is_stored_once),
        T(requeued_runs_are_records_of_their_own),
        T(a_bad_event_rolls_back_the_whole_batch),
        T(filters_and_privacy_select_jobs),
        T(placement_filters_select_jobs),
        T(truncate_cuts_times_to_the_window),
        T(a_malformed_filter_is_einval),
        T(question_marks_in_quotes_are_not_parameters),
        T(a_database_error_says_why),
#undef T
    };

    return dbtest_main(argc, argv, tests, sizeof(tests) / sizeof(*tests),
                       NULL, NULL);
}
