/* SPDX-License-Identifier: Apache-2.0
 *
 * work.c - database work, one item at a time, off the loop
 *
 * Items run in arrival order through uv_queue_work, never two at once, so
 * the database handle needs no lock and acct_send events commit in the
 * order they came.  When the database is unreachable (a PostgreSQL server
 * down or restarting), each item first tries to connect; failing that it
 * is answered EDRV_DB_CONNECTION, and a timer keeps trying every
 * DBD_RECONNECT_MS while idle.  The daemon never exits over it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "dbd/dbd.h"
#include "dbd/schema.h"

/* Worker thread: make sure the database is open and migrated. */
static int ensure_connected(struct dbd *dbd, struct dbd_work *w)
{
    if (dbd->db && db_connected(dbd->db))
        return 0;
    db_close(dbd->db);
    dbd->db = NULL;
    w->schema_version = 0;
    if (!(dbd->db = db_open(&dbd->target, &w->error))
        || schema_migrate(dbd->db, &w->schema_version, &w->error) < 0) {
        db_close(dbd->db);
        dbd->db = NULL;
        w->errnum = EDRV_DB_CONNECTION;
        return -1;
    }
    return 0;
}

static void work_cb(uv_work_t *uv)
{
    struct dbd_work *w = uv->data;
    struct dbd *dbd = w->dbd;

    if (ensure_connected(dbd, w) == 0 && w->fn && w->fn(dbd, w) < 0
        && !w->errnum)
        w->errnum = EDRV_ACCT_STORAGE;
    /* A query that failed because the server went away: reconnect next. */
    w->connected = dbd->db && db_connected(dbd->db);
}

static void start_next(struct dbd *dbd);

/* Log connection changes once, not at every retry. */
static void note_connection(struct dbd *dbd, struct dbd_work *w)
{
    if (w->connected && !dbd->connected)
        log_info("connected to %s database %s (schema version %d)",
                 dbd->conf->storage == DBD_STORAGE_SQLITE ? "SQLite"
                                                          : "PostgreSQL",
                 dbd->conf->storage_loc, w->schema_version);
    else if (!w->connected && w->errnum == EDRV_DB_CONNECTION
             && strcmp(dbd->last_error, w->error.text))
        log_error("%s (retrying every %d s)", w->error.text,
                  DBD_RECONNECT_MS / 1000);
    if (!w->connected && w->errnum == EDRV_DB_CONNECTION)
        snprintf(dbd->last_error, sizeof(dbd->last_error), "%s",
                 w->error.text);
    else if (w->connected)
        dbd->last_error[0] = '\0';
    dbd->connected = w->connected;
    if (w->connected)
        dbd->schema_version = w->schema_version;
}

static void after_cb(uv_work_t *uv, int status)
{
    struct dbd_work *w = uv->data;
    struct dbd *dbd = w->dbd;

    (void)status;
    dbd->running = NULL;
    note_connection(dbd, w);
    if (w->req && w->errnum) {
        if (w->errnum != EDRV_DB_CONNECTION)
            log_error("%s: %s", proto_req_type(w->req), w->error.text);
        if (proto_respond_error(w->req, w->errnum, w->error.text) < 0)
            log_err("responding");
    } else if (w->req) {
        if (proto_respond(w->req, w->result) < 0)
            log_err("%s: responding", proto_req_type(w->req));
        w->result = NULL;
    }
    json_decref(w->result);
    free(w);
    start_next(dbd);
}

static void start_next(struct dbd *dbd)
{
    struct dbd_work *w = dbd->queue;

    if (dbd->running || !w)
        return;
    dbd->queue = w->next;
    if (!dbd->queue)
        dbd->queue_tail = &dbd->queue;
    dbd->running = w;
    w->uv.data = w;
    w->schema_version = dbd->schema_version;
    if (uv_queue_work(dbd->loop, &w->uv, work_cb, after_cb) < 0) {
        /* Cannot happen with a valid loop; answer rather than hang. */
        dbd->running = NULL;
        w->errnum = EDRV_ERROR;
        snprintf(w->error.text, sizeof(w->error.text), "cannot queue work");
        after_cb(&w->uv, 0);
    }
}

void dbd_work_submit(struct dbd *dbd, proto_req_t *req,
                     int (*fn)(struct dbd *dbd, struct dbd_work *w),
                     int64_t only_uid)
{
    struct dbd_work *w = xzalloc(sizeof(*w));

    w->dbd = dbd;
    w->req = req;
    w->fn = fn;
    w->only_uid = only_uid;
    *dbd->queue_tail = w;
    dbd->queue_tail = &w->next;
    start_next(dbd);
}

static void reconnect_cb(uv_timer_t *t)
{
    struct dbd *dbd = t->data;

    if (!dbd->connected && !dbd->running && !dbd->queue)
        dbd_work_submit(dbd, NULL, NULL, -1);
}

void dbd_work_start(struct dbd *dbd)
{
    dbd->queue_tail = &dbd->queue;
    uv_timer_init(dbd->loop, &dbd->reconnect_timer);
    dbd->reconnect_timer.data = dbd;
    uv_timer_start(&dbd->reconnect_timer, reconnect_cb, DBD_RECONNECT_MS,
                   DBD_RECONNECT_MS);
    dbd_work_submit(dbd, NULL, NULL, -1);
}

void dbd_work_stop(struct dbd *dbd)
{
    struct dbd_work *w;

    uv_timer_stop(&dbd->reconnect_timer);
    while ((w = dbd->queue)) { /* never started */
        dbd->queue = w->next;
        if (w->req)
            proto_respond_error(w->req, EDRV_DB_CONNECTION,
                                "droverdbd is shutting down");
        free(w);
    }
    dbd->queue_tail = &dbd->queue;
}
