/* SPDX-License-Identifier: Apache-2.0
 *
 * event.c - ctld_apply(): the one function that changes the controller's
 * job, step and node tables, journals the change and notifies subscribers
 *
 * Each apply_* below takes the event's time as its clock.  The journal
 * records are written by event_record.c.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/acct.h"
#include "ctld/array.h"
#include "ctld/cpu_ids.h"
#include "ctld/crontab.h"
#include "ctld/ctld.h"
#include "ctld/depend.h"
#include "ctld/enforce.h"
#include "ctld/mail.h"
#include "ctld/prolog_ctld.h"
#include "ctld/event.h"
#include "ctld/ha.h"
#include "ctld/event_record.h"
#include "ctld/job_update.h"
#include "ctld/part.h"
#include "ctld/priority.h"
#include "ctld/resv.h"
#include "ctld/trigger.h"
#include "ctld/step.h"

static struct job *find_job(struct ctld *ctld, const struct ctld_event *ev)
{
    struct job *job = ctld_job_find(ctld, ev->job_id);

    if (!job)
        log_error("%s: JobId=%u unknown; event dropped",
                  ctld_event_name(ev->type), ev->job_id);
    return job;
}

static struct job_step *find_step(const struct job *job,
                                  const struct ctld_event *ev)
{
    struct job_step *s = job_step_find(job, ev->step_id);

    if (!s)
        log_error("%s: StepId=%u.%u unknown; event dropped",
                  ctld_event_name(ev->type), job->id, ev->step_id);
    return s;
}

/* The nodes' usage counts 'job's allocation (it starts, or is restored). */
static int alloc_take(struct ctld *ctld, struct job *job)
{
    if (sched_alloc_apply(ctld->nodes->sched, ctld->nodes->count,
                          job->alloc)
        < 0) {
        log_err("JobId=%u: allocation does not match the nodes", job->id);
        return -1;
    }
    if (job->preempt_suspended) /* restored: its CPUs stay given back */
        sched_alloc_suspend(ctld->nodes->sched, ctld->nodes->count,
                            job->alloc);
    cpu_ids_take(ctld->nodes, job->alloc);
    node_table_jobs_attach(ctld->nodes, job->alloc, job->id);
    return 0;
}

/* The job leaves its nodes at 't': usage released, the allocation kept
 * as the last run's (sacct, scontrol show job). */
static void alloc_release(struct ctld *ctld, struct job *job, time_t t)
{
    if (!job->alloc)
        return;
    priority_job_leaves(ctld, job, t); /* fair-share usage */
    if (job->preempt_suspended) /* its CPUs were given back already */
        sched_alloc_resume(ctld->nodes->sched, ctld->nodes->count,
                           job->alloc);
    job->preempt_suspended = false;
    if (sched_alloc_release(ctld->nodes->sched, ctld->nodes->count,
                            job->alloc)
        < 0)
        log_err("JobId=%u: releasing allocation", job->id);
    for (uint32_t i = 0; i < job->alloc->node_count; i++)
        ctld->nodes->info[job->alloc->node_idx[i]].last_busy = t;
    cpu_ids_release(ctld->nodes, job->alloc);
    node_table_jobs_detach(ctld->nodes, job->alloc, job->id);
    json_t *a = job_alloc_to_json(job->alloc, ctld->nodes->names);
    free(job->last_alloc_json);
    job->last_alloc_json = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    free(job->last_nodes);
    job->last_nodes = job->nodes;
    job->nodes = NULL;
    sched_alloc_destroy(job->alloc);
    job->alloc = NULL;
}

/* A --no-kill job loses a failed node: its usage there is given back,
 * the entry leaves the allocation, the others keep theirs. */
static int apply_node_removed(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job = ctld_job_find(ctld, ev->job_id);
    struct sched_alloc *a = job ? job->alloc : NULL;
    long idx = node_table_index(ctld->nodes, ev->node);
    uint32_t k = 1;

    while (a && k < a->node_count && (long)a->node_idx[k] != idx)
        k++;
    if (!a || idx < 0 || k >= a->node_count || job->preempt_suspended) {
        log_error("job_node_removed: JobId=%u has no node %s to remove",
                  ev->job_id, ev->node);
        return -1;
    }
    if (sched_alloc_release(ctld->nodes->sched, ctld->nodes->count, a) < 0)
        log_err("JobId=%u: releasing allocation", job->id);
    cpu_ids_release(ctld->nodes, a);
    node_table_jobs_detach(ctld->nodes, a, job->id);
    ctld->nodes->info[idx].last_busy = ev->t;
    sched_alloc_drop(a, k);
    if (alloc_take(ctld, job) < 0)
        log_error("JobId=%u: cannot take its allocation back", job->id);
    free(job->nodes);
    job->nodes = node_table_alloc_hostlist(ctld->nodes, a);
    return 0;
}

static int apply_submitted(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job = ev->job;

    ev->job = NULL;
    ev->job_id = job->id;
    if (ctld_job_find(ctld, job->id)) {
        log_error("job_submitted: JobId=%u exists; event dropped", job->id);
        job_destroy(job);
        return -1;
    }
    ctld_job_enter(ctld, job);
    return 0;
}

/* The batch step: the script, one task on the first node. */
static void batch_step_start(struct ctld *ctld, struct job *job, time_t t)
{
    const struct sched_alloc *a = job->alloc;
    struct job_step *s = job_step_create(
        STEP_ID_BATCH, "batch", ctld->nodes->names[a->node_idx[0]], t);

    s->nnodes = s->ntasks = 1;
    s->ncpus = a->cpus[0];
    s->alloc_tres = a->mem_mib[0]
                        ? xasprintf("cpu=%u,mem=%lluM,node=1", a->cpus[0],
                                    (unsigned long long)a->mem_mib[0])
                        : xasprintf("cpu=%u,node=1", a->cpus[0]);
    job_step_add(job, s);
}

static int apply_started(struct ctld *ctld, struct ctld_event *ev)
{
    struct sched_alloc *alloc = ev->alloc;
    struct job *job;

    ev->alloc = NULL;
    if (!(job = find_job(ctld, ev)) || job->alloc) {
        sched_alloc_destroy(alloc);
        return -1;
    }
    alloc->exclusive = job->req.exclusive;
    job->alloc = alloc;
    if (alloc_take(ctld, job) < 0) {
        job->alloc = NULL;
        sched_alloc_destroy(alloc);
        return -1;
    }
    job->run_id++;
    job->state = JOB_RUNNING;
    job->configuring = ev->configuring;
    job->reason = JOB_REASON_NONE;
    job->start_time = ev->t;
    job->end_time = 0;
    job->sched_start_time = 0;
    free(job->sched_nodes);
    job->sched_nodes = NULL;
    free(job->nodes);
    job->nodes = node_table_alloc_hostlist(ctld->nodes, alloc);
    batch_step_start(ctld, job, ev->t);
    return 0;
}

/* drover_backfill=predict's history: job ran this long (backfill.h).
 * Derived from the events alone, so a replay learns the same. */
static void predict_learn(struct ctld *ctld, const struct job *job)
{
    if (!job->start_time)
        return; /* never ran */
    if (!ctld->predict && !(ctld->predict = sched_predict_create()))
        return;
    if (sched_predict_learn(ctld->predict, (uint32_t)job->uid,
                            job_run_time(job, job->end_time)) < 0)
        log_error("JobId=%u: no memory for its run time history", job->id);
}

static int apply_ended(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job = find_job(ctld, ev);

    struct job_step *batch;

    if (!job)
        return -1;
    /* The batch host's report: the script's usage in the batch step. */
    if (ev->node && ev->report
        && (batch = job_step_find(job, STEP_ID_BATCH))
        && job_step_node_reported(batch, ev->node))
        job_step_add_usage(batch, ev->node, ev->report);
    if (job->state == JOB_SUSPENDED)
        job->suspend_time = ev->t;
    alloc_release(ctld, job, ev->t);
    job->exit_status = ev->status;
    job->state = (enum job_state)ev->state;
    job->configuring = false;
    if (!job->end_time || !job->cancel_requested)
        job->end_time = ev->t;
    job->completing = false;
    job_steps_end_all(job, job->end_time, job->exit_status);
    predict_learn(ctld, job);
    return 0;
}

static int apply_requeued(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job = find_job(ctld, ev);

    if (!job)
        return -1;
    alloc_release(ctld, job, ev->t);
    job->state = JOB_PENDING;
    job->configuring = false;
    if (ev->exit_requeue == 2) { /* RequeueExitHold: Slurm's SPECIAL_EXIT */
        job->state = JOB_SPECIAL_EXIT;
        job->hold = true;
        job->hold_admin = false;
    }
    /* A hold (scontrol hold while it ran, requeuehold) stays, as Slurm. */
    job->reason = !job->hold         ? JOB_REASON_NONE
                  : job->hold_admin ? JOB_REASON_HELD_ADMIN
                                    : JOB_REASON_HELD_USER;
    if (job->hold)
        job->priority = 0;
    if (ev->restart)
        job->restarts++;
    job->completing = false;
    job->cancel_requested = false;
    job->requeue_requested = false;
    job->preempted = false;
    job->preempt_kill_at = 0;
    job->cancelled_by = -1;
    /* A run ended: the next is a new accounting record, submitted now (as
     * Slurm; sacct -D lists both).  Records are keyed by submit time: a
     * run within the second of its submission moves it on by one. */
    if (ev->restart && job->start_time)
        job->submit_time = ev->t > job->submit_time ? ev->t
                                                    : job->submit_time + 1;
    job->start_time = job->end_time = 0;
    /* RequeueExit: the exit code that requeued it stays shown */
    job->exit_status = ev->exit_requeue ? ev->status : 0;
    job->eligible_time = ev->eligible_time;
    if (!job->hold && ev->eligible_time > ev->t) /* a preempted job */
        job->reason = JOB_REASON_BEGIN_TIME;
    job_steps_destroy(job->steps); /* the next run has its own */
    job->steps = NULL;
    return 0;
}

static int apply_cancelled(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job = find_job(ctld, ev);

    if (!job || job_state_is_final(job->state))
        return -1;
    job->end_time = ev->t;
    job->cancelled_by = ev->by;
    if (job->state == JOB_SUSPENDED)
        job->suspend_time = ev->t; /* its run time stops where it was */
    if (job->state == JOB_RUNNING || job->state == JOB_SUSPENDED) {
        job->cancel_requested = true;
        job->completing = true;
    }
    job->state = JOB_CANCELLED;
    return 0;
}

static int apply_purged(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job = find_job(ctld, ev);

    if (!job)
        return -1;
    if (job->alloc) /* a withdrawn submission never has one */
        alloc_release(ctld, job, ev->t);
    ctld_job_unlink(ctld, job);
    job_destroy(job);
    return 0;
}

static int apply_held(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job = find_job(ctld, ev);

    if (!job)
        return -1;
    if (ev->hold) {
        job->hold = true;
        job->hold_admin = ev->admin;
        job->priority = 0;
        job->reason = ev->launch_failed ? JOB_REASON_LAUNCH_FAILED
                      : ev->admin       ? JOB_REASON_HELD_ADMIN
                                        : JOB_REASON_HELD_USER;
        return 0;
    }
    job->hold = job->hold_admin = job->priority_set = false;
    if (job->state == JOB_SPECIAL_EXIT) /* RequeueExitHold's, released */
        job->state = JOB_PENDING;
    job->priority = priority_of(ctld, job, ev->t);
    if (job->reason == JOB_REASON_HELD_USER
        || job->reason == JOB_REASON_HELD_ADMIN
        || job->reason == JOB_REASON_LAUNCH_FAILED)
        job->reason = JOB_REASON_NONE;
    return 0;
}

static int apply_updated(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job = find_job(ctld, ev);

    if (!job)
        return -1;
    job_update_apply(ctld, job, ev->update, ev->t);
    return 0;
}

static int apply_step_started(struct ctld *ctld, struct ctld_event *ev)
{
    struct job_step *s = ev->step;
    struct job *job;

    ev->step = NULL;
    ev->step_id = s->id;
    if (!(job = find_job(ctld, ev)) || job_step_find(job, s->id)) {
        job_steps_destroy(s);
        return -1;
    }
    job_step_add(job, s);
    if (s->id < STEP_ID_INTERACTIVE && s->id >= job->next_step_id)
        job->next_step_id = s->id + 1;
    return 0;
}

static int apply_step_reported(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job = find_job(ctld, ev);
    struct job_step *s = job ? find_step(job, ev) : NULL;

    /* A repeated report (droverd resends until acknowledged) is not one. */
    if (!s || !job_step_node_reported(s, ev->node))
        return -1;
    job_step_add_usage(s, ev->node, ev->report);
    job_step_settle(s, ev->t);
    return 0;
}

static int apply_step_ended(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job = find_job(ctld, ev);
    struct job_step *s = job ? find_step(job, ev) : NULL;

    if (!s || (ev->node && !job_step_node_reported(s, ev->node)))
        return -1;
    job_step_end(s, ev->state, ev->t);
    return 0;
}

static int apply_step_cancelled(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job = find_job(ctld, ev);
    struct job_step *s = job ? find_step(job, ev) : NULL;

    if (!s)
        return -1;
    s->cancelled = true;
    return 0;
}

static int apply_requeue_requested(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job = find_job(ctld, ev);

    if (!job || (job->state != JOB_RUNNING && job->state != JOB_SUSPENDED))
        return -1;
    job->requeue_requested = true;
    job->completing = true;
    return 0;
}

static int apply_gate(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job = find_job(ctld, ev);

    if (!job || job->state != JOB_PENDING)
        return -1;
    depend_gate_apply(job, ev->gate);
    return 0;
}

static int apply_array_split(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *master = find_job(ctld, ev);

    if (!master || array_split_apply(ctld, master, ev->task, ev->new_job_id)
                       < 0) {
        log_error("array_task_split: JobId=%u task %u as JobId=%u does not "
                  "apply; event dropped", ev->job_id, ev->task,
                  ev->new_job_id);
        return -1;
    }
    return 0;
}

static int apply_array_throttle(struct ctld *ctld, struct ctld_event *ev)
{
    array_throttle_apply(ctld, ev->job_id, ev->throttle);
    return 0;
}

static int apply_node_state(struct ctld *ctld, struct ctld_event *ev)
{
    if (ev->node_idx < 0 || (size_t)ev->node_idx >= ctld->nodes->count)
        return -1;
    node_table_admin_set(ctld->nodes, (size_t)ev->node_idx, &ev->node_admin);
    return 0;
}

static int apply_suspended(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job = find_job(ctld, ev);

    if (!job || !job->alloc
        || job->state != (ev->suspend ? JOB_RUNNING : JOB_SUSPENDED))
        return -1;
    if (ev->suspend) {
        priority_job_leaves(ctld, job, ev->t); /* usage until now */
        job->pre_sus_s = job_run_time(job, ev->t);
        job->state = JOB_SUSPENDED;
        job->priority = 0; /* as Slurm shows a suspended job */
        if (ev->preempt)
            sched_alloc_suspend(ctld->nodes->sched, ctld->nodes->count,
                                job->alloc);
        job->preempt_suspended = ev->preempt;
        job->gang_suspended = ev->gang;
    } else {
        job->state = JOB_RUNNING;
        job->priority = priority_of(ctld, job, ev->t);
        if (job->preempt_suspended)
            sched_alloc_resume(ctld->nodes->sched, ctld->nodes->count,
                               job->alloc);
        job->preempt_suspended = false;
        job->gang_suspended = false;
    }
    job->suspend_time = ev->t;
    return 0;
}

static int apply_preempted(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job = find_job(ctld, ev);

    if (!job || job->state != JOB_RUNNING || !job->alloc || job->completing)
        return -1;
    job->preempted = true;
    job->completing = true;
    job->preempt_kill_at = ev->grace_s > 0 ? ev->t + ev->grace_s : 0;
    if (ev->requeue) {
        job->requeue_requested = true;
    } else {
        job->cancel_requested = true;
        job->state = JOB_PREEMPTED;
        job->end_time = ev->t;
    }
    return 0;
}

static int apply_resv(struct ctld *ctld, struct ctld_event *ev)
{
    return resv_apply(ctld, ev->resv);
}

static int apply_part(struct ctld *ctld, struct ctld_event *ev)
{
    return part_apply(ctld, ev->part);
}

static int apply_trigger(struct ctld *ctld, struct ctld_event *ev)
{
    return trigger_apply(ctld, ev->type, ev->t, ev->trigger);
}

static int apply_configured(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job = find_job(ctld, ev);

    if (!job || job->state != JOB_RUNNING || !job->configuring)
        return -1;
    job->configuring = false;
    return 0;
}

static int apply_priority_calc(struct ctld *ctld, struct ctld_event *ev)
{
    priority_calc_apply(ctld, ev->t, ev->reset);
    return 0;
}

static int (*const appliers[CTLD_EV_TYPE_COUNT])(struct ctld *,
                                                 struct ctld_event *) = {
    [CTLD_EV_JOB_SUBMITTED] = apply_submitted,
    [CTLD_EV_JOB_STARTED] = apply_started,
    [CTLD_EV_JOB_ENDED] = apply_ended,
    [CTLD_EV_JOB_REQUEUED] = apply_requeued,
    [CTLD_EV_JOB_CANCELLED] = apply_cancelled,
    [CTLD_EV_JOB_PURGED] = apply_purged,
    [CTLD_EV_JOB_HELD] = apply_held,
    [CTLD_EV_JOB_UPDATED] = apply_updated,
    [CTLD_EV_STEP_STARTED] = apply_step_started,
    [CTLD_EV_STEP_REPORTED] = apply_step_reported,
    [CTLD_EV_STEP_ENDED] = apply_step_ended,
    [CTLD_EV_STEP_CANCELLED] = apply_step_cancelled,
    [CTLD_EV_NODE_STATE] = apply_node_state,
    [CTLD_EV_JOB_REQUEUE_REQUESTED] = apply_requeue_requested,
    [CTLD_EV_JOB_GATE] = apply_gate,
    [CTLD_EV_ARRAY_TASK_SPLIT] = apply_array_split,
    [CTLD_EV_ARRAY_THROTTLE] = apply_array_throttle,
    [CTLD_EV_JOB_SUSPENDED] = apply_suspended,
    [CTLD_EV_JOB_PREEMPTED] = apply_preempted,
    [CTLD_EV_RESV_CHANGED] = apply_resv,
    [CTLD_EV_PRIORITY_CALC] = apply_priority_calc,
    [CTLD_EV_JOB_CONFIGURED] = apply_configured,
    [CTLD_EV_JOB_NODE_REMOVED] = apply_node_removed,
    [CTLD_EV_TRIGGER_SET] = apply_trigger,
    [CTLD_EV_TRIGGER_CLEARED] = apply_trigger,
    [CTLD_EV_TRIGGER_FIRED] = apply_trigger,
    [CTLD_EV_CRONTAB_SET] = crontab_apply,
    [CTLD_EV_PART_CHANGED] = apply_part,
};

/* --- subscribers --------------------------------------------------------- */

/* The steps an event changed, for the job's next accounting record. */
static void acct_mark_steps(struct job *job, const struct ctld_event *ev)
{
    struct job_step *s;

    switch (ev->type) {
    case CTLD_EV_STEP_STARTED:
    case CTLD_EV_STEP_REPORTED:
    case CTLD_EV_STEP_ENDED:
    case CTLD_EV_STEP_CANCELLED:
        if ((s = job_step_find(job, ev->step_id)))
            s->acct_dirty = true;
        break;
    case CTLD_EV_JOB_ENDED:
        /* the running steps end with the job, at its end time: a cancelled
         * job's is the cancel's, which may be a second before this event */
        job_steps_acct_dirty(job, job->end_time < ev->t ? job->end_time
                                                        : ev->t);
        break;
    case CTLD_EV_JOB_STARTED:   /* the batch step begins */
    case CTLD_EV_JOB_CANCELLED:
        job_steps_acct_dirty(job, ev->t); /* not those ended before */
        break;
    default:
        break;
    }
}

/* The accounting spool: every job or step change is a new job record. */
static void acct_subscriber(struct ctld *ctld, const struct ctld_event *ev)
{
    struct job *job;

    switch (ev->type) {
    case CTLD_EV_JOB_PURGED:
    case CTLD_EV_NODE_STATE:
    case CTLD_EV_PRIORITY_CALC:
    case CTLD_EV_TRIGGER_SET:
    case CTLD_EV_TRIGGER_CLEARED:
    case CTLD_EV_TRIGGER_FIRED:
    case CTLD_EV_CRONTAB_SET:
    case CTLD_EV_PART_CHANGED:
        return;
    case CTLD_EV_RESV_CHANGED:
        acct_resv_changed(ctld, ev, false);
        return;
    case CTLD_EV_ARRAY_TASK_SPLIT: /* the task is a record of its own */
        if (ev->new_job_id && (job = ctld_job_find(ctld, ev->new_job_id)))
            acct_job_changed(ctld, job);
        break;
    case CTLD_EV_ARRAY_THROTTLE: /* ev->job_id is the ArrayJobId */
        for (job = array_first(ctld, ev->job_id); job; job = array_next(job))
            acct_job_changed(ctld, job);
        return;
    default:
        break;
    }
    if (!(job = ctld_job_find(ctld, ev->job_id)))
        return;
    acct_mark_steps(job, ev);
    acct_job_changed(ctld, job);
}

/* The scheduler: a pass soon after whatever can start a job. */
static void sched_subscriber(struct ctld *ctld, const struct ctld_event *ev)
{
    switch (ev->type) {
    case CTLD_EV_JOB_SUBMITTED:
    case CTLD_EV_JOB_ENDED:
    case CTLD_EV_JOB_REQUEUED:
    case CTLD_EV_JOB_CANCELLED:
    case CTLD_EV_JOB_HELD:
    case CTLD_EV_JOB_UPDATED:
    case CTLD_EV_STEP_ENDED:
    case CTLD_EV_NODE_STATE:
    case CTLD_EV_ARRAY_THROTTLE:
    case CTLD_EV_JOB_SUSPENDED:
    case CTLD_EV_RESV_CHANGED:
    case CTLD_EV_PART_CHANGED:
    case CTLD_EV_PRIORITY_CALC: /* the order changed */
        scheduler_request(ctld);
        break;
    default:
        break;
    }
}

static void (*const subscribers[])(struct ctld *, const struct ctld_event *) = {
    acct_subscriber,
    sched_subscriber,
    stats_event,
    enforce_event,
    mail_event,
    prolog_ctld_event,
};

int ctld_apply(struct ctld *ctld, struct ctld_event *ev)
{
    struct job *job;
    json_t *rec;

    if ((unsigned)ev->type >= CTLD_EV_TYPE_COUNT)
        return -1;
    if (ev->type == CTLD_EV_JOB_REQUEUED && !ctld->replaying) {
        struct job *j = ctld_job_find(ctld, ev->job_id);
        ev->run_ended = j && job_state_is_final(j->state);
        acct_run_ending(ctld, ev); /* the run's own record, before it goes */
        mail_requeue(ctld, ev);
    }
    if (ev->type == CTLD_EV_RESV_CHANGED && !ctld->replaying)
        acct_resv_changed(ctld, ev, true); /* as it was */
    if (appliers[ev->type](ctld, ev) < 0)
        return -1;
    if (ev->job_id && (job = ctld_job_find(ctld, ev->job_id)))
        ctld_live_note(ctld, job); /* a requeue brings an ended one back */
    if (ctld->replaying)
        return 0;
    rec = event_record(ctld, ev);
    if (rec && ctld->ha)
        ha_append(ctld->ha, rec); /* the Raft group's log (ha.h) */
    else if (!rec || journal_append(ctld->journal, rec) < 0)
        log_err("journal: cannot queue the %s record",
                ctld_event_name(ev->type));
    json_decref(rec);
    for (size_t i = 0; i < sizeof(subscribers) / sizeof(subscribers[0]); i++)
        subscribers[i](ctld, ev);
    return 0;
}

void ctld_node_admin(struct ctld *ctld, long node_idx,
                     const struct node_admin *a)
{
    struct ctld_event ev = {.type = CTLD_EV_NODE_STATE,
                            .t = ctld_now(ctld),
                            .node_idx = node_idx,
                            .node_admin = *a};

    ctld_apply(ctld, &ev);
}

struct job *ctld_job_from_record(struct ctld *ctld, json_t *o,
                                 drv_error_t *error)
{
    json_int_t id = json_integer_value(json_object_get(o, "job_id"));
    struct job *job;

    if (id <= 0 || id > UINT32_MAX) {
        errprintf(error, "job record without a job_id");
        return NULL;
    }
    job = job_create((uint32_t)id);
    if (job_apply_json(job, o, node_table_index_cb, ctld->nodes, error) < 0) {
        job_destroy(job);
        return NULL;
    }
    if (job->launch) {
        json_t *stored = launch_store_pack(ctld->launches, job->launch);
        json_decref(job->launch);
        job->launch = stored;
    }
    return job;
}

int ctld_restore_job(struct ctld *ctld, json_t *o, drv_error_t *error)
{
    struct job *old, *job = ctld_job_from_record(ctld, o, error);

    if (!job)
        return -1;
    if ((old = ctld_job_find(ctld, job->id))) {
        if (!job->launch && old->launch)
            job->launch = json_incref(old->launch);
        if (old->alloc)
            alloc_release(ctld, old, 0);
        ctld_job_unlink(ctld, old);
        job_destroy(old);
    }
    if (job->alloc && alloc_take(ctld, job) < 0) {
        errprintf(error, "JobId=%u: allocation does not match the "
                  "configured nodes", job->id);
        job_destroy(job);
        return -1;
    }
    ctld_job_link(ctld, job);
    return 0;
}
