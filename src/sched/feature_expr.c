/* SPDX-License-Identifier: Apache-2.0
 *
 * feature_expr.c - --constraint expressions over node features
 *
 * A small recursive-descent parser: or := and ('|' and)*,
 * and := atom ('&' atom)*, atom := name | '(' or ')'.  The same walk
 * checks syntax (node NULL) and evaluates (node features given).
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "sched/feature_expr.h"

struct walk {
    const char *s;        /* whole expression */
    const char *p;        /* cursor */
    const char *features; /* node's list; NULL when only checking */
    int (*fn)(const char *name, void *arg);
    void *arg;
    int fn_rc;
    unsigned depth; /* parentheses open at the cursor */
    bool bad;
};

static bool name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.'
           || c == ':' || c == '=';
}

bool feature_expr_has(const char *features, const char *name)
{
    size_t len = strlen(name);
    const char *p = features;

    while (p && *p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, name, len) == 0)
            return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}

static bool parse_or(struct walk *w);

static bool parse_atom(struct walk *w)
{
    char name[FEATURE_EXPR_NAME_MAX + 1];
    size_t n = 0;
    bool v;

    if (*w->p == '(') {
        if (++w->depth > FEATURE_EXPR_DEPTH_MAX) { /* bounds the recursion */
            w->bad = true;
            return false;
        }
        w->p++;
        v = parse_or(w);
        if (*w->p != ')')
            w->bad = true;
        else
            w->p++;
        w->depth--;
        return v;
    }
    while (name_char(w->p[n]))
        n++;
    if (n == 0 || n > FEATURE_EXPR_NAME_MAX) {
        w->bad = true;
        return false;
    }
    memcpy(name, w->p, n);
    name[n] = '\0';
    w->p += n;
    if (w->fn && !w->fn_rc)
        w->fn_rc = w->fn(name, w->arg);
    return w->features ? feature_expr_has(w->features, name) : true;
}

static bool parse_and(struct walk *w)
{
    bool v = parse_atom(w);

    while (!w->bad && *w->p == '&') {
        w->p++;
        v = parse_atom(w) && v; /* parse every atom, even when v is false */
    }
    return v;
}

static bool parse_or(struct walk *w)
{
    bool v = parse_and(w);

    while (!w->bad && *w->p == '|') {
        w->p++;
        v = parse_and(w) || v;
    }
    return v;
}

static bool walk_run(struct walk *w)
{
    bool v = parse_or(w);

    if (*w->p)
        w->bad = true;
    return v && !w->bad;
}

int feature_expr_check(const char *expr, drv_error_t *error)
{
    struct walk w = { .s = expr, .p = expr };

    if (expr && strlen(expr) > FEATURE_EXPR_LEN_MAX) {
        errno = EINVAL;
        return errprintf(error, "feature expression longer than %d bytes",
                         FEATURE_EXPR_LEN_MAX);
    }
    if (expr && *expr)
        walk_run(&w);
    if (!expr || !*expr || w.bad) {
        errno = EINVAL;
        return errprintf(error, "invalid feature expression at column %zu",
                         expr ? (size_t)(w.p - expr) + 1 : 0);
    }
    return 0;
}

int feature_expr_each(const char *expr, int (*fn)(const char *name, void *arg),
                  void *arg)
{
    struct walk w = { .s = expr, .p = expr, .fn = fn, .arg = arg };

    walk_run(&w);
    return w.fn_rc;
}

bool feature_expr_match(const char *expr, const char *features)
{
    struct walk w = { .s = expr, .p = expr, .features = features ? features : "" };

    if (!expr || !*expr)
        return true;
    return walk_run(&w);
}
