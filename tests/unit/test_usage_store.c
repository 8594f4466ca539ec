/* SPDX-License-Identifier: Apache-2.0
 *
 * test_usage_store.c - usage rollups and reports (src/dbd/usage_*.c)
 *
 * Constructed jobs spanning hour, day and month boundaries go in through
 * acct_send's store; the hourly, daily and monthly sums and the reports
 * are checked against hand-computed CPU-seconds.  `test_usage_store
 * pgsql` runs the same cases on the server tests/pg_private.sh starts.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "dbd/db.h"
#include "dbd/jobs_store.h"
#include "dbd/schema.h"
#include "dbtest.h"
#include "dbd/usage_store.h"

/* Local time 2026-MM-DD HH:MI. */
static int64_t at(int mon, int day, int hour, int min)
{
    struct tm tm = {.tm_year = 126, .tm_mon = mon - 1, .tm_mday = day,
                    .tm_hour = hour, .tm_min = min, .tm_isdst = -1};
    return (int64_t)mktime(&tm);
}

static void send_job(db_t *db, int id, const char *user, const char *acct,
                     int ncpus, const char *tres, int64_t start, int64_t end)
{
    drv_error_t error = {{0}};
    int64_t acked;
    json_t *body = json_pack(
        "{s:s s:[{s:i s:{s:i s:I s:I s:I s:s s:s s:i s:i s:s}}] s:{s:i s:i "
        "s:i s:i}}",
        "cluster", "c", "events", "seq", id, "job", "job_id", id,
        "submit_time", (json_int_t)start - 10, "start_time",
        (json_int_t)start, "end_time", (json_int_t)end, "user", user,
        "account", acct, "ncpus", ncpus, "nnodes", 1, "alloc_tres", tres,
        "cluster_tres", "cpu", 10, "mem", 4096, "node", 2, "gres/gpu", 2);

    assert_int_equal(jobs_store_send(db, body, &acked, &error), 0);
    json_decref(body);
}

static int64_t one_int(db_t *db, const char *sql, struct db_param *p, size_t n)
{
    drv_error_t error = {{0}};
    int64_t v = -1;

    assert_int_equal(db_query_int(db, sql, p, n, &v, &error), 0);
    return v;
}

static int64_t user_sum(db_t *db, const char *table, const char *user,
                        int64_t t0, int64_t t1)
{
    struct db_param p[] = {DB_TEXT(user), DB_INT(t0), DB_INT(t1)};
    char sql[200];

    snprintf(sql, sizeof(sql), "SELECT COALESCE(SUM(cpu_s), 0) FROM %s WHERE "
             "user_name = ? AND t >= ? AND t < ?", table);
    return one_int(db, sql, p, 3);
}

static void hours_cb(int64_t hour, int64_t secs, void *arg)
{
    int64_t *out = arg;

    out[out[0] * 2 + 1] = hour;
    out[out[0] * 2 + 2] = secs;
    out[0]++;
}

static void a_job_is_split_at_hour_boundaries(void **state)
{
    int64_t out[16] = {0}, h = 1800000000; /* a multiple of 3600 */

    (void)state;
    usage_split_hours(h + 1800, h + 2 * 3600 + 900, hours_cb, out);
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], h);
    assert_int_equal(out[2], 1800);
    assert_int_equal(out[4], 3600);
    assert_int_equal(out[5], h + 7200);
    assert_int_equal(out[6], 900);
}

/* alice 2 CPUs Jan 31 23:30 - Feb 1 00:30 (across a day and a month);
 * bob 4 CPUs, 2G, 1 GPU Jan 15 10:00-12:00; carol 1 CPU running since
 * Feb 1 01:00, rolled at 03:20. */
static void load(db_t *db)
{
    drv_error_t error = {{0}};

    send_job(db, 1, "alice", "a", 2, "cpu=2,mem=100M,node=1",
             at(1, 31, 23, 30), at(2, 1, 0, 30));
    send_job(db, 2, "bob", "b", 4, "billing=4,cpu=4,gres/gpu=1,mem=2G,node=1",
             at(1, 15, 10, 0), at(1, 15, 12, 0));
    send_job(db, 3, "carol", "a", 1, "cpu=1,node=1", at(2, 1, 1, 0), 0);
    assert_int_equal(usage_rollup(db, (time_t)at(2, 1, 3, 20), &error), 0);
}

static void rollups_sum_hours_days_and_months(void **state)
{
    db_t *db = *state;
    struct db_param p[] = {DB_TEXT("bob")};

    load(db);
    assert_int_equal(user_sum(db, "usage_hour", "alice", 0, INT64_MAX), 7200);
    assert_int_equal(user_sum(db, "usage_day", "alice", at(1, 31, 0, 0),
                              at(2, 1, 0, 0)), 3600);
    assert_int_equal(user_sum(db, "usage_day", "alice", at(2, 1, 0, 0),
                              at(2, 2, 0, 0)), 3600);
    assert_int_equal(user_sum(db, "usage_month", "alice", at(1, 1, 0, 0),
                              at(2, 1, 0, 0)), 3600);
    assert_int_equal(user_sum(db, "usage_month", "bob", 0, INT64_MAX), 28800);
    assert_int_equal(user_sum(db, "usage_hour", "carol", 0, INT64_MAX), 8400);
    assert_int_equal(one_int(db, "SELECT SUM(gpu_s) FROM usage_month WHERE "
                                 "user_name = ?", p, 1), 7200);
    assert_int_equal(one_int(db, "SELECT SUM(mem_s) FROM usage_day WHERE "
                                 "user_name = ?", p, 1), 2048 * 7200);
}

static void rolling_up_again_changes_nothing_and_late_records_count(
    void **state)
{
    db_t *db = *state;
    drv_error_t error = {{0}};

    load(db);
    assert_int_equal(usage_rollup(db, (time_t)at(2, 1, 3, 20), &error), 0);
    assert_int_equal(user_sum(db, "usage_month", "bob", 0, INT64_MAX), 28800);
    /* bob's job record again, now ending an hour later */
    send_job(db, 2, "bob", "b", 4, "cpu=4,node=1", at(1, 15, 10, 0),
             at(1, 15, 13, 0));
    assert_int_equal(usage_rollup(db, (time_t)at(2, 1, 3, 25), &error), 0);
    assert_int_equal(user_sum(db, "usage_month", "bob", 0, INT64_MAX), 43200);
    assert_int_equal(user_sum(db, "usage_hour", "bob", 0, INT64_MAX), 43200);
}

static json_t *report(db_t *db, const char *text)
{
    drv_error_t error = {{0}};
    json_t *req = json_loads(text, 0, NULL), *r;

    assert_non_null(req);
    r = usage_report(db, req, NULL, &error);
    if (!r)
        print_error("usage_report: %s\n", error.text);
    json_decref(req);
    return r;
}

static json_int_t path_int(json_t *o, const char *a, const char *b)
{
    return json_integer_value(json_object_get(json_object_get(o, a), b));
}

static void cluster_utilization_reads_months_and_edge_hours(void **state)
{
    db_t *db = *state;
    char text[256];
    json_t *r, *c;

    load(db);
    snprintf(text, sizeof(text), "{\"report\":\"cluster_utilization\","
             "\"start\":%lld,\"end\":%lld,\"tres\":\"cpu,gres/gpu\"}",
             (long long)at(1, 1, 0, 0), (long long)at(2, 1, 3, 0));
    assert_non_null(r = report(db, text));
    c = json_array_get(json_object_get(r, "clusters"), 0);
    assert_string_equal(json_string_value(json_object_get(c, "cluster")),
                        "c");
    assert_int_equal(path_int(c, "allocated", "cpu"), 7200 + 28800 + 7200);
    assert_int_equal(path_int(c, "allocated", "gres/gpu"), 7200);
    /* capacity counts from the first hour a job record touched */
    assert_int_equal(path_int(c, "reported", "cpu"),
                     10 * (at(2, 1, 3, 0) - at(1, 15, 10, 0)));
    assert_int_equal(path_int(c, "idle", "cpu") + 43200,
                     path_int(c, "reported", "cpu"));
    assert_int_equal(path_int(c, "count", "cpu"),
                     10 * (at(2, 1, 3, 0) - at(1, 15, 10, 0))
                         / (at(2, 1, 3, 0) - at(1, 1, 0, 0)));
    assert_null(json_object_get(json_object_get(c, "allocated"), "mem"));
    json_decref(r);
}

static void topusage_sorts_by_cpu_then_name(void **state)
{
    db_t *db = *state;
    char text[256];
    json_t *r, *rows;

    load(db);
    snprintf(text, sizeof(text), "{\"report\":\"user_topusage\","
             "\"start\":%lld,\"end\":%lld}", (long long)at(1, 1, 0, 0),
             (long long)at(2, 2, 0, 0));
    assert_non_null(r = report(db, text));
    rows = json_object_get(json_array_get(json_object_get(r, "clusters"), 0),
                           "rows");
    assert_int_equal(json_array_size(rows), 3);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(rows, 0), "user")), "bob");
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(rows, 1), "user")), "carol");
    assert_int_equal(path_int(json_array_get(rows, 1), "used", "cpu"), 8400);
    assert_int_equal(path_int(json_array_get(rows, 2), "used", "cpu"), 7200);
    json_decref(r);
}

static void a_bad_report_request_is_einval(void **state)
{
    drv_error_t error = {{0}};
    json_t *req = json_pack("{s:s s:i s:i s:s}", "report", "cluster_utilization",
                            "start", 0, "end", 3600, "tres", "cpu,bogus");

    errno = 0;
    assert_null(usage_report(*state, req, NULL, &error));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(error.text, "bogus"));
    json_decref(req);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, dbtest_setup, dbtest_teardown)
        cmocka_unit_test(a_job_is_split_at_hour_boundaries),
        T(rollups_sum_hours_days_and_months),
        T(rolling_up_again_changes_nothing_and_late_records_count),
        T(cluster_utilization_reads_months_and_edge_hours),
        T(topusage_sorts_by_cpu_then_name),
        T(a_bad_report_request_is_einval),
#undef T
    };

    return dbtest_main(argc, argv, tests, sizeof(tests) / sizeof(*tests),
                       NULL, NULL);
}
