/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_gate.c - the controller's gate before every handler (rpc_gate.h)
 */
#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "ctld/ctld.h"
#include "ctld/ha.h"
#include "ctld/rate_limit.h"
#include "ctld/rpc_gate.h"
#include "proto/server.h"

/* Users past rl_table_size are logged at most this often (ms). */
#define UNTRACKED_LOG_MS 60000

/* The listings a Raft follower answers from its own copy of the state
 * when the request says stale data will do (docs/ha.md). */
static bool stale_read(const char *type, json_t *body)
{
    static const char *const reads[] = {"job_info", "node_info",
                                        "partition_info", NULL};

    if (!json_is_true(json_object_get(body, "stale_ok")))
        return false;
    for (size_t i = 0; reads[i]; i++)
        if (!strcmp(type, reads[i]))
            return true;
    return false;
}

/* A Raft follower answers only ping, and the listings asked with
 * "stale_ok": the rest go to the leader. */
static int standby(struct ctld *ctld, const char *type, json_t *body,
                   drv_error_t *error)
{
    if (!ctld->ha || ctld_active(ctld) || !strcmp(type, "ping")
        || (stale_read(type, body) && ha_role(ctld->ha)
            && !strcmp(ha_role(ctld->ha), "follower")))
        return 0;
    errprintf(error, "%s: this controller is a %s",
              drv_strerror(EDRV_IN_STANDBY_MODE), ha_role(ctld->ha));
    return EDRV_IN_STANDBY_MODE;
}

static int rate(struct ctld *ctld, const char *type, uid_t uid,
                drv_error_t *error)
{
    uint64_t now = uv_now(ctld->loop);
    bool log = false;

    if (!ctld->rate_limit || uid == 0 || uid == ctld->slurm_uid)
        return 0;
    switch (rate_limit_take(ctld->rate_limit, uid, now, &log)) {
    case RATE_OK:
        return 0;
    case RATE_UNTRACKED:
        if (!ctld->rate_untracked_logged
            || now - ctld->rate_untracked_logged >= UNTRACKED_LOG_MS) {
            ctld->rate_untracked_logged = now ? now : 1;
            log_error("RPC rate limiting: rl_table_size=%u users tracked "
                      "already; uid %lu is not limited",
                      ctld->conf->rl.table_size, (unsigned long)uid);
        }
        return 0;
    case RATE_EXCEEDED:
        break;
    }
    if (log)
        log_info("RPC rate limit exceeded by uid %lu with '%s', telling it "
                 "to back off", (unsigned long)uid, type);
    errprintf(error, "%s", drv_strerror(EDRV_CTLD_COMMUNICATIONS_BACKOFF));
    return EDRV_CTLD_COMMUNICATIONS_BACKOFF;
}

static int gate(const char *type, json_t *body, uid_t uid, void *arg,
                drv_error_t *error)
{
    struct ctld *ctld = arg;
    int rc;

    if ((rc = standby(ctld, type, body, error)))
        return rc;
    return rate(ctld, type, uid, error);
}

int rpc_gate_install(struct ctld *ctld, drv_error_t *error)
{
    const struct conf_rate_limit *rl = &ctld->conf->rl;

    if (rl->enable) {
        if (!(ctld->rate_limit = rate_limit_create(rl))) {
            int saved_errno = errno;
            errprintf(error, "RPC rate limit: %s", strerror(saved_errno));
            errno = saved_errno;
            return -1;
        }
        log_info("RPC rate limiting enabled: rl_bucket_size=%u "
                 "rl_refill_rate=%u rl_refill_period=%u rl_table_size=%u",
                 rl->bucket_size, rl->refill_rate, rl->refill_period,
                 rl->table_size);
    }
    if (ctld->ha || ctld->rate_limit)
        proto_server_set_gate(ctld->server, gate, ctld);
    return 0;
}

void rpc_gate_fini(struct ctld *ctld)
{
    rate_limit_destroy(ctld->rate_limit);
    ctld->rate_limit = NULL;
}
