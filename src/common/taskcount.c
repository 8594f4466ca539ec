/* SPDX-License-Identifier: Apache-2.0
 *
 * taskcount.c - "2(x3),1" -> 2,2,2,1 (see taskcount.h)
 */
#include <stdlib.h>
#include <string.h>

#include "common/taskcount.h"
#include "common/xalloc.h"

/* One item at *s: its count and repeat; advances *s.  -1 if malformed. */
static int item(const char **s, unsigned long *count, unsigned long *rep)
{
    char *end;

    if (**s < '0' || **s > '9')
        return -1;
    *count = strtoul(*s, &end, 10);
    *rep = 1;
    if (!strncmp(end, "(x", 2)) {
        const char *r = end + 2;

        if (*r < '0' || *r > '9')
            return -1;
        *rep = strtoul(r, &end, 10);
        if (*end != ')' || *rep == 0)
            return -1;
        end++;
    }
    if (*end == ',' && end[1])
        end++;
    else if (*end)
        return -1;
    *s = end;
    return 0;
}

int taskcount_decode(const char *s, uint32_t *counts, size_t max)
{
    size_t n = 0;

    while (s && *s) {
        unsigned long count, rep;

        if (item(&s, &count, &rep) < 0 || count > UINT32_MAX
            || rep > max - n)
            return -1;
        for (; rep > 0; rep--)
            counts[n++] = (uint32_t)count;
    }
    return (int)n;
}

char *taskcount_encode(const int64_t *counts, size_t n)
{
    char *out = xstrdup(""), *t;

    for (size_t i = 0; i < n;) {
        size_t run = 1;

        while (i + run < n && counts[i + run] == counts[i])
            run++;
        t = run > 1 ? xasprintf("%s%s%lld(x%zu)", out, i ? "," : "",
                                (long long)counts[i], run)
                    : xasprintf("%s%s%lld", out, i ? "," : "",
                                (long long)counts[i]);
        free(out);
        out = t;
        i += run;
    }
    return out;
}
