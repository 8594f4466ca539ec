/* SPDX-License-Identifier: Apache-2.0
 *
 * client_async.c - one RPC on its own connection, driven by a libuv loop
 *
 * A call owns a timer (the overall timeout, and the way failures found
 * before proto_call_async returns are reported later), its place in the
 * queue of calls waiting for a credential (minted on the thread pool:
 * mint_kick()), at most one outstanding uv_getaddrinfo, and one TCP
 * handle per connect attempt.  'pending' counts those; the call is freed
 * once it is finished and pending drops to zero, i.e. after every libuv
 * callback that can still mention it.
 * With TLS (proto_tls_client_use) an attempt owns a TLS engine (tls.h)
 * from its connect on: the frame goes through it, and so does every byte
 * read; its records are written as the engine makes them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <uv.h>

#include "proto/client.h"
#include "proto/frame.h"
#include "proto/msg_private.h"
#include "proto/tls.h"

struct call;

struct attempt {
    uv_tcp_t tcp;
    uv_connect_t connect;
    uv_write_t write;
    struct call *call;
    proto_tls_t *tls; /* NULL: plain */
    bool closing;
};

/* One write of TLS records (their buffer is freed with it). */
struct tls_write {
    uv_write_t req;
    struct attempt *a;
    char *buf;
};

struct call {
    uv_loop_t *loop;
    uv_timer_t timer;
    uv_getaddrinfo_t gai;
    bool gai_pending;
    struct addrinfo *ai_list; /* from uv_getaddrinfo */
    struct addrinfo *ai_next; /* next address to try */
    struct sockaddr_storage numeric;
    struct attempt *att;      /* the live attempt, or NULL */
    bool connected;
    int pending;
    bool finished;
    int last_errnum;          /* of the latest failed connect attempt */
    char *frame;
    size_t frame_len;
    proto_decoder_t *dec;
    char *type;
    int timeout_ms;
    int deferred_errnum;      /* failure to report from the timer */
    drv_error_t deferred;
    proto_call_f cb;
    void *arg;
    char peer[300];
    char *host;               /* as given: the name TLS checks */
    uint16_t port;
    struct call *prev, *next; /* calls under way (live_calls) */
    /* Its credential, minted on the thread pool (mint_kick()): */
    uv_work_t work;
    proto_auth_t *auth;       /* a clone of the caller's, for the worker */
    char *text;               /* the body as sent */
    size_t text_len;
    int mint_rc, mint_errnum;
    struct call *mint_next;   /* the calls waiting for theirs */
};

/* Every call not yet freed, for proto_call_cancel_all(); calls run on
 * their loop's thread, one loop per daemon. */
static struct call *live_calls;
static size_t live_count;
static proto_call_timed_f timed; /* proto_call_set_timed() */
static void *timed_arg;

void proto_call_set_timed(proto_call_timed_f fn, void *arg)
{
    timed = fn;
    timed_arg = arg;
}

size_t proto_call_count(void)
{
    return live_count;
}

static void live_add(struct call *call)
{
    live_count++;
    call->next = live_calls;
    if (live_calls)
        live_calls->prev = call;
    live_calls = call;
}

static void live_remove(struct call *call)
{
    live_count--;
    if (call->prev)
        call->prev->next = call->next;
    else if (live_calls == call)
        live_calls = call->next;
    if (call->next)
        call->next->prev = call->prev;
}

static void try_next(struct call *call);
static void on_timer(uv_timer_t *timer);

static void call_maybe_free(struct call *call)
{
    if (!call->finished || call->pending > 0)
        return;
    live_remove(call);
    free(call->text);
    proto_auth_destroy(call->auth);
    if (call->ai_list)
        uv_freeaddrinfo(call->ai_list);
    proto_decoder_destroy(call->dec);
    free(call->frame);
    free(call->type);
    free(call->host);
    free(call);
}

static void on_attempt_close(uv_handle_t *h)
{
    struct attempt *a = h->data;
    struct call *call = a->call;

    proto_tls_destroy(a->tls);
    free(a);
    call->pending--;
    call_maybe_free(call);
}

static void attempt_close(struct call *call)
{
    struct attempt *a = call->att;

    if (a && !a->closing) {
        a->closing = true;
        uv_close((uv_handle_t *)&a->tcp, on_attempt_close);
    }
    call->att = NULL;
}

static void on_timer_close(uv_handle_t *h)
{
    struct call *call = h->data;

    call->pending--;
    call_maybe_free(call);
}

/* Report the outcome once and tear the call down. */
static void finish(struct call *call, int errnum, const char *errstr,
                   json_t *body)
{
    if (call->finished)
        return;
    call->finished = true;
    uint64_t began = uv_hrtime();
    call->cb(errnum, errstr ? errstr : "", errnum ? NULL : body, call->arg);
    if (timed) {
        char what[48];
        snprintf(what, sizeof(what), "answer to %s", call->type);
        timed(what, began, timed_arg);
    }
    attempt_close(call);
    if (call->gai_pending)
        uv_cancel((uv_req_t *)&call->gai); /* on_resolved still runs */
    uv_close((uv_handle_t *)&call->timer, on_timer_close);
}

static void fail(struct call *call, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail(struct call *call, int errnum, const char *fmt, ...)
{
    char text[sizeof(((drv_error_t *)0)->text)];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    finish(call, errnum, text, NULL);
}

/* For failures found before proto_call_async returns: cb must not run from
 * inside it, so the timer reports them on the next loop iteration.
 */
static void fail_later(struct call *call, int errnum)
{
    call->deferred_errnum = errnum;
    uv_timer_stop(&call->timer);
    uv_timer_start(&call->timer, on_timer, 0, 0);
}

static void on_timer(uv_timer_t *timer)
{
    struct call *call = timer->data;

    if (call->deferred_errnum) {
        finish(call, call->deferred_errnum, call->deferred.text, NULL);
        return;
    }
    if (!call->connected)
        fail(call, ETIMEDOUT, "Unable to contact %s: %s", call->peer,
             strerror(ETIMEDOUT));
    else
        fail(call, ETIMEDOUT, "%s: no answer to '%s' within %d ms", call->peer,
             call->type, call->timeout_ms);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    buf->base = malloc(suggested);
    buf->len = buf->base ? suggested : 0;
}

static void on_tls_write(uv_write_t *req, int status)
{
    struct tls_write *w = req->data;
    struct call *call = w->a->call;

    if (status < 0 && !call->finished && !w->a->closing)
        fail(call, -status, "%s: sending '%s': %s", call->peer, call->type,
             strerror(-status));
    free(w->buf);
    free(w);
}

/* Write what the TLS engine has for the server.  Returns 0, or -1 with
 * the call failed. */
static int tls_flush(struct attempt *a)
{
    struct call *call = a->call;
    struct tls_write *w;
    char *buf;
    ssize_t n;
    int rc;

    while ((n = proto_tls_output(a->tls, &buf)) > 0) {
        if (!(w = malloc(sizeof(*w)))) {
            free(buf);
            break;
        }
        w->a = a;
        w->buf = buf;
        w->req.data = w;
        uv_buf_t b = uv_buf_init(buf, (unsigned)n);
        if ((rc = uv_write(&w->req, (uv_stream_t *)&a->tcp, &b, 1,
                           on_tls_write)) < 0) {
            free(buf);
            free(w);
            fail(call, -rc, "%s: %s", call->peer, strerror(-rc));
            return -1;
        }
    }
    if (n != 0) {
        fail(call, ENOMEM, "out of memory");
        return -1;
    }
    return 0;
}

/* Ciphertext from the server: decrypted into the decoder.  Returns 0, or
 * -1 with the call failed. */
static int tls_in(struct attempt *a, const char *buf, size_t len)
{
    struct call *call = a->call;
    drv_error_t error = { { 0 } };
    char plain[16384];
    ssize_t n;

    if (proto_tls_feed(a->tls, buf, len, &error) < 0) {
        fail(call, errno, "%s: %s%s", call->peer, error.text,
             proto_tls_established(a->tls)
                 ? "" : proto_tls_hint_plain((unsigned char)buf[0]));
        return -1;
    }
    while ((n = proto_tls_read(a->tls, plain, sizeof(plain), &error)) > 0)
        if (proto_decoder_feed(call->dec, plain, (size_t)n) < 0) {
            fail(call, ENOMEM, "out of memory");
            return -1;
        }
    if (n < 0) {
        fail(call, errno, "%s: %s", call->peer, error.text);
        return -1;
    }
    return tls_flush(a);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    struct attempt *a = stream->data;
    struct call *call = a->call;
    drv_error_t error = { { 0 } };
    json_t *msg, *body;
    bool server_error;

    if (nread > 0 && !call->finished && a->tls) {
        if (tls_in(a, buf->base, (size_t)nread) < 0) {
            free(buf->base);
            return;
        }
    }
    else if (nread > 0 && !call->finished) {
        if (proto_decoder_feed(call->dec, buf->base, (size_t)nread) < 0) {
            free(buf->base);
            fail(call, ENOMEM, "out of memory");
            return;
        }
    }
    free(buf->base);
    if (call->finished || nread == 0)
        return;
    if (nread < 0) {
        if (nread == UV_EOF)
            fail(call, ECONNRESET,
                 "%s closed the connection before answering '%s'", call->peer,
                 call->type);
        else if (nread == UV_ENOBUFS)
            fail(call, ENOMEM, "out of memory");
        else
            fail(call, (int)-nread, "%s: %s", call->peer,
                 strerror((int)-nread));
        return;
    }
    if (!(msg = proto_decoder_next(call->dec, &error))) {
        if (errno == EPROTO)
            fail(call, EDRV_PROTOCOL_MALFORMED, "%s: invalid response: %s",
                 call->peer, error.text);
        else if (errno != EAGAIN)
            fail(call, errno, "out of memory");
        return;
    }
    if (proto__response_parse(msg, call->type, call->peer, &body,
                              &server_error, &error)
        < 0)
        finish(call, errno, error.text, NULL);
    else
        finish(call, 0, NULL, body);
    json_decref(msg);
}

static void on_write(uv_write_t *req, int status)
{
    struct attempt *a = req->data;
    struct call *call = a->call;

    if (status < 0 && !call->finished && !a->closing)
        fail(call, -status, "%s: sending '%s': %s", call->peer, call->type,
             strerror(-status));
}

static void on_connect(uv_connect_t *req, int status)
{
    struct attempt *a = req->data;
    struct call *call = a->call;
    uv_buf_t b;
    int rc;

    if (call->finished || a->closing)
        return;
    if (status < 0) {
        call->last_errnum = -status;
        attempt_close(call);
        try_next(call);
        return;
    }
    uint64_t began = uv_hrtime();

    call->connected = true;
    uv_tcp_nodelay(&a->tcp, 1);
    if (proto_tls_client_ctx_get()) {
        drv_error_t error = { { 0 } };

        if (!(a->tls = proto_tls_create(proto_tls_client_ctx_get(),
                                        call->host, &error))
            || proto_tls_write(a->tls, call->frame, call->frame_len, &error)
                   < 0) {
            fail(call, errno, "%s: %s", call->peer, error.text);
            return;
        }
        if (tls_flush(a) < 0)
            return;
        if ((rc = uv_read_start((uv_stream_t *)&a->tcp, on_alloc, on_read))
            < 0)
            fail(call, -rc, "%s: %s", call->peer, strerror(-rc));
        return;
    }
    b = uv_buf_init(call->frame, (unsigned)call->frame_len);
    a->write.data = a;
    if ((rc = uv_write(&a->write, (uv_stream_t *)&a->tcp, &b, 1, on_write))
            < 0
        || (rc = uv_read_start((uv_stream_t *)&a->tcp, on_alloc, on_read))
               < 0)
        fail(call, -rc, "%s: %s", call->peer, strerror(-rc));
    else if (timed)
        timed("calls' sends", began, timed_arg);
}

/* Start connecting to 'sa'.  Returns 0, or a negative libuv status. */
static int attempt_start(struct call *call, const struct sockaddr *sa)
{
    struct attempt *a;
    int rc;

    if (!(a = calloc(1, sizeof(*a))))
        return UV_ENOMEM;
    a->call = call;
    if ((rc = uv_tcp_init(call->loop, &a->tcp)) < 0) {
        free(a);
        return rc;
    }
    a->tcp.data = a;
    a->connect.data = a;
    call->pending++;
    call->att = a;
    if ((rc = uv_tcp_connect(&a->connect, &a->tcp, sa, on_connect)) < 0) {
        attempt_close(call);
        return rc;
    }
    return 0;
}

/* Try the remaining resolved addresses; give up when none is left. */
static void try_next(struct call *call)
{
    while (call->ai_next) {
        struct addrinfo *ai = call->ai_next;
        int rc;

        call->ai_next = ai->ai_next;
        if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
            continue;
        if ((rc = attempt_start(call, ai->ai_addr)) == 0)
            return;
        call->last_errnum = -rc;
    }
    fail(call, call->last_errnum ? call->last_errnum : EHOSTUNREACH,
         "Unable to contact %s: %s", call->peer,
         strerror(call->last_errnum ? call->last_errnum : EHOSTUNREACH));
}

static void on_resolved(uv_getaddrinfo_t *req, int status,
                        struct addrinfo *res)
{
    struct call *call = req->data;

    call->gai_pending = false;
    call->pending--;
    if (call->finished) {
        if (res)
            uv_freeaddrinfo(res);
        call_maybe_free(call);
        return;
    }
    if (status < 0) {
        fail(call, status == UV_ENOMEM ? ENOMEM : EHOSTUNREACH,
             "Unable to contact %s: %s", call->peer, uv_strerror(status));
        return;
    }
    call->ai_list = call->ai_next = res;
    try_next(call);
}

/* Connect to the call's peer (its frame is ready). */
static void call_connect(struct call *call)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC,
                              .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_NUMERICSERV };
    struct sockaddr_in *sin = (struct sockaddr_in *)&call->numeric;
    struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&call->numeric;
    char portstr[8];
    int rc;

    if (inet_pton(AF_INET, call->host, &sin->sin_addr) == 1) {
        sin->sin_family = AF_INET;
        sin->sin_port = htons(call->port);
    }
    else if (inet_pton(AF_INET6, call->host, &sin6->sin6_addr) == 1) {
        sin6->sin6_family = AF_INET6;
        sin6->sin6_port = htons(call->port);
    }
    if (call->numeric.ss_family != 0) {
        /* connect's outcome always arrives through on_connect, later */
        if ((rc = attempt_start(call, (struct sockaddr *)&call->numeric)) < 0)
            fail(call, -rc, "Unable to contact %s: %s", call->peer,
                 strerror(-rc));
        return;
    }
    snprintf(portstr, sizeof(portstr), "%u", (unsigned)call->port);
    call->gai.data = call;
    if ((rc = uv_getaddrinfo(call->loop, &call->gai, on_resolved, call->host,
                             portstr, &hints))
        < 0) {
        fail(call, rc == UV_ENOMEM ? ENOMEM : EHOSTUNREACH,
             "Unable to contact %s: %s", call->peer, uv_strerror(rc));
        return;
    }
    call->gai_pending = true;
    call->pending++;
}

/* Credentials are minted on libuv's thread pool, one call at a time in
 * the order the calls were made, so the connects start in that order as
 * when they were minted on the loop: munged's round trip (about 200 us
 * on a loaded two-core machine) was 50-75% of the controller's
 * scheduling passes in a launch storm, the loop waiting on it
 * (bench/README.md).  One loop per daemon (live_calls). */
static struct call *mint_head, *mint_tail;
static size_t mint_count; /* calls in the queue */
static bool minting;

size_t proto_call_minting(void)
{
    return mint_count;
}

static void mint_work(uv_work_t *w)
{
    struct call *call = w->data;

    call->mint_rc = proto__request_frame_text(call->auth, call->type,
                                              call->text, call->text_len,
                                              &call->frame, &call->frame_len,
                                              &call->deferred);
    call->mint_errnum = call->mint_rc < 0 ? errno : 0;
}

static void mint_done(uv_work_t *w, int status);

/* Start minting the first waiting call's credential, if none is under
 * way; calls finished meanwhile (timed out, cancelled) are dropped. */
static void mint_kick(void)
{
    while (mint_head && !minting) {
        struct call *call = mint_head;

        if (call->finished) {
            if (!(mint_head = call->mint_next))
                mint_tail = NULL;
            mint_count--;
            call->pending--;
            call_maybe_free(call);
            continue;
        }
        minting = true;
        call->work.data = call;
        if (uv_queue_work(call->loop, &call->work, mint_work, mint_done)
            < 0) { /* only without a callback: cannot happen */
            minting = false;
            if (!(mint_head = call->mint_next))
                mint_tail = NULL;
            mint_count--;
            call->pending--;
            errprintf(&call->deferred, "cannot queue the credential");
            fail_later(call, EDRV_ERROR);
        }
    }
}

static void mint_done(uv_work_t *w, int status)
{
    struct call *call = w->data;
    uint64_t began = uv_hrtime();

    if (!(mint_head = call->mint_next))
        mint_tail = NULL;
    mint_count--;
    minting = false;
    mint_kick();
    call->pending--;
    free(call->text);
    call->text = NULL;
    if (call->finished) {
        call_maybe_free(call);
    } else if (status < 0) {
        fail(call, ECANCELED, "%s: '%s' not sent: %s", call->peer,
             call->type, uv_strerror(status));
    } else if (call->mint_rc < 0) {
        finish(call, call->mint_errnum, call->deferred.text, NULL);
    } else {
        call_connect(call);
    }
    if (timed)
        timed("calls' connects", began, timed_arg);
}

/* proto_call_async() of 'body' (stolen), or with 'text' of 'text_len'
 * bytes (borrowed) proto_call_async_text(). */
static int call_start(uv_loop_t *loop, const char *host, uint16_t port,
                      proto_auth_t *auth, const char *type, json_t *body,
                      const char *text, size_t text_len, int timeout_ms,
                      proto_call_f cb, void *arg)
{
    struct call *call;

    if (!loop || !host || !auth || !type || !cb) {
        json_decref(body);
        errno = EINVAL;
        return -1;
    }
    if (!(call = calloc(1, sizeof(*call))) || !(call->type = strdup(type))
        || !(call->host = strdup(host))
        || !(call->dec = proto_decoder_create())
        || !(call->auth = proto_auth_clone(auth))) {
        if (call) {
            free(call->type);
            free(call->host);
            proto_decoder_destroy(call->dec);
        }
        free(call);
        json_decref(body);
        errno = ENOMEM;
        return -1;
    }
    proto__sigpipe_ignore();
    live_add(call);
    call->loop = loop;
    call->cb = cb;
    call->arg = arg;
    call->timeout_ms = timeout_ms;
    call->port = port;
    snprintf(call->peer, sizeof(call->peer), "%s:%u", host, (unsigned)port);
    uv_timer_init(loop, &call->timer); /* cannot fail for a valid loop */
    call->timer.data = call;
    call->pending++;
    if (timeout_ms > 0)
        uv_timer_start(&call->timer, on_timer, (uint64_t)timeout_ms, 0);

    if (text) {
        if ((call->text = malloc(text_len ? text_len : 1)))
            memcpy(call->text, text, text_len);
        else
            errprintf(&call->deferred, "out of memory");
        call->text_len = text_len;
    } else {
        call->text = proto__request_text(type, body, &call->text_len,
                                         &call->deferred);
    }
    if (!call->text) {
        fail_later(call, text ? ENOMEM : errno);
        return 0;
    }
    call->pending++; /* until mint_done() */
    if (mint_tail)
        mint_tail->mint_next = call;
    else
        mint_head = call;
    mint_tail = call;
    mint_count++;
    mint_kick();
    return 0;
}

int proto_call_async(uv_loop_t *loop, const char *host, uint16_t port,
                     proto_auth_t *auth, const char *type, json_t *body,
                     int timeout_ms, proto_call_f cb, void *arg)
{
    return call_start(loop, host, port, auth, type, body, NULL, 0,
                      timeout_ms, cb, arg);
}

int proto_call_async_text(uv_loop_t *loop, const char *host, uint16_t port,
                          proto_auth_t *auth, const char *type,
                          const char *text, size_t len, int timeout_ms,
                          proto_call_f cb, void *arg)
{
    if (!text) {
        errno = EINVAL;
        return -1;
    }
    return call_start(loop, host, port, auth, type, NULL, text, len,
                      timeout_ms, cb, arg);
}

void proto_call_cancel_all(void)
{
    for (struct call *c = live_calls, *next; c; c = next) {
        next = c->next;
        finish(c, ECANCELED, "the daemon is shutting down", NULL);
    }
}
