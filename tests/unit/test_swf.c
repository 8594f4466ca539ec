/* SPDX-License-Identifier: Apache-2.0
 *
 * test_swf.c - the Standard Workload Format reader: plain and gzip files,
 * header limits, defaults for -1 fields, skipped and malformed lines
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <zlib.h>

#include "sim/swf.h"

/* Three jobs; job 2 asks for -1 procs (allocated 3 is used) and has no
 * estimate (its run time is used) and a fraction in field 6 (as HPC2N). */
static const char good[] =
    "; Version: 2.2\n"
    ";  MaxNodes: 2\n"
    "; MaxProcs: 8\n"
    "1 0 5 100 2 -1 -1 2 120 -1 1 7 1 -1 1 -1 -1 -1\n"
    "\n"
    "2 10 0 50 3 552.21 -1 -1 -1 -1 1 8 1 -1 1 -1 -1 -1\n"
    "3\t20 0 30 8 -1 -1 4 60 -1 0 7 1 -1 1 -1 -1 -1\r\n";

/* Line 3 is malformed (17 fields), line 4 has a word, line 5 asks for more
 * than MaxProcs, line 6 has run time -1, line 7 has 0 procs. */
static const char bad[] =
    "; MaxProcs: 4\n"
    "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n"
    "2 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1\n"
    "3 0 0 ten 1 -1 -1 1 10 -1 1 1 1 -1 1 -1 -1 -1\n"
    "4 0 0 10 5 -1 -1 5 10 -1 1 1 1 -1 1 -1 -1 -1\n"
    "5 0 0 -1 1 -1 -1 1 10 -1 0 1 1 -1 1 -1 -1 -1\n"
    "6 0 0 10 0 -1 -1 0 10 -1 1 1 1 -1 1 -1 -1 -1\n"
    "7 5 0 10 4 -1 -1 4 10 -1 1 1 1 -1 1 -1 -1 -1\n";

static char *write_plain(const char *text)
{
    char *path = strdup("/tmp/test_swf.XXXXXX");
    int fd = mkstemp(path);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static char *write_gzip(const char *text)
{
    char *path = write_plain("");
    gzFile gz = gzopen(path, "wb");

    assert_non_null(gz);
    assert_int_equal(gzwrite(gz, text, (unsigned)strlen(text)),
                     (int)strlen(text));
    assert_int_equal(gzclose(gz), Z_OK);
    return path;
}

static void check_good(const struct swf_trace *t)
{
    assert_int_equal(t->njobs, 3);
    assert_int_equal(t->max_procs, 8);
    assert_int_equal(t->max_nodes, 2);
    assert_int_equal(t->skipped, 0);
    assert_int_equal(t->malformed, 0);
    assert_int_equal(t->jobs[0].id, 1);
    assert_int_equal(t->jobs[0].wait, 5);
    assert_int_equal(t->jobs[0].run, 100);
    assert_int_equal(t->jobs[0].estimate, 120);
    assert_int_equal(t->jobs[0].procs, 2);
    assert_int_equal(t->jobs[0].user, 7);
    assert_int_equal(t->jobs[1].submit, 10);
    assert_int_equal(t->jobs[1].procs, 3);      /* requested -1: allocated */
    assert_int_equal(t->jobs[1].estimate, 50);  /* -1: the run time */
    assert_int_equal(t->jobs[2].procs, 4);      /* requested, not allocated */
    assert_int_equal(t->jobs[2].alloc_procs, 8);
    assert_int_equal(t->jobs[2].status, 0);
}

/* Read 'path' (then removed and freed) and check it holds 'good'. */
static void read_good(char *path)
{
    struct swf_trace t;

    assert_int_equal(swf_read(path, SWF_PROCS_REQUESTED, &t, NULL), 0);
    check_good(&t);
    swf_trace_free(&t);
    unlink(path);
    free(path);
}

static void reads_plain_file(void **state)
{
    (void)state;
    read_good(write_plain(good));
}

static void reads_gzip_file(void **state)
{
    (void)state;
    read_good(write_gzip(good));
}

static void allocated_procs_on_request(void **state)
{
    (void)state;
    char *path = write_plain(good);
    struct swf_trace t;

    assert_int_equal(swf_read(path, SWF_PROCS_ALLOCATED, &t, NULL), 0);
    assert_int_equal(t.njobs, 3);
    assert_int_equal(t.jobs[2].procs, 8);
    swf_trace_free(&t);
    unlink(path);
    free(path);
}

/* Run swf_read() with stderr going to a file; return what was written. */
static char *read_capturing_stderr(const char *path, struct swf_trace *t)
{
    char *log = write_plain("");
    int saved = dup(2), fd = open(log, O_WRONLY);
    static char text[1024];

    fflush(stderr);
    dup2(fd, 2);
    assert_int_equal(swf_read(path, SWF_PROCS_REQUESTED, t, NULL), 0);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    FILE *f = fopen(log, "r");
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    unlink(log);
    free(log);
    return text;
}

static void bad_lines_named_and_counted(void **state)
{
    (void)state;
    char *path = write_plain(bad);
    struct swf_trace t;
    char *text = read_capturing_stderr(path, &t);
    char want[128];

    assert_int_equal(t.njobs, 2);
    assert_int_equal(t.jobs[0].id, 1);
    assert_int_equal(t.jobs[1].id, 7);
    assert_int_equal(t.malformed, 2);
    assert_int_equal(t.skipped, 3);
    snprintf(want, sizeof(want), "%s:3: malformed", path);
    assert_non_null(strstr(text, want));
    snprintf(want, sizeof(want), "%s:4: malformed", path);
    assert_non_null(strstr(text, want));
    assert_null(strstr(text, ":5:"));
    swf_trace_free(&t);
    unlink(path);
    free(path);
}

static void missing_file_fails_with_errno(void **state)
{
    (void)state;
    struct swf_trace t;
    drv_error_t error = { 0 };

    errno = 0;
    assert_int_equal(swf_read("/nonexistent/trace.swf.gz",
                              SWF_PROCS_REQUESTED, &t, &error), -1);
    assert_int_equal(errno, ENOENT);
    assert_non_null(strstr(error.text, "/nonexistent/trace.swf.gz"));
    assert_null(t.jobs);
}

static void header_without_maxprocs_takes_largest_job(void **state)
{
    (void)state;
    char *path = write_plain("1 0 0 10 6 -1 -1 6 10 -1 1 1 1 -1 1 -1 -1 -1\n"
                             "2 0 0 10 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1\n");
    struct swf_trace t;

    assert_int_equal(swf_read(path, SWF_PROCS_REQUESTED, &t, NULL), 0);
    assert_int_equal(t.njobs, 2);
    assert_int_equal(t.max_procs, 6);
    swf_trace_free(&t);
    unlink(path);
    free(path);
}

static void parse_line_results(void **state)
{
    (void)state;
    struct swf_job j;

    assert_int_equal(swf_parse_line("1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1"
                                    " -1 -1", SWF_PROCS_REQUESTED, &j), 0);
    assert_int_equal(swf_parse_line("1 0 0 -1 1 -1 -1 1 10 -1 1 1 1 -1 1 -1"
                                    " -1 -1", SWF_PROCS_REQUESTED, &j), 1);
    assert_int_equal(swf_parse_line("1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 1 -1"
                                    " -1 -1 19", SWF_PROCS_REQUESTED, &j), -1);
    assert_int_equal(swf_parse_line("", SWF_PROCS_REQUESTED, &j), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_plain_file),
        cmocka_unit_test(reads_gzip_file),
        cmocka_unit_test(allocated_procs_on_request),
        cmocka_unit_test(bad_lines_named_and_counted),
        cmocka_unit_test(missing_file_fails_with_errno),
        cmocka_unit_test(header_without_maxprocs_takes_largest_job),
        cmocka_unit_test(parse_line_results),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
