/* SPDX-License-Identifier: Apache-2.0
 *
 * test_launch_store.c - pending jobs' launch data, compact and shared
 *
 * Identical submissions hold one stored launch; a launch differing in
 * any member (script, environment, argv, flags) gets its own; the stored
 * form unpacks to what was packed; a sweep keeps what jobs hold (the
 * sanitizer build sees a launch freed too early or never).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>

#include "ctld/launch_store.h"

static json_t *launch(const char *script, const char *arg, const char *env)
{
    return json_pack("{s:s s:[s] s:{s:s}}", "script", script, "argv", arg,
                     "env", "HOME", env);
}

static void identical_launches_are_one_object(void **state)
{
    struct launch_store *ls = launch_store_create();
    json_t *a = launch("#!/bin/sh\ntrue\n", "x", "/home/a");
    json_t *b = launch("#!/bin/sh\ntrue\n", "x", "/home/a");
    json_t *c = launch("#!/bin/sh\ntrue\n", "y", "/home/a");
    json_t *d = launch("#!/bin/sh\ntrue\n", "x", "/home/b");
    json_t *sa, *sb, *sc, *sd, *back;

    (void)state;
    sa = launch_store_pack(ls, a);
    sb = launch_store_pack(ls, b);
    sc = launch_store_pack(ls, c);
    sd = launch_store_pack(ls, d);
    assert_ptr_equal(sa, sb);
    assert_ptr_not_equal(sa, sc);
    assert_ptr_not_equal(sa, sd);
    /* Texts stay shared across launches that differ elsewhere. */
    assert_ptr_equal(json_object_get(sa, "script"),
                     json_object_get(sc, "script"));
    assert_ptr_equal(json_object_get(sa, "env_text"),
                     json_object_get(sc, "env_text"));
    /* Re-packing a stored launch (journal replay) shares it again. */
    json_t *again = launch_store_pack(ls, sa);
    assert_ptr_equal(again, sa);
    json_decref(again);
    back = launch_store_unpack(sa);
    assert_true(json_equal(back, a));
    json_decref(back);
    json_decref(sb);
    json_decref(sc);
    /* sc's launch goes; sa and sd are held: the table's reference and
     * ours (sb was sa) */
    launch_store_sweep(ls);
    assert_int_equal(sa->refcount, 2);
    assert_int_equal(sd->refcount, 2);
    assert_string_equal(json_string_value(json_object_get(sa, "script")),
                        "#!/bin/sh\ntrue\n");
    json_decref(sa);
    json_decref(sd);
    launch_store_sweep(ls);
    launch_store_destroy(ls);
    json_decref(a);
    json_decref(b);
    json_decref(c);
    json_decref(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identical_launches_are_one_object),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
