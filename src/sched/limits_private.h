/* SPDX-License-Identifier: Apache-2.0
 *
 * limits_private.h - the tables behind limits.h, shared by limits.c (the
 * tables from JSON) and limits_check.c (usage and decisions) only
 */
#ifndef DROVER_SCHED_LIMITS_PRIVATE_H
#define DROVER_SCHED_LIMITS_PRIVATE_H

#include <uthash.h>

#include "sched/limits.h"

/* Jobs and TRES in use. */
struct limits_usage {
    int64_t submit_jobs;    /* pending + running */
    int64_t run_jobs;
    struct limits_tres run; /* TRES of running jobs */
};

/* Limits shared by QOS and associations; -1 = none. */
struct limits_set {
    struct limits_tres grp_tres, max_tres_per_job, max_tres_per_user;
    int64_t grp_jobs, grp_submit_jobs;
    int64_t max_jobs;        /* QOS: MaxJobsPerUser; assoc: MaxJobs */
    int64_t max_submit_jobs; /* QOS: MaxSubmitJobsPerUser; assoc: MaxSubmitJobs */
    int64_t max_wall_min;
};

/* One user's usage under a QOS (MaxTRESPerUser, MaxJobsPerUser). */
struct limits_qos_user {
    char *user;
    struct limits_usage use;
    UT_hash_handle hh;
};

struct limits_qos {
    char *name;
    struct limits_set lim;
    uint32_t priority;             /* Priority= (multifactor's QOS factor) */
    double usage_factor;           /* UsageFactor=, 1.0 */
    char **preempt;                /* Preempt=: QOS it may preempt,
                                    * NULL-terminated */
    char *preempt_mode;            /* "cluster", "off", "cancel", ... */
    int64_t grace_time_s;          /* GraceTime=, seconds, 0 */
    struct limits_usage use;       /* all jobs of the QOS (Grp limits) */
    struct limits_qos_user *users; /* uthash by user */
    UT_hash_handle hh;
};

struct limits_assoc {
    char *key;  /* "user\x1f" "account\x1f" "partition" */
    char *account, *user, *partition, *parent_account;
    struct limits_assoc *parent; /* the parent account's association */
    struct limits_set lim;
    char **qos;                  /* allowed QOS names, NULL-terminated */
    uint32_t shares;             /* fairshare=, 1 */
    uint32_t priority;           /* Priority= (effective), 0 when none */
    char *def_qos;               /* "" none */
    struct limits_usage use;     /* this association and its subtree */
    UT_hash_handle hh;
};

struct limits_user {
    char *name;
    char *default_account;
    UT_hash_handle hh;
};

struct limits_table {
    int64_t version;
    struct limits_qos *qos;     /* uthash by name */
    struct limits_assoc *assocs; /* uthash by key */
    struct limits_user *users;  /* uthash by name */
};

/* The association of (user, account, partition): the one naming the
 * partition, else the one with none.  NULL if none.  user "" finds an
 * account's own association. */
struct limits_assoc *limits__assoc_find(const limits_table_t *t,
                                        const char *user, const char *account,
                                        const char *partition);

struct limits_qos *limits__qos_find(const limits_table_t *t, const char *name);

#endif /* !DROVER_SCHED_LIMITS_PRIVATE_H */
