/* SPDX-License-Identifier: Apache-2.0
 *
 * launch_store.c - share identical scripts and environments between jobs
 *
 * Two tables: the texts (scripts, environments) by their content, and the
 * stored launch objects by what makes them differ (their shared texts and
 * the rest of their members), so a sweep of identical submissions holds
 * one launch object, not one per job (a jansson object of three members
 * costs ~600 bytes).  Stored launches are never changed once packed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "common/xalloc.h"
#include "ctld/launch_store.h"

struct shared_text {
    json_t *str;  /* the shared jansson string; the table holds one ref */
    UT_hash_handle hh;
};

struct shared_launch {
    char *key;     /* launch_key() */
    json_t *stored; /* the table holds one ref */
    UT_hash_handle hh;
};

struct launch_store {
    struct shared_text *texts;      /* keyed by the string's text */
    struct shared_launch *launches; /* keyed by launch_key() */
};

struct launch_store *launch_store_create(void)
{
    return xzalloc(sizeof(struct launch_store));
}

void launch_store_destroy(struct launch_store *ls)
{
    struct shared_text *t, *tmp;

    struct shared_launch *l, *ltmp;

    if (!ls)
        return;
    HASH_ITER(hh, ls->launches, l, ltmp) {
        HASH_DEL(ls->launches, l);
        json_decref(l->stored);
        free(l->key);
        free(l);
    }
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

/* What tells stored launch 'out' from others: its shared texts (by
 * identity) and its other members (by value).  Caller frees. */
static char *launch_key(json_t *out)
{
    json_t *rest = json_copy(out);
    char *text, *key;

    json_object_del(rest, "script");
    json_object_del(rest, "env_text");
    text = json_dumps(rest, JSON_COMPACT | JSON_SORT_KEYS);
    key = xasprintf("%p %p %s", (void *)json_object_get(out, "script"),
                    (void *)json_object_get(out, "env_text"),
                    text ? text : "");
    free(text);
    json_decref(rest);
    return key;
}

/* The one stored launch equal to 'out' (stolen).  New reference. */
static json_t *share_launch(struct launch_store *ls, json_t *out)
{
    struct shared_launch *l = NULL;
    char *key = launch_key(out);

    HASH_FIND_STR(ls->launches, key, l);
    if (l) {
        free(key);
        json_decref(out);
        return json_incref(l->stored);
    }
    l = xzalloc(sizeof(*l));
    l->key = key;
    l->stored = out;
    HASH_ADD_KEYPTR(hh, ls->launches, l->key, strlen(l->key), l);
    return json_incref(out);
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
    return share_launch(ls, out);
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
    struct shared_launch *l, *ltmp;

    /* Launches first: they hold references to the texts. */
    HASH_ITER(hh, ls->launches, l, ltmp) {
        if (l->stored->refcount == 1) {
            HASH_DEL(ls->launches, l);
            json_decref(l->stored);
            free(l->key);
            free(l);
        }
    }
    HASH_ITER(hh, ls->texts, t, tmp) {
        if (t->str->refcount == 1) { /* only this table holds it */
            HASH_DEL(ls->texts, t);
            json_decref(t->str);
            free(t);
        }
    }
}
