/* SPDX-License-Identifier: Apache-2.0
 *
 * test_multiprog.c - srun --multi-prog files: Slurm's checks and each
 * rank's argv (common/multiprog.h)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "common/multiprog.h"

static void free_v(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static void argv_has_substitutions_quotes_and_offsets(void **state)
{
    const char *text = "# c\n0-1,4 prog %t-%o 'a %t' \"b c\" d\\ e \\\n  f\n"
                       "* other %o\n";
    char **v;

    (void)state;
    v = multiprog_argv(text, 4);
    assert_non_null(v);
    assert_string_equal(v[0], "prog");
    assert_string_equal(v[1], "4-2");
    assert_string_equal(v[2], "a %t");
    assert_string_equal(v[3], "b c");
    assert_string_equal(v[4], "d e");
    assert_string_equal(v[5], "f");
    assert_null(v[6]);
    free_v(v);
    v = multiprog_argv(text, 3);
    assert_string_equal(v[0], "other");
    assert_string_equal(v[1], "3");
    free_v(v);
    assert_null(multiprog_argv("0 a\n", 1));
    assert_null(multiprog_argv("0 a 'open\n", 0));
}

static void check_counts_and_errors(void **state)
{
    char err[256];
    int n = 1;

    (void)state;
    assert_int_equal(multiprog_check("0-3 a\n", "f", &n, false, err,
                                     sizeof(err)), 0);
    assert_int_equal(n, 4);
    n = 2;
    assert_int_equal(multiprog_check("0 a\n0 b\n", "f", &n, true, err,
                                     sizeof(err)), -1);
    assert_string_equal(err, "Duplicate record for task 0\n"
                             "Line 2 of configuration file f invalid");
    assert_int_equal(multiprog_check("0 a\n", "f", &n, true, err,
                                     sizeof(err)), -1);
    assert_string_equal(err, "Configuration file f invalid, no record for "
                             "task id 1");
    assert_int_equal(multiprog_check("1 a\n* b\n", "f", &n, true, err,
                                     sizeof(err)), 0);
    assert_int_equal(multiprog_check("0 a \\\n 1 b\n1 c\n", "f", &n, true,
                                     err, sizeof(err)), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(argv_has_substitutions_quotes_and_offsets),
        cmocka_unit_test(check_counts_and_errors),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
