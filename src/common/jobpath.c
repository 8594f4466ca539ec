/* SPDX-License-Identifier: Apache-2.0
 *
 * jobpath.c - expand %j/%x/%u/%N/%A/%a (and srun's %s/%t/%n) in file names
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/jobpath.h"

struct sbuf {
    char *s;
    size_t len;
    size_t cap;
    int err;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
    if (b->err)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 128;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->err = ENOMEM;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void sb_num(struct sbuf *b, unsigned long long n, int width)
{
    char tmp[32];
    int len = snprintf(tmp, sizeof(tmp), "%0*llu", width, n);
    sb_add(b, tmp, (size_t)len);
}

/* Expand one "%[width]c"; returns the characters consumed after '%'. */
static size_t expand_one(struct sbuf *b, const char *p,
                         const struct jobpath_vars *v)
{
    size_t n = 0;
    int width = 0;
    const char *s;

    while (isdigit((unsigned char)p[n]) && n < 9)
        width = width * 10 + (p[n++] - '0');
    switch (p[n]) {
    case 'j':
        sb_num(b, v->job_id, width);
        break;
    case 'A':
        sb_num(b, v->array_job_id ? v->array_job_id : v->job_id, width);
        break;
    case 'a':
        sb_num(b, v->array_task_id >= 0 ? (unsigned long long)v->array_task_id
                                        : 4294967294ULL,
               width);
        break;
    case 'x':
    case 'u':
    case 'N':
        s = p[n] == 'x' ? v->job_name : p[n] == 'u' ? v->user : v->node;
        if (s)
            sb_add(b, s, strlen(s));
        else
            sb_add(b, p - 1, n + 2);
        break;
    case 's':
    case 't':
    case 'n':
        if (!v->have_step)
            sb_add(b, p - 1, n + 2);
        else
            sb_num(b, p[n] == 's' ? v->step_id
                      : p[n] == 't' ? v->task_id : v->node_id, width);
        break;
    case '%':
        sb_add(b, "%", 1);
        break;
    case '\0':
        sb_add(b, "%", 1);
        return n;
    default:
        sb_add(b, p - 1, n + 2);
        break;
    }
    return n + 1;
}

char *jobpath_expand(const char *pattern, const struct jobpath_vars *v)
{
    struct sbuf b = {0};

    if (v->work_dir && pattern[0] != '/') {
        sb_add(&b, v->work_dir, strlen(v->work_dir));
        sb_add(&b, "/", 1);
    }
    for (const char *p = pattern; *p;) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            sb_add(&b, p, strlen(p));
            break;
        }
        sb_add(&b, p, (size_t)(pct - p));
        p = pct + 1 + expand_one(&b, pct + 1, v);
    }
    if (!b.s && !b.err)
        sb_add(&b, "", 0);
    if (b.err) {
        free(b.s);
        errno = b.err;
        return NULL;
    }
    return b.s;
}
