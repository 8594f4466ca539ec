/* SPDX-License-Identifier: Apache-2.0
 *
 * usage_private.h - shared by usage_store.c and usage_report.c
 */
#ifndef DROVER_DBD_USAGE_PRIVATE_H
#define DROVER_DBD_USAGE_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "dbd/db.h"
#include "dbd/usage_store.h"

/* An acct_usage_report request, checked (usage_report.c). */
struct usage_req {
    const char *report, *cluster;
    int64_t start, end;       /* whole hours */
    bool tres[USAGE_NTRES];   /* the TRES asked for */
    json_t *users, *accounts; /* borrowed arrays; NULL: all */
    int64_t top_count;        /* user_topusage: rows per cluster */
    bool group;               /* user_topusage: one row per user */
    bool hourly;              /* cluster_utilization: "hours" too */
    const char *only_user;    /* PrivateData=usage: only this user's rows */
};

/* A cluster's TRES seconds over the window: allocated, capacity, planned
 * and planned down (each hour's already capped at its idle time). */
struct usage_csum {
    int64_t alloc[USAGE_NTRES], cap[USAGE_NTRES], plan[USAGE_NTRES];
    int64_t pdown[USAGE_NTRES];
};

/* True when 'list' (a JSON array of strings) is NULL, empty or holds 's'. */
bool usage_in_list(json_t *list, const char *s);

/* {tres name: v[i]} for the TRES of 'q' (new object). */
json_t *usage_tres_obj(const struct usage_req *q, const int64_t *v);

/* The four sums of one (account, user) entry ('a' may be NULL: zeros). */
void usage_sums_of(json_t *a, int64_t *v);

/* usage_rows.c: a cluster's object of the answer, with its totals. */
json_t *usage_cluster_totals(const struct usage_req *q, const char *name,
                             const struct usage_csum *c);

/* usage_rows.c: user_topusage rows from 'sums' ({"acct\037user":[4]}). */
json_t *usage_top_rows(const struct usage_req *q, json_t *sums);

/* usage_rows.c: account_utilization_by_user rows, the association tree of
 * 'cluster' in sacctmgr's order; NULL with 'error' on a database error.
 */
json_t *usage_tree_rows(db_t *db, const struct usage_req *q,
                        const char *cluster, json_t *sums,
                        drv_error_t *error);

/* Counts of a Slurm TRES string ("cpu=4,mem=8000M,node=1,gres/gpu=2")
 * into tres[USAGE_*]: mem in MiB (K, M, G, T suffixes; M when none);
 * keys not there are 0.  NULL or "" gives zeros.
 */
void usage_parse_tres(const char *s, int64_t tres[USAGE_NTRES]);

#endif /* !DROVER_DBD_USAGE_PRIVATE_H */
