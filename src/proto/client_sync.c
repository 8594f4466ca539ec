/* SPDX-License-Identifier: Apache-2.0
 *
 * client_sync.c - blocking RPC client for the user commands
 *
 * A non-blocking socket driven by poll() against one monotonic deadline per
 * call, so a dead or wedged daemon costs the command at most its timeout.
 * After any I/O or framing failure the connection is out of step with the
 * server and is never reused.  With TLS (proto_tls_client_use) the
 * handshake is part of connecting, and every byte passes the engine
 * (tls.h) on its way to and from the socket.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "proto/client.h"
#include "proto/frame.h"
#include "proto/msg.h"
#include "proto/msg_private.h"
#include "proto/tls.h"

#define RECV_CHUNK 65536

struct proto_client {
    int fd;
    int timeout_ms;
    bool broken;
    proto_decoder_t *dec;
    proto_tls_t *tls; /* NULL: plain */
    int first_byte;   /* the server's first byte, -1 before it */
    char peer[300]; /* "host:port" for messages */
};

static int send_all(proto_client_t *c, const char *buf, size_t len,
                    int64_t deadline);
static int tls_handshake(proto_client_t *c, const char *host,
                         int64_t deadline, drv_error_t *error);

/* Deadline in ms on CLOCK_MONOTONIC; -1 = none. */
static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t deadline_after(int timeout_ms)
{
    return timeout_ms > 0 ? now_ms() + timeout_ms : -1;
}

/* Milliseconds left for poll(): -1 forever, 0 when already past. */
static int remaining(int64_t deadline)
{
    int64_t left;

    if (deadline < 0)
        return -1;
    left = deadline - now_ms();
    return left < 0 ? 0 : (int)left;
}

/* Wait for 'events' on fd.  Returns 0, or -1 with errno ETIMEDOUT/other. */
static int wait_fd(int fd, short events, int64_t deadline)
{
    struct pollfd pfd = { .fd = fd, .events = events };
    int rc;

    do {
        rc = poll(&pfd, 1, remaining(deadline));
    } while (rc < 0 && errno == EINTR);
    if (rc == 0) {
        errno = ETIMEDOUT;
        return -1;
    }
    return rc < 0 ? -1 : 0;
}

/* One connect attempt.  Returns an fd or -1 with errno. */
static int connect_one(const struct addrinfo *ai, int64_t deadline)
{
    int fd, err = 0;
    socklen_t len = sizeof(err);

    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                ai->ai_protocol);
    if (fd < 0)
        return -1;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        if (errno != EINPROGRESS)
            goto error;
        if (wait_fd(fd, POLLOUT, deadline) < 0)
            goto error;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
            goto error;
        if (err != 0) {
            errno = err;
            goto error;
        }
    }
    return fd;
error:
    err = errno;
    close(fd);
    errno = err;
    return -1;
}

static proto_client_t *connect_deadline(const char *host, uint16_t port,
                                        int64_t deadline, drv_error_t *error)
{
    struct addrinfo hints = {
        .ai_family = AF_UNSPEC,
        .ai_socktype = SOCK_STREAM,
        .ai_flags = AI_NUMERICSERV,
    };
    struct addrinfo *res = NULL;
    proto_client_t *c;
    char portstr[8];
    int rc, one = 1, err = ECONNREFUSED;

    if (!host) {
        errno = EINVAL;
        errprintf(error, "no host to contact");
        return NULL;
    }
    if (!(c = calloc(1, sizeof(*c))) || !(c->dec = proto_decoder_create())) {
        free(c);
        errno = ENOMEM;
        errprintf(error, "out of memory");
        return NULL;
    }
    c->fd = -1;
    c->first_byte = -1;
    snprintf(c->peer, sizeof(c->peer), "%s:%u", host, (unsigned)port);
    snprintf(portstr, sizeof(portstr), "%u", (unsigned)port);
    if ((rc = getaddrinfo(host, portstr, &hints, &res)) != 0) {
        errprintf(error, "Unable to contact %s: %s", c->peer,
                  gai_strerror(rc));
        proto_client_destroy(c);
        errno = rc == EAI_MEMORY ? ENOMEM : EHOSTUNREACH;
        return NULL;
    }
    /* Try every address: "localhost" may give ::1 first to a server that
     * listens on 127.0.0.1 only.
     */
    for (struct addrinfo *ai = res; ai && c->fd < 0; ai = ai->ai_next) {
        if ((c->fd = connect_one(ai, deadline)) < 0) {
            err = errno;
            if (err == ETIMEDOUT)
                break;
        }
    }
    freeaddrinfo(res);
    if (c->fd < 0) {
        errprintf(error, "Unable to contact %s: %s", c->peer, strerror(err));
        proto_client_destroy(c);
        errno = err;
        return NULL;
    }
    /* Requests go out in one write; do not let Nagle hold the next one. */
    (void)setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (proto_tls_client_ctx_get()
        && tls_handshake(c, host, deadline, error) < 0) {
        proto_client_destroy(c);
        return NULL;
    }
    return c;
}

proto_client_t *proto_client_connect(const char *host, uint16_t port,
                                     int timeout_ms, drv_error_t *error)
{
    proto_client_t *c = connect_deadline(host, port, deadline_after(timeout_ms),
                                         error);
    if (c)
        c->timeout_ms = timeout_ms;
    return c;
}

void proto_client_set_timeout(proto_client_t *c, int timeout_ms)
{
    c->timeout_ms = timeout_ms;
}

void proto_client_set_reader(proto_client_t *c, proto_frame_reader_f reader,
                             void *arg)
{
    proto_decoder_set_reader(c->dec, reader, arg);
}

void proto_client_destroy(proto_client_t *c)
{
    if (c) {
        int saved_errno = errno;
        if (c->fd >= 0)
            close(c->fd);
        proto_tls_destroy(c->tls);
        proto_decoder_destroy(c->dec);
        free(c);
        errno = saved_errno;
    }
}

static int send_all(proto_client_t *c, const char *buf, size_t len,
                    int64_t deadline)
{
    size_t off = 0;

    while (off < len) {
        ssize_t n = send(c->fd, buf + off, len - off, MSG_NOSIGNAL);
        if (n > 0) {
            off += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (wait_fd(c->fd, POLLOUT, deadline) < 0)
                return -1;
            continue;
        }
        return -1;
    }
    return 0;
}

/* Send what the TLS engine has for the server.  Returns 0 or -1 with
 * errno. */
static int tls_flush(proto_client_t *c, int64_t deadline)
{
    char *buf;
    ssize_t n;

    while ((n = proto_tls_output(c->tls, &buf)) > 0) {
        int rc = send_all(c, buf, (size_t)n, deadline);
        free(buf);
        if (rc < 0)
            return -1;
    }
    return n < 0 ? -1 : 0;
}

/* Send a request frame: as it is, or through TLS. */
static int send_frame(proto_client_t *c, const char *buf, size_t len,
                      int64_t deadline, drv_error_t *error)
{
    if (!c->tls)
        return send_all(c, buf, len, deadline);
    if (proto_tls_write(c->tls, buf, len, error) < 0)
        return -1;
    return tls_flush(c, deadline);
}

/* Ciphertext 'buf' ('n' bytes) from the server: decrypted into the frame
 * decoder, through 'plain' (RECV_CHUNK bytes).  Returns 0, or -1 with
 * errno and 'error'. */
static int tls_take(proto_client_t *c, const char *buf, size_t n,
                    char *plain, drv_error_t *error)
{
    drv_error_t terr = { { 0 } };
    ssize_t m;

    if (proto_tls_feed(c->tls, buf, n, &terr) < 0)
        return errprintf(error, "%s: %s", c->peer, terr.text);
    while ((m = proto_tls_read(c->tls, plain, RECV_CHUNK, &terr)) > 0)
        if (proto_decoder_feed(c->dec, plain, (size_t)m) < 0)
            return errprintf(error, "out of memory");
    if (m < 0)
        return errprintf(error, "%s: %s", c->peer, terr.text);
    return 0;
}

/* TLS with the server at 'host' (the name or address dialled, which its
 * certificate must name), within 'deadline'.  Returns 0, or -1 with errno
 * (EPROTO: the handshake failed; ECONNRESET, ETIMEDOUT...) and 'error'. */
static int tls_handshake(proto_client_t *c, const char *host,
                         int64_t deadline, drv_error_t *error)
{
    drv_error_t terr = { { 0 } };
    char buf[16384];

    if (!(c->tls = proto_tls_create(proto_tls_client_ctx_get(), host, &terr)))
        return errprintf(error, "%s: %s", c->peer, terr.text);
    for (;;) {
        ssize_t n;

        if (tls_flush(c, deadline) < 0) {
            if (errno == ETIMEDOUT)
                return errprintf(error, "%s: TLS handshake not done within "
                                 "%d ms", c->peer, c->timeout_ms);
            return errprintf(error, "%s: TLS handshake: %s", c->peer,
                             strerror(errno));
        }
        if (proto_tls_established(c->tls))
            return 0;
        n = recv(c->fd, buf, sizeof(buf), 0);
        if (n > 0 && c->first_byte < 0)
            c->first_byte = (unsigned char)buf[0];
        if (n > 0) {
            if (proto_tls_feed(c->tls, buf, (size_t)n, &terr) < 0)
                return errprintf(error, "%s: %s%s", c->peer, terr.text,
                                 proto_tls_hint_plain(c->first_byte));
            continue;
        }
        if (n == 0) {
            errno = ECONNRESET;
            return errprintf(error, "%s closed the connection during the "
                             "TLS handshake", c->peer);
        }
        if (errno == EINTR)
            continue;
        if ((errno == EAGAIN || errno == EWOULDBLOCK)
            && wait_fd(c->fd, POLLIN, deadline) == 0)
            continue;
        if (errno == ETIMEDOUT)
            return errprintf(error, "%s: TLS handshake not done within %d ms",
                             c->peer, c->timeout_ms);
        return errprintf(error, "%s: TLS handshake: %s", c->peer,
                         strerror(errno));
    }
}

/* Read until one whole message is decoded.  Returns it, or NULL with errno
 * and 'error' filled.
 */
static json_t *recv_msg(proto_client_t *c, const char *type, int64_t deadline,
                        drv_error_t *error)
{
    char *chunk = NULL, *plain = NULL;
    json_t *msg = NULL, *parts = NULL;
    drv_error_t derr = { { 0 } };

    for (;;) {
        ssize_t n;

        /* an answer in parts is read to its last frame (proto/msg.h) */
        if ((msg = proto_decoder_next(c->dec, &derr))) {
            if ((msg = proto_msg_join_part(&parts, msg)))
                break;
            if (parts)
                continue;
            errno = ENOMEM;
            errprintf(error, "out of memory");
            break;
        }
        if (errno == EPROTO) {
            errno = EDRV_PROTOCOL_MALFORMED;
            errprintf(error, "%s: invalid response: %s%s", c->peer, derr.text,
                      c->tls ? "" : proto_tls_hint_tls(c->first_byte));
            break;
        }
        if (errno != EAGAIN) {
            errprintf(error, "out of memory");
            break;
        }
        if ((!chunk && !(chunk = malloc(RECV_CHUNK)))
            || (c->tls && !plain && !(plain = malloc(RECV_CHUNK)))) {
            errno = ENOMEM;
            errprintf(error, "out of memory");
            break;
        }
        n = recv(c->fd, chunk, RECV_CHUNK, 0);
        if (n > 0 && c->first_byte < 0)
            c->first_byte = (unsigned char)chunk[0];
        if (n > 0 && c->tls) {
            if (tls_take(c, chunk, (size_t)n, plain, error) < 0)
                break;
            continue;
        }
        if (n > 0) {
            if (proto_decoder_feed(c->dec, chunk, (size_t)n) < 0) {
                errprintf(error, "out of memory");
                break;
            }
            continue;
        }
        if (n == 0) {
            errno = ECONNRESET;
            errprintf(error, "%s closed the connection before answering '%s'",
                      c->peer, type);
            break;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (wait_fd(c->fd, POLLIN, deadline) == 0)
                continue;
            if (errno == ETIMEDOUT) {
                errprintf(error, "%s: no answer to '%s' within %d ms", c->peer,
                          type, c->timeout_ms);
                break;
            }
        }
        errprintf(error, "%s: %s", c->peer, strerror(errno));
        break;
    }
    free(chunk);
    free(plain);
    json_decref(parts);
    return msg;
}

static int call_deadline(proto_client_t *c, proto_auth_t *auth,
                         const char *type, json_t *body, json_t **resp_body,
                         int64_t deadline, drv_error_t *error)
{
    char *buf = NULL;
    size_t len;
    json_t *msg, *rbody;
    bool server_error;
    int rc;

    if (!c || !auth) {
        json_decref(body);
        errno = EINVAL;
        return errprintf(error, "no client or credential context");
    }
    if (c->broken) {
        json_decref(body);
        errno = ENOTCONN;
        return errprintf(error, "%s: connection unusable after an earlier "
                                "failure", c->peer);
    }
    if (proto__request_frame(auth, type, body, &buf, &len, error) < 0)
        return -1;
    rc = send_frame(c, buf, len, deadline, error);
    free(buf);
    if (rc < 0 && errno == EPROTO) {
        c->broken = true;
        return -1;
    }
    if (rc < 0) {
        c->broken = true;
        if (errno == ETIMEDOUT)
            return errprintf(error, "%s: could not send '%s' within %d ms",
                             c->peer, type, c->timeout_ms);
        return errprintf(error, "%s: sending '%s': %s", c->peer, type,
                         strerror(errno));
    }
    if (!(msg = recv_msg(c, type, deadline, error))) {
        c->broken = true;
        return -1;
    }
    if (proto__response_parse(msg, type, c->peer, &rbody, &server_error, error)
        < 0) {
        if (!server_error)
            c->broken = true;
        json_decref(msg);
        return -1;
    }
    if (resp_body)
        *resp_body = json_incref(rbody);
    json_decref(msg);
    return 0;
}

int proto_client_call(proto_client_t *c, proto_auth_t *auth, const char *type,
                      json_t *body, json_t **resp_body, drv_error_t *error)
{
    return call_deadline(c, auth, type, body, resp_body,
                         deadline_after(c ? c->timeout_ms : 0), error);
}

int proto_call_sync(const char *host, uint16_t port, proto_auth_t *auth,
                    const char *type, json_t *body, json_t **resp_body,
                    int timeout_ms, drv_error_t *error)
{
    int64_t deadline = deadline_after(timeout_ms);
    proto_client_t *c;
    int rc;

    if (!(c = connect_deadline(host, port, deadline, error))) {
        json_decref(body);
        return -1;
    }
    c->timeout_ms = timeout_ms;
    rc = call_deadline(c, auth, type, body, resp_body, deadline, error);
    proto_client_destroy(c);
    return rc;
}

bool proto_errnum_try_next(int errnum)
{
    return errnum == ECONNREFUSED || errnum == ETIMEDOUT
           || errnum == EHOSTUNREACH || errnum == ENETUNREACH
           || errnum == ECONNRESET || errnum == EADDRNOTAVAIL
           || errnum == EDRV_IN_STANDBY_MODE
           || errnum == EDRV_COMMUNICATIONS_CONNECTION;
}

size_t proto_ctld_next(size_t idx, size_t count, int errnum)
{
    return count > 1 && proto_errnum_try_next(errnum) ? (idx + 1) % count
                                                      : idx;
}
