/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_lexer.c - the line syntax of slurm.conf and gres.conf
 *
 * Key=Value pairs separated by white space, several to a line; '#' starts a
 * comment (outside double quotes); a trailing backslash continues the line;
 * "Include PATH" reads another file in place.  Spaces around '=' are allowed,
 * as Slurm's parser allows them ("JobCredentialPrivateKey = /etc/key").
 */
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/conf_private.h"

/* Slurm stops at a similar depth; this catches a file including itself. */
#define INCLUDE_DEPTH_MAX 16

struct lexer {
    const char *confdir;
    conf_line_f cb;
    void *arg;
    int depth;
};

struct linebuf {
    char *buf;
    size_t len;
    size_t alloc;
};

struct pairvec {
    struct conf_pair *pairs;
    size_t count;
    size_t alloc;
};

static int lex_text(struct lexer *lx, const char *file, const char *text,
                    drv_error_t *error);

int conf__einval(drv_error_t *error, const char *fmt, ...)
{
    if (error) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(error->text, sizeof(error->text), fmt, ap);
        va_end(ap);
    }
    errno = EINVAL;
    return -1;
}

int conf__enomem(drv_error_t *error)
{
    errno = ENOMEM;
    return errprintf(error, "out of memory");
}

char *conf__read_file(const char *path)
{
    FILE *fp = fopen(path, "r");
    char *buf = NULL;
    size_t len = 0, alloc = 0, n;
    int saved_errno;

    if (!fp)
        return NULL;
    errno = 0;
    do {
        if (alloc - len < 4096) {
            char *nbuf = realloc(buf, alloc ? alloc * 2 : 8192);
            if (!nbuf)
                goto error;
            buf = nbuf;
            alloc = alloc ? alloc * 2 : 8192;
        }
        n = fread(buf + len, 1, alloc - len - 1, fp);
        len += n;
    } while (n > 0);
    if (ferror(fp)) {
        if (errno == 0)
            errno = EIO;
        goto error;
    }
    buf[len] = '\0';
    fclose(fp);
    return buf;
error:
    saved_errno = errno;
    free(buf);
    fclose(fp);
    errno = saved_errno;
    return NULL;
}

static int linebuf_append(struct linebuf *lb, const char *s, size_t n)
{
    if (lb->len + n + 1 > lb->alloc) {
        size_t alloc = lb->alloc ? lb->alloc : 256;
        while (lb->len + n + 1 > alloc)
            alloc *= 2;
        char *buf = realloc(lb->buf, alloc);
        if (!buf)
            return -1;
        lb->buf = buf;
        lb->alloc = alloc;
    }
    memcpy(lb->buf + lb->len, s, n);
    lb->len += n;
    lb->buf[lb->len] = '\0';
    return 0;
}

/* Length of the 'n' bytes at 'line' before a '#' that is not quoted. */
static size_t comment_start(const char *line, size_t n)
{
    bool quoted = false;

    for (size_t i = 0; i < n; i++) {
        if (line[i] == '"')
            quoted = !quoted;
        else if (line[i] == '#' && !quoted)
            return i;
    }
    return n;
}

/* Append one physical line to the logical line in 'lb'.  Sets *cont when
 * it ends in a backslash, which becomes a space.
 */
static int add_physical(struct linebuf *lb, const char *s, size_t n,
                        bool *cont)
{
    if (linebuf_append(lb, s, comment_start(s, n)) < 0)
        return -1;
    while (lb->len > 0 && isspace((unsigned char)lb->buf[lb->len - 1]))
        lb->buf[--lb->len] = '\0';
    *cont = lb->len > 0 && lb->buf[lb->len - 1] == '\\';
    if (*cont)
        lb->buf[lb->len - 1] = ' ';
    return 0;
}

static char *skip_space(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

static int pairvec_add(struct pairvec *pv, const char *key, const char *val)
{
    if (pv->count == pv->alloc) {
        size_t alloc = pv->alloc ? pv->alloc * 2 : 16;
        struct conf_pair *pairs = realloc(pv->pairs, alloc * sizeof(*pairs));
        if (!pairs)
            return -1;
        pv->pairs = pairs;
        pv->alloc = alloc;
    }
    pv->pairs[pv->count].key = key;
    pv->pairs[pv->count].value = val;
    pv->count++;
    return 0;
}

/* Cut the value at 's' (quoted or not) out of the line; return the text
 * after it, or NULL with *bad set.
 */
static char *cut_value(char *s, char **value, const char **bad)
{
    if (*s == '"') {
        char *q = strchr(s + 1, '"');
        if (!q) {
            *bad = "unterminated quote";
            return NULL;
        }
        if (q[1] && !isspace((unsigned char)q[1])) {
            *bad = "text after the closing quote";
            return NULL;
        }
        *q = '\0';
        *value = s + 1;
        return q + 1;
    }
    *value = s;
    while (*s && !isspace((unsigned char)*s))
        s++;
    if (*s)
        *s++ = '\0';
    return s;
}

/* Split the logical line 's' in place into Key=Value pairs. */
static int split_pairs(char *s, struct pairvec *pv, const char *file,
                       int lineno, drv_error_t *error)
{
    while (*(s = skip_space(s))) {
        char *key = s, *kend, *value;
        const char *bad;
        bool spaced;

        while (isalnum((unsigned char)*s) || *s == '_')
            s++;
        kend = s;
        s = skip_space(s);
        if (kend == key || *s != '=') {
            int n = (int)strcspn(key, " \t\r\n");
            return conf__einval(error, "%s:%d: expected Keyword=Value, "
                                "found '%.*s'", file, lineno, n, key);
        }
        /* "Key = Value" may space both sides; "A= B=1" leaves A empty. */
        spaced = s != kend;
        *kend = '\0';
        s++;
        if (spaced)
            s = skip_space(s);
        if (!(s = cut_value(s, &value, &bad)))
            return conf__einval(error, "%s:%d: %s=: %s", file, lineno, key,
                                bad);
        if (pairvec_add(pv, key, value) < 0)
            return conf__enomem(error);
    }
    return 0;
}

static int include_file(struct lexer *lx, const char *file, int lineno,
                        const char *path, drv_error_t *error)
{
    char *text = conf__read_file(path);
    int rc;

    if (!text) {
        int saved_errno = errno;
        errprintf(error, "%s:%d: Include: cannot open %s: %s", file, lineno,
                  path, strerror(saved_errno));
        errno = saved_errno;
        return -1;
    }
    lx->depth++;
    rc = lex_text(lx, path, text, error);
    lx->depth--;
    free(text);
    return rc;
}

/* Every match, in glob's sorted order; no match is not an error. */
static int include_glob(struct lexer *lx, const char *file, int lineno,
                        const char *pattern, drv_error_t *error)
{
    glob_t g;
    int rc = 0;

    switch (glob(pattern, 0, NULL, &g)) {
    case 0:
        break;
    case GLOB_NOMATCH:
        return 0;
    case GLOB_NOSPACE:
        return conf__enomem(error);
    default:
        return conf__einval(error, "%s:%d: Include %s: cannot read",
                            file, lineno, pattern);
    }
    for (size_t i = 0; i < g.gl_pathc && rc == 0; i++)
        rc = include_file(lx, file, lineno, g.gl_pathv[i], error);
    globfree(&g);
    return rc;
}

static int lex_include(struct lexer *lx, const char *file, int lineno,
                       char *arg, drv_error_t *error)
{
    char *path = skip_space(arg), *full;
    size_t n = strlen(path);
    int rc;

    if (n >= 2 && path[0] == '"' && path[n - 1] == '"') {
        path[n - 1] = '\0';
        path++;
    }
    if (!*path)
        return conf__einval(error, "%s:%d: Include needs a path", file,
                            lineno);
    if (lx->depth >= INCLUDE_DEPTH_MAX)
        return conf__einval(error, "%s:%d: Include %s: nested too deeply",
                            file, lineno, path);
    if (path[0] == '/')
        full = strdup(path);
    else if (asprintf(&full, "%s/%s", lx->confdir, path) < 0)
        full = NULL;
    if (!full)
        return conf__enomem(error);
    if (strpbrk(full, "*?["))
        rc = include_glob(lx, file, lineno, full, error);
    else
        rc = include_file(lx, file, lineno, full, error);
    free(full);
    return rc;
}

static int lex_line(struct lexer *lx, const char *file, int lineno,
                    char *buf, drv_error_t *error)
{
    char *s = skip_space(buf);
    struct pairvec pv = { 0 };
    int rc;

    if (!strncasecmp(s, "include", 7) && isspace((unsigned char)s[7]))
        return lex_include(lx, file, lineno, s + 7, error);
    rc = split_pairs(s, &pv, file, lineno, error);
    if (rc == 0 && pv.count > 0) {
        struct conf_line l = {
            .file = file, .line = lineno, .pairs = pv.pairs, .count = pv.count,
        };
        rc = lx->cb(&l, lx->arg, error);
    }
    free(pv.pairs);
    return rc;
}

static int lex_text(struct lexer *lx, const char *file, const char *text,
                    drv_error_t *error)
{
    struct linebuf lb = { 0 };
    const char *p = text;
    int lineno = 0, first = 1, rc = 0;

    while (rc == 0 && *p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        bool cont;

        if (lb.len == 0)
            first = lineno + 1;
        lineno++;
        if (add_physical(&lb, p, n, &cont) < 0) {
            rc = conf__enomem(error);
            break;
        }
        p += n + (nl ? 1 : 0);
        if (cont && *p)
            continue;
        if (lb.len > 0)
            rc = lex_line(lx, file, first, lb.buf, error);
        lb.len = 0;
    }
    free(lb.buf);
    return rc;
}

int conf__lex(const char *file, const char *text, const char *confdir,
              conf_line_f cb, void *arg, drv_error_t *error)
{
    struct lexer lx = { .confdir = confdir, .cb = cb, .arg = arg };

    return lex_text(&lx, file, text, error);
}
