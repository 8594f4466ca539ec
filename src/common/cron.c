/* SPDX-License-Identifier: Apache-2.0
 *
 * cron.c - crontab time specifications (cron.h)
 */
#include "common/cron.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* One of the five fields: its name for messages, its range, its names. */
struct cron_field {
    const char *what;
    int lo, hi;
    const char *const *names; /* names[i] is value lo_name + i */
    int lo_name;
};

static const char *const month_names[] = {"jan", "feb", "mar", "apr", "may",
                                          "jun", "jul", "aug", "sep", "oct",
                                          "nov", "dec", NULL};
static const char *const day_names[] = {"sun", "mon", "tue", "wed", "thu",
                                        "fri", "sat", NULL};

static const struct cron_field fields[5] = {
    {"minute", 0, 59, NULL, 0},
    {"hour", 0, 23, NULL, 0},
    {"day of month", 1, 31, NULL, 0},
    {"month", 1, 12, month_names, 1},
    {"day of week", 0, 7, day_names, 0}, /* 7: Sunday again */
};

/* The shortcuts as their five fields. */
static const struct {
    const char *name, *fields;
} shortcuts[] = {
    {"@yearly", "0 0 1 1 *"},  {"@annually", "0 0 1 1 *"},
    {"@monthly", "0 0 1 * *"}, {"@weekly", "0 0 * * 0"},
    {"@daily", "0 0 * * *"},   {"@midnight", "0 0 * * *"},
    {"@hourly", "0 * * * *"},
};

/* A number or a name of field 'f' at *p (advanced past it).  Returns the
 * value, or -1. */
static int field_value(const struct cron_field *f, const char **p)
{
    const char *s = *p;
    char *end;
    long v;

    if (isdigit((unsigned char)*s)) {
        errno = 0;
        v = strtol(s, &end, 10);
        if (errno || v < f->lo || v > f->hi)
            return -1;
        *p = end;
        return (int)v;
    }
    for (int i = 0; f->names && f->names[i]; i++) {
        if (!strncasecmp(s, f->names[i], 3) && !isalpha((unsigned char)s[3])) {
            *p = s + 3;
            return f->lo_name + i;
        }
    }
    return -1;
}

/* One comma-separated item ("*", "N", "A-B", any of them "/STEP") of field
 * 'f' into *bits.  Returns 0 or -1. */
static int field_item(const struct cron_field *f, const char *s,
                      const char *end, uint64_t *bits)
{
    const char *p = s;
    int a, b, step = 1;

    if (*p == '*') {
        a = f->lo;
        b = f->hi == 7 ? 6 : f->hi;
        p++;
    } else {
        if ((a = field_value(f, &p)) < 0)
            return -1;
        b = a;
        if (*p == '-') {
            p++;
            if ((b = field_value(f, &p)) < 0 || b < a)
                return -1;
        }
    }
    if (*p == '/') {
        char *e;
        long v;

        p++;
        if (!isdigit((unsigned char)*p))
            return -1;
        v = strtol(p, &e, 10);
        if (v < 1 || v > f->hi)
            return -1;
        step = (int)v;
        p = e;
        if (s[0] != '*' && b == a) /* "5/10": from 5 to the end */
            b = f->hi == 7 ? 6 : f->hi;
    }
    if (p != end)
        return -1;
    for (int v = a; v <= b; v += step)
        *bits |= 1ull << (f->hi == 7 && v == 7 ? 0 : v);
    return 0;
}

/* Field 'i' (text s..end) into *bits. */
static int field_parse(int i, const char *s, const char *end, uint64_t *bits,
                       drv_error_t *error)
{
    const struct cron_field *f = &fields[i];
    const char *item = s;

    *bits = 0;
    while (item < end) {
        const char *comma = memchr(item, ',', (size_t)(end - item));
        const char *iend = comma ? comma : end;

        if (iend == item || field_item(f, item, iend, bits) < 0) {
            errno = EINVAL;
            return errprintf(error, "%s: '%.*s' is not valid (%d-%d%s)",
                             f->what, (int)(end - s), s, f->lo, f->hi,
                             f->names ? " or a name" : "");
        }
        item = comma ? comma + 1 : end;
        if (comma && item == end) {
            errno = EINVAL;
            return errprintf(error, "%s: '%.*s' ends with a comma", f->what,
                             (int)(end - s), s);
        }
    }
    return 0;
}

static const char *skip_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

static const char *skip_word(const char *p)
{
    while (*p && *p != ' ' && *p != '\t' && *p != '\n')
        p++;
    return p;
}

/* The five fields of 'text' into 'spec'; *after: where the fifth ends. */
static int parse_fields(const char *text, struct cron_spec *spec,
                        const char **after, drv_error_t *error)
{
    const char *p = skip_blanks(text);
    uint64_t bits[5];

    for (int i = 0; i < 5; i++) {
        const char *end = skip_word(p);

        if (end == p) {
            errno = EINVAL;
            return errprintf(error, "%s: missing (a crontab entry has five "
                             "time fields and a command)", fields[i].what);
        }
        if (field_parse(i, p, end, &bits[i], error) < 0)
            return -1;
        if (i == 2)
            spec->mday_star = *p == '*';
        if (i == 4)
            spec->wday_star = *p == '*';
        p = skip_blanks(end);
    }
    spec->minute = bits[0];
    spec->hour = (uint32_t)bits[1];
    spec->mday = (uint32_t)bits[2];
    spec->month = (uint16_t)bits[3];
    spec->wday = (uint8_t)bits[4];
    *after = p;
    return 0;
}

int cron_parse(const char *line, struct cron_spec *spec, size_t *spec_len,
               size_t *cmd, drv_error_t *error)
{
    const char *start = skip_blanks(line), *p, *spec_end;

    memset(spec, 0, sizeof(*spec));
    if (*start == '@') {
        const char *end = skip_word(start);
        size_t n = (size_t)(end - start), i;

        for (i = 0; i < sizeof(shortcuts) / sizeof(shortcuts[0]); i++)
            if (strlen(shortcuts[i].name) == n
                && !strncasecmp(start, shortcuts[i].name, n))
                break;
        if (i == sizeof(shortcuts) / sizeof(shortcuts[0])) {
            errno = EINVAL;
            return errprintf(error, "'%.*s' is not a known shortcut "
                             "(@yearly, @annually, @monthly, @weekly, "
                             "@daily, @midnight, @hourly)", (int)n, start);
        }
        parse_fields(shortcuts[i].fields, spec, &p, NULL);
        spec_end = end;
        p = skip_blanks(end);
    } else {
        if (parse_fields(start, spec, &p, error) < 0)
            return -1;
        spec_end = p;
        while (spec_end > start && (spec_end[-1] == ' '
                                    || spec_end[-1] == '\t'))
            spec_end--;
    }
    if (!*p || *p == '\n') {
        errno = EINVAL;
        return errprintf(error, "no command after the time specification");
    }
    *spec_len = (size_t)(spec_end - line);
    *cmd = (size_t)(p - line);
    return 0;
}

/* Does day 'tm' (mday, wday) match, by cron's OR rule? */
static bool day_matches(const struct cron_spec *s, const struct tm *tm)
{
    bool md = s->mday >> tm->tm_mday & 1, wd = s->wday >> tm->tm_wday & 1;

    if (s->mday_star || s->wday_star)
        return md && wd;
    return md || wd;
}

time_t cron_next(const struct cron_spec *spec, time_t after)
{
    struct tm tm;
    time_t t = after - after % 60 + 60, limit = after + 8 * 366 * 86400L;

    while (t <= limit) {
        if (!localtime_r(&t, &tm))
            return -1;
        tm.tm_isdst = -1;
        if (!(spec->month >> (tm.tm_mon + 1) & 1)) {
            tm.tm_mon++;
            tm.tm_mday = 1;
            tm.tm_hour = tm.tm_min = 0;
        } else if (!day_matches(spec, &tm)) {
            tm.tm_mday++;
            tm.tm_hour = tm.tm_min = 0;
        } else if (!(spec->hour >> tm.tm_hour & 1)) {
            tm.tm_hour++;
            tm.tm_min = 0;
        } else if (!(spec->minute >> tm.tm_min & 1)) {
            tm.tm_min++;
        } else {
            return t;
        }
        tm.tm_sec = 0;
        time_t n = mktime(&tm);
        if (n <= t) /* a DST change went back: move on a minute */
            n = t + 60;
        t = n;
    }
    return -1;
}
