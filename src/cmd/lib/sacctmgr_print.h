/* SPDX-License-Identifier: Apache-2.0
 *
 * sacctmgr_print.h - sacctmgr's "show" tables (Slurm 22.05 print_fields):
 * right-justified columns of a fixed width with a dashed rule, values cut
 * with '+' at the width; -p / -P '|'-separated; format=Name%W.
 *
 * Records are acct_assoc_list's (docs/protocol.md): an association, a QOS,
 * a user (with one of its associations for "withassoc"), an account.
 */
#ifndef DROVER_CMD_LIB_SACCTMGR_PRINT_H
#define DROVER_CMD_LIB_SACCTMGR_PRINT_H

#include <stdbool.h>

#include <jansson.h>

#include "cmd/lib/format.h"
#include "common/error.h"

enum smgr_kind { SMGR_ASSOC, SMGR_QOS, SMGR_USER, SMGR_ACCOUNT, SMGR_CLUSTER,
                 SMGR_TRES };

struct smgr_out {
    int parsable;  /* 0; 1: -p ("a|b|"); 2: -P ("a|b") */
    bool noheader; /* -n */
};

/* Default format of a kind ("withassoc" users have their own). */
const char *smgr_default_format(enum smgr_kind kind, bool withassoc);

/* Print records 'rows' (each an object; for users with an association,
 * {"user":u,"assoc":a}) as 'format' ("Name,Priority,QOS%20"; NULL: the
 * default) into 'out'.  Returns 0, or -1 with errno EINVAL and 'error'
 * "Unknown field 'X'" (as sacctmgr prints it) for a bad field.
 */
int smgr_print(struct fmt_buf *out, enum smgr_kind kind, bool withassoc,
               const char *format, json_t *rows, const struct smgr_out *o,
               drv_error_t *error);

/* The TRES table (sacctmgr show tres): Slurm's eight default TRES with
 * their ids (cpu 1 ... pages 8), then each "type/name" of
 * 'storage_tres' (AccountingStorageTRES=, NULL: none) that is not one of
 * them, with ids from 1001 in order, as a fresh Slurm database numbers
 * them.  Rows {"type","name","id"} for smgr_print(SMGR_TRES); new
 * reference. */
json_t *smgr_tres_rows(const char *storage_tres);

#endif /* !DROVER_CMD_LIB_SACCTMGR_PRINT_H */
