/* SPDX-License-Identifier: Apache-2.0
 *
 * test_scrontab_file.c - a crontab file into crontab_set's entries: the
 * job each entry becomes (script, name, directory, #SCRON options through
 * sbatch's parser), variables, bad lines named, #DISABLED: lines
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/lib/scrontab_file.h"

static const char *field(json_t *entry, const char *key)
{
    return json_string_value(json_object_get(json_object_get(entry, "job"),
                                             key));
}

static json_int_t num(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

static void entries_become_jobs(void **state)
{
    const char *text = "# a comment\n"
                       "OUT=/tmp/o\n"
                       "#SCRON -J named\n"
                       "  #SCRON --time=5 -D /scratch\n"
                       "*/5 * * * * echo hi >> $OUT\n"
                       "\n"
                       "@daily /bin/true  arg\n";
    int bad = -1;
    json_t *e = scrontab_file_entries(text, "/home/u", &bad, stderr), *a, *b;

    (void)state;
    assert_non_null(e);
    assert_int_equal(bad, 0);
    assert_int_equal(json_array_size(e), 2);
    a = json_array_get(e, 0);
    b = json_array_get(e, 1);
    assert_int_equal(num(a, "line_start"), 3);
    assert_int_equal(num(a, "line_end"), 5);
    assert_string_equal(json_string_value(json_object_get(a, "cron_spec")),
                        "*/5 * * * *");
    assert_string_equal(field(a, "name"), "named");
    assert_string_equal(field(a, "work_dir"), "/scratch");
    assert_int_equal(num(json_object_get(a, "job"), "time_limit_s"), 300);
    assert_string_equal(field(a, "script"),
                        "#!/bin/sh\n# This job was submitted through "
                        "scrontab\n#SCRON -J named\n  #SCRON --time=5 -D "
                        "/scratch\n# crontab time request was: "
                        "'*/5 * * * *'\necho hi >> /tmp/o\n");
    assert_true(json_is_true(json_object_get(json_object_get(a, "job"),
                                             "get_user_env")));
    assert_int_equal(num(b, "line_start"), 7);
    assert_int_equal(num(b, "line_end"), 7);
    assert_string_equal(json_string_value(json_object_get(b, "cron_spec")),
                        "@daily");
    assert_string_equal(field(b, "name"), "/bin/true"); /* first word */
    assert_string_equal(field(b, "work_dir"), "/home/u"); /* the home */
    json_decref(e);
}

static void bad_lines_are_named(void **state)
{
    char *msgs = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&msgs, &len);
    int bad = 0;

    (void)state;
    assert_null(scrontab_file_entries("0 5 * * * a\n* * 32 * * b\n",
                                      "/h", &bad, err));
    assert_int_equal(bad, 2);
    assert_null(scrontab_file_entries("#SCRON --bogus\n0 5 * * * a\n", "/h",
                                      &bad, err));
    assert_int_equal(bad, 2);
    fclose(err);
    assert_non_null(strstr(msgs, "scrontab: error: line 2: day of month: "
                                 "'32'"));
    assert_non_null(strstr(msgs, "line 1: invalid #SCRON options"));
    free(msgs);
}

static void disabled_lines_are_marked(void **state)
{
    json_t *lines = json_pack("[i,i]", 2, 3);
    char *out = scrontab_file_mark("a\nb\nc\nd", lines, "#DISABLED: ");

    (void)state;
    assert_string_equal(out, "a\n#DISABLED: b\n#DISABLED: c\nd");
    free(out);
    out = scrontab_file_mark("x\n", NULL, "#BAD: ");
    assert_string_equal(out, "x\n");
    free(out);
    json_decref(lines);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(entries_become_jobs),
        cmocka_unit_test(bad_lines_are_named),
        cmocka_unit_test(disabled_lines_are_marked),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
