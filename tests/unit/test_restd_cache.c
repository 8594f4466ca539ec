/* SPDX-License-Identifier: Apache-2.0
 *
 * test_restd_cache.c - droverrestd's kept GET answers (src/restd/cache.h)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "restd/cache.h"

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};

    nanosleep(&ts, NULL);
}

/* The text kept for 'key' now (waiting at most 'wait_ms'), or NULL when
 * the caller is to answer it. */
static char *get(struct rest_cache *c, const char *key, unsigned wait_ms,
                 unsigned *age_ms)
{
    const char *type;
    size_t len;

    return rest_cache_get(c, key, &len, &type, age_ms, wait_ms);
}

static void put(struct rest_cache *c, const char *key, const char *text)
{
    rest_cache_put(c, key, text, strlen(text), "application/json");
}

/* An answer is kept for its TTL (these take microseconds to make, and
 * the sleeps leave room for 16 ms: 9 times that is still within them);
 * past it, the first request renews it and
 * the others meanwhile get the last one with its age; the renewal
 * replaces it; a write (clear) during a renewal leaves nothing stale to
 * serve; a renewal given up leaves the last answer for the next one. */
static void stale_answers_while_one_renews(void **state)
{
    struct rest_cache *c = rest_cache_create(50, 1 << 20);
    unsigned age;
    char *t;

    (void)state;
    assert_null(get(c, "k", 0, &age)); /* a miss: this caller answers */
    put(c, "k", "{\"a\":1}");
    assert_string_equal(t = get(c, "k", 0, &age), "{\"a\":1}");
    free(t);

    sleep_ms(150);
    assert_null(get(c, "k", 0, &age)); /* past its time: this one renews */
    t = get(c, "k", 1000, &age);       /* the others: no wait */
    assert_non_null(t);
    assert_string_equal(t, "{\"a\":1}");
    assert_true(age >= 150);
    free(t);
    put(c, "k", "{\"a\":2}");
    assert_string_equal(t = get(c, "k", 0, &age), "{\"a\":2}");
    assert_true(age < 50);
    free(t);

    sleep_ms(150);
    assert_null(get(c, "k", 0, &age)); /* renewing... */
    rest_cache_clear(c);               /* ...when a write went through */
    assert_null(get(c, "k", 10, &age)); /* nothing stale: waits, then
                                         * answers itself */
    rest_cache_abandon(c, "k");

    assert_null(get(c, "k", 0, &age));
    put(c, "k", "{\"a\":3}");
    sleep_ms(150);
    assert_null(get(c, "k", 0, &age)); /* renewing... */
    rest_cache_abandon(c, "k");        /* ...given up (an error) */
    assert_null(get(c, "k", 0, &age)); /* the next one renews */
    t = get(c, "k", 0, &age);           /* and the others get the last */
    assert_string_equal(t, "{\"a\":3}");
    free(t);
    rest_cache_abandon(c, "k");
    rest_cache_destroy(c);
}

static uint64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* An answer that took T to make is kept for 9 T when that is longer than
 * the TTL: renewals take at most a tenth of the time. */
static void slow_answers_are_kept_longer(void **state)
{
    struct rest_cache *c = rest_cache_create(50, 1 << 20);
    uint64_t began, made, built, gone;
    unsigned age;
    char *t;

    (void)state;
    began = mono_ms();
    assert_null(get(c, "k", 0, &age)); /* this caller answers... */
    sleep_ms(100);                     /* ...taking 100 ms */
    put(c, "k", "{\"a\":1}");
    made = mono_ms();
    built = made - began;
    sleep_ms(300); /* past the TTL, well within 9 x 100 ms */
    assert_non_null(t = get(c, "k", 0, &age));
    free(t);
    /* it goes stale at 9 x its making, as this caller measured it */
    while ((t = get(c, "k", 0, &age))) {
        free(t);
        assert_true(mono_ms() - made < 9 * built + 500);
        sleep_ms(20);
    }
    gone = mono_ms();
    assert_true(gone - made >= 9 * 100 - 20);
    put(c, "k", "{\"a\":2}"); /* renewed at once: the TTL again */
    sleep_ms(150);
    assert_null(get(c, "k", 0, &age));
    rest_cache_abandon(c, "k");
    rest_cache_destroy(c);
}

/* Kept bytes are binary-safe (gzip answers). */
static void binary_answers(void **state)
{
    struct rest_cache *c = rest_cache_create(10000, 1 << 20);
    const char bytes[] = {0x1f, (char)0x8b, 0, 1, 0, 2};
    const char *type;
    unsigned age;
    size_t len;
    char *t;

    (void)state;
    assert_null(rest_cache_get(c, "z", &len, &type, &age, 0));
    rest_cache_put(c, "z", bytes, sizeof(bytes), "application/json");
    t = rest_cache_get(c, "z", &len, &type, &age, 0);
    assert_non_null(t);
    assert_int_equal(len, sizeof(bytes));
    assert_memory_equal(t, bytes, sizeof(bytes));
    free(t);
    rest_cache_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stale_answers_while_one_renews),
        cmocka_unit_test(slow_answers_are_kept_longer),
        cmocka_unit_test(binary_answers),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
