/* SPDX-License-Identifier: Apache-2.0
 *
 * step_attach.c - sattach's connections to a step (step_attach.h)
 *
 * The cache is a ring of encoded frames; a new attacher is sent a copy
 * of each.  Exits are kept apart (one per task, never dropped), so an
 * attacher always learns which tasks already ended.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/step_attach.h"
#include "noded/stepd.h"
#include "noded/stepd_link.h"
#include "proto/frame.h"

struct cached {
    char *data;
    size_t len;
};

struct attacher {
    struct step_attach *a;
    uv_tcp_t tcp;
    uv_connect_t connect_req;
    uv_shutdown_t shutdown_req;
    struct stepd_link link; /* frames, plain or TLS */
    bool closing;
    bool shutdown_wanted; /* the step ended; shut down once flushed */
    struct attacher *next;
};

struct step_attach {
    uv_loop_t *loop;
    proto_tls_ctx_t *tls; /* borrowed; NULL: plain */
    step_attach_input_f in;
    void *arg;
    struct cached ring[STEP_ATTACH_CACHE_FRAMES];
    size_t head, count, bytes; /* oldest at ring[head] */
    json_t *exits;             /* the exit frames so far */
    struct attacher *conns;
    int open;                  /* handles not yet closed */
    bool closing;
    uv_timer_t linger;
    bool lingering;            /* 'linger' runs */
    void (*done)(void *arg);
    void *done_arg;
};

struct step_attach *step_attach_create(uv_loop_t *loop, proto_tls_ctx_t *tls,
                                       step_attach_input_f in, void *arg)
{
    struct step_attach *a = xzalloc(sizeof(*a));

    a->loop = loop;
    a->tls = tls;
    a->in = in;
    a->arg = arg;
    a->exits = json_array();
    return a;
}

static void maybe_done(struct step_attach *a)
{
    if (a->closing && a->open == 0 && a->done) {
        void (*done)(void *) = a->done;

        a->done = NULL;
        done(a->done_arg);
    }
}

static void linger_closed(uv_handle_t *h);

static void conn_closed(uv_handle_t *h)
{
    struct attacher *c = h->data;
    struct step_attach *a = c->a;
    struct attacher **pp = &a->conns;

    while (*pp && *pp != c)
        pp = &(*pp)->next;
    if (*pp)
        *pp = c->next;
    stepd_link_clear(&c->link);
    free(c);
    a->open--;
    if (a->lingering && !a->conns) {
        a->lingering = false;
        uv_close((uv_handle_t *)&a->linger, linger_closed);
    }
    maybe_done(a);
}

static void drop(struct attacher *c)
{
    if (uv_is_closing((uv_handle_t *)&c->tcp))
        return;
    c->closing = true;
    uv_close((uv_handle_t *)&c->tcp, conn_closed);
}

static void write_to(struct attacher *c, const char *data, size_t len)
{
    if (c->closing)
        return;
    if (stepd_link_queued(&c->link) > STEP_ATTACH_QUEUE_MAX) {
        log_info("an attached sattach fell %d bytes behind: dropped",
                 STEP_ATTACH_QUEUE_MAX);
        drop(c);
        return;
    }
    if (stepd_link_write(&c->link, data, len) < 0)
        drop(c);
}

static void write_msg(struct attacher *c, json_t *msg)
{
    char *data;
    size_t len;

    if (proto_frame_encode(msg, &data, &len) == 0) {
        write_to(c, data, len);
        free(data);
    }
}

static void cache_drop_oldest(struct step_attach *a)
{
    struct cached *old = &a->ring[a->head];

    a->bytes -= old->len;
    free(old->data);
    *old = (struct cached){0};
    a->head = (a->head + 1) % STEP_ATTACH_CACHE_FRAMES;
    a->count--;
}

static void cache_add(struct step_attach *a, char *data, size_t len)
{
    while (a->count > 0
           && (a->count == STEP_ATTACH_CACHE_FRAMES
               || a->bytes + len > STEP_ATTACH_CACHE_BYTES))
        cache_drop_oldest(a);
    if (len > STEP_ATTACH_CACHE_BYTES) { /* never kept */
        free(data);
        return;
    }
    a->ring[(a->head + a->count) % STEP_ATTACH_CACHE_FRAMES] =
        (struct cached){data, len};
    a->count++;
    a->bytes += len;
}

void step_attach_frame(struct step_attach *a, json_t *msg)
{
    char *data;
    size_t len;

    if (proto_frame_encode(msg, &data, &len) < 0)
        return;
    for (struct attacher *c = a->conns; c; c = c->next)
        write_to(c, data, len);
    if (json_object_get(msg, "exit")) {
        json_array_append(a->exits, msg);
        free(data);
    } else {
        cache_add(a, data, len);
    }
}

static void attacher_shutdown(struct attacher *c);

static void read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct attacher *c = s->data;
    drv_error_t error = {{0}};
    json_t *m;

    if (n > 0 && stepd_link_feed(&c->link, buf->base, (size_t)n, &error) < 0) {
        log_info("I/O connection to sattach: %s", error.text);
        n = UV_EPROTO;
    }
    if (n > 0) {
        while ((m = proto_decoder_next(c->link.dec, NULL))) {
            if (!c->a->closing)
                c->a->in(m, c->a->arg);
            json_decref(m);
        }
        if (c->shutdown_wanted) /* the TLS handshake may have ended */
            attacher_shutdown(c);
    } else if (n != 0) { /* gone, or not speaking frames */
        uv_read_stop(s);
        drop(c);
    }
    free(buf->base);
}

static void connect_cb(uv_connect_t *req, int status)
{
    struct attacher *c = req->data;

    if (status < 0) {
        if (status != UV_ECANCELED)
            log_info("connecting to sattach: %s", uv_strerror(status));
        drop(c);
        return;
    }
    uv_read_start((uv_stream_t *)&c->tcp, stepd_alloc_cb, read_cb);
}

int step_attach_add(struct step_attach *a, const char *host, int port,
                    json_t *hello, drv_error_t *error)
{
    struct sockaddr_storage sa;
    struct attacher *c;
    size_t i;
    json_t *e;
    int rc;

    int n = 0;

    for (c = a->conns; c; c = c->next)
        n++;
    if (n >= STEP_ATTACH_MAX) {
        json_decref(hello);
        errno = EAGAIN;
        return errprintf(error, "%d sattach attached to this step already",
                         n);
    }
    if (a->closing || port <= 0 || port > 65535 || !host
        || (uv_ip4_addr(host, port, (struct sockaddr_in *)&sa) < 0
            && uv_ip6_addr(host, port, (struct sockaddr_in6 *)&sa) < 0)) {
        json_decref(hello);
        errno = EINVAL;
        return errprintf(error, "step_attach: bad address %s:%d",
                         host ? host : "(none)", port);
    }
    c = xzalloc(sizeof(*c));
    c->a = a;
    uv_tcp_init(a->loop, &c->tcp);
    c->tcp.data = c;
    c->connect_req.data = c;
    c->next = a->conns;
    a->conns = c;
    a->open++;
    if (stepd_link_init(&c->link, (uv_stream_t *)&c->tcp, a->tls, error)
        < 0) {
        int saved = errno;

        json_decref(hello);
        drop(c);
        errno = saved;
        return -1;
    }
    rc = uv_tcp_connect(&c->connect_req, &c->tcp, (struct sockaddr *)&sa,
                        connect_cb);
    if (rc < 0) {
        json_decref(hello);
        drop(c);
        errno = -rc;
        return errprintf(error, "connecting to sattach: %s",
                         uv_strerror(rc));
    }
    /* queued until the connection is up (libuv writes after connect) */
    write_msg(c, hello);
    json_decref(hello);
    for (size_t k = 0; k < a->count; k++) {
        const struct cached *f = &a->ring[(a->head + k)
                                          % STEP_ATTACH_CACHE_FRAMES];
        write_to(c, f->data, f->len);
    }
    json_array_foreach(a->exits, i, e) write_msg(c, e);
    return 0;
}

static void shutdown_cb(uv_shutdown_t *req, int status)
{
    (void)status;
    drop(req->data);
}

/* The step ended: once every frame is on the stream (with TLS, after
 * the handshake: read_cb() calls again), the attacher's end.  Once. */
static void attacher_shutdown(struct attacher *c)
{
    if (c->closing || !stepd_link_flushed(&c->link))
        return;
    c->shutdown_wanted = false;
    c->shutdown_req.data = c;
    if (uv_shutdown(&c->shutdown_req, (uv_stream_t *)&c->tcp, shutdown_cb)
        < 0)
        drop(c);
}

static void linger_closed(uv_handle_t *h)
{
    struct step_attach *a = h->data;

    a->open--;
    maybe_done(a);
}

static void linger_cb(uv_timer_t *t)
{
    struct step_attach *a = t->data;

    a->lingering = false;
    uv_close((uv_handle_t *)t, linger_closed);
    for (struct attacher *c = a->conns; c; c = c->next)
        drop(c);
}

void step_attach_close(struct step_attach *a, void (*done)(void *arg),
                       void *arg)
{
    a->closing = true;
    a->done = done;
    a->done_arg = arg;
    if (a->conns) {
        uv_timer_init(a->loop, &a->linger);
        a->linger.data = a;
        a->open++;
        a->lingering = true;
        uv_timer_start(&a->linger, linger_cb, STEP_ATTACH_LINGER_MS, 0);
    }
    for (struct attacher *c = a->conns; c; c = c->next) {
        c->shutdown_wanted = true;
        attacher_shutdown(c);
    }
    maybe_done(a);
}

void step_attach_destroy(struct step_attach *a)
{
    if (!a)
        return;
    while (a->count > 0)
        cache_drop_oldest(a);
    json_decref(a->exits);
    free(a);
}
