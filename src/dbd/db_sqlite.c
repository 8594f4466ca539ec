/* SPDX-License-Identifier: Apache-2.0
 *
 * db_sqlite.c - the SQLite backend (the embedded default)
 *
 * Statements are prepared once and kept, keyed by their text, up to
 * STMT_CACHE_MAX of them (queries built from filters vary; the rest are
 * finalized after use).  The file is opened in WAL mode with
 * synchronous=FULL: droverdbd acknowledges events only after COMMIT, so a
 * commit must be on disk when it returns.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#include <uthash.h>

#include "dbd/db_private.h"

#define STMT_CACHE_MAX 64
#define BUSY_TIMEOUT_MS 10000

struct stmt {
    char *sql;
    sqlite3_stmt *stmt;
    UT_hash_handle hh;
};

struct lite {
    sqlite3 *db;
    struct stmt *cache;
    unsigned cached;
};

static int lite_error(struct lite *l, drv_error_t *error)
{
    errno = EIO;
    return errprintf(error, "sqlite: %s", sqlite3_errmsg(l->db));
}

static void lite_close(void *impl)
{
    struct lite *l = impl;
    struct stmt *s, *tmp;

    if (!l)
        return;
    HASH_ITER(hh, l->cache, s, tmp) {
        HASH_DEL(l->cache, s);
        sqlite3_finalize(s->stmt);
        free(s->sql);
        free(s);
    }
    sqlite3_close(l->db);
    free(l);
}

static void *lite_open(const struct db_target *t, drv_error_t *error)
{
    struct lite *l = calloc(1, sizeof(*l));
    char *msg = NULL;

    if (!l) {
        errprintf(error, "out of memory");
        return NULL;
    }
    if (sqlite3_open_v2(t->loc, &l->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL)
        != SQLITE_OK) {
        errprintf(error, "cannot open SQLite database %s: %s", t->loc,
                  l->db ? sqlite3_errmsg(l->db) : "out of memory");
        lite_close(l);
        errno = EIO;
        return NULL;
    }
    sqlite3_busy_timeout(l->db, BUSY_TIMEOUT_MS);
    if (sqlite3_exec(l->db, "PRAGMA journal_mode=WAL; "
                            "PRAGMA synchronous=FULL; "
                            "PRAGMA foreign_keys=ON;",
                     NULL, NULL, &msg)
        != SQLITE_OK) {
        errprintf(error, "SQLite database %s: %s", t->loc,
                  msg ? msg : "cannot set pragmas");
        sqlite3_free(msg);
        lite_close(l);
        errno = EIO;
        return NULL;
    }
    return l;
}

static bool lite_connected(void *impl)
{
    return impl != NULL;
}

/* The prepared statement for 'sql', reset; *cached says whether it stays
 * in the cache (else the caller finalizes it).
 */
static sqlite3_stmt *lite_prepare(struct lite *l, const char *sql,
                                  bool *cached, drv_error_t *error)
{
    struct stmt *s;
    sqlite3_stmt *stmt;

    HASH_FIND_STR(l->cache, sql, s);
    if (s) {
        sqlite3_reset(s->stmt);
        sqlite3_clear_bindings(s->stmt);
        *cached = true;
        return s->stmt;
    }
    if (sqlite3_prepare_v3(l->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt,
                           NULL)
        != SQLITE_OK) {
        lite_error(l, error);
        return NULL;
    }
    *cached = false;
    if (l->cached < STMT_CACHE_MAX && (s = calloc(1, sizeof(*s)))
        && (s->sql = strdup(sql))) {
        s->stmt = stmt;
        HASH_ADD_KEYPTR(hh, l->cache, s->sql, strlen(s->sql), s);
        l->cached++;
        *cached = true;
    } else if (s) {
        free(s);
    }
    return stmt;
}

static int lite_bind(struct lite *l, sqlite3_stmt *stmt,
                     const struct db_param *params, size_t n,
                     drv_error_t *error)
{
    for (size_t i = 0; i < n; i++) {
        int col = (int)i + 1, rc;

        switch (params[i].type) {
        case DB_PARAM_INT:
            rc = sqlite3_bind_int64(stmt, col, params[i].i);
            break;
        case DB_PARAM_TEXT:
            if (params[i].s) {
                rc = sqlite3_bind_text(stmt, col, params[i].s, -1,
                                       SQLITE_TRANSIENT);
                break;
            }
            rc = sqlite3_bind_null(stmt, col); /* NULL text is SQL NULL */
            break;
        default:
            rc = sqlite3_bind_null(stmt, col);
        }
        if (rc != SQLITE_OK)
            return lite_error(l, error);
    }
    return 0;
}

static int lite_query(void *impl, const char *sql,
                      const struct db_param *params, size_t n, db_row_f cb,
                      void *arg, drv_error_t *error)
{
    struct lite *l = impl;
    struct db_row row = {.ops = &db__sqlite_ops};
    bool cached;
    sqlite3_stmt *stmt = lite_prepare(l, sql, &cached, error);
    int rc = 0, step;

    if (!stmt)
        return -1;
    row.impl = stmt;
    if (lite_bind(l, stmt, params, n, error) < 0) {
        rc = -1;
        goto out;
    }
    while ((step = sqlite3_step(stmt)) == SQLITE_ROW) {
        errno = ECANCELED;
        if (cb && cb(&row, arg) < 0) {
            rc = errprintf(error, "query stopped");
            goto out;
        }
    }
    if (step != SQLITE_DONE)
        rc = lite_error(l, error);
out:
    if (cached)
        sqlite3_reset(stmt);
    else
        sqlite3_finalize(stmt);
    return rc;
}

static size_t lite_columns(const struct db_row *row)
{
    return (size_t)sqlite3_column_count(row->impl);
}

static bool lite_is_null(const struct db_row *row, size_t col)
{
    return sqlite3_column_type(row->impl, (int)col) == SQLITE_NULL;
}

static int64_t lite_get_int(const struct db_row *row, size_t col)
{
    return sqlite3_column_int64(row->impl, (int)col);
}

static const char *lite_get_text(const struct db_row *row, size_t col)
{
    return (const char *)sqlite3_column_text(row->impl, (int)col);
}

const struct db_backend_ops db__sqlite_ops = {
    .name = "sqlite",
    .pk_type = "INTEGER PRIMARY KEY AUTOINCREMENT",
    .open = lite_open,
    .close = lite_close,
    .connected = lite_connected,
    .query = lite_query,
    .columns = lite_columns,
    .is_null = lite_is_null,
    .get_int = lite_get_int,
    .get_text = lite_get_text,
};
