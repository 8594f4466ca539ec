/* SPDX-License-Identifier: Apache-2.0
 *
 * test_depspec.c - sbatch --dependency expressions
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "common/depspec.h"

static void several_ids_and_types(void **state)
{
    struct dep_list *d = dep_parse("afterok:12:13,afterany:14_2", NULL);

    (void)state;
    assert_non_null(d);
    assert_false(d->any);
    assert_int_equal(d->count, 3);
    assert_int_equal(d->items[0].type, DEP_AFTER_OK);
    assert_int_equal(d->items[1].job_id, 13);
    assert_int_equal(d->items[2].type, DEP_AFTER_ANY);
    assert_int_equal(d->items[2].task_id, 2);
    dep_list_destroy(d);
}

static void formats_as_scontrol(void **state)
{
    static const struct { const char *in, *out; } cases[] = {
        {"afterok:8379", "afterok:8379(unfulfilled)"},
        {"after:5+10", "after:5+10(unfulfilled)"},
        {"afterok:1?afternotok:2", "afterok:1(unfulfilled)?afternotok:2(unfulfilled)"},
        {"singleton", "singleton(unfulfilled)"},
        {"aftercorr:7", "aftercorr:7(unfulfilled)"},
        {"afterok:3(failed)", "afterok:3(failed)"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct dep_list *d = dep_parse(cases[i].in, NULL);
        char *s;
        assert_non_null(d);
        s = dep_fmt(d, true);
        assert_string_equal(s, cases[i].out);
        free(s);
        dep_list_destroy(d);
    }
}

static void rejects_bad_expressions(void **state)
{
    static const char *const bad[] = {"", "afterok", "afterok:", "afterok:x",
                                      "afterfoo:1", "afterok:1,afterok:2?after:3",
                                      "afterok:1+5", "singleton:3", "afterok:0"};
    drv_error_t error = {{0}};

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        errno = 0;
        assert_null(dep_parse(bad[i], &error));
        assert_int_equal(errno, EINVAL);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(several_ids_and_types),
        cmocka_unit_test(formats_as_scontrol),
        cmocka_unit_test(rejects_bad_expressions),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
