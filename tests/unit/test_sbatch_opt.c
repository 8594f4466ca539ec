/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sbatch_opt.c - sbatch's argv, #SBATCH lines and SBATCH_* variables
 * turned into the job_submit body, with Slurm's messages for bad values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "cmd/lib/sbatch_opt.h"

#define ARGV(...) ((char *[]){"sbatch", __VA_ARGS__, NULL})
#define ENVP(...) ((char *[]){__VA_ARGS__, NULL})
#define NO_ARGS ((char *[]){"sbatch", NULL})
#define NO_ENV ((char *[]){NULL})

static const char cpu_job[] =
    "#!/bin/bash\n"
    "#SBATCH --job-name=x --partition=p --nodes=1 --ntasks=4 "
    "--cpus-per-task=2 --mem=16G --time=02:00:00 --output=output_%j.log "
    "--error=error_%j.log\n"
    "srun hostname\n";

/* Run both passes and build the body; NULL with 'e' set on failure. */
static json_t *body_for(char **argv, const char *script, char **envp,
                        struct sbatch_error *e)
{
    struct sbatch_opts *o = sbatch_opts_create(NULL);
    json_t *body = NULL;
    int argc = 0;

    assert_non_null(o);
    while (argv[argc])
        argc++;
    memset(e, 0, sizeof(*e));
    if (sbatch_opts_first_pass(o, argc, argv, e) == SBATCH_SUBMIT
        && sbatch_opts_second_pass(o, script, "job.sh", envp, e) == 0)
        body = sbatch_opts_job_desc(o, script, envp, e);
    sbatch_opts_destroy(o);
    return body;
}

static json_t *must_parse(char **argv, const char *script, char **envp)
{
    struct sbatch_error e;
    json_t *body = body_for(argv, script, envp, &e);

    if (!body)
        fail_msg("parse failed (%d): %s", e.exit_code, e.text);
    return body;
}

static const char *str(json_t *body, const char *key)
{
    return json_string_value(json_object_get(body, key));
}

static json_int_t num(json_t *body, const char *key)
{
    json_t *v = json_object_get(body, key);

    assert_true(json_is_integer(v));
    return json_integer_value(v);
}

static const char *env_of(json_t *body, const char *name)
{
    return json_string_value(json_object_get(json_object_get(body, "env"),
                                             name));
}

static char *in_cwd(const char *name)
{
    char *cwd = getcwd(NULL, 0);
    char *path = malloc(strlen(cwd) + strlen(name) + 2);

    sprintf(path, "%s/%s", cwd, name);
    free(cwd);
    return path;
}

/* ------------------------------------------------------------------ */

static void cpu_job_directives_fill_the_description(void **state)
{
    json_t *b = must_parse(NO_ARGS, cpu_job, NO_ENV);
    char *out = in_cwd("output_%j.log"), *err = in_cwd("error_%j.log");
    char *cwd = getcwd(NULL, 0);

    (void)state;
    assert_string_equal(str(b, "name"), "x");
    assert_string_equal(str(b, "partition"), "p");
    assert_int_equal(num(b, "nodes_min"), 1);
    assert_int_equal(num(b, "nodes_max"), 1);
    assert_int_equal(num(b, "ntasks"), 4);
    assert_true(json_is_true(json_object_get(b, "ntasks_set")));
    assert_int_equal(num(b, "cpus_per_task"), 2);
    assert_int_equal(num(b, "mem_per_node_mib"), 16384);
    assert_null(json_object_get(b, "mem_per_cpu_mib"));
    assert_int_equal(num(b, "time_limit_s"), 7200);
    assert_string_equal(str(b, "std_out"), out);
    assert_string_equal(str(b, "std_err"), err);
    assert_string_equal(str(b, "std_in"), "/dev/null");
    assert_string_equal(str(b, "work_dir"), cwd);
    assert_string_equal(str(b, "script"), cpu_job);
    assert_true(json_is_false(json_object_get(b, "hold")));
    assert_true(json_is_false(json_object_get(b, "exclusive")));
    free(out);
    free(err);
    free(cwd);
    json_decref(b);
}

static void cpu_job_sets_slurm_variables_sbatch_exports(void **state)
{
    json_t *b = must_parse(NO_ARGS, cpu_job, ENVP("HOME=/home/alice"));

    (void)state;
    assert_string_equal(env_of(b, "HOME"), "/home/alice");
    assert_string_equal(env_of(b, "SLURM_NTASKS"), "4");
    assert_string_equal(env_of(b, "SLURM_NPROCS"), "4");
    assert_string_equal(env_of(b, "SLURM_CPUS_PER_TASK"), "2");
    assert_string_equal(env_of(b, "SLURM_JOB_NAME"), "x");
    assert_null(env_of(b, "SLURM_NTASKS_PER_NODE"));
    json_decref(b);
}

static void directives_take_separate_values_and_quotes(void **state)
{
    const char *script = "#!/bin/sh\n"
                         "#SBATCH -J \"two words\"   # trailing comment\n"
                         "#SBATCH --comment 'a # b'\n"
                         "\n"
                         "# an ordinary comment\n"
                         "#SBATCH --partition gpu#no space before hash\n"
                         "#SBATCH -t 5\n"
                         "true\n";
    json_t *b = must_parse(NO_ARGS, script, NO_ENV);

    (void)state;
    assert_string_equal(str(b, "name"), "two words");
    assert_string_equal(str(b, "comment"), "a # b");
    assert_string_equal(str(b, "partition"), "gpu");
    assert_int_equal(num(b, "time_limit_s"), 300);
    json_decref(b);
}

static void directives_after_first_command_are_ignored(void **state)
{
    const char *script = "#!/bin/sh\n"
                         "#SBATCH -J early\n"
                         "echo hello\n"
                         "#SBATCH -J late\n"
                         "#SBATCH --bogus\n";
    json_t *b = must_parse(NO_ARGS, script, NO_ENV);

    (void)state;
    assert_string_equal(str(b, "name"), "early");
    json_decref(b);
}

static void command_line_overrides_script(void **state)
{
    json_t *b = must_parse(ARGV("-J", "cli", "--mem=1G", "job.sh"), cpu_job,
                           NO_ENV);

    (void)state;
    assert_string_equal(str(b, "name"), "cli");
    assert_int_equal(num(b, "mem_per_node_mib"), 1024);
    assert_string_equal(str(b, "partition"), "p"); /* still the script's */
    json_decref(b);
}

static void environment_overrides_script_and_loses_to_argv(void **state)
{
    char **env = ENVP("SBATCH_JOB_NAME=fromenv", "SBATCH_PARTITION=envpart",
                      "SBATCH_TIMELIMIT=1:00:00");
    json_t *b = must_parse(NO_ARGS, cpu_job, env);

    (void)state;
    assert_string_equal(str(b, "name"), "fromenv");
    assert_string_equal(str(b, "partition"), "envpart");
    assert_int_equal(num(b, "time_limit_s"), 3600);
    json_decref(b);
    b = must_parse(ARGV("-p", "clipart"), cpu_job, env);
    assert_string_equal(str(b, "partition"), "clipart");
    assert_string_equal(str(b, "name"), "fromenv");
    json_decref(b);
}

static void boolean_variables_follow_slurm_rules(void **state)
{
    const char *script = "#!/bin/sh\n#SBATCH --requeue\ntrue\n";
    json_t *b = must_parse(NO_ARGS, script, ENVP("SBATCH_REQUEUE=no"));

    (void)state;
    assert_null(json_object_get(b, "requeue"));
    json_decref(b);
    b = must_parse(NO_ARGS, script, ENVP("SBATCH_NO_REQUEUE=1"));
    assert_true(json_is_false(json_object_get(b, "requeue")));
    json_decref(b);
    b = must_parse(NO_ARGS, script, ENVP("SBATCH_EXCLUSIVE="));
    assert_true(json_is_true(json_object_get(b, "exclusive")));
    json_decref(b);
}

static void typed_gres_gives_gpus_per_node_and_type(void **state)
{
    json_t *b = must_parse(ARGV("--gres=gpu:a100:2", "--wrap=true"), "",
                           NO_ENV);

    (void)state;
    assert_string_equal(str(b, "gres"), "gpu:a100:2");
    assert_string_equal(str(b, "gpu_type"), "a100");
    assert_int_equal(num(b, "gpus_per_node"), 2);
    assert_null(json_object_get(b, "gpus"));
    json_decref(b);
    b = must_parse(ARGV("--gres=gpu", "--wrap=true"), "", NO_ENV);
    assert_int_equal(num(b, "gpus_per_node"), 1);
    assert_null(json_object_get(b, "gpu_type"));
    json_decref(b);
}

static void gpus_option_counts_whole_job(void **state)
{
    json_t *b = must_parse(ARGV("--gpus=4", "--wrap=true"), "", NO_ENV);

    (void)state;
    assert_int_equal(num(b, "gpus"), 4);
    assert_null(json_object_get(b, "gpus_per_node"));
    json_decref(b);
    b = must_parse(ARGV("-G", "v100:3", "--gpus-per-node=v100:2", "--wrap=x"),
                   "", NO_ENV);
    assert_int_equal(num(b, "gpus"), 3);
    assert_int_equal(num(b, "gpus_per_node"), 2);
    assert_string_equal(str(b, "gpu_type"), "v100");
    json_decref(b);
}

static void bad_gres_is_rejected_like_the_controller(void **state)
{
    static const char *const bad[] = {"gpu:x:y:z", "gpu:", ":2", "gpu,,mps",
                                      "gpu:a100:2x"};
    struct sbatch_error e;
    json_t *b;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *opt = malloc(strlen(bad[i]) + 8);

        sprintf(opt, "--gres=%s", bad[i]);
        assert_null(body_for(ARGV(opt, "--wrap=true"), "", NO_ENV, &e));
        assert_int_equal(e.exit_code, 1);
        assert_string_equal(e.text, "Batch job submission failed: Invalid "
                                    "generic resource (gres) specification");
        free(opt);
    }
    /* As Slurm, a type alone counts one GPU of it (the controller then
     * refuses a type no node has), and typed and untyped GPU requests
     * together are refused. */
    b = must_parse(ARGV("--gpus=a100", "--wrap=true"), "", NO_ENV);
    assert_int_equal(num(b, "gpus"), 1);
    assert_string_equal(str(b, "gpu_type"), "a100");
    json_decref(b);
    assert_null(body_for(ARGV("--gres=gpu", "--gpus=a100", "--wrap=true"), "",
                         NO_ENV, &e));
    assert_int_equal(e.exit_code, 1);
    assert_string_equal(e.text, "Invalid GRES specification (with and "
                                "without type identification)");
}

static void extra_node_info_and_its_options_are_node_minimums(void **state)
{
    json_t *b = must_parse(ARGV("-B", "2:4", "--wrap=true"), "", NO_ENV);

    (void)state;
    assert_int_equal(num(b, "sockets_per_node"), 2);
    assert_int_equal(num(b, "cores_per_socket"), 4);
    assert_null(json_object_get(b, "threads_per_core"));
    json_decref(b);
    /* '*' asks nothing, a range asks its minimum, the last option wins */
    b = must_parse(ARGV("--cores-per-socket=8", "-B", "*:2-4:1", "--wrap=x"),
                   "", NO_ENV);
    assert_null(json_object_get(b, "sockets_per_node"));
    assert_int_equal(num(b, "cores_per_socket"), 2);
    assert_int_equal(num(b, "threads_per_core"), 1);
    json_decref(b);
    b = must_parse(ARGV("-B", "2", "--threads-per-core=2", "--wrap=x"), "",
                   NO_ENV);
    assert_int_equal(num(b, "sockets_per_node"), 2);
    assert_null(json_object_get(b, "cores_per_socket"));
    assert_int_equal(num(b, "threads_per_core"), 2);
    json_decref(b);
}

static void gpus_per_socket_goes_with_sockets_per_node(void **state)
{
    json_t *b = must_parse(ARGV("--gpus-per-socket=a100:1",
                                "--sockets-per-node=2", "--wrap=true"),
                           "", NO_ENV);

    (void)state;
    assert_int_equal(num(b, "gpus_per_socket"), 1);
    assert_int_equal(num(b, "sockets_per_node"), 2);
    assert_string_equal(str(b, "gpu_type"), "a100");
    assert_null(json_object_get(b, "gpus_per_node"));
    json_decref(b);
    b = must_parse(ARGV("-B2", "--wrap=true"), "",
                   ENVP("SBATCH_GPUS_PER_SOCKET=3"));
    assert_int_equal(num(b, "gpus_per_socket"), 3);
    json_decref(b);
}

static void bad_values_give_slurms_messages(void **state)
{
    static const struct {
        const char *opt;
        int code;
        const char *text;
    } cases[] = {
        {"--mem=abc", 255, "Invalid --mem specification"},
        {"--mem-per-cpu=1Q", 255, "Invalid --mem-per-cpu specification"},
        {"--time=bogus", 255, "Invalid --time specification"},
        {"--nodes=x", 255, "\"x\" is not a valid node count"},
        {"--nodes=4-2", 255,
         "Maximum node count 2 is less than minimum node count 4"},
        {"--ntasks=0", 1, "Invalid numeric value \"0\" for --ntasks."},
        {"--cpus-per-task=two", 1,
         "Invalid numeric value \"two\" for --cpus-per-task."},
        {"--exclusive=bogus", 255, "Invalid --exclusive specification"},
        {"--nice=9999999999", 255,
         "Invalid --nice value, out of range (+/- 2147483645)"},
        {"--distribution=diagonal", 255,
         "Invalid --distribution specification"},
        {"-mplane", 255, "Invalid plane size or size not specified\n"
                         "Invalid --distribution specification"},
        {"-Bx", 1, "Invalid numeric value \"x\" for first arg of -B."},
        {"-B2:4:y", 1, "Invalid numeric value \"y\" for third arg of -B."},
        {"--sockets-per-node=two", 1,
         "Invalid numeric value \"two\" for sockets-per-node."},
        {"--threads-per-core=*", 1,
         "Invalid numeric value \"*\" for --threads-per-core."},
        {"--gpus-per-socket=1", 1, "--gpus-per-socket option requires "
                                   "--sockets-per-node specification"},
    };
    struct sbatch_error e;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *opt = strdup(cases[i].opt);

        assert_null(body_for(ARGV(opt, "--wrap=true"), "", NO_ENV, &e));
        assert_int_equal(e.exit_code, cases[i].code);
        assert_string_equal(e.level, "error");
        assert_string_equal(e.text, cases[i].text);
        free(opt);
    }
}

static void bad_value_in_script_is_reported_too(void **state)
{
    struct sbatch_error e;

    (void)state;
    assert_null(body_for(NO_ARGS, "#!/bin/sh\n#SBATCH --mem=lots\n", NO_ENV,
                         &e));
    assert_int_equal(e.exit_code, 255);
    assert_string_equal(e.text, "Invalid --mem specification");
}

static void unknown_option_asks_for_help(void **state)
{
    struct sbatch_error e;

    (void)state;
    assert_null(body_for(ARGV("--nosuchoption", "--wrap=true"), "", NO_ENV,
                         &e));
    assert_int_equal(e.exit_code, 255);
    assert_null(e.level);
    assert_string_equal(e.text, "Try \"sbatch --help\" for more information");
    assert_null(body_for(NO_ARGS, "#!/bin/sh\n#SBATCH --nosuch\n", NO_ENV,
                         &e));
    assert_int_equal(e.exit_code, 255);
}

static void stray_word_in_directive_is_invalid(void **state)
{
    struct sbatch_error e;

    (void)state;
    assert_null(body_for(NO_ARGS, "#!/bin/sh\n#SBATCH -N 1 extra\n", NO_ENV,
                         &e));
    assert_int_equal(e.exit_code, 255);
    assert_string_equal(e.text,
                        "Invalid directive found in batch script: extra");
}

static void unmatched_quote_is_fatal_with_line(void **state)
{
    struct sbatch_error e;

    (void)state;
    assert_null(body_for(NO_ARGS, "#!/bin/sh\n\n#SBATCH -J \"open\n", NO_ENV,
                         &e));
    assert_int_equal(e.exit_code, 1);
    assert_string_equal(e.level, "fatal");
    assert_string_equal(e.text, "job.sh: line 3: Unmatched `\"` in "
                                "[#SBATCH -J \"open]");
}

static void default_names_follow_the_script_source(void **state)
{
    json_t *b = must_parse(ARGV("--wrap=hostname"), "", NO_ENV);

    (void)state;
    assert_string_equal(str(b, "name"), "wrap");
    assert_null(json_object_get(b, "command"));
    json_decref(b);
    b = must_parse(NO_ARGS, "#!/bin/sh\ntrue\n", NO_ENV);
    assert_string_equal(str(b, "name"), "sbatch");
    json_decref(b);
    b = must_parse(ARGV("/tmp/dir/train.sh", "a1", "a2"), "#!/bin/sh\n",
                   NO_ENV);
    assert_string_equal(str(b, "name"), "train.sh");
    assert_string_equal(str(b, "command"), "/tmp/dir/train.sh");
    assert_int_equal(json_array_size(json_object_get(b, "argv")), 2);
    assert_string_equal(
        json_string_value(json_array_get(json_object_get(b, "argv"), 1)),
        "a2");
    json_decref(b);
}

static void options_after_script_belong_to_it(void **state)
{
    json_t *b = must_parse(ARGV("-J", "n", "run.sh", "-N", "4"), "#!/bin/sh\n",
                           NO_ENV);

    (void)state;
    assert_null(json_object_get(b, "nodes_min"));
    assert_int_equal(json_array_size(json_object_get(b, "argv")), 2);
    json_decref(b);
}

static void wrap_refuses_script_arguments(void **state)
{
    struct sbatch_error e;

    (void)state;
    assert_null(body_for(ARGV("--wrap=true", "extra"), "", NO_ENV, &e));
    assert_int_equal(e.exit_code, 1);
    assert_string_equal(e.text,
                        "Script arguments not permitted with --wrap option");
}

static void default_output_is_relative_slurm_jobid(void **state)
{
    json_t *b = must_parse(ARGV("--wrap=true"), "", NO_ENV);

    (void)state;
    assert_string_equal(str(b, "std_out"), "slurm-%j.out");
    assert_string_equal(str(b, "std_err"), "slurm-%j.out");
    json_decref(b);
    b = must_parse(ARGV("-o", "/abs/o.%j", "-D", "/scratch", "--wrap=true"),
                   "", NO_ENV);
    assert_string_equal(str(b, "std_out"), "/abs/o.%j");
    assert_string_equal(str(b, "std_err"), "/abs/o.%j");
    assert_string_equal(str(b, "work_dir"), "/scratch");
    json_decref(b);
    b = must_parse(ARGV("-e", "e.log", "-D", "/scratch", "--wrap=true"), "",
                   NO_ENV);
    assert_string_equal(str(b, "std_err"), "/scratch/e.log");
    assert_string_equal(str(b, "std_out"), "slurm-%j.out");
    json_decref(b);
}

static void export_selects_the_environment(void **state)
{
    char **env = ENVP("HOME=/h", "PATH=/bin", "SLURM_CONF=/etc/s.conf");
    json_t *b = must_parse(ARGV("--export=NONE", "--wrap=true"), "", env);

    (void)state;
    assert_null(env_of(b, "HOME"));
    assert_string_equal(env_of(b, "SLURM_CONF"), "/etc/s.conf");
    json_decref(b);
    b = must_parse(ARGV("--export=PATH,FOO=bar", "--wrap=true"), "", env);
    assert_string_equal(env_of(b, "PATH"), "/bin");
    assert_string_equal(env_of(b, "FOO"), "bar");
    assert_null(env_of(b, "HOME"));
    json_decref(b);
    b = must_parse(ARGV("--export=ALL,HOME=/x", "--wrap=true"), "", env);
    assert_string_equal(env_of(b, "HOME"), "/x");
    assert_string_equal(env_of(b, "PATH"), "/bin");
    json_decref(b);
}

static void memory_options_exclude_each_other(void **state)
{
    const char *script = "#!/bin/sh\n#SBATCH --mem-per-cpu=2G\n";
    struct sbatch_error e;
    json_t *b = must_parse(ARGV("--mem=8G"), script, NO_ENV);

    (void)state;
    assert_int_equal(num(b, "mem_per_node_mib"), 8192);
    assert_null(json_object_get(b, "mem_per_cpu_mib"));
    json_decref(b);
    assert_null(body_for(ARGV("--mem=1G", "--mem-per-cpu=1G", "--wrap=true"),
                         "", NO_ENV, &e));
    assert_int_equal(e.exit_code, 1);
    assert_string_equal(e.level, "fatal");
}

static void tasks_per_node_sets_task_count(void **state)
{
    json_t *b = must_parse(ARGV("-N", "2", "--ntasks-per-node=4",
                                "--wrap=true"), "", NO_ENV);

    (void)state;
    assert_int_equal(num(b, "ntasks"), 8);
    assert_true(json_is_true(json_object_get(b, "ntasks_set")));
    assert_string_equal(env_of(b, "SLURM_NTASKS_PER_NODE"), "4");
    json_decref(b);
    b = must_parse(ARGV("-N", "2-4", "--wrap=true"), "", NO_ENV);
    assert_int_equal(num(b, "nodes_min"), 2);
    assert_int_equal(num(b, "nodes_max"), 4);
    assert_true(json_is_false(json_object_get(b, "ntasks_set")));
    json_decref(b);
}

/* -m goes on to the job's sruns as SLURM_DISTRIBUTION, in Slurm's words,
 * and a plane's size as SLURM_DIST_PLANESIZE. */
static void distribution_sets_the_batch_variables(void **state)
{
    json_t *b = must_parse(ARGV("-m", "*:*", "--wrap=true"), "", NO_ENV);

    (void)state;
    assert_string_equal(env_of(b, "SLURM_DISTRIBUTION"), "block:cyclic");
    assert_null(env_of(b, "SLURM_DIST_PLANESIZE"));
    assert_string_equal(str(b, "distribution"), "*:*");
    json_decref(b);
    b = must_parse(ARGV("--distribution=Plane=3", "--wrap=true"), "",
                   NO_ENV);
    assert_string_equal(env_of(b, "SLURM_DISTRIBUTION"), "plane");
    assert_string_equal(env_of(b, "SLURM_DIST_PLANESIZE"), "3");
    json_decref(b);
    b = must_parse(ARGV("--wrap=true"), "", NO_ENV);
    assert_null(env_of(b, "SLURM_DISTRIBUTION"));
    json_decref(b);
}

static void flags_and_passed_on_options(void **state)
{
    json_t *b = must_parse(ARGV("-H", "--exclusive", "--no-requeue",
                                "--nice", "-A", "research", "--qos=gpu4",
                                "--time=UNLIMITED", "--wrap=true"),
                           "", NO_ENV);

    (void)state;
    assert_true(json_is_true(json_object_get(b, "hold")));
    assert_true(json_is_true(json_object_get(b, "exclusive")));
    assert_true(json_is_false(json_object_get(b, "requeue")));
    assert_int_equal(num(b, "nice"), 100);
    assert_int_equal(num(b, "time_limit_s"), -1);
    assert_string_equal(str(b, "account"), "research");
    assert_string_equal(str(b, "qos"), "gpu4");
    json_decref(b);
}

/* --mail-type goes as Slurm's MAIL_* bits, --mail-user as given; a
 * #SBATCH line loses to the command line. */
static void mail_options_are_sent_as_bits(void **state)
{
    json_t *b = must_parse(ARGV("--mail-type=end,FAIL", "--mail-user=bob",
                                "job.sh"),
                           "#!/bin/sh\n#SBATCH --mail-type=ALL\ntrue\n",
                           NO_ENV);
    struct sbatch_error e;

    (void)state;
    assert_int_equal(num(b, "mail_type"), 6);
    assert_string_equal(str(b, "mail_user"), "bob");
    json_decref(b);
    b = must_parse(ARGV("job.sh"),
                   "#!/bin/sh\n#SBATCH --mail-type=ALL,TIME_LIMIT_80\n", NO_ENV);
    assert_int_equal(num(b, "mail_type"), 0x050f | 0x0040);
    json_decref(b);
    assert_null(body_for(ARGV("--mail-type=END,", "--wrap=true"), "", NO_ENV,
                         &e));
    assert_int_equal(e.exit_code, 255);
    assert_string_equal(e.text, "Invalid --mail-type specification");
}

static void time_limits_keep_seconds_and_zero_is_unlimited(void **state)
{
    json_t *b = must_parse(ARGV("--time=0:02", "--wrap=true"), "", NO_ENV);

    (void)state;
    assert_int_equal(num(b, "time_limit_s"), 2);
    json_decref(b);
    b = must_parse(ARGV("-t", "1-00:00:00", "--wrap=true"), "", NO_ENV);
    assert_int_equal(num(b, "time_limit_s"), 86400);
    json_decref(b);
    b = must_parse(ARGV("-t", "0", "--wrap=true"), "", NO_ENV);
    assert_int_equal(num(b, "time_limit_s"), -1);
    json_decref(b);
    b = must_parse(ARGV("--wrap=true"), "", NO_ENV);
    assert_null(json_object_get(b, "time_limit_s"));
    json_decref(b);
}

static void first_pass_reports_help_and_version(void **state)
{
    struct sbatch_opts *o = sbatch_opts_create(NULL);
    struct sbatch_error e = {0};

    (void)state;
    assert_int_equal(sbatch_opts_first_pass(o, 3, ARGV("--mem=bad", "--help"),
                                            &e), SBATCH_HELP);
    sbatch_opts_destroy(o);
    o = sbatch_opts_create(NULL);
    assert_int_equal(sbatch_opts_first_pass(o, 2, ARGV("-V"), &e),
                     SBATCH_VERSION);
    sbatch_opts_destroy(o);
}

static void help_lists_table_rows_in_slurm_layout(void **state)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    (void)state;
    sbatch_opts_print_help(f);
    fclose(f);
    assert_non_null(
        strstr(text, "\n  -J, --job-name=jobname      name of job\n"));
    assert_non_null(strstr(text, "\n      --wrap[=command string] wrap "));
    assert_non_null(
        strstr(text, "\n  -B  --extra-node-info=S[:C[:T]]  combine"));
    assert_non_null(strstr(text, "\nOther options:\n  -V, --version  "));
    free(text);
}

static void wrap_script_matches_slurm(void **state)
{
    char *s = sbatch_script_wrap("echo hi");

    (void)state;
    assert_string_equal(s, "#!/bin/sh\n# This script was created by sbatch "
                           "--wrap.\n\necho hi\n");
    free(s);
}

static void script_checks_match_slurm(void **state)
{
    struct sbatch_error e;

    (void)state;
    assert_int_equal(sbatch_script_check("", 0, &e), -1);
    assert_string_equal(e.text, "Batch script is empty!");
    assert_int_equal(sbatch_script_check(" \n\t", 3, &e), -1);
    assert_string_equal(e.text, "Batch script contains only whitespace!");
    assert_int_equal(sbatch_script_check("echo hi\n", 8, &e), -1);
    assert_string_equal(e.text,
                        "This does not look like a batch script.  The first\n"
                        "line must start with #! followed by the path to an "
                        "interpreter.\nFor instance: #!/bin/sh");
    assert_int_equal(e.exit_code, 1);
    assert_int_equal(sbatch_script_check("#!/bin/sh\r\ntrue\r\n", 17, &e), -1);
    assert_int_equal(sbatch_script_check("#!/bin/sh\ntrue\n", 15, &e), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_job_directives_fill_the_description),
        cmocka_unit_test(cpu_job_sets_slurm_variables_sbatch_exports),
        cmocka_unit_test(directives_take_separate_values_and_quotes),
        cmocka_unit_test(directives_after_first_command_are_ignored),
        cmocka_unit_test(command_line_overrides_script),
        cmocka_unit_test(environment_overrides_script_and_loses_to_argv),
        cmocka_unit_test(boolean_variables_follow_slurm_rules),
        cmocka_unit_test(typed_gres_gives_gpus_per_node_and_type),
        cmocka_unit_test(gpus_option_counts_whole_job),
        cmocka_unit_test(bad_gres_is_rejected_like_the_controller),
        cmocka_unit_test(extra_node_info_and_its_options_are_node_minimums),
        cmocka_unit_test(gpus_per_socket_goes_with_sockets_per_node),
        cmocka_unit_test(bad_values_give_slurms_messages),
        cmocka_unit_test(bad_value_in_script_is_reported_too),
        cmocka_unit_test(unknown_option_asks_for_help),
        cmocka_unit_test(stray_word_in_directive_is_invalid),
        cmocka_unit_test(unmatched_quote_is_fatal_with_line),
        cmocka_unit_test(default_names_follow_the_script_source),
        cmocka_unit_test(options_after_script_belong_to_it),
        cmocka_unit_test(wrap_refuses_script_arguments),
        cmocka_unit_test(default_output_is_relative_slurm_jobid),
        cmocka_unit_test(export_selects_the_environment),
        cmocka_unit_test(distribution_sets_the_batch_variables),
        cmocka_unit_test(memory_options_exclude_each_other),
        cmocka_unit_test(tasks_per_node_sets_task_count),
        cmocka_unit_test(flags_and_passed_on_options),
        cmocka_unit_test(mail_options_are_sent_as_bits),
        cmocka_unit_test(time_limits_keep_seconds_and_zero_is_unlimited),
        cmocka_unit_test(first_pass_reports_help_and_version),
        cmocka_unit_test(help_lists_table_rows_in_slurm_layout),
        cmocka_unit_test(wrap_script_matches_slurm),
        cmocka_unit_test(script_checks_match_slurm),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
