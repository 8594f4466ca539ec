/* SPDX-License-Identifier: Apache-2.0
 *
 * noded.h - the node daemon's context and its subsystems
 *
 * One droverd per node; several may run on one host, each with its own
 * name (-N), port and spool directory.  One libuv loop owns everything:
 * the RPC server (batch_launch, job_signal, ping, step_launch, ...), one
 * droverstepd per step it runs, the batch script's included (stepmgr.c,
 * stepd.h; in the batch step's droverstepd launch.c forks and execs the
 * script as the job's user in the job's cgroup (cgroup.c) and jobs.c
 * keeps its time limit, signals and completion) and registration with
 * the controller (register.c: at start and as a heartbeat, carrying
 * unacknowledged completions so none is lost while the controller is
 * down).
 */
#ifndef DROVER_NODED_NODED_H
#define DROVER_NODED_NODED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <jansson.h>
#include <uthash.h>
#include <uv.h>

#include "conf/conf.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "proto/server.h"
#include "proto/tls.h"

struct cgroup_root;
struct cgroup_step;

struct oci_step;

struct nd_job {
    uint32_t id;
    uint32_t run_id;         /* the controller's run of the job (0: not
                              * sent); echoed in reports */
    pid_t pid;               /* also the process group (setsid) */
    struct cgroup_step *cg;  /* job_<id>/step_batch, or NULL (no cgroups) */
    char *err_path;          /* the batch script's stderr file (absolute) */
    struct oci_step *oci;    /* --container (oci.h), or NULL */
    uid_t uid;               /* the job's user */
    gid_t gid;               /* and group */
    int64_t time_limit_s;    /* -1: none */
    int64_t over_time_s;     /* OverTimeLimit: the job is killed this long
                              * after its time limit; -1: never */
    uint64_t start_ms;       /* uv_now() at launch */
    uint32_t kill_wait_s;
    int signal_num;          /* --signal: 0 none */
    int signal_secs;         /*   seconds before the time limit */
    bool signal_batch;       /*   B: only the batch shell, else its group */
    bool timed_out;
    bool terminating;
    int open_handles;        /* timers not yet closed at teardown */
    struct noded *nd;
    uv_timer_t limit_timer;  /* time limit reached: SIGTERM */
    uv_timer_t kill_timer;   /* KillWait later: SIGKILL */
    uv_timer_t signal_timer; /* --signal: signal_secs before the limit */
    UT_hash_handle hh;
};

struct noded {
    uv_loop_t *loop;
    struct slurm_conf *conf;
    const struct conf_node *node;
    proto_auth_t *auth;
    proto_server_t *server;
    char *spool_dir;
    struct cgroup_root *cgroup; /* cgroup.c: NULL when jobs run without */
    struct nd_health *health; /* health.c: NULL without HealthCheckProgram */
    struct nd_prolog *prolog; /* prolog.c: NULL until a job needs it */
    struct nd_metrics *metrics; /* metrics_http.c: NULL when not serving */
    struct nd_bcast *bcast;   /* bcast.c: NULL until a file_bcast */
    char *jc_base;            /* job_container/tmpfs: this node's BasePath
                               * (jobcontainer.h), NULL: none */
    struct nd_job *jobs;      /* uthash by id */
    struct nd_step *steps;    /* droverstepd (step.c): its step */
    proto_tls_ctx_t *io_tls;  /* droverstepd: the TLS server context of
                               * the step's I/O to srun and sattach
                               * (stepd_link.h), NULL: plain */
    struct nd_stepd *stepds;  /* droverd (stepmgr.c): its step processes */
    char *pmix_dir;           /* droverstepd: the step's PMIx directory */
    json_t *done;             /* completions not yet acknowledged */
    json_t *step_conf;        /* droverd: conf_step_to_json() of its
                               * configuration, sent with each launch */
    char **retired;           /* strings a reconfigure replaced, kept
                               * until exit (reconfig.c) */
    size_t retired_count;
    int log_verbose;          /* -v count, added to SlurmdDebug */
    uv_timer_t register_timer;
    uv_fs_event_t spool_watch;  /* stepmgr.c: step reports appearing */
    uv_signal_t sigchld;
    uv_signal_t sigterm;
    uv_signal_t sigint;
    uid_t slurm_uid;
    time_t start_time;
    bool register_in_flight;
    size_t ctld_idx;           /* the SlurmctldHost line tried now: the
                                * next one after a failure (register.c) */
    bool register_again;      /* register_now() while one was in flight */
};

/* reconfig.c: node_reconfigure (a reconfigure's part on this node). */
extern const struct proto_handler noded_reconfig_handlers[];

/* main.c: the log level from SlurmdDebug (info when unset) raised by
 * droverd's -v count; at start and after a reconfigure. */
void noded_log_level_set(const struct noded *nd);

/* register.c: call 'type' with 'body' (stolen) at the controller that
 * registrations go to (SlurmctldHost line ctld_idx; a failure moves on to
 * the next line for the next call), MessageTimeout.  As
 * proto_call_async(): 0 and 'cb' called once later, or -1 (errno) and
 * never. */
int noded_ctld_call(struct noded *nd, const char *type, json_t *body,
                    proto_call_f cb, void *arg);

/* launch.c, in the batch step's droverstepd: start the batch script of
 * 'job' (batch_launch's job object, with "launch").  Returns the new job record (owned by nd->jobs), or NULL with
 * 'error' set.
 */
struct nd_job *launch_batch(struct noded *nd, json_t *job, drv_error_t *error);

/* child.c: in a forked child before exec.  child_reset(): default
 * signal dispositions, empty mask, new session, the soft open files limit
 * droverd started with (daemon_restore_nofile).  child_become_user():
 * root takes the user's groups, gid and uid; an unprivileged droverd may
 * only run its own uid (else -1, errno EPERM).  Returns 0 or -1 (errno).
 */
void child_reset(void);
/* child.c: close every descriptor above stderr (close_range(2); one
 * syscall, and none above the old 1024 limit is left open to the job). */
void child_close_fds(void);
int child_become_user(const char *user, uid_t uid, gid_t gid);
/* child.c: in the parent, before forking children that will
 * child_become_user('user', ..., 'gid'): resolve the user's supplementary
 * groups (getgrouplist(), NSS) here, so that the child does not call NSS
 * (see child.c).  Kept for the last user and gid; a child of another user
 * falls back to initgroups().  Failures are left to that fallback. */
void child_user_groups(const char *user, gid_t gid);
/* child.c: the job's mount namespace (jc_job_enter(): job_container/tmpfs)
 * that child_become_user() enters first (setns), so the batch script and
 * every task see the job's private /tmp and /dev/shm; -1: none. */
void child_set_mnt_ns(int fd);

/* step.c, in droverstepd (stepd.h): the step's tasks.  step_launch()
 * forks the tasks of one node described by a step_launch body and streams
 * their output and exits to srun; returns 0, or -1 with 'error' set.
 * step_reaped() takes a child's exit status; false when 'pid' is no step
 * task.  droverd itself reaches steps through stepmgr (stepd.h).
 */
struct rusage;
int step_launch(struct noded *nd, json_t *body, drv_error_t *error);
/* 'ru' is the task's wait4() usage (borrowed).  When every task of the
 * step on this node has ended (and its output reached srun), the step's
 * report goes to the controller as step_complete: max status, the
 * largest ru_maxrss with its rank, summed user and system CPU time, and
 * "cancelled" when droverd killed the tasks (step_signal_job(),
 * step_signal() with 'cancelled'). */
bool step_reaped(struct noded *nd, pid_t pid, int status,
                 const struct rusage *ru);
/* Why a step's tasks are signalled: a plain signal, a cancel (the job
 * or the step ended), or a cancel because the job reached its time
 * limit. */
enum step_cancel { STEP_SIGNAL = 0, STEP_CANCEL = 1, STEP_CANCEL_TIME = 2 };

/* Send 'signo' to the live tasks of step 'step_id' of job 'job_id'; with
 * 'cancel' (enum step_cancel) not STEP_SIGNAL, srun is told first, as
 * Slurm's slurmstepd says it ("*** STEP J.S ON node CANCELLED AT time
 * ***", with " DUE TO TIME LIMIT" for STEP_CANCEL_TIME, when srun also
 * prints its "Job step aborted" line).  Returns how many tasks. */
int step_signal(struct noded *nd, uint32_t job_id, uint32_t step_id,
                int signo, int cancel);
/* sattach (stepd.h's "attach" control request 'req', borrowed): the
 * step's user ("uid") or an administrator ("admin": root, SlurmUser) gets
 * {"node","ranks","node_index"}; unless "layout", the step also connects
 * to "attach": {"host","port","io_key"} (step_attach.h).  Otherwise
 * {"errnum": EDRV_ACCESS_DENIED} (another user), {"errnum":
 * EDRV_ALREADY_DONE,...} (no such step running here) or {"errnum",
 * "errstr"} (EAGAIN: STEP_ATTACH_MAX attached already; EINVAL: a bad
 * address; EDRV_PROTOCOL_MALFORMED: no io_key).  New reference. */
json_t *step_attach_control(struct noded *nd, uint32_t job_id,
                            uint32_t step_id, json_t *req);
/* scontrol listpids (stepd.h's "pids" control request 'req', borrowed):
 * for the step's user ("uid") or an administrator ("admin"), its live
 * tasks {"tasks":[{"pid","local_id","global_id"}]}; else {"errnum"}
 * (EDRV_ACCESS_DENIED, EDRV_INVALID_JOB_ID).  New reference. */
json_t *step_pids_control(struct noded *nd, uint32_t job_id,
                          uint32_t step_id, json_t *req);
/* droverstepd: the step is over and freed (stepd_main.c ends). */
void stepd_step_freed(struct noded *nd);

/* jobs.c, in the batch step's droverstepd (stepd.h) */
struct nd_job *jobs_find(struct noded *nd, uint32_t id);
/* Start the time-limit timer of a job just launched. */
void jobs_track(struct noded *nd, struct nd_job *job);
/* A new time limit (seconds from the start; -1 none): re-arm the limit
 * timer, which ends the job over_time_s (OverTimeLimit) after the limit,
 * and the --signal timer (which fires signal_secs before the limit, or
 * at once when that moment has passed but the job has not ended). */
void jobs_set_limit(struct noded *nd, struct nd_job *job, int64_t limit_s);
/* SIGTERM now, SIGKILL after KillWait (a cancel or requeue). */
void jobs_terminate(struct noded *nd, struct nd_job *job);
/* Send 'signo' to the batch step: every process in its cgroup (however
 * it left the process group), else the script's process group. */
void jobs_signal(struct nd_job *job, int signo);
/* Drop every job record at shutdown (the jobs keep running; the handles
 * must be closed already). */
void jobs_forget_all(struct noded *nd);
/* Put a process's usage in 'o' as the controller's reports carry it:
 * max_rss_kib (ru_maxrss), max_rss_task ('task'), user_cpu_us,
 * sys_cpu_us. */
void usage_to_json(const struct rusage *ru, int task, json_t *o);
/* droverstepd: child 'pid' ended with 'status' and usage 'ru': true
 * when it was the batch script (its report is written, the step ends). */
struct rusage;
bool jobs_reaped(struct noded *nd, pid_t pid, int status,
                 const struct rusage *ru);

/* register.c */
void register_start(struct noded *nd);
/* Send a completion now ('completion' borrowed); it stays in nd->done
 * until acknowledged.  One with "step_id" goes as step_complete, else as
 * job_complete. */
void register_completion(struct noded *nd, json_t *completion);

/* Send a registration now (or right after the one in flight), so the
 * controller learns a health check's result without waiting. */
void register_now(struct noded *nd);

/* health.c: HealthCheckProgram (slurm.conf HealthCheck*).
 * health_start(): run it once, then register_start() when it ended (at
 * once when none is configured); later runs every HealthCheckInterval s
 * in the states HealthCheckNodeState names.  health_reaped(): the
 * SIGCHLD handler's child 'pid' ended with 'status': true when it was the
 * program.  health_to_json(): the last result into a registration body
 * ("health_ok", "health_reason").  health_node_state(): the controller's
 * answer to a registration ({"state", "drain"}), which the next run's
 * HealthCheckNodeState test reads.  health_stop() kills a running
 * program and stops the timers (before the loop's handles are closed);
 * health_free() frees what is left after. */
void health_start(struct noded *nd);
bool health_reaped(struct noded *nd, pid_t pid, int status);
void health_to_json(const struct noded *nd, json_t *body);
void health_node_state(struct noded *nd, json_t *answer);
void health_stop(struct noded *nd);
void health_free(struct noded *nd);

/* rpc.c */
extern const struct proto_handler noded_handlers[];

#endif /* !DROVER_NODED_NODED_H */
