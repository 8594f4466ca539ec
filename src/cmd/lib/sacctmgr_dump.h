/* SPDX-License-Identifier: Apache-2.0
 *
 * sacctmgr_dump.h - "sacctmgr dump CLUSTER file=F" and "sacctmgr load
 * file=F": Slurm's flat file of a cluster's accounts and users
 * (Cluster - / Parent - / Account - / User - lines with :Key=Value
 * options).
 */
#ifndef DROVER_CMD_LIB_SACCTMGR_DUMP_H
#define DROVER_CMD_LIB_SACCTMGR_DUMP_H

#include <stdbool.h>

#include <jansson.h>

#include "cmd/lib/format.h"

/* The dump file text of 'cluster' from an acct_assoc_list answer 'list'
 * into 'out'.  Returns 0, or -1 when the cluster has no associations.
 */
int smgr_dump_text(struct fmt_buf *out, json_t *list, const char *cluster);

/* The acct_modify bodies ({"op":"add",...}) that load 'text', in order,
 * as a new array; NULL with 'bad_line' (1-based) for a line it cannot read.
 */
json_t *smgr_load_plan(const char *text, int *bad_line);

/* The commands: args after "dump" / "load".  Return the exit status. */
int smgr_dump(const char *prog, int argc, char **argv);
int smgr_load(const char *prog, int argc, char **argv, bool immediate);

#endif /* !DROVER_CMD_LIB_SACCTMGR_DUMP_H */
