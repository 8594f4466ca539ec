/* SPDX-License-Identifier: Apache-2.0
 *
 * limits_check.c - usage of QOS and associations, the submit limits and
 * the "may it start now" check (Slurm's acct_policy)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"
#include "sched/limits_private.h"

static const char *const reason_names[LIMITS_REASON_COUNT] = {
    [LIMITS_OK] = "None",
#define X(name, text) [LIMITS_##name] = text,
    LIMITS_REASONS(X)
#undef X
};

const char *limits_reason_string(enum limits_reason r)
{
    return (unsigned)r < LIMITS_REASON_COUNT ? reason_names[r] : "None";
}

static const struct limits_usage no_usage;

static struct limits_qos_user *qos_user(struct limits_qos *q, const char *user,
                                        bool create)
{
    struct limits_qos_user *u;

    HASH_FIND_STR(q->users, user, u);
    if (!u && create) {
        u = xzalloc(sizeof(*u));
        u->user = xstrdup(user);
        HASH_ADD_KEYPTR(hh, q->users, u->user, strlen(u->user), u);
    }
    return u;
}

static void usage_clear(struct limits_usage *u)
{
    *u = (struct limits_usage){ 0 };
}

void limits_usage_clear(limits_table_t *t)
{
    struct limits_qos *q, *qt;
    struct limits_qos_user *u, *ut;
    struct limits_assoc *a, *at;

    HASH_ITER(hh, t->qos, q, qt) {
        usage_clear(&q->use);
        HASH_ITER(hh, q->users, u, ut)
            usage_clear(&u->use);
    }
    HASH_ITER(hh, t->assocs, a, at)
        usage_clear(&a->use);
}

static void usage_add(struct limits_usage *u, const struct limits_job *job,
                      enum limits_use use, uint32_t count)
{
    if (use != LIMITS_USE_START)
        u->submit_jobs += count;
    if (use == LIMITS_USE_PENDING)
        return;
    u->run_jobs += count;
    for (int i = 0; i < TRES_COUNT; i++)
        if (job->tres.v[i] > 0)
            u->run.v[i] += job->tres.v[i] * count;
}

void limits_usage_add(limits_table_t *t, const struct limits_job *job,
                      enum limits_use use, uint32_t count)
{
    struct limits_qos *q = limits__qos_find(t, job->qos);
    struct limits_assoc *a = job->account
                                 ? limits__assoc_find(t, job->user,
                                                      job->account,
                                                      job->partition)
                                 : NULL;

    if (q) {
        usage_add(&q->use, job, use, count);
        usage_add(&qos_user(q, job->user, true)->use, job, use, count);
    }
    for (; a; a = a->parent)
        usage_add(&a->use, job, use, count);
}

static bool over(int64_t limit, int64_t used, int64_t more)
{
    return limit >= 0 && used + more > limit;
}

/* EDRV_ACCOUNTING_POLICY, with Slurm's reason name for the limit (what
 * slurmctld logs) and the limit. */
static int policy(drv_error_t *error, const char *reason, const char *what,
                  const char *name)
{
    errno = EDRV_ACCOUNTING_POLICY;
    return errprintf(error, "%s: %s of %s reached", reason, what, name);
}

int limits_check_submit(const limits_table_t *t, const struct limits_job *job,
                        uint32_t count, unsigned flags, drv_error_t *error)
{
    struct limits_qos *q = limits__qos_find(t, job->qos);
    const struct limits_assoc *a;
    const struct limits_qos_user *u;

    if (q && (flags & LIMITS_ENFORCE_QOS)) {
        u = qos_user(q, job->user, false);
        if (over(q->lim.grp_submit_jobs, q->use.submit_jobs, count))
            return policy(error, "QOSGrpSubmitJobsLimit", "GrpSubmitJobs", q->name);
        if (over(q->lim.max_submit_jobs, u ? u->use.submit_jobs : 0, count))
            return policy(error, "QOSMaxSubmitJobPerUserLimit",
                          "MaxSubmitJobsPerUser", q->name);
    }
    if (!(flags & LIMITS_ENFORCE_LIMITS) || !job->account)
        return 0;
    a = limits__assoc_find(t, job->user, job->account, job->partition);
    if (a && over(a->lim.max_submit_jobs, a->use.submit_jobs, count))
        return policy(error, "AssocMaxSubmitJobLimit", "MaxSubmitJobs",
                          a->account);
    for (; a; a = a->parent)
        if (over(a->lim.grp_submit_jobs, a->use.submit_jobs, count))
            return policy(error, "AssocGrpSubmitJobsLimit", "GrpSubmitJobs",
                          a->account);
    return 0;
}

/* The first TRES of 'job' that takes 'used' over 'lim', as an offset from
 * the cpu reason of its group (cpu, mem, node, gres); -1 if none. */
static int tres_over(const struct limits_tres *lim,
                     const struct limits_tres *used,
                     const struct limits_job *job)
{
    for (int i = 0; i < TRES_COUNT; i++) {
        int64_t want = job->tres.v[i] > 0 ? job->tres.v[i] : 0;
        if (want && over(lim->v[i], used ? used->v[i] : 0, want))
            return i;
    }
    return -1;
}

static bool wall_over(int64_t max_min, const struct limits_job *job)
{
    return max_min >= 0
           && (job->time_limit_min < 0 || job->time_limit_min > max_min);
}

static enum limits_reason check_qos(const struct limits_qos *q,
                                    const struct limits_job *job)
{
    const struct limits_qos_user *u = qos_user((struct limits_qos *)q,
                                               job->user, false);
    const struct limits_usage *uu = u ? &u->use : &no_usage;
    int i;

    if (over(q->lim.grp_jobs, q->use.run_jobs, 1))
        return LIMITS_QOS_GRP_JOBS;
    if (wall_over(q->lim.max_wall_min, job))
        return LIMITS_QOS_MAX_WALL_PJ;
    if (over(q->lim.max_jobs, uu->run_jobs, 1))
        return LIMITS_QOS_MAX_JOBS_PU;
    if ((i = tres_over(&q->lim.grp_tres, &q->use.run, job)) >= 0)
        return LIMITS_QOS_GRP_CPU + i;
    if ((i = tres_over(&q->lim.max_tres_per_job, NULL, job)) >= 0)
        return LIMITS_QOS_MAX_CPU_PJ + i;
    if ((i = tres_over(&q->lim.max_tres_per_user, &uu->run, job)) >= 0)
        return LIMITS_QOS_MAX_CPU_PU + i;
    return LIMITS_OK;
}

/* Grp limits of 'a' (any level of the tree). */
static enum limits_reason check_grp(const struct limits_assoc *a,
                                    const struct limits_job *job)
{
    int i;

    if (over(a->lim.grp_jobs, a->use.run_jobs, 1))
        return LIMITS_ASSOC_GRP_JOBS;
    if ((i = tres_over(&a->lim.grp_tres, &a->use.run, job)) >= 0)
        return LIMITS_ASSOC_GRP_CPU + i;
    return LIMITS_OK;
}

static enum limits_reason check_assoc(const struct limits_assoc *a,
                                      const struct limits_job *job)
{
    enum limits_reason r;
    int i;

    if (over(a->lim.grp_jobs, a->use.run_jobs, 1))
        return LIMITS_ASSOC_GRP_JOBS;
    if (over(a->lim.max_jobs, a->use.run_jobs, 1))
        return LIMITS_ASSOC_MAX_JOBS;
    if (wall_over(a->lim.max_wall_min, job))
        return LIMITS_ASSOC_MAX_WALL_PJ;
    if ((i = tres_over(&a->lim.grp_tres, &a->use.run, job)) >= 0)
        return LIMITS_ASSOC_GRP_CPU + i;
    if ((i = tres_over(&a->lim.max_tres_per_job, NULL, job)) >= 0)
        return LIMITS_ASSOC_MAX_CPU_PJ + i;
    for (a = a->parent; a; a = a->parent)
        if ((r = check_grp(a, job)) != LIMITS_OK)
            return r;
    return LIMITS_OK;
}

enum limits_reason limits_check_start(const limits_table_t *t,
                                      const struct limits_job *job,
                                      unsigned flags)
{
    const struct limits_qos *q = limits__qos_find(t, job->qos);
    const struct limits_assoc *a;
    enum limits_reason r;

    if (q && (flags & LIMITS_ENFORCE_QOS)
        && (r = check_qos(q, job)) != LIMITS_OK)
        return r;
    if (!(flags & LIMITS_ENFORCE_LIMITS) || !job->account)
        return LIMITS_OK;
    a = limits__assoc_find(t, job->user, job->account, job->partition);
    return a ? check_assoc(a, job) : LIMITS_OK;
}

int64_t limits_max_wall_min(const limits_table_t *t,
                            const struct limits_job *job, unsigned flags)
{
    const struct limits_qos *q = limits__qos_find(t, job->qos);
    const struct limits_assoc *a =
        job->account ? limits__assoc_find(t, job->user, job->account,
                                          job->partition)
                     : NULL;
    int64_t best = -1;

    if (q && (flags & LIMITS_ENFORCE_QOS))
        best = q->lim.max_wall_min;
    if (a && (flags & LIMITS_ENFORCE_LIMITS) && a->lim.max_wall_min >= 0
        && (best < 0 || a->lim.max_wall_min < best))
        best = a->lim.max_wall_min;
    return best;
}
