/* SPDX-License-Identifier: Apache-2.0
 *
 * sbatch_opt.h - sbatch's options: one table for argv, #SBATCH lines and
 * SBATCH_* variables, and the job description (job_submit body) built
 * from them.
 *
 * Parsing runs as Slurm's sbatch does: a first pass over the command line
 * (unknown options, --help/--usage/--version, --wrap, -Q, -v, the script
 * and its arguments), then a second pass applying #SBATCH lines, then
 * SBATCH_* variables, then the command line again, each overriding the last.
 * Nothing here exits or reads files; errors come back in a struct
 * sbatch_error holding Slurm's message and exit status for main() to print.
 */
#ifndef DROVER_CMD_LIB_SBATCH_OPT_H
#define DROVER_CMD_LIB_SBATCH_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "common/taskdist.h"

/* Why parsing stopped: Slurm's exit status and message. */
struct sbatch_error {
    int exit_code;     /* 1 (Slurm's error_exit) or 255 (its exit(-1)) */
    const char *level; /* "error", "fatal", or NULL: text is printed bare */
    char text[1024];   /* one or more lines, '\n'-separated, no prefix */
};

/* Print 'e' as Slurm does: each line as "sbatch: <level>: <line>\n". */
void sbatch_error_print(const struct sbatch_error *e, FILE *f);

/* The same with 'prog' ("salloc", "srun") in place of "sbatch". */
void sbatch_error_print_as(const struct sbatch_error *e, const char *prog,
                           FILE *f);

/* The command whose options are parsed.  Each shares the one table (the
 * resource options); a row may be limited to some commands (--wrap is
 * sbatch's, --label srun's).  Input variables are SBATCH_* for sbatch and
 * SALLOC_* for salloc (same suffixes); srun reads none yet.
 */
enum sbatch_cmd { SBATCH_CMD_SBATCH, SBATCH_CMD_SALLOC, SBATCH_CMD_SRUN };

/* Where an option value came from, lowest precedence first. */
enum sbatch_src { SBATCH_SRC_NONE, SBATCH_SRC_SCRIPT, SBATCH_SRC_ENV,
                  SBATCH_SRC_CLI };

/* What the first pass asks main() to do. */
enum sbatch_action { SBATCH_SUBMIT, SBATCH_HELP, SBATCH_USAGE,
                     SBATCH_VERSION };

struct sbatch_cli_opt; /* a command-line option kept for the second pass */

/* Everything sbatch learned from its inputs.  Strings are owned (free()). */
struct sbatch_opts {
    enum sbatch_cmd cmd;
    const char *prog;  /* "sbatch", "salloc" or "srun" (static) */
    FILE *msgs;        /* informational lines ("sbatch: ..."); NULL: none */
    char *cwd;         /* getcwd() at creation */
    char *submit_host; /* short host name; set by the caller */
    enum sbatch_src cur_src; /* source of the values being applied */

    /* first pass */
    char *wrap;             /* --wrap command, or NULL */
    int quiet, verbose;     /* -Q and -v counts */
    char *script_path;      /* script file as given, or NULL (stdin/wrap) */
    int script_argc;        /* arguments after the script name */
    char **script_argv;
    struct sbatch_cli_opt *cli;
    size_t cli_count;
    char **given;           /* per table row: last value applied, for -v */
    bool *is_set;           /* per table row: applied at least once */

    /* job description */
    char *job_name, *partition, *comment, *work_dir;
    char *std_out, *std_err, *std_in;
    int nodes_min, nodes_max; /* 0: not given; -1: -N 0 */
    int ntasks;
    bool ntasks_set;
    int cpus_per_task;        /* 0: not given */
    int ntasks_per_node;      /* 0: not given */
    int64_t mem_per_node_mib; /* -1: not given */
    int64_t mem_per_cpu_mib;  /* -1: not given */
    enum sbatch_src mem_src, mem_per_cpu_src;
    /* where -N and -n came from (srun: counts from SLURM_NNODES and
     * SLURM_NTASKS yield to the command line's layout) */
    enum sbatch_src nodes_src, ntasks_src;
    int64_t time_limit_s;     /* -1 unlimited; valid when time_set */
    bool time_set;
    char *gres;               /* --gres as given ("gpu:a100:2"); not "none" */
    char *gpus;               /* --gpus as given ("4", "a100:4") */
    char *gpus_per_node;      /* --gpus-per-node as given */
    char *gpus_per_socket;    /* --gpus-per-socket as given */
    /* -B S[:C[:T]], --sockets-per-node, --cores-per-socket,
     * --threads-per-core: nodes with at least these (each range's
     * minimum); 0: not given or '*' */
    int sockets_per_node, cores_per_socket, threads_per_core;
    bool exclusive;
    bool hold;
    int requeue;              /* -1 not given, 0 or 1 */
    int nice;
    bool nice_set;
    char *export_env;         /* --export, or NULL for ALL */
    char *clusters;           /* -M as given, or NULL; the command
                               * checks it names this cluster */
    bool parsable, wait, test_only;
    bool no_shell;            /* salloc --no-shell: allocate, run nothing */
    int bell;                 /* salloc --bell 1, --no-bell 0, else -1 */
    char *srun_prolog, *srun_epilog; /* srun --prolog/--epilog, or NULL */
    int kill_command_signal;  /* salloc -K: signal at revocation; 0: none */
    char *jobid;              /* srun --jobid: the allocation to run in */
    int immediate;            /* salloc/srun -I: seconds to wait, 0 none */
    bool label, pty;          /* srun -l, --pty */
    char *mpi;                /* srun --mpi, or NULL */
    json_t *extra;            /* accepted options Drover passes on as is */
    json_t *export_file_env;  /* --export-file's NAME -> value, or empty */
};

/* Create with defaults (work_dir = getcwd()).  'msgs' receives
 * informational lines such as Slurm's "can't run N processes" warning.
 * Returns NULL with errno if the working directory cannot be read.
 */
struct sbatch_opts *sbatch_opts_create(FILE *msgs);

/* As sbatch_opts_create(), for the options of command 'cmd'. */
struct sbatch_opts *sbatch_opts_create_cmd(FILE *msgs, enum sbatch_cmd cmd);

/* NULL is a no-op. */
void sbatch_opts_destroy(struct sbatch_opts *o);

/* First pass over the command line.  argv[0] is ignored; getopt's own
 * messages name the program (o->prog).  Unknown options (getopt prints
 * the first line) return -1 with e->exit_code 255.  For salloc and srun
 * the "script" and its arguments are the command to run.  The first of
 * --help/--usage/--version ends the pass and is returned.  Returns
 * SBATCH_SUBMIT when the job should be submitted, or -1.
 */
int sbatch_opts_first_pass(struct sbatch_opts *o, int argc, char **argv,
                           struct sbatch_error *e);

/* Second pass: #SBATCH lines of 'script' (label names it in messages:
 * the script's base name or "stdin"), then SBATCH_* variables from 'envp'
 * (NULL-terminated "NAME=value" strings), then the command line kept by
 * the first pass; then the checks and defaults Slurm applies.  'script'
 * is NULL for salloc and srun (no directives).
 * Returns 0, or -1 with 'e' set.
 */
int sbatch_opts_second_pass(struct sbatch_opts *o, const char *script,
                            const char *label, char *const *envp,
                            struct sbatch_error *e);

/* The job_submit body (docs/protocol.md "Job description") for 'script'
 * with the environment selected by --export from 'envp'.  Options Drover
 * accepts but does not model go in under their long names with '-' as '_'
 * ("account", "dependency", ...).  For salloc and srun ('script' NULL)
 * the body asks for an allocation only ("interactive":true): no script,
 * environment or output files.  Returns a new reference, or NULL with 'e'
 * set for an invalid --gres/--gpus/--export.
 */
json_t *sbatch_opts_job_desc(const struct sbatch_opts *o, const char *script,
                             char *const *envp, struct sbatch_error *e);

/* Slurm's --export selection from 'envp' (NULL-terminated "NAME=value"):
 * 'spec' NULL or ALL: everything; NONE: the SLURM_* variables only; a
 * list ("ALL,A=1,B", commas inside quotes kept): its items ("NAME" copied
 * from envp, "NAME=value" as given, ALL) plus the SLURM_* variables.
 * Returns a new {"NAME":"value"} object.
 */
json_t *sbatch_export_select(const char *spec, char *const *envp);

/* The -m option (or SBATCH_/SALLOC_DISTRIBUTION) as parsed into *d.
 * Returns 1 when it was given, else 0 (*d untouched).  Its value was
 * checked when it was set.
 */
int sbatch_opts_distribution(const struct sbatch_opts *o,
                             struct taskdist *d);

/* Print the options that were set, as Slurm does under -v. */
void sbatch_opts_print_set(const struct sbatch_opts *o, FILE *f);

/* sbatch --help, generated from the option table; sbatch --usage. */
void sbatch_opts_print_help(FILE *f);

/* --help of command 'cmd' ("Usage: salloc ..."), from the same table. */
void sbatch_opts_print_help_cmd(FILE *f, enum sbatch_cmd cmd);
void sbatch_opts_print_usage(FILE *f);

/* Slurm's --wrap script: "#!/bin/sh\n# This script was created by sbatch
 * --wrap.\n\n<cmd>\n".  Caller frees.
 */
char *sbatch_script_wrap(const char *cmd);

/* Slurm's checks on a batch script of 'len' bytes: not empty, not only
 * whitespace, starts with "#!", no NUL byte, no DOS line breaks.
 * Returns 0, or -1 with 'e' set (exit status 1).
 */
int sbatch_script_check(const char *buf, size_t len, struct sbatch_error *e);

/* The GPUs per node a --gres list ("gpu:2", "gpu:a100:1,foo:3",
 * "shard:4") asks for: its gpu entries summed, or -1 when it is not a
 * valid list; *shares says whether it asks for gres/shard or gres/mps
 * (srun: a step of a job with shares sees the shares' GPU). */
long sbatch_gres_gpus(const char *gres, bool *shares);

#endif /* !DROVER_CMD_LIB_SBATCH_OPT_H */
