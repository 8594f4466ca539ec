/* SPDX-License-Identifier: Apache-2.0
 *
 * jobs_store.c - upsert job and step records (acct_send)
 *
 * The statements are made from the column tables of acct_record.c, with
 * every value bound: INSERT ... ON CONFLICT (key) DO UPDATE SET
 * col = excluded.col ... RETURNING id, which SQLite and PostgreSQL both
 * run as written.  Steps a record no longer lists are kept: a record only
 * grows (docs/protocol.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/xalloc.h"
#include "dbd/acct_record.h"
#include "dbd/assoc_store.h"
#include "dbd/jobs_store.h"
#include "dbd/usage_store.h"

#define MAX_COLS 64

/* INSERT INTO tbl (lead, cols...) VALUES (?...) ON CONFLICT (key) DO
 * UPDATE SET ... RETURNING id.  Caller frees.
 */
static char *upsert_sql(const char *tbl, const char *lead,
                        const struct acct_table *t, const char *key)
{
    char *cols = acct_column_list(t, ""), *marks = xstrdup("?"), *set = NULL;
    char *next, *sql;

    for (size_t i = 0; i < t->count; i++) {
        next = xasprintf("%s, ?", marks);
        free(marks);
        marks = next;
        next = xasprintf("%s%s%s = excluded.%s", set ? set : "",
                         set ? ", " : "", t->cols[i].column,
                         t->cols[i].column);
        free(set);
        set = next;
    }
    sql = xasprintf("INSERT INTO %s (%s, %s) VALUES (%s) ON CONFLICT (%s) "
                    "DO UPDATE SET %s RETURNING id",
                    tbl, lead, cols, marks, key, set);
    free(cols);
    free(marks);
    free(set);
    return sql;
}

static int cluster_id(db_t *db, const char *name, int64_t *id,
                      drv_error_t *error)
{
    struct db_param p[] = {DB_TEXT(name), DB_INT(time(NULL))};

    if (db_exec(db, "INSERT INTO cluster (name, created) VALUES (?, ?) "
                    "ON CONFLICT (name) DO NOTHING", p, 2, error) < 0)
        return -1;
    return db_query_int(db, "SELECT id FROM cluster WHERE name = ?", p, 1, id,
                        error);
}

/* Upsert 'rec' of table 't' under parent row 'parent'; *id gets its row. */
static int upsert_row(db_t *db, const char *sql, const struct acct_table *t,
                      int64_t parent, json_t *rec, int64_t *id,
                      drv_error_t *error)
{
    struct db_param p[MAX_COLS + 1];

    p[0] = DB_INT(parent);
    if (acct_record_params(t, rec, p + 1, error) < 0)
        return -1;
    return db_query_int(db, sql, p, t->count + 1, id, error);
}

static int upsert_steps(db_t *db, int64_t job_row, json_t *steps,
                        drv_error_t *error)
{
    char *sql;
    json_t *step;
    size_t i;
    int64_t id;
    int rc = 0;

    if (!steps || json_is_null(steps))
        return 0;
    if (!json_is_array(steps)) {
        errno = EINVAL;
        return errprintf(error, "job record: \"steps\" must be an array");
    }
    sql = upsert_sql("step", "job_ref", &acct_step_table, "job_ref, step_id");
    json_array_foreach(steps, i, step) {
        if (!json_is_integer(json_object_get(step, "step_id"))) {
            errno = EINVAL;
            rc = errprintf(error, "step record %zu has no integer step_id", i);
            break;
        }
        if ((rc = upsert_row(db, sql, &acct_step_table, job_row, step, &id,
                             error)) < 0)
            break;
    }
    free(sql);
    return rc;
}

int jobs_store_upsert(db_t *db, const char *cluster, json_t *job,
                      drv_error_t *error)
{
    int64_t cid, row;
    char *sql;
    int rc;

    if (!json_is_object(job) || !json_is_integer(json_object_get(job,
                                                                 "job_id"))) {
        errno = EINVAL;
        return errprintf(error, "job record has no integer job_id");
    }
    if (cluster_id(db, cluster, &cid, error) < 0)
        return -1;
    sql = upsert_sql("job", "cluster_id", &acct_job_table,
                     "cluster_id, job_id, submit_time");
    rc = upsert_row(db, sql, &acct_job_table, cid, job, &row, error);
    free(sql);
    if (rc < 0)
        return -1;
    return upsert_steps(db, row, json_object_get(job, "steps"), error);
}

/* A reservation's record ("resv" event): one row per (cluster, name,
 * start_time), its end and what it holds updated in place. */
static int resv_upsert(db_t *db, const char *cluster, json_t *r,
                       drv_error_t *error)
{
    json_t *tres = json_object_get(r, "tres");
    const char *name = json_string_value(json_object_get(r, "name"));
    int64_t cid;

    if (!name || !json_is_integer(json_object_get(r, "start_time"))) {
        errno = EINVAL;
        return errprintf(error, "reservation record needs a name and an "
                         "integer start_time");
    }
    if (cluster_id(db, cluster, &cid, error) < 0)
        return -1;
    struct db_param p[] = {
        DB_INT(cid), DB_TEXT(name),
        DB_INT(json_integer_value(json_object_get(r, "start_time"))),
        DB_INT(json_integer_value(json_object_get(r, "end_time"))),
        DB_TEXT(json_string_value(json_object_get(r, "nodes")) ?: ""),
        DB_INT(json_integer_value(json_object_get(r, "node_cnt"))),
        DB_TEXT(json_string_value(json_object_get(r, "flags")) ?: ""),
        DB_INT(json_integer_value(json_object_get(tres, "cpu"))),
        DB_INT(json_integer_value(json_object_get(tres, "mem"))),
        DB_INT(json_integer_value(json_object_get(tres, "node"))),
        DB_INT(json_integer_value(json_object_get(tres, "gres/gpu")))};
    return db_exec(db, "INSERT INTO reservation (cluster_id, name, "
                       "start_time, end_time, nodes, node_cnt, flags, cpu, "
                       "mem, node, gpu) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                       "?) ON CONFLICT (cluster_id, name, start_time) DO "
                       "UPDATE SET end_time = excluded.end_time, nodes = "
                       "excluded.nodes, node_cnt = excluded.node_cnt, flags "
                       "= excluded.flags, cpu = excluded.cpu, mem = "
                       "excluded.mem, node = excluded.node, gpu = "
                       "excluded.gpu", p, 11, error);
}

/* Check the body's shape before touching the database. */
static int check_send(json_t *body, const char **cluster, json_t **events,
                      drv_error_t *error)
{
    json_t *ev;
    size_t i;

    *cluster = json_string_value(json_object_get(body, "cluster"));
    *events = json_object_get(body, "events");
    errno = EINVAL;
    if (assoc_store_check_name("cluster", *cluster, error) < 0)
        return -1;
    if (!json_is_array(*events))
        return errprintf(error, "acct_send: \"events\" must be an array");
    json_array_foreach(*events, i, ev) {
        if (!json_is_integer(json_object_get(ev, "seq"))
            || (!json_is_object(json_object_get(ev, "job"))
                && !json_is_object(json_object_get(ev, "resv"))))
            return errprintf(error, "acct_send: event %zu needs an integer "
                             "\"seq\" and a \"job\" or \"resv\" object",
                             i);
    }
    return 0;
}

/* Usage rollups: the hours from the batch's earliest job time (eligible
 * or start) are to be rolled up again; the controller's capacity, when
 * sent, is recorded. */
static int note_usage(db_t *db, const char *cluster, json_t *tres,
                      int64_t first_start, drv_error_t *error)
{
    int64_t cid;

    if (!first_start && !tres)
        return 0;
    if (cluster_id(db, cluster, &cid, error) < 0)
        return -1;
    if (first_start && usage_mark_dirty(db, cid, first_start, error) < 0)
        return -1;
    return tres ? usage_note_capacity(db, cid, tres, time(NULL), error) : 0;
}

int jobs_store_send(db_t *db, json_t *body, int64_t *acked_seq,
                    drv_error_t *error)
{
    const char *cluster;
    json_t *events, *ev;
    int64_t acked = 0, first_start = 0;
    size_t i;

    if (check_send(body, &cluster, &events, error) < 0)
        return -1;
    if (db_begin(db, error) < 0)
        return -1;
    json_array_foreach(events, i, ev) {
        int64_t seq = json_integer_value(json_object_get(ev, "seq"));
        json_t *job = json_object_get(ev, "job");
        json_t *resv = json_object_get(ev, "resv");
        int64_t first = job ? usage_first_time(job)
                            : json_integer_value(json_object_get(resv,
                                                                 "start_time"));
        if ((job ? jobs_store_upsert(db, cluster, job, error)
                 : resv_upsert(db, cluster, resv, error))
            < 0) {
            db_rollback(db);
            return -1;
        }
        if (seq > acked)
            acked = seq;
        if (first > 0 && (!first_start || first < first_start))
            first_start = first;
    }
    if (note_usage(db, cluster, json_object_get(body, "cluster_tres"),
                   first_start, error) < 0
        || db_commit(db, error) < 0) {
        db_rollback(db);
        return -1;
    }
    *acked_seq = acked;
    return 0;
}

#define PURGED "FROM job WHERE submit_time <= ? AND end_time != 0"

int jobs_store_purge(db_t *db, time_t cutoff, int64_t *purged,
                     drv_error_t *error)
{
    struct db_param p[] = {DB_INT(cutoff)};

    *purged = 0;
    if (db_begin(db, error) < 0)
        return -1;
    if (db_query_int(db, "SELECT COUNT(*) " PURGED, p, 1, purged, error) < 0
        || db_exec(db, "DELETE FROM step WHERE job_ref IN (SELECT id "
                       PURGED ")", p, 1, error) < 0
        || db_exec(db, "DELETE " PURGED, p, 1, error) < 0
        || db_commit(db, error) < 0) {
        db_rollback(db);
        return -1;
    }
    return 0;
}
