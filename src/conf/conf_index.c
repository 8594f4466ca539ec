/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_index.c - name -> position hash index for conf nodes
 *
 * Open addressing with linear probing.  Names are borrowed: the owner keeps
 * them alive (they are the conf_node name strings, which do not move when
 * the node array is reallocated).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf_private.h"

struct index_slot {
    const char *name; /* NULL: empty */
    size_t pos;
};

struct conf_index {
    struct index_slot *slots;
    size_t size; /* power of two */
    size_t count;
};

/* FNV-1a */
static size_t hash_name(const char *s)
{
    uint64_t h = 14695981039346656037ULL;

    while (*s) {
        h ^= (unsigned char)*s++;
        h *= 1099511628211ULL;
    }
    return (size_t)h;
}

struct conf_index *conf__index_create(void)
{
    struct conf_index *ix = calloc(1, sizeof(*ix));

    if (!ix)
        return NULL;
    ix->size = 64;
    if (!(ix->slots = calloc(ix->size, sizeof(*ix->slots)))) {
        free(ix);
        return NULL;
    }
    return ix;
}

static void insert_slot(struct index_slot *slots, size_t size,
                        const char *name, size_t pos)
{
    size_t i = hash_name(name) & (size - 1);

    while (slots[i].name)
        i = (i + 1) & (size - 1);
    slots[i].name = name;
    slots[i].pos = pos;
}

static int grow(struct conf_index *ix)
{
    size_t size = ix->size * 2;
    struct index_slot *slots = calloc(size, sizeof(*slots));

    if (!slots)
        return -1;
    for (size_t i = 0; i < ix->size; i++)
        if (ix->slots[i].name)
            insert_slot(slots, size, ix->slots[i].name, ix->slots[i].pos);
    free(ix->slots);
    ix->slots = slots;
    ix->size = size;
    return 0;
}

/* The caller checks for duplicates first (conf__index_find). */
int conf__index_add(struct conf_index *ix, const char *name, size_t pos)
{
    if ((ix->count + 1) * 2 > ix->size && grow(ix) < 0)
        return -1;
    insert_slot(ix->slots, ix->size, name, pos);
    ix->count++;
    return 0;
}

long conf__index_find(const struct conf_index *ix, const char *name)
{
    size_t i = hash_name(name) & (ix->size - 1);

    while (ix->slots[i].name) {
        if (!strcmp(ix->slots[i].name, name))
            return (long)ix->slots[i].pos;
        i = (i + 1) & (ix->size - 1);
    }
    return -1;
}

void conf__index_destroy(struct conf_index *ix)
{
    if (ix) {
        int saved_errno = errno;
        free(ix->slots);
        free(ix);
        errno = saved_errno;
    }
}
