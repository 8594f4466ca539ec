/* SPDX-License-Identifier: Apache-2.0
 *
 * limits.h - associations, QOS and their limits (AccountingStorageEnforce)
 *
 * Pure code: the caller hands in the tables droverdbd sent (acct_assoc_list,
 * docs/protocol.md), the usage of the jobs it holds, and asks two questions:
 *   at submit time: which account, association and QOS a job gets, and
 *     whether a submit limit (MaxSubmitJobs...) refuses it;
 *   at scheduling time: whether a pending job may start now, else the
 *     limit that holds it, with Slurm's reason (QOSMaxGRESPerUser...).
 * Usage is whatever the caller added with limits_usage_add() since the last
 * limits_usage_clear(); the controller recomputes it once per pass.
 * Limit checks follow Slurm's acct_policy: the job's QOS first, then its
 * association and every parent account's association up to the root.
 */
#ifndef DROVER_SCHED_LIMITS_H
#define DROVER_SCHED_LIMITS_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "common/error.h"

/* TRES the limits count.  Memory in MiB. */
enum limits_tres_idx { TRES_CPU, TRES_MEM, TRES_NODE, TRES_GPU, TRES_COUNT };

/* A TRES vector: limits use -1 for "no limit", usage counts from 0. */
struct limits_tres {
    int64_t v[TRES_COUNT];
};

/* Reasons a job waits for a limit, with Slurm's spelling (job_reason_string
 * in Slurm).  The controller appends this list to its JOB_REASONS in the
 * same order.  Within each TRES group the order is cpu, mem, node, gres.
 */
#define LIMITS_REASONS(X)                                                      \
    X(QOS_GRP_JOBS, "QOSGrpJobsLimit")                                         \
    X(QOS_MAX_WALL_PJ, "QOSMaxWallDurationPerJobLimit")                        \
    X(QOS_MAX_JOBS_PU, "QOSMaxJobsPerUserLimit")                               \
    X(QOS_GRP_CPU, "QOSGrpCpuLimit")                                           \
    X(QOS_GRP_MEM, "QOSGrpMemLimit")                                           \
    X(QOS_GRP_NODE, "QOSGrpNodeLimit")                                         \
    X(QOS_GRP_GRES, "QOSGrpGRES")                                              \
    X(QOS_MAX_CPU_PJ, "QOSMaxCpuPerJobLimit")                                  \
    X(QOS_MAX_MEM_PJ, "QOSMaxMemoryPerJob")                                    \
    X(QOS_MAX_NODE_PJ, "QOSMaxNodePerJobLimit")                                \
    X(QOS_MAX_GRES_PJ, "QOSMaxGRESPerJob")                                     \
    X(QOS_MAX_CPU_PU, "QOSMaxCpuPerUserLimit")                                 \
    X(QOS_MAX_MEM_PU, "QOSMaxMemoryPerUser")                                   \
    X(QOS_MAX_NODE_PU, "QOSMaxNodePerUserLimit")                               \
    X(QOS_MAX_GRES_PU, "QOSMaxGRESPerUser")                                    \
    X(ASSOC_GRP_JOBS, "AssocGrpJobsLimit")                                     \
    X(ASSOC_MAX_JOBS, "AssocMaxJobsLimit")                                     \
    X(ASSOC_MAX_WALL_PJ, "AssocMaxWallDurationPerJobLimit")                    \
    X(ASSOC_GRP_CPU, "AssocGrpCpuLimit")                                       \
    X(ASSOC_GRP_MEM, "AssocGrpMemLimit")                                       \
    X(ASSOC_GRP_NODE, "AssocGrpNodeLimit")                                     \
    X(ASSOC_GRP_GRES, "AssocGrpGRES")                                          \
    X(ASSOC_MAX_CPU_PJ, "AssocMaxCpuPerJobLimit")                              \
    X(ASSOC_MAX_MEM_PJ, "AssocMaxMemPerJob")                                   \
    X(ASSOC_MAX_NODE_PJ, "AssocMaxNodePerJobLimit")                            \
    X(ASSOC_MAX_GRES_PJ, "AssocMaxGRESPerJob")

enum limits_reason {
    LIMITS_OK = 0,
#define X(name, text) LIMITS_##name,
    LIMITS_REASONS(X)
#undef X
    LIMITS_REASON_COUNT
};

/* Slurm's spelling of 'r' ("QOSMaxGRESPerUser"; "None" for LIMITS_OK).
 * Static storage. */
const char *limits_reason_string(enum limits_reason r);

/* AccountingStorageEnforce flags (conf.h stores the same bits). */
enum limits_enforce {
    LIMITS_ENFORCE_ASSOCS = 1, /* a job needs a known association */
    LIMITS_ENFORCE_LIMITS = 2, /* association limits */
    LIMITS_ENFORCE_QOS = 4,    /* a job needs a valid QOS; QOS limits */
};

typedef struct limits_table limits_table_t;

/* Build the tables from an acct_assoc_list response body ({"version",
 * "qos":[...], "assocs":[...], "users":[...]}, docs/protocol.md).  Entries
 * of another cluster than 'cluster' (NULL: any) are skipped; an unknown
 * TRES name in a limit is ignored.  Returns a new table (free with
 * limits_table_destroy()), or NULL with errno EINVAL and 'error' naming the
 * malformed part, or ENOMEM.
 */
limits_table_t *limits_table_parse(json_t *body, const char *cluster,
                                   drv_error_t *error);

/* The "version" the table was built from. */
int64_t limits_table_version(const limits_table_t *t);

/* NULL is a no-op.  errno is preserved. */
void limits_table_destroy(limits_table_t *t);

/* Parse a Slurm TRES string ("cpu=8,gres/gpu=4,mem=16G,node=2"; "" none)
 * into 'out': unnamed entries -1.  Memory takes Slurm's units (M default).
 * Other TRES (billing, gres/gpu:a100, license/...) are ignored.
 * Returns 0, or -1 with errno EINVAL and 'error' naming the bad entry.
 */
int limits_tres_parse(const char *s, struct limits_tres *out,
                      drv_error_t *error);

/* A job as the limits see it.  Strings are borrowed. */
struct limits_job {
    const char *user;       /* the owner's name */
    const char *account;    /* resolved (limits_resolve()) */
    const char *partition;  /* the job's partition */
    const char *qos;        /* resolved */
    struct limits_tres tres; /* requested: cpus, MiB, nodes, GPUs */
    int64_t time_limit_min;  /* -1 unlimited */
};

/* What limits_resolve() decides.  Strings point into the table. */
struct limits_resolved {
    const char *account;
    const char *qos;
};

/* Resolve a submission: the account (-A, else the user's default account),
 * the association (user, account, partition; else user, account with no
 * partition) and the QOS (-q, else the association's default QOS, else
 * "normal").  'flags' is a mask of enum limits_enforce: without
 * LIMITS_ENFORCE_ASSOCS an unknown association is accepted as given (the
 * account stays 'account', NULL when none); without LIMITS_ENFORCE_QOS the
 * QOS is not checked against the association's list.
 * Returns 0 with 'out' set, or -1 with errno and the reason in 'error':
 *   EDRV_INVALID_ACCOUNT  no association for the user/account/partition
 *                         ("Invalid account or account/partition ...")
 *   EDRV_INVALID_QOS      no such QOS, or not one the association may use
 */
int limits_resolve(const limits_table_t *t, const char *user,
                   const char *account, const char *partition,
                   const char *qos, unsigned flags, struct limits_resolved *out,
                   drv_error_t *error);

/* The tightest MaxWall (minutes) of the job's QOS (with
 * LIMITS_ENFORCE_QOS) and association (with LIMITS_ENFORCE_LIMITS), or -1
 * when neither has one: Slurm gives a job without a time limit this one.
 */
int64_t limits_max_wall_min(const limits_table_t *t,
                            const struct limits_job *job, unsigned flags);

/* Forget all usage. */
void limits_usage_clear(limits_table_t *t);

/* What limits_usage_add() counts. */
enum limits_use {
    LIMITS_USE_PENDING, /* a queued job: submit limits */
    LIMITS_USE_RUNNING, /* a running job: submit limits, job counts, TRES */
    LIMITS_USE_START,   /* a job counted as pending starts: job counts and
                         * TRES only */
};

/* Add 'count' jobs like 'job' to the usage, as 'use' says.  For running
 * jobs 'job->tres' should be what they were given.  A job whose
 * association or QOS is unknown adds nothing there.
 */
void limits_usage_add(limits_table_t *t, const struct limits_job *job,
                      enum limits_use use, uint32_t count);

/* Submit limits (Slurm's job submit limits): the QOS's GrpSubmitJobs and
 * MaxSubmitJobsPerUser, the association's MaxSubmitJobs and every
 * ancestor's GrpSubmitJobs, against the current usage plus 'count' jobs
 * like 'job' (an array's tasks).
 * Returns 0, or -1 with errno EDRV_ACCOUNTING_POLICY and the limit named in
 * 'error'.  Limits are only checked with LIMITS_ENFORCE_LIMITS (association)
 * or LIMITS_ENFORCE_QOS (QOS) in 'flags'.
 */
int limits_check_submit(const limits_table_t *t, const struct limits_job *job,
                        uint32_t count, unsigned flags, drv_error_t *error);

/* May 'job' start now, given the current usage (which must not include
 * it)?  Returns LIMITS_OK, or the first limit that holds it back, in
 * Slurm's order: QOS (GrpJobs, MaxWall, MaxJobsPerUser, GrpTRES,
 * MaxTRESPerJob, MaxTRESPerUser), then the association (GrpJobs, MaxJobs,
 * MaxWall, GrpTRES, MaxTRESPerJob), then each parent account's Grp limits.
 * A job over a per-job limit waits for ever, as in Slurm 22.05 without
 * DenyOnLimit.
 */
enum limits_reason limits_check_start(const limits_table_t *t,
                                      const struct limits_job *job,
                                      unsigned flags);

/* One association as the fair-share tree and the priority see it.
 * Strings point into the table. */
struct limits_assoc_info {
    const char *account, *user, *partition, *parent_account;
    uint32_t shares;   /* fairshare= (raw shares), 1 when not set */
    uint32_t priority; /* Priority= (inherited), 0 when none */
};

/* Call fn(arg, info) for every association, in the order droverdbd listed
 * them (sacctmgr's). */
void limits_assoc_each(const limits_table_t *t,
                       void (*fn)(void *arg,
                                  const struct limits_assoc_info *info),
                       void *arg);

/* The Priority= of (user, account, partition)'s association (the one
 * naming the partition, else the one with none); 0 when none. */
uint32_t limits_assoc_priority(const limits_table_t *t, const char *user,
                               const char *account, const char *partition);

/* The largest association Priority= in the table (0 when none). */
uint32_t limits_assoc_priority_max(const limits_table_t *t);

/* QOS 'name''s Priority= (0 when none or unknown) and UsageFactor= (1.0
 * when unknown); the largest QOS Priority= of the table. */
uint32_t limits_qos_priority(const limits_table_t *t, const char *name);
double limits_qos_usage_factor(const limits_table_t *t, const char *name);
uint32_t limits_qos_priority_max(const limits_table_t *t);

/* Does QOS 'qos' list 'victim' in its Preempt= (preempt/qos)? */
bool limits_qos_preempts(const limits_table_t *t, const char *qos,
                         const char *victim);

/* QOS 'qos''s GraceTime in seconds (0: none or unknown QOS). */
int64_t limits_qos_grace_s(const limits_table_t *t, const char *qos);

/* QOS 'qos''s PreemptMode as droverdbd sends it: "cluster" (the global
 * one; also for an unknown QOS), "off", "cancel", "requeue", "suspend".
 * Borrowed from the table. */
const char *limits_qos_preempt_mode(const limits_table_t *t, const char *qos);

#endif /* !DROVER_SCHED_LIMITS_H */
