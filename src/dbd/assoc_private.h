/* SPDX-License-Identifier: Apache-2.0
 *
 * assoc_private.h - shared by assoc_store.c, assoc_modify.c, assoc_value.c
 */
#ifndef DROVER_DBD_ASSOC_PRIVATE_H
#define DROVER_DBD_ASSOC_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "dbd/db.h"

enum assoc_col_type {
    ACOL_INT,   /* BIGINT: JSON integer (null when SQL NULL) */
    ACOL_TEXT,  /* TEXT: JSON string (null when SQL NULL) */
    ACOL_LIST,  /* TEXT "a,b": JSON array of strings (null when NULL) */
};

struct assoc_col {
    const char *name; /* column name = JSON key */
    enum assoc_col_type type;
};

/* Columns of the assoc table after "id, cluster" (JSON keys). */
extern const struct assoc_col assoc__assoc_cols[];
/* Columns of the qos table after "name". */
extern const struct assoc_col assoc__qos_cols[];

/* Run 'sql' and return its rows as a new JSON array of objects keyed by
 * 'cols' (terminated by a NULL name, one per result column).  NULL with
 * errno and 'error' on failure.
 */
json_t *assoc__select(db_t *db, const char *sql, const struct db_param *p,
                      size_t n, const struct assoc_col *cols,
                      drv_error_t *error);

/* Every QOS row, with "id", in creation order (new array). */
json_t *assoc__qos_rows(db_t *db, drv_error_t *error);

/* Bump the version counter.  Returns as db_exec. */
int assoc__bump(db_t *db, drv_error_t *error);

/* The id of cluster 'name' into *id, or -1 with errno ENOENT. */
int assoc__cluster_id(db_t *db, const char *name, int64_t *id,
                      drv_error_t *error);

/* The names of every cluster (new array). */
json_t *assoc__cluster_names(db_t *db, drv_error_t *error);

/* The raw association rows (not inherited) of 'cluster' (NULL: all) in
 * sacctmgr's tree order.  New array.
 */
json_t *assoc__raw_assocs(db_t *db, const char *cluster, drv_error_t *error);

/* Is there a row in 'table' (acct, acct_user, qos) named 'name'? */
int assoc__exists(db_t *db, const char *table, const char *name, bool *yes,
                  drv_error_t *error);

/* Lower-case copy (caller frees). */
char *assoc__lower(const char *s);

/* "a,b" from a JSON array of strings ("" for an empty array or NULL). */
char *assoc__join(const json_t *list);

#endif /* !DROVER_DBD_ASSOC_PRIVATE_H */
