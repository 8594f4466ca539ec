/* SPDX-License-Identifier: Apache-2.0
 *
 * jsonw.c - JSON text written straight into a growing buffer
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

static void put(struct jsonw *w, const char *s, size_t n)
{
    if (room(w, n)) {
        memcpy(w->buf + w->len, s, n);
        w->len += n;
    }
}

static void put_c(struct jsonw *w, char c)
{
    if (room(w, 1))
        w->buf[w->len++] = c;
}

/* Before a value or a key: the separator from the previous one. */
static void sep(struct jsonw *w)
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
    char num[24], *p = num + sizeof(num);
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    sep(w);
    put(w, p, (size_t)(num + sizeof(num) - p));
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

void jsonw_put_int(const struct jsonw_sink *s, const char *key, int64_t v)
{
    if (s->obj) {
        json_object_set_new(s->obj, key, json_integer(v));
        return;
    }
    jsonw_key(s->w, key);
    jsonw_int(s->w, v);
}

void jsonw_put_bool(const struct jsonw_sink *s, const char *key, bool v)
{
    if (s->obj) {
        json_object_set_new(s->obj, key, json_boolean(v));
        return;
    }
    jsonw_key(s->w, key);
    jsonw_bool(s->w, v);
}

void jsonw_put_str(const struct jsonw_sink *s, const char *key,
                   const char *v)
{
    if (!v)
        return;
    if (s->obj) {
        json_object_set_new(s->obj, key, json_string(v));
        return;
    }
    jsonw_key(s->w, key);
    jsonw_str(s->w, v);
}

void jsonw_put_json(const struct jsonw_sink *s, const char *key, json_t *v)
{
    if (!v)
        return;
    if (s->obj) {
        json_object_set_new(s->obj, key, v);
        return;
    }
    jsonw_key(s->w, key);
    jsonw_json(s->w, v);
    json_decref(v);
}

void jsonw_put_members(const struct jsonw_sink *s, json_t *members)
{
    if (!members)
        return;
    if (s->obj)
        json_object_update(s->obj, members);
    else
        jsonw_members(s->w, members);
    json_decref(members);
}
