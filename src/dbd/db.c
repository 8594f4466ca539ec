/* SPDX-License-Identifier: Apache-2.0
 *
 * db.c - the backend-neutral SQL layer: dispatch to SQLite or PostgreSQL
 *
 * The checks every backend needs (parameter count, NULL handles) live
 * here, so a backend only talks to its library.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "dbd/db_private.h"

struct db {
    const struct db_backend_ops *ops;
    enum db_backend backend;
    void *impl;
};

static const struct db_backend_ops *ops_of(enum db_backend b)
{
    switch (b) {
    case DB_SQLITE:
        return &db__sqlite_ops;
    case DB_PGSQL:
        return &db__pgsql_ops;
    }
    return NULL;
}

db_t *db_open(const struct db_target *target, drv_error_t *error)
{
    const struct db_backend_ops *ops = target ? ops_of(target->backend) : NULL;
    db_t *db;

    if (!ops || !target->loc || !target->loc[0]) {
        errno = EINVAL;
        errprintf(error, "no database backend or location given");
        return NULL;
    }
    if (!(db = calloc(1, sizeof(*db)))) {
        errprintf(error, "out of memory");
        return NULL;
    }
    db->ops = ops;
    db->backend = target->backend;
    if (!(db->impl = ops->open(target, error))) {
        int saved_errno = errno;
        free(db);
        errno = saved_errno;
        return NULL;
    }
    return db;
}

void db_close(db_t *db)
{
    if (!db)
        return;
    int saved_errno = errno;
    db->ops->close(db->impl);
    free(db);
    errno = saved_errno;
}

enum db_backend db_backend(const db_t *db)
{
    return db->backend;
}

const char *db_backend_name(const db_t *db)
{
    return db->ops->name;
}

bool db_connected(const db_t *db)
{
    return db && db->ops->connected(db->impl);
}

const char *db_pk_type(const db_t *db)
{
    return db->ops->pk_type;
}

size_t db__marks(const char *sql, void (*fn)(size_t off, void *arg),
                 void *arg)
{
    size_t count = 0;
    char quote = 0;

    for (const char *p = sql; *p; p++) {
        if (quote) {
            if (*p == quote)
                quote = 0; /* a doubled quote reopens at once: same result */
        } else if (*p == '\'' || *p == '"') {
            quote = *p;
        } else if (*p == '?') {
            if (fn)
                fn((size_t)(p - sql), arg);
            count++;
        }
    }
    return count;
}

int db_query(db_t *db, const char *sql, const struct db_param *params,
             size_t n, db_row_f cb, void *arg, drv_error_t *error)
{
    size_t marks;

    if (!db || !sql || (n && !params)) {
        errno = EINVAL;
        return errprintf(error, "db_query: no database or no statement");
    }
    if ((marks = db__marks(sql, NULL, NULL)) != n) {
        errno = EINVAL;
        return errprintf(error, "statement has %zu parameters, %zu given",
                         marks, n);
    }
    return db->ops->query(db->impl, sql, params, n, cb, arg, error);
}

int db_exec(db_t *db, const char *sql, const struct db_param *params,
            size_t n, drv_error_t *error)
{
    return db_query(db, sql, params, n, NULL, NULL, error);
}

struct int_result {
    bool got;
    int64_t value;
};

static int int_row(const struct db_row *row, void *arg)
{
    struct int_result *r = arg;

    if (!r->got) {
        r->got = true;
        r->value = db_row_int(row, 0);
    }
    return 0;
}

int db_query_int(db_t *db, const char *sql, const struct db_param *params,
                 size_t n, int64_t *out, drv_error_t *error)
{
    struct int_result r = {0};

    if (db_query(db, sql, params, n, int_row, &r, error) < 0)
        return -1;
    if (!r.got) {
        errno = ENOENT;
        return errprintf(error, "statement returned no row");
    }
    *out = r.value;
    return 0;
}

int db_begin(db_t *db, drv_error_t *error)
{
    return db_exec(db, "BEGIN", NULL, 0, error);
}

int db_commit(db_t *db, drv_error_t *error)
{
    return db_exec(db, "COMMIT", NULL, 0, error);
}

void db_rollback(db_t *db)
{
    drv_error_t error = {{0}};
    int saved_errno = errno;

    if (db && db_connected(db)
        && db_exec(db, "ROLLBACK", NULL, 0, &error) < 0)
        log_error("rollback: %s", error.text);
    errno = saved_errno;
}

size_t db_row_columns(const struct db_row *row)
{
    return row->ops->columns(row);
}

bool db_row_is_null(const struct db_row *row, size_t col)
{
    return col >= db_row_columns(row) || row->ops->is_null(row, col);
}

int64_t db_row_int(const struct db_row *row, size_t col)
{
    return db_row_is_null(row, col) ? 0 : row->ops->get_int(row, col);
}

const char *db_row_text(const struct db_row *row, size_t col)
{
    return db_row_is_null(row, col) ? NULL : row->ops->get_text(row, col);
}
