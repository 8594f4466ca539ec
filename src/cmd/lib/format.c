/* SPDX-License-Identifier: Apache-2.0
 *
 * format.c - table-driven output formats for squeue and sinfo
 *
 * The parser splits the format at '%' like squeue's _parse_format() (so an
 * empty token such as "%%" disappears); each token is ['.'] [width] letter
 * followed by its literal suffix.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/lib/format.h"
#include "common/decfmt.h"
#include "common/xalloc.h"

static void buf_grow(struct fmt_buf *b, size_t add)
{
    size_t need = b->len + add + 1;

    if (need <= b->cap)
        return;
    while (b->cap < need)
        b->cap = b->cap ? b->cap * 2 : 128;
    b->s = realloc(b->s, b->cap);
    if (!b->s) {
        fprintf(stderr, "out of memory\n");
        abort();
    }
}

void fmt_buf_putn(struct fmt_buf *b, const char *s, size_t n)
{
    buf_grow(b, n);
    if (n)
        memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void fmt_buf_puts(struct fmt_buf *b, const char *s)
{
    fmt_buf_putn(b, s, s ? strlen(s) : 0);
}

void fmt_buf_putu(struct fmt_buf *b, unsigned long long v)
{
    char num[DECFMT_MAX];

    fmt_buf_putn(b, num, dec_format(num, v, 1));
}

void fmt_buf_puti(struct fmt_buf *b, long long v)
{
    if (v < 0) {
        fmt_buf_putn(b, "-", 1);
        fmt_buf_putu(b, 0 - (unsigned long long)v);
    } else {
        fmt_buf_putu(b, (unsigned long long)v);
    }
}

/* 'n' spaces. */
static void put_spaces(struct fmt_buf *b, size_t n)
{
    buf_grow(b, n);
    memset(b->s + b->len, ' ', n);
    b->len += n;
    b->s[b->len] = '\0';
}

void fmt_buf_printf(struct fmt_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    buf_grow(b, (size_t)n);
    if ((size_t)n < sizeof(small)) {
        memcpy(b->s + b->len, small, (size_t)n + 1);
    } else {
        va_start(ap, fmt);
        vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

void fmt_buf_reset(struct fmt_buf *b)
{
    b->len = 0;
    if (b->s)
        b->s[0] = '\0';
}

const char *fmt_buf_str(const struct fmt_buf *b)
{
    return b->s ? b->s : "";
}

static bool is_control(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

char *fmt_escape(const char *s)
{
    struct fmt_buf b = {0};
    const char *p = s;

    while (p && *p && !is_control((unsigned char)*p))
        p++;
    if (!p || !*p)
        return NULL;
    fmt_buf_puts(&b, "");
    for (p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '\n')
            fmt_buf_puts(&b, "\\n");
        else if (c == '\t')
            fmt_buf_puts(&b, "\\t");
        else if (c == '\r')
            fmt_buf_puts(&b, "\\r");
        else if (is_control(c))
            fmt_buf_printf(&b, "\\x%02x", c);
        else
            fmt_buf_printf(&b, "%c", c);
    }
    return b.s;
}

/* The value written at the end of 'out', from 'start' (no control
 * character in it), in 'width' columns, in place. */
static void pad_in_place(struct fmt_buf *out, size_t start, int width,
                         bool right, bool cut)
{
    size_t len = out->len - start, w = width > 0 ? (size_t)width : 0;

    if (w == 0 || len == w)
        return;
    if (len > w) { /* Slurm formats left-justified text with "%.Ns": cut */
        if (cut || !right)
            out->s[out->len = start + w] = '\0';
        return;
    }
    if (!right) {
        put_spaces(out, w - len);
        return;
    }
    buf_grow(out, w - len);
    memmove(out->s + start + (w - len), out->s + start, len);
    memset(out->s + start, ' ', w - len);
    out->len = start + w;
    out->s[out->len] = '\0';
}

void fmt_pad(struct fmt_buf *out, const char *value, int width, bool right,
             bool cut)
{
    const char *p = value ? value : "";
    size_t start = out->len;
    char *esc;

    /* one scan: the length, unless a control character needs escaping */
    while (*p && !is_control((unsigned char)*p))
        p++;
    if (!*p) {
        fmt_buf_putn(out, value ? value : "",
                     (size_t)(p - (value ? value : "")));
    } else {
        esc = fmt_escape(value);
        fmt_buf_puts(out, esc);
        free(esc);
    }
    pad_in_place(out, start, width, right, cut);
}

const struct fmt_field *fmt_field_by_letter(const struct fmt_field *table,
                                            char letter)
{
    for (; table->header; table++) {
        if (table->letter && table->letter == letter)
            return table;
    }
    return NULL;
}

const struct fmt_field *fmt_field_by_name(const struct fmt_field *table,
                                          const char *name, size_t len)
{
    for (; table->header; table++) {
        if (table->name && strlen(table->name) == len
            && strncasecmp(table->name, name, len) == 0)
            return table;
    }
    return NULL;
}

static struct fmt_spec *spec_create(void)
{
    struct fmt_spec *spec = xzalloc(sizeof(*spec));

    spec->prefix = xstrdup("");
    return spec;
}

static void spec_add(struct fmt_spec *spec, const struct fmt_field *field,
                     int width, bool right, const char *suffix, size_t slen)
{
    struct fmt_item *it;

    spec->items = realloc(spec->items, (spec->count + 1) * sizeof(*it));
    if (!spec->items) {
        fprintf(stderr, "out of memory\n");
        abort();
    }
    it = &spec->items[spec->count++];
    it->field = field;
    it->width = width;
    it->right = right;
    it->suffix = xzalloc(slen + 1);
    memcpy(it->suffix, suffix, slen);
}

/* One token of an -o format: the text between two '%'. */
static void parse_token(struct fmt_spec *spec, const char *tok, size_t len,
                        const struct fmt_field *table)
{
    const char *p = tok, *end = tok + len;
    const struct fmt_field *field;
    bool right = false;
    int width = 0;

    if (p < end && *p == '.') {
        right = true;
        p++;
    }
    if (p < end && *p == '-')
        p++;
    while (p < end && isdigit((unsigned char)*p) && width < 100000)
        width = width * 10 + (*p++ - '0');
    if (p == end)
        return;
    if (!(field = fmt_field_by_letter(table, *p))) {
        if (!spec->bad)
            spec->bad = *p;
        return;
    }
    p++;
    spec_add(spec, field, width, right, p, (size_t)(end - p));
}

struct fmt_spec *fmt_parse(const char *format, const struct fmt_field *table)
{
    struct fmt_spec *spec = spec_create();
    const char *p = format ? format : "", *q;

    q = strchr(p, '%');
    if (!q)
        q = p + strlen(p);
    free(spec->prefix);
    spec->prefix = xzalloc((size_t)(q - p) + 1);
    memcpy(spec->prefix, p, (size_t)(q - p));
    while (*q == '%') {
        const char *tok = q + 1;
        const char *next = strchr(tok, '%');

        if (!next)
            next = tok + strlen(tok);
        if (next > tok)
            parse_token(spec, tok, (size_t)(next - tok), table);
        q = next;
    }
    return spec;
}

/* One entry of an -O format: "name[:[.]width]". */
static void parse_long_token(struct fmt_spec *spec, const char *tok,
                             size_t len, const struct fmt_field *table,
                             int default_width)
{
    const char *colon = memchr(tok, ':', len);
    size_t nlen = colon ? (size_t)(colon - tok) : len;
    const struct fmt_field *field = fmt_field_by_name(table, tok, nlen);
    int width = default_width;
    bool right = false;

    if (!field) {
        if (!spec->bad_name) {
            spec->bad_name = xzalloc(nlen + 1);
            memcpy(spec->bad_name, tok, nlen);
        }
        return;
    }
    if (colon) {
        const char *p = colon + 1, *end = tok + len;

        if (p < end && *p == '.') {
            right = true;
            p++;
        }
        if (p < end && isdigit((unsigned char)*p)) {
            width = 0;
            while (p < end && isdigit((unsigned char)*p) && width < 100000)
                width = width * 10 + (*p++ - '0');
        }
    }
    spec_add(spec, field, width, right, "", 0);
}

struct fmt_spec *fmt_parse_long(const char *format,
                                const struct fmt_field *table,
                                int default_width)
{
    struct fmt_spec *spec = spec_create();
    const char *p = format ? format : "";

    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);

        if (len > 0)
            parse_long_token(spec, p, len, table, default_width);
        p += len;
        if (*p == ',')
            p++;
    }
    return spec;
}

void fmt_spec_destroy(struct fmt_spec *spec)
{
    if (!spec)
        return;
    for (size_t i = 0; i < spec->count; i++)
        free(spec->items[i].suffix);
    free(spec->items);
    free(spec->prefix);
    free(spec->bad_name);
    free(spec);
}

char *fmt_header(const struct fmt_spec *spec)
{
    struct fmt_buf out = {0};

    fmt_buf_puts(&out, spec->prefix);
    for (size_t i = 0; i < spec->count; i++) {
        const struct fmt_item *it = &spec->items[i];

        fmt_pad(&out, it->field->header, it->width, it->right,
                !(it->field->flags & FMT_HEADER_NOCUT));
        fmt_buf_puts(&out, it->suffix);
    }
    fmt_buf_puts(&out, "");
    return out.s;
}

/* The value a field printed at the end of 'out', from 'start', padded or
 * cut in place as fmt_pad() would write it; a value with a control
 * character is escaped first (through 'scratch'). */
static void pad_tail(struct fmt_buf *out, size_t start, int width, bool right,
                     bool cut, struct fmt_buf *scratch)
{
    const char *p, *end;

    if (!out->s) /* nothing written yet: an empty text */
        fmt_buf_putn(out, "", 0);
    p = out->s + start;
    end = out->s + out->len;
    while (p < end && *p && !is_control((unsigned char)*p))
        p++;
    if (p < end && *p) { /* rare: the value again, escaped */
        fmt_buf_reset(scratch);
        fmt_buf_putn(scratch, out->s + start, out->len - start);
        out->len = start;
        fmt_pad(out, fmt_buf_str(scratch), width, right, cut);
        return;
    }
    out->len = (size_t)(p - out->s); /* a value ends at a NUL, as a text */
    out->s[out->len] = '\0';
    pad_in_place(out, start, width, right, cut);
}

void fmt_row_append(const struct fmt_spec *spec, const void *rec,
                    const void *ctx, struct fmt_buf *out,
                    struct fmt_buf *scratch)
{
    fmt_buf_puts(out, spec->prefix);
    for (size_t i = 0; i < spec->count; i++) {
        const struct fmt_item *it = &spec->items[i];
        size_t start = out->len;

        /* written in place, then padded: no copy of each value */
        it->field->print(out, rec, ctx);
        pad_tail(out, start, it->width, it->right,
                 !(it->field->flags & FMT_NOCUT), scratch);
        if (it->suffix[0])
            fmt_buf_puts(out, it->suffix);
    }
    fmt_buf_putn(out, "\n", 1);
}

char *fmt_row(const struct fmt_spec *spec, const void *rec, const void *ctx)
{
    struct fmt_buf out = {0}, val = {0};

    fmt_row_append(spec, rec, ctx, &out, &val);
    free(val.s);
    out.s[--out.len] = '\0'; /* the line without its newline */
    return out.s;
}
