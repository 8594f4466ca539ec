/* SPDX-License-Identifier: Apache-2.0
 *
 * req_field.c - type, range and size checks of request values
 * (req_field.h)
 */
#include <errno.h>

#include "ctld/req_field.h"

static const char *const type_names[] = {
    [REQ_INT] = "an integer",
    [REQ_BOOL] = "a boolean",
    [REQ_STR] = "a string",
    [REQ_STR_LIST] = "an array of strings",
    [REQ_STR_MAP] = "an object of strings",
};

/* errno for a value out of range or over its size. */
static int range_errno(const struct req_field *f)
{
    return f->errnum ? f->errnum : EDRV_PROTOCOL_MALFORMED;
}

/* 'n' items ("bytes", "members") against f->min and f->max. */
static int check_size(size_t n, const char *what, const struct req_field *f,
                      drv_error_t *error)
{
    if ((int64_t)n < f->min) {
        errno = EDRV_PROTOCOL_MALFORMED;
        return errprintf(error, "%s: %zu %s, under the minimum of %lld",
                         f->key, n, what, (long long)f->min);
    }
    if ((int64_t)n <= f->max)
        return 0;
    errno = range_errno(f);
    return errprintf(error, "%s: %zu %s, over the limit of %lld", f->key, n,
                     what, (long long)f->max);
}

static int wrong_type(drv_error_t *error, const struct req_field *f)
{
    errno = EDRV_PROTOCOL_MALFORMED;
    return errprintf(error, "%s: must be %s", f->key, type_names[f->type]);
}

/* Offset of the first control character of 's' ('len' bytes), or -1. */
static long control_at(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return (long)i;
    return -1;
}

static int check_str(json_t *v, const struct req_field *f, drv_error_t *error)
{
    size_t len = json_string_length(v);
    long at;

    if (check_size(len, "bytes", f, error) < 0)
        return -1;
    if ((f->flags & REQ_PRINTABLE)
        && (at = control_at(json_string_value(v), len)) >= 0) {
        errno = EDRV_CONTROL_CHARACTER;
        return errprintf(error, "%s: control character 0x%02x at byte %ld",
                         f->key,
                         (unsigned)(unsigned char)json_string_value(v)[at],
                         at + 1);
    }
    return 0;
}

static int check_list(json_t *v, const struct req_field *f,
                      drv_error_t *error)
{
    size_t i;
    json_t *e;

    if (!json_is_array(v))
        return wrong_type(error, f);
    json_array_foreach(v, i, e) {
        if (!json_is_string(e))
            return wrong_type(error, f);
    }
    return check_size(json_array_size(v), "members", f, error);
}

static int check_map(json_t *v, const struct req_field *f, drv_error_t *error)
{
    const char *k;
    json_t *e;

    if (!json_is_object(v))
        return wrong_type(error, f);
    json_object_foreach(v, k, e) {
        if (!json_is_string(e))
            return wrong_type(error, f);
    }
    return check_size(json_object_size(v), "members", f, error);
}

int req_check_field(json_t *body, const struct req_field *f,
                    drv_error_t *error)
{
    json_t *v = json_object_get(body, f->key);
    json_int_t n;

    if (!v && (f->flags & REQ_REQUIRED)) {
        errno = EDRV_PROTOCOL_MALFORMED;
        return errprintf(error, "%s: missing", f->key);
    }
    if (!v)
        return 0;
    switch (f->type) {
    case REQ_INT:
        if (!json_is_integer(v))
            return wrong_type(error, f);
        n = json_integer_value(v);
        if (n >= f->min && n <= f->max)
            return 0;
        errno = range_errno(f);
        return errprintf(error, "%s: %lld is out of range (%lld to %lld)",
                         f->key, (long long)n, (long long)f->min,
                         (long long)f->max);
    case REQ_BOOL:
        return json_is_boolean(v) ? 0 : wrong_type(error, f);
    case REQ_STR:
        return json_is_string(v) ? check_str(v, f, error)
                                 : wrong_type(error, f);
    case REQ_STR_LIST:
        return check_list(v, f, error);
    case REQ_STR_MAP:
        return check_map(v, f, error);
    }
    return wrong_type(error, f);
}

int req_check(json_t *body, const struct req_field *fields,
              drv_error_t *error)
{
    if (!json_is_object(body)) {
        errno = EDRV_PROTOCOL_MALFORMED;
        return errprintf(error, "the request body must be an object");
    }
    for (const struct req_field *f = fields; f->key; f++)
        if (req_check_field(body, f, error) < 0)
            return -1;
    return 0;
}

int req_int(json_t *body, const char *key, int64_t min, int64_t max,
            int errnum, int64_t *out, drv_error_t *error)
{
    struct req_field f = {key, REQ_INT, min, max, errnum, 0};
    json_t *v = json_object_get(body, key);

    if (!v)
        return 0;
    if (req_check_field(body, &f, error) < 0)
        return -1;
    *out = json_integer_value(v);
    return 1;
}
