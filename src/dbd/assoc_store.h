/* SPDX-License-Identifier: Apache-2.0
 *
 * assoc_store.h - clusters, accounts, users, associations and QOS in the
 * accounting database (docs/protocol.md, "Associations, QOS and users")
 *
 * Accounts form a tree per cluster through their associations (parent
 * account); users hang under accounts.  Values an association does not set
 * are inherited from its parent's association (Max* limits, QOS, default
 * QOS, priority), as Slurm does; Grp* limits and shares are never
 * inherited (each level of the tree has its own).  Every change bumps one
 * 'version' counter so the controller polls cheaply.  All SQL goes through
 * db.h with bound values, the same text on SQLite and PostgreSQL.
 */
#ifndef DROVER_DBD_ASSOC_STORE_H
#define DROVER_DBD_ASSOC_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "dbd/db.h"

/* Schema version 2 (schema.c's list): the tables of this module, the QOS
 * "normal", the account "root" and the user "root" (Administrator).
 * NULL-terminated, with schema.c's "@PK@" token.
 */
extern const char *const assoc_schema_v2[];

/* The longest name of a cluster, account, user or QOS, in bytes. */
#define ASSOC_NAME_MAX 64

/* Check 'name', a 'kind' ("cluster", "account", "user", "QOS") about to
 * be stored: 1 to ASSOC_NAME_MAX bytes, no whitespace or control
 * characters, none of , ' " ` = | \\ (they would break sacctmgr's
 * lists and parsable output).  Returns 0, or -1 with errno EINVAL and
 * 'error' (" error: Invalid account name '...': ...", the name shortened
 * and its unprintable bytes shown as '?').
 */
int assoc_store_check_name(const char *kind, const char *name,
                           drv_error_t *error);

/* Register 'cluster' if the database does not have it (the cluster row, its
 * root association with QOS normal, and root's user association), as
 * slurmctld's first contact with slurmdbd does.  Inside or outside a
 * transaction.  Returns 0, or -1 with errno (EINVAL: a name that
 * assoc_store_check_name refuses; EIO) and 'error'.
 */
int assoc_store_ensure_cluster(db_t *db, const char *cluster,
                               drv_error_t *error);

/* The current version counter into *version.  Returns 0 or -1 (EIO). */
int assoc_store_version(db_t *db, int64_t *version, drv_error_t *error);

/* The acct_assoc_list answer for 'cluster' (NULL: every cluster):
 * {"version","qos","assocs","users"} with effective association values,
 * associations in sacctmgr's order (cluster name, then the tree: an
 * account, its users by name, then its sub-accounts by name).  When
 * 'if_changed_since' equals the version, {"version","unchanged":true}.
 * Returns a new object (caller decrefs) or NULL with errno EIO and 'error'.
 */
json_t *assoc_store_list(db_t *db, const char *cluster,
                         int64_t if_changed_since, drv_error_t *error);

/* The admin level of user 'name' ("None" when unknown): "None", "Operator"
 * or "Administrator" into 'level' (at least 16 bytes).  Returns 0 or -1.
 */
int assoc_store_admin_level(db_t *db, const char *name, char *level,
                            size_t size, drv_error_t *error);

/* Apply one acct_modify body (docs/protocol.md) in one transaction, rolled
 * back instead of committed when 'dry_run'.  'as_admin': the caller is an
 * Administrator (root, SlurmUser, AdminLevel=Administrator); false for an
 * Operator, who may not grant the Administrator level nor change the level
 * of or remove an Administrator.  Returns {"changed":[lines]} (new; caller
 * decrefs; an empty list when nothing matched), or NULL with errno EINVAL
 * (a bad key, value or name, an unknown parent, account or QOS: 'error'
 * names it, as sacctmgr would print it), EPERM (what an Operator may not
 * do: 'error' has Slurm's text) or EIO, and nothing changed.
 */
json_t *assoc_store_modify(db_t *db, json_t *body, bool dry_run,
                           bool as_admin, drv_error_t *error);

#endif /* !DROVER_DBD_ASSOC_STORE_H */
