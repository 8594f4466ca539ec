/* SPDX-License-Identifier: Apache-2.0
 *
 * cache.c - GET answers shared between identical requests (cache.h)
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <uthash.h>

#include "restd/cache.h"

/* An answer that took T to make is kept for at least RENEW_FACTOR T, so
 * renewing it takes at most a tenth of the time, however many jobs it
 * lists (as the controller spaces its scheduling passes); at most
 * KEEP_MAX_MS, so that it is never older than that. */
#define RENEW_FACTOR 9
#define KEEP_MAX_MS 60000

struct entry {
    char *key;
    char *text;        /* NULL while it is being answered, or abandoned */
    size_t len;
    const char *type;
    uint64_t made_ms;  /* when text was kept */
    uint64_t keep_ms;  /* how long text is fresh (RENEW_FACTOR) */
    uint64_t began_ms; /* when the thread answering it began */
    bool filling;      /* a thread is answering this key */
    UT_hash_handle hh;
};

struct rest_cache {
    pthread_mutex_t lock;
    pthread_cond_t filled;
    struct entry *entries;
    unsigned ttl_ms;
    size_t max_bytes, bytes;
    uint64_t swept_ms;  /* the last sweep(): at most one per TTL */
};

static uint64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

struct rest_cache *rest_cache_create(unsigned ttl_ms, size_t max_bytes)
{
    struct rest_cache *c = calloc(1, sizeof(*c));
    pthread_condattr_t attr;

    if (!c)
        return NULL;
    pthread_mutex_init(&c->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&c->filled, &attr);
    pthread_condattr_destroy(&attr);
    c->ttl_ms = ttl_ms;
    c->max_bytes = max_bytes;
    return c;
}

static void entry_drop_text(struct rest_cache *c, struct entry *e)
{
    c->bytes -= e->len;
    free(e->text);
    e->text = NULL;
    e->len = 0;
}

static void entry_remove(struct rest_cache *c, struct entry *e)
{
    entry_drop_text(c, e);
    HASH_DEL(c->entries, e);
    free(e->key);
    free(e);
}

void rest_cache_destroy(struct rest_cache *c)
{
    struct entry *e, *tmp;

    if (!c)
        return;
    HASH_ITER(hh, c->entries, e, tmp)
        entry_remove(c, e);
    pthread_cond_destroy(&c->filled);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* Is e's answer still within its keep time? */
static bool fresh(const struct entry *e, uint64_t now)
{
    return e->text && now - e->made_ms < e->keep_ms;
}

/* Wait on c->filled until 'deadline' (CLOCK_MONOTONIC ms); false once
 * it has passed. */
static bool wait_filled(struct rest_cache *c, uint64_t deadline)
{
    struct timespec ts = {.tv_sec = (time_t)(deadline / 1000),
                          .tv_nsec = (long)(deadline % 1000) * 1000000};

    return pthread_cond_timedwait(&c->filled, &c->lock, &ts) != ETIMEDOUT;
}

char *rest_cache_get(struct rest_cache *c, const char *key, size_t *len,
                     const char **type, unsigned *age_ms, unsigned wait_ms)
{
    uint64_t now = now_ms(), deadline = now + wait_ms;
    struct entry *e;
    char *text = NULL;

    pthread_mutex_lock(&c->lock);
    for (;;) {
        HASH_FIND_STR(c->entries, key, e);
        /* fresh, or past its time while one request renews it: the
         * others take the last answer meanwhile instead of all waiting
         * for the renewal together (cache.h) */
        if (e && (fresh(e, now) || (e->filling && e->text))) {
            if ((text = malloc(e->len + 1))) {
                memcpy(text, e->text, e->len + 1);
                *len = e->len;
                *type = e->type;
                *age_ms = (unsigned)(now - e->made_ms);
            }
            break;
        }
        if (e && e->filling && now < deadline) {
            wait_filled(c, deadline);
            now = now_ms();
            continue;
        }
        if (!e && (e = calloc(1, sizeof(*e)))) {
            if (!(e->key = strdup(key))) {
                free(e);
                break;
            }
            HASH_ADD_KEYPTR(hh, c->entries, e->key, strlen(e->key), e);
        }
        if (e) {
            e->filling = true;
            e->began_ms = now;
        }
        break;
    }
    pthread_mutex_unlock(&c->lock);
    return text;
}

/* Forget answers past their time and entries no thread is answering;
 * once per TTL at most, so a miss does not walk every entry. */
static void sweep(struct rest_cache *c, uint64_t now)
{
    struct entry *e, *tmp;

    if (now - c->swept_ms < c->ttl_ms)
        return;
    c->swept_ms = now;
    HASH_ITER(hh, c->entries, e, tmp)
        if (!e->filling && !fresh(e, now))
            entry_remove(c, e);
}

void rest_cache_put(struct rest_cache *c, const char *key, const char *text,
                    size_t len, const char *type)
{
    uint64_t now = now_ms();
    struct entry *e;

    pthread_mutex_lock(&c->lock);
    sweep(c, now); /* before: it keeps entries being answered, as this */
    HASH_FIND_STR(c->entries, key, e);
    if (e) {
        uint64_t keep = RENEW_FACTOR * (now - e->began_ms);

        e->filling = false;
        e->keep_ms = keep < c->ttl_ms ? c->ttl_ms
                     : keep > KEEP_MAX_MS ? KEEP_MAX_MS : keep;
        entry_drop_text(c, e);
        if (c->bytes + len <= c->max_bytes && (e->text = malloc(len + 1))) {
            memcpy(e->text, text, len);
            e->text[len] = '\0';
            e->len = len;
            e->type = type;
            e->made_ms = now;
            c->bytes += len;
        } else {
            entry_remove(c, e);
        }
    }
    pthread_cond_broadcast(&c->filled);
    pthread_mutex_unlock(&c->lock);
}

void rest_cache_abandon(struct rest_cache *c, const char *key)
{
    struct entry *e;

    pthread_mutex_lock(&c->lock);
    HASH_FIND_STR(c->entries, key, e);
    if (e) {
        e->filling = false;
        if (!e->text)
            entry_remove(c, e);
    }
    pthread_cond_broadcast(&c->filled);
    pthread_mutex_unlock(&c->lock);
}

void rest_cache_clear(struct rest_cache *c)
{
    struct entry *e, *tmp;

    pthread_mutex_lock(&c->lock);
    HASH_ITER(hh, c->entries, e, tmp) {
        if (e->filling)
            entry_drop_text(c, e);
        else
            entry_remove(c, e);
    }
    pthread_mutex_unlock(&c->lock);
}
