/* SPDX-License-Identifier: Apache-2.0
 *
 * event.h - the controller's state changes as typed events, applied by one
 * function
 *
 * Handlers decide, ctld_apply() changes state, subscribers react: every
 * change of the job, step and node tables is a struct ctld_event handed to
 * ctld_apply(), which mutates the tables, appends the event to the journal
 * (journal.h; the acknowledgement rule of ctld_respond_durable() holds)
 * and notifies the subscribers (the accounting spool, the scheduler's
 * "pass soon").  A restart replays the snapshot and then the journal's
 * events through the same function.  ctld_apply() reads no clock and draws
 * no random number: the time and the ids travel in the event, so the log
 * is a deterministic description of the state (design.md: the log Raft
 * will replicate).  Side effects on other daemons (launching, signalling)
 * stay with the handlers, after the event is applied.
 *
 * Journal records are one JSON object per event, {"ev":"<type>","t":T,...}
 * (docs/architecture.md lists them with their keys).
 */
#ifndef DROVER_CTLD_EVENT_H
#define DROVER_CTLD_EVENT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <jansson.h>

#include "common/error.h"
#include "ctld/node_table.h"

struct ctld;
struct job;
struct job_step;
struct sched_alloc;
struct job_update;
struct job_gate;

enum ctld_event_type {
    /* A new job (or array) entered the queue: 'job' (owned by the table
     * from now on), with its script; its id is above every one before. */
    CTLD_EV_JOB_SUBMITTED,
    /* 'job_id' starts on 'alloc' (stolen): RUNNING at 't', its run_id
     * advances, its batch step begins and the nodes' usage grows; with
     * 'configuring' it is CONFIGURING (PrologSlurmctld runs, prolog_ctld.h)
     * until CTLD_EV_JOB_CONFIGURED. */
    CTLD_EV_JOB_STARTED,
    /* 'job_id' left its nodes and ended in 'state' (enum job_state, a
     * final one) with raw wait status 'status' at 't': the allocation is
     * released and its running steps end with it.  With 'node' and
     * 'report' (the batch host's completion), the script's usage goes to
     * the batch step. */
    CTLD_EV_JOB_ENDED,
    /* 'job_id' goes back to PENDING, eligible at 'eligible_time';
     * 'restart' counts it in Restarts (a launch that never ran does not).
     * Its allocation (if any) is released and its steps forgotten.  With
     * 'exit_requeue' its batch script ended with exit status 'status'
     * listed in RequeueExit (1: PENDING) or RequeueExitHold (2: held in
     * SPECIAL_EXIT, JobHeldUser, until released). */
    CTLD_EV_JOB_REQUEUED,
    /* 'job_id' was cancelled by uid 'by' at 't': a pending job ends
     * CANCELLED; a running one is CANCELLED and completing until its node
     * confirms (then CTLD_EV_JOB_ENDED). */
    CTLD_EV_JOB_CANCELLED,
    /* 'job_id' is forgotten (MinJobAge after its end). */
    CTLD_EV_JOB_PURGED,
    /* 'job_id' is held ('hold'; by an operator or administrator for
     * another user's job: 'admin', JobHeldAdmin, else JobHeldUser) with
     * priority 0, or released (its priority/basic priority again, and a
     * held reason cleared).  A running job may be held: it keeps running
     * and stays held if requeued (Slurm 22.05). */
    CTLD_EV_JOB_HELD,
    /* scontrol update of 'job_id': 'update' (job_update.h: time limit,
     * partition, node count, begin time, name, features) applied at 't'. */
    CTLD_EV_JOB_UPDATED,
    /* 'step' (stolen) of 'job_id' started. */
    CTLD_EV_STEP_STARTED,
    /* Node 'node' reported the end of step 'step_id' of 'job_id' with
     * 'report' (status and usage, job_step_add_usage()); once every node
     * reported, the step ends at 't'. */
    CTLD_EV_STEP_REPORTED,
    /* Step 'step_id' of 'job_id' ends in 'state' at 't' without its
     * nodes' reports (a node failed: 'node', taken off those yet to
     * report, or NULL). */
    CTLD_EV_STEP_ENDED,
    /* Step 'step_id' of 'job_id' is being cancelled (scancel J.S): it
     * ends CANCELLED when its nodes report. */
    CTLD_EV_STEP_CANCELLED,
    /* Node 'node_idx' (an index into the node table) takes the
     * administrative state 'node_admin': drain, down, resume, reason,
     * weight (scontrol update, a node not responding or back). */
    CTLD_EV_NODE_STATE,
    /* scontrol requeue of the running 'job_id': it is completing and goes
     * back to PENDING when its node confirms the end (JOB_REQUEUED). */
    CTLD_EV_JOB_REQUEUE_REQUESTED,
    /* The scheduler's gate judged the pending 'job_id' again ('gate',
     * depend.h: its reason, eligible time and dependency states). */
    CTLD_EV_JOB_GATE,
    /* Task 'task' of the array whose pending tasks 'job_id' holds leaves
     * them as job 'new_job_id' (a copy of the record), or, when it was the
     * last one (new_job_id 0), the record itself becomes that task. */
    CTLD_EV_ARRAY_TASK_SPLIT,
    /* Every record of array 'job_id' (the ArrayJobId) takes the limit of
     * 'throttle' running tasks (0: none; scontrol update ArrayTaskThrottle=). */
    CTLD_EV_ARRAY_THROTTLE,
    /* Running 'job_id' is suspended ('suspend'; SUSPENDED, priority 0,
     * its run time so far kept) or the suspended one resumed (RUNNING,
     * its priority computed again), at 't' (scontrol suspend/resume).
     * With 'preempt' (PreemptMode=SUSPEND, preempt.h), a suspension gives
     * the job's CPUs back until it resumes; with 'gang' (gang.h) it keeps
     * them and resumes in its turn. */
    CTLD_EV_JOB_SUSPENDED,
    /* Running 'job_id' is preempted at 't' (preempt.h): 'requeue', it is
     * completing and pends again PREEMPT_REQUEUE_DELAY_S after its node
     * confirms the end; else it ends PREEMPTED (completing until then). */
    CTLD_EV_JOB_PREEMPTED,
    /* A reservation is created, updated or deleted: 'resv' (borrowed),
     * {"op","resv":record} (resv.h). */
    CTLD_EV_RESV_CHANGED,
    /* The priority calculation at 't' (priority.h): usage decays (and is
     * cleared first with 'reset'), running jobs are charged, pending jobs'
     * priorities computed again. */
    CTLD_EV_PRIORITY_CALC,
    /* The PrologSlurmctld of the running, configuring 'job_id' passed: it
     * is no longer CONFIGURING and may launch (prolog_ctld.h). */
    CTLD_EV_JOB_CONFIGURED,
    /* Node 'node' (a name) of the running --no-kill 'job_id' failed: it
     * leaves the allocation (never the batch host, entry 0) and the job
     * goes on with the others, as Slurm's excise_node_from_job(). */
    CTLD_EV_JOB_NODE_REMOVED,
    /* strigger --set: 'trigger' (borrowed) is the new trigger's record
     * (trigger.h), its id above every one before. */
    CTLD_EV_TRIGGER_SET,
    /* strigger --clear: 'trigger' (borrowed) is {"ids":[...]}, the
     * triggers removed (also those whose job ended without them firing). */
    CTLD_EV_TRIGGER_CLEARED,
    /* Trigger 'trigger' {"id"} (borrowed) fired at 't': removed unless
     * PERM (which remembers when).  Its program ran on the leader only,
     * after the event was applied: replay never runs it again. */
    CTLD_EV_TRIGGER_FIRED,
    /* A user's crontab (scrontab, crontab.h) is set, changed (entries
     * disabled by scancel) or removed: 'crontab' (borrowed),
     * {"user_id", "text" (absent: removed), "disabled": [line],
     * "job_ids": [its entries' jobs]}. */
    CTLD_EV_CRONTAB_SET,
    /* scontrol create|update|delete partition: 'part' (borrowed),
     * {"op","name","set":{"Keyword":"value"}} (part.h). */
    CTLD_EV_PART_CHANGED,
    CTLD_EV_TYPE_COUNT,
};

struct ctld_event {
    enum ctld_event_type type;
    time_t t;                    /* when it happened, seconds since the
                                  * epoch */
    uint32_t job_id;
    uint32_t step_id;
    struct job *job;             /* JOB_SUBMITTED (stolen) */
    struct sched_alloc *alloc;   /* JOB_STARTED (stolen) */
    bool configuring;            /* JOB_STARTED: PrologSlurmctld first */
    struct job_step *step;       /* STEP_STARTED (stolen) */
    int state;                   /* JOB_ENDED, STEP_ENDED: enum job_state */
    int status;                  /* JOB_ENDED, JOB_REQUEUED with
                                  * exit_requeue or status_known: raw
                                  * wait status */
    bool status_known;           /* JOB_REQUEUED: a run's end requeued
                                  * it, and 'status' is its script's (not
                                  * journaled, for the subscribers) */
    int exit_requeue;            /* JOB_REQUEUED: 1 RequeueExit, 2
                                  * RequeueExitHold, 0 neither */
    int64_t by;                  /* JOB_CANCELLED: the uid */
    time_t eligible_time;        /* JOB_REQUEUED */
    bool restart;                /* JOB_REQUEUED */
    bool run_ended;              /* JOB_REQUEUED, set by ctld_apply(): the
                                  * job was in a final state (its run's
                                  * end was applied already: a cron job,
                                  * a requeue of a finished job); not
                                  * journaled, for the subscribers */
    bool hold, admin;            /* JOB_HELD */
    bool launch_failed;          /* JOB_HELD: held because its launch
                                  * failed (Prolog): Slurm's reason
                                  * "launch failed requeued held" */
    const struct job_update *update; /* JOB_UPDATED (borrowed) */
    const char *node;            /* STEP_REPORTED, STEP_ENDED, JOB_ENDED:
                                  * node name (borrowed) */
    json_t *report;              /* STEP_REPORTED, JOB_ENDED (borrowed) */
    long node_idx;               /* NODE_STATE */
    struct node_admin node_admin; /* NODE_STATE (strings borrowed) */
    const struct job_gate *gate; /* JOB_GATE (borrowed) */
    uint32_t task;               /* ARRAY_TASK_SPLIT: the task id */
    uint32_t new_job_id;         /* ARRAY_TASK_SPLIT: its job id, or 0 */
    uint32_t throttle;           /* ARRAY_THROTTLE */
    bool reset;                  /* PRIORITY_CALC */
    bool suspend;                /* JOB_SUSPENDED: suspend, or resume */
    bool preempt;                /* JOB_SUSPENDED: by preemption */
    bool gang;                   /* JOB_SUSPENDED: by the gang scheduler */
    bool requeue;                /* JOB_PREEMPTED: requeue, or cancel */
    int64_t grace_s;             /* JOB_PREEMPTED: GraceTime, seconds */
    json_t *resv;                /* RESV_CHANGED (borrowed) */
    json_t *trigger;             /* TRIGGER_* (borrowed) */
    json_t *crontab;             /* CRONTAB_SET (borrowed) */
    json_t *part;                /* PART_CHANGED (borrowed) */
};

/* Apply 'ev' to the controller's tables, journal it and notify the
 * subscribers.  What 'ev' steals is owned by the tables afterwards, also
 * when the event does not apply.  An event that names a job or step the
 * tables do not hold, or that no longer applies (a repeated report), is
 * dropped with a log line and not journaled.  Returns 0 when applied, -1
 * when dropped.
 */
int ctld_apply(struct ctld *ctld, struct ctld_event *ev);

/* Apply a node_state event: node 'node_idx' takes state 'a' (its strings
 * are copied) now. */
void ctld_node_admin(struct ctld *ctld, long node_idx,
                     const struct node_admin *a);

/* The journal's name of an event type ("job_started"); NULL if out of
 * range. */
const char *ctld_event_name(enum ctld_event_type type);

/* Replay one journal record through ctld_apply() (no journaling, no
 * subscribers: the record is on disk already).  Records of the format
 * before events ({"op":"job"|"purge"|"node"}) and the untyped
 * "job_changed" records of the first event format (the whole record) are
 * read too, so a StateSaveLocation written by an earlier Drover restores.  Returns 0,
 * or -1 with 'error' set for a record that cannot be read.
 */
int ctld_replay_record(struct ctld *ctld, json_t *rec, drv_error_t *error);

/* A new job (in no table) from its record 'o' (job_to_json()'s keys), its
 * script in the shared launch store.  NULL with 'error' set for a record
 * without a job id or with a bad field. */
struct job *ctld_job_from_record(struct ctld *ctld, json_t *o,
                                 drv_error_t *error);

/* Restore one job of a snapshot (or a legacy whole-record line): the job
 * replaces any record of the same id, keeps the script of the old one when
 * it has none, and its allocation counts on the nodes again.  Returns 0,
 * or -1 with 'error' set. */
int ctld_restore_job(struct ctld *ctld, json_t *rec, drv_error_t *error);

#endif /* !DROVER_CTLD_EVENT_H */
