/* SPDX-License-Identifier: Apache-2.0
 *
 * test_arrayspec.c - sbatch --array expressions
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/arrayspec.h"

static char *fmt_of(const char *spec, uint32_t *throttle)
{
    bitmap_t *b = array_spec_parse(spec, 1001, throttle, NULL);
    char *s;

    assert_non_null(b);
    s = array_spec_fmt(b, throttle ? *throttle : 0);
    bitmap_destroy(b);
    return s;
}

/* A range far over MaxArraySize is refused at once, not walked (the
 * fuzzer found one that held the controller's loop for hours). */
static void huge_ranges_are_refused_at_once(void **state)
{
    drv_error_t error = {{0}};

    (void)state;
    errno = 0;
    assert_null(array_spec_parse("1-5666666666666666:2%1", 1001, NULL,
                                 &error));
    assert_int_equal(errno, ERANGE);
    assert_null(array_spec_parse("0-18446744073709551000", 1001, NULL,
                                 &error));
}

static void forms_parse_as_slurm(void **state)
{
    static const struct { const char *in, *out; } cases[] = {
        {"0-99", "0-99"}, {"1,3,5-9", "1,3,5-9"}, {"0-15:4", "0-12:4"},
        {"0-19%5", "0-19%5"}, {"7", "7"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint32_t t = 0;
        char *s = fmt_of(cases[i].in, &t);
        assert_string_equal(s, cases[i].out);
        free(s);
    }
}

/* The cases of Slurm's own test of its client-side task list (hex masks
 * 0x55554, 0x45174, 0x55154, 0x5555555555155 with a throttle of 9). */
static void pending_lists_fold_and_cut_as_slurm(void **state)
{
    static const struct { const char *in, *out; } cases[] = {
        {"2-18:2%9", "2-18:2%9"},
        {"2,4-6,8,12,14,18%9", "2,4-6,8,12,14,18%9"},
        {"2-8:2,12-18:2%9", "2,4,6,8,12,14,16,18%9"},
        {"0-8:2,12-50:2%9",
         "0,2,4,6,8,12,14,16,18,20,22,24,26,28,30,32,34,36,38,40,42,44...%9"},
        {"4,8", "4-8:4"}, {"0-14:2,15", "0,2,4,6,8,10,12,14-15"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint32_t t = 0;
        char *s = fmt_of(cases[i].in, &t);
        assert_string_equal(s, cases[i].out);
        free(s);
    }
}

/* A list of exactly 61 characters is whole; from 62 on it is cut. */
static void cut_starts_at_62_characters(void **state)
{
    bitmap_t *b = bitmap_create(200);
    char *s;

    (void)state;
    /* "100,102,...": 4 characters a task, so 15 tasks + "1" = 61. */
    for (int k = 0; k < 15; k++)
        bitmap_set(b, (size_t)(100 + 3 * k));
    bitmap_set(b, 1);
    s = array_spec_fmt(b, 0);
    assert_int_equal(strlen(s), 61);
    free(s);
    bitmap_clear(b, 1);
    bitmap_set(b, 11);
    s = array_spec_fmt(b, 0);
    assert_int_equal(strlen(s), 63);
    assert_string_equal(s + 60, "...");
    free(s);
    bitmap_destroy(b);
}

static void step_of_a_progression(void **state)
{
    bitmap_t *b = array_spec_parse("0-15:4", 1001, NULL, NULL);

    (void)state;
    assert_int_equal(array_spec_step(b), 4);
    bitmap_destroy(b);
    b = array_spec_parse("1,2,5", 1001, NULL, NULL);
    assert_int_equal(array_spec_step(b), 1);
    bitmap_destroy(b);
}

static void rejects_bad_syntax_and_size(void **state)
{
    static const char *const bad[] = {"", "a", "1-", "5-2", "1,,2", "0-4:0",
                                      "1%", "1%x", "1-3x"};
    drv_error_t error = {{0}};

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        errno = 0;
        assert_null(array_spec_parse(bad[i], 1001, NULL, &error));
        assert_int_equal(errno, EINVAL);
    }
    errno = 0;
    assert_null(array_spec_parse("0-2000000", 10001, NULL, &error));
    assert_int_equal(errno, ERANGE);
    assert_null(array_spec_parse("1001", 1001, NULL, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(forms_parse_as_slurm),
        cmocka_unit_test(huge_ranges_are_refused_at_once),
        cmocka_unit_test(pending_lists_fold_and_cut_as_slurm),
        cmocka_unit_test(cut_starts_at_62_characters),
        cmocka_unit_test(step_of_a_progression),
        cmocka_unit_test(rejects_bad_syntax_and_size),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
