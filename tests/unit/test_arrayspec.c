/* SPDX-License-Identifier: Apache-2.0
 *
 * test_arrayspec.c - sbatch --array expressions
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
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

static void forms_parse_as_slurm(void **state)
{
    static const struct { const char *in, *out; } cases[] = {
        {"0-99", "0-99"}, {"1,3,5-9", "1,3,5-9"}, {"0-15:4", "0,4,8,12"},
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
        cmocka_unit_test(step_of_a_progression),
        cmocka_unit_test(rejects_bad_syntax_and_size),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
