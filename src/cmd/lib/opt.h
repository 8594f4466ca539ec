/* SPDX-License-Identifier: Apache-2.0
 *
 * opt.h - one options table per command: parsing, --help, messages
 *
 * Each row names a long option, its short letter and argument kind, and
 * carries that option's lines of --help, so the help text is generated
 * from the same rows getopt_long() is built from (Slurm's slurm_opt.c
 * shape).  Help lines are Slurm's text, byte for byte, because scripts and
 * people compare them.
 */
#ifndef DROVER_CMD_LIB_OPT_H
#define DROVER_CMD_LIB_OPT_H

#include <getopt.h>
#include <stdio.h>
#include <time.h>

/* Values of long-only options start here (above any letter). */
#define CMD_OPT_LONG 0x100

struct cmd_opt {
    const char *name; /* long name without "--"; NULL: a help-only row */
    int val;          /* short letter, or CMD_OPT_LONG + n for long-only */
    int has_arg;      /* no_argument, required_argument, optional_argument */
    const char *help; /* this row's --help lines, verbatim; may be NULL */
};

/* A table ends with a row whose name, val and help are all zero. */
#define CMD_OPT_END {NULL, 0, 0, NULL}

/* getopt_long() over 'opts' (built on first call; one table per process).
 * Returns the row's val, -1 after the last option, or '?' after getopt has
 * printed "prog: unrecognized option '--x'" (prog is the base name, as
 * Slurm's commands print it).
 */
int cmd_getopt(int argc, char **argv, const struct cmd_opt *opts);

/* Print 'head', every row's help in table order, then 'tail' (either may
 * be NULL).
 */
void cmd_print_help(FILE *out, const char *head, const struct cmd_opt *opts,
                    const char *tail);

/* Print "slurm 22.05.8" (the Slurm release we match, in upstream's
 * spelling: the line tools parse to pick their flags), then Drover's own
 * version on a second line ("drover 0.1.0").  Debian's build prints
 * "slurm-wlm 22.05.8"; see docs/compatibility.md.
 */
void cmd_print_version(void);

/* The date line of squeue -l and sinfo -l ("Sat Nov 21 07:29:10 2026"),
 * local time, on stdout. */
void cmd_print_date(time_t now);

/* "prog: error: <message>" on stderr. */
void cmd_error(const char *prog, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The base name of argv[0]. */
const char *cmd_prog_name(const char *argv0);

#endif /* !DROVER_CMD_LIB_OPT_H */
