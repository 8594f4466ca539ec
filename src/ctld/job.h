/* SPDX-License-Identifier: Apache-2.0
 *
 * job.h - the controller's job record, its states and its JSON shapes
 *
 * One struct job per batch job.  The same JSON shape serves job_info
 * responses, the journal and snapshots (docs/protocol.md).
 */
#ifndef DROVER_CTLD_JOB_H
#define DROVER_CTLD_JOB_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <jansson.h>
#include <uthash.h>

#include "common/error.h"
#include "proto/job_state.h"
#include "proto/jsonw.h"
#include "ctld/job_place.h"
#include "sched/limits.h"
#include "sched/sched.h"

struct job_array;
struct job_depend;
struct job_step;


/* The exit status of a job whose batch step met the OOM killer: Slurm's
 * SIG_OOM (253) taken as a wait status, shown as ExitCode 0:125. */
#define JOB_STATUS_OOM 253

/* Pending reasons, with Slurm's spelling. */
#define JOB_REASONS(X)                                                         \
    X(NONE, "None")                                                            \
    X(RESOURCES, "Resources")                                                  \
    X(PRIORITY, "Priority")                                                    \
    X(HELD_USER, "JobHeldUser")                                                \
    X(HELD_ADMIN, "JobHeldAdmin")                                              \
    X(BEGIN_TIME, "BeginTime")                                                 \
    X(NODE_NOT_AVAIL, "ReqNodeNotAvail")                                       \
    X(PART_NODE_LIMIT, "PartitionNodeLimit")                                   \
    X(PART_TIME_LIMIT, "PartitionTimeLimit")                                   \
    X(PN_MEM_LIMIT, "MaxMemPerLimit")                                          \
    X(PART_DOWN, "PartitionDown")                                              \
    X(PART_INACTIVE, "PartitionInactive")                                      \
    X(LAUNCH_FAILED, "launch failed requeued held")                           \
    X(NODE_DOWN, "NodeDown")                                                   \
    X(DEPENDENCY, "Dependency")                                                \
    X(DEP_NEVER, "DependencyNeverSatisfied")                                   \
    X(ARRAY_TASK_LIMIT, "JobArrayTaskLimit")                                   \
    X(RESERVATION, "Reservation")                                              \
    X(RESV_NODES, "ReqNodeNotAvail, May be reserved for other job")            \
    X(RESV_MAINT, "ReqNodeNotAvail, Reserved for maintenance")                 \
    LIMITS_REASONS(X) /* association/QOS limits, sched/limits.h */

enum job_reason {
#define X(name, text) JOB_REASON_##name,
    JOB_REASONS(X)
#undef X
};

/* The job reason of limit 'r' (not LIMITS_OK): same order in both lists. */
#define JOB_REASON_OF_LIMIT(r)                                                 \
    ((enum job_reason)(JOB_REASON_QOS_GRP_JOBS + ((r) - LIMITS_QOS_GRP_JOBS)))

/* The container options a submission or a step may carry (--container
 * and Pyxis's --container-image, --container-mounts, --container-workdir),
 * passed on to droverd as given (src/noded/oci.h); NULL-terminated. */
extern const char *const job_container_keys[];

struct job {
    /* 4-byte members, then the flags, so the record packs tight (a held
     * job's whole cost in the controller is about this record) */
    uint32_t id;
    uid_t uid;
    gid_t gid;
    enum job_state state;
    enum job_reason reason;
    uint32_t priority;     /* 0 while held */
    int nice;
    int exit_status;       /* raw wait status */
    uint32_t restarts;
    uint32_t run_id;       /* which run of the job this is: +1 at every
                            * start, never reused (journaled); batch_launch
                            * carries it and droverd's reports echo it, so
                            * a report of an earlier run is told apart */
    uint32_t next_step_id; /* srun: the id the next step gets */
    uint32_t mail_type;    /* --mail-type: MAIL_* bits (common/mailtype.h),
                            * 0 = none */
    uint32_t mail_sent;    /* TIME_LIMIT_50/80/90 mails this run has had
                            * (mail.h; not journaled) */
    uint32_t plan_s;       /* running: the time the scheduler planned it
                            * for when it started (a prediction,
                            * src/sched/backfill.h), 0 = its limit; not
                            * journaled */
    uint32_t first_plan;   /* pending: the first start planned for it
                            * (epoch seconds; the slip guard), 0 = none;
                            * not journaled */
    /* What every scheduling pass reads of each running job, in one cache
     * line with preempt_suspended (plan_s and id in the one before): the
     * pass's walk of 40,000 running jobs missed five lines of each. */
    struct sched_alloc *alloc; /* while running/completing */
    time_t start_time;
    int64_t time_limit_s;  /* TIME_INFINITE for none */
    bool completing;       /* ended or signalled; node has not confirmed */
    bool configuring;      /* running, PrologSlurmctld not yet passed:
                            * not launched (Slurm's CONFIGURING flag,
                            * prolog_ctld.h) */
    bool cancel_requested; /* scancel of a running job: end as CANCELLED */
    bool requeue_requested;/* scontrol requeue of a running job */
    bool hold;
    bool hold_admin;
    bool requeue;          /* --requeue (Slurm's default) */
    bool no_kill;          /* --no-kill: a failed node other than the
                            * batch host leaves the job, which goes on */
    bool interactive;      /* salloc/srun allocation: no batch script */
    bool preempted;        /* being preempted (preempt.h) until it ends or
                            * is requeued */
    bool preempt_kill_sent;/* preempt_grace_check() ended it (not
                            * journaled) */
    bool preempt_suspended;/* suspended by preemption (PreemptMode=
                            * SUSPEND): its CPUs are given back until it
                            * resumes (sched_alloc_suspend()) */
    uint32_t preemptor_id; /* the job that suspended it, while that one
                            * pends (not journaled) */
    bool gang_suspended;   /* suspended by the gang scheduler (gang.h):
                            * keeps its CPUs, resumes in its turn */
    bool oversub_req;      /* --oversubscribe: shares CPUs in an
                            * OverSubscribe=YES partition */
    time_t gang_since;     /* gang.h: its last suspension or resume by
                            * the gang scheduler, or its start (not
                            * journaled) */
    bool priority_set;     /* scontrol update Priority= by an operator:
                            * kept, not computed again */
    int64_t cancelled_by;  /* uid that cancelled it (sacct "CANCELLED by
                            * N"), -1 when not cancelled by a user */
    const char *name;
    const char *user_name;
    const char *group_name;
    const char *partition;
    time_t submit_time;
    time_t eligible_time;
    time_t end_time;
    time_t preempt_kill_at;/* preempted with a GraceTime: when it is
                            * killed (preempt.h), 0 when not */
    time_t suspend_time;   /* the last suspend or resume (scontrol
                            * suspend/resume), 0 if never */
    int64_t pre_sus_s;     /* seconds it ran before its last suspension
                            * (Slurm's SecsPreSuspend) */
    time_t sched_start_time; /* pending: the scheduler's planned start
                              * (0 unknown); not journaled */
    char *sched_nodes;       /* pending: nodes the plan reserves, or NULL */
    struct sched_request req;
    struct job_place place; /* -w -x -C --begin --time-min --signal
                             * --open-mode (job_place.h) */
    const char *gres;            /* the request as given: "gpu:2" */
    const char *gpu_type;        /* req.gpu_type points here */
    uint32_t shards_per_node;    /* --gres=shard:N, or */
    uint32_t mps_per_node;       /* --gres=mps:N: req.shards_per_node and
                                  * req.share_name follow these two */
    uint32_t gpus_per_socket;    /* --gpus-per-socket: GPUs per socket of
                                  * req.sockets_per_node; req.gpus_per_node
                                  * is the two multiplied (job_submit) */
    char *nodes;           /* allocated hostlist, NULL when none */
    char *last_nodes;      /* nodes of the last run, kept after it ends */
    char *last_alloc_json; /* compact JSON of the last allocation */
    struct job_step *steps; /* step.h: batch and srun steps, kept until
                             * the job is purged */
    const char *work_dir;
    const char *std_out;
    const char *std_err;
    const char *std_in;
    const char *comment;
    const char *mail_user;       /* --mail-user, or the default the
                                  * controller gave it (mail.h) */
    const char *account;         /* -A as given; no accounting checks it */
    const char *qos;             /* -q as given; NULL shows as "normal" */
    const char *reservation;     /* --reservation (resv.h), NULL: none */
    const char *command;         /* the script's path, NULL for --wrap/stdin */
    const char *submit_host;
    const char *cron_spec;       /* scrontab: the entry's time
                                  * specification ("*\/5 * * * *"); NULL
                                  * for any other job (crontab.h) */
    uint32_t cron_line_start;    /* scrontab: the entry's first and last */
    uint32_t cron_line_end;      /* line in its crontab (1-based: #SCRON
                                  * lines, then the entry) */
    json_t *launch;        /* {"script","argv","env"}; dropped when done */
    struct job_array *array;   /* array.h; NULL when not an array */
    struct job_depend *depend; /* depend.h; NULL when no dependency */
    time_t alive_at;       /* InactiveLimit: when the allocation's command
                            * (salloc, srun) last said it is alive
                            * (job_alive); 0: it never did (not watched,
                            * and not kept over a restart) */
    struct job *user_prev, *user_next; /* its owner's jobs (ctld.h:
                                        * ctld_user_jobs()) */
    UT_hash_handle hh;
};

/* Set the text field 'field' of a job (one of its const char * members:
 * name, user_name, group_name, partition, gres, gpu_type, work_dir,
 * std_out, std_err, std_in, comment, mail_user, account, qos, reservation, command,
 * submit_host, cron_spec)
 * to 'value' (copied; NULL clears it).  Jobs share one copy of equal texts
 * (common/strpool.h), so these members are never freed or assigned
 * directly; job_destroy() releases them.
 */
void job_set_str(const char **field, const char *value);

/* Seconds 'job' has run by 'now', its suspensions left out (Slurm's
 * RunTime): 0 before it started; up to its end once it ended. */
int64_t job_run_time(const struct job *job, time_t now);

/* The reason's text ("Resources").  Static strings. */
const char *job_reason_string(enum job_reason r);

/* The reason whose text is 's' (job_reason_string()'s); -1 when none is
 * ('s' may be NULL). */
int job_reason_parse(const char *s);

/* Which parts job_to_json() writes. */
enum job_json_flags {
    JOB_JSON_LAUNCH = 1, /* include "launch" (script, argv, env) */
    JOB_JSON_INFO = 2,   /* derived fields for commands (names, TRES, ...) */
};

/* Serialize.  'node_names' maps alloc node indexes to names (borrowed).
 * Returns a new reference (caller decrefs), NULL on ENOMEM.
 */
json_t *job_to_json(const struct job *job, const char *const *node_names,
                    int flags);

/* The record job_to_json() makes, put into 'out' instead (a jansson
 * object, or a writer inside an object it opened: listings). */
void job_fields_put(const struct job *job, const char *const *node_names,
                    int flags, const struct jsonw_sink *out);

/* One stored field of the record as job_to_json() writes it, for answers
 * that carry only the keys asked for (job_info "fields").  Covers the
 * scalar fields (ids, states, strings, counts, times); the groups (alloc,
 * arrays, dependencies, placement, steps) are written by their modules.
 * job_field_lookup() returns a handle for 'key', or -1.
 */
int job_field_lookup(const char *key);

/* The key of field 'field' (from job_field_lookup()).  Static string. */
const char *job_field_key(int field);

/* Put field 'field' (from job_field_lookup()) of 'job' into 'out'; like
 * job_to_json(), unset strings and zero optional counts are left out.
 */
void job_field_put(const struct job *job, int field,
                   const struct jsonw_sink *out);

/* Apply the fields present in 'o' to 'job' (used for journal replay and
 * submission).  'node_index' resolves allocation node names to indexes
 * and gives its GPU count (returns -1 if unknown).  Returns 0, or -1 with 'error' set.
 */
int job_apply_json(struct job *job, json_t *o,
                   long (*node_index)(const char *name, uint32_t *ngpus, void *arg), void *arg,
                   drv_error_t *error);

/* New pending job with defaults (requeue on, 1 node, 1 task, 1 cpu). */
struct job *job_create(uint32_t id);

/* NULL is a no-op. */
void job_destroy(struct job *job);

/* JSON array of the allocation, [{"node","cpus","mem_mib","gpus"}], with
 * "shards" where the node's entry has shards (of its one GPU in "gpus").
 * New reference; NULL when there is no allocation.
 */
json_t *job_alloc_to_json(const struct sched_alloc *a,
                          const char *const *node_names);

/* The allocation job_alloc_to_json() wrote, its node names resolved by
 * 'node_index' (as in job_apply_json()).  Returns a new allocation (free
 * with sched_alloc_destroy()), or NULL with 'error' set: not a non-empty
 * list, an unknown node, a bad GPU set, or out of memory.
 */
struct sched_alloc *job_alloc_from_json(json_t *arr,
                                       long (*node_index)(const char *,
                                                          uint32_t *, void *),
                                       void *arg, drv_error_t *error);

#endif /* !DROVER_CTLD_JOB_H */
