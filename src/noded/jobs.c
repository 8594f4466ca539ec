/* SPDX-License-Identifier: Apache-2.0
 *
 * jobs.c - the batch step, in its droverstepd (stepd.h): time limit,
 * termination, reaping, the job's completion
 *
 * At the time limit, and OverTimeLimit later (the controller sends
 * over_time_s, the partition's or the global one), the batch step gets
 * SIGTERM, and SIGKILL KillWait seconds later (Slurm's order); a cancel
 * does the same at once.  The
 * batch step is every process of its cgroup (a process that left the
 * script's process group with setsid is still in it), or the script's
 * process group when the node runs jobs without cgroups.  When the batch
 * script exits, whatever it left is killed, its cgroup removed, and the
 * completion is the step's report (stepd_write_report()), saying "oom"
 * when the kernel's OOM killer struck in the cgroup (with Slurm's line in
 * the job's stderr).  The job's other steps on this node are signalled
 * through their control sockets (SIGTERM at the limit or a cancel,
 * SIGKILL after KillWait and when the script ended).
 * --signal=[B:]SIG@secs sends SIG that many seconds before the limit, to
 * the batch shell alone with B:, else to the whole batch step (Slurm's
 * sbatch semantics).
 */
#include <errno.h>
#include <grp.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "noded/cgroup.h"
#include "noded/noded.h"
#include "noded/oci.h"
#include "noded/spool.h"
#include "noded/stepd.h"

struct nd_job *jobs_find(struct noded *nd, uint32_t id)
{
    struct nd_job *job = NULL;

    HASH_FIND(hh, nd->jobs, &id, sizeof(id), job);
    return job;
}

void jobs_signal(struct nd_job *job, int signo)
{
    if (job->cg)
        cgroup_step_signal(job->cg, signo);
    else if (killpg(job->pid, signo) < 0 && errno != ESRCH)
        log_err("JobId=%u: signal %d", job->id, signo);
}

static void kill_cb(uv_timer_t *t)
{
    struct nd_job *job = t->data;

    log_info("JobId=%u: KillWait over, sending SIGKILL", job->id);
    jobs_signal(job, SIGKILL);
    stepd_signal_job_steps(job->nd->spool_dir, job->id, SIGKILL, true);
}

void jobs_terminate(struct noded *nd, struct nd_job *job)
{
    (void)nd;
    if (job->terminating)
        return;
    job->terminating = true;
    /* the steps first: their srun hear why before the SIGTERM reaches
     * them (they run in the batch step's processes) */
    stepd_signal_job_steps(nd->spool_dir, job->id, SIGTERM,
                           job->timed_out ? STEP_CANCEL_TIME : STEP_CANCEL);
    jobs_signal(job, SIGCONT);
    jobs_signal(job, SIGTERM);
    uv_timer_start(&job->kill_timer, kill_cb,
                   (uint64_t)(job->kill_wait_s ? job->kill_wait_s : 1) * 1000,
                   0);
}

static void limit_cb(uv_timer_t *t)
{
    struct nd_job *job = t->data;

    log_info("JobId=%u: time limit exhausted", job->id);
    job->timed_out = true;
    jobs_terminate(job->nd, job);
}

static void signal_cb(uv_timer_t *t)
{
    struct nd_job *job = t->data;
    int rc;

    if (job->terminating)
        return;
    log_info("JobId=%u: sending signal %d%s %d s before the time limit",
             job->id, job->signal_num,
             job->signal_batch ? " to the batch shell" : "",
             job->signal_secs);
    if (!job->signal_batch) {
        jobs_signal(job, job->signal_num);
        return;
    }
    rc = kill(job->pid, job->signal_num);
    if (rc < 0)
        log_err("JobId=%u: signal %d", job->id, job->signal_num);
}

void jobs_track(struct noded *nd, struct nd_job *job)
{
    uv_timer_init(nd->loop, &job->limit_timer);
    uv_timer_init(nd->loop, &job->kill_timer);
    uv_timer_init(nd->loop, &job->signal_timer);
    job->limit_timer.data = job;
    job->kill_timer.data = job;
    job->signal_timer.data = job;
    HASH_ADD(hh, nd->jobs, id, sizeof(job->id), job);
    job->start_ms = uv_now(nd->loop);
    jobs_set_limit(nd, job, job->time_limit_s);
}

void jobs_set_limit(struct noded *nd, struct nd_job *job, int64_t limit_s)
{
    uint64_t end, kill_at, now = uv_now(nd->loop);

    job->time_limit_s = limit_s;
    uv_timer_stop(&job->limit_timer);
    uv_timer_stop(&job->signal_timer);
    if (limit_s <= 0 || job->timed_out)
        return;
    end = job->start_ms + (uint64_t)limit_s * 1000;
    /* OverTimeLimit: the limit stays the job's, the end comes later */
    kill_at = end + (uint64_t)(job->over_time_s > 0 ? job->over_time_s : 0)
                        * 1000;
    if (job->over_time_s >= 0)
        uv_timer_start(&job->limit_timer, limit_cb,
                       kill_at > now ? kill_at - now : 0, 0);
    if (job->signal_num > 0 && (job->over_time_s < 0 || kill_at > now)) {
        uint64_t at = end - (uint64_t)job->signal_secs * 1000;
        if (at > end) /* signal_secs beyond the start: wrapped */
            at = 0;
        uv_timer_start(&job->signal_timer, signal_cb, at > now ? at - now : 0,
                       0);
    }
}

static void job_free_cb(uv_handle_t *h)
{
    struct nd_job *job = h->data;

    /* All timers close; the job goes with the last of them. */
    if (--job->open_handles == 0) {
        free(job->err_path);
        free(job);
    }
}

/* The script is the job's; once it ended, its spool entry goes, whatever
 * is in it (spool.h). */
static void spool_remove_job(struct noded *nd, uint32_t id)
{
    char name[32];

    snprintf(name, sizeof(name), "job%05u", id);
    if (spool_remove(nd->spool_dir, name) < 0)
        log_err("removing %s/%s", nd->spool_dir, name);
}

/* A slurmstepd line of Slurm 22.05's ('line', taken), appended to the
 * job's stderr file by a child that became the job's user first: the path
 * is the user's to choose, so root never opens it (a device, a file the
 * user may not write).  The child is reaped by droverstepd's SIGCHLD
 * handler as an unknown pid. */
static void append_err_line(struct nd_job *job, char *line)
{
    pid_t pid = fork();

    if (pid == 0) {
        gid_t gid = job->gid;
        int fd;

        if (getuid() == 0
            && (setgroups(1, &gid) < 0 || setgid(gid) < 0
                || setuid(job->uid) < 0))
            _exit(1);
        fd = open(job->err_path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NOCTTY
                                     | O_NONBLOCK | O_CLOEXEC);
        _exit(fd >= 0 && write(fd, line, strlen(line)) >= 0 ? 0 : 1);
    }
    if (pid < 0)
        log_err("JobId=%u: not reported in %s: fork", job->id,
                job->err_path);
    free(line);
}

static void report_oom(struct nd_job *job, uint64_t kills)
{
    append_err_line(job, xasprintf("slurmstepd: error: Detected %llu "
                                   "oom-kill event(s) in StepId=%u.batch. "
                                   "Some of your processes may have been "
                                   "killed by the cgroup out-of-memory "
                                   "handler.\n",
                                   (unsigned long long)kills, job->id));
}

/* The batch step reached the job's time limit: Slurm's line in the job's
 * stderr. */
static void report_time_limit(struct nd_job *job)
{
    char stamp[32];

    timefmt_stamp(time(NULL), 0, stamp, sizeof(stamp));
    append_err_line(job, xasprintf("slurmstepd: error: *** JOB %u ON %s "
                                   "CANCELLED AT %s DUE TO TIME LIMIT ***\n",
                                   job->id, job->nd->node->name, stamp));
}

static void job_ended(struct noded *nd, struct nd_job *job, int status,
                      const struct rusage *ru)
{
    json_t *c = json_pack("{s:s s:I s:I s:i s:b}", "node", nd->node->name,
                          "job_id", (json_int_t)job->id, "step_id",
                          (json_int_t)STEPD_BATCH, "status", status,
                          "timed_out", job->timed_out);
    uint64_t oom = cgroup_step_oom_kills(job->cg);

    if (job->run_id)
        json_object_set_new(c, "run_id", json_integer(job->run_id));
    usage_to_json(ru, 0, c);

    log_info("JobId=%u: batch script exited, status %d%s", job->id, status,
             job->timed_out ? " (time limit)" : "");
    if (oom) {
        log_info("JobId=%u: %llu oom-kill event(s) in the batch step",
                 job->id, (unsigned long long)oom);
        json_object_set_new(c, "oom", json_true());
        report_oom(job, oom);
    }
    /* What the script left behind (and its cgroup), and its steps. */
    if (job->cg)
        cgroup_step_destroy(job->cg);
    else
        killpg(job->pid, SIGKILL);
    job->cg = NULL;
    if (job->timed_out) /* once nothing of the job writes there */
        report_time_limit(job);
    oci_step_destroy(job->oci);
    job->oci = NULL;
    stepd_signal_job_steps(nd->spool_dir, job->id, SIGKILL, true);
    spool_remove_job(nd, job->id);
    HASH_DEL(nd->jobs, job);
    job->open_handles = 3;
    uv_close((uv_handle_t *)&job->limit_timer, job_free_cb);
    uv_close((uv_handle_t *)&job->kill_timer, job_free_cb);
    uv_close((uv_handle_t *)&job->signal_timer, job_free_cb);
    stepd_write_report(nd->spool_dir, c);
    json_decref(c);
    stepd_step_freed(nd);
}

bool jobs_reaped(struct noded *nd, pid_t pid, int status,
                 const struct rusage *ru)
{
    struct nd_job *job, *tmp;

    HASH_ITER(hh, nd->jobs, job, tmp) {
        if (job->pid == pid) {
            job_ended(nd, job, status, ru);
            return true;
        }
    }
    return false;
}

void jobs_forget_all(struct noded *nd)
{
    struct nd_job *job, *tmp;

    /* Their cgroups stay: the jobs keep running. */
    HASH_ITER(hh, nd->jobs, job, tmp) {
        HASH_DEL(nd->jobs, job);
        cgroup_step_release(job->cg);
        free(job->err_path);
        free(job);
    }
}
