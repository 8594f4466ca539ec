/* SPDX-License-Identifier: Apache-2.0
 *
 * arrayspec.c - parse and format job array index expressions
 *
 * Two passes: the first finds the largest index (the bitmap's size), the
 * second sets the bits, so a 10,000-task array costs 10,000 bits.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arrayspec.h"

struct range {
    unsigned long lo, hi, step;
};

static int parse_num(const char **p, unsigned long *v)
{
    char *end;

    if (!isdigit((unsigned char)**p))
        return -1;
    errno = 0;
    *v = strtoul(*p, &end, 10);
    if (errno)
        return -1;
    *p = end;
    return 0;
}

/* One item: "N", "N-M" or "N-M:S".  Leaves *p after it. */
static int parse_range(const char **p, struct range *r)
{
    r->step = 1;
    if (parse_num(p, &r->lo) < 0)
        return -1;
    r->hi = r->lo;
    if (**p == '-') {
        (*p)++;
        if (parse_num(p, &r->hi) < 0 || r->hi < r->lo)
            return -1;
        if (**p == ':') {
            (*p)++;
            if (parse_num(p, &r->step) < 0 || r->step == 0)
                return -1;
        }
    }
    return 0;
}

/* Walk the items; with 'bm' set their bits, else find the largest. */
static int walk(const char *spec, bitmap_t *bm, unsigned long *max,
                uint32_t *throttle, drv_error_t *error)
{
    const char *p = spec;
    struct range r;

    *max = 0;
    for (;;) {
        if (parse_range(&p, &r) < 0) {
            errno = EINVAL;
            return errprintf(error, "invalid array index at column %d of "
                             "'%s'", (int)(p - spec) + 1, spec);
        }
        if (!bm) {
            /* The largest index, computed: a range of 10^15 must not be
             * walked before it is found too large (a found DoS). */
            unsigned long last = r.lo + (r.hi - r.lo) / r.step * r.step;
            if (last > *max)
                *max = last;
        }
        /* With 'bm', the indexes are known to be below MaxArraySize. */
        for (unsigned long i = r.lo; bm && i <= r.hi; i += r.step) {
            bitmap_set(bm, i);
            if (r.hi - i < r.step)
                break;
        }
        if (*p != ',')
            break;
        p++;
    }
    if (*p == '%') {
        unsigned long t;
        p++;
        if (parse_num(&p, &t) < 0 || t > UINT32_MAX) {
            errno = EINVAL;
            return errprintf(error, "invalid array throttle in '%s'", spec);
        }
        if (throttle)
            *throttle = (uint32_t)t;
    }
    if (*p) {
        errno = EINVAL;
        return errprintf(error, "invalid array index at column %d of '%s'",
                         (int)(p - spec) + 1, spec);
    }
    return 0;
}

bitmap_t *array_spec_parse(const char *spec, uint32_t max_size,
                           uint32_t *throttle, drv_error_t *error)
{
    unsigned long max;
    bitmap_t *bm;

    if (throttle)
        *throttle = 0;
    if (!spec || !*spec) {
        errno = EINVAL;
        errprintf(error, "empty array specification");
        return NULL;
    }
    if (walk(spec, NULL, &max, throttle, error) < 0)
        return NULL;
    if (max >= max_size) {
        errno = ERANGE;
        errprintf(error, "array index %lu is not below MaxArraySize=%u", max,
                  max_size);
        return NULL;
    }
    if (!(bm = bitmap_create(max + 1)))
        return NULL;
    walk(spec, bm, &max, NULL, NULL);
    return bm;
}

/* Slurm's clients show at most this many bytes of a pending task list
 * (SLURM_BITSTR_LEN's default, 64 counting the NUL), ending a longer one
 * in "...". */
#define TASKS_SHOWN 64

/* "lo-hi:step" when the set is one progression with a step above 1, as
 * Slurm's clients fold it ("0-15:4" pending all shows "0-12:4"). */
static char *fmt_stepped(const bitmap_t *tasks)
{
    uint32_t step = array_spec_step(tasks);
    long lo = bitmap_first_set(tasks, 0), hi = lo, k;
    char *s;

    if (step <= 1)
        return NULL;
    for (k = lo; k >= 0; k = bitmap_first_set(tasks, (size_t)k + 1))
        hi = k;
    if (asprintf(&s, "%ld-%ld:%u", lo, hi, step) < 0)
        return NULL;
    return s;
}

/* Slurm writes the ranges and their commas with snprintf into TASKS_SHOWN
 * bytes, drops the last character written, and a list that filled the
 * buffer gets "..." in place of its last characters: a list of 62 or
 * more characters shows as its first 60 and "...".  'tasks' is freed. */
static char *cut_long(char *tasks)
{
    char *s;

    if (strlen(tasks) < TASKS_SHOWN - 2)
        return tasks;
    if (asprintf(&s, "%.*s...", TASKS_SHOWN - 4, tasks) < 0)
        s = NULL;
    free(tasks);
    return s;
}

char *array_spec_fmt(const bitmap_t *tasks, uint32_t throttle)
{
    char *s = fmt_stepped(tasks), *out;

    if (!s && (s = bitmap_fmt(tasks)))
        s = cut_long(s);
    if (!s || !throttle)
        return s;
    if (asprintf(&out, "%s%%%u", s, throttle) < 0)
        out = NULL;
    free(s);
    return out;
}

uint32_t array_spec_step(const bitmap_t *tasks)
{
    long first = bitmap_first_set(tasks, 0), prev, next;
    long step = 0;

    if (first < 0 || (next = bitmap_first_set(tasks, (size_t)first + 1)) < 0)
        return 1;
    step = next - first;
    for (prev = next; (next = bitmap_first_set(tasks, (size_t)prev + 1)) >= 0;
         prev = next)
        if (next - prev != step)
            return 1;
    return (uint32_t)step;
}
