/* SPDX-License-Identifier: Apache-2.0
 *
 * sprio_print.h - sprio's table from the controller's priority_info answer
 *
 * The layout is Slurm 22.05's sprio, byte for byte: the default columns
 * are the factors whose weight is non-zero (SITE always), -l shows them
 * all, -n the normalized factors, -w one "Weights" line, -o the format
 * letters of sprio(1).  Weighted values are factor x weight printed as
 * "%.0f", the job's PRIORITY the controller's integer priority (with -n:
 * priority / 4294967295, "%16.14f" cut to the column, as Slurm does).
 * The option table lives here too, so that --help and --usage are tested
 * against Slurm's text.
 */
#ifndef DROVER_CMD_LIB_SPRIO_PRINT_H
#define DROVER_CMD_LIB_SPRIO_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "cmd/lib/format.h"
#include "cmd/lib/opt.h"

/* Values of sprio's long-only options (sprio_options[]). */
enum {
    SPRIO_OPT_HELP = CMD_OPT_LONG,
    SPRIO_OPT_USAGE,
    SPRIO_OPT_LOCAL,
    SPRIO_OPT_SIBLING,
    SPRIO_OPT_FEDERATION,
};

/* sprio's options, with Slurm 22.05's --help lines. */
extern const struct cmd_opt sprio_options[];

/* Slurm's sprio --help and --usage texts. */
void sprio_print_help(FILE *out);
void sprio_print_usage(FILE *out);

/* What the command line asked for. */
struct sprio_out {
    bool noheader;      /* -h */
    bool long_list;     /* -l */
    bool normalized;    /* -n */
    bool weights;       /* -w: the weights line instead of the jobs */
    bool users_given;   /* -u: the default format shows USER */
    bool sibling;       /* --sibling without --local: CLUSTER column */
    const char *format; /* -o or SPRIO_FORMAT; NULL: the default */
    const char *cluster; /* ClusterName, for %c */
    /* -j/-u/-p are sent to the controller, which answers only the jobs
     * they select (priority_info). */
    bool jobs_given; /* -j with ids: "Unable to find jobs ..." when none */
};

/* The format sprio uses without -o: Slurm's, built from the weights of
 * 'resp' (a priority_info answer).  Caller frees. */
char *sprio_default_format(const json_t *resp, const struct sprio_out *o);

/* The letters of 'format' that sprio does not know, in order, written to
 * 'bad' (at most 'max' - 1 of them, NUL-terminated).  Returns their
 * number; sprio reports each ("Invalid job format specification: %c")
 * and prints the others. */
size_t sprio_bad_letters(const char *format, char *bad, size_t max);

/* 0 when 'resp' comes from priority/multifactor; otherwise -1 with
 * Slurm's three-line message (naming the plugin) in 'msg'. */
int sprio_check_type(const json_t *resp, struct fmt_buf *msg);

/* Append sprio's output for 'resp' to 'out': the header (unless -h), then
 * the weights line (-w) or the jobs sorted by id. */
void sprio_print(struct fmt_buf *out, const json_t *resp,
                 const struct sprio_out *o);

#endif /* !DROVER_CMD_LIB_SPRIO_PRINT_H */
