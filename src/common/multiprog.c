/* SPDX-License-Identifier: Apache-2.0
 *
 * multiprog.c - srun --multi-prog configuration files (multiprog.h)
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/multiprog.h"
#include "common/xalloc.h"

/* The next logical line from *pp (physical lines ending in '\' joined),
 * and the number of its first physical line; NULL at the end. */
static char *next_line(const char **pp, int *line_no, int *next_no)
{
    const char *p = *pp;
    size_t cap = 64, len = 0;
    char *out;

    if (!*p)
        return NULL;
    *line_no = *next_no;
    out = xzalloc(cap);
    while (*p) {
        size_t n = strcspn(p, "\n");
        bool cont = n > 0 && p[n - 1] == '\\';

        if (len + n + 2 > cap) {
            cap = (len + n + 2) * 2;
            out = xrealloc(out, cap);
        }
        memcpy(out + len, p, cont ? n - 1 : n);
        len += cont ? n - 1 : n;
        out[len] = '\0';
        p += n + (p[n] == '\n');
        (*next_no)++;
        if (!cont)
            break;
    }
    *pp = p;
    return out;
}

/* Split a record into its rank spec (returned, in 'line') and *rest (the
 * program and arguments); NULL for a comment or blank line. */
static char *split_record(char *line, char **rest)
{
    char *p = line, *spec;

    while (isspace((unsigned char)*p))
        p++;
    if (!*p || *p == '#')
        return NULL;
    spec = p;
    while (*p && !isspace((unsigned char)*p))
        p++;
    if (*p)
        *p++ = '\0';
    while (isspace((unsigned char)*p))
        p++;
    *rest = p;
    return spec;
}

/* One comma token of a rank spec: "5" or "2-4".  Returns 0, or -1 with
 * Slurm's text in 'err'. */
static int parse_range(const char *tok, int *lo, int *hi, char *err,
                       size_t errlen)
{
    const char *p = tok;

    while (isdigit((unsigned char)*p))
        p++;
    if (p == tok || (*p && *p != '-')) {
        snprintf(err, errlen, "Invalid task range specification (%s)", tok);
        return -1;
    }
    *lo = atoi(tok);
    *hi = *lo;
    if (*p == '-') {
        const char *upper = ++p;

        while (isdigit((unsigned char)*p))
            p++;
        if (*p || p == upper) {
            snprintf(err, errlen, "Invalid task range specification");
            return -1;
        }
        *hi = atoi(upper);
    }
    return 0;
}

struct check {
    bool *seen;
    int *ntasks;
    bool grow;     /* no -n: the count follows the ranks */
    bool star;     /* a "*" line was seen */
    char *err;
    size_t errlen;
};

static int mark(struct check *c, int lo, int hi, bool dup_ok)
{
    if (lo > hi) {
        snprintf(c->err, c->errlen, "Invalid task range, %d-%d", lo, hi);
        return -1;
    }
    if (hi >= *c->ntasks) {
        if (!c->grow) {
            snprintf(c->err, c->errlen, "Invalid task id, %d >= ntasks", hi);
            return -1;
        }
        c->seen = xrealloc(c->seen, (size_t)(hi + 1) * sizeof(bool));
        memset(c->seen + *c->ntasks, 0,
               (size_t)(hi + 1 - *c->ntasks) * sizeof(bool));
        *c->ntasks = hi + 1;
    }
    for (int i = lo; i <= hi; i++) {
        if (c->seen[i] && !dup_ok) {
            snprintf(c->err, c->errlen, "Duplicate record for task %d", i);
            return -1;
        }
        c->seen[i] = true;
    }
    return 0;
}

static int check_ranks(struct check *c, char *spec)
{
    char *save = NULL;

    if (!strcmp(spec, "*")) {
        c->star = true;
        c->grow = false; /* as Slurm: the count is fixed from here */
        return mark(c, 0, *c->ntasks - 1, true);
    }
    for (char *tok = strtok_r(spec, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        int lo, hi;

        if (c->star) {
            snprintf(c->err, c->errlen, "Task range specification with "
                                        "asterisk must be last");
            return -1;
        }
        if (parse_range(tok, &lo, &hi, c->err, c->errlen) < 0
            || mark(c, lo, hi, false) < 0)
            return -1;
    }
    return 0;
}

/* Append "\nLine N of configuration file F invalid" to c->err (or set it
 * when empty). */
static void line_invalid(struct check *c, int line_no, const char *fname)
{
    size_t len = strlen(c->err);

    snprintf(c->err + len, c->errlen - len,
             "%sLine %d of configuration file %s invalid", len ? "\n" : "",
             line_no, fname);
}

int multiprog_check(const char *text, const char *fname, int *ntasks,
                    bool ntasks_set, char *err, size_t errlen)
{
    struct check c = {.ntasks = ntasks, .grow = !ntasks_set, .err = err,
                      .errlen = errlen};
    int line_no = 0, next_no = 1, rc = 0;
    char *line;

    err[0] = '\0';
    if (*ntasks <= 0) {
        snprintf(err, errlen, "Invalid task count %d", *ntasks);
        return -1;
    }
    c.seen = xzalloc((size_t)*ntasks * sizeof(bool));
    while (rc == 0 && (line = next_line(&text, &line_no, &next_no))) {
        char *rest = NULL, *spec = split_record(line, &rest);

        if (spec && (!*rest || check_ranks(&c, spec) < 0)) {
            line_invalid(&c, line_no, fname);
            rc = -1;
        }
        free(line);
    }
    for (int i = 0; rc == 0 && i < *ntasks; i++)
        if (!c.seen[i]) {
            snprintf(err, errlen, "Configuration file %s invalid, no record "
                                  "for task id %d", fname, i);
            rc = -1;
        }
    free(c.seen);
    return rc;
}

/* Is 'rank' in 'spec'?  *offset: its position among the spec's ranks. */
static bool rank_in(const char *spec, int rank, int *offset)
{
    char *copy, *save = NULL;
    int passed = 0;
    bool found = false;

    if (!strcmp(spec, "*")) {
        *offset = rank;
        return true;
    }
    copy = xstrdup(spec);
    for (char *tok = strtok_r(copy, ",", &save); tok && !found;
         tok = strtok_r(NULL, ",", &save)) {
        int lo, hi;
        char ignore[64];

        if (parse_range(tok, &lo, &hi, ignore, sizeof(ignore)) < 0)
            continue;
        if (rank >= lo && rank <= hi) {
            *offset = passed + rank - lo;
            found = true;
        }
        passed += hi - lo + 1;
    }
    free(copy);
    return found;
}

struct argv_b {
    char **v;
    size_t n;
    char *cur;
    size_t len, cap;
};

/* Start an argument (an empty one: ''), if none is open. */
static void open_arg(struct argv_b *b)
{
    if (!b->cur) {
        b->cap = 32;
        b->cur = xzalloc(b->cap);
    }
}

static void put_char(struct argv_b *b, char ch)
{
    open_arg(b);
    if (b->len + 2 > b->cap) {
        b->cap = b->cap ? b->cap * 2 : 32;
        b->cur = xrealloc(b->cur, b->cap);
    }
    b->cur[b->len++] = ch;
    b->cur[b->len] = '\0';
}

static void put_str(struct argv_b *b, const char *s)
{
    for (; *s; s++)
        put_char(b, *s);
}

static void end_arg(struct argv_b *b)
{
    if (!b->cur)
        return;
    b->v = xrealloc(b->v, (b->n + 2) * sizeof(char *));
    b->v[b->n++] = b->cur;
    b->v[b->n] = NULL;
    b->cur = NULL;
    b->len = b->cap = 0;
}

static void free_argv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* The arguments in 'p' for task 'rank' at 'offset'; NULL for an unclosed
 * quote. */
static char **split_args(const char *p, int rank, int offset)
{
    struct argv_b b = {0};
    char quote = 0, num[16];

    for (; *p; p++) {
        if (quote) {
            if (*p == quote)
                quote = 0;
            else
                put_char(&b, *p);
        } else if (isspace((unsigned char)*p)) {
            end_arg(&b);
        } else if (*p == '\'' || *p == '"') {
            quote = *p;
            open_arg(&b);
        } else if (*p == '\\' && p[1]) {
            put_char(&b, *++p);
        } else if (*p == '%' && (p[1] == 't' || p[1] == 'o')) {
            snprintf(num, sizeof(num), "%d", *++p == 't' ? rank : offset);
            put_str(&b, num);
        } else {
            put_char(&b, *p);
        }
    }
    if (quote) {
        free(b.cur);
        free_argv(b.v);
        return NULL;
    }
    end_arg(&b);
    return b.v;
}

char **multiprog_argv(const char *text, int rank)
{
    int line_no = 0, next_no = 1, offset = 0;
    char **argv = NULL, *line;

    while (!argv && (line = next_line(&text, &line_no, &next_no))) {
        char *rest = NULL, *spec = split_record(line, &rest);

        if (spec && *rest && rank_in(spec, rank, &offset)) {
            argv = split_args(rest, rank, offset);
            free(line);
            return argv;
        }
        free(line);
    }
    return NULL;
}
