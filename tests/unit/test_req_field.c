/* SPDX-License-Identifier: Apache-2.0
 *
 * test_req_field.c - type, range and size checks of request bodies
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ctld/req_field.h"

static const struct req_field table[] = {
    {"time_limit_s", REQ_INT, -1, REQ_TIME_MAX_S, EDRV_INVALID_TIME_LIMIT, 0},
    {"hold", REQ_BOOL, 0, 0, 0, 0},
    {"name", REQ_STR, 0, 8, EDRV_PATHNAME_TOO_LONG, REQ_PRINTABLE},
    {"command", REQ_STR, 0, 8, 0, 0},
    {"argv", REQ_STR_LIST, 0, 2, 0, 0},
    {"env", REQ_STR_MAP, 0, 2, 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

/* req_check() of JSON text 'text'; errno and error text in *out. */
static int check(const char *text, drv_error_t *error)
{
    json_t *body = json_loads(text, 0, NULL);
    int rc;

    assert_non_null(body);
    *error = (drv_error_t){{0}};
    rc = req_check(body, table, error);
    json_decref(body);
    return rc;
}

static void valid_bodies_pass(void **state)
{
    drv_error_t error;

    (void)state;
    assert_int_equal(check("{}", &error), 0);
    assert_int_equal(check("{\"time_limit_s\": -1, \"hold\": true, "
                           "\"name\": \"job\", \"argv\": [\"a\", \"b\"], "
                           "\"env\": {\"A\": \"1\"}, \"other\": [[1]]}",
                           &error),
                     0);
    assert_int_equal(check("{\"time_limit_s\": 257698037580}", &error), 0);
    assert_int_equal(check("{\"command\": \"a\\nb\"}", &error), 0);
}

static void integers_out_of_range_name_the_key(void **state)
{
    drv_error_t error;

    (void)state;
    assert_int_equal(check("{\"time_limit_s\": -2}", &error), -1);
    assert_int_equal(errno, EDRV_INVALID_TIME_LIMIT);
    assert_non_null(strstr(error.text, "time_limit_s"));
    assert_int_equal(check("{\"time_limit_s\": 9223372036854775807}", &error),
                     -1);
    assert_int_equal(errno, EDRV_INVALID_TIME_LIMIT);
    assert_int_equal(check("{\"time_limit_s\": 257698037581}", &error), -1);
}

static void wrong_types_are_errors(void **state)
{
    drv_error_t error;

    (void)state;
    assert_int_equal(check("{\"time_limit_s\": \"abc\"}", &error), -1);
    assert_int_equal(errno, EDRV_PROTOCOL_MALFORMED);
    assert_string_equal(error.text, "time_limit_s: must be an integer");
    assert_int_equal(check("{\"time_limit_s\": 1.5}", &error), -1);
    assert_int_equal(check("{\"time_limit_s\": null}", &error), -1);
    assert_int_equal(check("{\"hold\": 1}", &error), -1);
    assert_int_equal(check("{\"hold\": \"yes\"}", &error), -1);
    assert_int_equal(check("{\"name\": 5}", &error), -1);
    assert_int_equal(check("{\"argv\": [\"a\", 1]}", &error), -1);
    assert_int_equal(check("{\"argv\": \"a\"}", &error), -1);
    assert_int_equal(check("{\"env\": {\"A\": {\"B\": \"C\"}}}", &error), -1);
    assert_string_equal(error.text, "env: must be an object of strings");
    assert_int_equal(check("[]", &error), -1);
    assert_int_equal(errno, EDRV_PROTOCOL_MALFORMED);
}

static void sizes_and_control_characters(void **state)
{
    drv_error_t error;

    (void)state;
    assert_int_equal(check("{\"name\": \"12345678\"}", &error), 0);
    assert_int_equal(check("{\"name\": \"123456789\"}", &error), -1);
    assert_int_equal(errno, EDRV_PATHNAME_TOO_LONG);
    assert_string_equal(error.text, "name: 9 bytes, over the limit of 8");
    assert_int_equal(check("{\"name\": \"a\\nb\"}", &error), -1);
    assert_int_equal(errno, EDRV_CONTROL_CHARACTER);
    assert_string_equal(error.text, "name: control character 0x0a at byte 2");
    assert_int_equal(check("{\"name\": \"a\\u001b[2J\"}", &error), -1);
    assert_int_equal(check("{\"name\": \"\\u007f\"}", &error), -1);
    assert_int_equal(check("{\"name\": \"caf\\u00e9\"}", &error), 0);
    assert_int_equal(check("{\"argv\": [\"a\", \"b\", \"c\"]}", &error), -1);
    assert_int_equal(errno, EDRV_PROTOCOL_MALFORMED);
}

static void req_int_reads_one_key(void **state)
{
    json_t *body = json_pack("{s:I s:s}", "n", (json_int_t)7, "s", "x");
    drv_error_t error = {{0}};
    int64_t v = -5;

    (void)state;
    assert_int_equal(req_int(body, "absent", 0, 10, 0, &v, &error), 0);
    assert_int_equal(v, -5);
    assert_int_equal(req_int(body, "n", 0, 10, 0, &v, &error), 1);
    assert_int_equal(v, 7);
    assert_int_equal(req_int(body, "n", 8, 10, EDRV_INVALID_NICE, &v, &error),
                     -1);
    assert_int_equal(errno, EDRV_INVALID_NICE);
    assert_int_equal(req_int(body, "s", 0, 10, 0, &v, &error), -1);
    assert_int_equal(errno, EDRV_PROTOCOL_MALFORMED);
    json_decref(body);
}

static const struct req_field needs[] = {
    {"argv", REQ_STR_LIST, 1, 4, 0, REQ_REQUIRED},
    {"key", REQ_STR, 4, 4, 0, 0},
    {NULL, 0, 0, 0, 0, 0},
};

static void required_keys_and_minimum_sizes(void **state)
{
    drv_error_t error = {{0}};
    json_t *ok = json_loads("{\"argv\": [\"a\"], \"key\": \"abcd\"}", 0,
                            NULL);
    json_t *none = json_loads("{\"key\": \"abcd\"}", 0, NULL);
    json_t *empty = json_loads("{\"argv\": []}", 0, NULL);
    json_t *shortkey = json_loads("{\"argv\": [\"a\"], \"key\": \"abc\"}",
                                  0, NULL);

    (void)state;
    assert_int_equal(req_check(ok, needs, &error), 0);
    assert_int_equal(req_check(none, needs, &error), -1);
    assert_int_equal(errno, EDRV_PROTOCOL_MALFORMED);
    assert_string_equal(error.text, "argv: missing");
    assert_int_equal(req_check(empty, needs, &error), -1);
    assert_non_null(strstr(error.text, "argv: 0 members, under the minimum"));
    assert_int_equal(req_check(shortkey, needs, &error), -1);
    assert_non_null(strstr(error.text, "key: 3 bytes, under the minimum"));
    json_decref(ok);
    json_decref(none);
    json_decref(empty);
    json_decref(shortkey);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_bodies_pass),
        cmocka_unit_test(integers_out_of_range_name_the_key),
        cmocka_unit_test(wrong_types_are_errors),
        cmocka_unit_test(sizes_and_control_characters),
        cmocka_unit_test(req_int_reads_one_key),
        cmocka_unit_test(required_keys_and_minimum_sizes),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
