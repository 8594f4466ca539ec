/* SPDX-License-Identifier: Apache-2.0
 *
 * jsonw.c - JSON text written straight into a growing buffer
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/decfmt.h"
#include "common/xalloc.h"
#include "proto/jsonw.h"

void jsonw_init(struct jsonw *w, size_t reserve)
{
    *w = (struct jsonw){.len = reserve};
}

void jsonw_release(struct jsonw *w)
{
    free(w->buf);
    *w = (struct jsonw){0};
}

/* Room for 'n' more bytes.  Returns false (and sticks) when out of memory. */
static bool grow(struct jsonw *w, size_t n)
{
    size_t cap;
    char *p;

    if (w->failed)
        return false;
    if (n > SIZE_MAX / 2 - w->len)
        goto fail;
    cap = w->cap ? w->cap : 4096;
    while (cap < w->len + n) {
        if (cap > SIZE_MAX / 2)
            goto fail;
        cap *= 2;
    }
    if (!(p = realloc(w->buf, cap)))
        goto fail;
    w->buf = p;
    w->cap = cap;
    return true;
fail:
    w->failed = true;
    return false;
}

static inline bool room(struct jsonw *w, size_t n)
{
    return (w->buf && w->cap - w->len >= n) || grow(w, n);
}

static inline void put(struct jsonw *w, const char *s, size_t n)
{
    if (room(w, n)) {
        memcpy(w->buf + w->len, s, n);
        w->len += n;
    }
}

static inline void put_c(struct jsonw *w, char c)
{
    if (room(w, 1))
        w->buf[w->len++] = c;
}

/* Before a value or a key: the separator from the previous one. */
static inline void sep(struct jsonw *w)
{
    if (w->comma)
        put_c(w, ',');
}

/* Bytes a JSON string cannot hold as they are (and NUL, the end). */
static bool needs_escape(unsigned char c)
{
    return c < 0x20 || c == '"' || c == '\\';
}

static void put_escaped(struct jsonw *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s, *run = p;

    put_c(w, '"');
    for (;; p++) {
        unsigned char c = *p;
        char esc[6] = {'\\', 'u', '0', '0', 0, 0};
        size_t n = 2;

        if (!needs_escape(c))
            continue;
        put(w, (const char *)run, (size_t)(p - run));
        if (!c)
            break;
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\t': esc[1] = 't'; break;
        case '\r': esc[1] = 'r'; break;
        case '\b': esc[1] = 'b'; break;
        case '\f': esc[1] = 'f'; break;
        default:
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            n = 6;
        }
        put(w, esc, n);
        run = p + 1;
    }
    put_c(w, '"');
}

void jsonw_obj_open(struct jsonw *w)
{
    sep(w);
    put_c(w, '{');
    w->comma = false;
}

void jsonw_obj_close(struct jsonw *w)
{
    put_c(w, '}');
    w->comma = true;
}

void jsonw_arr_open(struct jsonw *w)
{
    sep(w);
    put_c(w, '[');
    w->comma = false;
}

void jsonw_arr_close(struct jsonw *w)
{
    put_c(w, ']');
    w->comma = true;
}

void jsonw_key(struct jsonw *w, const char *key)
{
    sep(w);
    put_escaped(w, key);
    put_c(w, ':');
    w->comma = false;
}

void jsonw_str(struct jsonw *w, const char *s)
{
    if (!s) {
        jsonw_null(w);
        return;
    }
    sep(w);
    put_escaped(w, s);
    w->comma = true;
}

void jsonw_int(struct jsonw *w, int64_t v)
{
    char num[DECFMT_MAX + 1], *p = num;

    if (v < 0)
        *p++ = '-';
    p += dec_format(p, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, 1);
    sep(w);
    put(w, num, (size_t)(p - num));
    w->comma = true;
}

void jsonw_bool(struct jsonw *w, bool v)
{
    sep(w);
    put(w, v ? "true" : "false", v ? 4 : 5);
    w->comma = true;
}

void jsonw_null(struct jsonw *w)
{
    sep(w);
    put(w, "null", 4);
    w->comma = true;
}

void jsonw_raw(struct jsonw *w, const char *text, size_t n)
{
    put(w, text, n);
}

static int dump_cb(const char *chunk, size_t size, void *arg)
{
    struct jsonw *w = arg;

    put(w, chunk, size);
    return w->failed ? -1 : 0;
}

void jsonw_json(struct jsonw *w, const json_t *v)
{
    sep(w);
    if (json_dump_callback(v, dump_cb, w, JSON_COMPACT | JSON_ENCODE_ANY)
        < 0)
        w->failed = true;
    w->comma = true;
}

void jsonw_members(struct jsonw *w, const json_t *obj)
{
    const char *key;
    json_t *v;

    json_object_foreach((json_t *)obj, key, v) {
        jsonw_key(w, key);
        jsonw_json(w, v);
    }
}

char *jsonw_take(struct jsonw *w, size_t *len)
{
    char *buf;

    if (w->failed || !room(w, 1)) {
        jsonw_release(w);
        errno = ENOMEM;
        return NULL;
    }
    buf = w->buf;
    *len = w->len;
    *w = (struct jsonw){0};
    return buf;
}

void jsonw_row_init(struct jsonw_row *r, const char *const *keys, size_t n)
{
    *r = (struct jsonw_row){.keys = keys, .ncols = n};
    r->off = xzalloc((n + 1) * sizeof(*r->off));
    r->len = xzalloc((n + 1) * sizeof(*r->len));
    jsonw_init(&r->vals, 0);
}

void jsonw_row_release(struct jsonw_row *r)
{
    free(r->off);
    free(r->len);
    jsonw_release(&r->vals);
    *r = (struct jsonw_row){0};
}

void jsonw_row_begin(struct jsonw_row *r, struct jsonw *w)
{
    memset(r->len, 0, r->ncols * sizeof(*r->len));
    r->vals.len = 0;
    r->vals.comma = false;
    r->guess = 0;
    r->out = w;
    r->start = w->len;
    r->comma_before = w->comma;
    r->next = 0;
    r->started = false;
    r->collected = false;
}

/* Values that come in column order are written straight to the writer;
 * the first that comes out of order (or again) moves those written so far
 * into 'vals', and the rest of the row is collected there. */
static void row_collect(struct jsonw_row *r)
{
    struct jsonw *w = r->out;

    for (size_t i = 0; i < r->next; i++) {
        if (!r->len[i])
            continue;
        if (!room(&r->vals, r->len[i])) {
            r->len[i] = 0;
            continue;
        }
        memcpy(r->vals.buf + r->vals.len, w->buf + r->off[i], r->len[i]);
        r->off[i] = r->vals.len;
        r->vals.len += r->len[i];
    }
    w->len = r->start;
    w->comma = r->comma_before;
    r->started = false;
    r->collected = true;
}

/* The collected row, written at once: one check for room. */
static void row_write_collected(struct jsonw_row *r, struct jsonw *w)
{
    size_t need = 2 + r->ncols; /* brackets, commas (one spare) */
    char *p;

    for (size_t i = 0; i < r->ncols; i++)
        need += r->len[i] ? r->len[i] : 4;
    sep(w);
    if (r->vals.failed)
        w->failed = true;
    if (!room(w, need))
        return;
    p = w->buf + w->len;
    *p++ = '[';
    for (size_t i = 0; i < r->ncols; i++) {
        if (i)
            *p++ = ',';
        if (r->len[i]) {
            memcpy(p, r->vals.buf + r->off[i], r->len[i]);
            p += r->len[i];
        } else {
            memcpy(p, "null", 4);
            p += 4;
        }
    }
    *p++ = ']';
    w->len = (size_t)(p - w->buf);
    w->comma = true;
}

/* Write nulls for the columns from r->next up to 'col' (excluded), the
 * row's '[' first if it has not begun. */
static void row_fill(struct jsonw_row *r, size_t col)
{
    struct jsonw *w = r->out;

    if (!r->started) {
        sep(w);
        put_c(w, '[');
        r->started = true;
    }
    for (size_t i = r->next; i < col; i++) {
        if (i)
            put_c(w, ',');
        put(w, "null", 4);
    }
}

void jsonw_row_write(struct jsonw_row *r, struct jsonw *w)
{
    if (r->collected || w != r->out) {
        if (!r->collected)
            row_collect(r);
        row_write_collected(r, w);
        return;
    }
    row_fill(r, r->ncols);
    put_c(w, ']');
    w->comma = true;
}

/* The column of 'key', trying the one after the last put first. */
static long row_column(struct jsonw_row *r, const char *key)
{
    /* by address first, from the guess on: the keys put are mostly the
     * columns' own, in their order */
    for (size_t i = r->guess; i < r->ncols; i++) {
        if (r->keys[i] == key) {
            r->guess = i + 1;
            return (long)i;
        }
    }
    for (size_t i = 0; i < r->guess && i < r->ncols; i++) {
        if (r->keys[i] == key) {
            r->guess = i + 1;
            return (long)i;
        }
    }
    for (size_t i = 0; i < r->ncols; i++) {
        if (!strcmp(r->keys[i], key)) {
            r->guess = i + 1;
            return (long)i;
        }
    }
    return -1;
}

/* The writer a put goes to ('key' written when it is an object's), or
 * NULL to drop the value (a row without that column); put_end() then
 * records a row's value. */
static struct jsonw *put_begin(const struct jsonw_sink *s, const char *key)
{
    struct jsonw_row *r = s->row;
    long col;

    if (!r) {
        jsonw_key(s->w, key);
        return s->w;
    }
    if ((col = row_column(r, key)) < 0)
        return NULL;
    r->open = (size_t)col;
    if (!r->collected && (size_t)col >= r->next) {
        struct jsonw *w = r->out;

        row_fill(r, (size_t)col);
        if (col)
            put_c(w, ',');
        w->comma = false;
        r->off[col] = w->len;
        r->next = (size_t)col + 1;
        return w;
    }
    if (!r->collected)
        row_collect(r);
    r->vals.comma = false;
    r->off[col] = r->vals.len;
    return &r->vals;
}

static void put_end(const struct jsonw_sink *s)
{
    struct jsonw_row *r = s->row;

    if (r)
        r->len[r->open] = (r->collected ? r->vals.len : r->out->len)
                          - r->off[r->open];
}

void jsonw_put_int(const struct jsonw_sink *s, const char *key, int64_t v)
{
    struct jsonw *w;

    if (s->obj) {
        json_object_set_new(s->obj, key, json_integer(v));
        return;
    }
    if ((w = put_begin(s, key))) {
        jsonw_int(w, v);
        put_end(s);
    }
}

void jsonw_put_bool(const struct jsonw_sink *s, const char *key, bool v)
{
    struct jsonw *w;

    if (s->obj) {
        json_object_set_new(s->obj, key, json_boolean(v));
        return;
    }
    if ((w = put_begin(s, key))) {
        jsonw_bool(w, v);
        put_end(s);
    }
}

void jsonw_put_str(const struct jsonw_sink *s, const char *key,
                   const char *v)
{
    struct jsonw *w;

    if (!v)
        return;
    if (s->obj) {
        json_object_set_new(s->obj, key, json_string(v));
        return;
    }
    if ((w = put_begin(s, key))) {
        jsonw_str(w, v);
        put_end(s);
    }
}

void jsonw_put_json(const struct jsonw_sink *s, const char *key, json_t *v)
{
    struct jsonw *w;

    if (!v)
        return;
    if (s->obj) {
        json_object_set_new(s->obj, key, v);
        return;
    }
    if ((w = put_begin(s, key))) {
        jsonw_json(w, v);
        put_end(s);
    }
    json_decref(v);
}

void jsonw_put_members(const struct jsonw_sink *s, json_t *members)
{
    const char *key;
    json_t *v;

    if (!members)
        return;
    if (s->obj)
        json_object_update(s->obj, members);
    else if (!s->row)
        jsonw_members(s->w, members);
    else
        json_object_foreach(members, key, v)
            jsonw_put_json(s, key, json_incref(v));
    json_decref(members);
}
