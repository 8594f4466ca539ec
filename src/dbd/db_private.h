/* SPDX-License-Identifier: Apache-2.0
 *
 * db_private.h - what db.c needs from each backend (db_sqlite.c,
 * db_pgsql.c): a table of functions, linked in statically.
 */
#ifndef DROVER_DBD_DB_PRIVATE_H
#define DROVER_DBD_DB_PRIVATE_H

#include "dbd/db.h"

struct db_backend_ops;

/* A result row as the backend sees it: a statement (SQLite) or a result
 * and a row number (PostgreSQL).
 */
struct db_row {
    const struct db_backend_ops *ops;
    void *impl;
    int index;
};

struct db_backend_ops {
    const char *name;    /* "sqlite", "pgsql" */
    const char *pk_type; /* auto-increment 64-bit primary key column type */
    /* NULL with errno and 'error' on failure. */
    void *(*open)(const struct db_target *t, drv_error_t *error);
    void (*close)(void *impl);
    bool (*connected)(void *impl);
    /* 'n' already checked against the '?' count by db.c. */
    int (*query)(void *impl, const char *sql, const struct db_param *params,
                 size_t n, db_row_f cb, void *arg, drv_error_t *error);
    size_t (*columns)(const struct db_row *row);
    bool (*is_null)(const struct db_row *row, size_t col);
    int64_t (*get_int)(const struct db_row *row, size_t col);
    const char *(*get_text)(const struct db_row *row, size_t col);
};

extern const struct db_backend_ops db__sqlite_ops;
extern const struct db_backend_ops db__pgsql_ops;

/* Call each '?' parameter mark of 'sql' (outside quoted text and
 * identifiers) with its byte offset; returns how many there are.
 * 'fn' may be NULL (just count).
 */
size_t db__marks(const char *sql, void (*fn)(size_t off, void *arg),
                 void *arg);

#endif /* !DROVER_DBD_DB_PRIVATE_H */
