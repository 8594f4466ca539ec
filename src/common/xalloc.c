/* SPDX-License-Identifier: Apache-2.0
 *
 * xalloc.c - aborting allocators for glue code
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

static void oom(const char *file, int line)
{
    fprintf(stderr, "out of memory at %s:%d\n", file, line);
    abort();
}

void *xzalloc_at(size_t size, const char *file, int line)
{
    void *p = calloc(1, size ? size : 1);

    if (!p)
        oom(file, line);
    return p;
}

void *xrealloc_at(void *p, size_t size, const char *file, int line)
{
    void *n = realloc(p, size ? size : 1);

    if (!n)
        oom(file, line);
    return n;
}

char *xstrdup_at(const char *s, const char *file, int line)
{
    char *p;

    if (!s)
        return NULL;
    if (!(p = strdup(s)))
        oom(file, line);
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    int rc;

    va_start(ap, fmt);
    rc = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (rc < 0)
        oom(__FILE__, __LINE__);
    return s;
}
