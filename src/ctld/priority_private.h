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

/* What one association's or QOS's usage counts: CPU-seconds, MiB-seconds
 * of memory, node-seconds, GPU-seconds (Slurm's usage_tres_raw of
 * cpu, mem, node, gres/gpu). */
enum prio_use_tres { PRIO_USE_CPU, PRIO_USE_MEM, PRIO_USE_NODE, PRIO_USE_GPU,
                     PRIO_USE_TRES };

/* Usage of one (account, user), or of one QOS (in ctld_priority.qos_usage:
 * 'account' is the QOS's name, 'user' ""): 'raw' is CPU-seconds times the
 * QOS's UsageFactor (the fair-share usage, Slurm's RawUsage), 'tres' the
 * same for each TRES and 'wall' the seconds jobs ran (scontrol show
 * assoc_mgr's GrpTRESMins and GrpWall), all times UsageFactor and decayed
 * together. */
struct prio_usage {
    char *key; /* "account\x1fuser" */
    char *account, *user;
    double raw;
    double tres[PRIO_USE_TRES];
    double wall;
    UT_hash_handle hh;
};

struct ctld_priority {
    struct prio_conf conf;
    struct prio_usage *usage; /* uthash by key */
    struct prio_usage *qos_usage; /* per QOS, uthash by key */
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
