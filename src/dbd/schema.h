/* SPDX-License-Identifier: Apache-2.0
 *
 * schema.h - the accounting database's schema, created and migrated by
 * droverdbd itself
 *
 * The schema_version table holds one row per migration applied.  At start
 * droverdbd applies, in order and each in its own transaction, every
 * migration newer than the database's version.
 */
#ifndef DROVER_DBD_SCHEMA_H
#define DROVER_DBD_SCHEMA_H

#include "dbd/db.h"

/* The version this build creates and understands. */
int schema_latest(void);

/* Bring 'db' to schema_latest().  *version (may be NULL) gets the version
 * it is at afterwards.  A database newer than this build is refused.
 * Returns 0, or -1 with errno (EIO from the database, EPROTO for a newer
 * schema) and 'error' naming the migration that failed.
 */
int schema_migrate(db_t *db, int *version, drv_error_t *error);

#endif /* !DROVER_DBD_SCHEMA_H */
