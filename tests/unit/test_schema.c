/* SPDX-License-Identifier: Apache-2.0
 *
 * test_schema.c - type, range and size checks of request bodies, and the
 * message schema as documentation
 *
 * Run with the path of docs/protocol-messages.md and of src/ as its
 * arguments, it checks every message the daemons handle has a table and
 * checks the file equals what the tables print; with
 * DROVER_SCHEMA_WRITE=1 in the environment it rewrites the file instead.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "proto/schema.h"

static const struct schema_field table[] = {
    {"time_limit_s", SCHEMA_INT, -1, SCHEMA_TIME_MAX_S, EDRV_INVALID_TIME_LIMIT, 0, NULL, NULL},
    {"hold", SCHEMA_BOOL, 0, 0, 0, 0, NULL, NULL},
    {"name", SCHEMA_STR, 0, 8, EDRV_PATHNAME_TOO_LONG, SCHEMA_PRINTABLE, NULL, NULL},
    {"command", SCHEMA_STR, 0, 8, 0, 0, NULL, NULL},
    {"argv", SCHEMA_STR_LIST, 0, 2, 0, 0, NULL, NULL},
    {"env", SCHEMA_STR_MAP, 0, 2, 0, 0, NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL},
};

/* schema_check() of JSON text 'text'; errno and error text in *out. */
static int check(const char *text, drv_error_t *error)
{
    json_t *body = json_loads(text, 0, NULL);
    int rc;

    assert_non_null(body);
    *error = (drv_error_t){{0}};
    rc = schema_check(body, table, error);
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
    assert_int_equal(schema_int(body, "absent", 0, 10, 0, &v, &error), 0);
    assert_int_equal(v, -5);
    assert_int_equal(schema_int(body, "n", 0, 10, 0, &v, &error), 1);
    assert_int_equal(v, 7);
    assert_int_equal(schema_int(body, "n", 8, 10, EDRV_INVALID_NICE, &v, &error),
                     -1);
    assert_int_equal(errno, EDRV_INVALID_NICE);
    assert_int_equal(schema_int(body, "s", 0, 10, 0, &v, &error), -1);
    assert_int_equal(errno, EDRV_PROTOCOL_MALFORMED);
    json_decref(body);
}

static const struct schema_field needs[] = {
    {"argv", SCHEMA_STR_LIST, 1, 4, 0, SCHEMA_REQUIRED, NULL, NULL},
    {"key", SCHEMA_STR, 4, 4, 0, 0, NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL},
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
    assert_int_equal(schema_check(ok, needs, &error), 0);
    assert_int_equal(schema_check(none, needs, &error), -1);
    assert_int_equal(errno, EDRV_PROTOCOL_MALFORMED);
    assert_string_equal(error.text, "argv: missing");
    assert_int_equal(schema_check(empty, needs, &error), -1);
    assert_non_null(strstr(error.text, "argv: 0 members, under the minimum"));
    assert_int_equal(schema_check(shortkey, needs, &error), -1);
    assert_non_null(strstr(error.text, "key: 3 bytes, under the minimum"));
    json_decref(ok);
    json_decref(none);
    json_decref(empty);
    json_decref(shortkey);
}

static const struct schema_field kinds[] = {
    {"ids", SCHEMA_INT_LIST, 0, 3, 0, 0, NULL, NULL},
    {"obj", SCHEMA_OBJECT, 0, 2, 0, 0, NULL, NULL},
    {"any", SCHEMA_ARRAY, 0, 2, 0, 0, NULL, NULL},
    {"key", SCHEMA_STR, 0, 4, 0, SCHEMA_HEX, NULL, NULL},
    {NULL, 0, 0, 0, 0, 0, NULL, NULL},
};

static void lists_objects_and_hex(void **state)
{
    static const struct {
        const char *body;
        int ok;
        const char *error;
    } cases[] = {
        {"{\"ids\": [1, 2], \"obj\": {\"a\": [1]}, \"any\": [1, \"x\"], "
         "\"key\": \"0aF9\"}", 1, NULL},
        {"{\"ids\": [1, \"2\"]}", 0, "ids: must be an array of integers"},
        {"{\"ids\": [1, 2, 3, 4]}", 0, "ids: 4 members, over the limit of 3"},
        {"{\"obj\": [1]}", 0, "obj: must be an object"},
        {"{\"any\": {}}", 0, "any: must be an array"},
        {"{\"key\": \"0g\"}", 0, "key: must be 4 hex digits"},
    };
    drv_error_t error;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *body = json_loads(cases[i].body, 0, NULL);

        error = (drv_error_t){{0}};
        assert_non_null(body);
        assert_int_equal(schema_check(body, kinds, &error),
                         cases[i].ok ? 0 : -1);
        if (!cases[i].ok) {
            assert_int_equal(errno, EDRV_PROTOCOL_MALFORMED);
            assert_string_equal(error.text, cases[i].error);
        }
        json_decref(body);
    }
}

/* Every table ends, names its keys once, has a doc, a sane range. */
static void message_tables_are_well_formed(void **state)
{
    (void)state;
    assert_non_null(proto_schema_find("job_submit"));
    assert_null(proto_schema_find("no_such_message"));
    for (const struct proto_schema *m = proto_schemas; m->type; m++) {
        assert_non_null(m->doc);
        assert_non_null(m->answer);
        assert_ptr_equal(proto_schema_find(m->type), m);
        for (const struct schema_field *f = m->body; f && f->key; f++) {
            if (!f->doc)
                fail_msg("%s.%s: no doc", m->type, f->key);
            if (f->min > f->max)
                fail_msg("%s.%s: min over max", m->type, f->key);
            for (const struct schema_field *g = f + 1; g->key; g++)
                if (!strcmp(f->key, g->key))
                    fail_msg("%s.%s: twice", m->type, f->key);
        }
    }
}

static const char *doc_path, *src_root;

/* Each "{"type", fn, PROTO_ROLE..." row of the daemons' handler tables
 * in 'dir' must name a message with a schema. */
static int check_handlers_in(const char *dir)
{
    char path[8192], line[1024], type[128];
    DIR *d = opendir(dir);
    struct dirent *e;
    int rows = 0;

    if (!d)
        fail_msg("%s: %s", dir, strerror(errno));
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        FILE *f;

        if (n < 3 || strcmp(e->d_name + n - 2, ".c"))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        assert_non_null(f = fopen(path, "r"));
        while (fgets(line, sizeof(line), f)) {
            if (!strstr(line, "PROTO_ROLE")
                || sscanf(line, " {\"%127[a-z_]\",", type) != 1)
                continue;
            rows++;
            if (!proto_schema_find(type))
                fail_msg("%s: message '%s' has no schema in "
                         "src/proto/schema_msgs.c", path, type);
        }
        fclose(f);
    }
    closedir(d);
    return rows;
}

static void every_handled_message_has_a_schema(void **state)
{
    const char *dirs[] = {"ctld", "noded", "dbd"};
    char dir[4096];
    int rows = 0;

    (void)state;
    if (!src_root)
        skip();
    for (size_t i = 0; i < 3; i++) {
        snprintf(dir, sizeof(dir), "%s/%s", src_root, dirs[i]);
        rows += check_handlers_in(dir);
    }
    assert_true(rows >= 28); /* the scan found the tables */
}

/* docs/protocol-messages.md is what the tables print. */
static void doc_file_matches_the_tables(void **state)
{
    char *text = NULL, *want = NULL;
    size_t len = 0, wlen = 0;
    FILE *f = open_memstream(&text, &len);

    (void)state;
    if (!doc_path)
        skip();
    assert_int_equal(schema_doc_write(f), 0);
    fclose(f);
    if (getenv("DROVER_SCHEMA_WRITE")) {
        FILE *out = fopen(doc_path, "w");

        assert_non_null(out);
        fwrite(text, 1, len, out);
        assert_int_equal(fclose(out), 0);
    }
    f = fopen(doc_path, "r");
    if (!f)
        fail_msg("%s: missing; run DROVER_SCHEMA_WRITE=1 %s", doc_path,
                 "build/tests/unit/test_schema docs/protocol-messages.md");
    want = malloc(len + 2);
    wlen = fread(want, 1, len + 1, f);
    fclose(f);
    if (wlen != len || memcmp(want, text, len))
        fail_msg("%s differs from the schema tables; rerun with "
                 "DROVER_SCHEMA_WRITE=1 and review the diff", doc_path);
    free(want);
    free(text);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_bodies_pass),
        cmocka_unit_test(integers_out_of_range_name_the_key),
        cmocka_unit_test(wrong_types_are_errors),
        cmocka_unit_test(sizes_and_control_characters),
        cmocka_unit_test(req_int_reads_one_key),
        cmocka_unit_test(required_keys_and_minimum_sizes),
        cmocka_unit_test(lists_objects_and_hex),
        cmocka_unit_test(message_tables_are_well_formed),
        cmocka_unit_test(doc_file_matches_the_tables),
        cmocka_unit_test(every_handled_message_has_a_schema),
    };

    doc_path = argc > 1 ? argv[1] : NULL;
    src_root = argc > 2 ? argv[2] : NULL;
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
