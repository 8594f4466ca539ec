/* SPDX-License-Identifier: Apache-2.0
 *
 * test_rate_limit.c - the controller's per-user token buckets
 * (src/ctld/rate_limit.h): a burst of rl_bucket_size, rl_refill_rate
 * tokens back per rl_refill_period, users apart, a full table, logging.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ctld/rate_limit.h"

static const struct conf_rate_limit slurm_defaults = {
    .enable = true, .bucket_size = 30, .refill_rate = 2, .refill_period = 1,
    .table_size = 8192, .log_freq = 0,
};

/* How many of 'n' requests of 'uid' at 'now_ms' get through. */
static unsigned served(rate_limit_t *rl, uid_t uid, uint64_t now_ms,
                       unsigned n)
{
    unsigned ok = 0;

    for (unsigned i = 0; i < n; i++)
        ok += rate_limit_take(rl, uid, now_ms, NULL) == RATE_OK;
    return ok;
}

static void burst_then_refill(void **state)
{
    rate_limit_t *rl = rate_limit_create(&slurm_defaults);

    (void)state;
    assert_non_null(rl);
    /* A full bucket of 30, then refusals. */
    assert_int_equal(served(rl, 1000, 5000, 40), 30);
    assert_int_equal(rate_limit_take(rl, 1000, 5999, NULL), RATE_EXCEEDED);
    /* The next period brings 2 tokens; three periods later, 6. */
    assert_int_equal(served(rl, 1000, 6000, 5), 2);
    assert_int_equal(served(rl, 1000, 9000, 10), 6);
    /* A long silence refills to the bucket's size, not beyond. */
    assert_int_equal(served(rl, 1000, 600000, 100), 30);
    rate_limit_destroy(rl);
}

static void users_have_their_own_buckets(void **state)
{
    rate_limit_t *rl = rate_limit_create(&slurm_defaults);

    (void)state;
    assert_int_equal(served(rl, 1000, 0, 100), 30);
    assert_int_equal(served(rl, 1001, 0, 10), 10);
    /* 1000 + 8192 hashes to 1000's slot and takes the next one. */
    assert_int_equal(served(rl, 1000 + 8192, 0, 40), 30);
    rate_limit_destroy(rl);
}

static void refill_period_is_seconds(void **state)
{
    struct conf_rate_limit c = slurm_defaults;
    rate_limit_t *rl;

    (void)state;
    c.bucket_size = 1;
    c.refill_rate = 1;
    c.refill_period = 10;
    rl = rate_limit_create(&c);
    assert_int_equal(served(rl, 5, 0, 3), 1);
    assert_int_equal(served(rl, 5, 9999, 3), 0);
    assert_int_equal(served(rl, 5, 10000, 3), 1);
    rate_limit_destroy(rl);
}

static void full_table_leaves_new_users_unlimited(void **state)
{
    struct conf_rate_limit c = slurm_defaults;
    rate_limit_t *rl;

    (void)state;
    c.table_size = 2;
    c.bucket_size = 1;
    rl = rate_limit_create(&c);
    assert_int_equal(rate_limit_take(rl, 10, 0, NULL), RATE_OK);
    assert_int_equal(rate_limit_take(rl, 11, 0, NULL), RATE_OK);
    assert_int_equal(rate_limit_take(rl, 12, 0, NULL), RATE_UNTRACKED);
    assert_int_equal(rate_limit_take(rl, 12, 0, NULL), RATE_UNTRACKED);
    assert_int_equal(rate_limit_take(rl, 10, 0, NULL), RATE_EXCEEDED);
    rate_limit_destroy(rl);
}

static void log_freq_bounds_logged_refusals(void **state)
{
    struct conf_rate_limit c = slurm_defaults;
    rate_limit_t *rl;
    bool log;
    unsigned logged = 0;

    (void)state;
    c.bucket_size = 1;
    c.log_freq = 2;
    rl = rate_limit_create(&c);
    assert_int_equal(rate_limit_take(rl, 7, 0, &log), RATE_OK);
    assert_false(log);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(rate_limit_take(rl, 7, 0, &log), RATE_EXCEEDED);
        logged += log;
    }
    assert_int_equal(logged, 2);
    /* A new period logs again; rl_log_freq=0 logs them all. */
    assert_int_equal(served(rl, 7, 1000, 2), 1);
    assert_int_equal(rate_limit_take(rl, 7, 1000, &log), RATE_EXCEEDED);
    assert_true(log);
    rate_limit_destroy(rl);
    c.log_freq = 0;
    rl = rate_limit_create(&c);
    served(rl, 7, 0, 1);
    for (int i = 0; i < 10; i++) {
        rate_limit_take(rl, 7, 0, &log);
        assert_true(log);
    }
    rate_limit_destroy(rl);
}

static void zero_sizes_are_refused(void **state)
{
    struct conf_rate_limit c = slurm_defaults;

    (void)state;
    c.refill_period = 0;
    errno = 0;
    assert_null(rate_limit_create(&c));
    assert_int_equal(errno, EINVAL);
    rate_limit_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(burst_then_refill),
        cmocka_unit_test(users_have_their_own_buckets),
        cmocka_unit_test(refill_period_is_seconds),
        cmocka_unit_test(full_table_leaves_new_users_unlimited),
        cmocka_unit_test(log_freq_bounds_logged_refusals),
        cmocka_unit_test(zero_sizes_are_refused),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
