/* SPDX-License-Identifier: Apache-2.0
 *
 * frame.c - length-prefixed JSON frames: encoder and incremental decoder
 *
 * The decoder keeps one growing buffer with a read offset.  A length header
 * is checked against the decoder's limit as soon as its 4 bytes are in (and
 * the payload's first byte as soon as it is in), and the buffer only grows
 * as data really arrives, so a peer that announces 64 MiB and sends nothing
 * costs nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "proto/frame.h"

struct proto_decoder {
    char *buf;
    size_t cap;
    size_t start; /* first unconsumed byte */
    size_t end;   /* one past the last fed byte */
    uint32_t max; /* largest frame taken, bytes */
    int broken;   /* saw garbage: the stream is unusable */
    proto_frame_reader_f reader; /* NULL: json_loadb() */
    void *reader_arg;
};

struct dump_buf {
    char *data;
    size_t len;
    size_t cap;
    int errnum;
};

static uint32_t get_be32(const char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8
           | (uint32_t)u[3];
}

static void put_be32(char *p, uint32_t v)
{
    unsigned char *u = (unsigned char *)p;
    u[0] = (unsigned char)(v >> 24);
    u[1] = (unsigned char)(v >> 16);
    u[2] = (unsigned char)(v >> 8);
    u[3] = (unsigned char)v;
}

void proto_frame_put_header(char *p, uint32_t len)
{
    put_be32(p, len);
}

/* json_dump_callback sink: append to a buffer that starts with room for the
 * header, so the text is serialized once and never copied.
 */
static int dump_append(const char *chunk, size_t size, void *arg)
{
    struct dump_buf *db = arg;

    if (size > PROTO_FRAME_HDR + (size_t)PROTO_FRAME_MAX - db->len) {
        db->errnum = EMSGSIZE;
        return -1;
    }
    if (db->len + size > db->cap) {
        size_t cap = db->cap ? db->cap : 256;
        char *p;
        while (cap < db->len + size)
            cap *= 2;
        if (!(p = realloc(db->data, cap))) {
            db->errnum = ENOMEM;
            return -1;
        }
        db->data = p;
        db->cap = cap;
    }
    memcpy(db->data + db->len, chunk, size);
    db->len += size;
    return 0;
}

int proto_frame_encode(const json_t *msg, char **buf, size_t *len)
{
    struct dump_buf db = { .len = PROTO_FRAME_HDR };

    if (!msg || !json_is_object(msg) || !buf || !len) {
        errno = EINVAL;
        return -1;
    }
    if (json_dump_callback(msg, dump_append, &db, JSON_COMPACT) < 0) {
        free(db.data);
        errno = db.errnum ? db.errnum : ENOMEM;
        return -1;
    }
    if (!db.data) { /* cannot happen for an object: "{}" at least */
        errno = EINVAL;
        return -1;
    }
    put_be32(db.data, (uint32_t)(db.len - PROTO_FRAME_HDR));
    *buf = db.data;
    *len = db.len;
    return 0;
}

proto_decoder_t *proto_decoder_create(void)
{
    proto_decoder_t *d = calloc(1, sizeof(*d));

    if (d)
        d->max = PROTO_FRAME_MAX;
    return d;
}

int proto_decoder_set_max(proto_decoder_t *d, uint32_t max)
{
    if (max == 0 || max > PROTO_FRAME_MAX) {
        errno = EINVAL;
        return -1;
    }
    d->max = max;
    return 0;
}

void proto_decoder_destroy(proto_decoder_t *d)
{
    if (d) {
        int saved_errno = errno;
        free(d->buf);
        free(d);
        errno = saved_errno;
    }
}

int proto_decoder_feed(proto_decoder_t *d, const void *data, size_t len)
{
    if (d->broken) {
        errno = EPROTO;
        return -1;
    }
    if (len == 0)
        return 0;
    /* Slide unconsumed bytes to the front before growing. */
    if (d->start > 0 && d->end + len + PROTO_DECODER_SLACK > d->cap) {
        memmove(d->buf, d->buf + d->start, d->end - d->start);
        d->end -= d->start;
        d->start = 0;
    }
    if (d->end + len + PROTO_DECODER_SLACK > d->cap) {
        size_t cap = d->cap ? d->cap : 4096;
        char *p;
        while (cap < d->end + len + PROTO_DECODER_SLACK)
            cap *= 2;
        if (!(p = realloc(d->buf, cap))) {
            errno = ENOMEM;
            return -1;
        }
        d->buf = p;
        d->cap = cap;
    }
    memcpy(d->buf + d->end, data, len);
    d->end += len;
    return 0;
}

/* Garbage: the stream cannot be resynchronised, so the decoder is finished. */
static json_t *garbage(proto_decoder_t *d)
{
    d->broken = 1;
    errno = EPROTO;
    return NULL;
}

/* Whether a payload's first byte can begin a JSON object ('{' or the
 * whitespace JSON allows before it).
 */
static int starts_object(char c)
{
    return c == '{' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Keep a large buffer only while a large frame is in it. */
#define DECODER_KEEP_CAP (256u * 1024)

json_t *proto_decoder_next(proto_decoder_t *d, drv_error_t *error)
{
    size_t avail = d->end - d->start;
    uint32_t n;
    json_t *msg;
    json_error_t jerr;

    if (d->broken) {
        errprintf(error, "stream already failed");
        errno = EPROTO;
        return NULL;
    }
    if (avail < PROTO_FRAME_HDR) {
        errno = EAGAIN;
        return NULL;
    }
    n = get_be32(d->buf + d->start);
    if (n > d->max) {
        errprintf(error, "frame length %lu exceeds the %lu byte limit",
                  (unsigned long)n, (unsigned long)d->max);
        return garbage(d);
    }
    if (n == 0) {
        errprintf(error, "empty frame");
        return garbage(d);
    }
    /* Do not wait for the rest of a frame that cannot be an object. */
    if (avail > PROTO_FRAME_HDR
        && !starts_object(d->buf[d->start + PROTO_FRAME_HDR])) {
        errprintf(error, "frame is not a JSON object");
        return garbage(d);
    }
    if (avail - PROTO_FRAME_HDR < n) {
        errno = EAGAIN;
        return NULL;
    }
    if (d->reader) {
        if (!(msg = d->reader(d->buf + d->start + PROTO_FRAME_HDR, n,
                              d->reader_arg, error)))
            return errno == ENOMEM ? NULL : garbage(d);
    } else if (!(msg = json_loadb(d->buf + d->start + PROTO_FRAME_HDR, n,
                                  JSON_REJECT_DUPLICATES, &jerr))) {
        if (json_error_code(&jerr) == json_error_out_of_memory) {
            errprintf(error, "out of memory parsing a %lu byte frame",
                      (unsigned long)n);
            errno = ENOMEM;
            return NULL;
        }
        errprintf(error, "frame is not valid JSON: %s", jerr.text);
        return garbage(d);
    }
    if (!json_is_object(msg)) {
        json_decref(msg);
        errprintf(error, "frame is not a JSON object");
        return garbage(d);
    }
    d->start += PROTO_FRAME_HDR + n;
    if (d->start == d->end) {
        d->start = d->end = 0;
        if (d->cap > DECODER_KEEP_CAP) {
            free(d->buf);
            d->buf = NULL;
            d->cap = 0;
        }
    }
    return msg;
}

void proto_decoder_set_reader(proto_decoder_t *d, proto_frame_reader_f reader,
                              void *arg)
{
    d->reader = reader;
    d->reader_arg = arg;
}

size_t proto_decoder_buffered(const proto_decoder_t *d)
{
    return d->end - d->start;
}
