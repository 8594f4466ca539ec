/* SPDX-License-Identifier: Apache-2.0
 *
 * ctld.h - the controller's context, shared by its subsystems
 *
 * One libuv loop owns all of this state (design.md: no locks).  Subsystems:
 * node_table (nodes and partitions), job_table (jobs by id), journal
 * (durability), scheduler (runs src/sched on the tables), and the RPC
 * handlers in rpc_job.c and rpc_node.c.
 */
#ifndef DROVER_CTLD_CTLD_H
#define DROVER_CTLD_CTLD_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <uv.h>

#include "common/idmap.h"
#include "conf/conf.h"
#include "ctld/job.h"
#include "ctld/journal.h"
#include "ctld/launch_store.h"
#include "ctld/node_table.h"
#include "ctld/stats.h"
#include "proto/auth.h"
#include "proto/server.h"
#include "sched/backfill.h"

/* A user's jobs in the table, in no order (ctld_user_jobs()). */
struct ctld_user_jobs {
    uid_t uid;
    struct job *head; /* through job.user_next */
    size_t count;
    UT_hash_handle hh;
};

/* Job ids, a bit each: the jobs that may be in some states, checked as
 * they are walked (ctld_live_first()). */
struct ctld_job_set {
    uint64_t *bits;
    size_t words;
};

/* The sets ctld_live_note() keeps (ctld_set_first()), so that what looks
 * for jobs in a state does not walk the 100,000 records of a deep queue
 * (bench/scale: three such walks a second were a 12 ms loop turn). */
enum ctld_set {
    CTLD_SET_LIVE,        /* pending, running or completing */
    CTLD_SET_WAITING,     /* pending or held: no allocation, not ended */
    CTLD_SET_RUNNING,     /* holding an allocation (running, suspended or
                           * completing) */
    CTLD_SET_INTERACTIVE, /* an interactive allocation, running
                           * (interactive_check_limits()) */
    CTLD_SET_GRACE,       /* preempted with a GraceTime, its kill not yet
                           * sent (preempt_grace_check()) */
    CTLD_SET_COUNT
};

/* The ended jobs (no allocation, not completing) in order of their end
 * times, a binary heap: the next to reach MinJobAge is first
 * (state_purge_old_jobs()).  'queued' has a bit per job id in the heap. */
struct ctld_purge_entry {
    int64_t end_time;
    uint32_t id;
};
struct ctld_purge_heap {
    struct ctld_purge_entry *e;
    size_t count, cap;
    struct ctld_job_set queued;
};

struct ctld {
    uv_loop_t *loop;
    struct slurm_conf *conf;
    struct proto_auth *auth;
    struct proto_jwt *jwt;     /* auth/jwt key (token.h); NULL: off */
    struct conf_jwt jwt_conf;  /* its AuthAltParameters= */
    struct proto_server *server;
    struct node_table *nodes;
    struct job *jobs;          /* uthash by id: ctld_job_link() */
    struct idmap job_ids;      /* the same jobs by id: ctld_job_find() */
    struct ctld_user_jobs *user_jobs; /* the same jobs by owner */
    struct array_group *array_groups; /* array.h: array_first() */
    struct ctld_job_set sets[CTLD_SET_COUNT]; /* ctld_set_first() */
    struct ctld_purge_heap purge; /* ctld_purge_next() */
    struct listing *listings;  /* answers being written (listing.h) */
    uv_idle_t listing_idle;    /* writes them */
    struct launch_store *launches; /* shared scripts/environments */
    struct acct *acct;         /* accounting spool (acct.h); NULL = none */
    uint32_t next_job_id;
    uint32_t job_count;        /* MaxJobCount: an upper bound of the jobs
                                * in the table (rpc_job.c) */
    bool job_count_known;      /* job_count was counted since start */
    struct journal *journal;   /* NULL in a Raft group: ha is the log */
    struct ha *ha;             /* the Raft group (ha.h); NULL: alone */
    struct slurm_conf **retired_confs; /* replaced by reconfigures, kept
                                        * until exit (rpc_reconfig.c) */
    size_t retired_conf_count;
    int log_verbose;           /* -v count, added to SlurmctldDebug */
    uv_prepare_t flush_handle; /* flushes the journal before the loop blocks */
    uv_check_t answers_handle; /* and after its I/O, for answers waiting */
    struct ack *acks;          /* responses waiting for the flush */
    struct ack **acks_tail;
    uv_timer_t sched_timer;    /* coalesced "schedule soon" */
    uint64_t sched_last_end_ns;  /* uv_hrtime() when the last pass ended */
    uint64_t sched_last_cost_ns; /* and the CPU time it took */
    uv_timer_t periodic_timer; /* node health, purge, snapshots */
    uv_signal_t sigterm;
    uv_signal_t sigint;
    uid_t slurm_uid;
    struct rate_limit *rate_limit; /* rl_enable (rpc_gate.h); NULL: off */
    uint64_t rate_untracked_logged; /* uv_now() of its last "not limited" */
    time_t boot_time;
    bool sched_pending;
    bool sched_more;           /* the last pass left starts to the next
                                * (scheduler.c: sched_start_cap) */
    uint32_t sched_start_cap;  /* starts a pass may make (its max_starts),
                                * fitted to the cost of the last passes
                                * that reached it; 0: SCHED_MAX_STARTS */
    bool replaying;            /* state_restore(): ctld_apply() neither
                                * journals nor notifies */
    uint32_t *replayed;        /* ids of the jobs the journal's records
                                * named (state_respool_replayed()) */
    size_t nreplayed, replayed_cap;
    bool node_timeouts_held;   /* silent nodes kept up: connections were
                                * turned away (main.c) */
    struct enforce *enforce;   /* AccountingStorageEnforce (enforce.h);
                                * NULL = off */
    struct part_access *access;/* partition access (part_access.h) */
    struct ident *ident;       /* cached user and group lookups (ident.h):
                                * none blocks the loop per request */
    struct ctld_stats stats;   /* sdiag's figures (stats.h) */
    struct resv *resvs;        /* reservations (resv.h), uthash by name */
    json_t *part_changes;      /* scontrol's partition changes, merged
                                * (part.h); NULL: none */
    struct triggers *triggers; /* strigger's triggers (trigger.h); NULL
                                * until first used */
    json_t *crontabs;          /* scrontab (crontab.h): {"<uid>": {"text",
                                * "disabled":[line], "job_ids":[id]}};
                                * NULL: none yet */
    struct mail *mail;         /* job mail (mail.h); NULL before
                                * mail_init() */
    struct prolog_ctld *prolog_ctld; /* PrologSlurmctld/EpilogSlurmctld
                                      * (prolog_ctld.h); NULL before
                                      * prolog_ctld_init() */
    struct ctld_priority *priority; /* priorities, fair-share usage
                                     * (priority.h) */
    bitmap_t *planned_nodes;   /* nodes the last pass planned a waiting
                                * job on (Slurm's PLANNED node state) */
    time_t gang_last;          /* the gang scheduler's last rotation
                                * (gang.h) */
    struct sched_predict *predict; /* each user's last two run times, for
                                    * drover_backfill=predict (learnt as
                                    * jobs end: event.c); NULL until the
                                    * first */
};

/* Seconds since the epoch, read once per callback (style.md: time is a
 * parameter below this level). */
time_t ctld_now(struct ctld *ctld);

/* Respond to 'req' with 'body' (stolen) once everything journaled so far
 * is on disk.  A failed flush answers EDRV_JOURNAL_WRITE instead.
 */
void ctld_respond_durable(struct ctld *ctld, struct proto_req *req,
                          json_t *body);

/* As ctld_respond_durable(), and if the flush fails, call undo(ctld, id)
 * first, so the change the requester is told failed is withdrawn.
 */
void ctld_respond_durable_undo(struct ctld *ctld, struct proto_req *req,
                               json_t *body,
                               void (*undo)(struct ctld *, uint32_t),
                               uint32_t id);

/* Is what PrivateData= bit 'what' (enum conf_private) covers hidden from
 * the sender of 'req'?  True when the bit is set and the sender is not an
 * operator or administrator (Slurm's validate_operator()).
 */
bool ctld_private(const struct ctld *ctld, struct proto_req *req,
                  uint32_t what);

/* Is the sender of 'req' root or SlurmUser (Slurm's validate_slurm_user():
 * RootOnly= partitions, every partition visible)? */
bool ctld_req_slurm_user(struct proto_req *req);

/* May the sender of 'req' place 'job' (its uid, account and QOS) in
 * partition 'cp'?  part_access_check() with the controller's group cache;
 * returns 0, or -1 with errno (EDRV_ACCESS_DENIED,
 * EDRV_JOB_MISSING_REQUIRED_PARTITION_GROUP, EDRV_INVALID_ACCOUNT,
 * EDRV_INVALID_QOS) and the reason in 'error' (also logged).
 */
int ctld_part_access(struct ctld *ctld, struct proto_req *req,
                     const struct job *job, const struct conf_partition *cp,
                     drv_error_t *error);

/* rpc_job.c: every check job_submit makes of description 'body' (its
 * owner the sender of 'req', or "user_id" for root and SlurmUser): a new
 * job with no id yet (the caller owns it), or NULL with errno (EDRV_*)
 * and 'error' set.  scrontab's entries are submitted the same way. */
struct job *ctld_submit_prepare(struct ctld *ctld, proto_req_t *req,
                                json_t *body, drv_error_t *error);

/* MaxJobCount: may 'job' (prepared) enter the table?  0, or -1 with
 * errno and 'error' set. */
int ctld_submit_count(struct ctld *ctld, const struct job *job,
                      drv_error_t *error);

/* A prepared 'job' enters the queue at 'now' with the next job id
 * (CTLD_EV_JOB_SUBMITTED; the table owns it from now on, also when this
 * fails), eligible at 'begin' when that is later (reason BeginTime; 0:
 * none).  Returns 0, or -1 when the id was in use. */
int ctld_submit_enter(struct ctld *ctld, struct job *job, time_t now,
                      time_t begin);

/* The id the next job gets (job_id.h: FirstJobId to MaxJobId, wrapping,
 * ids in the table skipped), without taking it: the event that enters
 * the job moves the sequence past it.  0 when every id is in use. */
uint32_t ctld_job_id_next(struct ctld *ctld);

/* Add 'job' (not in the table; its id and array fields set) to the job
 * table and its array's index (array.h), raising next_job_id past its
 * id.  The one way into the table. */
void ctld_job_link(struct ctld *ctld, struct job *job);

/* ctld_job_link() for a job new to the controller (submitted, or split
 * from its array): the id sequence goes on after its id, also when the
 * ids wrapped at MaxJobId and it lies below the sequence (job_id.h). */
void ctld_job_enter(struct ctld *ctld, struct job *job);

/* The jobs that may be pending, running or completing, by id, so that a
 * scheduling pass does not walk the ended ones the table keeps until
 * MinJobAge (100,000 records, two walks a pass, were most of a pass in a
 * launch storm: bench/storm).  ctld_apply() and ctld_job_link() note
 * every job they touch, in each set of enum ctld_set whose state it is
 * in, and in the purge heap once it has ended; the walk drops those no
 * longer in the set's state:
 *     for (j = ctld_live_first(ctld); j; j = ctld_live_next(ctld, j))
 * in id order.  A job noted again comes back. */
void ctld_live_note(struct ctld *ctld, const struct job *job);
/* The first job of set 's' with id 'from' or above, in its state; NULL:
 * none.  ctld_set_first(): from 0; ctld_set_next(): after 'job'. */
struct job *ctld_set_from(struct ctld *ctld, enum ctld_set s, uint64_t from);
struct job *ctld_set_first(struct ctld *ctld, enum ctld_set s);
struct job *ctld_set_next(struct ctld *ctld, enum ctld_set s,
                          const struct job *job);
/* The ended job that has been so longest, if it ended at or before
 * 'before' (seconds since the epoch; MinJobAge ago): taken out of the
 * purge heap and returned; else NULL.  Costs O(log jobs) a job, whatever
 * the table holds.  Jobs not ended after all (requeued) are dropped on the
 * way, and come back when they end. */
struct job *ctld_purge_next(struct ctld *ctld, time_t before);
/* Free the sets and the purge heap (at exit; the jobs stay). */
void ctld_job_sets_free(struct ctld *ctld);
struct job *ctld_live_first(struct ctld *ctld);
struct job *ctld_live_next(struct ctld *ctld, const struct job *job);
/* The same for the waiting jobs (pending or held: no allocation, not
 * ended), which a pass collects: with 40,000 jobs running it walked them
 * all to find a few pending records. */
struct job *ctld_waiting_first(struct ctld *ctld);
struct job *ctld_waiting_next(struct ctld *ctld, const struct job *job);
/* fn(job, arg) for each job holding an allocation (running, suspended or
 * completing), in id order: what each pass lays on its plan.  A set of
 * them like the two above, walked a word of ids at a time with each
 * job's record prefetched before fn reads it: the walk of 40,000 running
 * jobs beside 60,000 pending was a quarter of the controller's CPU
 * (bench/scale), mostly cache misses.  fn must not change the table. */
void ctld_running_each(struct ctld *ctld,
                       void (*fn)(struct job *job, void *arg), void *arg);
/* The jobs of user 'uid' in the table, in no order (NULL: none), and
 * how many in *count: `squeue -u` of a user with a few jobs among
 * 100,000 walked them all (job_listing.c). */
struct job *ctld_user_jobs(struct ctld *ctld, uid_t uid, size_t *count);

/* Free the owners' lists (at exit; the jobs stay). */
void ctld_user_jobs_free(struct ctld *ctld);

/* A positive whole number from droverctld's environment variable 'name'
 * (tests and benches tune counts and slices with them:
 * DROVER_SNAPSHOT_RECORDS, DROVER_LISTING_SLICE_US), else 'dflt'. */
uint64_t ctld_env_count(const char *name, uint64_t dflt);

/* The first live job of id 'from' or above (NULL: none). */
struct job *ctld_live_from(struct ctld *ctld, uint64_t from);

/* Take 'job' out of the table and its array's index; listings being
 * written step over it (job_listing.h).  The caller frees it.  The one
 * way out of the table. */
void ctld_job_unlink(struct ctld *ctld, struct job *job);

/* Find a job by id; NULL if none. */
struct job *ctld_job_find(struct ctld *ctld, uint32_t id);

/* The job a request's "job_id" names, when the sender may act on it:
 * its owner, operators and administrators.  NULL with *errnum set:
 * EDRV_PROTOCOL_MALFORMED (no job_id), EDRV_INVALID_JOB_ID (no such job),
 * or 'denied_errnum' for anyone else (Slurm answers some requests with
 * "Access denied", others with "Invalid user id"). */
struct job *ctld_job_for_req(struct ctld *ctld, proto_req_t *req,
                             int denied_errnum, int *errnum);

/* Put 'job' (finished, or pending after a failed launch) back in the
 * queue at 'now' (CTLD_EV_JOB_REQUEUED), eligible at 'eligible';
 * 'restart' counts it in Restarts. */
void ctld_job_requeue(struct ctld *ctld, struct job *job, time_t now,
                      time_t eligible, bool restart);

/* Ask for a scheduling pass on the next loop iteration. */
void scheduler_request(struct ctld *ctld);

/* Send 'job' (running, allocated, not interactive) its batch_launch: the
 * batch host starts its script.  Asynchronous; a refused launch requeues
 * it (scheduler.c). */
void scheduler_launch(struct ctld *ctld, struct job *job);

/* Start the requested pass on the next loop turn (called after the
 * journal flush). */
void scheduler_arm(struct ctld *ctld);

/* Run one scheduling pass now (starts jobs, sets pending reasons). */
void scheduler_run(struct ctld *ctld);

/* The pass's knobs from SchedulerParameters (bf_max_job_test, bf_window,
 * bf_resolution: 60 s unless set, as Slurm), and the reservations not
 * ended at 'now' but 'except' (the one whose jobs the pass is for; NULL)
 * as holds (resv_holds(): free opts->holds with resv_holds_free()); no
 * admit gate.  The scheduler and sbatch --test-only plan alike. */
void scheduler_opts(struct ctld *ctld, const struct resv *except,
                    time_t now, struct sched_pass_opts *opts);

/* A job left its node(s) (completion confirmed): its final state from
 * 'status' (raw wait status) as CTLD_EV_JOB_ENDED, or CTLD_EV_JOB_REQUEUED
 * when a requeue was asked for or its node failed and it may requeue.
 */
void ctld_job_finished(struct ctld *ctld, struct job *job, int status,
                       bool timed_out, bool node_failed);

/* As ctld_job_finished(), with the batch host 'node''s completion
 * 'report' (borrowed; its usage goes to the batch step). */
void ctld_job_completed(struct ctld *ctld, struct job *job, int status,
                        bool timed_out, bool node_failed, const char *node,
                        json_t *report);

/* node_health.c: a registration's HealthCheckProgram result ('body''s
 * "health_ok" and "health_reason"; nothing when absent) for node index
 * 'node'.  A failure drains the node with the program's output as the
 * reason ([SlurmUser@time]) unless it is drained or down already; the
 * node's later passing run undrains it when ReturnToService is 1 or 2,
 * and only if the controller drained it for a failed check (not an
 * administrator's drain). */
void ctld_node_health(struct ctld *ctld, long node, json_t *body);

/* Drain node 'node' with 'reason' ("Prolog error", "Epilog error": Slurm's
 * words for a failed Prolog= or Epilog=), by SlurmUser, now; a node
 * drained for that reason already is left as it is.  (ctld_node_health()
 * drains for every id of a registration's "epilog_failed".) */
void ctld_node_drain_error(struct ctld *ctld, long node, const char *reason);

/* node_health.c: the answer to node 'node''s registration: {"state":
 * its base state (IDLE, MIXED, ALLOCATED, DOWN, UNKNOWN), "drain"},
 * which droverd's HealthCheckNodeState test reads.  New reference. */
json_t *ctld_node_health_answer(struct ctld *ctld, long node);

/* The completion of 'job_id''s batch step, 'c' (job_complete's body or
 * a step_complete with the batch step's id), from node index 'node'
 * (rpc_node.c).  Reports of an earlier run or another node are ignored. */
void ctld_job_complete(struct ctld *ctld, json_t *c, long node);

/* A registration's "gpus" (droverd with gres.conf AutoDetect=nvml: the
 * GPUs it found, [{index, type, file, uuid}]; NULL: none sent) for node
 * 'node': kept for node_info (their UUIDs), and fewer than slurm.conf's
 * Gres=gpu count drains the node with Slurm's reason, "gres/gpu count
 * reported lower than configured (2 < 4)", by SlurmUser (as Slurm's
 * gres_node_config_validate); a node already drained keeps its reason.
 * More than configured: the excess is not used (as Slurm). */
void ctld_node_gpus_reported(struct ctld *ctld, long node, json_t *gpus);

/* Send a terminate (or signal) request for a running job to its batch
 * host.  Asynchronous; failures are logged.
 */
void ctld_job_signal_node(struct ctld *ctld, struct job *job, int signo,
                          bool terminate);

/* Cancel 'job' for user 'by' (scancel): a pending job ends CANCELLED now
 * (its pending reason stays, as in Slurm), a running one is killed on its
 * nodes and ends CANCELLED when they confirm (CTLD_EV_JOB_CANCELLED); a
 * job already finished is left alone.
 */
void ctld_job_cancel(struct ctld *ctld, struct job *job, uid_t by);

/* Have every node of 'job' send 'signo' to all of the job's processes
 * there: its batch script and every step (job_signal with "all"; suspend,
 * resume, a preemption's SIGTERM).  Failures are logged. */
void ctld_job_signal_all(struct ctld *ctld, const struct job *job,
                         int signo);

/* The same for the job's steps only, not its batch script (scancel -s
 * without -b or -f, as Slurm's). */
void ctld_job_signal_steps(struct ctld *ctld, const struct job *job,
                           int signo);

/* How long 'job' may run past its time limit before it is ended:
 * OverTimeLimit of its partition, else the global one, in seconds; -1
 * for UNLIMITED.  Its TimeLimit stays the one asked for; the node (batch
 * jobs) or interactive_check_limits() ends it that much later. */
int64_t ctld_job_over_time_s(const struct ctld *ctld, const struct job *job);

/* Tell the batch host a running job's new time limit (asynchronous), with
 * its OverTimeLimit. */
void ctld_job_set_node_limit(struct ctld *ctld, struct job *job);

/* Tell the node of entry 'e' of 'job''s allocation that the job ended
 * (as Slurm's REQUEST_TERMINATE_JOB): its steps there are killed (with
 * 'time_limit', their srun get Slurm's "CANCELLED AT ... DUE TO TIME
 * LIMIT" line) and droverd runs Epilog= with the job's environment
 * (prolog_env.h).  Asynchronous; an unreachable node is only logged. */
void ctld_job_end_on_node(struct ctld *ctld, const struct job *job,
                          uint32_t e, bool time_limit);

/* Tell node 'node' to kill job 'job_id', which the controller no longer
 * runs there (it was ended while the node was unreachable): only its run
 * 'run_id' when not 0 (the node leaves a later run alone), else any. */
void ctld_node_terminate_stray(struct ctld *ctld, long node, uint32_t job_id,
                               uint32_t run_id);

/* rpc_node.c: the ids of the jobs whose allocation holds node 'node', from
 * the node table's index (node_table_jobs_attach()), in *n.  Stale entries
 * are pruned as they are met.  A copy (caller frees; NULL when *n is 0),
 * so the caller may end jobs while it walks it.  O(the node's jobs), not
 * O(all jobs): a registration storm of 10,000 nodes stays linear. */
uint32_t *ctld_node_jobs(struct ctld *ctld, long node, size_t *n);

/* Answer the waiting answers 'acks' (a list ctld_flush_cb() took): with
 * their bodies when 'errnum' is 0, else with errnum and 'text' (NULL:
 * drv_strerror(errnum)), withdrawing each change that has an undo.  The
 * list is freed.  ha.c answers through it when an entry commits. */
void ctld_answer_acks(struct ctld *ctld, void *acks, int errnum,
                      const char *text);

/* List 'b' appended to list 'a' (either may be NULL); returns the head. */
void *ctld_acks_join(void *a, void *b);

/* This controller now leads its Raft group (ha.h) with every entry
 * applied: it acts as a controller that has just restarted (nodes get
 * SlurmdTimeout to register, accounting gets the records followed,
 * the scheduler runs). */
void ctld_take_over(struct ctld *ctld);

/* Does this controller change state and answer requests: alone, or the
 * acting leader of its Raft group? */
bool ctld_active(const struct ctld *ctld);

/* The journal flush before the loop blocks (uv_prepare callback). */
void ctld_flush_cb(uv_prepare_t *h);

/* The same flush right after the loop's I/O (uv_check callback), when
 * requests of this turn wait for it to be answered: they are answered
 * before the timers of the next turn (a scheduling pass, the periodic
 * checks) run, not after. */
void ctld_answers_cb(uv_check_t *h);

/* Priority of a job that is not held: earlier submissions first, less
 * its nice value (Slurm's priority/basic order). */
uint32_t ctld_job_base_priority(const struct job *job);

/* PriorityTier of 'job''s partition (0 when unknown). */
uint32_t ctld_job_tier(struct ctld *ctld, const struct job *job);

/* How many jobs may share each CPU 'job' gets: its partition's
 * OverSubscribe N under FORCE, or under YES when it asked with
 * --oversubscribe; 0 otherwise (no sharing).  The scheduler's request
 * and the gang scheduler (gang.h) both read it. */
uint32_t ctld_job_oversubscribe(struct ctld *ctld, const struct job *job);

/* The scheduler's order of pending jobs, for qsort_r() over struct job *
 * with 'arg' the ctld: the partition's PriorityTier first (highest first,
 * as Slurm), then the priority, then the job id. */
int ctld_job_order(const void *a, const void *b, void *arg);

/* rpc_step_info.c: one node's step_complete report (docs/protocol.md)
 * from node index 'node': usage folded into the step, which ends once
 * every node reported; journaled.  Unknown jobs/steps and repeated
 * reports are ignored (droverd resends until acknowledged). */
void ctld_step_complete(struct ctld *ctld, json_t *report, long node);

/* rpc_step_info.c: node 'node' registered, running the steps in
 * 'running' ([{"job_id","step_id"}]).  A running srun step older than 5 s
 * that still waits for this node's report but is not among them lost its
 * tasks here (the node daemon restarted): it ends NODE_FAIL and its other
 * nodes kill their tasks. */
void ctld_steps_reconcile(struct ctld *ctld, long node, json_t *running,
                          time_t now);

/* rpc_step_info.c: a new record of srun step 'step_id' of running 'job'
 * (not yet in job->steps: CTLD_EV_STEP_STARTED adds it) from
 * step_create's 'body': named after
 * argv[0]'s basename, with srun_host/srun_pid when given, on the nodes of
 * 'claim' (step_res.h; owned by the record from now on), all of which
 * are to report. */
struct step_claim;
struct job_step *ctld_step_record(struct ctld *ctld, struct job *job,
                                  uint32_t step_id, json_t *body,
                                  struct step_claim *claim, uint32_t ntasks);

/* Handler tables (rpc_job.c, rpc_node.c), concatenated by main.c. */
extern const struct proto_handler rpc_job_handlers[];
extern const struct proto_handler rpc_node_handlers[];
extern const struct proto_handler rpc_config_handlers[]; /* rpc_config.c */
/* rpc_reconfig.c: reconfigure (scontrol reconfigure). */
extern const struct proto_handler rpc_reconfig_handlers[];

/* main.c: the log level from SlurmctldDebug (info when unset) raised by
 * droverctld's -v count; at start and after a reconfigure. */
void ctld_log_level_set(const struct ctld *ctld);
extern const struct proto_handler rpc_step_handlers[]; /* rpc_step.c */
/* step_info, step_cancel, step_complete (rpc_step_info.c) */
extern const struct proto_handler rpc_step_info_handlers[];

#endif /* !DROVER_CTLD_CTLD_H */
