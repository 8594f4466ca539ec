/* SPDX-License-Identifier: Apache-2.0
 *
 * test_strpool.c - shared, reference-counted strings (common/strpool.h)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/strpool.h"

/* Equal texts share one copy while any holder remains. */
static void equal_texts_share_one_copy(void **state)
{
    struct strpool *pool = strpool_create();
    char buf[16];
    const char *a, *b, *c;

    (void)state;
    strcpy(buf, "debug");
    a = strpool_get(pool, buf);
    strcpy(buf, "debug");
    b = strpool_get(pool, buf);
    c = strpool_get(pool, "gpu");
    assert_ptr_equal(a, b);
    assert_ptr_not_equal(a, buf);
    assert_string_equal(a, "debug");
    assert_int_equal(strpool_count(pool), 2);
    strpool_put(pool, a);
    assert_int_equal(strpool_count(pool), 2); /* b still holds it */
    assert_string_equal(b, "debug");
    strpool_put(pool, b);
    assert_int_equal(strpool_count(pool), 1);
    strpool_put(pool, c);
    assert_int_equal(strpool_count(pool), 0);
    assert_int_equal(strpool_bytes(pool), 0);
    assert_null(strpool_get(pool, NULL));
    strpool_put(pool, NULL);
    strpool_destroy(pool);
}

/* strpool_set() replaces a field, also by its own value, and clears it. */
static void set_replaces_and_clears(void **state)
{
    struct strpool *pool = strpool_create();
    const char *field = NULL, *other = NULL;

    (void)state;
    strpool_set(pool, &field, "/home/alice");
    strpool_set(pool, &other, "/home/alice");
    assert_ptr_equal(field, other);
    strpool_set(pool, &field, field); /* the same text: still held */
    assert_string_equal(field, "/home/alice");
    strpool_set(pool, &field, "/home/bob");
    assert_string_equal(other, "/home/alice");
    assert_int_equal(strpool_count(pool), 2);
    strpool_set(pool, &field, NULL);
    assert_null(field);
    strpool_set(pool, &other, NULL);
    assert_int_equal(strpool_count(pool), 0);
    strpool_destroy(pool);
}

/* Many holders of few texts: the pool stays the size of the texts. */
static void many_holders_few_copies(void **state)
{
    struct strpool *pool = strpool_create();
    const char *held[10000];
    char name[32];

    (void)state;
    for (int i = 0; i < 10000; i++) {
        snprintf(name, sizeof(name), "user%d", i % 3);
        held[i] = strpool_get(pool, name);
    }
    assert_int_equal(strpool_count(pool), 3);
    for (int i = 0; i < 10000; i++)
        strpool_put(pool, held[i]);
    assert_int_equal(strpool_count(pool), 0);
    /* destroy frees what is still held */
    strpool_get(pool, "left");
    strpool_destroy(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(equal_texts_share_one_copy),
        cmocka_unit_test(set_replaces_and_clears),
        cmocka_unit_test(many_holders_few_copies),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
