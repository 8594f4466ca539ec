/* SPDX-License-Identifier: Apache-2.0
 *
 * dbd.h - droverdbd's state, shared by its files
 *
 * One libuv loop owns everything here.  The database handles are the one
 * exception: each is used only by the work items of its lane (work.c),
 * which run one at a time on libuv's thread pool so that a slow query
 * never stalls the loop; their completions run on the loop and answer the
 * requests.  Two lanes, two connections: every write (and the schema) goes
 * through the write lane, in arrival order; reads go through the read lane
 * beside it (SQLite's WAL and PostgreSQL both let a reader run beside a
 * writer), so a slow report never holds up the controller's records, nor
 * a flood of records a user's sacct.
 */
#ifndef DROVER_DBD_DBD_H
#define DROVER_DBD_DBD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>
#include <uv.h>

#include "conf/conf_dbd.h"
#include "dbd/db.h"
#include "proto/server.h"

#define DBD_RECONNECT_MS 3000

struct dbd_work;

/* One connection and the work waiting for it. */
struct dbd_lane {
    db_t *db;                 /* worker side: touched only by its items */
    struct dbd_work *queue;   /* waiting, oldest first */
    struct dbd_work **queue_tail;
    struct dbd_work *running; /* on the thread pool, or NULL */
    bool writer;              /* migrates the schema; its state is dbd's */
};

struct dbd {
    uv_loop_t *loop;
    struct dbd_conf *conf;
    proto_auth_t *auth;
    struct proto_jwt *jwt;    /* auth/jwt key, or NULL (tokens refused) */
    struct ident *ident;      /* token user names (common/ident.h) */
    proto_server_t *server;
    uid_t slurm_uid;          /* SlurmUser's uid: an admin, like root */
    struct db_target target;  /* strings borrowed from conf */
    struct dbd_lane write, read;
    char last_error[160];     /* last connect error, to log it once */
    /* Loop side. */
    bool connected;           /* as of the last write-lane item */
    int schema_version;       /* 0 until connected */
    bool stopping;            /* dbd_work_stop was called */
    uv_timer_t reconnect_timer;
    uv_timer_t rollup_timer;  /* rpc_usage.c */
    time_t purged_before;     /* purge.c: the last PurgeJobAfter cutoff */
    uv_signal_t sigterm, sigint;
};

/* A job for a worker: 'fn' runs on the thread pool with its lane's
 * database connected as w->db, and fills w->result (a JSON object to
 * answer with) or w->errnum and w->error.  'then', when set, runs next on
 * the read lane once 'fn' succeeded (a report's rollup, then its reading).
 */
struct dbd_work {
    uv_work_t uv;
    struct dbd *dbd;
    struct dbd_lane *lane;
    db_t *db;           /* the lane's connection, while fn runs */
    proto_req_t *req;   /* answered on completion; NULL: no answer */
    int (*fn)(struct dbd *dbd, struct dbd_work *w);
    int (*then)(struct dbd *dbd, struct dbd_work *w);
    int64_t only_uid;   /* acct_job_query: -1 or the caller's uid */
    json_t *result;
    int errnum;         /* EDRV_* or errno; 0 on success */
    drv_error_t error;
    int schema_version; /* worker's view, copied to dbd on completion */
    bool connected;
    struct dbd_work *next;
};

/* work.c: queue a request on the write lane ('fn' NULL: just
 * (re)connect).  The request is answered when the work is done.
 */
void dbd_work_submit(struct dbd *dbd, proto_req_t *req,
                     int (*fn)(struct dbd *dbd, struct dbd_work *w),
                     int64_t only_uid);

/* work.c: queue a request that only reads on the read lane (on the write
 * lane until the write lane has connected and migrated the schema).
 */
void dbd_work_submit_read(struct dbd *dbd, proto_req_t *req,
                          int (*fn)(struct dbd *dbd, struct dbd_work *w),
                          int64_t only_uid);

/* work.c: queue 'fn' on the write lane, then 'then' on the read lane with
 * the same item; the request is answered after 'then' (or after 'fn'
 * failed).
 */
void dbd_work_submit_chain(struct dbd *dbd, proto_req_t *req,
                           int (*fn)(struct dbd *dbd, struct dbd_work *w),
                           int (*then)(struct dbd *dbd, struct dbd_work *w),
                           int64_t only_uid);

/* work.c: start the reconnect timer and the first connection attempt. */
void dbd_work_start(struct dbd *dbd);

/* work.c: answer and drop the work not yet started (at shutdown).  The
 * items running finish when the loop runs again; dbd_work_close after.
 */
void dbd_work_stop(struct dbd *dbd);

/* work.c: close both lanes' connections (after the loop has run down). */
void dbd_work_close(struct dbd *dbd);

/* rpc.c: the handler table. */
extern const struct proto_handler dbd_rpc_handlers[];

/* rpc_assoc.c: acct_assoc_list and acct_modify. */
extern const struct proto_handler dbd_assoc_handlers[];

/* rpc_assoc.c, on a worker: PrivateData spares operators.  When w->only_uid
 * (the sender, PrivateData restricting it to its own records) is an
 * Operator or Administrator in the database, clear it (-1: every record),
 * as Slurm shows everything to those admin levels.  On a lookup error it
 * stays restricted.
 */
void dbd_work_private_unless_operator(struct dbd_work *w);

/* rpc_usage.c: acct_usage_report. */
extern const struct proto_handler dbd_usage_handlers[];

/* rpc_usage.c: start the periodic usage rollup (which also calls
 * dbd_purge_check each time). */
void dbd_usage_start(struct dbd *dbd);

/* purge.c: when PurgeJobAfter is set and its cutoff has moved since the
 * last purge (at start, then at each new hour, day or month), queue a
 * write-lane purge of the jobs submitted before it that have ended
 * (logged with their count).  Nothing when PurgeJobAfter is not set. */
void dbd_purge_check(struct dbd *dbd);

#endif /* !DROVER_DBD_DBD_H */
