/* SPDX-License-Identifier: Apache-2.0
 *
 * stepmgr.c - droverd's side of its steps: one droverstepd per step
 * (stepd.h has the contract)
 *
 * droverd keeps a record per step it started or found in its spool:
 * enough to signal it (through its control socket), to list it in
 * registrations and to deliver its report.  The step's tasks, their I/O
 * and their cgroup are the droverstepd's (step.c, stepd_main.c).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/fdio.h"
#include "common/log.h"
#include "common/selfpath.h"
#include "common/xalloc.h"
#include "noded/jobcontainer.h"
#include "noded/noded.h"
#include "noded/prolog.h"
#include "noded/stepd.h"
#include "proto/frame.h"

struct nd_stepd {
    struct noded *nd;
    uint32_t job_id;
    uint32_t step_id;
    uint32_t run_id;      /* the batch step: the controller's run */
    pid_t pid;            /* 0: adopted from an earlier droverd */
    bool answered;        /* the launch answer came */
    bool started;         /* ... and it said the tasks started */
    bool reaped;
    bool reported;        /* its report went to register_completion */
    bool pipe_open;
    char *answer;         /* the answer so far */
    json_t *queued;       /* requests that came before the answer (its
                           * control socket may not listen yet): sent
                           * once it started */
    size_t answer_len;
    char *user;           /* the launch's user_name, NULL: adopted */
    char *gpus;           /* its GPUs on this node, "0-1,3", or NULL */
    stepmgr_done_f done;
    void *done_arg;
    uv_pipe_t reply;
    struct nd_stepd *next;
};

static struct nd_stepd *find(struct noded *nd, uint32_t job, uint32_t step)
{
    for (struct nd_stepd *s = nd->stepds; s; s = s->next)
        if (s->job_id == job && s->step_id == step)
            return s;
    return NULL;
}

bool stepmgr_job_here(struct noded *nd, uint32_t job_id)
{
    for (struct nd_stepd *s = nd->stepds; s; s = s->next)
        if (s->job_id == job_id)
            return true;
    return false;
}

static void maybe_free(struct nd_stepd *s)
{
    struct nd_stepd **pp = &s->nd->stepds;
    struct noded *nd = s->nd;
    uint32_t job_id = s->job_id;

    if (s->pipe_open || (s->pid && !s->reaped) || (!s->pid && !s->reported))
        return;
    while (*pp && *pp != s)
        pp = &(*pp)->next;
    if (*pp)
        *pp = s->next;
    free(s->answer);
    free(s->user);
    free(s->gpus);
    json_decref(s->queued);
    free(s);
    if (nd->jc_base && !stepmgr_job_here(nd, job_id))
        jc_job_remove(nd->jc_base, job_id);
}

static void ignored(json_t *resp, void *arg)
{
    (void)resp;
    (void)arg;
}

/* The requests queued before the step process answered. */
static void send_queued(struct nd_stepd *s)
{
    json_t *req;
    size_t i;

    json_array_foreach(s->queued, i, req)
        stepctl_call(s->nd, s->job_id, s->step_id, req, ignored, NULL);
    json_decref(s->queued);
    s->queued = NULL;
}

/* The directory droverd runs from holds droverstepd (the build tree and
 * the installed sbindir alike). */
static char *stepd_exe(void)
{
    char *path = self_sibling("droverstepd");

    return path ? path : xstrdup("droverstepd");
}

static void answered(struct nd_stepd *s)
{
    json_t *a = s->answer ? json_loadb(s->answer, s->answer_len, 0, NULL)
                          : NULL;
    const char *err = json_string_value(json_object_get(a, "error"));

    s->answered = true;
    s->started = json_is_object(a) && !err;
    if (s->started)
        send_queued(s);
    if (s->started)
        s->done(0, NULL, s->done_arg);
    else
        s->done(EDRV_ERROR, err ? err : "the step process did not start",
                s->done_arg);
    json_decref(a);
}

static void reply_closed(uv_handle_t *h)
{
    struct nd_stepd *s = h->data;

    s->pipe_open = false;
    if (!s->answered) { /* droverd stops first: the request is answered */
        s->answered = true;
        s->done(EDRV_ERROR, "droverd stopped before the step answered",
                s->done_arg);
    }
    maybe_free(s);
}

static void reply_read(uv_stream_t *p, ssize_t n, const uv_buf_t *buf)
{
    struct nd_stepd *s = p->data;

    if (n > 0) {
        s->answer = xrealloc(s->answer, s->answer_len + (size_t)n);
        memcpy(s->answer + s->answer_len, buf->base, (size_t)n);
        s->answer_len += (size_t)n;
    } else if (n < 0) {
        uv_read_stop(p);
        answered(s);
        uv_close((uv_handle_t *)p, reply_closed);
    }
    free(buf->base);
}

static void exec_stepd(struct noded *nd, int in, int out, const char *exe)
{
    child_reset();
    if (dup2(in, 0) < 0 || dup2(out, 1) < 0)
        _exit(127);
    child_close_fds();
    execl(exe, "droverstepd", "-f", nd->conf->path, "-N", nd->node->name,
          (char *)NULL);
    fprintf(stderr, "droverd: exec %s: %s\n", exe, strerror(errno));
    _exit(127);
}

static pid_t spawn(struct noded *nd, json_t *body, int *reply_fd,
                   drv_error_t *error)
{
    int in[2], out[2];
    char *exe = stepd_exe(), *text;
    pid_t pid;

    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0) {
        free(exe);
        return errprintf(error, "pipe: %s", strerror(errno));
    }
    if ((pid = fork()) == 0)
        exec_stepd(nd, in[0], out[1], exe);
    free(exe);
    close(in[0]);
    close(out[1]);
    if (pid < 0) {
        close(in[1]);
        close(out[0]);
        return errprintf(error, "fork: %s", strerror(errno));
    }
    json_object_set(body, "step_conf", nd->step_conf);
    text = json_dumps(body, JSON_COMPACT);
    json_object_del(body, "step_conf");
    if (!text || fd_write_all(in[1], text, strlen(text)) < 0)
        log_err("StepId: writing the launch to droverstepd %d", (int)pid);
    free(text);
    close(in[1]);
    *reply_fd = out[0];
    return pid;
}

/* The user and this node's GPUs of a launch 'body': a batch step's from
 * its job (user_name, the node's "alloc" entry's "gpus" ranges), an srun
 * step's from step_launch (user_name, "gpus": [index]). */
static void keep_launch_info(struct nd_stepd *s, json_t *body)
{
    json_t *job = json_object_get(body, "job"), *e;
    const char *user;
    size_t i;

    user = json_string_value(json_object_get(job ? job : body, "user_name"));
    s->user = xstrdup(user ? user : "");
    if (job) {
        json_array_foreach(json_object_get(job, "alloc"), i, e) {
            const char *n = json_string_value(json_object_get(e, "node"));
            const char *g = json_string_value(json_object_get(e, "gpus"));
            if (n && g && !strcmp(n, s->nd->node->name))
                s->gpus = xstrdup(g);
        }
        return;
    }
    json_array_foreach(json_object_get(body, "gpus"), i, e) {
        char *t = xasprintf("%s%s%lld", s->gpus ? s->gpus : "",
                            s->gpus ? "," : "",
                            (long long)json_integer_value(e));
        free(s->gpus);
        s->gpus = t;
    }
}

int stepmgr_launch(struct noded *nd, json_t *body, stepmgr_done_f done,
                   void *arg, drv_error_t *error)
{
    json_int_t job = json_integer_value(json_object_get(body, "job_id"));
    json_int_t step = json_integer_value(json_object_get(body, "step_id"));
    struct nd_stepd *s;
    int fd = -1;
    pid_t pid;

    if (job <= 0 || step < 0)
        return errprintf(error, "step_launch: no job_id or step_id");
    if (find(nd, (uint32_t)job, (uint32_t)step))
        return errprintf(error, "StepId=%lld.%lld already runs here",
                         (long long)job, (long long)step);
    if ((pid = spawn(nd, body, &fd, error)) < 0)
        return -1;
    s = xzalloc(sizeof(*s));
    *s = (struct nd_stepd){.nd = nd, .job_id = (uint32_t)job,
                           .step_id = (uint32_t)step, .pid = pid,
                           .done = done, .done_arg = arg, .pipe_open = true};
    s->run_id = (uint32_t)json_integer_value(
        json_object_get(json_object_get(body, "job"), "run_id"));
    keep_launch_info(s, body);
    s->next = nd->stepds;
    nd->stepds = s;
    uv_pipe_init(nd->loop, &s->reply, 0);
    uv_pipe_open(&s->reply, fd);
    s->reply.data = s;
    uv_read_start((uv_stream_t *)&s->reply, stepd_alloc_cb, reply_read);
    return 0;
}

/* Whether the step's process answers on its control socket (signal 0
 * signals nothing), asked and answered at once (droverd's start only);
 * a batch step's run into *run_id. */
static bool answers_now(struct noded *nd, uint32_t job, uint32_t step,
                        uint32_t *run_id)
{
    json_t *req = json_pack("{s:i s:b}", "signal", 0, "cancelled", false);
    json_t *resp = stepd_control(nd->spool_dir, job, step, req);

    if (resp && run_id)
        *run_id = (uint32_t)json_integer_value(json_object_get(resp,
                                                               "run_id"));
    json_decref(req);
    json_decref(resp);
    return resp != NULL;
}

struct count_ctx {
    stepmgr_count_f cb;
    void *arg;
};

static void counted(json_t *resp, void *arg)
{
    struct count_ctx *cc = arg;

    if (cc->cb)
        cc->cb(resp ? (int)json_integer_value(json_object_get(resp, "count"))
                    : 0,
               cc->arg);
    free(cc);
}

int stepmgr_signal(struct noded *nd, uint32_t job_id, uint32_t step_id,
                   int signo, bool cancelled, stepmgr_count_f cb, void *arg)
{
    json_t *req = json_pack("{s:i s:b}", "signal", signo, "cancelled",
                            cancelled);
    struct count_ctx *cc = xzalloc(sizeof(*cc));
    int rc;

    cc->cb = cb;
    cc->arg = arg;
    rc = stepctl_call(nd, job_id, step_id, req, counted, cc);
    json_decref(req);
    if (rc < 0)
        free(cc);
    return rc;
}

/* Send 'req' to step 's' without waiting for its answer; queued while
 * its process has not answered its launch yet. */
static bool send_or_queue(struct nd_stepd *s, json_t *req)
{
    if (!s->answered) {
        if (!s->queued)
            s->queued = json_array();
        json_array_append(s->queued, req);
        return true;
    }
    return stepctl_call(s->nd, s->job_id, s->step_id, req, ignored, NULL)
           == 0;
}

int stepmgr_signal_job(struct noded *nd, uint32_t job_id, int signo,
                       bool time_limit)
{
    bool end = signo == SIGTERM || signo == SIGKILL;
    json_t *req = json_pack("{s:i s:b s:b}", "signal", signo, "cancelled",
                            end, "time_limit", end && time_limit);
    int n = 0;

    for (struct nd_stepd *s = nd->stepds; s; s = s->next)
        if (s->job_id == job_id && s->step_id != STEPD_BATCH && !s->reaped
            && !s->reported && send_or_queue(s, req))
            n++;
    json_decref(req);
    return n;
}

/* The running batch step of 'job_id', or NULL. */
static struct nd_stepd *batch_step(struct noded *nd, uint32_t job_id)
{
    struct nd_stepd *s = find(nd, job_id, STEPD_BATCH);

    return s && !s->reaped && !s->reported ? s : NULL;
}

bool stepmgr_batch_run(struct noded *nd, uint32_t job_id, uint32_t *run_id)
{
    struct nd_stepd *s = batch_step(nd, job_id);

    if (s && run_id)
        *run_id = s->run_id;
    return s != NULL;
}

bool stepmgr_batch_request(struct noded *nd, uint32_t job_id, json_t *req)
{
    struct nd_stepd *s = batch_step(nd, job_id);

    return s && send_or_queue(s, req);
}

json_t *stepmgr_batch_jobs(struct noded *nd)
{
    json_t *arr = json_array();

    for (struct nd_stepd *s = nd->stepds; s; s = s->next) {
        if (s->step_id != STEPD_BATCH || s->reaped || s->reported
            || (!s->started && s->answered))
            continue;
        json_t *o = json_pack("{s:I}", "job_id", (json_int_t)s->job_id);
        if (s->run_id)
            json_object_set_new(o, "run_id", json_integer(s->run_id));
        json_array_append_new(arr, o);
    }
    return arr;
}

/* Started (or starting) and not ended. */
static bool running(const struct nd_stepd *s)
{
    return !s->reaped && !s->reported && (s->started || !s->answered);
}

json_t *stepmgr_running(struct noded *nd)
{
    json_t *arr = json_array();

    for (struct nd_stepd *s = nd->stepds; s; s = s->next)
        if (running(s))
            json_array_append_new(arr, json_pack("{s:I s:I}", "job_id",
                                                 (json_int_t)s->job_id,
                                                 "step_id",
                                                 (json_int_t)s->step_id));
    return arr;
}

json_t *stepmgr_running_info(struct noded *nd)
{
    json_t *arr = json_array();

    for (struct nd_stepd *s = nd->stepds; s; s = s->next)
        if (running(s))
            json_array_append_new(
                arr, json_pack("{s:I s:I s:s s:s}", "job_id",
                               (json_int_t)s->job_id, "step_id",
                               (json_int_t)s->step_id, "user",
                               s->user ? s->user : "", "gpus",
                               s->gpus ? s->gpus : ""));
    return arr;
}

/* Send a report once: it may be seen both by a scan and at the exit of
 * its step process. */
static void deliver(struct noded *nd, json_t *c)
{
    json_t *d;
    size_t i;

    json_array_foreach(nd->done, i, d) if (json_equal(c, d)) return;
    register_completion(nd, c);
    /* The batch script ended: the job is over on its batch host (the
     * controller tells the other nodes). */
    if (json_integer_value(json_object_get(c, "step_id")) == STEPD_BATCH)
        prolog_job_ended(nd, (uint32_t)json_integer_value(
                                 json_object_get(c, "job_id")), NULL);
}

/* The report file of a step, if written.  New reference or NULL. */
static json_t *read_report(struct noded *nd, uint32_t job, uint32_t step)
{
    char *path = stepd_done_path(nd->spool_dir, job, step);
    json_t *c = json_load_file(path, 0, NULL);

    free(path);
    return json_is_object(c) ? c : (json_decref(c), NULL);
}

/* A step process that ended leaving no report: its tasks are gone with
 * it (their cgroup went), so the step failed on this node. */
static void report_lost(struct nd_stepd *s, int status)
{
    json_t *c = json_pack("{s:s s:I s:I s:i s:b}", "node",
                          s->nd->node->name, "job_id",
                          (json_int_t)s->job_id, "step_id",
                          (json_int_t)s->step_id, "status", 1 << 8,
                          "cancelled", true);

    log_error("StepId=%u.%u: droverstepd ended (status %d) without a report",
              s->job_id, s->step_id, status);
    register_completion(s->nd, c);
    json_decref(c);
}

bool stepmgr_reaped(struct noded *nd, pid_t pid, int status)
{
    struct nd_stepd *s;
    json_t *c;

    for (s = nd->stepds; s && s->pid != pid; s = s->next)
        ;
    if (!s)
        return false;
    s->reaped = true;
    if (!s->reported && s->started) {
        if ((c = read_report(nd, s->job_id, s->step_id))) {
            deliver(nd, c);
            json_decref(c);
        } else {
            report_lost(s, status);
        }
    }
    s->reported = true;
    maybe_free(s);
    return true;
}

/* Deliver the report file of a step if there is one (its record may
 * go).  Returns whether there was. */
static bool scan_report(struct noded *nd, uint32_t job, uint32_t step)
{
    struct nd_stepd *s = find(nd, job, step);
    json_t *c = read_report(nd, job, step);

    if (!c)
        return false;
    deliver(nd, c);
    json_decref(c);
    if (s) {
        s->reported = true;
        maybe_free(s);
    }
    return true;
}

/* A step found alive in the spool: adopted (a record with no pid). */
static void adopt(struct noded *nd, uint32_t job, uint32_t step,
                  uint32_t run_id)
{
    struct nd_stepd *s;

    if (find(nd, job, step))
        return;
    s = xzalloc(sizeof(*s));
    *s = (struct nd_stepd){.nd = nd, .job_id = job, .step_id = step,
                           .run_id = run_id, .answered = true,
                           .started = true};
    s->next = nd->stepds;
    nd->stepds = s;
    log_info("StepId=%u.%u: found running", job, step);
}

/* A step whose socket is there but whose process is not. */
static void gone(struct noded *nd, uint32_t job, uint32_t step)
{
    struct nd_stepd *s = find(nd, job, step);
    char *path;

    if (s && (s->pid || s->reported))
        return; /* our own child: reaped as one */
    if (!s) { /* never known: its socket goes */
        path = stepd_sock_path(nd->spool_dir, job, step);
        unlink(path);
        free(path);
        return;
    }
    if (!scan_report(nd, job, step)) { /* it wrote none */
        report_lost(s, -1);
        s->reported = true;
        maybe_free(s);
    }
}

struct probe {
    struct noded *nd;
    uint32_t job, step;
};

static void probed(json_t *resp, void *arg)
{
    struct probe *p = arg;

    if (resp)
        adopt(p->nd, p->job, p->step,
              (uint32_t)json_integer_value(json_object_get(resp, "run_id")));
    else
        gone(p->nd, p->job, p->step);
    free(p);
}

/* Is the step of a socket alive?  Asked now ('wait') or from the loop. */
static void probe(struct noded *nd, uint32_t job, uint32_t step, bool wait)
{
    json_t *req = json_pack("{s:i s:b}", "signal", 0, "cancelled", false);
    struct probe *p;
    uint32_t run_id = 0;

    if (wait) {
        if (answers_now(nd, job, step, &run_id))
            adopt(nd, job, step, run_id);
        else
            gone(nd, job, step);
    } else {
        p = xzalloc(sizeof(*p));
        *p = (struct probe){.nd = nd, .job = job, .step = step};
        if (stepctl_call(nd, job, step, req, probed, p) < 0) {
            free(p);
            gone(nd, job, step);
        }
    }
    json_decref(req);
}

/* A socket with no record: a step left by an earlier droverd, if it
 * still answers. */
static void scan_socket(struct noded *nd, uint32_t job, uint32_t step,
                        bool wait)
{
    if (!find(nd, job, step))
        probe(nd, job, step, wait);
}

/* Adopted steps whose process may be gone without a report. */
static void check_adopted(struct noded *nd, bool wait)
{
    struct nd_stepd *s, *next;

    for (s = nd->stepds; s; s = next) {
        next = s->next;
        if (!s->pid && !s->reported)
            probe(nd, s->job_id, s->step_id, wait);
    }
}

void stepmgr_scan(struct noded *nd, bool wait)
{
    DIR *d = opendir(nd->spool_dir);
    struct dirent *e;
    uint32_t job, step;

    if (!d)
        return;
    while ((e = readdir(d))) {
        if (stepd_parse_name(e->d_name, ".done", &job, &step))
            scan_report(nd, job, step);
        else if (stepd_parse_name(e->d_name, ".sock", &job, &step))
            scan_socket(nd, job, step, wait);
    }
    closedir(d);
    check_adopted(nd, wait);
}

/* A step's report renamed into the spool: delivered at once, whether
 * its process is our child or one left by an earlier droverd. */
static void spool_event_cb(uv_fs_event_t *h, const char *name, int events,
                           int status)
{
    struct noded *nd = h->data;
    uint32_t job, step;

    (void)events;
    if (status == 0 && name && stepd_parse_name(name, ".done", &job, &step))
        scan_report(nd, job, step);
}

void stepmgr_watch(struct noded *nd)
{
    int rc;

    uv_fs_event_init(nd->loop, &nd->spool_watch);
    nd->spool_watch.data = nd;
    rc = uv_fs_event_start(&nd->spool_watch, spool_event_cb, nd->spool_dir,
                           0);
    if (rc < 0) /* reports still come at each registration */
        log_error("watching %s: %s", nd->spool_dir, uv_strerror(rc));
}

void stepmgr_acked(struct noded *nd, json_t *completion)
{
    json_t *step = json_object_get(completion, "step_id");
    char *path;

    if (!step)
        return;
    path = stepd_done_path(
        nd->spool_dir,
        (uint32_t)json_integer_value(json_object_get(completion, "job_id")),
        (uint32_t)json_integer_value(step));
    if (unlink(path) < 0 && errno != ENOENT)
        log_err("unlink %s", path);
    free(path);
}

void stepmgr_stop(struct noded *nd)
{
    for (struct nd_stepd *s = nd->stepds; s; s = s->next)
        if (s->pipe_open && !uv_is_closing((uv_handle_t *)&s->reply)) {
            uv_read_stop((uv_stream_t *)&s->reply);
            uv_close((uv_handle_t *)&s->reply, reply_closed);
        }
}

void stepmgr_forget_all(struct noded *nd)
{
    while (nd->stepds) {
        struct nd_stepd *s = nd->stepds;

        nd->stepds = s->next;
        free(s->answer);
        free(s->user);
        free(s->gpus);
        json_decref(s->queued); /* requests the step never answered */
        free(s);
    }
}
