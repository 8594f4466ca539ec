/* SPDX-License-Identifier: Apache-2.0
 *
 * test_histogram.c - log-linear histograms (common/histogram.h)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/histogram.h"

/* Small values are exact; counts at a bound never include a value above
 * it, and include every value of a bucket wholly under it. */
static void counts_at_bounds(void **state)
{
    struct histogram h = {0};

    (void)state;
    for (uint64_t v = 0; v < 8; v++)
        histogram_add(&h, v);
    assert_int_equal(histogram_count_le(&h, 3), 4);
    histogram_add(&h, 100);   /* bucket [96, 103] */
    histogram_add(&h, 1000);  /* bucket [960, 1023] */
    histogram_add(&h, 5000);
    assert_int_equal(h.count, 11);
    assert_int_equal(h.total, 28 + 100 + 1000 + 5000);
    assert_int_equal(h.max, 5000);
    assert_int_equal(histogram_count_le(&h, 99), 8);
    assert_int_equal(histogram_count_le(&h, 103), 9);
    assert_int_equal(histogram_count_le(&h, 1023), 10);
    assert_int_equal(histogram_count_le(&h, 5000), 11); /* max <= bound */
    assert_int_equal(histogram_count_le(&h, UINT64_MAX), 11);
}

/* Quantiles are bucket tops, never above the largest value. */
static void quantiles(void **state)
{
    struct histogram h = {0};

    (void)state;
    assert_int_equal(histogram_quantile(&h, 0.5), 0);
    for (int i = 0; i < 99; i++)
        histogram_add(&h, 100);
    histogram_add(&h, 1000000);
    assert_int_equal(histogram_quantile(&h, 0.5), 103);
    assert_int_equal(histogram_quantile(&h, 0.99), 1000000);
    assert_true(histogram_quantile(&h, 1.0) <= 1000000);
}

/* The JSON form has one cumulative, non-decreasing pair per bound. */
static void le_json_is_cumulative(void **state)
{
    struct histogram h = {0};
    json_t *arr, *pair;
    json_int_t last = 0;
    size_t i, n = 0;

    (void)state;
    for (uint64_t v = 50; v < 40000000; v *= 3)
        histogram_add(&h, v);
    arr = histogram_le_json(&h);
    for (const uint64_t *b = histogram_bounds_us; *b; b++)
        n++;
    assert_int_equal(json_array_size(arr), n);
    json_array_foreach(arr, i, pair) {
        json_int_t c = json_integer_value(json_array_get(pair, 1));
        assert_int_equal(json_integer_value(json_array_get(pair, 0)),
                         (json_int_t)histogram_bounds_us[i]);
        assert_true(c >= last);
        last = c;
    }
    assert_true(last < (json_int_t)h.count); /* 26.6 s is over 10 s */
    json_decref(arr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_at_bounds),
        cmocka_unit_test(quantiles),
        cmocka_unit_test(le_json_is_cumulative),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
