/* SPDX-License-Identifier: Apache-2.0
 *
 * test_squeue_fields.c - squeue asks the controller for only the job keys
 * it reads (job_info "fields"); printing, sorting and selecting a record
 * cut down to those keys must give what the full record gives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>

#include <cmocka.h>
#include <jansson.h>

#include "cmd/lib/format.h"
#include "cmd/lib/jobview.h"
#include "cmd/lib/jsonget.h"
#include "cmd/lib/rowtable.h"
#include "cmd/lib/squeue_print.h"
#include "proto/frame.h"
#include "proto/msg.h"

#define NOW 1795000000

/* Full job_info records of various shapes (docs/protocol.md). */
static const char *const full_jobs[] = {
    /* running, allocated, with the derived keys */
    "{\"job_id\":101,\"user_id\":1001,\"group_id\":1001,\"user_name\":\"alice\","
    "\"group_name\":\"users\",\"job_state\":\"RUNNING\",\"state_reason\":"
    "\"None\",\"completing\":false,\"priority\":7666,\"nice\":5,\"submit_time\":"
    "1794990000,\"eligible_time\":1794990000,\"start_time\":1794995000,"
    "\"end_time\":0,\"time_limit_s\":3600,\"nodes_min\":2,\"num_tasks\":4,"
    "\"cpus_per_task\":2,\"ntasks_per_node\":2,\"mem_per_node_mib\":2048,"
    "\"mem_per_cpu_mib\":0,\"exclusive\":true,\"name\":\"train\",\"partition\":"
    "\"gpu\",\"work_dir\":\"/home/alice\",\"account\":\"proj\",\"qos\":\"high\","
    "\"command\":\"/home/alice/run.sh\",\"comment\":\"c1\",\"nodes\":\"n[1-2]\","
    "\"node_count\":2,\"num_cpus\":8,\"batch_host\":\"n1\",\"tres_per_node\":"
    "\"gres:gpu:2\",\"exit_code\":\"0:0\"}",
    /* pending, planned */
    "{\"job_id\":102,\"user_id\":1002,\"group_id\":1002,\"user_name\":\"bob\","
    "\"group_name\":\"staff\",\"job_state\":\"PENDING\",\"state_reason\":"
    "\"Resources\",\"priority\":100,\"submit_time\":1794991000,\"start_time\":"
    "1795003000,\"end_time\":0,\"time_limit_s\":600,\"nodes_min\":1,"
    "\"num_tasks\":1,\"cpus_per_task\":1,\"mem_per_cpu_mib\":512,\"name\":"
    "\"wait\",\"partition\":\"debug\",\"nodes\":\"\",\"node_count\":1,"
    "\"num_cpus\":1,\"batch_host\":\"\",\"sched_nodes\":\"n3\"}",
    /* completing, finished base state */
    "{\"job_id\":103,\"user_id\":1001,\"group_id\":1001,\"user_name\":\"alice\","
    "\"job_state\":\"COMPLETED\",\"state_reason\":\"None\",\"completing\":true,"
    "\"priority\":0,\"submit_time\":1794980000,\"start_time\":1794981000,"
    "\"end_time\":1794999000,\"time_limit_s\":-1,\"name\":\"done\","
    "\"partition\":\"gpu\",\"nodes\":\"\",\"last_nodes\":\"n4\",\"node_count\":1,"
    "\"num_cpus\":4,\"batch_host\":\"n4\"}",
    /* failed: reason shown, last nodes */
    "{\"job_id\":104,\"user_id\":1003,\"group_id\":1003,\"job_state\":\"FAILED\","
    "\"state_reason\":\"NonZeroExitCode\",\"priority\":5,\"submit_time\":"
    "1794970000,\"start_time\":1794971000,\"end_time\":1794972000,"
    "\"time_limit_s\":60,\"name\":\"bad\",\"partition\":\"debug\",\"nodes\":"
    "\"n2\",\"last_nodes\":\"n2\",\"node_count\":1,\"num_cpus\":2}",
    /* pending array remainder */
    "{\"job_id\":200,\"user_id\":1002,\"user_name\":\"bob\",\"job_state\":"
    "\"PENDING\",\"state_reason\":\"JobHeldUser\",\"hold\":true,\"priority\":0,"
    "\"submit_time\":1794992000,\"start_time\":0,\"time_limit_s\":-1,"
    "\"array_job_id\":200,\"array_task_min\":0,\"array_task_max\":9,"
    "\"array_pending\":\"2-9\",\"array_task_str\":\"2-9%4\",\"name\":\"arr\","
    "\"partition\":\"debug\",\"nodes\":\"\",\"num_tasks\":1}",
    /* running array task */
    "{\"job_id\":201,\"user_id\":1002,\"user_name\":\"bob\",\"job_state\":"
    "\"RUNNING\",\"state_reason\":\"None\",\"priority\":50,\"submit_time\":"
    "1794992000,\"start_time\":1794999500,\"time_limit_s\":120,"
    "\"array_job_id\":200,\"array_task_id\":1,\"array_task_max\":9,\"name\":"
    "\"arr\",\"partition\":\"debug\",\"nodes\":\"n3\",\"node_count\":1,"
    "\"num_cpus\":1,\"batch_host\":\"n3\"}",
};

#define NJOBS (sizeof(full_jobs) / sizeof(full_jobs[0]))

static json_t *load(const char *text)
{
    json_error_t err;
    json_t *o = json_loads(text, 0, &err);

    if (!o)
        fail_msg("bad fixture: %s", err.text);
    return o;
}

/* 'full' with only the keys of 'keys' (a JSON array of names). */
static json_t *restrict_to(const json_t *full, const json_t *keys)
{
    json_t *o = json_object(), *k, *v;
    size_t i;

    json_array_foreach(keys, i, k) {
        if ((v = json_object_get(full, json_string_value(k))))
            json_object_set(o, json_string_value(k), v);
    }
    return o;
}

/* 'full' as a row of job_info "rows" whose columns are 'keys' (null
 * where it has no value), as the controller writes it. */
static json_t *to_row(const json_t *full, const json_t *keys)
{
    json_t *row = json_array(), *k, *v;
    size_t i;

    json_array_foreach(keys, i, k) {
        v = json_object_get(full, json_string_value(k));
        json_array_append_new(row, v ? json_incref(v) : json_null());
    }
    return row;
}

/* squeue's two readers of rows: jansson's (small answers) and
 * simdjson's (large ones, rowtable.h); every check runs with each. */
static const proto_frame_reader_f readers[] = {row_table_jansson_read,
                                               row_table_simd_read};
static proto_frame_reader_f reader;

/* 'rows' (stolen) under 'keys' in a job_info answer, read as squeue
 * reads it ('reader'): the message, whose body's "jobs" are the records
 * of *table. */
static json_t *read_rows(json_t *rows, const json_t *keys,
                         struct row_table **table)
{
    json_t *msg = json_pack("{s:i s:s s:{s:i s:O s:o}}", "v", 1, "type",
                            "job_info", "body", "now", NOW, "keys", keys,
                            "jobs", rows);
    char *text = json_dumps(msg, JSON_COMPACT);
    size_t len = strlen(text);
    char *padded = calloc(1, len + PROTO_DECODER_SLACK);
    struct row_table_read read = {.rows_key = "jobs"};
    drv_error_t error = {{0}};
    json_t *got;

    memcpy(padded, text, len);
    got = reader(padded, len, &read, &error);
    if (!got || !read.table)
        fail_msg("rows not read: %s", error.text);
    *table = read.table;
    free(text);
    free(padded);
    json_decref(msg);
    return got;
}

static char *print_one(const struct fmt_field *field, const json_t *job)
{
    struct fmt_item item = {.field = field, .width = 0, .suffix = ""};
    struct fmt_spec spec = {.prefix = "", .items = &item, .count = 1};
    struct squeue_ctx ctx = {.now = NOW, .noconvert = false};

    return fmt_row(&spec, job, &ctx);
}

static void check_table(const struct fmt_field *table)
{
    for (const struct fmt_field *f = table; f->header; f++) {
        const char *list = squeue_field_keys(f);
        json_t *keys = json_array();

        if (!list)
            fail_msg("no keys declared for %c/%s", f->letter, f->name);
        squeue_keys_add(keys, list);
        for (size_t j = 0; j < NJOBS; j++) {
            json_t *full = load(full_jobs[j]);
            json_t *cut = restrict_to(full, keys);
            struct row_table *rt;
            json_t *msg = read_rows(json_pack("[o]", to_row(full, keys)),
                                    keys, &rt);
            json_t *row = json_array_get(
                json_object_get(json_object_get(msg, "body"), "jobs"), 0);
            char *want = print_one(f, full), *got = print_one(f, cut), *r;

            if (strcmp(want, got))
                fail_msg("%c/%s on job %zu: \"%s\" cut, \"%s\" full",
                         f->letter, f->name, j, got, want);
            r = print_one(f, row);
            if (strcmp(want, r))
                fail_msg("%c/%s on job %zu: \"%s\" as a row, \"%s\" full",
                         f->letter, f->name, j, r, want);
            free(want);
            free(got);
            free(r);
            json_decref(full);
            json_decref(cut);
            json_decref(msg);
            row_table_free(rt);
        }
        json_decref(keys);
    }
}

/* 'check' once with each reader. */
static void with_each_reader(void (*check)(void))
{
    for (size_t r = 0; r < sizeof(readers) / sizeof(readers[0]); r++) {
        reader = readers[r];
        check();
    }
}

static void fields_print_the_same(void)
{
    check_table(squeue_fields);
    check_table(squeue_step_fields);
}

/* Every -o letter / -O name of squeue and squeue -s. */
static void every_field_prints_the_same(void **state)
{
    (void)state;
    with_each_reader(fields_print_the_same);
}

/* Sorted by 'sort' (NULL: default), the job ids in order, "-r" expanded. */
static char *sorted_ids(json_t *jobs, const char *sort)
{
    const json_t *sel[64];
    char *out = calloc(1, 1024);
    size_t n = json_array_size(jobs);

    job_view_expand_arrays(jobs);
    n = json_array_size(jobs);
    for (size_t i = 0; i < n && i < 64; i++)
        sel[i] = json_array_get(jobs, i);
    squeue_sort(sel, n, sort, NOW);
    for (size_t i = 0; i < n; i++) {
        char buf[64];
        size_t len = strlen(out);

        snprintf(out + len, 1024 - len, "%s,",
                 job_view_id(sel[i], buf, sizeof(buf)));
    }
    return out;
}

/* Sorting, selection and array folding read only the declared keys. */
static void sorts_order_the_same(void)
{
    const char *sorts[] = {NULL, "C", "D", "G", "M", "N", "P", "Q", "S",
                           "T", "U", "V", "e", "g", "i", "j", "l", "L",
                           "m", "p", "t", "u", "-V,i"};
    struct squeue_filter f = {0};

    for (size_t s = 0; s < sizeof(sorts) / sizeof(sorts[0]); s++) {
        json_t *keys = squeue_wanted_keys(NULL, sorts[s]);
        json_t *full = json_array(), *cut = json_array(), *rows = json_array();
        struct row_table *table;
        json_t *msg;
        char *want, *got, *r;

        for (size_t j = 0; j < NJOBS; j++) {
            json_t *o = load(full_jobs[j]);
            json_t *c = restrict_to(o, keys);

            assert_int_equal(squeue_job_selected(o, &f),
                             squeue_job_selected(c, &f));
            json_array_append_new(rows, to_row(o, keys));
            json_array_append_new(full, o);
            json_array_append_new(cut, c);
        }
        want = sorted_ids(full, sorts[s]);
        got = sorted_ids(cut, sorts[s]);
        assert_string_equal(got, want);
        /* rows: selection, -r expansion (rows copied), order */
        msg = read_rows(rows, keys, &table);
        rows = json_object_get(json_object_get(msg, "body"), "jobs");
        for (size_t j = 0; j < NJOBS; j++)
            assert_int_equal(squeue_job_selected(json_array_get(rows, j), &f),
                             squeue_job_selected(json_array_get(full, j),
                                                 &f));
        r = sorted_ids(rows, sorts[s]);
        assert_string_equal(r, want);
        free(want);
        free(got);
        free(r);
        json_decref(full);
        json_decref(cut);
        json_decref(msg);
        row_table_free(table);
        json_decref(keys);
    }
}

static void every_sort_key_orders_the_same(void **state)
{
    (void)state;
    with_each_reader(sorts_order_the_same);
}

/* Frame 'msg' (stolen) read by 'reader' into 'rr' (the tables of the
 * parts before kept in it); NULL with 'error' set when it is refused. */
static json_t *read_frame(json_t *msg, struct row_table_read *rr,
                          drv_error_t *error)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    size_t len = strlen(text);
    char *padded = calloc(1, len + PROTO_DECODER_SLACK);
    json_t *got;

    memcpy(padded, text, len);
    got = reader(padded, len, rr, error);
    free(text);
    free(padded);
    json_decref(msg);
    return got;
}

/* An answer in parts (docs/protocol.md): the first part names the
 * columns, the later ones carry rows alone; read a frame at a time into
 * tables of their own and joined (proto_msg_join_part()), the rows sort
 * and print as the full records do.  A later part whose rows have
 * another length is refused. */
static void parts_read_as_one(void)
{
    json_t *keys = squeue_wanted_keys(NULL, NULL), *full = json_array();
    json_t *rows[3] = {json_array(), json_array(), json_array()};
    struct row_table_read rr = {.rows_key = "jobs"};
    drv_error_t error = {{0}};
    json_t *acc = NULL, *msg = NULL, *jobs;
    char *want, *got;

    for (const struct fmt_field *f = squeue_fields; f->header; f++)
        squeue_keys_add(keys, squeue_field_keys(f)); /* every column */
    for (size_t j = 0; j < NJOBS; j++) {
        json_t *o = load(full_jobs[j]);

        json_array_append_new(rows[j == 0 ? 0 : j < 3 ? 1 : 2],
                              to_row(o, keys));
        json_array_append_new(full, o);
    }
    for (int part = 0; part < 3; part++) {
        json_t *body = json_pack("{s:o}", "jobs", rows[part]);
        json_t *frame = json_pack("{s:i s:s s:o}", "v", 1, "type",
                                  "job_info", "body", body);

        if (part == 0) {
            json_object_set_new(body, "now", json_integer(NOW));
            json_object_set(body, "keys", keys);
        }
        if (part < 2)
            json_object_set_new(frame, "more", json_true());
        json_t *read = read_frame(frame, &rr, &error);
        if (!read)
            fail_msg("part %d not read: %s", part, error.text);
        msg = proto_msg_join_part(&acc, read);
        assert_true(part < 2 ? !msg && acc : msg && !acc);
    }
    for (struct row_table *t = rr.table; t; t = t->next)
        assert_int_equal(t->ncols, json_array_size(keys));
    jobs = json_object_get(json_object_get(msg, "body"), "jobs");
    assert_int_equal(json_array_size(jobs), NJOBS);
    for (size_t j = 0; j < NJOBS; j++)
        for (const struct fmt_field *f = squeue_fields; f->header; f++) {
            char *w = print_one(f, json_array_get(full, j));
            char *g = print_one(f, json_array_get(jobs, j));

            assert_string_equal(g, w);
            free(w);
            free(g);
        }
    want = sorted_ids(full, NULL);
    got = sorted_ids(jobs, NULL);
    assert_string_equal(got, want);
    free(want);
    free(got);
    json_decref(msg);
    /* a later part of rows one value short */
    json_t *bad = json_pack("{s:i s:s s:{s:[[i]]}}", "v", 1, "type",
                            "job_info", "body", "jobs", 5);
    assert_null(read_frame(bad, &rr, &error));
    assert_int_equal(errno, EPROTO);
    assert_non_null(strstr(error.text, "part before"));
    row_table_free(rr.table);
    json_decref(full);
    json_decref(keys);
}

static void an_answer_in_parts_reads_as_one(void **state)
{
    (void)state;
    with_each_reader(parts_read_as_one);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_field_prints_the_same),
        cmocka_unit_test(every_sort_key_orders_the_same),
        cmocka_unit_test(an_answer_in_parts_reads_as_one),
    };

    setenv("TZ", "UTC", 1);
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
