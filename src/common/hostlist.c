/* SPDX-License-Identifier: Apache-2.0
 *
 * hostlist.c - expand and compress Slurm hostlist expressions
 *
 * A hostlist is an ordered array of owned host names.  Decoding expands each
 * bracket group of a name in turn, so "r[1-2]n[1-2]" gives r1n1 r1n2 r2n1
 * r2n2.  Encoding never sorts: like Slurm's hostlist_ranged_string() on an
 * unsorted list, it merges runs in list order and brackets neighbouring runs
 * that share a prefix.  As in Slurm, only a name's trailing digits are its
 * number, so m01x m02x encode as "m01x,m02x".
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"

/* Longest number accepted in a range, or taken as a host's numeric suffix:
 * 18 digits always fit an unsigned long long, with room for hi + 1.
 */
#define NUM_DIGITS_MAX 18

/* Bracket groups in one name; bounds the recursion of expand(). */
#define NAME_BRACKETS_MAX 16

struct hostlist {
    char **hosts;
    size_t count;
    size_t alloc;
};

/* One "lo-hi" item of a bracket body; width is the length of lo's text. */
struct range {
    unsigned long long lo;
    unsigned long long hi;
    int width;
};

struct decoder {
    hostlist_t *hl;
    const char *expr; /* the whole expression, for error columns */
    drv_error_t *error;
    char *buf; /* the name being built */
};

/* A run of hosts merged for encoding: prefix + numbers lo..hi. */
struct run {
    const char *host; /* first host of the run */
    size_t plen;      /* prefix length (whole name when !numeric) */
    bool numeric;
    unsigned long long lo;
    unsigned long long hi;
    int wmin; /* every member prints right at any width in wmin..wmax */
    int wmax;
};

struct strbuf {
    char *s;
    size_t len;
    size_t alloc;
    bool failed;
};

hostlist_t *hostlist_create(void)
{
    hostlist_t *hl = calloc(1, sizeof(*hl));

    if (!hl)
        errno = ENOMEM;
    return hl;
}

void hostlist_destroy(hostlist_t *hl)
{
    if (hl) {
        int saved_errno = errno;
        for (size_t i = 0; i < hl->count; i++)
            free(hl->hosts[i]);
        free(hl->hosts);
        free(hl);
        errno = saved_errno;
    }
}

static int append_len(hostlist_t *hl, const char *host, size_t len)
{
    char *copy;

    if (hl->count == hl->alloc) {
        size_t n = hl->alloc ? hl->alloc * 2 : 16;
        char **hosts = realloc(hl->hosts, n * sizeof(*hosts));
        if (!hosts) {
            errno = ENOMEM;
            return -1;
        }
        hl->hosts = hosts;
        hl->alloc = n;
    }
    if (!(copy = strndup(host, len))) {
        errno = ENOMEM;
        return -1;
    }
    hl->hosts[hl->count++] = copy;
    return 0;
}

int hostlist_append(hostlist_t *hl, const char *host)
{
    if (!hl || !host) {
        errno = EINVAL;
        return -1;
    }
    return append_len(hl, host, strlen(host));
}

size_t hostlist_count(const hostlist_t *hl)
{
    return hl ? hl->count : 0;
}

const char *hostlist_nth(const hostlist_t *hl, size_t n)
{
    if (!hl || n >= hl->count) {
        errno = ERANGE;
        return NULL;
    }
    return hl->hosts[n];
}

long hostlist_find(const hostlist_t *hl, const char *host)
{
    if (!hl || !host)
        return -1;
    for (size_t i = 0; i < hl->count; i++) {
        if (strcmp(hl->hosts[i], host) == 0)
            return (long)i;
    }
    return -1;
}

/* Decoding */

/* Report a syntax error at 'at'.  Always returns -1 with errno=EINVAL. */
static int syntax(struct decoder *d, const char *at, const char *what)
{
    errno = EINVAL;
    return errprintf(d->error,
                     "hostlist: %s at column %zu of \"%s\"",
                     what,
                     (size_t)(at - d->expr) + 1,
                     d->expr);
}

static int too_many(struct decoder *d)
{
    errno = ERANGE;
    return errprintf(d->error,
                     "hostlist: more than %d hosts in \"%s\"",
                     HOSTLIST_MAX,
                     d->expr);
}

static bool is_sep(char c)
{
    return c == ',' || isspace((unsigned char)c);
}

/* Set *end to the end of the name starting at p: the next separator outside
 * brackets.  Checks that brackets pair up and do not nest.
 */
static int name_end(struct decoder *d, const char *p, const char **end)
{
    const char *open = NULL;

    for (; *p && (open || !is_sep(*p)); p++) {
        if (*p == '[') {
            if (open)
                return syntax(d, p, "nested '['");
            open = p;
        } else if (*p == ']') {
            if (!open)
                return syntax(d, p, "']' without '['");
            open = NULL;
        }
    }
    if (open)
        return syntax(d, open, "missing ']' for '['");
    *end = p;
    return 0;
}

/* Parse the digits at *p into *val; *width (if non-NULL) gets their count. */
static int parse_num(struct decoder *d,
                     const char **p,
                     unsigned long long *val,
                     int *width)
{
    const char *s = *p;
    unsigned long long v = 0;
    int n = 0;

    for (; isdigit((unsigned char)s[n]); n++) {
        if (n == NUM_DIGITS_MAX)
            return syntax(d, s, "number too long");
        v = v * 10 + (unsigned long long)(s[n] - '0');
    }
    if (n == 0)
        return syntax(d, s, "expected a number");
    *val = v;
    if (width)
        *width = n;
    *p = s + n;
    return 0;
}

/* Parse the "lo[-hi]" at *p in a bracket body, leaving *p on the ',' or ']'
 * that follows it.
 */
static int next_range(struct decoder *d, const char **p, struct range *r)
{
    const char *start = *p;
    const char *s = start;

    if (parse_num(d, &s, &r->lo, &r->width) < 0)
        return -1;
    r->hi = r->lo;
    if (*s == '-') {
        s++;
        if (parse_num(d, &s, &r->hi, NULL) < 0)
            return -1;
        if (r->hi < r->lo)
            return syntax(d, start, "range goes backwards");
    }
    if (*s != ',' && *s != ']')
        return syntax(d, s, "unexpected character in range");
    *p = s;
    return 0;
}

/* Check the bracket body after 'open' and count the numbers it holds. */
static int
bracket_count(struct decoder *d, const char *open, unsigned long long *count)
{
    const char *p = open + 1;
    unsigned long long n = 0;
    struct range r;

    for (;;) {
        if (next_range(d, &p, &r) < 0)
            return -1;
        n += r.hi - r.lo + 1;
        if (n > HOSTLIST_MAX)
            return too_many(d);
        if (*p == ']')
            break;
        p++;
    }
    *count = n;
    return 0;
}

/* Check the name [p, end) and count the hosts it expands to. */
static int name_count(struct decoder *d,
                      const char *p,
                      const char *end,
                      unsigned long long *count)
{
    unsigned long long total = 1;
    int brackets = 0;

    while ((p = memchr(p, '[', (size_t)(end - p)))) {
        unsigned long long n = 0;
        if (++brackets > NAME_BRACKETS_MAX)
            return syntax(d, p, "too many bracket groups");
        if (bracket_count(d, p, &n) < 0)
            return -1;
        total *= n; /* both factors <= HOSTLIST_MAX: no overflow */
        if (total > HOSTLIST_MAX)
            return too_many(d);
        p++;
    }
    *count = total;
    return 0;
}

/* Append every name made of d->buf[0..blen) followed by the expansion of
 * [p, end).  The name was checked by name_count().  A formatted number is
 * never longer than the bracket text it replaces, so d->buf, sized for the
 * name's text, is big enough.
 */
static int
expand(struct decoder *d, size_t blen, const char *p, const char *end)
{
    const char *open = memchr(p, '[', (size_t)(end - p));
    const char *close;
    const char *q;
    struct range r;

    if (!open) {
        memcpy(d->buf + blen, p, (size_t)(end - p));
        return append_len(d->hl, d->buf, blen + (size_t)(end - p));
    }
    memcpy(d->buf + blen, p, (size_t)(open - p));
    blen += (size_t)(open - p);
    close = strchr(open, ']');
    for (q = open + 1;; q++) {
        (void)next_range(d, &q, &r);
        for (unsigned long long v = r.lo; v <= r.hi; v++) {
            int n = sprintf(d->buf + blen, "%0*llu", r.width, v);
            if (expand(d, blen + (size_t)n, close + 1, end) < 0)
                return -1;
        }
        if (*q == ']')
            break;
    }
    return 0;
}

static int decode_name(struct decoder *d, const char *p, const char *end)
{
    unsigned long long count = 0;
    int rc;

    if (name_count(d, p, end, &count) < 0)
        return -1;
    if (count > HOSTLIST_MAX - d->hl->count)
        return too_many(d);
    if (!(d->buf = malloc((size_t)(end - p) + 1))) {
        errno = ENOMEM;
        return errprintf(d->error, "hostlist: out of memory");
    }
    if ((rc = expand(d, 0, p, end)) < 0)
        errprintf(d->error, "hostlist: out of memory");
    free(d->buf);
    d->buf = NULL;
    return rc;
}

hostlist_t *hostlist_decode(const char *expr, drv_error_t *error)
{
    struct decoder d = {.expr = expr, .error = error};
    const char *p = expr;
    const char *end = NULL;

    if (!expr) {
        errno = EINVAL;
        errprintf(error, "hostlist: no expression");
        return NULL;
    }
    if (!(d.hl = hostlist_create())) {
        errprintf(error, "hostlist: out of memory");
        return NULL;
    }
    for (;;) {
        while (is_sep(*p))
            p++;
        if (!*p)
            break;
        if (name_end(&d, p, &end) < 0 || decode_name(&d, p, end) < 0) {
            hostlist_destroy(d.hl);
            return NULL;
        }
        p = end;
    }
    return d.hl;
}

/* Encoding */

static void sb_printf(struct strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void sb_printf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (sb->failed)
        return;
    va_start(ap, fmt);
    n = vsnprintf(sb->s + sb->len, sb->alloc - sb->len, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n >= sb->alloc - sb->len) {
        size_t alloc = sb->alloc * 2 > sb->len + (size_t)n + 1
                           ? sb->alloc * 2
                           : sb->len + (size_t)n + 1;
        char *s = realloc(sb->s, alloc);
        if (!s) {
            sb->failed = true;
            return;
        }
        sb->s = s;
        sb->alloc = alloc;
        va_start(ap, fmt);
        n = vsnprintf(sb->s + sb->len, sb->alloc - sb->len, fmt, ap);
        va_end(ap);
    }
    if (n < 0)
        sb->failed = true;
    else
        sb->len += (size_t)n;
}

/* Fill a one-host run from 'host', splitting off its trailing digits.  An
 * unpadded number of n digits prints right at any width 1..n; a
 * zero-padded one ("007") only at its own width.
 */
static void run_init(struct run *r, const char *host)
{
    size_t len = strlen(host);
    size_t n = 0;

    while (n < len && isdigit((unsigned char)host[len - 1 - n]))
        n++;
    *r = (struct run){.host = host};
    r->numeric = n > 0 && n <= NUM_DIGITS_MAX;
    r->plen = r->numeric ? len - n : len;
    if (r->numeric) {
        r->lo = r->hi = strtoull(host + r->plen, NULL, 10);
        r->wmax = (int)n;
        r->wmin = (n > 1 && host[r->plen] == '0') ? (int)n : 1;
    }
}

static bool same_prefix(const struct run *a, const struct run *b)
{
    return a->numeric && b->numeric && a->plen == b->plen
           && memcmp(a->host, b->host, a->plen) == 0;
}

/* Extend 'tail' by the one-host run 'r' if r's number comes next and a
 * width exists at which both print right.
 */
static bool run_join(struct run *tail, const struct run *r)
{
    int wmin = tail->wmin > r->wmin ? tail->wmin : r->wmin;
    int wmax = tail->wmax < r->wmax ? tail->wmax : r->wmax;

    if (!same_prefix(tail, r) || r->lo != tail->hi + 1 || wmin > wmax)
        return false;
    tail->hi = r->lo;
    tail->wmin = wmin;
    tail->wmax = wmax;
    return true;
}

/* Print runs[first..last], which share a prefix, as "pre[1-3,5]"; a lone
 * host prints as itself.
 */
static void print_group(struct strbuf *sb,
                        const struct run *runs,
                        size_t first,
                        size_t last)
{
    const struct run *r = &runs[first];

    if (!r->numeric || (first == last && r->lo == r->hi)) {
        sb_printf(sb, "%s", r->host);
        return;
    }
    sb_printf(sb, "%.*s[", (int)r->plen, r->host);
    for (size_t i = first; i <= last; i++) {
        r = &runs[i];
        sb_printf(sb, "%s%0*llu", i > first ? "," : "", r->wmin, r->lo);
        if (r->hi > r->lo)
            sb_printf(sb, "-%0*llu", r->wmin, r->hi);
    }
    sb_printf(sb, "]");
}

char *hostlist_encode(const hostlist_t *hl)
{
    struct strbuf sb = {.alloc = 64};
    struct run *runs = NULL;
    size_t nruns = 0;

    if (!(sb.s = malloc(sb.alloc))
        || (hl && hl->count && !(runs = calloc(hl->count, sizeof(*runs)))))
        goto nomem;
    sb.s[0] = '\0';
    for (size_t i = 0; hl && i < hl->count; i++) {
        struct run r;
        run_init(&r, hl->hosts[i]);
        if (nruns == 0 || !run_join(&runs[nruns - 1], &r))
            runs[nruns++] = r;
    }
    for (size_t i = 0; i < nruns;) {
        size_t last = i;
        while (last + 1 < nruns && same_prefix(&runs[i], &runs[last + 1]))
            last++;
        if (i > 0)
            sb_printf(&sb, ",");
        print_group(&sb, runs, i, last);
        i = last + 1;
    }
    if (sb.failed)
        goto nomem;
    free(runs);
    return sb.s;
nomem:
    free(runs);
    free(sb.s);
    errno = ENOMEM;
    return NULL;
}
