/* SPDX-License-Identifier: Apache-2.0
 *
 * jsonget.c - forgiving reads of fields in controller records
 */
#include "cmd/lib/jsonget.h"

const char *jstr(const json_t *o, const char *key)
{
    json_t *v = o ? json_object_get(o, key) : NULL;

    return json_is_string(v) ? json_string_value(v) : NULL;
}

const char *jstr_or(const json_t *o, const char *key, const char *dflt)
{
    const char *s = jstr(o, key);

    return (s && s[0]) ? s : dflt;
}

int64_t jint(const json_t *o, const char *key, int64_t dflt)
{
    json_t *v = o ? json_object_get(o, key) : NULL;

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
    json_t *v = o ? json_object_get(o, key) : NULL;

    if (json_is_boolean(v))
        return json_is_true(v);
    if (json_is_integer(v))
        return json_integer_value(v) != 0;
    return dflt;
}

bool jhas(const json_t *o, const char *key)
{
    return o && json_object_get(o, key) != NULL;
}
