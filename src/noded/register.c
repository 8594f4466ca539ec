/* SPDX-License-Identifier: Apache-2.0
 *
 * register.c - node registration, heartbeat and completion delivery
 *
 * The node registers at start and then every REGISTER_MS as a heartbeat;
 * each registration lists the running jobs and every completion not yet
 * acknowledged, so a controller that restarted learns all it missed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/noded.h"
#include "noded/prolog.h"
#include "noded/stepd.h"
#include "proto/client.h"

#define REGISTER_MS 5000
#define RETRY_MS 1000

struct call_ctx {
    struct noded *nd;
    json_t *sent; /* completions this call carried */
    json_t *body;  /* a registration's, for prolog_registered() */
};

/* Drop acknowledged completions from nd->done. */
static void forget_done(struct noded *nd, json_t *sent)
{
    json_t *keep = json_array(), *c, *s;
    size_t i, k;

    json_array_foreach(nd->done, i, c) {
        bool acked = false;
        json_array_foreach(sent, k, s) if (json_equal(c, s)) acked = true;
        if (!acked)
            json_array_append(keep, c);
        else
            stepmgr_acked(nd, c);
    }
    json_decref(nd->done);
    nd->done = keep;
}

static void register_timer_cb(uv_timer_t *t);

/* The controller to call: SlurmctldHost line nd->ctld_idx. */
static const char *ctld_addr(const struct noded *nd)
{
    return conf_ctld_addr(nd->conf, nd->ctld_idx);
}

/* A call failed: the next controller listed gets the next one, so a node
 * finds the leader of a Raft group (a follower answers
 * EDRV_IN_STANDBY_MODE) or a backup that took over. */
static void ctld_next(struct noded *nd, int errnum)
{
    nd->ctld_idx = proto_ctld_next(nd->ctld_idx,
                                   nd->conf->ctld_backup_count + 1, errnum);
}

/* A call of noded_ctld_call(): its failure moves to the next controller
 * (every call to the controller goes through it). */
struct ctld_call {
    struct noded *nd;
    proto_call_f cb;
    void *arg;
};

static void ctld_call_done(int errnum, const char *errstr, json_t *resp,
                           void *arg)
{
    struct ctld_call *c = arg;

    ctld_next(c->nd, errnum);
    c->cb(errnum, errstr, resp, c->arg);
    free(c);
}

int noded_ctld_call(struct noded *nd, const char *type, json_t *body,
                    proto_call_f cb, void *arg)
{
    struct ctld_call *c = xzalloc(sizeof(*c));

    *c = (struct ctld_call){.nd = nd, .cb = cb, .arg = arg};
    if (proto_call_async(nd->loop, ctld_addr(nd), nd->conf->ctld_port,
                         nd->auth, type, body,
                         (int)nd->conf->msg_timeout_s * 1000, ctld_call_done,
                         c)
        < 0) {
        free(c);
        return -1;
    }
    return 0;
}

static void register_done(int errnum, const char *errstr, json_t *resp,
                          void *arg)
{
    struct call_ctx *cc = arg;
    struct noded *nd = cc->nd;

    nd->register_in_flight = false;
    if (!errnum)
        health_node_state(nd, resp);
    if (errnum) {
        log_verbose("registration with controller failed: %s",
                    errstr ? errstr : drv_strerror(errnum));
        uv_timer_start(&nd->register_timer, register_timer_cb, RETRY_MS, 0);
    } else {
        forget_done(nd, cc->sent);
        prolog_registered(nd, cc->body);
        uv_timer_start(&nd->register_timer, register_timer_cb,
                       nd->register_again ? 0 : REGISTER_MS, 0);
    }
    nd->register_again = false;
    json_decref(cc->sent);
    json_decref(cc->body);
    free(cc);
}

/* The host's operating system as Slurm's slurmd reports it for
 * `scontrol show node` OS=: "sysname release version". */
static void os_string(char *buf, size_t len)
{
    struct utsname u;

    if (uname(&u) < 0)
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "%s %s %s", u.sysname, u.release, u.version);
}

/* With AutoDetect=nvml, the node's GPUs for the controller to check
 * against slurm.conf's Gres= and to show (UUIDs); else NULL. */
static json_t *gpus_json(const struct conf_node *node)
{
    json_t *a;

    if (!node->gpu_autodetect)
        return NULL;
    a = json_array();
    for (size_t i = 0; i < node->gres_dev_count; i++) {
        const struct conf_gres_dev *d = &node->gres_devs[i];
        if (!strcmp(d->name, "gpu"))
            json_array_append_new(a, json_pack("{s:i s:s* s:s* s:s*}",
                                               "index", d->index, "type",
                                               d->type, "file", d->file,
                                               "uuid", d->uuid));
    }
    return a;
}

static void register_send(struct noded *nd)
{
    struct call_ctx *cc = xzalloc(sizeof(*cc));
    char os[3 * sizeof(((struct utsname *)0)->release)];
    json_t *body, *gpus = gpus_json(nd->node);

    stepmgr_scan(nd, false); /* reports, steps left by an earlier run */
    cc->nd = nd;
    cc->sent = json_copy(nd->done);
    os_string(os, sizeof(os));
    body = json_pack("{s:s s:I s:o s:o s:O s:s}", "node", nd->node->name,
                     "start_time", (json_int_t)nd->start_time, "jobs",
                     stepmgr_batch_jobs(nd), "steps", stepmgr_running(nd),
                     "done",
                     cc->sent, "os", os);
    if (gpus)
        json_object_set_new(body, "gpus", gpus);
    health_to_json(nd, body);
    prolog_to_json(nd, body);
    cc->body = json_incref(body);
    nd->register_in_flight = true;
    if (noded_ctld_call(nd, "node_register", body, register_done, cc) < 0)
        register_done(EDRV_COMMUNICATIONS_CONNECTION, NULL, NULL, cc);
}

static void register_timer_cb(uv_timer_t *t)
{
    struct noded *nd = t->data;

    if (!nd->register_in_flight)
        register_send(nd);
}

void register_now(struct noded *nd)
{
    if (nd->register_in_flight)
        nd->register_again = true;
    else
        uv_timer_start(&nd->register_timer, register_timer_cb, 0, 0);
}

void register_start(struct noded *nd)
{
    uv_timer_init(nd->loop, &nd->register_timer);
    nd->register_timer.data = nd;
    register_send(nd);
}

static void completion_done(int errnum, const char *errstr, json_t *resp,
                            void *arg)
{
    struct call_ctx *cc = arg;

    (void)resp;
    if (errnum)
        log_verbose("completion not delivered (%s); will retry",
                    errstr ? errstr : drv_strerror(errnum));
    else
        forget_done(cc->nd, cc->sent);
    json_decref(cc->sent);
    free(cc);
}

void register_completion(struct noded *nd, json_t *completion)
{
    struct call_ctx *cc = xzalloc(sizeof(*cc));

    json_array_append(nd->done, completion);
    cc->nd = nd;
    cc->sent = json_pack("[O]", completion);
    if (noded_ctld_call(nd,
                        json_object_get(completion, "step_id")
                            ? "step_complete"
                            : "job_complete",
                        json_incref(completion), /* stolen by the call */
                        completion_done, cc)
        < 0)
        completion_done(EDRV_COMMUNICATIONS_CONNECTION, NULL, NULL, cc);
}
