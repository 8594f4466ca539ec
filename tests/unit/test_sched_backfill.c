/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sched_backfill.c - Drover's default backfill policy
 * (src/sched/backfill.h): who leads, the candidates' order, predictions
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sched/backfill.h"

static void reserve_after_is_ten_times_at_most_a_day(void **state)
{
    (void)state;
    assert_int_equal(sched_backfill_reserve_after(100), 1000);
    assert_int_equal(sched_backfill_reserve_after(0), 0);
    assert_int_equal(sched_backfill_reserve_after(8640), 86400);
    assert_int_equal(sched_backfill_reserve_after(86400 * 3), 86400);
    assert_int_equal(sched_backfill_reserve_after(-1), 86400); /* none */
}

/* Jobs 0 and 3 waited 10 times their planned time: they lead, in queue
 * order; the others follow shortest first, no limit last. */
static void leads_then_shortest_first(void **state)
{
    (void)state;
    struct sched_job q[] = {
        { .id = 10, .time_limit_s = 300 },
        { .id = 11, .time_limit_s = 50 },
        { .id = 12, .time_limit_s = -1 },
        { .id = 13, .time_limit_s = 50 },
        { .id = 14, .time_limit_s = 10 },
        { .id = 15, .time_limit_s = 50 },
    };
    int64_t waited[] = { 3000, 499, 86399, 500, 0, 0 };
    uint32_t order[6];

    assert_int_equal(sched_backfill_order(q, 6, waited, NULL, 0, order), 2);
    assert_int_equal(order[0], 0);
    assert_int_equal(order[1], 3);
    assert_int_equal(order[2], 4); /* 10 s */
    assert_int_equal(order[3], 1); /* 50 s, ties in queue order */
    assert_int_equal(order[4], 5);
    assert_int_equal(order[5], 2); /* no limit, not a day yet */
}

/* A job with no limit leads after a day. */
static void no_limit_leads_after_a_day(void **state)
{
    (void)state;
    struct sched_job q[] = { { .id = 1, .time_limit_s = -1 },
                             { .id = 2, .time_limit_s = -1 } };
    int64_t waited[] = { 86399, 86400 };
    uint32_t order[2];

    assert_int_equal(sched_backfill_order(q, 2, waited, NULL, 0, order), 1);
    assert_int_equal(order[0], 1);
    assert_int_equal(order[1], 0);
}

/* extra_leads (bf_max_job_test): the first jobs lead whatever their wait;
 * an array's entries (consecutive, same id) lead or follow together. */
static void extra_leads_and_array_entries(void **state)
{
    (void)state;
    struct sched_job q[] = {
        { .id = 7, .time_limit_s = 100 },
        { .id = 7, .time_limit_s = 100 },
        { .id = 8, .time_limit_s = 50 },
        { .id = 9, .time_limit_s = 200 },
        { .id = 9, .time_limit_s = 200 },
        { .id = 6, .time_limit_s = 20 },
    };
    int64_t waited[6] = { 0 };
    uint32_t order[6];

    assert_int_equal(sched_backfill_order(q, 6, waited, NULL, 1, order), 2);
    assert_int_equal(order[0], 0);
    assert_int_equal(order[1], 1);
    assert_int_equal(order[2], 5);
    assert_int_equal(order[3], 2);
    assert_int_equal(order[4], 3);
    assert_int_equal(order[5], 4);
    assert_int_equal(sched_backfill_order(q, 6, waited, NULL, 0, order), 0);
    assert_int_equal(order[0], 5);
    assert_int_equal(order[1], 2);
    assert_int_equal(order[2], 0);
    assert_int_equal(order[3], 1);
}

static void predictions_from_the_last_two_runs(void **state)
{
    (void)state;
    struct sched_predict *p = sched_predict_create();

    assert_non_null(p);
    assert_int_equal(sched_predict_limit(NULL, 5, 600), 600);
    assert_int_equal(sched_predict_limit(p, 5, 600), 600); /* no history */
    assert_int_equal(sched_predict_learn(p, 5, 100), 0);
    assert_int_equal(sched_predict_limit(p, 5, 600), 100);
    assert_int_equal(sched_predict_learn(p, 5, 301), 0);
    assert_int_equal(sched_predict_limit(p, 5, 600), 201); /* rounded up */
    assert_int_equal(sched_predict_learn(p, 5, 0), 0);
    assert_int_equal(sched_predict_limit(p, 5, 600), 151); /* 301 and 0 */
    assert_int_equal(sched_predict_limit(p, 5, 60), 60);   /* the limit */
    assert_int_equal(sched_predict_limit(p, 5, -1), 151);  /* no limit */
    assert_int_equal(sched_predict_limit(p, 6, 600), 600); /* per user */
    assert_int_equal(sched_predict_learn(p, 6, 0), 0);
    assert_int_equal(sched_predict_learn(p, 6, 0), 0);
    assert_int_equal(sched_predict_limit(p, 6, 600), 1);   /* at least 1 */
    sched_predict_destroy(p);
    sched_predict_destroy(NULL);
}

/* A running job is planned to its prediction while it holds, then to its
 * limit. */
static void running_jobs_outlive_predictions(void **state)
{
    (void)state;
    assert_int_equal(sched_predict_running(100, 600, 1000, 1099), 100);
    assert_int_equal(sched_predict_running(100, 600, 1000, 1100), 600);
    assert_int_equal(sched_predict_running(0, 600, 1000, 1001), 600);
    assert_int_equal(sched_predict_running(100, -1, 1000, 1200), -1);
}

/* Classes first: a higher class goes before a shorter job of a lower one;
 * within a class, shortest first. */
static void classes_before_length(void **state)
{
    (void)state;
    struct sched_job q[] = {
        { .id = 1, .time_limit_s = 600 },
        { .id = 2, .time_limit_s = 60 },
        { .id = 3, .time_limit_s = 300 },
        { .id = 4, .time_limit_s = 30 },
    };
    int64_t waited[4] = { 0 };
    uint64_t class[] = { 5, 3, 5, 3 };
    uint32_t order[4];

    assert_int_equal(sched_backfill_order(q, 4, waited, class, 0, order), 0);
    assert_int_equal(order[0], 2);
    assert_int_equal(order[1], 0);
    assert_int_equal(order[2], 3);
    assert_int_equal(order[3], 1);
}

/* A job that leads by its wait goes first only among the jobs of its
 * class and lower: a job of a higher class (priority) leads as well, ahead
 * of it, whatever its own wait; an equal class stays behind. */
static void no_lead_passes_a_higher_class(void **state)
{
    (void)state;
    struct sched_job q[] = {
        { .id = 1, .time_limit_s = 600 },
        { .id = 2, .time_limit_s = 60 },
        { .id = 3, .time_limit_s = 10 },
        { .id = 4, .time_limit_s = 30 },
    };
    int64_t waited[4] = { 0, 0, 100, 0 }; /* job 3 waited 10 x 10 s */
    uint64_t class[] = { 9, 7, 5, 5 };
    uint32_t order[4];

    assert_int_equal(sched_backfill_order(q, 4, waited, class, 0, order), 3);
    assert_int_equal(order[0], 0);
    assert_int_equal(order[1], 1);
    assert_int_equal(order[2], 2);
    assert_int_equal(order[3], 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reserve_after_is_ten_times_at_most_a_day),
        cmocka_unit_test(leads_then_shortest_first),
        cmocka_unit_test(no_limit_leads_after_a_day),
        cmocka_unit_test(extra_leads_and_array_entries),
        cmocka_unit_test(predictions_from_the_last_two_runs),
        cmocka_unit_test(running_jobs_outlive_predictions),
        cmocka_unit_test(classes_before_length),
        cmocka_unit_test(no_lead_passes_a_higher_class),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
