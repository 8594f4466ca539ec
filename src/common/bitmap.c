/* SPDX-License-Identifier: Apache-2.0
 *
 * bitmap.c - fixed-size bit sets in 64-bit words
 *
 * Bits past nbits in the last word are always zero, so counting and
 * scanning can work a word at a time.  A bit index >= nbits is ignored by
 * set and clear and reads as clear: callers hold the size, and a stray
 * index must not write past the end.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bitmap.h"

#define WORD_BITS 64

struct bitmap {
    size_t nbits;
    size_t nwords;
    uint64_t words[];
};

struct strbuf {
    char *s;
    size_t len;
    size_t alloc;
};

static size_t words_for(size_t nbits)
{
    return nbits / WORD_BITS + (nbits % WORD_BITS != 0);
}

static uint64_t bit_mask(size_t bit)
{
    return UINT64_C(1) << (bit % WORD_BITS);
}

bitmap_t *bitmap_create(size_t nbits)
{
    size_t nwords = words_for(nbits);
    bitmap_t *b;

    if (nwords > (SIZE_MAX - sizeof(*b)) / sizeof(uint64_t)
        || !(b = calloc(1, sizeof(*b) + nwords * sizeof(uint64_t)))) {
        errno = ENOMEM;
        return NULL;
    }
    b->nbits = nbits;
    b->nwords = nwords;
    return b;
}

bitmap_t *bitmap_copy(const bitmap_t *b)
{
    bitmap_t *copy;

    if (!b) {
        errno = EINVAL;
        return NULL;
    }
    if ((copy = bitmap_create(b->nbits)))
        memcpy(copy->words, b->words, b->nwords * sizeof(uint64_t));
    return copy;
}

void bitmap_destroy(bitmap_t *b)
{
    int saved_errno = errno;

    free(b);
    errno = saved_errno;
}

size_t bitmap_size(const bitmap_t *b)
{
    return b ? b->nbits : 0;
}

void bitmap_set(bitmap_t *b, size_t bit)
{
    if (b && bit < b->nbits)
        b->words[bit / WORD_BITS] |= bit_mask(bit);
}

void bitmap_clear(bitmap_t *b, size_t bit)
{
    if (b && bit < b->nbits)
        b->words[bit / WORD_BITS] &= ~bit_mask(bit);
}

bool bitmap_test(const bitmap_t *b, size_t bit)
{
    return b && bit < b->nbits && (b->words[bit / WORD_BITS] & bit_mask(bit));
}

void bitmap_clear_all(bitmap_t *b)
{
    if (b)
        memset(b->words, 0, b->nwords * sizeof(uint64_t));
}

size_t bitmap_count(const bitmap_t *b)
{
    size_t n = 0;

    for (size_t i = 0; b && i < b->nwords; i++)
        n += (size_t)__builtin_popcountll(b->words[i]);
    return n;
}

/* First bit at or after 'from' whose value is 'want', or -1. */
static long find_bit(const bitmap_t *b, size_t from, bool want)
{
    if (!b || from >= b->nbits)
        return -1;
    for (size_t i = from / WORD_BITS; i < b->nwords; i++) {
        uint64_t w = want ? b->words[i] : ~b->words[i];
        if (i == from / WORD_BITS)
            w &= ~UINT64_C(0) << (from % WORD_BITS);
        if (w) {
            size_t bit = i * WORD_BITS + (size_t)__builtin_ctzll(w);
            return bit < b->nbits ? (long)bit : -1;
        }
    }
    return -1;
}

long bitmap_first_set(const bitmap_t *b, size_t from)
{
    return find_bit(b, from, true);
}

long bitmap_first_clear(const bitmap_t *b, size_t from)
{
    return find_bit(b, from, false);
}

/* Zero the bits past nbits in the last word. */
static void trim(bitmap_t *b)
{
    if (b->nbits % WORD_BITS)
        b->words[b->nwords - 1] &= bit_mask(b->nbits) - 1;
}

void bitmap_or(bitmap_t *dst, const bitmap_t *src)
{
    if (!dst || !src)
        return;
    for (size_t i = 0; i < dst->nwords && i < src->nwords; i++)
        dst->words[i] |= src->words[i];
    trim(dst);
}

void bitmap_and_not(bitmap_t *dst, const bitmap_t *src)
{
    if (!dst || !src)
        return;
    for (size_t i = 0; i < dst->nwords && i < src->nwords; i++)
        dst->words[i] &= ~src->words[i];
}

bool bitmap_overlap(const bitmap_t *a, const bitmap_t *b)
{
    for (size_t i = 0; a && b && i < a->nwords && i < b->nwords; i++) {
        if (a->words[i] & b->words[i])
            return true;
    }
    return false;
}

static int sb_printf(struct strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Append to sb, growing it.  Returns 0, or -1 with errno=ENOMEM. */
static int sb_printf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(sb->s + sb->len, sb->alloc - sb->len, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n >= sb->alloc - sb->len) {
        size_t alloc = sb->alloc * 2 + (size_t)n + 1;
        char *s = realloc(sb->s, alloc);
        if (!s) {
            errno = ENOMEM;
            return -1;
        }
        sb->s = s;
        sb->alloc = alloc;
        va_start(ap, fmt);
        n = vsnprintf(sb->s + sb->len, sb->alloc - sb->len, fmt, ap);
        va_end(ap);
    }
    if (n < 0) {
        errno = ENOMEM;
        return -1;
    }
    sb->len += (size_t)n;
    return 0;
}

char *bitmap_fmt(const bitmap_t *b)
{
    struct strbuf sb = {.alloc = 32};
    long lo = bitmap_first_set(b, 0);

    if (!(sb.s = malloc(sb.alloc))) {
        errno = ENOMEM;
        return NULL;
    }
    sb.s[0] = '\0';
    while (lo >= 0) {
        long end = bitmap_first_clear(b, (size_t)lo); /* one past the run */
        long hi = (end < 0 ? (long)b->nbits : end) - 1;
        int rc = hi > lo
                     ? sb_printf(&sb, "%s%ld-%ld", sb.len ? "," : "", lo, hi)
                     : sb_printf(&sb, "%s%ld", sb.len ? "," : "", lo);
        if (rc < 0) {
            free(sb.s);
            return NULL;
        }
        lo = end < 0 ? -1 : bitmap_first_set(b, (size_t)end);
    }
    return sb.s;
}

/* Parse the decimal at *p into *val, advancing *p.  Refuses values that
 * cannot be a bit of an 'nbits' bitmap.  's' is the whole text, for errors.
 */
static int parse_bit(const char **p,
                     size_t nbits,
                     size_t *val,
                     const char *s,
                     drv_error_t *error)
{
    const char *q = *p;
    size_t v = 0;

    errno = EINVAL;
    if (*q < '0' || *q > '9')
        return errprintf(error,
                         "bitmap \"%s\": expected a number at column %zu",
                         s,
                         (size_t)(q - s) + 1);
    for (; *q >= '0' && *q <= '9'; q++) {
        if (v > (SIZE_MAX - 9) / 10
            || (v = v * 10 + (size_t)(*q - '0')) >= nbits)
            return errprintf(error,
                             "bitmap \"%s\": bit %.*s is not below %zu",
                             s,
                             (int)strspn(*p, "0123456789"),
                             *p,
                             nbits);
    }
    *val = v;
    *p = q;
    return 0;
}

/* Parse "lo[-hi]" at *p and set those bits, leaving *p after the item and
 * the ',' that ends it.
 */
static int
parse_range(bitmap_t *b, const char **p, const char *s, drv_error_t *error)
{
    const char *start = *p;
    size_t lo, hi;

    if (parse_bit(p, b->nbits, &lo, s, error) < 0)
        return -1;
    hi = lo;
    if (**p == '-') {
        (*p)++;
        if (parse_bit(p, b->nbits, &hi, s, error) < 0)
            return -1;
    }
    errno = EINVAL;
    if (hi < lo)
        return errprintf(error,
                         "bitmap \"%s\": range %.*s goes backwards",
                         s,
                         (int)(*p - start),
                         start);
    if (**p != '\0' && **p != ',')
        return errprintf(error,
                         "bitmap \"%s\": unexpected '%c' at column %zu",
                         s,
                         **p,
                         (size_t)(*p - s) + 1);
    if (**p == ',' && (*p)[1] == '\0')
        return errprintf(error, "bitmap \"%s\": trailing ','", s);
    for (size_t i = lo; i <= hi; i++)
        bitmap_set(b, i);
    if (**p == ',')
        (*p)++;
    return 0;
}

bitmap_t *bitmap_parse(const char *s, size_t nbits, drv_error_t *error)
{
    const char *p = s;
    bitmap_t *b;

    if (!s) {
        errno = EINVAL;
        errprintf(error, "bitmap: no text to parse");
        return NULL;
    }
    if (!(b = bitmap_create(nbits))) {
        errprintf(error, "bitmap: out of memory");
        return NULL;
    }
    while (*p) {
        if (parse_range(b, &p, s, error) < 0) {
            bitmap_destroy(b);
            return NULL;
        }
    }
    return b;
}

size_t bitmap_list_bits(const char *s, size_t max)
{
    unsigned long long top = 0;

    while (s && *s) {
        if (*s >= '0' && *s <= '9') {
            char *end;
            unsigned long long v = strtoull(s, &end, 10);
            if (v > top)
                top = v;
            s = end;
        } else {
            s++;
        }
    }
    return top < max ? (size_t)top + 1 : max;
}
