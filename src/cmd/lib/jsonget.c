/* SPDX-License-Identifier: Apache-2.0
 *
 * jsonget.c - forgiving reads of fields in controller records
 */
#include "cmd/lib/jsonget.h"
#include "cmd/lib/rowtable.h"

json_t *jget(const json_t *o, const char *key)
{
    struct row_table_row *row = row_table_row_of(o);

    if (row)
        return row_table_value(row, key);
    return o ? json_object_get(o, key) : NULL;
}

void jset(json_t *o, const char *key, json_t *v)
{
    struct row_table_row *row = row_table_row_of(o);

    if (row) {
        row_table_set(row, key, v);
    } else if (json_is_object(o)) {
        if (v)
            json_object_set_new(o, key, v);
        else
            json_object_del(o, key);
    } else {
        json_decref(v);
    }
}

json_t *jcopy(const json_t *o)
{
    struct row_table_row *row = row_table_row_of(o);

    return row ? row_table_copy_row(row) : json_deep_copy(o);
}

/* The cell of 'key' into *c when 'o' is a table row (ROW_NULL when it
 * has no such column); false when 'o' is no row. */
static bool cell_of(const json_t *o, const char *key, struct row_cell *c)
{
    struct row_table_row *row = row_table_row_of(o);

    if (!row)
        return false;
    if (!row_table_cell(row, key, c))
        c->type = ROW_NULL;
    return true;
}

/* A number truncated to an integer, saturated at the int64_t range (a
 * cast of one outside it is undefined); NaN: 'dflt'. */
static int64_t real_to_int(double d, int64_t dflt)
{
    if (d != d)
        return dflt;
    if (d >= 9223372036854775807.0)
        return INT64_MAX;
    if (d <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)d;
}

const char *jstr(const json_t *o, const char *key)
{
    struct row_cell c;
    json_t *v;

    if (cell_of(o, key, &c))
        return c.type == ROW_STR ? c.v.s : NULL;
    v = jget(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

const char *jstr_or(const json_t *o, const char *key, const char *dflt)
{
    const char *s = jstr(o, key);

    return (s && s[0]) ? s : dflt;
}

int64_t jint(const json_t *o, const char *key, int64_t dflt)
{
    struct row_cell c;
    json_t *v;

    if (cell_of(o, key, &c)) {
        switch (c.type) {
        case ROW_INT:
        case ROW_BOOL:
            return c.v.i;
        case ROW_REAL:
            return real_to_int(c.v.d, dflt);
        default:
            return dflt;
        }
    }
    v = jget(o, key);
    if (json_is_integer(v))
        return (int64_t)json_integer_value(v);
    if (json_is_real(v))
        return real_to_int(json_real_value(v), dflt);
    if (json_is_boolean(v))
        return json_is_true(v) ? 1 : 0;
    return dflt;
}

bool jbool(const json_t *o, const char *key, bool dflt)
{
    struct row_cell c;
    json_t *v;

    if (cell_of(o, key, &c))
        return c.type == ROW_BOOL || c.type == ROW_INT ? c.v.i != 0 : dflt;
    v = jget(o, key);
    if (json_is_boolean(v))
        return json_is_true(v);
    if (json_is_integer(v))
        return json_integer_value(v) != 0;
    return dflt;
}

bool jhas(const json_t *o, const char *key)
{
    struct row_cell c;

    if (cell_of(o, key, &c))
        return c.type != ROW_NULL;
    return jget(o, key) != NULL;
}
