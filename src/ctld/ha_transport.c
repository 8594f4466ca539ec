/* SPDX-License-Identifier: Apache-2.0
 *
 * ha_transport.c - the Raft group's connections (ha_transport.h)
 *
 * A connection ("link") goes: TCP connect or accept -> TLS handshake (with
 * drover_tls_rpc) -> hello -> welcome -> handed to libraft.  Plain, the
 * TCP handle itself is handed over and the link is freed.  With TLS the
 * link stays as a tunnel: libraft gets one end of a socketpair, and the
 * link moves plaintext between the other end ('local') and the TLS
 * session on the TCP handle until either side closes.
 *
 * Handles given to libraft are allocated with raft_malloc(): libraft
 * frees them with raft_free() after closing them.  Our write requests
 * carry their own buffer and never point back at the link, so a handle
 * handed over with a write in flight is safe.
 */
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>

#include <jansson.h>
#include <uv.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "conf/conf.h"
#include "ctld/ctld.h"
#include "ctld/ha_transport.h"
#include "proto/auth.h"
#include "proto/frame.h"
#include "proto/schema.h"
#include "proto/tls.h"

#define READ_CHUNK 65536
#define LOG_EVERY_MS 10000
#define NONCE_HEX 32

struct hat;

struct link {
    struct hat *hat;
    struct link *prev, *next;     /* hat->links */
    uv_tcp_t *tcp;                /* raft_malloc'd; NULL once handed over */
    uv_timer_t timer;             /* the handshake's MessageTimeout */
    uv_connect_t connect;
    uv_pipe_t local;              /* tunnel: our end of the socketpair */
    proto_decoder_t *dec;
    proto_tls_t *tls;             /* NULL: plain */
    int open;                     /* our handles not yet closed */
    bool outgoing, tunnel, closing, pending_in;
    /* outgoing */
    struct raft_uv_connect *req;  /* NULL once its callback ran */
    raft_id peer;
    char nonce[NONCE_HEX + 1];
    char host[300];               /* dialled or accepted from, for logs */
};

struct hat {
    struct raft_uv_transport *t;
    struct ctld *ctld;
    raft_id self;
    uv_tcp_t listener;
    bool listening, closing;
    raft_uv_accept_cb accept_cb;
    raft_uv_transport_close_cb close_cb;
    proto_tls_ctx_t *server_tls, *client_tls;
    struct link *links;
    unsigned pending_in;          /* incoming links not yet welcomed */
    unsigned live;                /* links not yet freed */
    uint64_t logged_at;           /* uv_now() of the last refusal logged */
    unsigned long unlogged;       /* refusals since */
};

struct write_req {
    uv_write_t req;
    char data[];
};

static void link_close(struct link *l);

/* --- small pieces -------------------------------------------------------- */

static uv_loop_t *hat_loop(struct hat *h)
{
    return h->ctld->loop;
}

/* A refusal or failure worth an administrator's eye: at most one line
 * per LOG_EVERY_MS, with how many were not logged. */
static void __attribute__((format(printf, 2, 3)))
hat_log(struct hat *h, const char *fmt, ...)
{
    uint64_t now = uv_now(hat_loop(h));
    char text[512];
    va_list ap;

    if (h->logged_at && now - h->logged_at < LOG_EVERY_MS) {
        h->unlogged++;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    if (h->unlogged)
        log_error("ha: %s (and %lu more since the last such line)", text,
                  h->unlogged);
    else
        log_error("ha: %s", text);
    h->logged_at = now ? now : 1;
    h->unlogged = 0;
}

/* The configured Raft address of 'id' ("ADDR:PORT"), or "" when 'id' is
 * no SlurmctldHost line's. */
static void id_address(const struct hat *h, raft_id id, char *buf,
                       size_t cap)
{
    const struct slurm_conf *conf = h->ctld->conf;

    buf[0] = '\0';
    if (id >= 1 && id <= conf->ctld_backup_count + 1)
        snprintf(buf, cap, "%s:%u", conf_ctld_addr(conf, (size_t)id - 1),
                 (unsigned)conf->raft_port);
}

static bool uid_is_controller(const struct hat *h, uid_t uid)
{
    return uid == 0 || uid == h->ctld->slurm_uid;
}

static void write_done(uv_write_t *req, int status)
{
    (void)status; /* a failed write shows as a read error or EOF */
    free(req->data);
}

/* Write 'len' bytes (copied) to 'stream'. */
static int stream_send(uv_stream_t *stream, const void *data, size_t len)
{
    struct write_req *w = malloc(sizeof(*w) + len);
    uv_buf_t buf;
    int rc;

    if (!w)
        return UV_ENOMEM;
    memcpy(w->data, data, len);
    w->req.data = w;
    buf = uv_buf_init(w->data, (unsigned)len);
    if ((rc = uv_write(&w->req, stream, &buf, 1, write_done)) < 0)
        free(w);
    return rc;
}

/* Send the TLS session's waiting ciphertext on the TCP handle. */
static int tls_flush(struct link *l)
{
    char *out;
    ssize_t n;
    int rc = 0;

    while ((n = proto_tls_output(l->tls, &out)) > 0) {
        rc = stream_send((uv_stream_t *)l->tcp, out, (size_t)n);
        free(out);
        if (rc < 0)
            return rc;
    }
    return n < 0 ? UV_ENOMEM : 0;
}

/* Send plaintext to the peer: through TLS, or straight on the socket. */
static int link_send(struct link *l, const void *data, size_t len)
{
    drv_error_t error = {0};

    if (!l->tls)
        return stream_send((uv_stream_t *)l->tcp, data, len);
    if (proto_tls_write(l->tls, data, len, &error) < 0)
        return UV_EPROTO;
    return tls_flush(l);
}

/* --- the handshake frames ------------------------------------------------ */

/* Send {"type", "cred", "body"} with a credential for 'type' and 'body'
 * (stolen). */
static int send_frame(struct link *l, const char *type, json_t *body,
                      drv_error_t *error)
{
    struct proto_auth *auth = l->hat->ctld->auth;
    char *cred = NULL, *buf = NULL;
    json_t *msg = NULL;
    size_t len;
    int rc = -1;

    if (!auth) {
        errprintf(error, "MUNGE is not set up yet");
        goto out;
    }
    if (!(cred = proto_auth_encode(auth, type, body, error)))
        goto out;
    msg = json_pack("{s:s, s:s, s:O}", "type", type, "cred", cred, "body",
                    body);
    if (!msg || proto_frame_encode(msg, &buf, &len) < 0) {
        errprintf(error, "%s: out of memory", type);
        goto out;
    }
    if (link_send(l, buf, len) < 0)
        errprintf(error, "%s: sending failed", type);
    else
        rc = 0;
out:
    free(buf);
    free(cred);
    json_decref(msg);
    json_decref(body);
    return rc;
}

/* Check frame 'msg' is a 'type' whose body passes 'schema' under a MUNGE
 * credential of root or SlurmUser.  Returns its body (borrowed from
 * 'msg'), or NULL with 'error'. */
static json_t *check_frame(struct link *l, json_t *msg, const char *type,
                           drv_error_t *error)
{
    const struct proto_schema *schema = proto_schema_find(type);
    json_t *body = json_object_get(msg, "body");
    const char *got = json_string_value(json_object_get(msg, "type"));
    const char *cred = json_string_value(json_object_get(msg, "cred"));
    bool by_token = false;
    uid_t uid;

    if (!got || strcmp(got, type)) {
        errprintf(error, "expected %s, got %s", type, got ? got : "no type");
        return NULL;
    }
    if (!cred || !json_is_object(body)) {
        errprintf(error, "%s without a credential or body", type);
        return NULL;
    }
    if (schema_check(body, schema->body, error) < 0)
        return NULL;
    if (!l->hat->ctld->auth
        || proto_auth_decode(l->hat->ctld->auth, cred, type, body, &uid,
                             NULL, &by_token, error) < 0)
        return NULL;
    if (by_token || !uid_is_controller(l->hat, uid)) {
        errprintf(error, "%s from uid %u: only root and SlurmUser speak "
                  "Raft", type, (unsigned)uid);
        return NULL;
    }
    return body;
}

static int send_hello(struct link *l, drv_error_t *error)
{
    unsigned char raw[NONCE_HEX / 2];
    char address[320];

    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
        errprintf(error, "getrandom: %s", strerror(errno));
        return -1;
    }
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(l->nonce + 2 * i, 3, "%02x", raw[i]);
    id_address(l->hat, l->hat->self, address, sizeof(address));
    return send_frame(l, "raft_hello",
                      json_pack("{s:I, s:I, s:s, s:s}", "id",
                                (json_int_t)l->hat->self, "to",
                                (json_int_t)l->peer, "address", address,
                                "nonce", l->nonce),
                      error);
}

/* --- handing a link to libraft ------------------------------------------ */

static void free_raft_handle(uv_handle_t *handle)
{
    raft_free(handle);
}

/* A read buffer, for the TCP handle and the tunnel's end alike. */
static void read_alloc(uv_handle_t *h, size_t size, uv_buf_t *buf)
{
    (void)h;
    (void)size;
    buf->base = malloc(READ_CHUNK);
    buf->len = buf->base ? READ_CHUNK : 0;
}

/* Plaintext from libraft: into the TLS session. */
static void local_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct link *l = s->data;

    if (n < 0 || (n > 0 && link_send(l, buf->base, (size_t)n) < 0))
        link_close(l); /* libraft closed its end, or the peer is gone */
    free(buf->base);
}

/* The stream libraft gets: the TCP handle (plain), or one end of a new
 * socketpair whose other end the link keeps (TLS).  NULL on failure. */
static uv_stream_t *raft_stream(struct link *l, drv_error_t *error)
{
    uv_loop_t *loop = hat_loop(l->hat);
    uv_pipe_t *end;
    int sv[2];

    uv_timer_stop(&l->timer);
    if (!l->tls) {
        uv_stream_t *s = (uv_stream_t *)l->tcp;

        uv_read_stop(s);
        s->data = NULL;
        l->tcp = NULL; /* libraft's now */
        l->open--;
        return s;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
        errprintf(error, "socketpair: %s", strerror(errno));
        return NULL;
    }
    if (!(end = raft_malloc(sizeof(*end)))) {
        close(sv[0]);
        close(sv[1]);
        errprintf(error, "out of memory");
        return NULL;
    }
    uv_pipe_init(loop, end, 0);
    uv_pipe_init(loop, &l->local, 0);
    l->local.data = l;
    l->open++;
    l->tunnel = true; /* link_close() closes l->local from now on */
    if (uv_pipe_open(end, sv[0]) < 0) {
        close(sv[0]);
        close(sv[1]);
        goto fail;
    }
    if (uv_pipe_open(&l->local, sv[1]) < 0) {
        close(sv[1]);
        goto fail;
    }
    if (uv_read_start((uv_stream_t *)&l->local, read_alloc, local_read)
        < 0)
        goto fail;
    return (uv_stream_t *)end;
fail:
    uv_close((uv_handle_t *)end, free_raft_handle);
    errprintf(error, "socketpair: cannot watch it");
    return NULL;
}

/* An incoming link leaves the unauthenticated count (once). */
static void pending_done(struct link *l)
{
    if (l->pending_in) {
        l->pending_in = false;
        l->hat->pending_in--;
    }
}

static void unlink_link(struct link *l)
{
    struct hat *h = l->hat;

    pending_done(l);
    if (l->prev)
        l->prev->next = l->next;
    else if (h->links == l)
        h->links = l->next;
    if (l->next)
        l->next->prev = l->prev;
    l->prev = l->next = NULL;
}

/* The handshake is done: hand the connection to libraft. */
static void handover(struct link *l)
{
    struct hat *h = l->hat;
    drv_error_t error = {0};
    char address[320];
    uv_stream_t *s;

    if (!(s = raft_stream(l, &error))) {
        hat_log(h, "Raft connection with %s: %s", l->host, error.text);
        link_close(l);
        return;
    }
    if (l->outgoing) {
        struct raft_uv_connect *req = l->req;

        l->req = NULL;
        req->cb(req, s, 0);
    } else {
        pending_done(l);
        id_address(h, l->peer, address, sizeof(address));
        h->accept_cb(h->t, l->peer, address, s);
    }
    if (!l->tunnel)
        link_close(l); /* the timer; the TCP handle is libraft's */
}

/* --- reading ---------------------------------------------------------- */

/* The acceptor's side: a hello. */
static int on_hello(struct link *l, json_t *msg, drv_error_t *error)
{
    struct hat *h = l->hat;
    json_t *body = check_frame(l, msg, "raft_hello", error);
    char want[320];
    raft_id id;

    if (!body)
        return -1;
    id = (raft_id)json_integer_value(json_object_get(body, "id"));
    id_address(h, id, want, sizeof(want));
    if ((raft_id)json_integer_value(json_object_get(body, "to")) != h->self
        || id == h->self || !want[0]
        || strcmp(want, json_string_value(json_object_get(body, "address")))) {
        errprintf(error, "raft_hello from id %llu at %s: not another "
                  "SlurmctldHost of this group, or not for this one",
                  (unsigned long long)id,
                  json_string_value(json_object_get(body, "address")));
        return -1;
    }
    l->peer = id;
    if (send_frame(l, "raft_welcome",
                   json_pack("{s:I, s:s}", "id", (json_int_t)h->self,
                             "nonce",
                             json_string_value(json_object_get(body,
                                                               "nonce"))),
                   error) < 0)
        return -1;
    return 0;
}

/* The connector's side: the welcome. */
static int on_welcome(struct link *l, json_t *msg, drv_error_t *error)
{
    json_t *body = check_frame(l, msg, "raft_welcome", error);

    if (!body)
        return -1;
    if ((raft_id)json_integer_value(json_object_get(body, "id")) != l->peer
        || strcmp(json_string_value(json_object_get(body, "nonce")),
                  l->nonce)) {
        errprintf(error, "raft_welcome not from id %llu or not for our "
                  "hello", (unsigned long long)l->peer);
        return -1;
    }
    return 0;
}

/* Plaintext from the peer.  Returns false when the link is gone (handed
 * over or closed): stop touching it. */
static bool on_plain(struct link *l, const char *data, size_t len)
{
    drv_error_t error = {0};
    json_t *msg;
    int rc;

    if (l->tunnel) {
        if (stream_send((uv_stream_t *)&l->local, data, len) < 0) {
            link_close(l);
            return false;
        }
        return true;
    }
    if (proto_decoder_feed(l->dec, data, len) < 0) {
        hat_log(l->hat, "Raft connection with %s: out of memory", l->host);
        link_close(l);
        return false;
    }
    if (!(msg = proto_decoder_next(l->dec, &error))) {
        if (errno == EAGAIN)
            return true;
        hat_log(l->hat, "Raft connection with %s refused: %s", l->host,
                error.text);
        link_close(l);
        return false;
    }
    rc = l->outgoing ? on_welcome(l, msg, &error) : on_hello(l, msg, &error);
    json_decref(msg);
    if (rc == 0 && proto_decoder_buffered(l->dec)) {
        errprintf(&error, "bytes after the %s",
                  l->outgoing ? "welcome" : "hello");
        rc = -1;
    }
    if (rc < 0) {
        hat_log(l->hat, "Raft connection %s %s refused: %s",
                l->outgoing ? "to" : "from", l->host, error.text);
        link_close(l);
        return false;
    }
    handover(l);
    /* Freed only from close callbacks: still readable here.  A tunnel
     * takes the rest of this read. */
    return l->tunnel && !l->closing;
}

static void tcp_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct link *l = s->data;
    drv_error_t error = {0};
    char plain[16384];
    ssize_t got;

    if (n < 0) {
        if (!l->tunnel && n != UV_EOF)
            hat_log(l->hat, "Raft connection with %s: %s", l->host,
                    uv_strerror((int)n));
        link_close(l);
        goto out;
    }
    if (!l->tls) {
        if (n > 0)
            on_plain(l, buf->base, (size_t)n);
        goto out;
    }
    if (proto_tls_feed(l->tls, buf->base, (size_t)n, &error) < 0) {
        tls_flush(l); /* the alert, if any */
        hat_log(l->hat, "Raft connection with %s: %s", l->host,
                error.text);
        link_close(l);
        goto out;
    }
    if (tls_flush(l) < 0) {
        link_close(l);
        goto out;
    }
    while ((got = proto_tls_read(l->tls, plain, sizeof(plain), &error))
           > 0)
        if (!on_plain(l, plain, (size_t)got))
            goto out;
    if (got < 0)
        link_close(l);
out:
    free(buf->base);
}

/* --- a link's life -------------------------------------------------------- */

/* Tell libraft the transport is closed once nothing of it is open. */
static void maybe_closed(struct hat *h)
{
    raft_uv_transport_close_cb cb = h->close_cb;

    if (!h->closing || h->live || h->listening || !cb)
        return;
    h->close_cb = NULL;
    cb(h->t);
}

static void link_free(struct link *l)
{
    struct hat *h = l->hat;

    proto_decoder_destroy(l->dec);
    proto_tls_destroy(l->tls);
    free(l);
    h->live--;
    maybe_closed(h);
}

static void handle_closed(uv_handle_t *handle)
{
    struct link *l = handle->data;

    if ((uv_handle_t *)l->tcp == handle) {
        raft_free(l->tcp);
        l->tcp = NULL;
    }
    if (--l->open == 0)
        link_free(l);
}

/* Close what the link still owns; an outgoing link whose request is
 * still waiting answers it first. */
static void link_close(struct link *l)
{
    if (l->closing)
        return;
    l->closing = true;
    unlink_link(l);
    if (l->req) {
        struct raft_uv_connect *req = l->req;

        l->req = NULL;
        req->cb(req, NULL,
                l->hat->closing ? RAFT_CANCELED : RAFT_NOCONNECTION);
    }
    if (l->tcp) {
        l->tcp->data = l;
        uv_close((uv_handle_t *)l->tcp, handle_closed);
    }
    if (l->tunnel)
        uv_close((uv_handle_t *)&l->local, handle_closed);
    uv_close((uv_handle_t *)&l->timer, handle_closed);
}

static void timed_out(uv_timer_t *timer)
{
    struct link *l = timer->data;

    hat_log(l->hat, "Raft connection %s %s: no %s within MessageTimeout",
            l->outgoing ? "to" : "from", l->host,
            l->outgoing ? "welcome" : "hello");
    link_close(l);
}

/* A new link around the TCP handle 'tcp' (initialised; raft_malloc'd). */
static struct link *link_new(struct hat *h, uv_tcp_t *tcp, bool outgoing)
{
    struct link *l = xzalloc(sizeof(*l));
    uint32_t timeout_s = h->ctld->conf->msg_timeout_s;

    h->live++;
    l->hat = h;
    l->tcp = tcp;
    l->outgoing = outgoing;
    tcp->data = l;
    l->open = 2; /* tcp, timer */
    uv_timer_init(hat_loop(h), &l->timer);
    l->timer.data = l;
    uv_timer_start(&l->timer, timed_out,
                   (uint64_t)(timeout_s ? timeout_s : 10) * 1000, 0);
    if (!(l->dec = proto_decoder_create())) {
        log_fatal("ha: out of memory");
    }
    proto_decoder_set_max(l->dec, HA_TRANSPORT_HELLO_MAX);
    l->next = h->links;
    if (h->links)
        h->links->prev = l;
    h->links = l;
    return l;
}

/* Start TLS (when on) and reading. */
static int link_start(struct link *l, const char *peer, drv_error_t *error)
{
    struct hat *h = l->hat;
    proto_tls_ctx_t *ctx = l->outgoing ? h->client_tls : h->server_tls;

    if (ctx) {
        if (!(l->tls = proto_tls_create(ctx, peer, error)))
            return -1;
        if (tls_flush(l) < 0) {
            errprintf(error, "cannot send");
            return -1;
        }
    }
    if (uv_read_start((uv_stream_t *)l->tcp, read_alloc, tcp_read) < 0) {
        errprintf(error, "cannot read");
        return -1;
    }
    return 0;
}

/* --- incoming ------------------------------------------------------------- */

static void on_connection(uv_stream_t *server, int status)
{
    struct hat *h = server->data;
    drv_error_t error = {0};
    struct sockaddr_storage ss;
    int sslen = sizeof(ss);
    uv_tcp_t *tcp;
    struct link *l;

    if (status < 0 || h->closing || !(tcp = raft_malloc(sizeof(*tcp))))
        return;
    uv_tcp_init(hat_loop(h), tcp);
    if (uv_accept(server, (uv_stream_t *)tcp) < 0) {
        uv_close((uv_handle_t *)tcp, free_raft_handle);
        return;
    }
    l = link_new(h, tcp, false);
    snprintf(l->host, sizeof(l->host), "?");
    if (uv_tcp_getpeername(tcp, (struct sockaddr *)&ss, &sslen) == 0)
        getnameinfo((struct sockaddr *)&ss, (socklen_t)sslen, l->host,
                    sizeof(l->host), NULL, 0, NI_NUMERICHOST);
    if (h->pending_in >= HA_TRANSPORT_PENDING_MAX) {
        hat_log(h, "Raft connection from %s refused: %d others are still "
                "in their handshake", l->host, HA_TRANSPORT_PENDING_MAX);
        link_close(l);
        return;
    }
    l->pending_in = true;
    h->pending_in++;
    if (link_start(l, NULL, &error) < 0) {
        hat_log(h, "Raft connection from %s: %s", l->host, error.text);
        link_close(l);
    }
}

/* --- outgoing ------------------------------------------------------------- */

static void on_connected(uv_connect_t *req, int status)
{
    struct link *l = req->data;
    drv_error_t error = {0};

    if (l->closing)
        return;
    if (status < 0) {
        /* A controller that is down: libraft tries again; no log. */
        log_debug("ha: Raft connection to %s: %s", l->host,
                  uv_strerror(status));
        link_close(l);
        return;
    }
    if (link_start(l, l->host, &error) < 0 || send_hello(l, &error) < 0) {
        hat_log(l->hat, "Raft connection to %s: %s", l->host, error.text);
        link_close(l);
    }
}

/* Split "HOST:PORT" (the last ':') and resolve it (numeric addresses at
 * once; a name through the resolver, blocking). */
static int resolve(const char *address, char *host, size_t cap,
                   struct sockaddr_storage *ss, drv_error_t *error)
{
    const char *colon = strrchr(address, ':');
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res;
    int rc;

    if (!colon || (size_t)(colon - address) >= cap) {
        errprintf(error, "%s: not HOST:PORT", address);
        return -1;
    }
    memcpy(host, address, (size_t)(colon - address));
    host[colon - address] = '\0';
    if ((rc = getaddrinfo(host, colon + 1, &hints, &res)) != 0) {
        errprintf(error, "%s: %s", address, gai_strerror(rc));
        return -1;
    }
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return 0;
}

static int hat_connect(struct raft_uv_transport *t,
                       struct raft_uv_connect *req, raft_id id,
                       const char *address, raft_uv_connect_cb cb)
{
    struct hat *h = t->impl;
    drv_error_t error = {0};
    struct sockaddr_storage ss;
    char host[300];
    uv_tcp_t *tcp;
    struct link *l;

    if (h->closing)
        return RAFT_CANCELED;
    if (resolve(address, host, sizeof(host), &ss, &error) < 0) {
        hat_log(h, "Raft connection to %s: %s", address, error.text);
        return RAFT_NOCONNECTION;
    }
    if (!(tcp = raft_malloc(sizeof(*tcp))))
        return RAFT_NOMEM;
    uv_tcp_init(hat_loop(h), tcp);
    l = link_new(h, tcp, true);
    req->cb = cb;
    l->req = req;
    l->peer = id;
    snprintf(l->host, sizeof(l->host), "%s", host);
    l->connect.data = l;
    if (uv_tcp_connect(&l->connect, tcp, (struct sockaddr *)&ss,
                       on_connected) < 0) {
        l->req = NULL; /* refused now: libraft takes the error */
        link_close(l);
        return RAFT_NOCONNECTION;
    }
    return 0;
}

/* --- the transport's other calls ----------------------------------------- */

static int hat_init(struct raft_uv_transport *t, raft_id id,
                    const char *address)
{
    struct hat *h = t->impl;

    (void)address; /* ours is the configured one */
    h->self = id;
    return 0;
}

static int hat_listen(struct raft_uv_transport *t, raft_uv_accept_cb cb)
{
    struct hat *h = t->impl;
    drv_error_t error = {0};
    struct sockaddr_storage ss;
    char address[320], host[300];
    int rc;

    id_address(h, h->self, address, sizeof(address));
    if (resolve(address, host, sizeof(host), &ss, &error) < 0) {
        snprintf(t->errmsg, sizeof(t->errmsg), "%s", error.text);
        return RAFT_IOERR;
    }
    uv_tcp_init(hat_loop(h), &h->listener);
    h->listener.data = h;
    h->listening = true;
    h->accept_cb = cb;
    if ((rc = uv_tcp_bind(&h->listener, (struct sockaddr *)&ss, 0)) < 0
        || (rc = uv_listen((uv_stream_t *)&h->listener, 128, on_connection))
               < 0) {
        snprintf(t->errmsg, sizeof(t->errmsg), "listen on %.200s: %s", address,
                 uv_strerror(rc));
        return RAFT_IOERR;
    }
    return 0;
}

static void listener_closed(uv_handle_t *handle)
{
    struct hat *h = handle->data;

    h->listening = false;
    maybe_closed(h);
}

static void hat_close(struct raft_uv_transport *t,
                      raft_uv_transport_close_cb cb)
{
    struct hat *h = t->impl;

    h->closing = true;
    h->close_cb = cb;
    while (h->links)
        link_close(h->links); /* unlinks it */
    if (h->listening)
        uv_close((uv_handle_t *)&h->listener, listener_closed);
    else
        maybe_closed(h);
}

int ha_transport_init(struct raft_uv_transport *t, struct ctld *ctld,
                      drv_error_t *error)
{
    const struct conf_tls *tls = &ctld->conf->tls;
    struct hat *h = xzalloc(sizeof(*h));

    h->t = t;
    h->ctld = ctld;
    if (tls->rpc
        && (!(h->server_tls = proto_tls_server_ctx(tls->cert, tls->key,
                                                   error))
            || !(h->client_tls = proto_tls_client_ctx(tls->ca, error)))) {
        proto_tls_ctx_destroy(h->server_tls);
        free(h);
        return -1;
    }
    t->impl = h;
    t->init = hat_init;
    t->listen = hat_listen;
    t->connect = hat_connect;
    t->close = hat_close;
    return 0;
}

void ha_transport_free(struct raft_uv_transport *t)
{
    struct hat *h = t->impl;

    if (!h)
        return;
    proto_tls_ctx_destroy(h->server_tls);
    proto_tls_ctx_destroy(h->client_tls);
    free(h);
    t->impl = NULL;
}
