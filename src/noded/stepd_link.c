/* SPDX-License-Identifier: Apache-2.0
 *
 * stepd_link.c - frames over droverstepd's I/O connections (stepd_link.h)
 *
 * Writes are copied into a uv_write_t each; the stream's owner decides
 * when its queue is too long (uv_stream_get_write_queue_size()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "noded/stepd_link.h"

int stepd_link_tls_setup(const struct conf_tls *tls, proto_tls_ctx_t **ctx,
                         drv_error_t *error)
{
    *ctx = NULL;
    if (!tls->rpc)
        return 0;
    return (*ctx = proto_tls_server_ctx(tls->cert, tls->key, error)) ? 0
                                                                    : -1;
}

int stepd_link_init(struct stepd_link *l, uv_stream_t *stream,
                    proto_tls_ctx_t *ctx, drv_error_t *error)
{
    *l = (struct stepd_link){.stream = stream};
    if (!(l->dec = proto_decoder_create())) {
        errno = ENOMEM;
        return errprintf(error, "out of memory");
    }
    if (ctx && !(l->tls = proto_tls_create(ctx, NULL, error))) {
        stepd_link_clear(l);
        return -1;
    }
    return 0;
}

void stepd_link_clear(struct stepd_link *l)
{
    proto_decoder_destroy(l->dec);
    l->dec = NULL;
    proto_tls_destroy(l->tls);
    l->tls = NULL;
}

static void write_done(uv_write_t *w, int status)
{
    (void)status; /* a failed write: the read side sees the end */
    free(w->data);
    free(w);
}

/* 'data' ('len' bytes, stolen) onto the stream. */
static int stream_write(struct stepd_link *l, char *data, size_t len)
{
    uv_write_t *w = xzalloc(sizeof(*w));
    uv_buf_t buf = uv_buf_init(data, (unsigned)len);

    w->data = data;
    if (uv_write(w, l->stream, &buf, 1, write_done) < 0) {
        free(data);
        free(w);
        return -1;
    }
    return 0;
}

/* What the TLS engine has for the peer, onto the stream. */
static int tls_flush(struct stepd_link *l)
{
    char *buf;
    ssize_t n;

    while ((n = proto_tls_output(l->tls, &buf)) > 0)
        if (stream_write(l, buf, (size_t)n) < 0)
            return -1;
    return n < 0 ? -1 : 0;
}

int stepd_link_write(struct stepd_link *l, const char *data, size_t len)
{
    drv_error_t error = {{0}};
    char *copy;

    if (!l->tls) {
        copy = xzalloc(len ? len : 1);
        memcpy(copy, data, len);
        return stream_write(l, copy, len);
    }
    if (proto_tls_write(l->tls, data, len, &error) < 0)
        return -1;
    if (!proto_tls_established(l->tls))
        l->held += len;
    return tls_flush(l);
}

int stepd_link_send(struct stepd_link *l, json_t *msg)
{
    char *data;
    size_t len;
    int rc;

    if (proto_frame_encode(msg, &data, &len) < 0)
        return -1;
    rc = stepd_link_write(l, data, len);
    free(data);
    return rc;
}

int stepd_link_feed(struct stepd_link *l, const char *buf, size_t n,
                    drv_error_t *error)
{
    bool handshaking;
    char plain[16384];
    ssize_t m;

    if (!l->tls) {
        if (proto_decoder_feed(l->dec, buf, n) < 0)
            return errprintf(error, "out of memory");
        return 0;
    }
    handshaking = !proto_tls_established(l->tls);
    if (proto_tls_feed(l->tls, buf, n, error) < 0) {
        (void)tls_flush(l); /* OpenSSL's alert, if any */
        /* a TLS client's first record is a handshake (0x16) */
        if (handshaking && n > 0 && (unsigned char)buf[0] != 0x16) {
            char reason[sizeof(error->text)];

            memcpy(reason, error->text, sizeof(reason));
            errprintf(error, "%s (the peer does not speak TLS: is "
                      "CommunicationParameters=drover_tls_rpc set in its "
                      "slurm.conf?)", reason);
        }
        return -1;
    }
    if (proto_tls_established(l->tls))
        l->held = 0; /* encrypted now, in libuv's queue */
    while ((m = proto_tls_read(l->tls, plain, sizeof(plain), error)) > 0)
        if (proto_decoder_feed(l->dec, plain, (size_t)m) < 0)
            return errprintf(error, "out of memory");
    if (m < 0 || tls_flush(l) < 0)
        return -1;
    return 0;
}

size_t stepd_link_queued(const struct stepd_link *l)
{
    return uv_stream_get_write_queue_size(l->stream) + l->held;
}

bool stepd_link_flushed(const struct stepd_link *l)
{
    return !l->tls || proto_tls_established(l->tls);
}
