/* SPDX-License-Identifier: Apache-2.0
 *
 * test_bitmap.c - bit sets: set/test, scans, set operations, "0-2,5" form
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/bitmap.h"

/* bitmap_fmt(b) compared with 'want'; frees the string. */
static void assert_fmt(const bitmap_t *b, const char *want)
{
    char *s = bitmap_fmt(b);

    assert_non_null(s);
    assert_string_equal(s, want);
    free(s);
}

static void create_starts_clear(void **state)
{
    (void)state;
    bitmap_t *b = bitmap_create(100);

    assert_non_null(b);
    assert_int_equal(bitmap_size(b), 100);
    assert_int_equal(bitmap_count(b), 0);
    assert_int_equal(bitmap_first_set(b, 0), -1);
    assert_int_equal(bitmap_first_clear(b, 0), 0);
    assert_fmt(b, "");
    bitmap_destroy(b);
}

static void empty_bitmap_has_no_bits(void **state)
{
    (void)state;
    bitmap_t *b = bitmap_create(0);

    assert_non_null(b);
    assert_int_equal(bitmap_size(b), 0);
    bitmap_set(b, 0); /* out of range: ignored */
    assert_false(bitmap_test(b, 0));
    assert_int_equal(bitmap_count(b), 0);
    assert_int_equal(bitmap_first_set(b, 0), -1);
    assert_int_equal(bitmap_first_clear(b, 0), -1);
    assert_fmt(b, "");
    bitmap_destroy(b);
}

static void set_clear_test_count(void **state)
{
    (void)state;
    bitmap_t *b = bitmap_create(10);

    assert_non_null(b);
    bitmap_set(b, 0);
    bitmap_set(b, 1);
    bitmap_set(b, 2);
    bitmap_set(b, 5);
    bitmap_set(b, 5); /* idempotent */
    assert_true(bitmap_test(b, 5));
    assert_false(bitmap_test(b, 4));
    assert_int_equal(bitmap_count(b), 4);
    assert_fmt(b, "0-2,5");
    bitmap_clear(b, 1);
    assert_false(bitmap_test(b, 1));
    assert_fmt(b, "0,2,5");
    bitmap_set(b, 10); /* out of range: ignored */
    bitmap_clear(b, 99);
    assert_false(bitmap_test(b, 10));
    assert_int_equal(bitmap_count(b), 3);
    bitmap_clear_all(b);
    assert_int_equal(bitmap_count(b), 0);
    bitmap_destroy(b);
}

static void scans_find_first_set_and_clear(void **state)
{
    (void)state;
    bitmap_t *b = bitmap_create(130); /* three words, last one partial */

    assert_non_null(b);
    bitmap_set(b, 5);
    bitmap_set(b, 63);
    bitmap_set(b, 64);
    bitmap_set(b, 129);
    assert_int_equal(bitmap_first_set(b, 0), 5);
    assert_int_equal(bitmap_first_set(b, 5), 5);
    assert_int_equal(bitmap_first_set(b, 6), 63);
    assert_int_equal(bitmap_first_set(b, 65), 129);
    assert_int_equal(bitmap_first_set(b, 130), -1);
    assert_int_equal(bitmap_first_clear(b, 5), 6);
    assert_int_equal(bitmap_first_clear(b, 63), 65);
    assert_int_equal(bitmap_first_clear(b, 129), -1);
    assert_int_equal(bitmap_first_clear(b, 1000), -1);
    assert_fmt(b, "5,63-64,129");
    bitmap_destroy(b);
}

static void first_clear_is_none_when_full(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 63, 64, 65, 128, 130};

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        bitmap_t *b = bitmap_create(sizes[i]);
        assert_non_null(b);
        for (size_t bit = 0; bit < sizes[i]; bit++)
            bitmap_set(b, bit);
        assert_int_equal(bitmap_count(b), sizes[i]);
        assert_int_equal(bitmap_first_clear(b, 0), -1);
        bitmap_clear(b, sizes[i] - 1);
        assert_int_equal(bitmap_first_clear(b, 0), (long)sizes[i] - 1);
        bitmap_destroy(b);
    }
}

static void or_and_not_overlap(void **state)
{
    (void)state;
    bitmap_t *a = bitmap_parse("0-3,70", 100, NULL);
    bitmap_t *b = bitmap_parse("2-5", 100, NULL);
    bitmap_t *c = bitmap_parse("6-9,99", 100, NULL);

    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    assert_true(bitmap_overlap(a, b));
    assert_false(bitmap_overlap(a, c));
    bitmap_or(a, b);
    assert_fmt(a, "0-5,70");
    bitmap_and_not(a, b);
    assert_fmt(a, "0-1,70");
    bitmap_or(a, c);
    assert_fmt(a, "0-1,6-9,70,99");
    bitmap_destroy(a);
    bitmap_destroy(b);
    bitmap_destroy(c);
}

static void or_of_larger_source_keeps_size(void **state)
{
    (void)state;
    bitmap_t *small = bitmap_create(10);
    bitmap_t *big = bitmap_parse("8-20", 100, NULL);

    assert_non_null(small);
    assert_non_null(big);
    bitmap_or(small, big);
    assert_int_equal(bitmap_count(small), 2);
    assert_fmt(small, "8-9");
    assert_int_equal(bitmap_first_clear(small, 8), -1);
    bitmap_destroy(small);
    bitmap_destroy(big);
}

static void copy_is_independent(void **state)
{
    (void)state;
    bitmap_t *a = bitmap_parse("1,3", 8, NULL);
    bitmap_t *b;

    assert_non_null(a);
    assert_non_null(b = bitmap_copy(a));
    assert_int_equal(bitmap_size(b), 8);
    bitmap_set(b, 7);
    assert_fmt(a, "1,3");
    assert_fmt(b, "1,3,7");
    bitmap_destroy(a);
    bitmap_destroy(b);
    errno = 0;
    assert_null(bitmap_copy(NULL));
    assert_int_equal(errno, EINVAL);
}

static const struct {
    const char *text;
    size_t nbits;
    const char *fmt; /* bitmap_fmt of the result */
} parse_cases[] = {
    {"", 8, ""},
    {"0", 1, "0"},
    {"7", 8, "7"},
    {"0-2,5", 8, "0-2,5"},
    {"5,0-2", 8, "0-2,5"},
    {"1,3,5", 8, "1,3,5"},
    {"0-1,1-2", 8, "0-2"},
    {"3-3", 8, "3"},
    {"0-129", 130, "0-129"},
    {"63-65,129", 130, "63-65,129"},
    {"007", 8, "7"},
};

static void parse_accepts_each_case(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
        drv_error_t error = {{0}};
        bitmap_t *b =
            bitmap_parse(parse_cases[i].text, parse_cases[i].nbits, &error);
        char *s;
        if (!b)
            fail_msg("parse(\"%s\", %zu) failed: %s",
                     parse_cases[i].text,
                     parse_cases[i].nbits,
                     error.text);
        assert_int_equal(bitmap_size(b), parse_cases[i].nbits);
        assert_non_null(s = bitmap_fmt(b));
        if (strcmp(s, parse_cases[i].fmt) != 0)
            fail_msg("parse(\"%s\") formats as \"%s\", want \"%s\"",
                     parse_cases[i].text,
                     s,
                     parse_cases[i].fmt);
        free(s);
        bitmap_destroy(b);
    }
}

static const struct {
    const char *text;
    size_t nbits;
    const char *error; /* expected in error.text */
} parse_errors[] = {
    {"8", 8, "not below 8"},
    {"0-8", 8, "not below 8"},
    {"99999999999999999999999", 8, "not below"},
    {"0", 0, "not below 0"},
    {"2-0", 8, "backwards"},
    {"a", 8, "expected a number"},
    {",1", 8, "expected a number"},
    {"1,,2", 8, "expected a number"},
    {"1-", 8, "expected a number"},
    {"-1", 8, "expected a number"},
    {"1--2", 8, "expected a number"},
    {" 1", 8, "expected a number"},
    {"1,", 8, "trailing"},
    {"1 ", 8, "unexpected ' '"},
    {"1-2-3", 8, "unexpected '-'"},
    {"[1-2]", 8, "expected a number"},
};

static void parse_rejects_each_error(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(parse_errors) / sizeof(parse_errors[0]);
         i++) {
        drv_error_t error = {{0}};
        errno = 0;
        if (bitmap_parse(parse_errors[i].text, parse_errors[i].nbits, &error))
            fail_msg("parse(\"%s\", %zu) should fail",
                     parse_errors[i].text,
                     parse_errors[i].nbits);
        if (errno != EINVAL)
            fail_msg("parse(\"%s\"): errno %d", parse_errors[i].text, errno);
        if (!strstr(error.text, parse_errors[i].error))
            fail_msg("parse(\"%s\"): error \"%s\" lacks \"%s\"",
                     parse_errors[i].text,
                     error.text,
                     parse_errors[i].error);
    }
}

static void parse_rejects_null(void **state)
{
    (void)state;
    drv_error_t error = {{0}};

    errno = 0;
    assert_null(bitmap_parse(NULL, 8, &error));
    assert_int_equal(errno, EINVAL);
    assert_true(error.text[0] != '\0');
    errno = 0;
    assert_null(bitmap_parse("9", 8, NULL)); /* error may be NULL */
    assert_int_equal(errno, EINVAL);
}

static void null_bitmaps_are_harmless(void **state)
{
    (void)state;
    char *s;

    assert_int_equal(bitmap_size(NULL), 0);
    assert_int_equal(bitmap_count(NULL), 0);
    assert_false(bitmap_test(NULL, 0));
    assert_int_equal(bitmap_first_set(NULL, 0), -1);
    assert_false(bitmap_overlap(NULL, NULL));
    assert_non_null(s = bitmap_fmt(NULL));
    assert_string_equal(s, "");
    free(s);
    errno = EPERM;
    bitmap_destroy(NULL);
    assert_int_equal(errno, EPERM);
}

static void fmt_handles_many_ranges(void **state)
{
    (void)state;
    bitmap_t *b = bitmap_create(1000);
    char *s;

    assert_non_null(b);
    for (size_t bit = 0; bit < 1000; bit += 2)
        bitmap_set(b, bit);
    assert_non_null(s = bitmap_fmt(b));
    assert_int_equal(strncmp(s, "0,2,4,", 6), 0);
    assert_non_null(strstr(s, ",996,998"));
    free(s);
    bitmap_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_starts_clear),
        cmocka_unit_test(empty_bitmap_has_no_bits),
        cmocka_unit_test(set_clear_test_count),
        cmocka_unit_test(scans_find_first_set_and_clear),
        cmocka_unit_test(first_clear_is_none_when_full),
        cmocka_unit_test(or_and_not_overlap),
        cmocka_unit_test(or_of_larger_source_keeps_size),
        cmocka_unit_test(copy_is_independent),
        cmocka_unit_test(parse_accepts_each_case),
        cmocka_unit_test(parse_rejects_each_error),
        cmocka_unit_test(parse_rejects_null),
        cmocka_unit_test(null_bitmaps_are_harmless),
        cmocka_unit_test(fmt_handles_many_ranges),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
