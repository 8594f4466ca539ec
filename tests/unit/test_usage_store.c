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

/* "hourly": each hour of the window that has rows, oldest first, with
 * the window's figures for that hour alone; they add up to the totals. */
static void cluster_utilization_hour_by_hour(void **state)
{
    db_t *db = *state;
    char text[256];
    json_t *r, *c, *hours, *h;
    json_int_t alloc = 0, rep = 0, last = 0;
    size_t i;

    load(db);
    snprintf(text, sizeof(text), "{\"report\":\"cluster_utilization\","
             "\"start\":%lld,\"end\":%lld,\"tres\":\"cpu,gres/gpu\","
             "\"hourly\":true}",
             (long long)at(1, 15, 9, 0), (long long)at(1, 15, 14, 0));
    assert_non_null(r = report(db, text));
    c = json_array_get(json_object_get(r, "clusters"), 0);
    hours = json_object_get(c, "hours");
    assert_true(json_array_size(hours) >= 2);
    json_array_foreach(hours, i, h) {
        json_int_t t = json_integer_value(json_object_get(h, "start"));
        assert_true(t > last && t >= at(1, 15, 9, 0) && t < at(1, 15, 14, 0));
        assert_null(json_object_get(h, "cluster"));
        if (t == at(1, 15, 10, 0)) {
            assert_int_equal(path_int(h, "allocated", "cpu"), 14400);
            assert_int_equal(path_int(h, "allocated", "gres/gpu"), 3600);
            assert_int_equal(path_int(h, "count", "cpu"), 10);
            assert_int_equal(path_int(h, "reported", "cpu"), 36000);
        }
        alloc += path_int(h, "allocated", "cpu");
        rep += path_int(h, "reported", "cpu");
        last = t;
    }
    assert_int_equal(alloc, 28800);
    assert_int_equal(alloc, path_int(c, "allocated", "cpu"));
    assert_int_equal(rep, path_int(c, "reported", "cpu"));
    json_decref(r);
    /* not asked for: no hours; asked for another report: refused */
    snprintf(text, sizeof(text), "{\"report\":\"cluster_utilization\","
             "\"start\":0,\"end\":3600}");
    assert_non_null(r = report(db, text));
    assert_null(json_object_get(json_array_get(json_object_get(r, "clusters"),
                                               0), "hours"));
    json_decref(r);
    errno = 0;
    assert_null(report(db, "{\"report\":\"user_topusage\",\"start\":0,"
                           "\"end\":3600,\"hourly\":true}"));
    assert_int_equal(errno, EINVAL);
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

/* ---- planned time (Slurm's plan_secs) on an 8-CPU cluster ---- */

/* A job record of 'cpus' CPUs eligible at 'elig', started at 'start' (0:
 * not started) and ended at 'end' (0: not ended). */
static void send_wait(db_t *db, int id, int cpus, int64_t elig,
                      int64_t start, int64_t end)
{
    drv_error_t error = {{0}};
    int64_t acked;
    char tres[64];
    json_t *body;

    snprintf(tres, sizeof(tres), "cpu=%d,node=1", cpus);
    body = json_pack(
        "{s:s s:[{s:i s:{s:i s:I s:I s:I s:I s:s s:s s:s s:i s:i s:i s:s "
        "s:s}}] s:{s:i s:i s:i s:i}}",
        "cluster", "c", "events", "seq", id, "job", "job_id", id,
        "submit_time", (json_int_t)elig - 60, "eligible_time",
        (json_int_t)elig, "start_time", (json_int_t)start, "end_time",
        (json_int_t)end, "user", "dave", "account", "a", "state",
        !start ? (end ? "CANCELLED" : "PENDING")
               : (end ? "COMPLETED" : "RUNNING"),
        "ncpus", start ? cpus : 0, "nnodes", 1, "req_cpus", cpus,
        "req_tres", tres, "alloc_tres", start ? tres : "", "cluster_tres",
        "cpu", 8, "mem", 0, "node", 1, "gres/gpu", 0);
    assert_int_equal(jobs_store_send(db, body, &acked, &error), 0);
    json_decref(body);
}

static int64_t hour_col(db_t *db, const char *col, int64_t hour)
{
    struct db_param p[] = {DB_INT(hour)};
    char sql[128];

    snprintf(sql, sizeof(sql), "SELECT %s FROM cluster_usage_hour WHERE "
             "t = ?", col);
    return one_int(db, sql, p, 1);
}

static void roll(db_t *db, int64_t now)
{
    drv_error_t error = {{0}};

    assert_int_equal(usage_rollup(db, (time_t)now, &error), 0);
}

/* Eligible 10:00, started 10:30 with 4 CPUs on 8 otherwise idle CPUs:
 * 30 min x 4 CPUs planned in hour 10, nothing once it runs. */
static void a_wait_before_the_start_is_planned(void **state)
{
    db_t *db = *state;
    struct db_param p[] = {DB_INT(at(3, 2, 0, 0))};

    send_wait(db, 1, 4, at(3, 2, 10, 0), at(3, 2, 10, 30), at(3, 2, 12, 0));
    roll(db, at(3, 2, 13, 0));
    assert_int_equal(hour_col(db, "cpu_s", at(3, 2, 10, 0)), 4 * 1800);
    assert_int_equal(hour_col(db, "plan_cpu_s", at(3, 2, 10, 0)), 4 * 1800);
    assert_int_equal(hour_col(db, "plan_cpu_s", at(3, 2, 11, 0)), 0);
    assert_int_equal(hour_col(db, "plan_mem_s", at(3, 2, 10, 0)), 0);
    assert_int_equal(one_int(db, "SELECT plan_cpu_s FROM cluster_usage_day "
                                 "WHERE t = ?", p, 1), 4 * 1800);
}

/* 6 CPUs run 10:00-11:00; a 4-CPU job waits from 10:00, still pending at
 * 11:30: hour 10 plans 4 x 3600 but only 2 x 3600 is idle; hour 11 counts
 * until now. */
static void planned_time_is_capped_at_the_idle_time(void **state)
{
    db_t *db = *state;

    send_wait(db, 1, 6, at(3, 2, 9, 0), at(3, 2, 10, 0), at(3, 2, 11, 0));
    send_wait(db, 2, 4, at(3, 2, 10, 0), 0, 0);
    roll(db, at(3, 2, 11, 30));
    assert_int_equal(hour_col(db, "cpu_s", at(3, 2, 10, 0)), 6 * 3600);
    assert_int_equal(hour_col(db, "plan_cpu_s", at(3, 2, 10, 0)), 2 * 3600);
    assert_int_equal(hour_col(db, "plan_cpu_s", at(3, 2, 11, 0)), 4 * 1800);
    assert_int_equal(hour_col(db, "cap_cpu_s", at(3, 2, 11, 0)), 8 * 1800);
}

/* Cancelled while pending at 10:20 (2 CPUs, eligible 10:00): planned until
 * its end.  Eligible at 13:00, after now (11:30): nothing. */
static void a_cancelled_wait_counts_until_its_end_a_future_one_not(
    void **state)
{
    db_t *db = *state;

    send_wait(db, 1, 2, at(3, 2, 10, 0), 0, at(3, 2, 10, 20));
    send_wait(db, 2, 8, at(3, 2, 13, 0), 0, 0);
    roll(db, at(3, 2, 11, 30));
    assert_int_equal(hour_col(db, "plan_cpu_s", at(3, 2, 10, 0)), 2 * 1200);
    assert_int_equal(hour_col(db, "plan_cpu_s", at(3, 2, 11, 0)), 0);
}

/* A record first heard of after its start re-rolls from its eligible
 * hour, which an earlier rollup had closed. */
static void a_late_record_is_rolled_from_its_eligible_time(void **state)
{
    db_t *db = *state;

    send_wait(db, 1, 1, at(3, 2, 9, 0), at(3, 2, 9, 0), at(3, 2, 9, 10));
    roll(db, at(3, 2, 12, 30));
    assert_int_equal(hour_col(db, "plan_cpu_s", at(3, 2, 10, 0)), 0);
    send_wait(db, 2, 4, at(3, 2, 10, 0), at(3, 2, 11, 0), at(3, 2, 12, 0));
    roll(db, at(3, 2, 12, 40));
    assert_int_equal(hour_col(db, "plan_cpu_s", at(3, 2, 10, 0)), 4 * 3600);
    assert_int_equal(hour_col(db, "plan_cpu_s", at(3, 2, 11, 0)), 0);
}

/* The report: reported = allocated + idle + planned (down 0). */
static void cluster_utilization_reports_planned(void **state)
{
    db_t *db = *state;
    char text[256];
    json_t *r, *c;

    send_wait(db, 1, 4, at(3, 2, 10, 0), at(3, 2, 10, 30), at(3, 2, 12, 0));
    roll(db, at(3, 2, 13, 0));
    snprintf(text, sizeof(text), "{\"report\":\"cluster_utilization\","
             "\"start\":%lld,\"end\":%lld,\"tres\":\"cpu,mem\"}",
             (long long)at(3, 2, 10, 0), (long long)at(3, 2, 12, 0));
    assert_non_null(r = report(db, text));
    c = json_array_get(json_object_get(r, "clusters"), 0);
    assert_int_equal(path_int(c, "planned", "cpu"), 4 * 1800);
    assert_int_equal(path_int(c, "allocated", "cpu"), 4 * 5400);
    assert_int_equal(path_int(c, "reported", "cpu"), 8 * 7200);
    assert_int_equal(path_int(c, "idle", "cpu"),
                     8 * 7200 - 4 * 5400 - 4 * 1800);
    assert_int_equal(path_int(c, "planned", "mem"), 0);
    assert_int_equal(path_int(c, "planned_down", "cpu"), 0);
    json_decref(r);
}

static void send_resv(db_t *db, int seq, const char *flags, int cpus,
                      int64_t start, int64_t end)
{
    drv_error_t error = {{0}};
    int64_t acked;
    json_t *body = json_pack(
        "{s:s s:[{s:i s:{s:s s:I s:I s:s s:i s:s s:{s:i s:i s:i s:i}}}]}",
        "cluster", "c", "events", "seq", seq, "resv", "name", "m",
        "start_time", (json_int_t)start, "end_time", (json_int_t)end, "nodes",
        "n1", "node_cnt", 1, "flags", flags, "tres", "cpu", cpus, "mem", 0,
        "node", 1, "gres/gpu", 0);

    assert_int_equal(jobs_store_send(db, body, &acked, &error), 0);
    json_decref(body);
}

/* A MAINT reservation of 6 CPUs 10:30-11:30 is planned down (before
 * planned time, both within the idle time); one without MAINT is not;
 * a deleted one, sent again ended earlier, counts to its new end. */
static void maint_reservations_are_planned_down(void **state)
{
    db_t *db = *state;

    send_wait(db, 1, 4, at(3, 2, 10, 0), at(3, 2, 10, 0), at(3, 2, 12, 0));
    send_wait(db, 2, 4, at(3, 2, 10, 0), 0, 0); /* waits: planned */
    send_resv(db, 3, "MAINT,SPEC_NODES", 6, at(3, 2, 10, 30),
              at(3, 2, 11, 30));
    roll(db, at(3, 2, 12, 0));
    /* each hour: 4 x 3600 allocated of 8 x 3600, idle 4 x 3600; planned
     * down 6 x 1800 first, planned (4 x 3600 asked) what is left */
    assert_int_equal(hour_col(db, "pdown_cpu_s", at(3, 2, 10, 0)), 6 * 1800);
    assert_int_equal(hour_col(db, "plan_cpu_s", at(3, 2, 10, 0)), 3600);
    assert_int_equal(hour_col(db, "pdown_cpu_s", at(3, 2, 11, 0)), 6 * 1800);
    assert_int_equal(hour_col(db, "plan_cpu_s", at(3, 2, 11, 0)), 3600);
    send_resv(db, 4, "MAINT,SPEC_NODES", 6, at(3, 2, 10, 30),
              at(3, 2, 10, 40)); /* deleted at 10:40 */
    send_resv(db, 5, "SPEC_NODES", 8, at(3, 2, 11, 0), at(3, 2, 12, 0));
    roll(db, at(3, 2, 12, 0));
    assert_int_equal(hour_col(db, "pdown_cpu_s", at(3, 2, 10, 0)), 6 * 600);
    assert_int_equal(hour_col(db, "pdown_cpu_s", at(3, 2, 11, 0)), 0);
    assert_int_equal(hour_col(db, "plan_cpu_s", at(3, 2, 11, 0)), 4 * 3600);
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
        T(cluster_utilization_hour_by_hour),
        T(topusage_sorts_by_cpu_then_name),
        T(a_bad_report_request_is_einval),
        T(a_wait_before_the_start_is_planned),
        T(planned_time_is_capped_at_the_idle_time),
        T(a_cancelled_wait_counts_until_its_end_a_future_one_not),
        T(a_late_record_is_rolled_from_its_eligible_time),
        T(cluster_utilization_reports_planned),
        T(maint_reservations_are_planned_down),
#undef T
    };

    return dbtest_main(argc, argv, tests, sizeof(tests) / sizeof(*tests),
                       NULL, NULL);
}
