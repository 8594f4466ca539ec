/* SPDX-License-Identifier: Apache-2.0
 *
 * server.c - RPC server: accept, frame, authenticate, authorize, check the
 * body against its schema (schema.h), dispatch
 *
 * Lifetimes: a connection is reference counted.  Its open handle holds one
 * reference, each request handed to a handler holds one, and each queued
 * write holds one, so a handler may answer long after the peer went away
 * (the answer is then just freed).  The server itself is freed when its last
 * own handle (listeners, sweep timer, ready idler) has closed.
 *
 * Ordering: a connection has at most one request outstanding.  While it has
 * one, reading stops (TCP pushes back on the client); frames already buffered
 * wait in the decoder.  An answer given outside the dispatch loop puts the
 * connection on the "ready" list, drained from a uv_idle callback, so that
 * answering never runs another handler re-entrantly.
 *
 * Before authentication: a connection is "unauthenticated" until one of its
 * requests carries a valid credential.  Those are also on a FIFO list
 * (oldest accept first) for the cap and the timeout in server.h; their
 * decoders take frames of at most the unauthenticated frame limit, and the
 * bytes they hold beyond PROTO_UNAUTH_FREE_BYTES each are charged to a
 * server-wide budget.  Whatever the kind, connections never take more than
 * all but an eighth of RLIMIT_NOFILE, so the daemon keeps descriptors for
 * its own files and calls.  Making room closes a connection that sent
 * nothing before one that did (server.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>

#include <jansson.h>
#include <uthash.h>
#include <uv.h>

#include "common/error.h"
#include "common/log.h"
#include "proto/frame.h"
#include "proto/jsonw.h"
#include "proto/msg.h"
#include "proto/msg_private.h"
#include "proto/rpc_stats.h"
#include "proto/schema.h"
#include "proto/server.h"
#include "proto/tls.h"

#define LISTEN_BACKLOG 1024
#define READ_CHUNK 65536
/* Stop taking requests from a client while this much of its answers is
 * still unsent.
 */
#define WRITE_HIGH_WATER (4u * 1024 * 1024)
/* Log dropped connections at most this often (ms), with a count. */
#define DROP_LOG_MS 10000
/* How many unauthenticated connections, oldest first, are looked at for
 * one that sent nothing before settling for the oldest.
 */
#define EVICT_SCAN 64
/* Connections accepted in one loop turn at most: a burst of thousands
 * waiting in the listen backlog (a flood of idle connections) is taken
 * over several turns, so the requests of connections already open are
 * read in between instead of after the whole burst (bench/abuse).
 */
#define ACCEPT_BATCH 64

/* Unauthenticated connections from one peer address (the port aside): the
 * flood to push out first is the address holding the most.
 */
struct peer_count {
    unsigned char key[17]; /* address family, then the address's bytes */
    unsigned n;
    UT_hash_handle hh;
};

struct table_ent {
    const struct proto_handler *table;
    void *arg;
    struct table_ent *next;
};

struct listener {
    uv_tcp_t tcp;
    proto_server_t *s;
    struct listener *next;
    int deferred; /* a connection waits for the next turn (ACCEPT_BATCH) */
};

struct conn {
    uv_tcp_t tcp;
    proto_server_t *s; /* NULL once closing */
    struct conn *prev, *next;
    struct conn *ready_next;
    int in_ready;
    proto_decoder_t *dec;
    proto_tls_t *tls;     /* NULL: plain (proto_server_set_tls) */
    proto_req_t *outstanding;
    int refs;
    int closing;
    int reading;
    int dispatching;
    int close_after_write; /* stop taking requests; close once written */
    int writes_pending;
    int unauth;           /* on the unauthenticated list: no request of it
                           * carried a valid credential yet */
    struct conn *un_prev, *un_next; /* that list, while 'unauth' */
    struct peer_count *pc; /* its address's count, while 'unauth' */
    size_t charged;       /* bytes counted in the server's unauth_bytes */
    uint64_t accepted;    /* uv_now(), ms */
    uint64_t last_active; /* uv_now(), ms */
    struct sockaddr_storage peer;
    char peer_str[INET6_ADDRSTRLEN + 16];
};

struct proto_req {
    struct conn *conn;
    json_t *msg; /* owned; type and body are borrowed from it */
    const char *type;
    json_t *body;
    uid_t uid;
    gid_t gid;
    unsigned roles;
    uint64_t arrived_ns; /* uv_hrtime() at arrival: rpc_stats.h */
};

struct write_req {
    uv_write_t req;
    struct conn *conn;
    char *buf;
};

struct proto_server {
    uv_loop_t *loop;
    proto_auth_t *auth;
    proto_roles_f roles_of;
    void *roles_arg;
    proto_gate_f gate;
    void *gate_arg;
    proto_timed_f timed;
    void *timed_arg;
    struct table_ent *tables;
    struct listener *listeners;
    struct conn *conns;
    struct conn *ready, *ready_tail; /* FIFO */
    uv_check_t turn_check; /* a new loop turn: turn_ns back to 0 */
    uint64_t turn_ns;      /* requests handled this turn took (ns) */
    uv_timer_t sweep;
    uv_idle_t idler;
    uint64_t accept_turn; /* uv_now() of the turn 'accepts' counts */
    unsigned accepts;     /* connections accepted in that turn */
    unsigned idle_ms;
    struct proto_unauth_limits unauth;
    struct conn *un_head, *un_tail; /* unauthenticated, oldest first */
    struct peer_count *peers; /* their addresses (uthash) */
    unsigned un_count;
    size_t unauth_bytes; /* buffered by them beyond the free bytes each */
    unsigned conn_count;
    unsigned conn_max;   /* all connections; descriptors kept in reserve */
    uint64_t last_drop;  /* uv_now() of the last dropped connection */
    uint64_t drop_logged; /* uv_now() of the last drop message */
    unsigned long drops; /* dropped since that message */
    struct rpc_stats *stats; /* every request handled (rpc_stats.h) */
    int handles_open;
    int destroyed;
    int read_buf_busy;
    char read_buf[READ_CHUNK];
    proto_tls_ctx_t *tls; /* owned (proto_server_set_tls); NULL: plain */
    char plain_buf[READ_CHUNK]; /* decrypted bytes on their way to a
                                 * decoder (which copies them) */
};

static void dispatch_loop(struct conn *c);
static void ready_add(proto_server_t *s, struct conn *c);
static void conn_read_start(struct conn *c);
static void on_ready(uv_idle_t *idler);

/* --- connections -------------------------------------------------------- */

static void conn_decref(struct conn *c)
{
    if (--c->refs == 0) {
        proto_tls_destroy(c->tls);
        proto_decoder_destroy(c->dec);
        free(c);
    }
}

static void ready_remove(proto_server_t *s, struct conn *c)
{
    struct conn **pp, *prev = NULL;

    if (!c->in_ready)
        return;
    for (pp = &s->ready; *pp; prev = *pp, pp = &(*pp)->ready_next) {
        if (*pp == c) {
            *pp = c->ready_next;
            if (s->ready_tail == c)
                s->ready_tail = prev;
            break;
        }
    }
    c->in_ready = 0;
    c->ready_next = NULL;
}

static void ready_add(proto_server_t *s, struct conn *c)
{
    if (c->in_ready)
        return;
    c->in_ready = 1;
    c->ready_next = NULL;
    if (s->ready_tail)
        s->ready_tail->ready_next = c;
    else
        s->ready = c;
    s->ready_tail = c;
    if (!uv_is_active((uv_handle_t *)&s->idler))
        uv_idle_start(&s->idler, on_ready);
}

static void on_conn_close(uv_handle_t *h)
{
    conn_decref(h->data);
}

/* Count a connection the server could not take, and say so in the log at
 * most once per DROP_LOG_MS.
 */
static void note_drop(proto_server_t *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void note_drop(proto_server_t *s, const char *fmt, ...)
{
    uint64_t now = uv_now(s->loop);
    char text[256];
    va_list ap;

    s->last_drop = now ? now : 1;
    s->drops++;
    if (s->drop_logged && now - s->drop_logged < DROP_LOG_MS)
        return;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    log_error("proto: %s (%lu connection%s dropped since the last such "
              "message)",
              text, s->drops, s->drops == 1 ? "" : "s");
    s->drops = 0;
    s->drop_logged = now ? now : 1;
}

/* Bytes of 'c' charged to the unauthenticated budget if it held
 * 'buffered' bytes.
 */
static size_t unauth_charge(const struct conn *c, size_t buffered)
{
    if (!c->unauth || c->closing || buffered <= PROTO_UNAUTH_FREE_BYTES)
        return 0;
    return buffered - PROTO_UNAUTH_FREE_BYTES;
}

/* Bring the server's unauth_bytes up to date with what 'c' holds. */
static void conn_charge(struct conn *c)
{
    size_t now = unauth_charge(c, proto_decoder_buffered(c->dec));

    if (c->s)
        c->s->unauth_bytes = c->s->unauth_bytes - c->charged + now;
    c->charged = now;
}

static void peer_key(const struct conn *c, unsigned char key[17])
{
    memset(key, 0, 17);
    key[0] = (unsigned char)c->peer.ss_family;
    if (c->peer.ss_family == AF_INET)
        memcpy(key + 1, &((const struct sockaddr_in *)&c->peer)->sin_addr, 4);
    else if (c->peer.ss_family == AF_INET6)
        memcpy(key + 1, &((const struct sockaddr_in6 *)&c->peer)->sin6_addr,
               16);
}

/* Count 'c' for its address (without memory, it is not counted: the
 * eviction is then only less fair). */
static void peer_count_add(proto_server_t *s, struct conn *c)
{
    unsigned char key[17];
    struct peer_count *pc;

    peer_key(c, key);
    HASH_FIND(hh, s->peers, key, sizeof(key), pc);
    if (!pc) {
        if (!(pc = calloc(1, sizeof(*pc))))
            return;
        memcpy(pc->key, key, sizeof(key));
        HASH_ADD(hh, s->peers, key, sizeof(pc->key), pc);
    }
    pc->n++;
    c->pc = pc;
}

static void peer_count_remove(proto_server_t *s, struct conn *c)
{
    if (!c->pc)
        return;
    if (--c->pc->n == 0) {
        HASH_DEL(s->peers, c->pc);
        free(c->pc);
    }
    c->pc = NULL;
}

static void unauth_add(proto_server_t *s, struct conn *c)
{
    c->un_prev = s->un_tail;
    c->un_next = NULL;
    if (s->un_tail)
        s->un_tail->un_next = c;
    else
        s->un_head = c;
    s->un_tail = c;
    s->un_count++;
    c->unauth = 1;
    peer_count_add(s, c);
}

/* Take 'c' off the unauthenticated list (it authenticated or closes). */
static void unauth_remove(proto_server_t *s, struct conn *c)
{
    if (!c->unauth)
        return;
    if (c->un_prev)
        c->un_prev->un_next = c->un_next;
    else
        s->un_head = c->un_next;
    if (c->un_next)
        c->un_next->un_prev = c->un_prev;
    else
        s->un_tail = c->un_prev;
    c->un_prev = c->un_next = NULL;
    s->un_count--;
    c->unauth = 0;
    peer_count_remove(s, c);
}

/* A request of 'c' carried a valid credential: lift the pre-auth limits. */
static void conn_authenticated(struct conn *c)
{
    if (!c->unauth)
        return;
    unauth_remove(c->s, c);
    proto_decoder_set_max(c->dec, PROTO_FRAME_MAX);
    conn_charge(c);
}

static void conn_close(struct conn *c)
{
    proto_server_t *s = c->s;

    if (c->closing)
        return;
    c->closing = 1;
    if (s) {
        conn_charge(c); /* closing: nothing charged any more */
        unauth_remove(s, c);
        s->conn_count--;
        ready_remove(s, c);
        if (c->prev)
            c->prev->next = c->next;
        else
            s->conns = c->next;
        if (c->next)
            c->next->prev = c->prev;
        c->prev = c->next = NULL;
    }
    c->s = NULL;
    uv_close((uv_handle_t *)&c->tcp, on_conn_close);
}

static int write_blocked(const struct conn *c)
{
    return uv_stream_get_write_queue_size((const uv_stream_t *)&c->tcp)
           >= WRITE_HIGH_WATER;
}

static void on_write(uv_write_t *wr, int status)
{
    struct write_req *w = wr->data;
    struct conn *c = w->conn;

    free(w->buf);
    free(w);
    c->writes_pending--;
    if (status < 0 && status != UV_ECANCELED && !c->closing)
        log_debug("proto: %s: write failed: %s", c->peer_str,
                  uv_strerror(status));
    if (!c->closing
        && (status < 0 || (c->close_after_write && c->writes_pending == 0)))
        conn_close(c);
    /* Answers drained below the mark: take requests again. */
    if (!c->closing && c->s && !c->close_after_write && !c->outstanding
        && !c->reading && !write_blocked(c))
        ready_add(c->s, c);
    conn_decref(c);
}

/* Queue 'msg' (borrowed) on the connection.  Returns 0, or -1 with errno
 * (EMSGSIZE, ENOMEM, or a socket error).
 */
/* Queue the bytes at buf + off, len bytes long, on the socket; 'buf' is
 * taken (freed once written, or now on failure).  Returns 0 or -1 with
 * errno. */
static int conn_write_raw(struct conn *c, char *buf, size_t off, size_t len)
{
    struct write_req *w;
    uv_buf_t b;
    int rc;

    if (!(w = calloc(1, sizeof(*w)))) {
        free(buf);
        return -1;
    }
    b = uv_buf_init(buf + off, (unsigned)(len - off));
    w->buf = buf;
    w->conn = c;
    w->req.data = w;
    if ((rc = uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_write))
        < 0) {
        free(buf);
        free(w);
        errno = -rc;
        return -1;
    }
    c->refs++;
    c->writes_pending++;
    return 0;
}

/* Queue what the TLS engine has for the peer.  Returns 0 or -1 with
 * errno. */
static int conn_tls_flush(struct conn *c)
{
    char *buf;
    ssize_t n;

    while ((n = proto_tls_output(c->tls, &buf)) > 0)
        if (conn_write_raw(c, buf, 0, (size_t)n) < 0)
            return -1;
    return n < 0 ? -1 : 0;
}

/* Queue the frame at buf + off, len bytes long: as it is, or encrypted;
 * 'buf' is taken.  Returns 0 or -1 with errno. */
static int conn_write(struct conn *c, char *buf, size_t off, size_t len)
{
    drv_error_t error = { { 0 } };
    int rc;

    if (!c->tls)
        return conn_write_raw(c, buf, off, len);
    rc = proto_tls_write(c->tls, buf + off, len - off, &error);
    free(buf);
    if (rc < 0) {
        log_debug("proto: %s: %s", c->peer_str, error.text);
        return -1;
    }
    return conn_tls_flush(c);
}

static int conn_send(struct conn *c, const json_t *msg)
{
    size_t len;
    char *buf;

    if (proto_frame_encode(msg, &buf, &len) < 0)
        return -1;
    return conn_write(c, buf, 0, len);
}

/* Send an error response on the connection's behalf (no request object).
 * If even that fails the connection is closed: the client sees it drop.
 */
static void conn_send_error(struct conn *c, int errnum, const char *errstr)
{
    json_t *msg = proto_msg_error(errnum, errstr);

    if (!msg || conn_send(c, msg) < 0) {
        log_err("proto: %s: sending error response", c->peer_str);
        conn_close(c);
    }
    json_decref(msg);
}

/* Garbage on the stream: answer once, then close when the answer is out. */
static void conn_fail(struct conn *c, int errnum, const char *errstr)
{
    log_verbose("proto: %s: %s; closing connection", c->peer_str, errstr);
    conn_send_error(c, errnum, errstr);
    c->close_after_write = 1;
    if (!c->closing && c->writes_pending == 0)
        conn_close(c);
    if (!c->closing && c->reading) {
        uv_read_stop((uv_stream_t *)&c->tcp);
        c->reading = 0;
    }
}

/* A request that failed before its credential was accepted: a connection
 * that never authenticated is answered once and closed (it may not make
 * the daemon decode credentials and log for ever); one that did keeps
 * going, as a client with a stale credential may retry. */
static void conn_refuse(struct conn *c, int errnum, const char *errstr)
{
    if (c->unauth)
        conn_fail(c, errnum, errstr);
    else
        conn_send_error(c, errnum, errstr);
}

/* --- dispatch ----------------------------------------------------------- */

static const struct proto_handler *lookup(proto_server_t *s, const char *type,
                                          void **arg)
{
    for (struct table_ent *t = s->tables; t; t = t->next) {
        for (const struct proto_handler *h = t->table; h->type; h++) {
            if (!strcmp(h->type, type)) {
                *arg = t->arg;
                return h;
            }
        }
    }
    return NULL;
}

/* Take one message (stolen) off the connection and route it: check its
 * credential (MUNGE's decode, a round trip to munged of ~0.2 ms, runs
 * here on the loop: on the thread pool it cost 2.7% of the submission
 * rate on 2 cores, bench/README.md), its sender's roles and its body
 * against its schema, then run its handler. */
static void handle_msg(struct conn *c, json_t *msg, char *type, size_t size)
{
    proto_server_t *s = c->s;
    struct proto_msg m;
    const struct proto_handler *h;
    const struct proto_schema *schema;
    drv_error_t error = { { 0 } };
    proto_req_t *req;
    void *arg = NULL;
    uid_t uid;
    gid_t gid;
    unsigned roles;
    bool by_token;
    int errnum;
    uint64_t arrived_ns = uv_hrtime();

    if (proto_msg_parse(msg, &m, &error) < 0) {
        errnum = errno == ENOMEM ? ENOMEM : EDRV_PROTOCOL_MALFORMED;
        log_verbose("proto: %s: %s", c->peer_str, error.text);
        conn_send_error(c, errnum, error.text);
        goto done;
    }
    snprintf(type, size, "%s", m.type);
    if (!m.cred) {
        log_error("proto: %s: '%s' request carries no credential", c->peer_str,
                  m.type);
        conn_refuse(c, EDRV_PROTOCOL_AUTH, "request carries no credential");
        goto done;
    }
    if (proto_auth_decode(s->auth, m.cred, m.type, m.body, &uid, &gid,
                          &by_token, &error)
        < 0) {
        errnum = errno == ENOMEM ? ENOMEM : EDRV_PROTOCOL_AUTH;
        log_error("proto: %s: '%s' request: %s", c->peer_str, m.type,
                  error.text);
        conn_refuse(c, errnum, error.text);
        goto done;
    }
    conn_authenticated(c);
    if (!(h = lookup(s, m.type, &arg))) {
        errprintf(&error, "unknown message type '%s'", m.type);
        log_debug("proto: %s: %s", c->peer_str, error.text);
        conn_send_error(c, EDRV_NOT_SUPPORTED, error.text);
        goto done;
    }
    if (s->gate
        && (errnum = s->gate(m.type, m.body, uid, s->gate_arg, &error))) {
        conn_send_error(c, errnum, error.text[0] ? error.text : NULL);
        goto done;
    }
    roles = s->roles_of(uid, gid, s->roles_arg);
    /* Daemons authenticate with MUNGE: a token never speaks for one. */
    if (by_token)
        roles &= ~(unsigned)PROTO_ROLE_DAEMON;
    if (!(roles & h->roles)) {
        errprintf(&error, "uid %lu may not send '%s'", (unsigned long)uid,
                  m.type);
        log_verbose("proto: %s: %s", c->peer_str, error.text);
        conn_send_error(c, EDRV_ACCESS_DENIED, error.text);
        goto done;
    }
    if ((schema = proto_schema_find(m.type)) && schema->body
        && schema_check(m.body, schema->body, &error) < 0) {
        errnum = errno;
        log_verbose("proto: %s: '%s' from uid %lu: %s", c->peer_str, m.type,
                    (unsigned long)uid, error.text);
        conn_send_error(c, errnum, error.text);
        goto done;
    }
    if (!(req = calloc(1, sizeof(*req)))) {
        conn_send_error(c, ENOMEM, "server out of memory");
        goto done;
    }
    req->conn = c;
    c->refs++;
    req->msg = msg;
    req->type = m.type;
    req->body = m.body;
    req->uid = uid;
    req->gid = gid;
    req->roles = roles;
    req->arrived_ns = arrived_ns;
    c->outstanding = req;
    h->fn(req, arg);
    return;
done:
    json_decref(msg);
}

/* Route every complete frame buffered on 'c', one request at a time. */
static void dispatch_loop(struct conn *c)
{
    drv_error_t error = { { 0 } };
    json_t *msg;

    c->dispatching = 1;
    while (!c->closing && !c->close_after_write && !c->outstanding
           && !write_blocked(c)) {
        if (c->s && c->s->turn_ns >= PROTO_TURN_BUDGET_NS) {
            if (proto_decoder_buffered(c->dec) > 0)
                ready_add(c->s, c); /* the next turn goes on with it */
            break;
        }
        /* a request's part of the turn counts its decoding */
        uint64_t began = uv_hrtime();

        if (!(msg = proto_decoder_next(c->dec, &error))) {
            if (errno == EPROTO)
                conn_fail(c, EDRV_PROTOCOL_MALFORMED, error.text);
            else if (errno != EAGAIN)
                conn_fail(c, errno, "server out of memory");
            break;
        }
        char type[PROTO_TYPE_NAME_MAX] = "(bad frame)";
        proto_server_t *s = c->s;

        handle_msg(c, msg, type, sizeof(type));
        if (s) {
            s->turn_ns += uv_hrtime() - began;
            if (s->timed)
                s->timed(type, began, s->timed_arg);
        }
    }
    c->dispatching = 0;
    if (c->closing || c->close_after_write)
        return;
    if ((c->outstanding || write_blocked(c)) && c->reading) {
        uv_read_stop((uv_stream_t *)&c->tcp);
        c->reading = 0;
    }
    else if (!c->outstanding && !write_blocked(c) && !c->reading)
        conn_read_start(c);
}

/* --- reading ------------------------------------------------------------ */

/* libuv calls alloc then read back to back on the loop thread, and the
 * decoder copies what it keeps, so one buffer serves every connection.
 */
static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    struct conn *c = h->data;
    proto_server_t *s = c->s;

    (void)suggested;
    if (!s || s->read_buf_busy) {
        *buf = uv_buf_init(NULL, 0); /* read_cb gets UV_ENOBUFS */
        return;
    }
    s->read_buf_busy = 1;
    *buf = uv_buf_init(s->read_buf, sizeof(s->read_buf));
}

/* Whether 'c' may buffer 'more' bytes within the unauthenticated budget;
 * if not, it is answered EAGAIN and closed.
 */
static int unauth_budget_allows(struct conn *c, size_t more)
{
    proto_server_t *s = c->s;
    size_t want = unauth_charge(c, proto_decoder_buffered(c->dec) + more);

    if (want <= c->charged
        || s->unauth_bytes - c->charged + want <= s->unauth.budget)
        return 1;
    note_drop(s, "%s: unauthenticated connections hold over %zu bytes; "
                 "closing this one",
              c->peer_str, s->unauth.budget);
    conn_fail(c, EAGAIN,
              "server busy: too much data from connections that have not "
              "authenticated yet; try again");
    return 0;
}

/* TLS failed on 'c' (not TLS at all, a handshake the server cannot
 * finish, a bad record): send the alert the engine made, if any, and
 * close.  A connection that never authenticated is held to the same
 * limits until then as one sending garbage frames. */
static void conn_tls_fail(struct conn *c, const char *why)
{
    log_verbose("proto: %s: %s; closing connection", c->peer_str, why);
    c->close_after_write = 1;
    if (conn_tls_flush(c) < 0 || c->writes_pending == 0)
        conn_close(c);
    else if (c->reading) {
        uv_read_stop((uv_stream_t *)&c->tcp);
        c->reading = 0;
    }
}

/* A plain request (a frame: 4 bytes of length, then '{') to a TLS
 * server: answered with a plain error saying so, then closed. */
static void conn_tls_refuse_plain(struct conn *c)
{
    json_t *msg = proto_msg_error(EDRV_PROTOCOL_AUTH,
                                  "this server speaks TLS: the client's "
                                  "slurm.conf needs CommunicationParameters="
                                  "drover_tls_rpc,drover_tls_ca=...");
    char *buf;
    size_t len;

    log_verbose("proto: %s: a plain request to a TLS server; closing "
                "connection", c->peer_str);
    c->close_after_write = 1;
    if (!msg || proto_frame_encode(msg, &buf, &len) < 0
        || conn_write_raw(c, buf, 0, len) < 0 || c->writes_pending == 0)
        conn_close(c);
    else if (c->reading) {
        uv_read_stop((uv_stream_t *)&c->tcp);
        c->reading = 0;
    }
    json_decref(msg);
}

/* Ciphertext from the peer: decrypted into the decoder, with the
 * handshake's answers queued.  Returns 0, or -1 when the connection
 * failed (then it is closing) or with errno ENOMEM. */
static int conn_tls_in(struct conn *c, const char *buf, size_t len)
{
    proto_server_t *s = c->s;
    drv_error_t error = { { 0 } };
    ssize_t n;

    if (proto_tls_feed(c->tls, buf, len, &error) < 0) {
        if (errno == ENOMEM)
            return -1;
        if (!proto_tls_established(c->tls) && len > 4 && buf[4] == '{')
            conn_tls_refuse_plain(c);
        else
            conn_tls_fail(c, error.text);
        return -1;
    }
    while ((n = proto_tls_read(c->tls, s->plain_buf, sizeof(s->plain_buf),
                               &error)) > 0)
        if (proto_decoder_feed(c->dec, s->plain_buf, (size_t)n) < 0)
            return -1;
    if (n < 0 && errno != ENOMEM) {
        conn_tls_fail(c, error.text);
        return -1;
    }
    if (n < 0 || conn_tls_flush(c) < 0)
        return -1;
    return 0;
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    struct conn *c = stream->data;
    proto_server_t *s = c->s;

    if (s && buf->base == s->read_buf)
        s->read_buf_busy = 0;
    if (c->closing || nread == 0)
        return;
    if (nread > 0) {
        c->last_active = uv_now(s->loop);
        if (!unauth_budget_allows(c, (size_t)nread))
            return;
        if (c->tls ? conn_tls_in(c, buf->base, (size_t)nread) < 0
                   : proto_decoder_feed(c->dec, buf->base, (size_t)nread) < 0) {
            if (!c->closing && !c->close_after_write)
                conn_fail(c, ENOMEM, "server out of memory");
            return;
        }
        dispatch_loop(c);
        conn_charge(c);
        return;
    }
    if (nread == UV_EOF) {
        size_t left = proto_decoder_buffered(c->dec);
        if (left > 0) {
            char text[96];
            snprintf(text, sizeof(text),
                     "connection closed inside a frame (%zu bytes of it)",
                     left);
            conn_fail(c, EDRV_PROTOCOL_MALFORMED, text);
            return;
        }
    }
    else {
        log_debug("proto: %s: read failed: %s", c->peer_str,
                  uv_strerror((int)nread));
    }
    conn_close(c);
}

static void conn_read_start(struct conn *c)
{
    int rc = uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);

    if (rc < 0) {
        log_error("proto: %s: cannot read: %s", c->peer_str, uv_strerror(rc));
        conn_close(c);
        return;
    }
    c->reading = 1;
}

static void peer_format(struct conn *c)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    int port = 0;

    if (c->peer.ss_family == AF_INET) {
        struct sockaddr_in *sin = (struct sockaddr_in *)&c->peer;
        uv_ip4_name(sin, ip, sizeof(ip));
        port = ntohs(sin->sin_port);
        snprintf(c->peer_str, sizeof(c->peer_str), "%s:%d", ip, port);
    }
    else if (c->peer.ss_family == AF_INET6) {
        struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&c->peer;
        uv_ip6_name(sin6, ip, sizeof(ip));
        port = ntohs(sin6->sin6_port);
        snprintf(c->peer_str, sizeof(c->peer_str), "[%s]:%d", ip, port);
    }
    else {
        snprintf(c->peer_str, sizeof(c->peer_str), "unknown-peer");
    }
}

/* Whether 'c' has sent nothing: no byte read, none waiting in the socket
 * (a client accepted in the same burst as a flood has its request there).
 */
static int conn_silent(const struct conn *c)
{
    uv_os_fd_t fd;
    int waiting = 0;

    if (c->last_active != c->accepted || proto_decoder_buffered(c->dec))
        return 0;
    if (uv_fileno((const uv_handle_t *)&c->tcp, &fd) < 0
        || ioctl(fd, FIONREAD, &waiting) < 0)
        return 1;
    return waiting == 0;
}

/* The address holding the most unauthenticated connections, when it holds
 * more than one; NULL otherwise. */
static struct peer_count *heaviest_peer(proto_server_t *s)
{
    struct peer_count *pc, *tmp, *heavy = NULL;

    HASH_ITER(hh, s->peers, pc, tmp) {
        if (!heavy || pc->n > heavy->n)
            heavy = pc;
    }
    return heavy && heavy->n > 1 ? heavy : NULL;
}

/* The unauthenticated connection to close for a new one.  From the address
 * that holds the most of them (a flood from one host pushes out its own
 * connections, not those of other hosts), else from all: the oldest that
 * sent nothing among the EVICT_SCAN oldest, else the oldest.  NULL if
 * none.
 */
static struct conn *unauth_victim(proto_server_t *s)
{
    struct peer_count *heavy = heaviest_peer(s);
    struct conn *c, *first = NULL;
    int scanned = 0;

    for (c = s->un_head; c && scanned < EVICT_SCAN; c = c->un_next) {
        if (heavy && c->pc != heavy)
            continue;
        if (!first)
            first = c;
        if (conn_silent(c))
            return c;
        scanned++;
    }
    return first ? first : s->un_head;
}

/* Make room for one more unauthenticated connection: close one if the cap
 * (or the descriptor reserve) is reached.  Returns 1 when there is room, 0
 * when the new one must be refused (descriptors are short and every
 * connection is authenticated).
 */
static int unauth_admit(proto_server_t *s)
{
    struct conn *victim;

    if (s->conn_count < s->conn_max && s->un_count < s->unauth.max_conns)
        return 1;
    if (!(victim = unauth_victim(s)))
        return 0;
    note_drop(s, "%s: %u connections have not authenticated; closing %s to "
                 "make room",
              victim->peer_str, s->un_count,
              conn_silent(victim) ? "the oldest silent one"
                                  : "the oldest one");
    conn_close(victim);
    return 1;
}

/* Accept one connection into a new struct conn, linked and counted.
 * Returns it, or NULL (logged) when accepting failed.
 */
static struct conn *conn_accept(proto_server_t *s, uv_stream_t *server)
{
    struct conn *c;
    int len = sizeof(struct sockaddr_storage);
    int rc;

    if (!(c = calloc(1, sizeof(*c))) || !(c->dec = proto_decoder_create())) {
        /* Not accepting leaves the listener paused until the next accept;
         * there is nothing better to do without memory.
         */
        log_error("proto: accept: out of memory");
        free(c);
        return NULL;
    }
    c->refs = 1; /* the handle */
    c->s = s;
    c->tcp.data = c;
    if ((rc = uv_tcp_init(s->loop, &c->tcp)) < 0) {
        log_error("proto: accept: %s", uv_strerror(rc));
        proto_decoder_destroy(c->dec);
        free(c);
        return NULL;
    }
    c->next = s->conns;
    if (s->conns)
        s->conns->prev = c;
    s->conns = c;
    s->conn_count++;
    if ((rc = uv_accept(server, (uv_stream_t *)&c->tcp)) < 0) {
        note_drop(s, "accept: %s", uv_strerror(rc));
        conn_close(c);
        return NULL;
    }
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&c->peer, &len) < 0)
        memset(&c->peer, 0, sizeof(c->peer));
    peer_format(c);
    c->accepted = c->last_active = uv_now(s->loop);
    if (s->tls) {
        drv_error_t error = { { 0 } };

        if (!(c->tls = proto_tls_create(s->tls, NULL, &error))) {
            log_error("proto: %s: %s", c->peer_str, error.text);
            conn_close(c);
            return NULL;
        }
    }
    return c;
}

static void accept_one(proto_server_t *s, uv_stream_t *server)
{
    struct conn *c;
    int admitted;

    s->accepts++;
    admitted = unauth_admit(s);
    if (!(c = conn_accept(s, server)))
        return;
    if (!admitted) {
        note_drop(s, "%s: refused: %u connections open, the most this "
                     "process's open files limit leaves room for",
                  c->peer_str, s->conn_count - 1);
        conn_close(c);
        return;
    }
    unauth_add(s, c);
    proto_decoder_set_max(c->dec, s->unauth.frame_max);
    uv_tcp_nodelay(&c->tcp, 1);
    log_debug2("proto: %s: connected", c->peer_str);
    conn_read_start(c);
}

/* A connection waits on 'server': accept it, or past ACCEPT_BATCH in this
 * turn leave it to on_ready() (libuv stops watching the listener until
 * it is accepted). */
static void on_connection(uv_stream_t *server, int status)
{
    struct listener *l = server->data;
    proto_server_t *s = l->s;

    if (status < 0) {
        /* libuv has accepted and closed what waited (its EMFILE reserve
         * descriptor): those clients see the connection drop.
         */
        note_drop(s, "cannot accept connections: %s", uv_strerror(status));
        return;
    }
    if (uv_now(s->loop) != s->accept_turn) {
        s->accept_turn = uv_now(s->loop);
        s->accepts = 0;
    }
    if (s->accepts >= ACCEPT_BATCH) {
        l->deferred = 1;
        uv_idle_start(&s->idler, on_ready);
        return;
    }
    accept_one(s, server);
}

/* --- server-wide handles ------------------------------------------------ */

static void on_ready(uv_idle_t *idler)
{
    proto_server_t *s = idler->data;
    struct conn *c;

    s->accepts = 0; /* a new turn */
    for (struct listener *l = s->listeners; l; l = l->next) {
        if (l->deferred) {
            l->deferred = 0;
            accept_one(s, (uv_stream_t *)&l->tcp);
        }
    }

    /* Within this turn's budget; what is left waits for the next turn
     * (the idler keeps the loop from blocking meanwhile). */
    while ((c = s->ready) && s->turn_ns < PROTO_TURN_BUDGET_NS) {
        s->ready = c->ready_next;
        if (!s->ready)
            s->ready_tail = NULL;
        c->ready_next = NULL;
        c->in_ready = 0;
        dispatch_loop(c);
    }
    if (!s->ready)
        uv_idle_stop(idler);
}

static void on_turn_check(uv_check_t *check)
{
    proto_server_t *s = check->data;

    s->turn_ns = 0;
}

static void on_sweep(uv_timer_t *timer)
{
    proto_server_t *s = timer->data;
    uint64_t now = uv_now(s->loop);
    struct conn *c, *next;
    unsigned long late = 0;

    /* Oldest first: stop at the first one still within its time. */
    while (s->unauth.timeout_ms && (c = s->un_head)
           && now - c->accepted >= s->unauth.timeout_ms) {
        late++;
        conn_close(c);
    }
    if (late)
        log_verbose("proto: closed %lu connection%s that sent no "
                    "authenticated request within %u ms",
                    late, late == 1 ? "" : "s", s->unauth.timeout_ms);
    if (s->idle_ms == 0)
        return;
    for (c = s->conns; c; c = next) {
        next = c->next;
        if (!c->outstanding && !c->closing && !c->close_after_write
            && now - c->last_active >= s->idle_ms) {
            log_debug("proto: %s: idle for %u ms, closing", c->peer_str,
                      s->idle_ms);
            conn_close(c);
        }
    }
}

static void sweep_restart(proto_server_t *s)
{
    unsigned limit = s->idle_ms;
    uint64_t every;

    if (s->unauth.timeout_ms && (!limit || s->unauth.timeout_ms < limit))
        limit = s->unauth.timeout_ms;
    uv_timer_stop(&s->sweep);
    if (limit == 0 || s->destroyed)
        return;
    /* Close within about a quarter of the limit after it passes. */
    every = limit / 4;
    if (every < 10)
        every = 10;
    if (every > 5000)
        every = 5000;
    uv_timer_start(&s->sweep, on_sweep, every, every);
}

static void on_server_handle_close(uv_handle_t *h)
{
    proto_server_t *s = h->data;

    if (h != (uv_handle_t *)&s->sweep && h != (uv_handle_t *)&s->idler
        && h != (uv_handle_t *)&s->turn_check)
        free(h); /* a listener (its tcp handle is its first member) */
    if (--s->handles_open == 0) {
        struct table_ent *t, *next;
        for (t = s->tables; t; t = next) {
            next = t->next;
            free(t);
        }
        rpc_stats_destroy(s->stats);
        free(s);
    }
}

/* Default limits, sized by the descriptors the process may open. */
static void limits_from_rlimit(proto_server_t *s)
{
    struct rlimit rl;
    rlim_t n = RLIM_INFINITY;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        n = rl.rlim_cur;
    s->unauth = (struct proto_unauth_limits){
        .max_conns = PROTO_UNAUTH_MAX_CONNS,
        .timeout_ms = PROTO_UNAUTH_TIMEOUT_MS,
        .frame_max = PROTO_UNAUTH_FRAME_MAX,
        .budget = PROTO_UNAUTH_BUDGET,
    };
    s->conn_max = UINT32_MAX;
    if (n == RLIM_INFINITY || n >= UINT32_MAX)
        return;
    s->conn_max = (unsigned)(n - n / 8);
    if (n / 4 < s->unauth.max_conns)
        s->unauth.max_conns = n / 4 ? (unsigned)(n / 4) : 1;
}

/* --- public ------------------------------------------------------------- */

proto_server_t *proto_server_create(uv_loop_t *loop, proto_auth_t *auth,
                                    proto_roles_f roles_of, void *roles_arg,
                                    drv_error_t *error)
{
    proto_server_t *s;

    if (!loop || !auth || !roles_of) {
        errno = EINVAL;
        errprintf(error, "proto_server_create: loop, auth and roles_of are "
                         "required");
        return NULL;
    }
    if (!(s = calloc(1, sizeof(*s)))) {
        errprintf(error, "out of memory");
        return NULL;
    }
    proto__sigpipe_ignore();
    s->loop = loop;
    s->auth = auth;
    s->roles_of = roles_of;
    s->roles_arg = roles_arg;
    s->idle_ms = PROTO_SERVER_IDLE_MS;
    s->stats = rpc_stats_create();
    limits_from_rlimit(s);
    /* Neither init can fail for a valid loop (libuv returns 0). */
    uv_timer_init(loop, &s->sweep);
    s->sweep.data = s;
    s->handles_open++;
    uv_idle_init(loop, &s->idler);
    s->idler.data = s;
    s->handles_open++;
    uv_check_init(loop, &s->turn_check);
    s->turn_check.data = s;
    s->handles_open++;
    uv_check_start(&s->turn_check, on_turn_check);
    uv_unref((uv_handle_t *)&s->turn_check);
    uv_unref((uv_handle_t *)&s->sweep);
    sweep_restart(s);
    return s;
}

int proto_server_register(proto_server_t *s,
                          const struct proto_handler *table, void *arg,
                          drv_error_t *error)
{
    struct table_ent *t;

    for (const struct proto_handler *h = table; h->type; h++) {
        void *unused;
        if (!h->fn) {
            errno = EINVAL;
            return errprintf(error, "handler for '%s' has no function",
                             h->type);
        }
        if (lookup(s, h->type, &unused)) {
            errno = EEXIST;
            return errprintf(error, "message type '%s' is already handled",
                             h->type);
        }
        for (const struct proto_handler *g = table; g < h; g++) {
            if (!strcmp(g->type, h->type)) {
                errno = EEXIST;
                return errprintf(error, "message type '%s' appears twice",
                                 h->type);
            }
        }
    }
    if (!(t = calloc(1, sizeof(*t)))) {
        return errprintf(error, "out of memory");
    }
    t->table = table;
    t->arg = arg;
    t->next = s->tables;
    s->tables = t;
    return 0;
}

int proto_server_unregister(proto_server_t *s,
                            const struct proto_handler *table)
{
    for (struct table_ent **pp = &s->tables; *pp; pp = &(*pp)->next) {
        if ((*pp)->table == table) {
            struct table_ent *t = *pp;
            *pp = t->next;
            free(t);
            return 0;
        }
    }
    errno = ENOENT;
    return -1;
}

/* --- handler table dump (DROVER_DEBUG_HANDLERS) ---------------------------- */

static json_t *roles_json(unsigned roles)
{
    static const struct {
        unsigned bit;
        const char *name;
    } names[] = {
        {PROTO_ROLE_USER, "user"},
        {PROTO_ROLE_OPERATOR, "operator"},
        {PROTO_ROLE_ADMIN, "admin"},
        {PROTO_ROLE_DAEMON, "daemon"},
    };
    json_t *a = json_array();

    for (size_t i = 0; a && i < sizeof(names) / sizeof(names[0]); i++)
        if (roles & names[i].bit)
            json_array_append_new(a, json_string(names[i].name));
    return a;
}

/* With DROVER_DEBUG_HANDLERS=DIR in the environment, write what this
 * server handles, and the roles each type admits, to DIR/PORT.json:
 * {"program":"droverctld","port":6817,"handlers":{"ping":["user"],...}}.
 * The authorization matrix test (tests/e2e/test_security_authz.py)
 * reads it, so its cases come from the tables the daemon runs.  A debug
 * aid: failures are logged and otherwise ignored. */
static void handlers_dump(const proto_server_t *s, uint16_t port)
{
    const char *dir = getenv("DROVER_DEBUG_HANDLERS");
    json_t *doc, *handlers;
    char *path = NULL;

    if (!dir || !*dir)
        return;
    doc = json_pack("{s:s, s:i, s:o}", "program",
                    program_invocation_short_name, "port", (int)port,
                    "handlers", json_object());
    handlers = doc ? json_object_get(doc, "handlers") : NULL;
    for (const struct table_ent *t = s->tables; handlers && t; t = t->next)
        for (const struct proto_handler *h = t->table; h->type; h++)
            json_object_set_new(handlers, h->type, roles_json(h->roles));
    if (!handlers || asprintf(&path, "%s/%u.json", dir, (unsigned)port) < 0
        || json_dump_file(doc, path, JSON_SORT_KEYS | JSON_INDENT(1)) < 0)
        log_error("proto: cannot write the handler table to %s",
                  path ? path : dir);
    free(path);
    json_decref(doc);
}

int proto_server_listen(proto_server_t *s, const char *host, uint16_t port,
                        drv_error_t *error)
{
    struct addrinfo hints = {
        .ai_family = AF_UNSPEC,
        .ai_socktype = SOCK_STREAM,
        .ai_flags = AI_PASSIVE | AI_NUMERICSERV,
    };
    struct addrinfo *res = NULL;
    struct listener *l;
    char portstr[8];
    const char *name = host ? host : "0.0.0.0";
    int rc;

    snprintf(portstr, sizeof(portstr), "%u", (unsigned)port);
    if ((rc = getaddrinfo(name, portstr, &hints, &res)) != 0) {
        errno = rc == EAI_MEMORY ? ENOMEM : EHOSTUNREACH;
        return errprintf(error, "cannot listen on %s:%u: %s", name,
                         (unsigned)port, gai_strerror(rc));
    }
    if (!(l = calloc(1, sizeof(*l)))) {
        freeaddrinfo(res);
        return errprintf(error, "out of memory");
    }
    l->s = s;
    uv_tcp_init(s->loop, &l->tcp); /* cannot fail for AF_UNSPEC */
    l->tcp.data = l;
    s->handles_open++;
    if ((rc = uv_tcp_bind(&l->tcp, res->ai_addr, 0)) < 0
        || (rc = uv_listen((uv_stream_t *)&l->tcp, LISTEN_BACKLOG,
                           on_connection))
               < 0) {
        freeaddrinfo(res);
        /* The listener is freed in on_server_handle_close; data must be
         * the server there.
         */
        l->tcp.data = s;
        uv_close((uv_handle_t *)&l->tcp, on_server_handle_close);
        errno = -rc;
        return errprintf(error, "cannot listen on %s:%u: %s", name,
                         (unsigned)port, uv_strerror(rc));
    }
    freeaddrinfo(res);
    l->next = s->listeners;
    s->listeners = l;
    handlers_dump(s, port);
    return 0;
}

uint16_t proto_server_port(const proto_server_t *s)
{
    struct sockaddr_storage ss;
    int len = sizeof(ss);
    const struct listener *l;

    /* The first listener is at the end of the list. */
    for (l = s->listeners; l && l->next; l = l->next)
        ;
    if (!l || uv_tcp_getsockname(&l->tcp, (struct sockaddr *)&ss, &len) < 0)
        return 0;
    if (ss.ss_family == AF_INET)
        return ntohs(((struct sockaddr_in *)&ss)->sin_port);
    if (ss.ss_family == AF_INET6)
        return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return 0;
}

void proto_server_set_idle_timeout(proto_server_t *s, unsigned ms)
{
    s->idle_ms = ms;
    sweep_restart(s);
}

void proto_server_get_unauth_limits(const proto_server_t *s,
                                    struct proto_unauth_limits *lim)
{
    *lim = s->unauth;
}

int proto_server_set_unauth_limits(proto_server_t *s,
                                   const struct proto_unauth_limits *lim)
{
    if (lim->max_conns == 0 || lim->frame_max == 0
        || lim->frame_max > PROTO_FRAME_MAX) {
        errno = EINVAL;
        return -1;
    }
    s->unauth = *lim;
    sweep_restart(s);
    return 0;
}

void proto_server_set_unauth_timeout(proto_server_t *s, unsigned ms)
{
    s->unauth.timeout_ms = ms;
    sweep_restart(s);
}

void proto_server_fit_script(proto_server_t *s, uint32_t script_max)
{
    uint64_t want = PROTO_SCRIPT_ESCAPE_FACTOR * (uint64_t)script_max
                    + PROTO_SCRIPT_ENV_ALLOWANCE;

    if (want > PROTO_FRAME_MAX)
        want = PROTO_FRAME_MAX;
    if (want > s->unauth.frame_max)
        s->unauth.frame_max = (uint32_t)want;
    if (s->unauth.budget < want)
        s->unauth.budget = (size_t)want;
}

void proto_server_set_tls(proto_server_t *s, proto_tls_ctx_t *ctx)
{
    if (s->tls != ctx)
        proto_tls_ctx_destroy(s->tls);
    s->tls = ctx;
}

int proto_server_tls_setup(proto_server_t *s, bool rpc, const char *cert,
                           const char *key, const char *ca,
                           drv_error_t *error)
{
    proto_tls_ctx_t *ctx;

    if (!rpc)
        return 0;
    if (!(ctx = proto_tls_server_ctx(cert, key, error)))
        return -1;
    if (proto_tls_client_setup(true, ca, error) < 0) {
        proto_tls_ctx_destroy(ctx);
        return -1;
    }
    proto_server_set_tls(s, ctx);
    return 0;
}

void proto_server_set_gate(proto_server_t *s, proto_gate_f gate, void *arg)
{
    s->gate = gate;
    s->gate_arg = arg;
}

void proto_server_set_timed(proto_server_t *s, proto_timed_f timed,
                            void *arg)
{
    s->timed = timed;
    s->timed_arg = arg;
}

uint64_t proto_server_last_drop(const proto_server_t *s)
{
    return s->last_drop;
}

void proto_server_destroy(proto_server_t *s)
{
    if (s && !s->destroyed) {
        int saved_errno = errno;
        struct listener *l, *next;

        s->destroyed = 1;
        while (s->conns)
            conn_close(s->conns);
        proto_tls_ctx_destroy(s->tls); /* connections hold their own ref */
        s->tls = NULL;
        for (l = s->listeners; l; l = next) {
            next = l->next;
            l->tcp.data = s;
            uv_close((uv_handle_t *)&l->tcp, on_server_handle_close);
        }
        s->listeners = NULL;
        uv_close((uv_handle_t *)&s->sweep, on_server_handle_close);
        uv_close((uv_handle_t *)&s->idler, on_server_handle_close);
        uv_close((uv_handle_t *)&s->turn_check, on_server_handle_close);
        errno = saved_errno;
    }
}

struct rpc_stats *proto_server_stats(proto_server_t *s)
{
    return s->stats;
}

/* --- requests ----------------------------------------------------------- */

const char *proto_req_type(const proto_req_t *req)
{
    return req->type;
}

json_t *proto_req_body(const proto_req_t *req)
{
    return req->body;
}

uid_t proto_req_uid(const proto_req_t *req)
{
    return req->uid;
}

gid_t proto_req_gid(const proto_req_t *req)
{
    return req->gid;
}

unsigned proto_req_roles(const proto_req_t *req)
{
    return req->roles;
}

const char *proto_req_peer(const proto_req_t *req)
{
    return req->conn->peer_str;
}

const struct sockaddr *proto_req_peer_addr(const proto_req_t *req)
{
    return (const struct sockaddr *)&req->conn->peer;
}

/* Free 'req' and let its connection take the next request. */
static void req_finish(proto_req_t *req)
{
    struct conn *c = req->conn;

    if (c->s)
        rpc_stats_add(c->s->stats, req->type, req->uid,
                      (uv_hrtime() - req->arrived_ns) / 1000);

    if (c->outstanding == req) {
        c->outstanding = NULL;
        if (c->s && !c->closing) {
            c->last_active = uv_now(c->s->loop);
            /* Inside the dispatch loop the loop itself moves on. */
            if (!c->dispatching)
                ready_add(c->s, c);
        }
    }
    json_decref(req->msg);
    free(req);
    conn_decref(c);
}

/* Send the frame at buf + off (len bytes in all, 'buf' taken) for 'req'
 * and free 'req'.  Returns 0 or -1/errno (the connection is closed). */
static int respond_frame(proto_req_t *req, char *buf, size_t off, size_t len)
{
    struct conn *c = req->conn;
    int errnum;

    if (c->closing || !c->s) {
        log_debug("proto: %s: '%s' answered after the connection closed",
                  c->peer_str, req->type);
        free(buf);
    } else if (conn_write(c, buf, off, len) < 0) {
        errnum = errno;
        log_error("proto: %s: '%s' response: %s", c->peer_str, req->type,
                  strerror(errnum));
        conn_close(c);
        req_finish(req);
        errno = errnum;
        return -1;
    }
    req_finish(req);
    return 0;
}

/* An answer over PROTO_FRAME_MAX: the client gets an error instead. */
static int respond_too_large(proto_req_t *req)
{
    struct conn *c = req->conn;

    log_error("proto: %s: '%s' response exceeds %u bytes", c->peer_str,
              req->type, PROTO_FRAME_MAX);
    if (!c->closing && c->s)
        conn_send_error(c, EMSGSIZE, "response too large");
    req_finish(req);
    errno = EMSGSIZE;
    return -1;
}

/* Send 'resp' (stolen) for 'req' and free 'req'.  Returns 0 or -1/errno. */
static int respond_msg(proto_req_t *req, json_t *resp)
{
    struct conn *c = req->conn;
    size_t len;
    char *buf;
    int rc;

    rc = proto_frame_encode(resp, &buf, &len);
    json_decref(resp);
    if (rc < 0 && errno == EMSGSIZE)
        return respond_too_large(req);
    if (rc < 0) {
        int errnum = errno;

        log_error("proto: %s: '%s' response: %s", c->peer_str, req->type,
                  strerror(errnum));
        if (!c->closing && c->s)
            conn_close(c);
        req_finish(req);
        errno = errnum;
        return -1;
    }
    return respond_frame(req, buf, 0, len);
}

/* No memory even for an answer: drop the connection so the client is not
 * left waiting, and free the request.
 */
static int respond_nomem(proto_req_t *req)
{
    log_error("proto: %s: '%s': out of memory answering", req->conn->peer_str,
              req->type);
    if (!req->conn->closing)
        conn_close(req->conn);
    req_finish(req);
    errno = ENOMEM;
    return -1;
}

int proto_respond(proto_req_t *req, json_t *body)
{
    json_t *resp;

    if (body && !json_is_object(body)) {
        json_decref(body);
        log_error("proto: '%s' handler answered with a non-object body",
                  req->type);
        if (!(resp = proto_msg_error(EINVAL, "handler returned a bad body")))
            return respond_nomem(req);
        respond_msg(req, resp);
        errno = EINVAL;
        return -1;
    }
    if (!(resp = proto_msg_response(req->type, body)))
        return respond_nomem(req);
    return respond_msg(req, resp);
}

/* The body written in 'w' framed for 'req': the envelope
 * {"v":1,"type":"T",["more":true,]"body": ... } put in the room 'w' left
 * in front (PROTO_RESPOND_RESERVE).  Returns the buffer (taken from 'w',
 * which is left empty) holding the frame from *off to *len, or NULL with
 * errno EINVAL (no body was written), ENOMEM or EMSGSIZE. */
static char *frame_written(const proto_req_t *req, struct jsonw *w, bool more,
                           size_t *off, size_t *len)
{
    char prefix[PROTO_RESPOND_RESERVE];
    char *buf;
    int n;

    n = snprintf(prefix, sizeof(prefix),
                 "{\"v\":%d,\"type\":\"%s\",%s\"body\":", PROTO_VERSION,
                 req->type, more ? "\"more\":true," : "");
    jsonw_raw(w, "}", 1);
    if (n < 0 || (size_t)n + PROTO_FRAME_HDR > PROTO_RESPOND_RESERVE
        || w->len < PROTO_RESPOND_RESERVE + 2) {
        jsonw_release(w);
        errno = EINVAL;
        return NULL;
    }
    if (!(buf = jsonw_take(w, len))) {
        errno = ENOMEM;
        return NULL;
    }
    *off = PROTO_RESPOND_RESERVE - (size_t)n - PROTO_FRAME_HDR;
    if (*len - *off - PROTO_FRAME_HDR > PROTO_FRAME_MAX) {
        free(buf);
        errno = EMSGSIZE;
        return NULL;
    }
    proto_frame_put_header(buf + *off,
                           (uint32_t)(*len - *off - PROTO_FRAME_HDR));
    memcpy(buf + *off + PROTO_FRAME_HDR, prefix, (size_t)n);
    return buf;
}

int proto_respond_jsonw(proto_req_t *req, struct jsonw *w)
{
    size_t len, off;
    char *buf;

    if ((buf = frame_written(req, w, false, &off, &len)))
        return respond_frame(req, buf, off, len);
    if (errno == ENOMEM)
        return respond_nomem(req);
    if (errno == EMSGSIZE)
        return respond_too_large(req);
    log_error("proto: '%s': bad written body", req->type);
    return proto_respond_error(req, EINVAL, "handler wrote a bad body");
}

int proto_respond_part_jsonw(proto_req_t *req, struct jsonw *w)
{
    struct conn *c = req->conn;
    size_t len, off;
    char *buf;
    int errnum;

    if (!(buf = frame_written(req, w, true, &off, &len))) {
        errnum = errno;
        log_error("proto: %s: '%s' part: %s", c->peer_str, req->type,
                  strerror(errnum));
        errno = errnum;
        return -1;
    }
    if (c->closing || !c->s) { /* the final answer frees the request */
        free(buf);
        return 0;
    }
    if (conn_write(c, buf, off, len) < 0) {
        errnum = errno;
        log_error("proto: %s: '%s' part: %s", c->peer_str, req->type,
                  strerror(errnum));
        conn_close(c);
        errno = errnum;
        return -1;
    }
    return 0;
}

int proto_respond_error(proto_req_t *req, int errnum, const char *errstr)
{
    json_t *resp;

    if (!(resp = proto_msg_error(errnum, errstr)))
        return respond_nomem(req);
    return respond_msg(req, resp);
}
