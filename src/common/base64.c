/* SPDX-License-Identifier: Apache-2.0
 *
 * base64.c - standard base64 (RFC 4648, with padding)
 */
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "common/xalloc.h"

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *base64_encode(const void *data, size_t len)
{
    const unsigned char *p = data;
    char *out = xzalloc(4 * ((len + 2) / 3) + 1), *o = out;

    for (size_t i = 0; i < len; i += 3) {
        unsigned v = (unsigned)p[i] << 16;

        if (i + 1 < len)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < len)
            v |= p[i + 2];
        *o++ = alphabet[(v >> 18) & 63];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
        *o++ = i + 2 < len ? alphabet[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

static int value(char c)
{
    const char *p = c ? strchr(alphabet, c) : NULL;

    return p ? (int)(p - alphabet) : -1;
}

unsigned char *base64_decode(const char *s, size_t *len)
{
    size_t n = strlen(s), k = 0;
    unsigned char *out;

    if (n % 4)
        return NULL;
    out = xzalloc(n / 4 * 3 + 1);
    for (size_t i = 0; i < n; i += 4) {
        int a = value(s[i]), b = value(s[i + 1]);
        int c = s[i + 2] == '=' ? 0 : value(s[i + 2]);
        int d = s[i + 3] == '=' ? 0 : value(s[i + 3]);

        if (a < 0 || b < 0 || c < 0 || d < 0
            || (s[i + 2] == '=' && s[i + 3] != '=')) {
            free(out);
            return NULL;
        }
        out[k++] = (unsigned char)(a << 2 | b >> 4);
        if (s[i + 2] != '=')
            out[k++] = (unsigned char)((b & 15) << 4 | c >> 2);
        if (s[i + 3] != '=')
            out[k++] = (unsigned char)((c & 3) << 6 | d);
    }
    *len = k;
    return out;
}

unsigned char *base64url_decode(const char *s, size_t n, size_t *len)
{
    unsigned char *raw, *out;
    char *std;
    size_t k = n;

    if (n > 65536 || !(std = malloc(n + 4)))
        return NULL;
    for (size_t i = 0; i < n; i++)
        std[i] = s[i] == '-' ? '+' : s[i] == '_' ? '/' : s[i];
    while (k % 4)
        std[k++] = '=';
    std[k] = '\0';
    raw = base64_decode(std, len);
    free(std);
    if (!raw || !(out = realloc(raw, *len + 1))) {
        free(raw);
        return NULL;
    }
    out[*len] = '\0';
    return out;
}
