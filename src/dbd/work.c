/* SPDX-License-Identifier: Apache-2.0
 *
 * work.c - database work off the loop, in two lanes
 *
 * Each lane has its own connection and runs its items in arrival order
 * through uv_queue_work, never two at once, so a connection needs no lock.
 * The write lane takes every write (acct_send events commit in the order
 * they came) and owns the schema; the read lane answers queries beside it,
 * so one slow reader never holds up writes, nor writes the readers.
 * When the database is unreachable (a PostgreSQL server down or
 * restarting), each item first tries to connect; failing that it is
 * answered EDRV_DB_CONNECTION, and a timer keeps the write lane trying
 * every DBD_RECONNECT_MS while idle.  The daemon never exits over it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "dbd/dbd.h"
#include "dbd/schema.h"

/* Worker thread: make sure the lane's database is open; the write lane
 * also migrates it (the read lane is used only once that is done).
 */
static int ensure_connected(struct dbd_lane *lane, struct dbd *dbd,
                            struct dbd_work *w)
{
    if (lane->db && db_connected(lane->db))
        return 0;
    db_close(lane->db);
    lane->db = NULL;
    if (lane->writer)
        w->schema_version = 0;
    if (!(lane->db = db_open(&dbd->target, &w->error))
        || (lane->writer
            && schema_migrate(lane->db, &w->schema_version, &w->error) < 0)) {
        db_close(lane->db);
        lane->db = NULL;
        w->errnum = EDRV_DB_CONNECTION;
        return -1;
    }
    return 0;
}

static void work_cb(uv_work_t *uv)
{
    struct dbd_work *w = uv->data;
    struct dbd_lane *lane = w->lane;

    w->db = NULL;
    if (ensure_connected(lane, w->dbd, w) == 0 && w->fn) {
        w->db = lane->db;
        if (w->fn(w->dbd, w) < 0 && !w->errnum)
            w->errnum = EDRV_ACCT_STORAGE;
    }
    w->db = NULL;
    /* A query that failed because the server went away: reconnect next. */
    w->connected = lane->db && db_connected(lane->db);
}

static void start_next(struct dbd *dbd, struct dbd_lane *lane);

/* Log the write lane's connection changes once, not at every retry. */
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

static void answer(struct dbd_work *w)
{
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
}

static void enqueue(struct dbd *dbd, struct dbd_lane *lane,
                    struct dbd_work *w)
{
    w->lane = lane;
    w->next = NULL;
    *lane->queue_tail = w;
    lane->queue_tail = &w->next;
    start_next(dbd, lane);
}

/* The read lane once the write lane has the schema in place. */
static struct dbd_lane *read_lane(struct dbd *dbd)
{
    return dbd->connected && dbd->schema_version ? &dbd->read : &dbd->write;
}

static void after_cb(uv_work_t *uv, int status)
{
    struct dbd_work *w = uv->data;
    struct dbd *dbd = w->dbd;
    struct dbd_lane *lane = w->lane;

    (void)status;
    lane->running = NULL;
    if (lane->writer)
        note_connection(dbd, w);
    if (w->then && !w->errnum && dbd->stopping) {
        w->errnum = EDRV_DB_CONNECTION;
        snprintf(w->error.text, sizeof(w->error.text),
                 "droverdbd is shutting down");
        answer(w);
    } else if (w->then && !w->errnum) {
        w->fn = w->then;
        w->then = NULL;
        enqueue(dbd, read_lane(dbd), w);
    } else {
        answer(w);
    }
    start_next(dbd, lane);
}

static void start_next(struct dbd *dbd, struct dbd_lane *lane)
{
    struct dbd_work *w = lane->queue;

    if (lane->running || !w)
        return;
    lane->queue = w->next;
    if (!lane->queue)
        lane->queue_tail = &lane->queue;
    lane->running = w;
    w->uv.data = w;
    w->schema_version = dbd->schema_version;
    if (uv_queue_work(dbd->loop, &w->uv, work_cb, after_cb) < 0) {
        /* Cannot happen with a valid loop; answer rather than hang. */
        w->errnum = EDRV_ERROR;
        w->then = NULL;
        snprintf(w->error.text, sizeof(w->error.text), "cannot queue work");
        after_cb(&w->uv, 0);
    }
}

static struct dbd_work *new_work(struct dbd *dbd, proto_req_t *req,
                                 int (*fn)(struct dbd *dbd,
                                           struct dbd_work *w),
                                 int64_t only_uid)
{
    struct dbd_work *w = xzalloc(sizeof(*w));

    w->dbd = dbd;
    w->req = req;
    w->fn = fn;
    w->only_uid = only_uid;
    return w;
}

void dbd_work_submit(struct dbd *dbd, proto_req_t *req,
                     int (*fn)(struct dbd *dbd, struct dbd_work *w),
                     int64_t only_uid)
{
    enqueue(dbd, &dbd->write, new_work(dbd, req, fn, only_uid));
}

void dbd_work_submit_read(struct dbd *dbd, proto_req_t *req,
                          int (*fn)(struct dbd *dbd, struct dbd_work *w),
                          int64_t only_uid)
{
    enqueue(dbd, read_lane(dbd), new_work(dbd, req, fn, only_uid));
}

void dbd_work_submit_chain(struct dbd *dbd, proto_req_t *req,
                           int (*fn)(struct dbd *dbd, struct dbd_work *w),
                           int (*then)(struct dbd *dbd, struct dbd_work *w),
                           int64_t only_uid)
{
    struct dbd_work *w = new_work(dbd, req, fn, only_uid);

    w->then = then;
    enqueue(dbd, &dbd->write, w);
}

static void reconnect_cb(uv_timer_t *t)
{
    struct dbd *dbd = t->data;

    if (!dbd->connected && !dbd->write.running && !dbd->write.queue)
        dbd_work_submit(dbd, NULL, NULL, -1);
}

void dbd_work_start(struct dbd *dbd)
{
    dbd->write.queue_tail = &dbd->write.queue;
    dbd->write.writer = true;
    dbd->read.queue_tail = &dbd->read.queue;
    uv_timer_init(dbd->loop, &dbd->reconnect_timer);
    dbd->reconnect_timer.data = dbd;
    uv_timer_start(&dbd->reconnect_timer, reconnect_cb, DBD_RECONNECT_MS,
                   DBD_RECONNECT_MS);
    dbd_work_submit(dbd, NULL, NULL, -1);
}

static void drop_queue(struct dbd_lane *lane)
{
    struct dbd_work *w;

    while ((w = lane->queue)) { /* never started */
        lane->queue = w->next;
        if (w->req)
            proto_respond_error(w->req, EDRV_DB_CONNECTION,
                                "droverdbd is shutting down");
        free(w);
    }
    lane->queue_tail = &lane->queue;
}

void dbd_work_stop(struct dbd *dbd)
{
    dbd->stopping = true;
    uv_timer_stop(&dbd->reconnect_timer);
    drop_queue(&dbd->write);
    drop_queue(&dbd->read);
}

void dbd_work_close(struct dbd *dbd)
{
    db_close(dbd->write.db);
    dbd->write.db = NULL;
    db_close(dbd->read.db);
    dbd->read.db = NULL;
}
