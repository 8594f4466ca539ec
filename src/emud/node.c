/* SPDX-License-Identifier: Apache-2.0
 *
 * node.c - the emulated nodes' registrations, heartbeats and reports
 *
 * As droverd's register.c: a node registers at start and then as a
 * heartbeat, each registration listing its running jobs and steps and
 * every report not yet acknowledged, so that a controller that restarted
 * learns what it missed; a report is also sent at once as step_complete.
 * Every call to the controller goes through emu_call(), which keeps at
 * most emud->max_calls under way: a node's call waits its turn rather
 * than opening one connection per node at once.  A registration's body
 * is made when its turn comes, so it lists the jobs of that moment.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "emud/emud.h"
#include "proto/client.h"

#define RETRY_MS 1000          /* droverd's retry after a failed call */
#define FIRST_SPREAD_MAX_MS 2000

struct emu_call {
    struct emud *e;
    const char *type;         /* static */
    json_t *body;             /* NULL: a registration of 'reg', made when
                               * sent */
    struct emu_node *reg;
    emu_call_f cb;
    void *arg;
    struct emu_call *next;
};

struct reg_ctx {
    struct emu_node *n;
    json_t *sent; /* the reports this registration carried */
};

struct report_ctx {
    struct emu_node *n;
    json_t *c;
};

static void register_timer_cb(uv_timer_t *t);
static json_t *register_body(struct emu_node *n, json_t **sent);

struct emu_node *node_find(struct emud *e, const char *name)
{
    struct emu_node *n = NULL;

    if (name)
        HASH_FIND_STR(e->by_name, name, n);
    return n;
}

/* --- the call limiter ---------------------------------------------------- */

static void dispatch(struct emud *e);

static void call_done(int errnum, const char *errstr, json_t *resp,
                      void *arg)
{
    struct emu_call *c = arg;
    struct emud *e = c->e;

    e->calls--;
    e->ctld_idx = proto_ctld_next(e->ctld_idx, e->conf->ctld_backup_count + 1,
                                  errnum);
    c->cb(errnum, errstr, resp, c->arg);
    free(c);
    dispatch(e);
}

static void call_start(struct emu_call *c)
{
    struct emud *e = c->e;

    e->calls++;
    if (proto_call_async(e->loop, conf_ctld_addr(e->conf, e->ctld_idx),
                         e->conf->ctld_port, e->auth, c->type, c->body,
                         (int)e->conf->msg_timeout_s * 1000, call_done, c)
        < 0)
        call_done(EDRV_COMMUNICATIONS_CONNECTION, NULL, NULL, c);
}

/* Start waiting calls while there is room. */
static void dispatch(struct emud *e)
{
    while ((e->reg_queue || e->queue) && e->calls < e->max_calls) {
        struct emu_call **head = e->reg_queue ? &e->reg_queue : &e->queue;
        struct emu_call **tail = e->reg_queue ? &e->reg_tail : &e->queue_tail;
        struct emu_call *c = *head;

        *head = c->next;
        if (!*head)
            *tail = NULL;
        if (c->reg) {
            struct reg_ctx *rc = c->arg;

            c->reg->queued = false;
            c->body = register_body(c->reg, &rc->sent);
        }
        call_start(c);
    }
}

static void enqueue(struct emud *e, struct emu_call *c)
{
    struct emu_call **head = c->reg ? &e->reg_queue : &e->queue;
    struct emu_call **tail = c->reg ? &e->reg_tail : &e->queue_tail;

    if (*tail)
        (*tail)->next = c;
    else
        *head = c;
    *tail = c;
    dispatch(e);
}

void emu_call(struct emud *e, const char *type, json_t *body, emu_call_f cb,
              void *arg)
{
    struct emu_call *c = xzalloc(sizeof(*c));

    *c = (struct emu_call){.e = e, .type = type, .body = body, .cb = cb,
                           .arg = arg};
    enqueue(e, c);
}

/* --- reports ------------------------------------------------------------- */

/* Drop report 'c' (compared by identity) from n->done. */
static void forget_report(struct emu_node *n, json_t *c)
{
    size_t i;
    json_t *d;

    json_array_foreach(n->done, i, d) {
        if (d == c) {
            json_array_remove(n->done, i);
            return;
        }
    }
}

static void report_done(int errnum, const char *errstr, json_t *resp,
                        void *arg)
{
    struct report_ctx *rc = arg;

    (void)resp;
    if (errnum)
        log_verbose("%s: report of JobId=%lld not delivered (%s); the next "
                    "registration carries it", rc->n->conf->name,
                    (long long)json_integer_value(
                        json_object_get(rc->c, "job_id")),
                    errstr && errstr[0] ? errstr : drv_strerror(errnum));
    else if (!rc->n->emud->stopping)
        forget_report(rc->n, rc->c);
    json_decref(rc->c);
    free(rc);
}

void node_report(struct emu_node *n, json_t *c)
{
    struct report_ctx *rc = xzalloc(sizeof(*rc));

    json_array_append(n->done, c);
    rc->n = n;
    rc->c = c; /* our reference */
    emu_call(n->emud, "step_complete", json_copy(c), report_done, rc);
}

/* --- registration -------------------------------------------------------- */

/* Next registration in about 'ms': heartbeats get +-25% so that nodes
 * started together do not stay in step. */
static void schedule(struct emu_node *n, uint64_t ms, bool jitter)
{
    if (jitter && ms >= 4)
        ms = ms * 3 / 4 + (uint64_t)random() % (ms / 2);
    uv_timer_start(&n->timer, register_timer_cb, ms, 0);
}

static json_t *register_body(struct emu_node *n, json_t **sent)
{
    json_t *jobs = json_array(), *steps = json_array();

    job_list(n, jobs, steps);
    *sent = json_copy(n->done); /* shallow: the same report objects */
    return json_pack("{s:s s:I s:o s:o s:O s:s}", "node", n->conf->name,
                     "start_time", (json_int_t)n->emud->start_time, "jobs",
                     jobs, "steps", steps, "done", *sent, "os",
                     n->emud->os);
}

/* Another controller answers (a restart, a new leader): every node
 * registers within FIRST_SPREAD_MAX_MS, as a fleet of droverds would
 * within their 5 s heartbeat, instead of at its next heartbeat (up to
 * 19 s at 10,000 nodes: bench/scale's restart).  At most once a
 * heartbeat interval. */
static void ctld_back(struct emud *e)
{
    uint64_t now = uv_now(e->loop);

    if (e->reregister_ms && now - e->reregister_ms < e->heartbeat_ms)
        return;
    e->reregister_ms = now;
    log_info("another controller answers: every node registers");
    for (size_t i = 0; i < e->node_count; i++) {
        struct emu_node *n = &e->nodes[i];
        if (!n->in_flight && !n->queued)
            schedule(n, FIRST_SPREAD_MAX_MS * i / e->node_count, false);
    }
}

static void register_done(int errnum, const char *errstr, json_t *resp,
                          void *arg)
{
    struct reg_ctx *rc = arg;
    struct emu_node *n = rc->n;
    json_t *c;
    size_t i;

    n->in_flight = false;
    if (n->emud->stopping) {
    } else if (errnum) {
        log_verbose("%s: registration failed: %s", n->conf->name,
                    errstr && errstr[0] ? errstr : drv_strerror(errnum));
        schedule(n, RETRY_MS, false);
    } else {
        json_int_t boot = json_integer_value(json_object_get(resp,
                                                             "boot_time"));
        if (boot && n->emud->ctld_boot && boot != n->emud->ctld_boot)
            ctld_back(n->emud);
        if (boot)
            n->emud->ctld_boot = boot;
        if (!n->registered)
            log_debug("%s: registered", n->conf->name);
        n->registered = true;
        json_array_foreach(rc->sent, i, c) forget_report(n, c);
        schedule(n, n->emud->heartbeat_ms, true);
    }
    json_decref(rc->sent);
    free(rc);
}

static void register_send(struct emu_node *n)
{
    struct emu_call *c;
    struct reg_ctx *rc;

    if (n->in_flight || n->queued)
        return;
    rc = xzalloc(sizeof(*rc));
    rc->n = n;
    c = xzalloc(sizeof(*c));
    *c = (struct emu_call){.e = n->emud, .type = "node_register", .reg = n,
                           .cb = register_done, .arg = rc};
    n->in_flight = true;
    n->queued = true;
    enqueue(n->emud, c);
}

static void register_timer_cb(uv_timer_t *t)
{
    register_send(t->data);
}

void node_start_all(struct emud *e)
{
    uint64_t spread = e->heartbeat_ms / 10;

    if (spread > FIRST_SPREAD_MAX_MS)
        spread = FIRST_SPREAD_MAX_MS;
    for (size_t i = 0; i < e->node_count; i++) {
        struct emu_node *n = &e->nodes[i];

        uv_timer_init(e->loop, &n->timer);
        n->timer.data = n;
        schedule(n, spread * i / e->node_count, false);
    }
}

void node_stop_all(struct emud *e)
{
    for (size_t i = 0; i < e->node_count; i++) {
        struct emu_node *n = &e->nodes[i];

        if (!uv_is_closing((uv_handle_t *)&n->timer))
            uv_close((uv_handle_t *)&n->timer, NULL);
    }
    /* Calls still waiting for a slot are finished now, unsent. */
    for (struct emu_call **q = &e->reg_queue; q; q = q == &e->reg_queue
                                                        ? &e->queue : NULL) {
        while (*q) {
            struct emu_call *c = *q;

            *q = c->next;
            if (c->reg)
                c->reg->queued = false;
            c->cb(ECANCELED, "shutting down", NULL, c->arg);
            json_decref(c->body);
            free(c);
        }
    }
    e->queue_tail = e->reg_tail = NULL;
}
