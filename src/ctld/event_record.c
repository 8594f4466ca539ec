/* SPDX-License-Identifier: Apache-2.0
 *
 * event_record.c - events to journal records and back
 *
 * A record is {"ev":NAME,"t":T} and the event's own keys:
 *   job_submitted  job (the whole record, with its script)
 *   job_started    job_id, alloc ([{"node","cpus","mem_mib","gpus",...}]),
 *                  configuring (only when true)
 *   job_ended      job_id, state, status, node and report (the batch
 *                  host's completion: status and usage) when it sent one
 *   job_requeued   job_id, eligible_time, restart; exit_requeue, status
 *                  (RequeueExit=1, RequeueExitHold=2)
 *   job_cancelled  job_id, by
 *   job_purged     job_id
 *   job_held       job_id, hold, admin
 *   job_updated    job_id, update (job_update_to_json())
 *   step_started   job_id, step (the step record)
 *   step_reported  job_id, step_id, node, report (status and usage)
 *   step_ended     job_id, step_id, state, node (or none)
 *   step_cancelled job_id, step_id
 *   node_state     node_table_admin_json()'s keys
 *   job_requeue_requested  job_id
 *   job_gate       job_id, reason, eligible_time, dep_resolved, dep_state
 *   array_task_split  job_id (the master), task, new_job_id
 *   array_throttle job_id (the ArrayJobId), throttle
 *   job_suspended  job_id, suspend, preempt, gang (each only when true)
 *   job_preempted  job_id, requeue
 *   resv_changed   change ({"op","resv":record})
 *   priority_calc  reset
 *   job_configured job_id
 *   job_node_removed  job_id, node
 *   trigger_set    trigger (the record: trigger.h)
 *   trigger_cleared trigger ({"ids":[...]})
 *   trigger_fired  trigger ({"id"})
 *   crontab_set    crontab ({"user_id","text","disabled":[line],
 *                  "job_ids":[id]}; no text: removed)
 *   part_changed   change ({"op","name","set":{"Keyword":"value"}})
 *
 * Journals of the first event format also hold "job_changed" records
 * (the whole record without its allocation and steps): replay reads them.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/depend.h"
#include "ctld/event.h"
#include "ctld/event_record.h"
#include "ctld/job_update.h"
#include "ctld/step.h"

static const char *const event_names[CTLD_EV_TYPE_COUNT] = {
    [CTLD_EV_JOB_SUBMITTED] = "job_submitted",
    [CTLD_EV_JOB_STARTED] = "job_started",
    [CTLD_EV_JOB_ENDED] = "job_ended",
    [CTLD_EV_JOB_REQUEUED] = "job_requeued",
    [CTLD_EV_JOB_CANCELLED] = "job_cancelled",
    [CTLD_EV_JOB_PURGED] = "job_purged",
    [CTLD_EV_JOB_HELD] = "job_held",
    [CTLD_EV_JOB_UPDATED] = "job_updated",
    [CTLD_EV_STEP_STARTED] = "step_started",
    [CTLD_EV_STEP_REPORTED] = "step_reported",
    [CTLD_EV_STEP_ENDED] = "step_ended",
    [CTLD_EV_STEP_CANCELLED] = "step_cancelled",
    [CTLD_EV_NODE_STATE] = "node_state",
    [CTLD_EV_JOB_REQUEUE_REQUESTED] = "job_requeue_requested",
    [CTLD_EV_JOB_GATE] = "job_gate",
    [CTLD_EV_ARRAY_TASK_SPLIT] = "array_task_split",
    [CTLD_EV_ARRAY_THROTTLE] = "array_throttle",
    [CTLD_EV_JOB_SUSPENDED] = "job_suspended",
    [CTLD_EV_JOB_PREEMPTED] = "job_preempted",
    [CTLD_EV_RESV_CHANGED] = "resv_changed",
    [CTLD_EV_PRIORITY_CALC] = "priority_calc",
    [CTLD_EV_JOB_CONFIGURED] = "job_configured",
    [CTLD_EV_JOB_NODE_REMOVED] = "job_node_removed",
    [CTLD_EV_TRIGGER_SET] = "trigger_set",
    [CTLD_EV_TRIGGER_CLEARED] = "trigger_cleared",
    [CTLD_EV_TRIGGER_FIRED] = "trigger_fired",
    [CTLD_EV_CRONTAB_SET] = "crontab_set",
    [CTLD_EV_PART_CHANGED] = "part_changed",
};

/* The keys of a step report that change the step (job_step_add_usage()). */
static const char *const report_keys[] = {
    "status", "cancelled", "max_rss_kib", "max_rss_task", "user_cpu_us",
    "sys_cpu_us",
};

const char *ctld_event_name(enum ctld_event_type type)
{
    return (unsigned)type < CTLD_EV_TYPE_COUNT ? event_names[type] : NULL;
}

static json_t *job_record(struct ctld *ctld, const struct ctld_event *ev)
{
    struct job *job = ctld_job_find(ctld, ev->job_id);
    json_t *o;

    if (!job)
        return NULL;
    o = job_to_json(job, ctld->nodes->names,
                    ev->type == CTLD_EV_JOB_SUBMITTED ? JOB_JSON_LAUNCH : 0);
    return o;
}

static json_t *step_report(json_t *report)
{
    json_t *o = json_object(), *v;

    for (size_t i = 0; i < sizeof(report_keys) / sizeof(report_keys[0]); i++)
        if ((v = json_object_get(report, report_keys[i])))
            json_object_set(o, report_keys[i], v);
    return o;
}

/* The event's own keys into 'o'; -1 when what it names is gone. */
static int put_keys(struct ctld *ctld, const struct ctld_event *ev, json_t *o)
{
    struct job *job = ctld_job_find(ctld, ev->job_id);
    struct job_step *s;

    switch (ev->type) {
    case CTLD_EV_JOB_SUBMITTED:
        return json_object_set_new(o, "job", job_record(ctld, ev));
    case CTLD_EV_JOB_STARTED:
        if (!job || !job->alloc)
            return -1;
        if (ev->configuring)
            json_object_set_new(o, "configuring", json_true());
        return json_object_set_new(
            o, "alloc", job_alloc_to_json(job->alloc, ctld->nodes->names));
    case CTLD_EV_JOB_ENDED:
        if (ev->node && ev->report) {
            json_object_set_new(o, "node", json_string(ev->node));
            json_object_set_new(o, "report", step_report(ev->report));
        }
        json_object_set_new(o, "state", json_string(job_state_name(
                                            (enum job_state)ev->state)));
        return json_object_set_new(o, "status", json_integer(ev->status));
    case CTLD_EV_JOB_REQUEUED:
        json_object_set_new(o, "eligible_time",
                            json_integer((json_int_t)ev->eligible_time));
        if (ev->exit_requeue) {
            json_object_set_new(o, "exit_requeue",
                                json_integer(ev->exit_requeue));
            json_object_set_new(o, "status", json_integer(ev->status));
        }
        return json_object_set_new(o, "restart", json_boolean(ev->restart));
    case CTLD_EV_JOB_CANCELLED:
        return json_object_set_new(o, "by", json_integer(ev->by));
    case CTLD_EV_JOB_UPDATED:
        return json_object_set_new(o, "update",
                                   job_update_to_json(ev->update));
    case CTLD_EV_JOB_HELD:
        json_object_set_new(o, "hold", json_boolean(ev->hold));
        if (ev->launch_failed)
            json_object_set_new(o, "launch_failed", json_true());
        return json_object_set_new(o, "admin", json_boolean(ev->admin));
    case CTLD_EV_STEP_STARTED:
        if (!job || !(s = job_step_find(job, ev->step_id)))
            return -1;
        return json_object_set_new(o, "step", job_step_to_json(s, true));
    case CTLD_EV_STEP_REPORTED:
        json_object_set_new(o, "node", json_string(ev->node));
        return json_object_set_new(o, "report", step_report(ev->report));
    case CTLD_EV_JOB_NODE_REMOVED:
        return json_object_set_new(o, "node", json_string(ev->node));
    case CTLD_EV_STEP_ENDED:
        if (ev->node)
            json_object_set_new(o, "node", json_string(ev->node));
        return json_object_set_new(o, "state", json_string(job_state_name(
                                                   (enum job_state)ev->state)));
    case CTLD_EV_JOB_GATE:
        depend_gate_to_json(ev->gate, o);
        return 0;
    case CTLD_EV_ARRAY_TASK_SPLIT:
        json_object_set_new(o, "task", json_integer(ev->task));
        return json_object_set_new(o, "new_job_id",
                                   json_integer(ev->new_job_id));
    case CTLD_EV_ARRAY_THROTTLE:
        return json_object_set_new(o, "throttle", json_integer(ev->throttle));
    case CTLD_EV_PRIORITY_CALC:
        return ev->reset ? json_object_set_new(o, "reset", json_true()) : 0;
    case CTLD_EV_JOB_SUSPENDED:
        if (ev->preempt)
            json_object_set_new(o, "preempt", json_true());
        if (ev->gang)
            json_object_set_new(o, "gang", json_true());
        return json_object_set_new(o, "suspend", json_boolean(ev->suspend));
    case CTLD_EV_JOB_PREEMPTED:
        if (ev->grace_s)
            json_object_set_new(o, "grace_s", json_integer(ev->grace_s));
        return json_object_set_new(o, "requeue", json_boolean(ev->requeue));
    case CTLD_EV_RESV_CHANGED:
        return json_object_set(o, "change", ev->resv);
    case CTLD_EV_TRIGGER_SET:
    case CTLD_EV_TRIGGER_CLEARED:
    case CTLD_EV_TRIGGER_FIRED:
        return json_object_set(o, "trigger", ev->trigger);
    case CTLD_EV_CRONTAB_SET:
        return json_object_set(o, "crontab", ev->crontab);
    case CTLD_EV_PART_CHANGED:
        return json_object_set(o, "change", ev->part);
    case CTLD_EV_NODE_STATE: {
        json_t *admin = node_table_admin_json(ctld->nodes,
                                              (size_t)ev->node_idx);
        int rc = json_object_update(o, admin);
        json_decref(admin);
        return rc;
    }
    default:
        return 0;
    }
}

json_t *event_record(struct ctld *ctld, const struct ctld_event *ev)
{
    json_t *o = json_pack("{s:s s:I}", "ev", ctld_event_name(ev->type), "t",
                          (json_int_t)ev->t);

    if (!o)
        return NULL;
    if (ev->type != CTLD_EV_JOB_SUBMITTED && ev->type != CTLD_EV_NODE_STATE
        && ev->type != CTLD_EV_PRIORITY_CALC
        && ev->type != CTLD_EV_RESV_CHANGED
        && (ev->type < CTLD_EV_TRIGGER_SET
            || ev->type > CTLD_EV_TRIGGER_FIRED)
        && ev->type != CTLD_EV_CRONTAB_SET
        && ev->type != CTLD_EV_PART_CHANGED)
        json_object_set_new(o, "job_id", json_integer(ev->job_id));
    if (ev->type >= CTLD_EV_STEP_REPORTED && ev->type <= CTLD_EV_STEP_CANCELLED)
        json_object_set_new(o, "step_id", json_integer(ev->step_id));
    if (put_keys(ctld, ev, o) < 0) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* --- replay -------------------------------------------------------------- */

static int event_type_parse(const char *name)
{
    for (int i = 0; name && i < CTLD_EV_TYPE_COUNT; i++)
        if (!strcmp(event_names[i], name))
            return i;
    return -1;
}

/* The record of the format before events. */
static int replay_legacy(struct ctld *ctld, json_t *rec, const char *op,
                         drv_error_t *error)
{
    if (!strcmp(op, "job"))
        return ctld_restore_job(ctld, json_object_get(rec, "job"), error);
    if (!strcmp(op, "node")) {
        node_table_admin_restore(ctld->nodes, rec);
    } else if (!strcmp(op, "purge")) {
        struct ctld_event ev = {
            .type = CTLD_EV_JOB_PURGED,
            .job_id = (uint32_t)json_integer_value(
                json_object_get(rec, "job_id")),
        };
        ctld_apply(ctld, &ev);
    } else {
        log_error("journal: unknown record op '%s' ignored", op);
    }
    return 0;
}

/* A job_changed record: the journaled fields replace the record's; the
 * allocation, steps and script stay. */
static int replay_changed(struct ctld *ctld, json_t *o, drv_error_t *error)
{
    json_int_t id = json_integer_value(json_object_get(o, "job_id"));
    struct job *old = id > 0 && id <= UINT32_MAX
                          ? ctld_job_find(ctld, (uint32_t)id)
                          : NULL;
    struct sched_alloc *alloc = NULL;
    struct job_step *steps = NULL;
    struct job *job;

    if (old) { /* keep what the record leaves out */
        alloc = old->alloc;
        steps = old->steps;
        old->alloc = NULL;
        old->steps = NULL;
    }
    if (ctld_restore_job(ctld, o, error) < 0) {
        if (old) {
            old->alloc = alloc;
            old->steps = steps;
        }
        return -1;
    }
    job = ctld_job_find(ctld, (uint32_t)id);
    job->alloc = alloc; /* its usage of the nodes never stopped */
    job->steps = steps;
    ctld_live_note(ctld, job); /* with its allocation back */
    return 0;
}

/* The event a record describes, into 'ev'; what it steals is allocated. */
static int decode(struct ctld *ctld, json_t *rec, struct ctld_event *ev,
                  drv_error_t *error)
{
    const char *state = NULL;

    ev->t = (time_t)json_integer_value(json_object_get(rec, "t"));
    ev->job_id = (uint32_t)json_integer_value(json_object_get(rec, "job_id"));
    ev->step_id =
        (uint32_t)json_integer_value(json_object_get(rec, "step_id"));
    ev->node = json_string_value(json_object_get(rec, "node"));
    if ((state = json_string_value(json_object_get(rec, "state"))))
        ev->state = job_state_parse(state);
    switch (ev->type) {
    case CTLD_EV_JOB_SUBMITTED:
        ev->job = ctld_job_from_record(ctld, json_object_get(rec, "job"),
                                       error);
        return ev->job ? 0 : -1;
    case CTLD_EV_JOB_STARTED:
        ev->configuring = json_is_true(json_object_get(rec, "configuring"));
        ev->alloc = job_alloc_from_json(json_object_get(rec, "alloc"),
                                        node_table_index_cb, ctld->nodes,
                                        error);
        return ev->alloc ? 0 : -1;
    case CTLD_EV_JOB_ENDED:
        ev->report = json_object_get(rec, "report");
        ev->status = (int)json_integer_value(json_object_get(rec, "status"));
        return ev->state < 0 ? errprintf(error, "bad job state") : 0;
    case CTLD_EV_JOB_REQUEUED:
        ev->eligible_time = (time_t)json_integer_value(
            json_object_get(rec, "eligible_time"));
        ev->restart = json_is_true(json_object_get(rec, "restart"));
        ev->exit_requeue =
            (int)json_integer_value(json_object_get(rec, "exit_requeue"));
        ev->status = (int)json_integer_value(json_object_get(rec, "status"));
        return 0;
    case CTLD_EV_JOB_CANCELLED:
        ev->by = json_integer_value(json_object_get(rec, "by"));
        return 0;
    case CTLD_EV_JOB_HELD:
        ev->hold = json_is_true(json_object_get(rec, "hold"));
        ev->admin = json_is_true(json_object_get(rec, "admin"));
        ev->launch_failed =
            json_is_true(json_object_get(rec, "launch_failed"));
        return 0;
    case CTLD_EV_STEP_STARTED:
        ev->step = job_step_from_json(json_object_get(rec, "step"), error);
        return ev->step ? 0 : -1;
    case CTLD_EV_STEP_REPORTED:
        ev->report = json_object_get(rec, "report");
        return ev->node ? 0 : errprintf(error, "step_reported without node");
    case CTLD_EV_STEP_ENDED:
        return ev->state < 0 ? errprintf(error, "bad step state") : 0;
    case CTLD_EV_JOB_NODE_REMOVED:
        return ev->node ? 0 : errprintf(error, "job_node_removed without "
                                               "node");
    case CTLD_EV_ARRAY_TASK_SPLIT:
        ev->task = (uint32_t)json_integer_value(json_object_get(rec, "task"));
        ev->new_job_id = (uint32_t)json_integer_value(
            json_object_get(rec, "new_job_id"));
        return 0;
    case CTLD_EV_ARRAY_THROTTLE:
        ev->throttle =
            (uint32_t)json_integer_value(json_object_get(rec, "throttle"));
        return 0;
    case CTLD_EV_PRIORITY_CALC:
        ev->reset = json_is_true(json_object_get(rec, "reset"));
        return 0;
    case CTLD_EV_JOB_SUSPENDED:
        ev->suspend = json_is_true(json_object_get(rec, "suspend"));
        ev->preempt = json_is_true(json_object_get(rec, "preempt"));
        ev->gang = json_is_true(json_object_get(rec, "gang"));
        return 0;
    case CTLD_EV_JOB_PREEMPTED:
        ev->requeue = json_is_true(json_object_get(rec, "requeue"));
        ev->grace_s = json_integer_value(json_object_get(rec, "grace_s"));
        return 0;
    case CTLD_EV_RESV_CHANGED:
        ev->resv = json_object_get(rec, "change");
        return ev->resv ? 0 : errprintf(error, "resv_changed without change");
    case CTLD_EV_TRIGGER_SET:
    case CTLD_EV_TRIGGER_CLEARED:
    case CTLD_EV_TRIGGER_FIRED:
        ev->trigger = json_object_get(rec, "trigger");
        return ev->trigger ? 0 : errprintf(error, "%s without trigger",
                                           event_names[ev->type]);
    case CTLD_EV_CRONTAB_SET:
        ev->crontab = json_object_get(rec, "crontab");
        return json_is_object(ev->crontab)
                   ? 0 : errprintf(error, "crontab_set without crontab");
    case CTLD_EV_PART_CHANGED:
        ev->part = json_object_get(rec, "change");
        return json_is_object(ev->part)
                   ? 0 : errprintf(error, "part_changed without change");
    default:
        return 0;
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

/* Each id once: the list names every record's job, many per job. */
static void compact_replayed(struct ctld *ctld)
{
    size_t n = 0;

    qsort(ctld->replayed, ctld->nreplayed, sizeof(uint32_t), cmp_u32);
    for (size_t i = 0; i < ctld->nreplayed; i++)
        if (!n || ctld->replayed[n - 1] != ctld->replayed[i])
            ctld->replayed[n++] = ctld->replayed[i];
    ctld->nreplayed = n;
}

/* Remember the job 'rec' names (state_respool_replayed()). */
static void note_replayed(struct ctld *ctld, json_t *rec)
{
    json_t *id = json_object_get(rec, "job_id");

    if (!id)
        id = json_object_get(json_object_get(rec, "job"), "job_id");
    if (!json_is_integer(id))
        return;
    if (ctld->nreplayed == ctld->replayed_cap) {
        if (ctld->nreplayed >= 4096) /* a Raft follower replays for days */
            compact_replayed(ctld);
        if (ctld->nreplayed * 2 >= ctld->replayed_cap) {
            ctld->replayed_cap = ctld->replayed_cap ? 2 * ctld->replayed_cap
                                                    : 64;
            ctld->replayed = xrealloc(ctld->replayed,
                                      ctld->replayed_cap * sizeof(uint32_t));
        }
    }
    ctld->replayed[ctld->nreplayed++] = (uint32_t)json_integer_value(id);
}

int ctld_replay_record(struct ctld *ctld, json_t *rec, drv_error_t *error)
{
    const char *name = json_string_value(json_object_get(rec, "ev"));
    const char *op = json_string_value(json_object_get(rec, "op"));
    struct ctld_event ev = {0};
    struct job_update u;
    struct job_gate g = {0};
    int type;

    note_replayed(ctld, rec);
    if (!name && op)
        return replay_legacy(ctld, rec, op, error);
    if (name && !strcmp(name, "job_changed"))
        return replay_changed(ctld, json_object_get(rec, "job"), error);
    if ((type = event_type_parse(name)) < 0) {
        log_error("journal: unknown event '%s' ignored",
                  name ? name : "(none)");
        return 0;
    }
    ev.type = (enum ctld_event_type)type;
    if (ev.type == CTLD_EV_NODE_STATE) {
        ev.t = (time_t)json_integer_value(json_object_get(rec, "t"));
        if ((ev.node_idx = node_table_admin_from_json(ctld->nodes, rec,
                                                      &ev.node_admin))
            < 0)
            return 0; /* a node that left slurm.conf */
        ctld_apply(ctld, &ev);
        return 0;
    }
    if (decode(ctld, rec, &ev, error) < 0)
        return -1;
    /* the events that borrow what the record holds */
    if (ev.type == CTLD_EV_JOB_UPDATED) {
        if (job_update_from_json(ctld, json_object_get(rec, "update"), &u,
                                 error)
            < 0)
            return -1;
        ev.update = &u;
    } else if (ev.type == CTLD_EV_JOB_GATE) {
        if (depend_gate_from_json(rec, &g, error) < 0)
            return -1;
        ev.gate = &g;
    }
    ctld_apply(ctld, &ev); /* one that no longer applies is logged */
    free(g.dep_state);
    return 0;
}
