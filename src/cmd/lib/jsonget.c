/* SPDX-License-Identifier: Apache-2.0
 *
 * jsonget.c - forgiving reads of fields in controller records
 */
#include "cmd/lib/jsonget.h"

/* Column name -> its index (a JSON integer), for rows. */
static json_t *columns;

void jget_set_columns(json_t *keys)
{
    json_t *k;
    size_t i;

    json_decref(columns);
    columns = NULL;
    if (!json_is_array(keys))
        return;
    columns = json_object();
    json_array_foreach(keys, i, k)
        if (json_is_string(k))
            json_object_set_new(columns, json_string_value(k),
                                json_integer((json_int_t)i));
}

static long column(const char *key)
{
    json_t *i = columns ? json_object_get(columns, key) : NULL;

    return i ? (long)json_integer_value(i) : -1;
}

json_t *jget(const json_t *o, const char *key)
{
    json_t *v;
    long i;

    if (!o)
        return NULL;
    if (!json_is_array(o))
        return json_object_get(o, key);
    v = (i = column(key)) >= 0 ? json_array_get(o, (size_t)i) : NULL;
    return json_is_null(v) ? NULL : v; /* a row's null: no value */
}

void jset(json_t *o, const char *key, json_t *v)
{
    long i;

    if (json_is_object(o)) {
        if (v)
            json_object_set_new(o, key, v);
        else
            json_object_del(o, key);
    } else if (json_is_array(o) && (i = column(key)) >= 0) {
        json_array_set_new(o, (size_t)i, v ? v : json_null());
    } else {
        json_decref(v);
    }
}

const char *jstr(const json_t *o, const char *key)
{
    json_t *v = jget(o, key);

    return json_is_string(v) ? json_string_value(v) : NULL;
}

const char *jstr_or(const json_t *o, const char *key, const char *dflt)
{
    const char *s = jstr(o, key);

    return (s && s[0]) ? s : dflt;
}

int64_t jint(const json_t *o, const char *key, int64_t dflt)
{
    json_t *v = jget(o, key);

    if (json_is_integer(v))
        return (int64_t)json_integer_value(v);
    if (json_is_real(v))
        return (int64_t)json_real_value(v);
    if (json_is_boolean(v))
        return json_is_true(v) ? 1 : 0;
    return dflt;
}

bool jbool(const json_t *o, const char *key, bool dflt)
{
    json_t *v = jget(o, key);

    if (json_is_boolean(v))
        return json_is_true(v);
    if (json_is_integer(v))
        return json_integer_value(v) != 0;
    return dflt;
}

bool jhas(const json_t *o, const char *key)
{
    return jget(o, key) != NULL;
}
