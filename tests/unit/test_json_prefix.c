/* SPDX-License-Identifier: Apache-2.0
 *
 * test_json_prefix.c - the layout of squeue --json and sinfo --json against
 * the first 2000 bytes Slurm 22.05 printed (data/slurm-golden/, the
 * squeue-json and sinfo-json cases, cut by `| head -c 2000`).  Values change from run to run; what must agree
 * is each line's indent, key and kind of value, and the empty arrays'
 * layout ("[", newline, "]").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "cmd/lib/json_out.h"

static char *read_golden(const char *name)
{
    /* __FILE__ is relative to the build root, where meson runs tests. */
    char dir[4096], path[4200], *slash, *text;
    FILE *f;
    long n;

    snprintf(dir, sizeof(dir), "%s", __FILE__);
    if ((slash = strrchr(dir, '/')))
        *slash = '\0';
    snprintf(path, sizeof(path), "%s/data/slurm-golden/%s.stdout", dir, name);
    if (!(f = fopen(path, "r")))
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    text = calloc(1, (size_t)n + 1);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return text;
}

/* One line reduced to its shape: indent and key kept, a scalar value
 * replaced by its kind ("S" string, "B" true/false, "N" number or null:
 * Slurm prints null for a number it does not have, which depends on the
 * job).
 */
static void shape(const char *line, size_t len, char *out, size_t size)
{
    const char *colon = memmem(line, len, "\": ", 3);
    const char *v = colon ? colon + 3 : line + strspn(line, " ");
    size_t head = (size_t)(v - line), vlen = len - head;
    char kind[8];

    if (vlen && (v[0] == '{' || v[0] == '[' || v[0] == '}' || v[0] == ']'))
        snprintf(kind, sizeof(kind), "%.*s", (int)(vlen < 3 ? vlen : 3), v);
    else if (vlen && v[0] == '"')
        snprintf(kind, sizeof(kind), "S%s", v[vlen - 1] == ',' ? "," : "");
    else if (vlen && (v[0] == 't' || v[0] == 'f'))
        snprintf(kind, sizeof(kind), "B%s", v[vlen - 1] == ',' ? "," : "");
    else
        snprintf(kind, sizeof(kind), "N%s", vlen && v[vlen - 1] == ',' ? ","
                                                                    : "");
    snprintf(out, size, "%.*s%s", (int)head, line, kind);
}

/* Compare every whole line of 'golden' (the last, cut one left out) with
 * the same line of 'got', by shape. */
static void assert_same_shape(const char *golden, const char *got)
{
    const char *g = golden, *o = got;
    int lineno = 1;

    for (const char *ge; (ge = strchr(g, '\n')); g = ge + 1, lineno++) {
        const char *oe = strchr(o, '\n');
        char a[512], b[512];

        assert_non_null(oe);
        shape(g, (size_t)(ge - g), a, sizeof(a));
        shape(o, (size_t)(oe - o), b, sizeof(b));
        if (strcmp(a, b) != 0)
            fail_msg("line %d: Slurm '%s', ours '%s'", lineno, a, b);
        o = oe + 1;
    }
}

static const json_t *one(json_t *rec)
{
    return rec;
}

/* An array cancelled while pending, like Slurm's srun job in the golden
 * (JOB_ACCRUE_OVER, "nice" and "cpus" null). */
static void squeue_json_prefix_has_slurms_shape(void **state)
{
    json_t *job = json_pack(
        "{s:i s:i s:i s:s s:i s:i s:i s:s s:s s:i s:i s:i s:s s:s s:i s:i}",
        "job_id", 12, "array_job_id", 12, "array_max_tasks", 2,
        "array_task_str", "2-7%2", "user_id", 0, "group_id", 0,
        "submit_time", 1795240866, "job_state", "CANCELLED", "name", "arr",
        "cpus_per_task", 0, "num_nodes", 1, "num_tasks", 1, "partition",
        "debug", "cluster_name", "anchor", "time_limit_s", 1800, "priority",
        1);
    const json_t *recs[] = {one(job)};
    json_t *doc = json_out_doc();
    char *golden = read_golden("squeue-json"), *got;

    (void)state;
    json_out_add(doc, "jobs", recs, 1, json_out_job);
    got = json_out_text(doc);
    assert_non_null(strstr(got, "\"errors\": [\n  ],\n"));
    assert_same_shape(golden, got);
    free(got);
    free(golden);
    json_decref(doc);
    json_decref(job);
}

static void sinfo_json_prefix_has_slurms_shape(void **state)
{
    json_t *node = json_pack(
        "{s:s s:s s:s s:i s:i s:s s:s s:s s:i s:[s]}", "name", "n1",
        "addr", "127.0.0.1", "hostname", "localhost", "cpus", 32, "port",
        17001, "state", "MIXED", "gres", "gpu:8", "gres_used",
        "gpu:2(IDX:0-1)", "real_memory_mib", 4000, "partitions", "gpu");
    const json_t *recs[] = {one(node), one(node)};
    json_t *doc = json_out_doc();
    char *golden = read_golden("sinfo-json"), *got;

    (void)state;
    json_out_add(doc, "nodes", recs, 2, json_out_node);
    got = json_out_text(doc);
    assert_non_null(strstr(got, "\"gres_used\": \"gpu:2\",\n"));
    assert_same_shape(golden, got);
    free(got);
    free(golden);
    json_decref(doc);
    json_decref(node);
}

/* "[]" inside a string is text, not an empty array. */
static void empty_arrays_only_outside_strings(void **state)
{
    json_t *doc = json_pack("{s:[] s:s s:{s:[]}}", "a", "b", "x[]y", "c",
                            "d");
    char *got = json_out_text(doc);

    (void)state;
    assert_string_equal(got, "{\n  \"a\": [\n  ],\n  \"b\": \"x[]y\",\n"
                             "  \"c\": {\n    \"d\": [\n    ]\n  }\n}");
    free(got);
    json_decref(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(squeue_json_prefix_has_slurms_shape),
        cmocka_unit_test(sinfo_json_prefix_has_slurms_shape),
        cmocka_unit_test(empty_arrays_only_outside_strings),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
