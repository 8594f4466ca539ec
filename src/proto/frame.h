/* SPDX-License-Identifier: Apache-2.0
 *
 * frame.h - the wire frame: 4-byte big-endian length + one JSON object
 *
 * The length counts the JSON text only (not the 4 header bytes) and may not
 * exceed PROTO_FRAME_MAX (or a decoder's smaller limit).  The decoder is incremental so a libuv read callback
 * can feed it whatever arrived and take complete messages out; it never trusts
 * a length header far enough to allocate for bytes that have not arrived.
 */
#ifndef DROVER_PROTO_FRAME_H
#define DROVER_PROTO_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/error.h"

/* Size of the length header, in bytes. */
#define PROTO_FRAME_HDR 4

/* Largest JSON text a frame may carry, in bytes (64 MiB). */
#define PROTO_FRAME_MAX (64u * 1024 * 1024)

typedef struct proto_decoder proto_decoder_t;

/* Write the length header for 'len' bytes of JSON text at 'p' (4 bytes). */
void proto_frame_put_header(char *p, uint32_t len);

/* Encode 'msg' (a JSON object; borrowed) as one frame in a new buffer.
 * On success returns 0, sets *buf (caller frees with free()) and *len (header
 * included).  Returns -1 with errno:
 *   EINVAL    msg is NULL or not an object, or buf/len is NULL
 *   EMSGSIZE  the JSON text is longer than PROTO_FRAME_MAX
 *   ENOMEM
 * On failure *buf and *len are untouched.
 */
int proto_frame_encode(const json_t *msg, char **buf, size_t *len);

/* Create an empty decoder.  Returns NULL with errno=ENOMEM.
 * Free with proto_decoder_destroy().
 */
proto_decoder_t *proto_decoder_create(void);

/* NULL is a no-op.  errno is preserved. */
void proto_decoder_destroy(proto_decoder_t *d);

/* Append 'len' bytes of stream data (copied; 'data' stays the caller's).
 * Returns 0, or -1 with errno:
 *   ENOMEM  (the bytes were not taken; the decoder is otherwise unchanged)
 *   EPROTO  the decoder already saw garbage (see proto_decoder_next)
 */
int proto_decoder_feed(proto_decoder_t *d, const void *data, size_t len);

/* Refuse, from the next length header on, frames longer than 'max' bytes
 * (1 to PROTO_FRAME_MAX; a new decoder takes PROTO_FRAME_MAX).  A server
 * keeps the limit small until a connection has authenticated, so a peer
 * without a credential cannot make it buffer 64 MiB.  Returns 0, or -1 with
 * errno EINVAL (max out of range; the limit is unchanged).
 */
int proto_decoder_set_max(proto_decoder_t *d, uint32_t max);

/* Take the next complete message out of the decoder.
 * Returns a new reference to a JSON object (caller decrefs), or NULL with
 * errno:
 *   EAGAIN  no complete frame buffered yet: feed more bytes
 *   EPROTO  garbage: a length over the decoder's limit (PROTO_FRAME_MAX
 *           unless proto_decoder_set_max said otherwise), or a payload that
 *           is not a JSON object (empty, invalid JSON, an array, a number,
 *           trailing text, duplicate keys...; a first byte that cannot
 *           start an object is refused as soon as it arrives).  'error' (may be NULL) says which.  The
 *           stream cannot be resynchronised, so every later feed/next call
 *           fails with EPROTO too.
 *   ENOMEM  (the frame stays buffered; calling again may succeed)
 */
json_t *proto_decoder_next(proto_decoder_t *d, drv_error_t *error);

/* Readable bytes the decoder keeps after the end of what it was fed, so
 * that a reader may read ahead of a frame's last byte (simdjson reads up
 * to 64 bytes ahead). */
#define PROTO_DECODER_SLACK 64

/* A reader of one frame's payload in place of jansson's json_loadb(): a
 * command reads a large listing with one of its own (rowtable.h).  'text'
 * holds the payload's 'len' bytes, followed by at least
 * PROTO_DECODER_SLACK readable bytes of no meaning.  Returns the message
 * (a new reference to a JSON object), or NULL with errno EPROTO (not a
 * JSON object: the stream is then failed, as for jansson's refusal) or
 * ENOMEM, and 'error' set. */
typedef json_t *(*proto_frame_reader_f)(const char *text, size_t len,
                                        void *arg, drv_error_t *error);

/* Read each later frame's payload with 'reader' (called with 'arg');
 * NULL: with jansson again. */
void proto_decoder_set_reader(proto_decoder_t *d, proto_frame_reader_f reader,
                              void *arg);

/* Bytes fed but not yet returned as messages.  Non-zero at end of stream
 * means the peer sent a truncated frame.
 */
size_t proto_decoder_buffered(const proto_decoder_t *d);

#endif /* !DROVER_PROTO_FRAME_H */
