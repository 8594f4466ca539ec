/* SPDX-License-Identifier: Apache-2.0
 *
 * test_snapshot_file.c - the on-disk form of a snapshot
 * (src/ctld/snapshot_file.h): JSON lines, read an element at a time
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ctld/snapshot_file.h"

struct seen {
    json_t *taken; /* {"key": [elements taken]} */
    json_t *rest;  /* what 'rest' received (a copy) */
    int fail_at;   /* element count at which 'item' fails; 0: never */
    int count;
};

/* Takes every element of "jobs", leaves the others. */
static int take_jobs(const char *key, json_t *item, void *arg,
                     drv_error_t *error)
{
    struct seen *s = arg;
    json_t *list = json_object_get(s->taken, key);

    if (++s->count == s->fail_at) {
        errprintf(error, "refused element %d", s->count);
        return -1;
    }
    if (strcmp(key, "jobs"))
        return 1;
    if (!list)
        json_object_set_new(s->taken, key, list = json_array());
    json_array_append(list, item);
    return 0;
}

static int keep_rest(json_t *snap, void *arg, drv_error_t *error)
{
    struct seen *s = arg;

    (void)error;
    s->rest = json_deep_copy(snap);
    return 0;
}

static char *write_state(json_t *state)
{
    char *path = strdup("/tmp/test_snapshot_file.XXXXXX");
    int fd = mkstemp(path);

    assert_true(fd >= 0);
    assert_int_equal(snapshot_file_write(fd, state), 0);
    close(fd);
    return path;
}

static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");

    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static json_t *sample(void)
{
    json_t *jobs = json_array();

    for (int i = 1; i <= 1000; i++)
        json_array_append_new(jobs, json_pack("{s:i s:s}", "job_id", i,
                                              "name", "a\nb\"c"));
    return json_pack("{s:i s:o s:[{s:s}, {s:s}] s:{s:i} s:[]}", "next_job_id",
                     1001, "jobs", jobs, "nodes", "name", "n1", "name", "n2",
                     "priority", "last_calc", 7, "triggers");
}

/* What reading 'snap' back through take_jobs and keep_rest must give:
 * every job taken, in order, and the rest with an empty "jobs". */
static void check_read(struct seen *s, json_t *snap)
{
    json_t *expect_rest = json_deep_copy(snap);

    assert_true(json_equal(json_object_get(s->taken, "jobs"),
                           json_object_get(snap, "jobs")));
    json_array_clear(json_object_get(expect_rest, "jobs"));
    assert_true(json_equal(s->rest, expect_rest));
    json_decref(expect_rest);
    json_decref(s->rest);
    json_decref(s->taken);
}

/* Elements arrive one at a time, in order; the rest holds the scalars,
 * objects and the elements left, and nothing is lost or reordered. */
static void round_trip(void **state)
{
    json_t *snap = sample();
    char *path = write_state(snap);
    struct seen s = {.taken = json_object()};
    struct snapshot_file_cb cb = {take_jobs, keep_rest, &s};
    drv_error_t error = {0};
    FILE *fp;
    char line[256];
    int lines = 0;

    (void)state;
    assert_int_equal(snapshot_file_read(path, &cb, &error), 0);
    assert_int_equal(s.count, 1002);
    check_read(&s, snap);
    /* One element per line: a header, 1,000 jobs, 2 nodes, the rest. */
    assert_non_null(fp = fopen(path, "r"));
    while (fgets(line, sizeof(line), fp))
        lines++;
    fclose(fp);
    assert_int_equal(lines, 1 + 1000 + 2 + 1);
    json_decref(snap);
    unlink(path);
    free(path);
}

/* A snapshot written before JSON lines (one object) reads the same way. */
static void reads_the_earlier_form(void **state)
{
    json_t *snap = sample();
    char *path = write_state(snap), *text = json_dumps(snap, JSON_COMPACT);
    struct seen s = {.taken = json_object()};
    struct snapshot_file_cb cb = {take_jobs, keep_rest, &s};
    drv_error_t error = {0};

    (void)state;
    write_text(path, text);
    assert_int_equal(snapshot_file_read(path, &cb, &error), 0);
    check_read(&s, snap);
    json_decref(snap);
    free(text);
    unlink(path);
    free(path);
}

/* A file cut short, a line of garbage, an unknown format, an empty file
 * and a callback's refusal: an error naming the file and line. */
static void bad_files_name_the_line(void **state)
{
    json_t *snap = sample();
    char *path = write_state(snap), *text;
    struct seen s = {.taken = json_object()};
    struct snapshot_file_cb cb = {take_jobs, keep_rest, &s};
    drv_error_t error = {0};
    FILE *fp;
    long size;

    (void)state;
    /* Cut in the middle of the jobs. */
    assert_non_null(fp = fopen(path, "r"));
    fseek(fp, 0, SEEK_END);
    size = ftell(fp);
    fclose(fp);
    assert_int_equal(truncate(path, size / 2), 0);
    assert_int_equal(snapshot_file_read(path, &cb, &error), -1);
    assert_non_null(strstr(error.text, path));
    assert_null(s.rest);

    write_text(path, "{\"drover_snapshot\":2,\"arrays\":[[\"jobs\",2]]}\n"
                     "{\"job_id\":1}\nnot json\n{}\n");
    assert_int_equal(snapshot_file_read(path, &cb, &error), -1);
    text = strstr(error.text, ":3:");
    assert_non_null(text);

    write_text(path, "{\"drover_snapshot\":2,\"arrays\":[[\"jobs\",1]]}\n"
                     "{\"job_id\":1}\n");
    assert_int_equal(snapshot_file_read(path, &cb, &error), -1);
    assert_non_null(strstr(error.text, "ends early"));

    write_text(path, "{\"drover_snapshot\":9,\"arrays\":[]}\n{}\n");
    assert_int_equal(snapshot_file_read(path, &cb, &error), -1);
    assert_non_null(strstr(error.text, "format 9"));

    write_text(path, "");
    assert_int_equal(snapshot_file_read(path, &cb, &error), -1);
    assert_non_null(strstr(error.text, "empty"));

    json_decref(s.taken);
    s = (struct seen){.taken = json_object(), .fail_at = 10};
    cb.arg = &s;
    unlink(path);
    free(path);
    path = write_state(snap);
    assert_int_equal(snapshot_file_read(path, &cb, &error), -1);
    assert_string_equal(error.text, "refused element 10");
    assert_null(s.rest);
    json_decref(s.taken);
    json_decref(snap);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(reads_the_earlier_form),
        cmocka_unit_test(bad_files_name_the_line),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
