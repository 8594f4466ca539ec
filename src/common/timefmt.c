/* SPDX-License-Identifier: Apache-2.0
 *
 * timefmt.c - Slurm's time limit and timestamp formats
 *
 * Parsing follows Slurm's time_str2secs(): with a '-' the text is
 * days-hours[:minutes[:seconds]], otherwise one field is minutes, two are
 * minutes:seconds and three are hours:minutes:seconds.  Like Slurm, fields
 * are not range-checked ("90" and "1:75" are fine), but every field must
 * hold digits and nothing else.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/decfmt.h"
#include "common/timefmt.h"

/* Digits in one field: large enough for any sane limit, small enough that
 * days * 86400 cannot overflow.
 */
#define FIELD_DIGITS_MAX 9

static int bad_time(const char *s, drv_error_t *error)
{
    errno = EINVAL;
    return errprintf(error, "invalid time limit \"%s\"", s ? s : "(null)");
}

/* Parse the digits at *p (1 to FIELD_DIGITS_MAX of them) into *val. */
static int parse_digits(const char **p, long long *val)
{
    const char *s = *p;
    long long v = 0;
    int n = 0;

    for (; s[n] >= '0' && s[n] <= '9'; n++) {
        if (n == FIELD_DIGITS_MAX)
            return -1;
        v = v * 10 + (s[n] - '0');
    }
    if (n == 0)
        return -1;
    *val = v;
    *p = s + n;
    return 0;
}

/* Parse 1 to 3 ':'-separated fields filling the rest of s into v[].
 * Returns the number of fields, or -1.
 */
static int parse_fields(const char *s, long long v[3])
{
    int n = 0;

    for (;;) {
        if (n == 3 || parse_digits(&s, &v[n]) < 0)
            return -1;
        n++;
        if (*s == '\0')
            return n;
        if (*s++ != ':')
            return -1;
    }
}

int timefmt_parse_limit(const char *s, int64_t *secs, drv_error_t *error)
{
    long long v[3];
    long long days;
    const char *p = s;
    int n;

    if (!s || !secs)
        return bad_time(s, error);
    if (strcasecmp(s, "UNLIMITED") == 0 || strcasecmp(s, "INFINITE") == 0
        || strcmp(s, "-1") == 0) {
        *secs = TIME_INFINITE;
        return 0;
    }
    if (strchr(s, '-')) {
        /* days-hours[:minutes[:seconds]] */
        if (parse_digits(&p, &days) < 0 || *p++ != '-'
            || (n = parse_fields(p, v)) < 0)
            return bad_time(s, error);
        *secs = days * 86400 + v[0] * 3600 + (n > 1 ? v[1] * 60 : 0)
                + (n > 2 ? v[2] : 0);
    } else if ((n = parse_fields(s, v)) < 0) {
        return bad_time(s, error);
    } else if (n == 3) {
        *secs = v[0] * 3600 + v[1] * 60 + v[2];
    } else {
        /* minutes[:seconds] */
        *secs = v[0] * 60 + (n > 1 ? v[1] : 0);
    }
    return 0;
}

/* Append 'v' (>= 0) in decimal at 'p', at least 'min' digits; returns
 * the end. */
static char *put_num(char *p, long long v, int min)
{
    return p + dec_format(p, (uint64_t)v, min);
}

char *timefmt_duration(int64_t secs, int padded, char *buf, size_t size)
{
    long long days = secs / 86400;
    long long hours = secs / 3600 % 24;
    long long mins = secs / 60 % 60;
    long long s = secs % 60;
    char text[64], *p = text;
    size_t n;

    if (!buf || size == 0)
        return buf;
    if (secs == TIME_INFINITE || secs < 0) {
        snprintf(buf, size, "%s",
                 secs == TIME_INFINITE ? "UNLIMITED" : "INVALID");
        return buf;
    }
    /* as "%lld-%02lld:%02lld:%02lld", "%02lld:%02lld:%02lld",
     * "%lld:%02lld:%02lld" or "%lld:%02lld", without printf (squeue
     * prints one per job) */
    if (days) {
        p = put_num(p, days, 1);
        *p++ = '-';
    }
    if (days || padded || hours) {
        p = put_num(p, hours, days || padded ? 2 : 1);
        *p++ = ':';
        p = put_num(p, mins, 2);
    } else {
        p = put_num(p, mins, 1);
    }
    *p++ = ':';
    p = put_num(p, s, 2);
    n = (size_t)(p - text) < size ? (size_t)(p - text) : size - 1;
    memcpy(buf, text, n); /* cut as snprintf() would */
    buf[n] = '\0';
    return buf;
}

char *timefmt_limit(int64_t secs, int lower, char *buf, size_t size)
{
    if (buf && size > 0 && secs == TIME_INFINITE) {
        snprintf(buf, size, "%s", lower ? "infinite" : "UNLIMITED");
        return buf;
    }
    return timefmt_duration(secs, 0, buf, size);
}

char *timefmt_stamp(time_t t, int none_for_zero, char *buf, size_t size)
{
    struct tm tm;

    if (!buf || size == 0)
        return buf;
    if (t == 0) {
        snprintf(buf, size, "%s", none_for_zero ? "None" : "Unknown");
        return buf;
    }
    /* Slurm also shows its INFINITE end time as "Unknown". */
    if (t == (time_t)-1 || !localtime_r(&t, &tm)
        || strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
        snprintf(buf, size, "Unknown");
    return buf;
}
