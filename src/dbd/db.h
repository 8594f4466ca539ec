/* SPDX-License-Identifier: Apache-2.0
 *
 * db.h - a backend-neutral SQL layer: SQLite or PostgreSQL behind one API
 *
 * Everything above this layer (schema.c, jobs_store.c) is written once and
 * runs on both backends.  SQL text uses '?' positional parameters and values
 * are ALWAYS bound, never formatted into the text (the PostgreSQL backend
 * rewrites '?' to $1, $2...).  The dialect both backends share is used:
 * INSERT ... ON CONFLICT ... DO UPDATE, RETURNING, BIGINT.  The one place
 * they differ, a table's auto-increment key, is db_pk_type().
 *
 * A db_t is used by one thread at a time (droverdbd runs every call on its
 * worker thread, one after another).
 */
#ifndef DROVER_DBD_DB_H
#define DROVER_DBD_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

enum db_backend {
    DB_SQLITE,
    DB_PGSQL,
};

/* Where the database is.  Strings are borrowed for db_open() only. */
struct db_target {
    enum db_backend backend;
    const char *loc;  /* sqlite: file path; pgsql: database name */
    const char *host; /* pgsql: host or socket directory; NULL: libpq's */
    unsigned port;    /* pgsql: 0 = libpq's default */
    const char *user; /* pgsql: NULL = libpq's default */
    const char *pass; /* pgsql: NULL = none */
};

enum db_param_type {
    DB_PARAM_NULL,
    DB_PARAM_INT,
    DB_PARAM_TEXT,
};

/* One bound value.  Text is borrowed for the call and must be UTF-8. */
struct db_param {
    enum db_param_type type;
    int64_t i;
    const char *s;
};

#define DB_NULL ((struct db_param){.type = DB_PARAM_NULL})
#define DB_INT(v) ((struct db_param){.type = DB_PARAM_INT, .i = (int64_t)(v)})
#define DB_TEXT(v) ((struct db_param){.type = DB_PARAM_TEXT, .s = (v)})

typedef struct db db_t;
struct db_row;

/* Called once per result row.  Values are borrowed for the call only.
 * Return 0 to go on, or -1 to stop (the query then fails with errno
 * ECANCELED unless the callback set another errno).
 */
typedef int (*db_row_f)(const struct db_row *row, void *arg);

/* Open (and for SQLite create) the database.  PostgreSQL connects with a
 * short connect timeout and client_encoding UTF8.  Returns a handle (free
 * with db_close), or NULL with errno (EINVAL for a bad target, EIO when
 * the server or file cannot be reached, ENOMEM) and 'error' saying why.
 */
db_t *db_open(const struct db_target *target, drv_error_t *error);

/* Close the connection.  NULL is a no-op; errno is preserved. */
void db_close(db_t *db);

enum db_backend db_backend(const db_t *db);

/* "sqlite" or "pgsql" (as in the ping answer). */
const char *db_backend_name(const db_t *db);

/* False once the connection is lost (PostgreSQL); the caller should close
 * and reopen it.  SQLite is always connected.
 */
bool db_connected(const db_t *db);

/* The column type of an auto-increment 64-bit primary key. */
const char *db_pk_type(const db_t *db);

/* Run one statement with 'n' parameters; 'cb' (may be NULL) gets each
 * result row.  Returns 0, or -1 with errno (EIO for a database error,
 * EINVAL for a parameter count that does not match the '?' marks,
 * ECANCELED when 'cb' stopped) and 'error' holding the database's
 * message.
 */
int db_query(db_t *db, const char *sql, const struct db_param *params,
             size_t n, db_row_f cb, void *arg, drv_error_t *error);

/* db_query without rows. */
int db_exec(db_t *db, const char *sql, const struct db_param *params,
            size_t n, drv_error_t *error);

/* Run a statement that returns one integer (e.g. INSERT ... RETURNING id)
 * into *out.  No row is -1 with errno ENOENT.
 */
int db_query_int(db_t *db, const char *sql, const struct db_param *params,
                 size_t n, int64_t *out, drv_error_t *error);

/* Transactions.  Returns as db_exec.  db_rollback keeps errno and
 * 'error' (it is called on an error path) and logs its own failure.
 */
int db_begin(db_t *db, drv_error_t *error);
int db_commit(db_t *db, drv_error_t *error);
void db_rollback(db_t *db);

/* Row accessors, for column 'col' (0-based) of 'row'.  db_row_text
 * returns NULL for SQL NULL (borrowed, valid during the callback);
 * db_row_int returns 0 for NULL.
 */
size_t db_row_columns(const struct db_row *row);
bool db_row_is_null(const struct db_row *row, size_t col);
int64_t db_row_int(const struct db_row *row, size_t col);
const char *db_row_text(const struct db_row *row, size_t col);

#endif /* !DROVER_DBD_DB_H */
