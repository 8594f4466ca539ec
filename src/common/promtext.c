/* SPDX-License-Identifier: Apache-2.0
 *
 * promtext.c - a text in Prometheus' exposition format (promtext.h)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/promtext.h"

void promtext_put(struct promtext *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(t->buf ? t->buf + t->len : NULL,
                      t->buf ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0 || t->oom)
            return;
        if (t->buf && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = (t->cap ? t->cap * 2 : 8192) + (size_t)n;
        char *b = realloc(t->buf, cap);
        if (!b) {
            t->oom = true;
            return;
        }
        t->buf = b;
        t->cap = cap;
    }
}

void promtext_header(struct promtext *t, const char *name, const char *type,
                     const char *help)
{
    promtext_put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

const char *promtext_esc(const char *s, char out[512])
{
    size_t k = 0;

    for (; s && *s && k < 510; s++) {
        if (*s == '\\' || *s == '"' || *s == '\n') {
            out[k++] = '\\';
            out[k++] = *s == '\n' ? 'n' : *s;
        } else {
            out[k++] = *s;
        }
    }
    out[k] = '\0';
    return out;
}
