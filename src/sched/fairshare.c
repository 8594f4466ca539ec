/* SPDX-License-Identifier: Apache-2.0
 *
 * fairshare.c - Fair Tree and classic fair-share over the association tree
 * (fairshare.h)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "common/xalloc.h"
#include "sched/fairshare.h"

struct fs_node {
    char *account, *user;
    bool is_user;
    uint32_t shares;
    double usage;
    size_t parent;       /* index; the root's is itself */
    size_t *kids;        /* users by name, then accounts by name */
    size_t nkids;
    size_t *ranked;      /* the kids in by_level_fs() order as last ranked
                          * (Fair Tree) */
    size_t order;        /* place in by_kind_name() order of all nodes,
                          * ties by index: a total order */
    struct fs_row row;
};

struct fs_key {
    char *key;           /* "account\x1fuser" */
    size_t idx;          /* into nodes, then into rows */
    UT_hash_handle hh;
};

struct fs_tree {
    struct fs_node *nodes;
    size_t n, cap;
    struct fs_key *by_name;
    struct fs_row *rows; /* tree order */
    enum fs_algo algo;   /* what the rows were computed with */
    size_t *row_node;    /* per row: its node */
    size_t *scratch;     /* rank_level()'s sets, a slot per node */
    size_t scratch_used;
    size_t nusers;
};

static char *key_of(const char *account, const char *user)
{
    return xasprintf("%s\x1f%s", account, user);
}

/* No allocation for the usual names: a lookup per job priority. */
static struct fs_key *key_find(const fs_tree_t *t, const char *account,
                               const char *user)
{
    char buf[256], *k = buf;
    struct fs_key *e = NULL;

    if ((size_t)snprintf(buf, sizeof(buf), "%s\x1f%s", account, user)
        >= sizeof(buf))
        k = key_of(account, user);
    HASH_FIND_STR(t->by_name, k, e);
    if (k != buf)
        free(k);
    return e;
}

static size_t node_add(fs_tree_t *t, const char *account, const char *user,
                       uint32_t shares)
{
    struct fs_node *nd;
    struct fs_key *e = xzalloc(sizeof(*e));

    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->nodes = xrealloc(t->nodes, t->cap * sizeof(*t->nodes));
    }
    nd = &t->nodes[t->n];
    *nd = (struct fs_node){ .account = xstrdup(account),
                            .user = xstrdup(user), .is_user = *user != '\0',
                            .shares = shares };
    e->key = key_of(account, user);
    e->idx = t->n;
    HASH_ADD_KEYPTR(hh, t->by_name, e->key, strlen(e->key), e);
    return t->n++;
}

/* The account node of 'name', or the root when none. */
static size_t account_idx(const fs_tree_t *t, const char *name)
{
    struct fs_key *e = key_find(t, name ? name : "", "");

    return e ? e->idx : 0;
}

/* Is 'anc' an ancestor of (or) 'idx' through the parents set so far? */
static bool reaches(const fs_tree_t *t, size_t idx, size_t anc)
{
    for (size_t steps = 0; steps <= t->n; steps++) {
        if (idx == anc)
            return true;
        if (idx == 0)
            return false;
        idx = t->nodes[idx].parent;
    }
    return true; /* a loop: treat as reaching */
}

/* qsort_r order of node indexes: users before accounts, then by name. */
static int by_kind_name(const void *a, const void *b, void *arg)
{
    const fs_tree_t *t = arg;
    const struct fs_node *x = &t->nodes[*(const size_t *)a];
    const struct fs_node *y = &t->nodes[*(const size_t *)b];

    if (x->is_user != y->is_user)
        return x->is_user ? -1 : 1;
    return strcmp(x->is_user ? x->user : x->account,
                  y->is_user ? y->user : y->account);
}

static int by_kind_name_index(const void *a, const void *b, void *arg)
{
    int c = by_kind_name(a, b, arg);
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    return c ? c : x < y ? -1 : x > y;
}

/* Each node's place in by_kind_name() order, ties by index, so that
 * ranking compares numbers, not names (a calculation sorts every level). */
static void number_nodes(fs_tree_t *t)
{
    size_t *ix = xzalloc((t->n + 1) * sizeof(*ix));

    for (size_t i = 0; i < t->n; i++)
        ix[i] = i;
    qsort_r(ix, t->n, sizeof(*ix), by_kind_name_index, t);
    for (size_t i = 0; i < t->n; i++)
        t->nodes[ix[i]].order = i;
    free(ix);
}

static void link_kids(fs_tree_t *t)
{
    for (size_t i = 1; i < t->n; i++) {
        struct fs_node *p = &t->nodes[t->nodes[i].parent];
        p->kids = xrealloc(p->kids, (p->nkids + 1) * sizeof(*p->kids));
        p->kids[p->nkids++] = i;
    }
    for (size_t i = 0; i < t->n; i++) {
        struct fs_node *nd = &t->nodes[i];
        if (nd->nkids > 1)
            qsort_r(nd->kids, nd->nkids, sizeof(size_t), by_kind_name, t);
        nd->ranked = xzalloc((nd->nkids + 1) * sizeof(*nd->ranked));
        if (nd->nkids) /* kids is NULL without */
            memcpy(nd->ranked, nd->kids, nd->nkids * sizeof(*nd->ranked));
    }
}

/* Subtree usage, depth and the per-level figures both algorithms share. */
static double sum_usage(fs_tree_t *t, size_t idx, unsigned depth)
{
    struct fs_node *nd = &t->nodes[idx];

    nd->row.depth = depth;
    if (!nd->is_user) {
        nd->usage = 0;
        for (size_t k = 0; k < nd->nkids; k++)
            nd->usage += sum_usage(t, nd->kids[k], depth + 1);
    }
    return nd->usage;
}

static void level_figures(fs_tree_t *t, size_t idx, enum fs_algo algo)
{
    struct fs_node *p = &t->nodes[idx];
    double shares = 0, root_usage = t->nodes[0].usage;

    for (size_t k = 0; k < p->nkids; k++)
        shares += t->nodes[p->kids[k]].shares;
    for (size_t k = 0; k < p->nkids; k++) {
        struct fs_node *c = &t->nodes[p->kids[k]];
        struct fs_row *r = &c->row;
        double s = shares > 0 ? c->shares / shares : 0;
        double ua = root_usage > 0 ? c->usage / root_usage : 0;

        r->raw_shares = c->shares;
        r->raw_usage = c->usage;
        r->norm_usage = ua;
        if (algo == FS_FAIR_TREE) {
            double u = p->usage > 0 ? c->usage / p->usage : 0;
            r->norm_shares = s;
            r->effective_usage = u;
            r->level_fs = s <= 0 ? 0 : u <= 0 ? INFINITY : s / u;
            r->fairshare = -1;
        } else {
            r->norm_shares = (idx ? p->row.norm_shares : 1.0) * s;
            r->effective_usage =
                ua + ((idx ? p->row.effective_usage : 1.0) - ua) * s;
            r->fairshare = r->norm_shares > 0
                               ? exp2(-r->effective_usage / r->norm_shares)
                               : 0;
            r->level_fs = -1;
        }
        level_figures(t, p->kids[k], algo);
    }
}

/* LevelFS highest first; ties as by_kind_name() (by 'order'). */
static int by_level_fs(const void *a, const void *b, void *arg)
{
    const fs_tree_t *t = arg;
    const struct fs_node *x = &t->nodes[*(const size_t *)a];
    const struct fs_node *y = &t->nodes[*(const size_t *)b];

    if (x->row.level_fs != y->row.level_fs)
        return x->row.level_fs > y->row.level_fs ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Fair Tree's ranking of one set of siblings (or of the children of tied
 * accounts, merged): 'rank' is the rank of the last user given one,
 * 'next' the next free one. */
static void rank_level(fs_tree_t *t, size_t *set, size_t n, size_t *rank,
                       size_t *next)
{
    /* by_level_fs() is a total order, so any sort gives this order; a set
     * kept from the last calculation is mostly in it already. */
    for (size_t i = 1; i < n; i++)
        if (by_level_fs(&set[i - 1], &set[i], t) > 0) {
            qsort_r(set, n, sizeof(*set), by_level_fs, t);
            break;
        }
    for (size_t i = 0; i < n;) {
        struct fs_node *nd = &t->nodes[set[i]];
        bool tied = i > 0
                    && t->nodes[set[i - 1]].row.level_fs == nd->row.level_fs
                    && t->nodes[set[i - 1]].is_user == nd->is_user;
        if (nd->is_user) {
            if (!tied)
                *rank = *next;
            nd->row.fairshare = t->nusers ? (double)*rank / t->nusers : 0;
            (*next)--;
            i++;
            continue;
        }
        /* A run of accounts with the same LevelFS: their children are
         * ranked together. */
        size_t j = i, nmerged = 0;
        size_t *merged;
        while (j < n && !t->nodes[set[j]].is_user
               && t->nodes[set[j]].row.level_fs == nd->row.level_fs)
            nmerged += t->nodes[set[j++]].nkids;
        if (j == i + 1) { /* one account: its children in their last order */
            rank_level(t, nd->ranked, nd->nkids, rank, next);
            i = j;
            continue;
        }
        /* The sets along the recursion are disjoint: one scratch array
         * of a slot per node holds them all. */
        merged = t->scratch + t->scratch_used;
        t->scratch_used += nmerged;
        nmerged = 0;
        for (size_t k = i; k < j; k++) {
            struct fs_node *a = &t->nodes[set[k]];
            memcpy(merged + nmerged, a->kids, a->nkids * sizeof(*merged));
            nmerged += a->nkids;
        }
        rank_level(t, merged, nmerged, rank, next);
        t->scratch_used -= nmerged;
        i = j;
    }
}

static void emit_rows(fs_tree_t *t, size_t idx, size_t *out)
{
    struct fs_node *nd = &t->nodes[idx];
    struct fs_key *e = key_find(t, nd->account, nd->user);

    nd->row.account = nd->account;
    nd->row.user = nd->user;
    t->rows[*out] = nd->row;
    t->row_node[*out] = idx;
    e->idx = (*out)++;
    for (size_t k = 0; k < nd->nkids; k++)
        emit_rows(t, nd->kids[k], out);
}

static void build_nodes(fs_tree_t *t, const struct fs_assoc *in, size_t n)
{
    node_add(t, "root", "", 1);
    for (size_t i = 0; i < n; i++) {
        const char *acct = in[i].account ? in[i].account : "";
        if ((in[i].user && *in[i].user) || !*acct)
            continue;
        if (!strcmp(acct, "root"))
            t->nodes[0].shares = in[i].shares;
        else if (!key_find(t, acct, ""))
            node_add(t, acct, "", in[i].shares);
    }
    for (size_t i = 0; i < n; i++) { /* accounts' parents */
        const char *acct = in[i].account ? in[i].account : "";
        size_t idx, p;
        if ((in[i].user && *in[i].user) || !*acct || !strcmp(acct, "root"))
            continue;
        idx = account_idx(t, acct);
        p = account_idx(t, in[i].parent_account);
        t->nodes[idx].parent = reaches(t, p, idx) ? 0 : p;
    }
    for (size_t i = 0; i < n; i++) {
        const char *acct = in[i].account ? in[i].account : "";
        struct fs_key *e;
        size_t idx;
        if (!in[i].user || !*in[i].user)
            continue;
        if ((e = key_find(t, acct, in[i].user))) {
            t->nodes[e->idx].usage += in[i].usage;
            continue;
        }
        idx = node_add(t, acct, in[i].user, in[i].shares);
        t->nodes[idx].usage = in[i].usage;
        t->nodes[idx].parent = account_idx(t, acct);
        t->nusers++;
    }
}

/* Every figure from the nodes' shares and usages (the tree's shape is
 * set). */
static void compute(fs_tree_t *t, enum fs_algo algo)
{
    struct fs_row *root;

    sum_usage(t, 0, 0);
    root = &t->nodes[0].row;
    *root = (struct fs_row){ .raw_shares = -1, .raw_usage = t->nodes[0].usage,
                             .norm_usage = 1.0, .effective_usage = 1.0,
                             .fairshare = -1, .level_fs = -1 };
    level_figures(t, 0, algo);
    if (algo == FS_FAIR_TREE) {
        size_t rank = t->nusers, next = t->nusers;
        rank_level(t, t->nodes[0].ranked, t->nodes[0].nkids, &rank, &next);
    }
}

fs_tree_t *fs_tree_build(const struct fs_assoc *in, size_t n,
                         enum fs_algo algo)
{
    fs_tree_t *t = xzalloc(sizeof(*t));
    size_t out = 0;

    build_nodes(t, in, n);
    link_kids(t);
    number_nodes(t);
    t->scratch = xzalloc((t->n + 1) * sizeof(*t->scratch));
    t->algo = algo;
    compute(t, algo);
    t->rows = xzalloc(t->n * sizeof(*t->rows));
    t->row_node = xzalloc(t->n * sizeof(*t->row_node));
    emit_rows(t, 0, &out);
    return t;
}

int fs_tree_set_usage(fs_tree_t *t, size_t row, double usage)
{
    struct fs_node *nd;

    if (row >= t->n || !(nd = &t->nodes[t->row_node[row]])->is_user)
        return -1;
    nd->usage = usage;
    return 0;
}

void fs_tree_update(fs_tree_t *t)
{
    compute(t, t->algo);
    for (size_t i = 0; i < t->n; i++) {
        struct fs_node *nd = &t->nodes[t->row_node[i]];
        nd->row.account = nd->account;
        nd->row.user = nd->user;
        t->rows[i] = nd->row;
    }
}

void fs_tree_destroy(fs_tree_t *t)
{
    struct fs_key *e, *tmp;

    if (!t)
        return;
    HASH_ITER(hh, t->by_name, e, tmp) {
        HASH_DEL(t->by_name, e);
        free(e->key);
        free(e);
    }
    for (size_t i = 0; i < t->n; i++) {
        free(t->nodes[i].account);
        free(t->nodes[i].user);
        free(t->nodes[i].kids);
        free(t->nodes[i].ranked);
    }
    free(t->nodes);
    free(t->rows);
    free(t->row_node);
    free(t->scratch);
    free(t);
}

size_t fs_tree_rows(const fs_tree_t *t, const struct fs_row **rows)
{
    *rows = t->rows;
    return t->n;
}

const struct fs_row *fs_tree_find(const fs_tree_t *t, const char *account,
                                  const char *user)
{
    struct fs_key *e = key_find(t, account ? account : "", user ? user : "");

    return e ? &t->rows[e->idx] : NULL;
}

double fs_row_factor(const struct fs_row *r)
{
    return r && *r->user && r->fairshare > 0 ? r->fairshare : 0;
}

double fs_tree_factor(const fs_tree_t *t, const char *account,
                      const char *user)
{
    if (!t || !account || !user || !*user)
        return 0;
    return fs_row_factor(fs_tree_find(t, account, user));
}
