/* SPDX-License-Identifier: Apache-2.0
 *
 * emud.h - drover-emud, the node emulator: many nodes in one process
 *
 * drover-emud -N 'sim[00001-10000]' serves every node of that hostlist
 * expression (each must be in slurm.conf) on one libuv loop.  Each node
 * registers with the controller and heartbeats on its own, with its own
 * name, as droverd does (node_register with its running jobs, steps and
 * unacknowledged reports); the CPUs, memory and GPUs are slurm.conf's, as
 * for a real node.  Real and emulated nodes mix in one cluster: the
 * controller cannot tell them apart.
 *
 * Addressing.  The controller reaches a node at its NodeAddr and Port
 * from slurm.conf.  drover-emud listens once on each distinct Port= of
 * its nodes (0.0.0.0): a node range may share one port (what `drover up
 * --emulate-nodes` writes: one listener for 10,000 nodes) or have one
 * port each (Port=a range).  A request names no node, so the node is
 * found from what it carries: batch_launch from the job's batch_host,
 * job_signal / job_limit / step_signal from the job id (the emulator
 * knows where each of its jobs runs), ping answers for the first node.
 *
 * Jobs never fork.  A batch job "runs" as a timer (job.c): its run time
 * comes from its comment (--comment=emulate:run=SECONDS[,exit=CODE]),
 * else the default (--run=SECONDS, or MIN-MAX drawn uniformly; 1 s); the
 * time limit, suspend (SIGSTOP / SIGCONT), cancel and signals act on it
 * as on a script; its end is
 * reported as droverd reports a batch script's end (step_complete with
 * step id 0xfffffffb, kept and repeated until acknowledged).  srun steps
 * (step_launch) are refused with an error that says the node is
 * emulated.
 */
#ifndef DROVER_EMUD_EMUD_H
#define DROVER_EMUD_EMUD_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <jansson.h>
#include <uthash.h>
#include <uv.h>

#include "conf/conf.h"
#include "proto/auth.h"
#include "proto/server.h"

#define EMUD_BATCH_STEP 0xfffffffbu /* the batch script's step id */

struct emud;
struct emu_job;

/* One emulated node. */
struct emu_node {
    struct emud *emud;
    const struct conf_node *conf; /* borrowed from emud->conf */
    json_t *done;         /* reports not yet acknowledged (step_complete
                           * bodies), oldest first */
    struct emu_job *jobs; /* batch jobs running here (list by node_next) */
    uv_timer_t timer;     /* the next registration (heartbeat or retry) */
    bool in_flight;       /* a node_register is under way */
    bool queued;          /* waiting for a call slot (emu_call) */
    bool registered;      /* the controller answered one registration */
    UT_hash_handle hh;    /* emud->by_name, keyed by conf->name */
};

/* A pending controller call (emu_call); queued while too many are under
 * way. */
struct emu_call;

struct emud {
    uv_loop_t *loop;
    struct slurm_conf *conf;
    proto_auth_t *auth;
    proto_server_t *server;
    struct emu_node *nodes;     /* [node_count] */
    size_t node_count;
    struct emu_node *by_name;   /* uthash over nodes, by name */
    struct emu_job *jobs;       /* uthash by job id: every running job */
    size_t running;             /* jobs in emud->jobs */
    uint64_t started, ended;    /* jobs launched and ended since start */
    uint64_t heartbeat_ms;      /* between one node's registrations */
    uint64_t run_min_ms;        /* a job's run time without a hint: */
    uint64_t run_max_ms;        /*   uniform in [min, max] ms */
    unsigned max_calls;         /* controller calls under way at most */
    unsigned calls;             /* under way now */
    size_t ctld_idx;            /* the SlurmctldHost called now: the next
                                 * after a call that did not reach one */
    struct emu_call *queue, *queue_tail; /* waiting for a slot */
    struct emu_call *reg_queue, *reg_tail; /* registrations waiting: they
                                            * go first, so a heartbeat
                                            * never waits behind a storm
                                            * of launch answers */
    time_t start_time;
    int64_t ctld_boot;          /* boot_time of the controller that
                                 * answered last: another one (a restart,
                                 * a new leader) and every node registers
                                 * within 2 s */
    uint64_t reregister_ms;     /* uv_now() of the last such round */
    bool stopping;              /* shutting down: calls are cancelled */
    char os[256];               /* OS= of every node */
    uv_signal_t sigterm, sigint;
    uv_timer_t stats_timer;
};

/* --- node.c: registration, heartbeat and reports ----------------------- */

/* Start registering every node: the first registrations are spread over
 * the first heartbeat interval's tenth (at most 2 s), then each node
 * registers every emud->heartbeat_ms after its last answer, or after
 * 1 s (droverd's retry) when the controller did not answer. */
void node_start_all(struct emud *e);

/* Send the report 'c' of node 'n' now as step_complete ('c' stolen); it
 * stays in n->done, and in each registration, until acknowledged. */
void node_report(struct emu_node *n, json_t *c);

/* The node called 'name', or NULL when it is not one of ours. */
struct emu_node *node_find(struct emud *e, const char *name);

/* Stop the nodes' timers and free their reports (shutdown). */
void node_stop_all(struct emud *e);

/* Call the controller: proto_call_async() through a limit of
 * e->max_calls calls under way (the rest wait in order), so that 10,000
 * nodes do not open 10,000 connections at once.  'body' is stolen; 'cb'
 * is called exactly once, as proto_call_async's. */
typedef void (*emu_call_f)(int errnum, const char *errstr, json_t *resp,
                           void *arg);
void emu_call(struct emud *e, const char *type, json_t *body, emu_call_f cb,
              void *arg);

/* --- job.c: virtual batch jobs ----------------------------------------- */

/* Run hint of a job comment: "emulate:run=SECONDS[,exit=CODE]" anywhere
 * in 'comment' (may be NULL).  SECONDS may have a fraction.  Sets
 * *run_ms (milliseconds) and *exit_code (0..255) to what it gives;
 * returns true when the comment holds a valid hint, else leaves them. */
bool job_parse_hint(const char *comment, uint64_t *run_ms, int *exit_code);

/* Start the batch job of batch_launch's 'job' object (borrowed) on node
 * 'n'.  Returns 0; -1 with *errnum (EDRV_*) and *why (static text) when
 * it cannot (no job_id; another run of the job still here: it is ended
 * and EDRV_DUPLICATE_JOB_ID returned, as droverd does). */
int job_launch(struct emu_node *n, json_t *job, int *errnum,
               const char **why);

/* The running job 'id', or NULL. */
struct emu_job *job_find(struct emud *e, uint32_t id);

/* The node a running job is on. */
struct emu_node *job_node(const struct emu_job *j);

/* The controller's run of a running job. */
uint32_t job_run_id(const struct emu_job *j);

/* Signal a running job as its batch script would take it: SIGSTOP and
 * SIGTSTP pause its clock, SIGCONT resumes it, 0 and the signals a shell
 * ignores or catches harmlessly (SIGCHLD, SIGURG, SIGWINCH) do nothing;
 * any other signal ends it with that signal as its wait status.  With
 * 'terminate' (cancel, requeue) it ends as a script killed by SIGTERM. */
void job_signal(struct emu_job *j, int signo, bool terminate);

/* A new time limit, seconds from the job's start (-1: none). */
void job_set_limit(struct emu_job *j, int64_t limit_s);

/* Append {"job_id","run_id"} of each job on 'n' to 'jobs' and
 * {"job_id","step_id":batch} to 'steps' (registration lists). */
void job_list(const struct emu_node *n, json_t *jobs, json_t *steps);

/* Drop every job without reporting (shutdown). */
void job_forget_all(struct emud *e);

/* --- rpc.c ------------------------------------------------------------- */
extern const struct proto_handler emud_handlers[];

#endif /* !DROVER_EMUD_EMUD_H */
