/* SPDX-License-Identifier: Apache-2.0
 *
 * step.h - the controller's job step records
 *
 * Each job keeps a list of its steps: the batch step (created when the
 * batch script is launched, ended with the job) and one per srun.  A step
 * runs until every node it was launched on has reported (step_complete),
 * its job ends, or a node of it fails.  Finished steps stay with the job
 * until the job is purged.  Each change of a step is its own event
 * (event.h: step_started, step_reported, step_ended, step_cancelled);
 * snapshots keep them inside the job record ("steps", docs/protocol.md
 * "Step record").
 */
#ifndef DROVER_CTLD_STEP_H
#define DROVER_CTLD_STEP_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <jansson.h>

#include "common/error.h"

struct job;

/* Slurm's special step ids (slurm.h). */
#define STEP_ID_BATCH 0xfffffffbu
#define STEP_ID_EXTERN 0xfffffffcu
#define STEP_ID_INTERACTIVE 0xfffffffau

struct job_step {
    uint32_t id;
    char *name;           /* "batch", or the command's basename */
    int state;            /* enum job_state: RUNNING, COMPLETED, ... */
    bool cancelled;       /* step_cancel asked: ends CANCELLED */
    time_t start_time;
    time_t end_time;      /* 0 while running */
    char *nodes;          /* hostlist of the step */
    uint32_t nnodes, ntasks, ncpus;
    char *alloc_tres;     /* "cpu=2,mem=1000M,node=1", or NULL */
    int exit_status;      /* raw wait status, max over the reports */
    char *pending;        /* hostlist of nodes yet to report; NULL: none */
    int64_t max_rss_kib;  /* -1 when no node reported usage */
    char *max_rss_node;
    int max_rss_task;     /* global rank; -1 unknown */
    int64_t user_cpu_us;
    int64_t sys_cpu_us;
    char *srun_host;      /* srun's host and pid (scontrol SrunHost:Pid) */
    int64_t srun_pid;
    char *dist;           /* srun steps: Slurm's layout name, "Cyclic"
                           * (scontrol Dist=); NULL: Block */
    struct step_claim *claim; /* srun steps: what it holds of the job's
                               * allocation while RUNNING (step_res.h);
                               * not journaled */
    bool acct_dirty;      /* changed since the job's last accounting
                           * record (acct.c sends only such steps); not
                           * journaled */
    struct job_step *next; /* the job's list, in creation order */
};

/* A new RUNNING step started at 'now' on 'nodes' (hostlist, copied), all
 * of which are to report.  'name' is copied.  Never NULL (xalloc). */
struct job_step *job_step_create(uint32_t id, const char *name,
                                 const char *nodes, time_t now);

/* Free a list of steps ('next' chain).  NULL is a no-op. */
void job_steps_destroy(struct job_step *list);

/* Append 'step' (owned by the job from now on) to 'job's list. */
void job_step_add(struct job *job, struct job_step *step);

/* Mark the steps of 'job' running or ended at or after 'since' (epoch
 * seconds; 0: every step) for its next accounting record. */
void job_steps_acct_dirty(struct job *job, time_t since);

/* The step 'id' of 'job' (borrowed), or NULL. */
struct job_step *job_step_find(const struct job *job, uint32_t id);

/* "batch", "extern", "interactive" or the number, into 'buf'. */
const char *job_step_id_str(uint32_t id, char *buf, size_t len);

/* Parse "3", "batch", "extern", "interactive"; -1 if not a step id. */
int64_t job_step_id_parse(const char *s);

/* Fold one node's report into the step: raw wait status "status" (max),
 * "cancelled" (the node killed the tasks: the step ends CANCELLED),
 * "max_rss_kib" with "max_rss_task" (the largest wins, with 'node'),
 * "user_cpu_us" and "sys_cpu_us" (summed).  Missing keys are skipped.
 */
void job_step_add_usage(struct job_step *step, const char *node,
                        json_t *report);

/* True when 'node' has yet to report. */
bool job_step_pending_on(const struct job_step *step, const char *node);

/* Take 'node' off the nodes yet to report.  Returns true when it was
 * pending (false: a repeated or unexpected report). */
bool job_step_node_reported(struct job_step *step, const char *node);

/* End a running step at 'now' in 'state' (enum job_state); a step already
 * ended is left alone.  Nodes still pending stay listed, so their late
 * reports may still add usage. */
void job_step_end(struct job_step *step, int state, time_t now);

/* The state a step ends in once all its nodes reported: CANCELLED when
 * cancelled, FAILED for a non-zero status, COMPLETED otherwise. */
int job_step_final_state(const struct job_step *step);

/* Once every node reported ('pending' empty): a running step ends in
 * its final state at 'now'; one its job's end marked CANCELLED whose
 * tasks all exited by themselves (the reports raced the job's completion)
 * takes COMPLETED or FAILED instead.  Otherwise nothing changes. */
void job_step_settle(struct job_step *step, time_t now);

/* End the job's running steps (its end, or a node failure): srun steps
 * CANCELLED (NODE_FAIL with the job); the batch step takes the job's own
 * state, CANCELLED for a cancelled, timed-out, preempted or requeued job
 * (as Slurm's), and 'batch_status', the script's raw wait status (most
 * often SIGTERM's there: sacct's 0:15).  Caller journals the job. */
void job_steps_end_all(struct job *job, time_t now, int batch_status);

/* The step record (docs/protocol.md), new reference.  With 'internal',
 * the journal's keys too ("pending", "cancelled"). */
json_t *job_step_to_json(const struct job_step *step, bool internal);

/* The job's steps as a JSON array (new reference), NULL when none. */
json_t *job_steps_to_json(const struct job *job, bool internal);

/* One step from its record (job_step_to_json() with 'internal'): a new
 * step, not in any list (free with job_steps_destroy()), or NULL with
 * 'error' set for a malformed record. */
struct job_step *job_step_from_json(json_t *o, drv_error_t *error);

/* Replace the job's steps with those in 'arr' (journal replay).  Returns
 * 0, or -1 with 'error' set (the job keeps its old list then). */
int job_steps_apply_json(struct job *job, json_t *arr, drv_error_t *error);

#endif /* !DROVER_CTLD_STEP_H */
