/* SPDX-License-Identifier: Apache-2.0
 *
 * test_stepio.c - the client end of step I/O shared by srun and sattach:
 * -l labels across frames, the I/O secret and its check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cmd/lib/stepio.h"

/* What stepio_print() wrote for 'frames' (NULL-terminated) of one task
 * and stream. */
static char *printed(int rank, bool label, const char *const *frames)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bool mid = false;

    for (size_t i = 0; frames[i]; i++)
        stepio_print(f, rank, label, &mid, frames[i], strlen(frames[i]));
    fclose(f);
    return buf;
}

static void label_goes_once_per_line_across_frames(void **state)
{
    (void)state;
    const char *const frames[] = {"tick 1\ntick", " 2\n", "\n", "x", NULL};
    char *out = printed(3, true, frames);

    assert_string_equal(out, "3: tick 1\n3: tick 2\n3: \n3: x");
    free(out);
}

static void no_label_prints_bytes_as_they_are(void **state)
{
    (void)state;
    const char *const frames[] = {"a\nb", "c\n", NULL};
    char *out = printed(0, false, frames);

    assert_string_equal(out, "a\nbc\n");
    free(out);
}

static void key_is_hex_and_checked_exactly(void **state)
{
    (void)state;
    char key[2 * STEPIO_KEY_BYTES + 1], other[2 * STEPIO_KEY_BYTES + 1];
    json_t *hello;

    stepio_make_key("test", key);
    stepio_make_key("test", other);
    assert_int_equal(strlen(key), 2 * STEPIO_KEY_BYTES);
    assert_int_equal(strspn(key, "0123456789abcdef"), 2 * STEPIO_KEY_BYTES);
    assert_string_not_equal(key, other);
    hello = json_pack("{s:s}", "io_key", key);
    assert_true(stepio_key_ok(key, hello));
    assert_false(stepio_key_ok(other, hello));
    json_object_set_new(hello, "io_key", json_string("abc"));
    assert_false(stepio_key_ok(key, hello));
    json_object_del(hello, "io_key");
    assert_false(stepio_key_ok(key, hello));
    json_decref(hello);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(label_goes_once_per_line_across_frames),
        cmocka_unit_test(no_label_prints_bytes_as_they_are),
        cmocka_unit_test(key_is_hex_and_checked_exactly),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
