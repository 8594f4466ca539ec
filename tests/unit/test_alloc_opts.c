/* SPDX-License-Identifier: Apache-2.0
 *
 * test_alloc_opts.c - salloc's and srun's options from sbatch's table
 * (rows per command, the allocation-only job description, --help) and
 * Slurm's compressed count lists (cmd/lib/alloc.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "cmd/lib/alloc.h"
#include "cmd/lib/sbatch_opt.h"

#define ARGC(v) ((int)(sizeof(v) / sizeof((v)[0])) - 1)

/* Both passes for 'cmd'; returns the first pass's result or -1. */
static int parse(struct sbatch_opts *o, int argc, char **argv,
                 struct sbatch_error *e)
{
    char *no_env[] = {NULL};
    int rc = sbatch_opts_first_pass(o, argc, argv, e);

    if (rc != SBATCH_SUBMIT)
        return rc;
    return sbatch_opts_second_pass(o, NULL, NULL, no_env, e);
}

static void salloc_builds_an_allocation_only_job(void **state)
{
    char *argv[] = {"salloc", "-N2", "-n4", "-t", "5", "-I3", "srun",
                    "hostname", NULL};
    struct sbatch_opts *o = sbatch_opts_create_cmd(NULL, SBATCH_CMD_SALLOC);
    struct sbatch_error e = {0};
    char *no_env[] = {NULL};
    json_t *d;

    (void)state;
    assert_int_equal(parse(o, ARGC(argv), argv, &e), 0);
    assert_string_equal(o->script_path, "srun");
    assert_int_equal(o->script_argc, 1);
    assert_int_equal(o->immediate, 3);
    d = sbatch_opts_job_desc(o, NULL, no_env, &e);
    assert_non_null(d);
    assert_true(json_is_true(json_object_get(d, "interactive")));
    assert_null(json_object_get(d, "script"));
    assert_null(json_object_get(d, "env"));
    assert_null(json_object_get(d, "std_out"));
    assert_string_equal(json_string_value(json_object_get(d, "name")), "srun");
    assert_int_equal(json_integer_value(json_object_get(d, "nodes_min")), 2);
    assert_int_equal(json_integer_value(json_object_get(d, "ntasks")), 4);
    assert_int_equal(json_integer_value(json_object_get(d, "time_limit_s")),
                     300);
    json_decref(d);
    sbatch_opts_destroy(o);
}

static void rows_belong_to_their_commands(void **state)
{
    char *wrap[] = {"salloc", "--wrap=true", NULL};
    char *label[] = {"srun", "-l", "--pty", "bash", NULL};
    char *label_sb[] = {"sbatch", "-l", "x.sh", NULL};
    struct sbatch_opts *o = sbatch_opts_create_cmd(NULL, SBATCH_CMD_SALLOC);
    struct sbatch_error e = {0};

    (void)state;
    assert_int_equal(parse(o, ARGC(wrap), wrap, &e), -1);
    assert_int_equal(e.exit_code, 255);
    assert_string_equal(e.text, "Try \"salloc --help\" for more information");
    sbatch_opts_destroy(o);

    o = sbatch_opts_create_cmd(NULL, SBATCH_CMD_SRUN);
    assert_int_equal(parse(o, ARGC(label), label, &e), 0);
    assert_true(o->label);
    assert_true(o->pty);
    sbatch_opts_destroy(o);

    o = sbatch_opts_create(NULL);
    assert_int_equal(parse(o, ARGC(label_sb), label_sb, &e), -1);
    sbatch_opts_destroy(o);
}

static void errors_name_the_command(void **state)
{
    struct sbatch_error e = {.exit_code = 255, .level = "error"};
    char buf[256] = "";
    FILE *f = fmemopen(buf, sizeof(buf), "w");

    (void)state;
    snprintf(e.text, sizeof(e.text), "Invalid --time specification");
    sbatch_error_print_as(&e, "srun", f);
    fclose(f);
    assert_string_equal(buf, "srun: error: Invalid --time specification\n");
}

static void help_lists_only_the_commands_rows(void **state)
{
    char buf[65536] = "";
    FILE *f = fmemopen(buf, sizeof(buf), "w");

    (void)state;
    sbatch_opts_print_help_cmd(f, SBATCH_CMD_SRUN);
    fclose(f);
    assert_true(!strncmp(buf, "Usage: srun [OPTIONS(0)... [executable(0)", 41));
    assert_non_null(strstr(buf, "  -l, --label "));
    assert_non_null(strstr(buf, "  -I, --immediate[=secs] "));
    assert_null(strstr(buf, "--wrap"));
    assert_null(strstr(buf, "--array"));
}

static void counts_compress_as_slurm(void **state)
{
    int64_t a[] = {4, 4, 2, 1, 1, 1};
    char *s;

    (void)state;
    s = alloc_counts_fmt(a, 6);
    assert_string_equal(s, "4(x2),2,1(x3)");
    free(s);
    s = alloc_counts_fmt(a, 1);
    assert_string_equal(s, "4");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(salloc_builds_an_allocation_only_job),
        cmocka_unit_test(rows_belong_to_their_commands),
        cmocka_unit_test(errors_name_the_command),
        cmocka_unit_test(help_lists_only_the_commands_rows),
        cmocka_unit_test(counts_compress_as_slurm),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
