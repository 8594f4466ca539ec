/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_stats.c - request counts and times per message type and user
 * (rpc_stats.h)
 */
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "common/histogram.h"
#include "common/xalloc.h"
#include "proto/rpc_stats.h"

struct type_stat {
    UT_hash_handle hh;
    struct histogram h; /* times, us */
    char type[];
};

struct user_stat {
    UT_hash_handle hh;
    uid_t uid;
    uint64_t count, total_us;
};

struct rpc_stats {
    struct type_stat *types;
    struct user_stat *users;
};

struct rpc_stats *rpc_stats_create(void)
{
    return xzalloc(sizeof(struct rpc_stats));
}

void rpc_stats_reset(struct rpc_stats *st)
{
    struct type_stat *t, *tt;
    struct user_stat *u, *ut;

    HASH_ITER(hh, st->types, t, tt) {
        HASH_DEL(st->types, t);
        free(t);
    }
    HASH_ITER(hh, st->users, u, ut) {
        HASH_DEL(st->users, u);
        free(u);
    }
}

void rpc_stats_destroy(struct rpc_stats *st)
{
    if (st) {
        rpc_stats_reset(st);
        free(st);
    }
}

void rpc_stats_add(struct rpc_stats *st, const char *type, uid_t uid,
                   uint64_t us)
{
    struct type_stat *t;
    struct user_stat *u;
    size_t len = strlen(type);

    HASH_FIND(hh, st->types, type, len, t);
    if (!t) {
        t = xzalloc(sizeof(*t) + len + 1);
        memcpy(t->type, type, len + 1);
        HASH_ADD_KEYPTR(hh, st->types, t->type, len, t);
    }
    histogram_add(&t->h, us);
    HASH_FIND(hh, st->users, &uid, sizeof(uid), u);
    if (!u) {
        u = xzalloc(sizeof(*u));
        u->uid = uid;
        HASH_ADD(hh, st->users, uid, sizeof(uid), u);
    }
    u->count++;
    u->total_us += us;
}

static int by_type_count(const void *a, const void *b)
{
    const struct type_stat *x = *(struct type_stat *const *)a;
    const struct type_stat *y = *(struct type_stat *const *)b;

    return x->h.count != y->h.count ? (x->h.count < y->h.count ? 1 : -1)
                                    : strcmp(x->type, y->type);
}

static int by_user_count(const void *a, const void *b)
{
    const struct user_stat *x = *(struct user_stat *const *)a;
    const struct user_stat *y = *(struct user_stat *const *)b;

    return x->count != y->count ? (x->count < y->count ? 1 : -1)
                                : (x->uid > y->uid) - (x->uid < y->uid);
}

json_t *rpc_stats_to_json(const struct rpc_stats *st)
{
    size_t nt = HASH_COUNT(st->types), nu = HASH_COUNT(st->users), i = 0;
    struct type_stat **ts = xzalloc((nt + 1) * sizeof(*ts)), *t, *tt;
    struct user_stat **us = xzalloc((nu + 1) * sizeof(*us)), *u, *ut;
    json_t *types = json_array(), *users = json_array();

    HASH_ITER(hh, st->types, t, tt) ts[i++] = t;
    i = 0;
    HASH_ITER(hh, st->users, u, ut) us[i++] = u;
    qsort(ts, nt, sizeof(*ts), by_type_count);
    qsort(us, nu, sizeof(*us), by_user_count);
    for (i = 0; i < nt; i++)
        json_array_append_new(
            types,
            json_pack("{s:s s:I s:I s:I s:I s:I s:o}", "type", ts[i]->type,
                      "count", (json_int_t)ts[i]->h.count, "total_us",
                      (json_int_t)ts[i]->h.total, "max_us",
                      (json_int_t)ts[i]->h.max, "p50_us",
                      (json_int_t)histogram_quantile(&ts[i]->h, 0.5),
                      "p99_us",
                      (json_int_t)histogram_quantile(&ts[i]->h, 0.99),
                      "le_us", histogram_le_json(&ts[i]->h)));
    for (i = 0; i < nu; i++)
        json_array_append_new(
            users, json_pack("{s:I s:I s:I}", "uid", (json_int_t)us[i]->uid,
                             "count", (json_int_t)us[i]->count, "total_us",
                             (json_int_t)us[i]->total_us));
    free(ts);
    free(us);
    return json_pack("{s:o s:o}", "types", types, "users", users);
}
