/* SPDX-License-Identifier: Apache-2.0
 *
 * sshare_print.h - sshare's table from the controller's share_info answer
 *
 * The layout is Slurm 22.05's sshare (print_fields columns, -p/-P, -n),
 * byte for byte: the default and -l field lists (LevelFS only under Fair
 * Tree), -m's Partition, -o field names matched by prefix with "%N"
 * widths, Account indented by the association's depth, TRES strings cut
 * to their column with '+'.  Row selection is Slurm's: user rows are
 * filtered by the user list, every row by the account list, -U keeps the
 * user rows only.
 */
#ifndef DROVER_CMD_LIB_SSHARE_PRINT_H
#define DROVER_CMD_LIB_SSHARE_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "common/error.h"
#include "cmd/lib/format.h"
#include "cmd/lib/print_fields.h"

/* Slurm's sshare --help (and --usage: the same text). */
extern const char sshare_usage_text[];

/* sshare --helpformat: the field names, four a line. */
void sshare_print_helpformat(FILE *out);

/* What the command line asked for. */
struct sshare_out {
    enum pf_layout layout; /* -p, -P */
    bool noheader;         /* -n, -h */
    bool long_list;        /* -l */
    bool partitions;       /* -m */
    bool users_only;       /* -U */
    const char *format;    /* -o lists joined with ','; NULL: default */
    const char *cluster;   /* ClusterName, for Cluster when a row has none */
    /* Users whose user rows are shown (case-insensitive; empty: all),
     * accounts whose rows are shown (empty: all). */
    const char *const *users;
    size_t nusers;
    const char *const *accounts;
    size_t naccounts;
};

/* Append sshare's output for 'resp' to 'out'.  Returns 0, or -1 with
 * Slurm's message in 'error' for a field -o does not know ('Invalid field
 * requested: "x"'); nothing is appended then.
 */
int sshare_print(struct fmt_buf *out, const json_t *resp,
                 const struct sshare_out *o, drv_error_t *error);

#endif /* !DROVER_CMD_LIB_SSHARE_PRINT_H */
