/* SPDX-License-Identifier: Apache-2.0
 *
 * depspec.c - parse and format job dependency expressions
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/depspec.h"

static const char *const type_names[] = {
    [DEP_AFTER] = "after",          [DEP_AFTER_ANY] = "afterany",
    [DEP_AFTER_OK] = "afterok",     [DEP_AFTER_NOT_OK] = "afternotok",
    [DEP_AFTER_CORR] = "aftercorr", [DEP_SINGLETON] = "singleton",
};

static const char *const state_names[] = {
    [DEP_UNFULFILLED] = "unfulfilled",
    [DEP_FULFILLED] = "fulfilled",
    [DEP_FAILED] = "failed",
};

const char *dep_type_name(enum dep_type t)
{
    return (size_t)t < sizeof(type_names) / sizeof(type_names[0])
               ? type_names[t]
               : "unknown";
}

void dep_list_destroy(struct dep_list *deps)
{
    if (deps) {
        int saved = errno;
        free(deps->items);
        free(deps);
        errno = saved;
    }
}

static int add_item(struct dep_list *d, const struct dep_item *it)
{
    struct dep_item *n = realloc(d->items, (d->count + 1) * sizeof(*n));

    if (!n)
        return -1;
    d->items = n;
    d->items[d->count++] = *it;
    return 0;
}

static int lookup_type(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++)
        if (strlen(type_names[i]) == len && !strncmp(s, type_names[i], len))
            return (int)i;
    return -1;
}

static int parse_u32(const char **p, uint32_t *v)
{
    char *end;
    unsigned long n;

    if (!isdigit((unsigned char)**p))
        return -1;
    errno = 0;
    n = strtoul(*p, &end, 10);
    if (errno || n > UINT32_MAX)
        return -1;
    *v = (uint32_t)n;
    *p = end;
    return 0;
}

/* An optional "(unfulfilled)" etc. after an item: dep_fmt()'s form
 * with states, read back from the journal. */
static int parse_state(const char **p, struct dep_item *it)
{
    it->state = DEP_UNFULFILLED;
    if (**p != '(')
        return 0;
    for (size_t i = 0; i < sizeof(state_names) / sizeof(state_names[0]); i++) {
        size_t n = strlen(state_names[i]);
        if (!strncmp(*p + 1, state_names[i], n) && (*p)[n + 1] == ')') {
            it->state = (enum dep_state)i;
            *p += n + 2;
            return 0;
        }
    }
    return -1;
}

/* "12", "12_3", "12+5" (after only); leaves *p after it. */
static int parse_id(const char **p, struct dep_item *it)
{
    it->task_id = DEP_TASK_ALL;
    it->minutes = 0;
    if (parse_u32(p, &it->job_id) < 0 || it->job_id == 0)
        return -1;
    if (**p == '_') {
        (*p)++;
        if (parse_u32(p, &it->task_id) < 0)
            return -1;
    }
    if (**p == '+') {
        (*p)++;
        if (it->type != DEP_AFTER || parse_u32(p, &it->minutes) < 0)
            return -1;
    }
    return parse_state(p, it);
}

/* One "type:id[:id...]" or "singleton" starting at *p. */
static int parse_term(const char **p, struct dep_list *d)
{
    size_t len = strcspn(*p, ":,?(");
    int type = lookup_type(*p, len);
    struct dep_item it = {.task_id = DEP_TASK_ALL};

    if (type < 0)
        return -1;
    it.type = (enum dep_type)type;
    *p += len;
    if (type == DEP_SINGLETON)
        return parse_state(p, &it) < 0 || **p == ':' ? -1 : add_item(d, &it);
    if (**p != ':')
        return -1;
    while (**p == ':') {
        (*p)++;
        if (parse_id(p, &it) < 0 || add_item(d, &it) < 0)
            return -1;
    }
    return 0;
}

struct dep_list *dep_parse(const char *spec, drv_error_t *error)
{
    struct dep_list *d = calloc(1, sizeof(*d));
    const char *p = spec;
    char sep = 0;

    if (!d)
        return NULL;
    if (!spec || !*spec)
        goto bad;
    for (;;) {
        if (parse_term(&p, d) < 0)
            goto bad;
        if (!*p)
            return d;
        if ((*p != ',' && *p != '?') || (sep && *p != sep))
            goto bad;
        sep = *p++;
        d->any = sep == '?';
    }
bad:
    dep_list_destroy(d);
    errno = EINVAL;
    errprintf(error, "invalid dependency '%s'", spec ? spec : "");
    return NULL;
}

/* Append with a growing buffer; returns -1 on ENOMEM. */
static int cat(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int cat(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
        va_end(ap);
        if (n < 0)
            return -1;
        if ((size_t)n < *cap - *len)
            break;
        char *nb = realloc(*buf, *cap * 2 + (size_t)n);
        if (!nb)
            return -1;
        *buf = nb;
        *cap = *cap * 2 + (size_t)n;
    }
    *len += (size_t)n;
    return 0;
}

static int fmt_item(char **b, size_t *len, size_t *cap,
                    const struct dep_item *it)
{
    if (cat(b, len, cap, "%s", dep_type_name(it->type)) < 0)
        return -1;
    if (it->type == DEP_SINGLETON)
        return 0;
    if (cat(b, len, cap, ":%u", it->job_id) < 0)
        return -1;
    if (it->task_id != DEP_TASK_ALL && cat(b, len, cap, "_%u", it->task_id) < 0)
        return -1;
    if (it->minutes && cat(b, len, cap, "+%u", it->minutes) < 0)
        return -1;
    return 0;
}

char *dep_fmt(const struct dep_list *deps, bool with_state)
{
    size_t len = 0, cap = 64;
    char *b = malloc(cap);

    if (!b)
        return NULL;
    b[0] = '\0';
    for (size_t i = 0; deps && i < deps->count; i++) {
        const struct dep_item *it = &deps->items[i];
        if ((i && cat(&b, &len, &cap, "%c", deps->any ? '?' : ',') < 0)
            || fmt_item(&b, &len, &cap, it) < 0
            || (with_state
                && cat(&b, &len, &cap, "(%s)", state_names[it->state]) < 0)) {
            free(b);
            return NULL;
        }
    }
    return b;
}
