/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_usage.c - acct_usage_report and the periodic usage rollup
 *
 * The rollup runs as a write-lane work item every DBD_ROLLUP_MS and before
 * each report, whose reading then runs on the read lane, so a report
 * always sees every job record stored so far (docs/protocol.md, "Usage
 * reports").
 */
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <time.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "dbd/dbd.h"
#include "dbd/usage_store.h"

#define DBD_ROLLUP_MS 60000

static int do_rollup(struct dbd *dbd, struct dbd_work *w)
{
    if (usage_rollup(w->db, time(NULL), &w->error) < 0) {
        w->errnum = EDRV_ACCT_STORAGE;
        if (!w->req)
            log_error("usage rollup: %s", w->error.text);
        return -1;
    }
    return 0;
}

/* Read lane, after do_rollup on the write lane. */
static int do_report(struct dbd *dbd, struct dbd_work *w)
{
    char name[64] = "";
    struct passwd pw, *res = NULL;
    char buf[1024];

    (void)dbd;
    /* PrivateData=usage: a user sees only their own usage rows (an
     * Operator or Administrator, everyone's). */
    dbd_work_private_unless_operator(w);
    if (w->only_uid >= 0) {
        if (getpwuid_r((uid_t)w->only_uid, &pw, buf, sizeof(buf), &res) == 0
            && res)
            snprintf(name, sizeof(name), "%s", res->pw_name);
        else
            snprintf(name, sizeof(name), "%lld", (long long)w->only_uid);
    }
    w->result = usage_report(w->db, proto_req_body(w->req),
                             w->only_uid >= 0 ? name : NULL, &w->error);
    if (!w->result) {
        w->errnum = errno == EINVAL ? EDRV_PROTOCOL_MALFORMED
                                    : EDRV_ACCT_STORAGE;
        return -1;
    }
    return 0;
}

static void rpc_usage_report(proto_req_t *req, void *arg)
{
    struct dbd *dbd = arg;
    int64_t only_uid = -1;

    if (!(proto_req_roles(req) & PROTO_ROLE_ADMIN)
        && conf_dbd_private(dbd->conf, "usage"))
        only_uid = (int64_t)proto_req_uid(req);
    dbd_work_submit_chain(dbd, req, do_rollup, do_report, only_uid);
}

static void rollup_cb(uv_timer_t *t)
{
    struct dbd *dbd = t->data;

    if (dbd->connected)
        dbd_work_submit(dbd, NULL, do_rollup, -1);
    dbd_purge_check(dbd);
}

void dbd_usage_start(struct dbd *dbd)
{
    uv_timer_init(dbd->loop, &dbd->rollup_timer);
    dbd->rollup_timer.data = dbd;
    uv_timer_start(&dbd->rollup_timer, rollup_cb, DBD_ROLLUP_MS,
                   DBD_ROLLUP_MS);
    dbd_purge_check(dbd);
}

const struct proto_handler dbd_usage_handlers[] = {
    {"acct_usage_report", rpc_usage_report, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
