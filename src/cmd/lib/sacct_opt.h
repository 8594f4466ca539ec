/* SPDX-License-Identifier: Apache-2.0
 *
 * sacct_opt.h - sacct's options table and --help text (Slurm 22.05's)
 */
#ifndef DROVER_CMD_LIB_SACCT_OPT_H
#define DROVER_CMD_LIB_SACCT_OPT_H

#include "cmd/lib/opt.h"

/* Values of sacct's long-only options. */
enum {
    SACCT_OPT_USAGE = CMD_OPT_LONG,
    SACCT_OPT_NAME,
    SACCT_OPT_UNITS,
    SACCT_OPT_NOCONVERT,
    SACCT_OPT_JSON,
    SACCT_OPT_YAML,
    SACCT_OPT_DELIMITER,
    SACCT_OPT_ENV_VARS,
    SACCT_OPT_FEDERATION,
    SACCT_OPT_LOCAL,
    SACCT_OPT_WHOLE_HETJOB,
};

/* Every option of Slurm 22.05's sacct, each row with its --help lines, in
 * the order sacct --help prints them; cmd_print_help(out, sacct_help_head,
 * sacct_opts, sacct_help_tail) prints Slurm's --help byte for byte (golden
 * help-sacct).
 */
extern const struct cmd_opt sacct_opts[];
extern const char sacct_help_head[];
extern const char sacct_help_tail[];

#endif /* !DROVER_CMD_LIB_SACCT_OPT_H */
