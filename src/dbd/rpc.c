/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc.c - droverdbd's messages (docs/protocol.md, "Accounting daemon")
 *
 * Handlers stay small: ping answers from the loop; acct_send (write lane)
 * and acct_job_query (read lane) become work items (work.c) whose
 * functions below run on a worker with the database connected.
 */
#include <errno.h>
#include <time.h>

#include "common/log.h"
#include "dbd/dbd.h"
#include "dbd/jobs_store.h"

/* EINVAL from the store is the caller's fault; the rest is the database's. */
static int store_errnum(void)
{
    return errno == EINVAL ? EDRV_PROTOCOL_MALFORMED : EDRV_ACCT_STORAGE;
}

static void rpc_ping(proto_req_t *req, void *arg)
{
    struct dbd *dbd = arg;
    json_t *body = json_pack("{s:s s:I s:s s:i s:b}", "host",
                             dbd->conf->dbd_host, "now",
                             (json_int_t)time(NULL), "storage",
                             dbd->conf->storage == DBD_STORAGE_SQLITE
                                 ? "sqlite" : "pgsql",
                             "schema_version", dbd->schema_version,
                             "connected", dbd->connected);

    if (proto_respond(req, body) < 0)
        log_err("ping: responding");
}

static int do_send(struct dbd *dbd, struct dbd_work *w)
{
    int64_t acked;

    if (jobs_store_send(w->db, proto_req_body(w->req), &acked, &w->error)
        < 0) {
        w->errnum = store_errnum();
        return -1;
    }
    w->result = json_pack("{s:I}", "acked_seq", (json_int_t)acked);
    return 0;
}

static void rpc_acct_send(proto_req_t *req, void *arg)
{
    dbd_work_submit(arg, req, do_send, -1);
}

static int do_query(struct dbd *dbd, struct dbd_work *w)
{
    json_t *jobs;

    dbd_work_private_unless_operator(w);
    jobs = jobs_store_query(w->db, proto_req_body(w->req), w->only_uid,
                            &w->error);
    if (!jobs) {
        w->errnum = store_errnum();
        return -1;
    }
    w->result = json_pack("{s:I s:o}", "now", (json_int_t)time(NULL),
                          "jobs", jobs);
    return 0;
}

/* Admins (root, SlurmUser) and the database's Operators and Administrators
 * see every job; others their own, unless PrivateData leaves jobs out
 * (Drover's default keeps them private).
 */
static void rpc_acct_job_query(proto_req_t *req, void *arg)
{
    struct dbd *dbd = arg;
    int64_t only_uid = -1;

    if (!(proto_req_roles(req) & PROTO_ROLE_ADMIN)
        && conf_dbd_private(dbd->conf, "jobs"))
        only_uid = (int64_t)proto_req_uid(req);
    dbd_work_submit_read(dbd, req, do_query, only_uid);
}

const struct proto_handler dbd_rpc_handlers[] = {
    {"ping", rpc_ping, PROTO_ROLE_USER | PROTO_ROLE_DAEMON},
    {"acct_send", rpc_acct_send, PROTO_ROLE_DAEMON},
    {"acct_job_query", rpc_acct_job_query, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
