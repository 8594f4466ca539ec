/* SPDX-License-Identifier: Apache-2.0
 *
 * launch_store.c - share identical scripts and environments between jobs
 */
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "common/xalloc.h"
#include "ctld/launch_store.h"

struct shared_text {
    json_t *str;  /* the shared jansson string; the table holds one ref */
    UT_hash_handle hh;
};

struct launch_store {
    struct shared_text *texts; /* keyed by the string's text */
};

struct launch_store *launch_store_create(void)
{
    return xzalloc(sizeof(struct launch_store));
}

void launch_store_destroy(struct launch_store *ls)
{
    struct shared_text *t, *tmp;

    if (!ls)
        return;
    HASH_ITER(hh, ls->texts, t, tmp) {
        HASH_DEL(ls->texts, t);
        json_decref(t->str);
        free(t);
    }
    free(ls);
}

/* A new reference to the one string holding 'text'. */
static json_t *share(struct launch_store *ls, const char *text)
{
    struct shared_text *t = NULL;
    size_t len = strlen(text);

    HASH_FIND(hh, ls->texts, text, len, t);
    if (!t) {
        t = xzalloc(sizeof(*t));
        t->str = json_string(text);
        if (!t->str) {
            free(t);
            return NULL;
        }
        /* The key lives inside the jansson string, as long as the entry. */
        HASH_ADD_KEYPTR(hh, ls->texts, json_string_value(t->str), len, t);
    }
    return json_incref(t->str);
}

static void set_shared(struct launch_store *ls, json_t *o, const char *key,
                       const char *text)
{
    json_t *s;

    if (text && (s = share(ls, text)))
        json_object_set_new(o, key, s);
}

json_t *launch_store_pack(struct launch_store *ls, json_t *launch)
{
    json_t *out, *env;
    char *text = NULL;

    if (!launch)
        return NULL;
    out = json_copy(launch); /* shallow: members are shared references */
    if (!out)
        return NULL;
    if ((env = json_object_get(launch, "env")) && json_is_object(env)) {
        text = json_dumps(env, JSON_COMPACT | JSON_SORT_KEYS);
        json_object_del(out, "env");
    }
    set_shared(ls, out, "env_text",
               text ? text
                    : json_string_value(json_object_get(launch, "env_text")));
    set_shared(ls, out, "script",
               json_string_value(json_object_get(launch, "script")));
    free(text);
    return out;
}

json_t *launch_store_unpack(json_t *stored)
{
    json_t *out = json_copy(stored);
    const char *text = json_string_value(json_object_get(stored, "env_text"));

    if (out && text) {
        json_t *env = json_loads(text, 0, NULL);
        json_object_del(out, "env_text");
        json_object_set_new(out, "env", env ? env : json_object());
    }
    return out;
}

void launch_store_sweep(struct launch_store *ls)
{
    struct shared_text *t, *tmp;

    HASH_ITER(hh, ls->texts, t, tmp) {
        if (t->str->refcount == 1) { /* only this table holds it */
            HASH_DEL(ls->texts, t);
            json_decref(t->str);
            free(t);
        }
    }
}
