/* SPDX-License-Identifier: Apache-2.0
 *
 * usage_rows.c - the rows of acct_usage_report from summed usage
 *
 * Sums come as a JSON object {"account\037user": [cpu, mem, node, gpu]}.
 * AccountUtilizationByUser walks the association tree in sacctmgr's order
 * (an account's row holds its whole subtree, as Slurm's does); TopUsage
 * sorts users by CPU seconds, as Slurm's sort_user_dec does whatever the
 * TRES shown.
 */
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "dbd/assoc_store.h"
#include "dbd/usage_private.h"

/* As Slurm's sreport: reported = allocated + down + planned down + idle +
 * planned, down being 0 here.  Planned down (MAINT reservations) and
 * planned stay within reported - allocated (each hour's are within its
 * idle time already). */
json_t *usage_cluster_totals(const struct usage_req *q, const char *name,
                             const struct usage_csum *c)
{
    int64_t count[USAGE_NTRES], idle[USAGE_NTRES], rep[USAGE_NTRES];
    int64_t plan[USAGE_NTRES], pdown[USAGE_NTRES], zero[USAGE_NTRES] = {0};
    int64_t secs = q->end - q->start;

    for (int i = 0; i < USAGE_NTRES; i++) {
        rep[i] = c->cap[i] > c->alloc[i] ? c->cap[i] : c->alloc[i];
        idle[i] = rep[i] - c->alloc[i];
        pdown[i] = c->pdown[i] < idle[i] ? c->pdown[i] : idle[i];
        idle[i] -= pdown[i];
        plan[i] = c->plan[i] < idle[i] ? c->plan[i] : idle[i];
        idle[i] -= plan[i];
        count[i] = secs > 0 ? c->cap[i] / secs : 0;
    }
    return json_pack("{s:s s:o s:o s:o s:o s:o s:o s:o}", "cluster", name,
                     "count", usage_tres_obj(q, count), "allocated",
                     usage_tres_obj(q, c->alloc), "down",
                     usage_tres_obj(q, zero), "planned_down",
                     usage_tres_obj(q, pdown), "idle", usage_tres_obj(q, idle),
                     "planned", usage_tres_obj(q, plan), "reported",
                     usage_tres_obj(q, rep));
}

/* Split "acct\037user" into its parts (a copy; free *acct). */
static void split_key(const char *key, char **acct, const char **user)
{
    char *sep;

    *acct = xstrdup(key);
    sep = strchr(*acct, '\037');
    *user = sep ? sep + 1 : "";
    if (sep)
        *sep = '\0';
}

static bool user_wanted(const struct usage_req *q, const char *acct,
                        const char *user)
{
    if (q->only_user && strcmp(q->only_user, user))
        return false;
    return usage_in_list(q->users, user) && usage_in_list(q->accounts, acct);
}

/* ---- TopUsage ---- */

struct top {
    char *user;
    json_t *accounts;
    int64_t v[USAGE_NTRES];
};

static int top_cmp(const void *a, const void *b)
{
    const struct top *x = a, *y = b;

    if (x->v[USAGE_CPU] != y->v[USAGE_CPU])
        return x->v[USAGE_CPU] > y->v[USAGE_CPU] ? -1 : 1;
    return strcmp(x->user, y->user);
}

static struct top *top_find(struct top *t, size_t n, const char *user)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(t[i].user, user))
            return &t[i];
    return NULL;
}

json_t *usage_top_rows(const struct usage_req *q, json_t *sums)
{
    struct top *t = xzalloc((json_object_size(sums) + 1) * sizeof(*t));
    json_t *rows = json_array(), *a;
    const char *key, *user;
    size_t n = 0;

    json_object_foreach(sums, key, a) {
        int64_t v[USAGE_NTRES];
        char *acct;
        struct top *e;

        split_key(key, &acct, &user);
        usage_sums_of(a, v);
        if (user[0] && user_wanted(q, acct, user)
            && (v[0] || v[1] || v[2] || v[3])) {
            if (!(e = q->group ? top_find(t, n, user) : NULL)) {
                e = &t[n++];
                e->user = xstrdup(user);
                e->accounts = json_array();
            }
            json_array_append_new(e->accounts, json_string(acct));
            for (int i = 0; i < USAGE_NTRES; i++)
                e->v[i] += v[i];
        }
        free(acct);
    }
    qsort(t, n, sizeof(*t), top_cmp);
    for (size_t i = 0; i < n; i++) {
        if (q->top_count <= 0 || (int64_t)i < q->top_count)
            json_array_append_new(rows, json_pack("{s:s s:O s:o}", "user",
                                                  t[i].user, "accounts",
                                                  t[i].accounts, "used",
                                                  usage_tres_obj(q, t[i].v)));
        free(t[i].user);
        json_decref(t[i].accounts);
    }
    free(t);
    return rows;
}

/* ---- AccountUtilizationByUser ---- */

/* Add 'v' to account 'acct' and each of its ancestors in 'totals'
 * ({account: [4]}); 'parents' maps an account to its parent. */
static void add_up(json_t *totals, json_t *parents, const char *acct,
                   const int64_t *v)
{
    for (int depth = 0; acct && depth < 64; depth++) {
        json_t *a = json_object_get(totals, acct);
        if (!a) {
            a = json_pack("[I I I I]", (json_int_t)0, (json_int_t)0,
                          (json_int_t)0, (json_int_t)0);
            json_object_set_new(totals, acct, a);
        }
        for (int i = 0; i < USAGE_NTRES; i++)
            json_integer_set(json_array_get(a, (size_t)i),
                             json_integer_value(json_array_get(a, (size_t)i))
                                 + v[i]);
        if (!strcmp(acct, "root"))
            break;
        acct = json_string_value(json_object_get(parents, acct));
        if (!acct || !acct[0])
            acct = "root";
    }
}

static json_t *row(const struct usage_req *q, const char *acct,
                   const char *user, json_t *a)
{
    int64_t v[USAGE_NTRES];

    usage_sums_of(a, v);
    return json_pack("{s:s s:s s:o}", "account", acct, "user", user, "used",
                     usage_tres_obj(q, v));
}

json_t *usage_tree_rows(db_t *db, const struct usage_req *q,
                        const char *cluster, json_t *sums,
                        drv_error_t *error)
{
    json_t *list = assoc_store_list(db, cluster, -1, error);
    json_t *parents = json_object(), *totals = json_object(), *seen;
    json_t *rows = json_array(), *as, *a;
    const char *key, *user;
    size_t i;

    if (!list)
        goto fail;
    as = json_object_get(list, "assocs");
    json_array_foreach(as, i, a) {
        if (!json_string_value(json_object_get(a, "user"))[0])
            json_object_set(parents,
                            json_string_value(json_object_get(a, "account")),
                            json_object_get(a, "parent_account"));
    }
    json_object_foreach(sums, key, a) {
        int64_t v[USAGE_NTRES];
        char *acct;

        split_key(key, &acct, &user);
        usage_sums_of(a, v);
        add_up(totals, parents, acct, v);
        free(acct);
    }
    seen = json_object();
    json_array_foreach(as, i, a) {
        const char *acct = json_string_value(json_object_get(a, "account"));
        char *k;

        user = json_string_value(json_object_get(a, "user"));
        if (!user[0] && !q->only_user && usage_in_list(q->accounts, acct))
            json_array_append_new(rows, row(q, acct, "",
                                            json_object_get(totals, acct)));
        if (!user[0])
            continue;
        k = xasprintf("%s\037%s", acct, user);
        json_object_set_new(seen, k, json_true());
        if (user_wanted(q, acct, user))
            json_array_append_new(rows, row(q, acct, user,
                                            json_object_get(sums, k)));
        free(k);
    }
    /* Usage of pairs the tree does not hold (no association). */
    json_object_foreach(sums, key, a) {
        char *acct;

        split_key(key, &acct, &user);
        if (!json_object_get(seen, key) && user_wanted(q, acct, user))
            json_array_append_new(rows, row(q, acct, user, a));
        free(acct);
    }
    json_decref(seen);
    json_decref(list);
    json_decref(parents);
    json_decref(totals);
    return rows;
fail:
    json_decref(parents);
    json_decref(totals);
    json_decref(rows);
    return NULL;
}
