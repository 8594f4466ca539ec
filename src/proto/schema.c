/* SPDX-License-Identifier: Apache-2.0
 *
 * schema.c - checking a request body against its message's schema,
 * and the schema as documentation (schema.h)
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "proto/schema.h"

static const char *const type_names[] = {
    [SCHEMA_INT] = "an integer",
    [SCHEMA_BOOL] = "a boolean",
    [SCHEMA_STR] = "a string",
    [SCHEMA_STR_LIST] = "an array of strings",
    [SCHEMA_STR_MAP] = "an object of strings",
    [SCHEMA_INT_LIST] = "an array of integers",
    [SCHEMA_OBJECT] = "an object",
    [SCHEMA_ARRAY] = "an array",
};

/* errno for a value out of range or over its size. */
static int range_errno(const struct schema_field *f)
{
    return f->errnum ? f->errnum : EDRV_PROTOCOL_MALFORMED;
}

/* 'n' items ("bytes", "members") against f->min and f->max. */
static int check_size(size_t n, const char *what, const struct schema_field *f,
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

static int wrong_type(drv_error_t *error, const struct schema_field *f)
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

static int check_str(json_t *v, const struct schema_field *f, drv_error_t *error)
{
    size_t len = json_string_length(v);
    long at;

    if (check_size(len, "bytes", f, error) < 0)
        return -1;
    if ((f->flags & SCHEMA_PRINTABLE)
        && (at = control_at(json_string_value(v), len)) >= 0) {
        errno = EDRV_CONTROL_CHARACTER;
        return errprintf(error, "%s: control character 0x%02x at byte %ld",
                         f->key,
                         (unsigned)(unsigned char)json_string_value(v)[at],
                         at + 1);
    }
    for (size_t i = 0; (f->flags & SCHEMA_HEX) && i < len; i++) {
        if (!isxdigit((unsigned char)json_string_value(v)[i])) {
            errno = EDRV_PROTOCOL_MALFORMED;
            return errprintf(error, "%s: must be %lld hex digits", f->key,
                             (long long)f->max);
        }
    }
    return 0;
}

/* jansson's tests are macros; these are what check_list() calls. */
static int is_string(const json_t *v)
{
    return json_is_string(v);
}

static int is_integer(const json_t *v)
{
    return json_is_integer(v);
}

/* An array whose members all pass 'is' (NULL: any). */
static int check_list(json_t *v, const struct schema_field *f,
                      int (*is)(const json_t *), drv_error_t *error)
{
    size_t i;
    json_t *e;

    if (!json_is_array(v))
        return wrong_type(error, f);
    json_array_foreach(v, i, e) {
        if (is && !is(e))
            return wrong_type(error, f);
    }
    return check_size(json_array_size(v), "members", f, error);
}

/* An object whose values all pass 'is' (NULL: any). */
static int check_map(json_t *v, const struct schema_field *f,
                     int (*is)(const json_t *), drv_error_t *error)
{
    const char *k;
    json_t *e;

    if (!json_is_object(v))
        return wrong_type(error, f);
    json_object_foreach(v, k, e) {
        if (is && !is(e))
            return wrong_type(error, f);
    }
    return check_size(json_object_size(v), "members", f, error);
}

int schema_check_field(json_t *body, const struct schema_field *f,
                    drv_error_t *error)
{
    json_t *v = json_object_get(body, f->key);
    json_int_t n;

    if (!v && (f->flags & SCHEMA_REQUIRED)) {
        errno = EDRV_PROTOCOL_MALFORMED;
        return errprintf(error, "%s: missing", f->key);
    }
    if (!v)
        return 0;
    switch (f->type) {
    case SCHEMA_INT:
        if (!json_is_integer(v))
            return wrong_type(error, f);
        n = json_integer_value(v);
        if (n >= f->min && n <= f->max)
            return 0;
        errno = range_errno(f);
        return errprintf(error, "%s: %lld is out of range (%lld to %lld)",
                         f->key, (long long)n, (long long)f->min,
                         (long long)f->max);
    case SCHEMA_BOOL:
        return json_is_boolean(v) ? 0 : wrong_type(error, f);
    case SCHEMA_STR:
        return json_is_string(v) ? check_str(v, f, error)
                                 : wrong_type(error, f);
    case SCHEMA_STR_LIST:
        return check_list(v, f, is_string, error);
    case SCHEMA_INT_LIST:
        return check_list(v, f, is_integer, error);
    case SCHEMA_ARRAY:
        return check_list(v, f, NULL, error);
    case SCHEMA_STR_MAP:
        return check_map(v, f, is_string, error);
    case SCHEMA_OBJECT:
        return check_map(v, f, NULL, error);
    }
    return wrong_type(error, f);
}

int schema_check(json_t *body, const struct schema_field *fields,
              drv_error_t *error)
{
    if (!json_is_object(body)) {
        errno = EDRV_PROTOCOL_MALFORMED;
        return errprintf(error, "the request body must be an object");
    }
    for (const struct schema_field *f = fields; f->key; f++)
        if (schema_check_field(body, f, error) < 0)
            return -1;
    return 0;
}

int schema_int(json_t *body, const char *key, int64_t min, int64_t max,
            int errnum, int64_t *out, drv_error_t *error)
{
    struct schema_field f = {key, SCHEMA_INT, min, max, errnum, 0, NULL, NULL};
    json_t *v = json_object_get(body, key);

    if (!v)
        return 0;
    if (schema_check_field(body, &f, error) < 0)
        return -1;
    *out = json_integer_value(v);
    return 1;
}

const struct proto_schema *proto_schema_find(const char *type)
{
    for (const struct proto_schema *m = proto_schemas; m->type; m++)
        if (!strcmp(m->type, type))
            return m;
    return NULL;
}

/* The "range" column: what a value may be. */
static void doc_range(FILE *out, const struct schema_field *f)
{
    switch (f->type) {
    case SCHEMA_INT:
        fprintf(out, "%" PRId64 " to %" PRId64, f->min, f->max);
        break;
    case SCHEMA_BOOL:
        break;
    case SCHEMA_STR:
        fprintf(out, "%" PRId64 " to %" PRId64 " bytes%s%s", f->min, f->max,
                (f->flags & SCHEMA_PRINTABLE) ? ", printable" : "",
                (f->flags & SCHEMA_HEX) ? ", hex" : "");
        break;
    default:
        fprintf(out, "%" PRId64 " to %" PRId64 " members", f->min, f->max);
        break;
    }
}

static void doc_fields(FILE *out, const struct schema_field *fields)
{
    fputs("| key | type | range | unit | required | meaning |\n"
          "|---|---|---|---|---|---|\n", out);
    for (const struct schema_field *f = fields; f->key; f++) {
        fprintf(out, "| `%s` | %s | ", f->key, type_names[f->type]);
        doc_range(out, f);
        fprintf(out, " | %s | %s | %s |\n", f->unit ? f->unit : "",
                (f->flags & SCHEMA_REQUIRED) ? "yes" : "",
                f->doc ? f->doc : "");
    }
}

int schema_doc_write(FILE *out)
{
    fputs("# Message schema\n\n"
          "Generated from `src/proto/schema_msgs.c` (`schema_doc_write()`); "
          "`tests/unit/test_schema.c` keeps this file equal to the tables.  "
          "The envelope and framing are in docs/protocol.md.  The server "
          "checks each request body against its table before the handler "
          "runs; keys not listed are ignored.\n", out);
    for (const struct proto_schema *m = proto_schemas; m->type; m++) {
        fprintf(out, "\n## `%s` (%s)\n\n%s\n\n", m->type, m->who, m->doc);
        if (m->body && m->body->key)
            doc_fields(out, m->body);
        else
            fputs("The body carries no keys.\n", out);
        fprintf(out, "\nAnswer: %s\n", m->answer);
    }
    return ferror(out) ? -1 : 0;
}
