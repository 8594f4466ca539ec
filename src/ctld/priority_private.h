/* SPDX-License-Identifier: Apache-2.0
 *
 * priority_private.h - the state behind priority.h, shared by priority.c
 * (usage, calculation, factors) and rpc_priority.c (sprio, sshare) only
 */
#ifndef DROVER_CTLD_PRIORITY_PRIVATE_H
#define DROVER_CTLD_PRIORITY_PRIVATE_H

#include <uthash.h>
#include <uv.h>

#include "ctld/priority.h"
#include "sched/fairshare.h"

/* Raw usage of one (account, user): CPU-seconds times UsageFactor,
 * decayed. */
struct prio_usage {
    char *key; /* "account\x1fuser" */
    char *account, *user;
    double raw;
    UT_hash_handle hh;
};

struct ctld_priority {
    struct prio_conf conf;
    struct prio_usage *usage; /* uthash by key */
    time_t last_calc;         /* the last calculation (0: none yet) */
    fs_tree_t *tree;          /* cached; rebuilt when dirty */
    bool tree_dirty;          /* usage changed since it was built */
    int64_t table_version;    /* accounting tables it was built from */
    uint32_t qos_prio_max;    /* largest QOS / association Priority= of */
    uint32_t assoc_prio_max;  /* those tables (the factors' divisors) */
    struct fs_assoc *in;      /* building the tree */
    size_t nin, in_cap;
    uint32_t cluster_nodes, cluster_cpus, cluster_gpus;
    uint64_t cluster_mem_mib;
    uint32_t part_prio_max;   /* largest PriorityJobFactor */
    uv_timer_t timer;         /* PriorityCalcPeriod */
    bool timer_on;            /* priority_start() set it up */
};

/* The fair-share tree of the current tables and usage (built when either
 * changed).  Borrowed until the next call. */
const fs_tree_t *priority_tree(struct ctld *ctld);

#endif /* !DROVER_CTLD_PRIORITY_PRIVATE_H */
