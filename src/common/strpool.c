/* SPDX-License-Identifier: Apache-2.0
 *
 * strpool.c - shared, reference-counted copies of strings (strpool.h)
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "common/log.h"
#include "common/strpool.h"
#include "common/xalloc.h"

struct entry {
    UT_hash_handle hh;
    size_t holders;
    char text[];
};

struct strpool {
    struct entry *entries;
    size_t bytes;
};

static struct entry *entry_of(const char *s)
{
    return (struct entry *)(void *)(s - offsetof(struct entry, text));
}

struct strpool *strpool_create(void)
{
    return xzalloc(sizeof(struct strpool));
}

void strpool_destroy(struct strpool *pool)
{
    struct entry *e, *tmp;

    if (!pool)
        return;
    HASH_ITER(hh, pool->entries, e, tmp) {
        HASH_DEL(pool->entries, e);
        free(e);
    }
    free(pool);
}

const char *strpool_get(struct strpool *pool, const char *s)
{
    struct entry *e;
    size_t len;

    if (!s)
        return NULL;
    len = strlen(s);
    HASH_FIND(hh, pool->entries, s, len, e);
    if (!e) {
        e = xzalloc(sizeof(*e) + len + 1);
        memcpy(e->text, s, len + 1);
        HASH_ADD_KEYPTR(hh, pool->entries, e->text, len, e);
        pool->bytes += sizeof(*e) + len + 1;
    }
    e->holders++;
    return e->text;
}

void strpool_put(struct strpool *pool, const char *s)
{
    struct entry *e;

    if (!s)
        return;
    e = entry_of(s);
    if (e->holders == 0) {
        log_error("strpool: '%s' released more often than held", s);
        return;
    }
    if (--e->holders)
        return;
    HASH_DEL(pool->entries, e);
    pool->bytes -= sizeof(*e) + strlen(e->text) + 1;
    free(e);
}

void strpool_set(struct strpool *pool, const char **field, const char *value)
{
    const char *old = *field;

    *field = strpool_get(pool, value); /* first: value may be *field */
    strpool_put(pool, old);
}

size_t strpool_count(const struct strpool *pool)
{
    return HASH_COUNT(pool->entries);
}

size_t strpool_bytes(const struct strpool *pool)
{
    return pool->bytes;
}
