/* SPDX-License-Identifier: Apache-2.0
 *
 * test_jsonw.c - the streaming JSON writer against jansson
 *
 * Whatever jsonw writes must parse (with duplicate keys refused, as the
 * frame decoder does) to what the same calls through a jansson object
 * give: strings with every byte below 0x20, quotes, backslashes and UTF-8,
 * integers at both ends of int64_t, nesting and commas, a reserve larger
 * than the first allocation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "proto/jsonw.h"

/* Parse what 'w' holds after 'reserve' bytes. */
static json_t *parse(struct jsonw *w, size_t reserve)
{
    size_t len;
    char *buf = jsonw_take(w, &len);
    json_error_t err;
    json_t *v;

    assert_non_null(buf);
    v = json_loadb(buf + reserve, len - reserve, JSON_REJECT_DUPLICATES,
                   &err);
    if (!v)
        fail_msg("bad JSON: %s: %.*s", err.text, (int)(len - reserve),
                 buf + reserve);
    free(buf);
    return v;
}

static void strings_and_numbers(void **state)
{
    static const int64_t ints[] = {0, 1, -1, 9, 10, 4294967295LL, INT64_MAX,
                                   INT64_MIN};
    char all[128];
    struct jsonw w;
    json_t *v, *want = json_array();

    (void)state;
    for (int i = 1; i < 128; i++)
        all[i - 1] = (char)i;
    all[127] = '\0';
    jsonw_init(&w, 0);
    jsonw_arr_open(&w);
    const char *strs[] = {"", all, "a\"b\\c", "tab\there\nnewline",
                          "caf\xc3\xa9 \xe2\x82\xac", "/slash"};
    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
        jsonw_str(&w, strs[i]);
        json_array_append_new(want, json_string(strs[i]));
    }
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        jsonw_int(&w, ints[i]);
        json_array_append_new(want, json_integer(ints[i]));
    }
    jsonw_bool(&w, true);
    jsonw_bool(&w, false);
    jsonw_null(&w);
    jsonw_str(&w, NULL);
    json_array_append_new(want, json_true());
    json_array_append_new(want, json_false());
    json_array_append_new(want, json_null());
    json_array_append_new(want, json_null());
    jsonw_arr_close(&w);
    v = parse(&w, 0);
    assert_true(json_equal(v, want));
    json_decref(v);
    json_decref(want);
}

/* The same record through a jansson sink and a writer sink. */
static void put_record(const struct jsonw_sink *out)
{
    jsonw_put_int(out, "job_id", 42);
    jsonw_put_str(out, "name", "x\"y");
    jsonw_put_str(out, "absent", NULL);
    jsonw_put_bool(out, "hold", true);
    jsonw_put_json(out, "alloc", json_pack("[{s:s s:i}]", "node", "n1",
                                           "cpus", 2));
    jsonw_put_json(out, "none", NULL);
}

static void sinks_agree(void **state)
{
    enum { RESERVE = 5000 }; /* more than the first allocation */
    json_t *obj = json_object(), *list = json_array(), *members, *v;
    struct jsonw w;
    struct jsonw_sink out = {.w = &w};

    (void)state;
    put_record(&(struct jsonw_sink){.obj = obj});
    jsonw_init(&w, RESERVE);
    jsonw_obj_open(&w);
    jsonw_key(&w, "jobs");
    jsonw_arr_open(&w);
    for (int i = 0; i < 3; i++) {
        jsonw_obj_open(&w);
        put_record(&out);
        jsonw_obj_close(&w);
        json_array_append(list, obj);
    }
    jsonw_arr_close(&w);
    members = json_pack("{s:[] s:{}}", "empty", "nested");
    jsonw_members(&w, members);
    jsonw_key(&w, "k");
    jsonw_json(&w, json_object_get(members, "nested"));
    jsonw_obj_close(&w);
    assert_int_equal(w.len > RESERVE, 1);
    v = parse(&w, RESERVE);
    assert_true(json_equal(json_object_get(v, "jobs"), list));
    assert_null(json_object_get(json_array_get(list, 0), "absent"));
    assert_true(json_is_array(json_object_get(v, "empty")));
    assert_true(json_is_object(json_object_get(v, "k")));
    json_decref(v);
    json_decref(members);
    json_decref(list);
    json_decref(obj);
}

/* A record as a row: its members land in their columns whatever order
 * they come in, null where it has none; keys that are no column go. */
static void rows_place_members_by_column(void **state)
{
    static const char *const cols[] = {"hold", "job_id", "name", "absent",
                                       "alloc", "array_job_id"};
    struct jsonw w;
    struct jsonw_row row;
    struct jsonw_sink out = {.row = &row};
    json_t *v, *want;

    (void)state;
    jsonw_init(&w, 0);
    jsonw_row_init(&row, cols, 6);
    jsonw_arr_open(&w);
    for (int i = 0; i < 2; i++) {
        jsonw_row_begin(&row, &w);
        put_record(&out);
        jsonw_put_int(&out, "not_a_column", 7);
        if (i == 1) /* a group written from an object, as b_array does */
            jsonw_put_members(&out, json_pack("{s:i s:i}", "array_job_id",
                                              9, "array_task_id", 3));
        jsonw_row_write(&row, &w);
    }
    jsonw_arr_close(&w);
    jsonw_row_release(&row);
    v = parse(&w, 0);
    want = json_loads("[[true,42,\"x\\\"y\",null,[{\"node\":\"n1\","
                      "\"cpus\":2}],null],[true,42,\"x\\\"y\",null,"
                      "[{\"node\":\"n1\",\"cpus\":2}],9]]",
                      0, NULL);
    assert_non_null(want);
    if (!json_equal(v, want))
        fail_msg("rows: %s", json_dumps(v, JSON_COMPACT));
    json_decref(v);
    json_decref(want);
}

/* Rows whose members come in column order, out of it, again and not at
 * all, 500 of them in a row of the writer: each as jansson would write
 * the record's values by column (the last value of a key wins). */
static void rows_in_any_order_match_a_reference(void **state)
{
    static const char *const cols[] = {"a", "b", "c", "d", "e", "f"};
    struct jsonw w;
    struct jsonw_row row;
    struct jsonw_sink out = {.row = &row};
    json_t *want = json_array(), *v;
    unsigned seed = 7;

    (void)state;
    jsonw_init(&w, 0);
    jsonw_row_init(&row, cols, 6);
    jsonw_arr_open(&w);
    for (int i = 0; i < 500; i++) {
        json_t *ref = json_pack("[nnnnnn]");
        int puts = rand_r(&seed) % 9;
        bool ordered = i % 3 == 0;

        jsonw_row_begin(&row, &w);
        for (int k = 0; k < puts; k++) {
            int col = ordered ? k : rand_r(&seed) % 7; /* 6: no column */
            char key[2] = {(char)('a' + col), 0};

            if (ordered && col > 5)
                break;
            if (k % 2) {
                jsonw_put_int(&out, col < 6 ? cols[col] : key, i * 10 + k);
                if (col < 6)
                    json_array_set_new(ref, (size_t)col,
                                       json_integer(i * 10 + k));
            } else {
                jsonw_put_str(&out, col < 6 ? cols[col] : key, "s,\"]");
                if (col < 6)
                    json_array_set_new(ref, (size_t)col,
                                       json_string("s,\"]"));
            }
        }
        jsonw_row_write(&row, &w);
        json_array_append_new(want, ref);
    }
    jsonw_arr_close(&w);
    jsonw_row_release(&row);
    v = parse(&w, 0);
    if (!json_equal(v, want))
        fail_msg("rows: %s", json_dumps(v, JSON_COMPACT));
    json_decref(v);
    json_decref(want);
}

/* 10,000 records: the buffer grows many times and stays valid. */
static void large(void **state)
{
    struct jsonw w;
    json_t *v;

    (void)state;
    jsonw_init(&w, 0);
    jsonw_arr_open(&w);
    for (int i = 0; i < 10000; i++) {
        jsonw_obj_open(&w);
        jsonw_key(&w, "i");
        jsonw_int(&w, i);
        jsonw_key(&w, "s");
        jsonw_str(&w, "PENDING");
        jsonw_obj_close(&w);
    }
    jsonw_arr_close(&w);
    v = parse(&w, 0);
    assert_int_equal(json_array_size(v), 10000);
    assert_int_equal(
        json_integer_value(json_object_get(json_array_get(v, 9999), "i")),
        9999);
    json_decref(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(strings_and_numbers),
        cmocka_unit_test(sinks_agree),
        cmocka_unit_test(rows_place_members_by_column),
        cmocka_unit_test(rows_in_any_order_match_a_reference),
        cmocka_unit_test(large),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
