/* SPDX-License-Identifier: Apache-2.0
 *
 * stepd_link.h - frames over one of droverstepd's I/O connections (to
 * srun, step.c; to sattach, step_attach.c), plain or TLS
 *
 * droverstepd dials srun and sattach, but it is the side that holds a
 * certificate (drover_tls_key is root's; the commands run as users and
 * hold only drover_tls_ca).  So with CommunicationParameters=
 * drover_tls_rpc it is the TLS *server* on the connection it dialled: it
 * waits for the command's ClientHello and presents its certificate
 * (docs/security.md, "TLS").  Without TLS the bytes are the frames as
 * they always were.  The owner keeps its libuv TCP handle and its
 * life; a link only turns frames into bytes on it and bytes from it into
 * frames.
 */
#ifndef DROVER_NODED_STEPD_LINK_H
#define DROVER_NODED_STEPD_LINK_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>
#include <uv.h>

#include "common/error.h"
#include "conf/conf_tls.h"
#include "proto/frame.h"
#include "proto/tls.h"

struct stepd_link {
    uv_stream_t *stream;  /* borrowed: the owner's TCP handle */
    proto_tls_t *tls;     /* NULL: plain */
    proto_decoder_t *dec; /* the frames the peer sent */
    size_t held;          /* bytes written before the TLS handshake
                           * ended, kept by the engine */
};

/* The TLS server context of droverstepd's I/O connections, from the
 * step configuration's 'tls' (borrowed): *ctx NULL when drover_tls_rpc
 * is off (libssl is not loaded), else a context presenting tls->cert
 * with tls->key (free with proto_tls_ctx_destroy()).  Returns 0, or -1
 * with *ctx NULL and 'error' naming the file and OpenSSL's reason. */
int stepd_link_tls_setup(const struct conf_tls *tls, proto_tls_ctx_t **ctx,
                         drv_error_t *error);

/* Start 'l' on 'stream' (borrowed; the owner's, connecting or
 * connected), TLS server side when 'ctx' is not NULL (borrowed; the
 * session keeps what it needs).  Returns 0, or -1 with 'error' (ENOMEM,
 * or the engine's reason). */
int stepd_link_init(struct stepd_link *l, uv_stream_t *stream,
                    proto_tls_ctx_t *ctx, drv_error_t *error);

/* Free what 'l' holds (not the stream).  Twice is a no-op. */
void stepd_link_clear(struct stepd_link *l);

/* Queue 'len' bytes of frames (copied) for the peer: on the stream now,
 * or, with TLS before the handshake ended, kept by the engine until it
 * has (stepd_link_flushed()).  Returns 0, or -1 when the stream or the
 * session refused them (the owner drops the connection). */
int stepd_link_write(struct stepd_link *l, const char *data, size_t len);

/* The frame 'msg' (borrowed), encoded, as stepd_link_write(). */
int stepd_link_send(struct stepd_link *l, json_t *msg);

/* 'n' bytes read from the stream: into l->dec (take the frames with
 * proto_decoder_next()), through the TLS session when there is one,
 * whose answers (handshake records, frames kept until now) go out on the
 * stream.  Returns 0, or -1 with 'error' ("TLS: <reason>" and a hint
 * when the peer does not speak TLS, or a decoder's refusal): the
 * connection is unusable. */
int stepd_link_feed(struct stepd_link *l, const char *buf, size_t n,
                    drv_error_t *error);

/* Bytes written and not yet sent: libuv's queue, and what the TLS
 * engine keeps until the handshake ends (an owner bounding a slow peer
 * counts both). */
size_t stepd_link_queued(const struct stepd_link *l);

/* Is every byte written so far on the stream (libuv's queue), so that a
 * shutdown loses none?  Always with plain links; with TLS once the
 * handshake ended. */
bool stepd_link_flushed(const struct stepd_link *l);

#endif /* !DROVER_NODED_STEPD_LINK_H */
