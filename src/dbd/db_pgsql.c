/* SPDX-License-Identifier: Apache-2.0
 *
 * db_pgsql.c - the PostgreSQL backend (libpq)
 *
 * Values travel as text parameters of PQexecParams ('?' becomes $n), so
 * nothing is ever quoted by us.  A lost connection shows as
 * db_connected() false; droverdbd then reconnects.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "common/log.h"
#include "dbd/db_private.h"

#define CONNECT_TIMEOUT_S "5"

static void pg_notice(void *arg, const char *message)
{
    (void)arg;
    log_debug("pgsql: %s", message); /* "relation exists, skipping"... */
}

/* The first line of libpq's message, without the trailing newline. */
static int pg_fail(const char *what, const char *msg, drv_error_t *error)
{
    size_t len = strcspn(msg ? msg : "", "\n");

    errno = EIO;
    return errprintf(error, "pgsql: %s%.*s", what, (int)len, msg ? msg : "");
}

static void *pg_open(const struct db_target *t, drv_error_t *error)
{
    char port[16];
    const char *keys[8], *vals[8];
    int n = 0;
    PGconn *conn;

    snprintf(port, sizeof(port), "%u", t->port);
    keys[n] = "dbname", vals[n++] = t->loc;
    if (t->host && t->host[0])
        keys[n] = "host", vals[n++] = t->host;
    if (t->port)
        keys[n] = "port", vals[n++] = port;
    if (t->user && t->user[0])
        keys[n] = "user", vals[n++] = t->user;
    if (t->pass && t->pass[0])
        keys[n] = "password", vals[n++] = t->pass;
    keys[n] = "connect_timeout", vals[n++] = CONNECT_TIMEOUT_S;
    keys[n] = "client_encoding", vals[n++] = "UTF8";
    keys[n] = NULL, vals[n] = NULL;
    conn = PQconnectdbParams(keys, vals, 0);
    if (!conn || PQstatus(conn) != CONNECTION_OK) {
        char what[128];
        snprintf(what, sizeof(what), "cannot connect to database %s: ",
                 t->loc);
        pg_fail(what, conn ? PQerrorMessage(conn) : "out of memory", error);
        PQfinish(conn);
        errno = EIO;
        return NULL;
    }
    PQsetNoticeProcessor(conn, pg_notice, NULL);
    return conn;
}

static void pg_close(void *impl)
{
    PQfinish(impl);
}

static bool pg_connected(void *impl)
{
    return impl && PQstatus(impl) == CONNECTION_OK;
}

struct rewrite {
    const char *sql;
    char *out;
    size_t len, from, n;
};

static void rewrite_mark(size_t off, void *arg)
{
    struct rewrite *r = arg;

    memcpy(r->out + r->len, r->sql + r->from, off - r->from);
    r->len += off - r->from;
    r->len += (size_t)sprintf(r->out + r->len, "$%zu", ++r->n);
    r->from = off + 1;
}

/* 'sql' with each '?' replaced by $1, $2...  Caller frees; NULL on ENOMEM. */
static char *pg_rewrite(const char *sql, size_t n)
{
    struct rewrite r = {.sql = sql};

    if (!(r.out = malloc(strlen(sql) + n * 21 + 1)))
        return NULL;
    db__marks(sql, rewrite_mark, &r);
    strcpy(r.out + r.len, sql + r.from);
    return r.out;
}

static int pg_rows(PGresult *res, db_row_f cb, void *arg,
                   drv_error_t *error)
{
    struct db_row row = {.ops = &db__pgsql_ops, .impl = res};
    int rows = PQntuples(res);

    for (row.index = 0; cb && row.index < rows; row.index++) {
        errno = ECANCELED;
        if (cb(&row, arg) < 0)
            return errprintf(error, "query stopped");
    }
    return 0;
}

static int pg_query(void *impl, const char *sql,
                    const struct db_param *params, size_t n, db_row_f cb,
                    void *arg, drv_error_t *error)
{
    char *text = pg_rewrite(sql, n);
    char(*ints)[24] = calloc(n ? n : 1, sizeof(*ints));
    const char **vals = calloc(n ? n : 1, sizeof(*vals));
    PGresult *res = NULL;
    int rc = -1;

    if (!text || !ints || !vals) {
        errno = ENOMEM;
        errprintf(error, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (params[i].type == DB_PARAM_INT) {
            snprintf(ints[i], sizeof(ints[i]), "%" PRId64, params[i].i);
            vals[i] = ints[i];
        } else if (params[i].type == DB_PARAM_TEXT) {
            vals[i] = params[i].s;
        }
    }
    res = PQexecParams(impl, text, (int)n, NULL, vals, NULL, NULL, 0);
    if (!res || (PQresultStatus(res) != PGRES_COMMAND_OK
                 && PQresultStatus(res) != PGRES_TUPLES_OK)) {
        pg_fail("", res ? PQresultErrorMessage(res) : PQerrorMessage(impl),
                error);
        goto out;
    }
    rc = pg_rows(res, cb, arg, error);
out:
    PQclear(res);
    free(text);
    free(ints);
    free(vals);
    return rc;
}

static size_t pg_columns(const struct db_row *row)
{
    return (size_t)PQnfields(row->impl);
}

static bool pg_is_null(const struct db_row *row, size_t col)
{
    return PQgetisnull(row->impl, row->index, (int)col);
}

static int64_t pg_get_int(const struct db_row *row, size_t col)
{
    const char *s = PQgetvalue(row->impl, row->index, (int)col);

    if (s[0] == 't' || s[0] == 'f') /* a boolean column */
        return s[0] == 't';
    return strtoll(s, NULL, 10);
}

static const char *pg_get_text(const struct db_row *row, size_t col)
{
    return PQgetvalue(row->impl, row->index, (int)col);
}

const struct db_backend_ops db__pgsql_ops = {
    .name = "pgsql",
    .pk_type = "BIGSERIAL PRIMARY KEY",
    .open = pg_open,
    .close = pg_close,
    .connected = pg_connected,
    .query = pg_query,
    .columns = pg_columns,
    .is_null = pg_is_null,
    .get_int = pg_get_int,
    .get_text = pg_get_text,
};
