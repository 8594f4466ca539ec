/* SPDX-License-Identifier: Apache-2.0
 *
 * stepd.h - droverd and droverstepd: one process per job step on a node
 *
 * As Slurm's slurmstepd: for every step_launch droverd starts one
 * droverstepd, which owns the step's tasks on this node: their cgroup
 * (cgroup.h), their I/O to srun, their PMIx server, their exits.  A
 * droverd that stops or restarts leaves its steps running; a new droverd
 * finds them again through their control sockets and collects their
 * reports from the spool.
 *
 * The contract between the two processes:
 *
 *   exec       <dir of droverd>/droverstepd -f <slurm.conf> -N <node>
 *              in a new session; fd 0: the step_launch body (JSON, to
 *              EOF) with droverd's configuration added as "step_conf"
 *              (conf_step_to_json(), conf.h: droverstepd reads no
 *              configuration file; -f and -N name it for ps); fd 1: the
 *              answer, one JSON object then EOF:
 *              {} once the tasks are started, or {"error": "text"} when
 *              nothing was started (droverd answers step_launch with it).
 *   control    <spool>/step_<job>.<step>.sock, a Unix stream socket
 *              (only root and droverd's uid may use it): one request
 *              frame, one answer frame (proto/frame.h):
 *                {"signal": N, "cancelled": bool, "time_limit": bool}
 *                -> {"count": tasks}
 *                {"attach": {"host","port","io_key"}, "uid": N,
 *                 "admin": bool, "layout": bool}
 *                -> {"node","ranks","node_index"} or {"errnum","errstr"}
 *                (sattach: step_attach_control() in noded.h)
 *                {"pids": true, "uid": N, "admin": bool}
 *                -> {"tasks":[{"pid","local_id","global_id"}]} or
 *                {"errnum"} (scontrol listpids: step_pids_control())
 *   report     <spool>/step_<job>.<step>.done: the node's step_complete
 *              body, written (fsync'd, renamed into place) once every
 *              task has ended; droverd sends it to the controller and
 *              removes the file once the controller acknowledged it.
 *
 * Socket paths go through /proc/self/fd/<dirfd>/ so a long spool path
 * never exceeds sun_path.
 */
#ifndef DROVER_NODED_STEPD_H
#define DROVER_NODED_STEPD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>
#include <uv.h>

#include "common/error.h"

struct noded;

/* The batch step's id (Slurm's SLURM_BATCH_SCRIPT, as src/ctld/step.h).
 * Its droverstepd runs the batch script (launch.c, jobs.c): the launch
 * body is {"job_id", "step_id": STEPD_BATCH, "job": batch_launch's job};
 * its control socket also takes {"terminate": true} (SIGTERM, SIGKILL
 * after KillWait) and {"time_limit_s": N}, and every answer carries the
 * job's "run_id"; its report is the job's completion (job_complete's
 * keys with "step_id"), sent as step_complete. */
#define STEPD_BATCH 0xfffffffbu

/* "<spool>/step_<job>.<step>.done" / ".sock".  Caller frees. */
char *stepd_done_path(const char *spool, uint32_t job_id, uint32_t step_id);
char *stepd_sock_path(const char *spool, uint32_t job_id, uint32_t step_id);

/* Fill 'sun_path' (of 'len' bytes) with a name for 'path' that bind()
 * and connect() accept however long 'path' is: the path itself when it
 * fits, else /proc/self/fd/<fd>/<file> with *dirfd an O_PATH descriptor
 * of its directory (close it after the call; -1 when none was needed).
 * Returns 0, or -1 with errno. */
int stepd_sun_path(const char *path, char *sun_path, size_t len, int *dirfd);

/* A spool entry's name "step_<job>.<step><suffix>" (".sock", ".done"):
 * true with the ids, false for any other name. */
bool stepd_parse_name(const char *name, const char *suffix, uint32_t *job,
                      uint32_t *step);

/* One request 'req' (borrowed) to the control socket of step 'step' of
 * job 'job' in 'spool', answered at once (blocking, at most 2 s each way).
 * Returns the answer (new reference), or NULL when the step is not there
 * or did not answer. */
json_t *stepd_control(const char *spool, uint32_t job, uint32_t step,
                      json_t *req);

/* Send 'signo' (with 'cancel', enum step_cancel of noded.h: the request's
 * "cancelled" and "time_limit") to every step of job 'job_id' with a
 * control socket in 'spool' but the batch step.  Returns how many tasks
 * were signalled. */
int stepd_signal_job_steps(const char *spool, uint32_t job_id, int signo,
                           int cancel);

/* libuv's read buffer for the step daemons' streams: 'size' bytes from
 * xzalloc; the read callback frees buf->base. */
void stepd_alloc_cb(uv_handle_t *h, size_t size, uv_buf_t *buf);

/* droverstepd: write the step's report 'c' (borrowed) to its .done file
 * in 'spool' and fsync it.  Returns 0, or -1 (logged). */
int stepd_write_report(const char *spool, json_t *c);

/* --- droverd's side (stepctl.c, stepmgr.c) --- */

/* A spool entry's name "step_<job>.<step><suffix>" (".sock", ".done"):
 * true with the ids, false for any other name. */
bool stepd_parse_name(const char *name, const char *suffix, uint32_t *job,
                      uint32_t *step);

/* One request 'req' (borrowed) to the control socket of step 'step' of
 * job 'job', from droverd's loop: 'cb' gets the answer (borrowed), or
 * NULL when the step is not there or did not answer within 2 s, exactly
 * once and never from inside stepctl_call().  Returns 0, or -1 (errno)
 * when the request could not be started: then 'cb' is never called. */
typedef void (*stepctl_cb)(json_t *resp, void *arg);
int stepctl_call(struct noded *nd, uint32_t job, uint32_t step, json_t *req,
                 stepctl_cb cb, void *arg);

/* Start a droverstepd for the step_launch 'body' (borrowed) and call
 * 'done' once it answered: errnum 0, or an EDRV_* number with 'errstr'
 * (the step process's own message when it gave one). */
typedef void (*stepmgr_done_f)(int errnum, const char *errstr, void *arg);
int stepmgr_launch(struct noded *nd, json_t *body, stepmgr_done_f done,
                   void *arg, drv_error_t *error);

/* Send 'signo' to the tasks of step 'step_id' of job 'job_id'
 * (cancelled: srun is told, as step_signal in step.c); 'cb' gets how many
 * tasks were signalled (0 when no such step runs here), as stepctl_call()
 * calls its callback.  Returns 0, or -1 when nothing was sent (no such
 * step here): then 'cb' is not called. */
typedef void (*stepmgr_count_f)(int count, void *arg);
int stepmgr_signal(struct noded *nd, uint32_t job_id, uint32_t step_id,
                   int signo, bool cancelled, stepmgr_count_f cb, void *arg);

/* The same for every step of job 'job_id' but its batch step, without
 * waiting for the answers; SIGTERM and SIGKILL mark them cancelled (with
 * 'time_limit': because the job reached its time limit).  Returns how
 * many steps were sent the signal. */
int stepmgr_signal_job(struct noded *nd, uint32_t job_id, int signo,
                       bool time_limit);

/* The batch step of job 'job_id' runs here: true, with its run in
 * *run_id (NULL: not wanted). */
bool stepmgr_batch_run(struct noded *nd, uint32_t job_id, uint32_t *run_id);

/* Send 'req' (borrowed) to the batch step of 'job_id' (stepd.h: signal,
 * terminate, time_limit_s) without waiting for its answer.  False when
 * none runs here. */
bool stepmgr_batch_request(struct noded *nd, uint32_t job_id, json_t *req);

/* [{"job_id","run_id"}] of the batch steps running here (registration's
 * "jobs").  New reference. */
json_t *stepmgr_batch_jobs(struct noded *nd);

/* [{"job_id","step_id"}] of the steps running here.  New reference. */
json_t *stepmgr_running(struct noded *nd);

/* The steps running here as stepmgr_running() lists them, each with what
 * its launch said: "user" (user_name; "" for a step adopted from an
 * earlier droverd) and "gpus" (this node's GPU indexes, "0-1,3"; "" for
 * none or not known).  For the metrics endpoint (metrics.h).  New
 * reference. */
json_t *stepmgr_running_info(struct noded *nd);

/* A child of droverd ended: true when it was a droverstepd (its report,
 * or a failure report when it left none, goes to the controller). */
bool stepmgr_reaped(struct noded *nd, pid_t pid, int status);
/* Does a step of job 'job_id' (the batch step included) run here?  When
 * the last one is freed, the job's container goes (jc_job_remove()). */
bool stepmgr_job_here(struct noded *nd, uint32_t job_id);

/* At start (with 'wait': the step processes are asked at once, so the
 * first registration lists them) and then at every registration (from
 * the loop, answers arriving later): adopt the live step sockets in the
 * spool (steps left by an earlier droverd), send the reports found there
 * (register_completion), forget steps that are gone. */
void stepmgr_scan(struct noded *nd, bool wait);

/* Watch the spool so a step's report goes out as soon as it is written
 * (uses nd->spool_watch; closed with the loop's other handles). */
void stepmgr_watch(struct noded *nd);

/* A completion the controller acknowledged: its .done file goes. */
void stepmgr_acked(struct noded *nd, json_t *completion);

/* droverd stops (after uv_stop(), before its loop's handles close):
 * launches still waiting for their step process's answer are answered
 * with an error, so no request is left behind. */
void stepmgr_stop(struct noded *nd);

/* The same for the control requests under way (stepctl_call()): their
 * callbacks get NULL now. */
void stepctl_cancel_all(void);

/* Free the records at droverd's exit (the steps keep running). */
void stepmgr_forget_all(struct noded *nd);

#endif /* !DROVER_NODED_STEPD_H */
