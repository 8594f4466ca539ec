/* SPDX-License-Identifier: Apache-2.0
 *
 * test_rpc_stats.c - request counts, times and percentiles per message
 * type and user (proto/rpc_stats.h)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "proto/rpc_stats.h"

static json_t *type_row(json_t *o, const char *type)
{
    json_t *t;
    size_t i;

    json_array_foreach(json_object_get(o, "types"), i, t)
        if (!strcmp(json_string_value(json_object_get(t, "type")), type))
            return t;
    fail_msg("no row for %s", type);
    return NULL;
}

static json_int_t num(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

/* 1..1000 us: the percentiles are within a bucket (1/8) above the true
 * values and never above the maximum; counts and totals are exact. */
static void percentiles_and_totals(void **state)
{
    struct rpc_stats *st = rpc_stats_create();
    json_t *o, *t, *u;

    (void)state;
    for (uint64_t us = 1; us <= 1000; us++)
        rpc_stats_add(st, "step_complete", 0, us);
    for (int i = 0; i < 3; i++)
        rpc_stats_add(st, "job_submit", 1000, 7);
    o = rpc_stats_to_json(st);
    t = type_row(o, "step_complete");
    assert_int_equal(num(t, "count"), 1000);
    assert_int_equal(num(t, "total_us"), 500500);
    assert_int_equal(num(t, "max_us"), 1000);
    assert_true(num(t, "p50_us") >= 500 && num(t, "p50_us") <= 500 * 9 / 8);
    assert_true(num(t, "p99_us") >= 990 && num(t, "p99_us") <= 1000);
    t = type_row(o, "job_submit");
    assert_int_equal(num(t, "p50_us"), 7); /* small values are exact */
    assert_int_equal(num(t, "p99_us"), 7);
    /* by count, highest first */
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(o, "types"), 0),
                            "type")),
                        "step_complete");
    u = json_array_get(json_object_get(o, "users"), 1);
    assert_int_equal(num(u, "uid"), 1000);
    assert_int_equal(num(u, "count"), 3);
    assert_int_equal(num(u, "total_us"), 21);
    json_decref(o);

    rpc_stats_reset(st);
    o = rpc_stats_to_json(st);
    assert_int_equal(json_array_size(json_object_get(o, "types")), 0);
    assert_int_equal(json_array_size(json_object_get(o, "users")), 0);
    json_decref(o);
    rpc_stats_destroy(st);
}

/* A time beyond the last bucket still counts, capped at the maximum. */
static void huge_times(void **state)
{
    struct rpc_stats *st = rpc_stats_create();
    json_t *o, *t;

    (void)state;
    rpc_stats_add(st, "ping", 0, UINT64_C(1) << 50);
    o = rpc_stats_to_json(st);
    t = type_row(o, "ping");
    assert_int_equal(num(t, "count"), 1);
    assert_true(num(t, "p99_us") <= num(t, "max_us"));
    json_decref(o);
    rpc_stats_destroy(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(percentiles_and_totals),
        cmocka_unit_test(huge_times),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
