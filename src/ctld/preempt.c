/* SPDX-License-Identifier: Apache-2.0
 *
 * preempt.c - choosing and preempting running jobs for a pending one
 * (preempt.h)
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/enforce.h"
#include "ctld/event.h"
#include "ctld/interactive.h"
#include "ctld/preempt.h"
#include "ctld/suspend.h"

/* The mode 'victim' is preempted with (enum conf_preempt_mode). */
static uint32_t mode_of(struct ctld *ctld, const struct job *victim)
{
    const struct ctld_partition *p;
    const char *m;

    if (ctld->conf->preempt_type == CONF_PREEMPT_PARTITION_PRIO) {
        p = node_table_partition(ctld->nodes, victim->partition);
        return p ? p->preempt_mode : ctld->conf->preempt_mode;
    }
    m = limits_qos_preempt_mode(enforce_table(ctld),
                                victim->qos ? victim->qos : "normal");
    if (!strcmp(m, "cancel"))
        return CONF_PREEMPT_MODE_CANCEL;
    if (!strcmp(m, "requeue"))
        return CONF_PREEMPT_MODE_REQUEUE;
    if (!strcmp(m, "suspend")) /* as Slurm: only with GANG */
        return ctld->conf->preempt_gang ? CONF_PREEMPT_MODE_SUSPEND
                                        : CONF_PREEMPT_MODE_OFF;
    if (!strcmp(m, "cluster") || !*m)
        return ctld->conf->preempt_mode;
    return CONF_PREEMPT_MODE_OFF;
}

/* May pending 'job' preempt running 'v' at 'now'? */
static bool may_preempt(struct ctld *ctld, const struct job *job,
                        const struct job *v, time_t now)
{
    if (v->state != JOB_RUNNING || !v->alloc || v->completing
        || now - v->start_time < (time_t)ctld->conf->preempt_exempt_s
        || mode_of(ctld, v) == CONF_PREEMPT_MODE_OFF)
        return false;
    if (ctld->conf->preempt_type == CONF_PREEMPT_PARTITION_PRIO)
        return ctld_job_tier(ctld, job) > ctld_job_tier(ctld, v);
    return limits_qos_preempts(enforce_table(ctld),
                               job->qos ? job->qos : "normal",
                               v->qos ? v->qos : "normal");
}

/* Who goes first: lowest tier, then lowest priority, then youngest. */
static int victim_order(const void *a, const void *b, void *arg)
{
    struct ctld *ctld = arg;
    const struct job *x = *(struct job *const *)a;
    const struct job *y = *(struct job *const *)b;
    uint32_t tx = ctld_job_tier(ctld, x), ty = ctld_job_tier(ctld, y);

    if (tx != ty)
        return tx < ty ? -1 : 1;
    if (x->priority != y->priority)
        return x->priority < y->priority ? -1 : 1;
    if (x->start_time != y->start_time)
        return x->start_time > y->start_time ? -1 : 1;
    return x->id > y->id ? -1 : x->id < y->id;
}

/* The GraceTime 'v' gets: its partition's (partition_prio) or its
 * QOS's (qos), seconds. */
static int64_t grace_of(struct ctld *ctld, const struct job *v)
{
    const struct ctld_partition *p;

    if (ctld->conf->preempt_type == CONF_PREEMPT_PARTITION_PRIO) {
        p = node_table_partition(ctld->nodes, v->partition);
        return p ? p->conf->grace_time_s : 0;
    }
    return limits_qos_grace_s(enforce_table(ctld),
                              v->qos ? v->qos : "normal");
}

static void preempt_job(struct ctld *ctld, struct job *v, struct job *by,
                        time_t now)
{
    uint32_t mode = mode_of(ctld, v);
    struct ctld_event ev = {.type = CTLD_EV_JOB_PREEMPTED, .t = now,
                            .job_id = v->id};

    if (mode == CONF_PREEMPT_MODE_REQUEUE && (!v->requeue || v->interactive))
        mode = CONF_PREEMPT_MODE_CANCEL; /* as Slurm: it cannot requeue */
    ev.requeue = mode == CONF_PREEMPT_MODE_REQUEUE;
    ev.grace_s = v->interactive ? 0 : grace_of(ctld, v);
    if (ctld_apply(ctld, &ev) < 0)
        return;
    log_info("preempted JobId=%u (%s%s) for JobId=%u", v->id,
             ev.requeue ? "requeue" : "cancel",
             ev.grace_s ? ", SIGTERM and GraceTime" : "", by->id);
    if (v->interactive)
        interactive_end(ctld, v, SIGKILL, false);
    else if (ev.grace_s) /* SIGTERM to every process now, the kill later */
        ctld_job_signal_all(ctld, v, SIGTERM);
    else
        ctld_job_signal_node(ctld, v, SIGKILL, true);
}

void preempt_grace_check(struct ctld *ctld, time_t now)
{
    struct job *job, *next;

    for (job = ctld_set_first(ctld, CTLD_SET_GRACE); job; job = next) {
        next = ctld_set_next(ctld, CTLD_SET_GRACE, job);
        if (now < job->preempt_kill_at)
            continue;
        log_info("JobId=%u: GraceTime over, ending it", job->id);
        job->preempt_kill_sent = true;
        ctld_job_signal_node(ctld, job, SIGKILL, true);
    }
}

/* The candidates for 'job' into 'cand' (sorted), the allocations of jobs
 * already ending for a preemption into 'going'. */
static void gather(struct ctld *ctld, const struct job *job, time_t now,
                   struct job **cand, size_t *nc,
                   const struct sched_alloc **going, size_t *ng)
{
    struct job *v, *tmp;

    *nc = *ng = 0;
    HASH_ITER(hh, ctld->jobs, v, tmp) {
        if (v->preempted && v->alloc)
            going[(*ng)++] = v->alloc;
        else if (may_preempt(ctld, job, v, now))
            cand[(*nc)++] = v;
    }
    qsort_r(cand, *nc, sizeof(*cand), victim_order, ctld);
}

/* Preempt for 'job' if it may and must.  Returns whether it was the
 * pass's preemptor (it may, whatever it took). */
static bool preempt_for(struct ctld *ctld, struct job *job, time_t now)
{
    size_t cap = HASH_COUNT(ctld->jobs) + 1, nc, ng, nchosen = 0;
    struct job **cand = xzalloc(cap * sizeof(*cand));
    const struct sched_alloc **going = xzalloc(cap * sizeof(*going));
    const struct sched_alloc **allocs = xzalloc(cap * sizeof(*allocs));
    size_t *chosen = xzalloc(cap * sizeof(*chosen));
    bool *suspend = xzalloc(cap * sizeof(*suspend));
    int rc = SCHED_BUSY;

    gather(ctld, job, now, cand, &nc, going, &ng);
    for (size_t i = 0; i < nc; i++) {
        allocs[i] = cand[i]->alloc;
        suspend[i] = mode_of(ctld, cand[i]) == CONF_PREEMPT_MODE_SUSPEND;
    }
    if (nc)
        rc = sched_preempt_choose(ctld->nodes->sched, ctld->nodes->count,
                                  &job->req, going, ng, allocs, nc, suspend,
                                  chosen, &nchosen);
    for (size_t i = 0; rc == SCHED_OK && i < nchosen; i++) {
        struct job *v = cand[chosen[i]];
        if (!suspend[chosen[i]]) {
            preempt_job(ctld, v, job, now);
        } else if (suspend_job(ctld, v, true, true, now) == 0) {
            v->preemptor_id = job->id;
            log_info("preempted JobId=%u (suspend) for JobId=%u", v->id,
                     job->id);
        }
    }
    free(cand);
    free(going);
    free(allocs);
    free(chosen);
    free(suspend);
    return rc == SCHED_OK;
}

/* Resume order: highest tier, then priority, then the oldest first (the
 * reverse of victim_order()). */
static int resume_order(const void *a, const void *b, void *arg)
{
    return victim_order(b, a, arg);
}

/* Is the job that suspended 'v' still waiting to start?  Then its CPUs
 * are kept for it. */
static bool preemptor_waits(struct ctld *ctld, const struct job *v)
{
    const struct job *p = v->preemptor_id
                              ? ctld_job_find(ctld, v->preemptor_id)
                              : NULL;

    return p && p->state == JOB_PENDING;
}

void preempt_resume(struct ctld *ctld, time_t now)
{
    size_t n = 0, cap = HASH_COUNT(ctld->jobs) + 1;
    struct job **sus = xzalloc(cap * sizeof(*sus)), *job, *tmp;

    HASH_ITER(hh, ctld->jobs, job, tmp) {
        if (job->preempt_suspended && job->state == JOB_SUSPENDED)
            sus[n++] = job;
    }
    qsort_r(sus, n, sizeof(*sus), resume_order, ctld);
    for (size_t i = 0; i < n; i++) {
        if (preemptor_waits(ctld, sus[i])
            || !sched_alloc_resume_fits(ctld->nodes->sched,
                                        ctld->nodes->count, sus[i]->alloc))
            continue;
        if (suspend_job(ctld, sus[i], false, true, now) == 0)
            log_info("JobId=%u resumed: its CPUs are free again", sus[i]->id);
    }
    free(sus);
}

void preempt_pass(struct ctld *ctld, struct job **pend,
                  const struct sched_decision *dec, size_t np, time_t now)
{
    if (ctld->conf->preempt_type == CONF_PREEMPT_NONE)
        return;
    for (size_t i = 0; i < np; i++) {
        if (dec[i].action != SCHED_ACT_WAIT
            || dec[i].reason == SCHED_REASON_LIMIT
            || pend[i]->state != JOB_PENDING)
            continue;
        if (preempt_for(ctld, pend[i], now))
            return; /* one preemptor per pass */
    }
}
