/* SPDX-License-Identifier: Apache-2.0
 *
 * step.c - the tasks of a job step (srun) on this node, in droverstepd
 *
 * Once every task has ended, what is left in the step's cgroup (or the
 * tasks' process groups, without cgroups) is killed, and the node's part
 * of the step is written as the step's report (stepd.h), which droverd
 * sends to the controller (step_complete, resent until acknowledged),
 * with the tasks' highest wait status and their wait4() usage.
 *
 * step_launch forks one process per rank given, as the job's user, with
 * stdout and stderr on pipes, and connects to srun's I/O port.  Output
 * goes to srun as frames {"task","stream","data" (base64)}; once a task
 * has exited and both its pipes reached EOF, {"task","exit","node"}.
 * When every task has reported, the connection is shut down and the step
 * record freed.  The first frame is {"node","ranks","node_index"} (which ranks run
 * here).  With "pty" (srun --pty) rank 0 runs on a pseudo-terminal whose
 * master is its output stream; srun's {"stdin"}, {"stdin_eof"} and
 * {"winsize"} frames on the same connection feed it (docs/protocol.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <pty.h>

#include "common/base64.h"
#include "common/jobpath.h"
#include "common/log.h"
#include "common/multiprog.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "noded/cgroup.h"
#include "noded/gpu_files.h"
#include "noded/noded.h"
#include "noded/stepd.h"
#include "noded/step_attach.h"
#include "noded/step_bind.h"
#include "noded/stepd_link.h"
#include "noded/task_limits.h"
#include "noded/task_script.h"
#include "noded/mpi_pmix.h"
#include "noded/oci.h"
#include "proto/frame.h"

struct step_task {
    struct nd_step *st;
    int rank;
    pid_t pid;
    int status;
    bool reaped;
    int open_pipes;
    bool reported;
    struct rusage ru; /* from wait4() */
    uv_pipe_t out;
    uv_pipe_t err;
    uv_pipe_t in;      /* srun's stdin to this task (-i all, -i N) */
    bool in_open;
};

struct nd_step {
    struct noded *nd;
    uint32_t job_id;
    uint32_t step_id;
    size_t ntasks;
    size_t remaining;  /* tasks not yet reported */
    int handles;       /* open libuv handles */
    bool connected;
    bool io_failed;
    bool finishing;
    bool pty;          /* srun --pty: rank 0 on a pseudo-terminal */
    struct step_task *tty_task; /* that task, while its terminal is open */
    struct stepd_link link; /* frames to and from srun (TLS or plain) */
    bool killed;       /* ended for its job or by scancel: "cancelled" */
    struct step_task *tasks;
    struct nd_pmix_ns *pmix;  /* --mpi=pmix: the step's PMIx namespace */
    struct cgroup_step *cg;   /* its cgroup, or NULL */
    struct step_bind *bind;   /* CPU/GPU binding (step_bind.h), or NULL */
    struct oci_step *oci;     /* --container (oci.h), or NULL */
    bool leftovers_killed;    /* every task reaped: the rest was killed */
    json_t *body;             /* step_launch's (task epilogs' environment) */
    struct step_attach *attach; /* sattach: output cache, attachers */
    uv_tcp_t tcp;
    uv_connect_t connect_req;
    uv_shutdown_t shutdown_req;
    struct nd_step *next;
};

extern char **environ;

static void unlink_free(struct nd_step *st)
{
    struct nd_step **pp = &st->nd->steps;

    while (*pp && *pp != st)
        pp = &(*pp)->next;
    if (*pp)
        *pp = st->next;
    nd_pmix_ns_destroy(st->pmix);
    cgroup_step_destroy(st->cg);
    step_bind_destroy(st->bind);
    oci_step_destroy(st->oci);
    stepd_link_clear(&st->link);
    json_decref(st->body);
    step_attach_destroy(st->attach);
    free(st->tasks);
    stepd_step_freed(st->nd);
    free(st);
}

static void handle_closed(uv_handle_t *h)
{
    struct nd_step *st = h->data;

    if (--st->handles == 0)
        unlink_free(st);
}

static void write_done(uv_write_t *w, int status)
{
    (void)status;
    free(w->data);
    free(w);
}

/* A frame ('msg', stolen) to srun. */
static void send_frame(struct nd_step *st, json_t *msg)
{
    if (!st->io_failed)
        (void)stepd_link_send(&st->link, msg); /* srun gone: reads say */
    json_decref(msg);
}

/* An output or exit frame: to srun, and kept and sent for sattach. */
static void send_output(struct nd_step *st, json_t *msg)
{
    step_attach_frame(st->attach, msg);
    send_frame(st, msg);
}

static void attach_closed(void *arg)
{
    struct nd_step *st = arg;

    if (--st->handles == 0)
        unlink_free(st);
}

static void shutdown_done(uv_shutdown_t *req, int status)
{
    struct nd_step *st = req->data;

    (void)status;
    uv_close((uv_handle_t *)&st->tcp, handle_closed);
}

static void finish(struct nd_step *st)
{
    /* With TLS, frames wait in the engine until srun's handshake ends
     * (io_read_cb() calls again): a shutdown now would lose them. */
    if (st->remaining > 0 || st->finishing
        || (!st->connected && !st->io_failed)
        || (!st->io_failed && !stepd_link_flushed(&st->link)))
        return;
    st->finishing = true;
    st->handles++; /* the attachers, as one */
    step_attach_close(st->attach, attach_closed, st);
    st->shutdown_req.data = st;
    if (st->io_failed
        || uv_shutdown(&st->shutdown_req, (uv_stream_t *)&st->tcp,
                       shutdown_done)
               < 0)
        uv_close((uv_handle_t *)&st->tcp, handle_closed);
}

static int64_t tv_us(struct timeval tv)
{
    return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

/* The node's report of the step: max status, largest RSS and its rank,
 * summed CPU times. */
static void report_step(struct nd_step *st)
{
    json_t *c = json_pack("{s:s s:I s:I}", "node", st->nd->node->name,
                          "job_id", (json_int_t)st->job_id, "step_id",
                          (json_int_t)st->step_id);
    struct rusage sum = {0};
    int status = 0, task = -1;

    for (size_t i = 0; i < st->ntasks; i++) {
        const struct step_task *t = &st->tasks[i];

        if (t->status > status)
            status = t->status;
        if (task < 0 || t->ru.ru_maxrss > sum.ru_maxrss) {
            sum.ru_maxrss = t->ru.ru_maxrss;
            task = t->rank;
        }
        sum.ru_utime.tv_sec += t->ru.ru_utime.tv_sec;
        sum.ru_utime.tv_usec += t->ru.ru_utime.tv_usec;
        sum.ru_stime.tv_sec += t->ru.ru_stime.tv_sec;
        sum.ru_stime.tv_usec += t->ru.ru_stime.tv_usec;
    }
    usage_to_json(&sum, task, c);
    json_object_set_new(c, "status", json_integer(status));
    if (st->killed)
        json_object_set_new(c, "cancelled", json_true());
    log_info("StepId=%u.%u: tasks done, status %d, max RSS %lld KiB, "
             "CPU %lld+%lld us",
             st->job_id, st->step_id, status, (long long)sum.ru_maxrss,
             (long long)tv_us(sum.ru_utime), (long long)tv_us(sum.ru_stime));
    stepd_write_report(st->nd->spool_dir, c);
    json_decref(c);
}

static void task_check(struct step_task *t)
{
    struct nd_step *st = t->st;

    if (!t->reaped || t->open_pipes > 0 || t->reported)
        return;
    t->reported = true;
    send_output(st, json_pack("{s:i s:i s:s}", "task", t->rank, "exit",
                              t->status, "node", st->nd->node->name));
    if (--st->remaining == 0)
        report_step(st);
    finish(st);
}

static void pipe_closed(uv_handle_t *h)
{
    struct step_task *t = h->data;
    struct nd_step *st = t->st;

    t->open_pipes--;
    task_check(t);
    if (--st->handles == 0)
        unlink_free(st);
}

static void read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct step_task *t = s->data;
    const char *stream = s == (uv_stream_t *)&t->out ? "out" : "err";

    if (n > 0) {
        char *b64 = base64_encode(buf->base, (size_t)n);

        send_output(t->st, json_pack("{s:i s:s s:s}", "task", t->rank,
                                     "stream", stream, "data", b64));
        free(b64);
    } else if (n < 0) {
        uv_read_stop(s);
        uv_close((uv_handle_t *)s, pipe_closed);
    }
    free(buf->base);
}

static void kill_tasks(struct nd_step *st, int signo)
{
    for (size_t i = 0; i < st->ntasks; i++)
        if (!st->tasks[i].reaped && st->tasks[i].pid > 0)
            killpg(st->tasks[i].pid, signo);
    if (st->cg)
        cgroup_step_signal(st->cg, signo);
}

/* Every task was reaped: what they left running (a background process,
 * one that called setsid) goes too, as Slurm's proctrack does at the end
 * of a step, so it cannot hold the step's output open. */
static void kill_leftovers(struct nd_step *st)
{
    for (size_t i = 0; i < st->ntasks; i++)
        if (!st->tasks[i].reaped)
            return;
    if (st->leftovers_killed)
        return;
    st->leftovers_killed = true;
    for (size_t i = 0; i < st->ntasks; i++)
        if (st->tasks[i].pid > 0)
            killpg(st->tasks[i].pid, SIGKILL);
    if (st->cg)
        cgroup_step_signal(st->cg, SIGKILL);
}

static void tty_write(struct step_task *t, const char *data, size_t len)
{
    uv_write_t *w = xzalloc(sizeof(*w));
    uv_buf_t buf;

    w->data = xzalloc(len + 1);
    memcpy(w->data, data, len);
    buf = uv_buf_init(w->data, (unsigned)len);
    if (uv_write(w, (uv_stream_t *)&t->out, &buf, 1, write_done) < 0) {
        free(w->data);
        free(w);
    }
}

static void in_closed(uv_handle_t *h)
{
    struct step_task *t = h->data;

    if (--t->st->handles == 0)
        unlink_free(t->st);
}

static void close_stdin(struct step_task *t)
{
    if (!t->in_open)
        return;
    t->in_open = false;
    uv_close((uv_handle_t *)&t->in, in_closed);
}

static void in_write_done(uv_write_t *w, int status)
{
    struct step_task *t = w->handle->data;

    if (status < 0 && status != UV_ECANCELED)
        close_stdin(t); /* the task closed its stdin or ended */
    free(w->data);
    free(w);
}

/* Bytes of stdin waiting for one task to read them, at most: a task that
 * does not read its stdin must not make this root daemon hold all that
 * srun or sattach send (past it, that task's stdin is closed). */
#define STDIN_QUEUE_MAX (64u << 20)

/* srun's stdin (-i all, -i N): to each task here that reads it ('only':
 * that rank alone, sattach --input-filter; -1: all). */
static void stdin_to_tasks(struct nd_step *st, json_t *m, long only)
{
    const char *data = json_string_value(json_object_get(m, "stdin"));
    unsigned char *bytes = NULL;
    size_t len = 0;

    if (data && !(bytes = base64_decode(data, &len)))
        return;
    for (size_t i = 0; i < st->ntasks; i++) {
        struct step_task *t = &st->tasks[i];
        uv_write_t *w;
        uv_buf_t buf;

        if (!t->in_open || (only >= 0 && t->rank != only))
            continue;
        if (!data) { /* stdin_eof */
            close_stdin(t);
            continue;
        }
        if (uv_stream_get_write_queue_size((uv_stream_t *)&t->in) + len
            > STDIN_QUEUE_MAX) {
            log_error("StepId=%u.%u: task %d reads none of its stdin "
                      "(%u MiB waiting): its stdin is closed", st->job_id,
                      st->step_id, t->rank, STDIN_QUEUE_MAX >> 20);
            close_stdin(t);
            continue;
        }
        w = xzalloc(sizeof(*w));
        w->data = xzalloc(len + 1);
        memcpy(w->data, bytes, len);
        buf = uv_buf_init(w->data, (unsigned)len);
        if (uv_write(w, (uv_stream_t *)&t->in, &buf, 1, in_write_done) < 0) {
            free(w->data);
            free(w);
            close_stdin(t);
        }
    }
    free(bytes);
}

/* One frame from srun for the terminal of rank 0. */
static void tty_frame(struct nd_step *st, json_t *m)
{
    struct step_task *t = st->tty_task;
    const char *data = json_string_value(json_object_get(m, "stdin"));
    json_t *ws = json_object_get(m, "winsize");
    uv_os_fd_t fd;

    if (!t || t->open_pipes == 0)
        return;
    if (data) {
        size_t len;
        unsigned char *bytes = base64_decode(data, &len);

        if (bytes && len)
            tty_write(t, (char *)bytes, len);
        free(bytes);
    } else if (json_is_true(json_object_get(m, "stdin_eof"))) {
        tty_write(t, "\x04", 1); /* the terminal's EOF character */
    } else if (json_is_object(ws)
               && uv_fileno((uv_handle_t *)&t->out, &fd) == 0) {
        struct winsize w = {
            .ws_row = (unsigned short)json_integer_value(
                json_object_get(ws, "rows")),
            .ws_col = (unsigned short)json_integer_value(
                json_object_get(ws, "cols")),
        };
        ioctl(fd, TIOCSWINSZ, &w);
    }
}

/* sattach's stdin: {"stdin": base64, "task": rank (optional)} to the
 * tasks that read srun's (or task 0's terminal with --pty).  Its end is
 * not passed on: the tasks' stdin is srun's, and stays open for it. */
static void attach_input(json_t *m, void *arg)
{
    struct nd_step *st = arg;
    json_t *task = json_object_get(m, "task");

    if (!json_is_string(json_object_get(m, "stdin")))
        return;
    if (st->pty) {
        if (!task || json_integer_value(task) == 0)
            tty_frame(st, m);
        return;
    }
    stdin_to_tasks(st, m, task ? (long)json_integer_value(task) : -1);
}

/* srun went away (killed, or its host lost) while tasks run: they are
 * killed, as Slurm's slurmstepd does when it loses srun; the step's
 * report says "cancelled". */
static void srun_lost(struct nd_step *st, ssize_t why)
{
    bool live = false;

    for (size_t i = 0; i < st->ntasks; i++) {
        struct step_task *t = &st->tasks[i];

        if (t->pid > 0 && !t->reaped)
            live = true;
    }
    if (live)
        kill_tasks(st, SIGKILL);
    if (!live)
        return;
    log_error("StepId=%u.%u: srun is gone (%s), tasks killed", st->job_id,
              st->step_id, uv_strerror((int)why));
    st->killed = true;
    st->io_failed = true;
}

/* srun's side of the I/O connection (--pty, --mpi=pmix): terminal
 * input, PMIx fence answers, a step abort.  When srun goes away the
 * terminal is hung up, as a terminal's is, PMIx fences fail, and every
 * task is killed. */
static void io_read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct nd_step *st = s->data;
    drv_error_t error = {{0}};
    json_t *m;

    if (n > 0
        && stepd_link_feed(&st->link, buf->base, (size_t)n, &error) < 0) {
        log_error("StepId=%u.%u: I/O connection to srun: %s", st->job_id,
                  st->step_id, error.text);
        n = UV_EPROTO; /* as if srun went away */
    }
    if (n > 0) {
        while ((m = proto_decoder_next(st->link.dec, NULL))) {
            if (json_object_get(m, "abort"))
                kill_tasks(st, SIGKILL);
            else if (json_object_get(m, "fence") && st->pmix)
                nd_pmix_ns_frame(st->pmix, m);
            else if (st->pty)
                tty_frame(st, m);
            else
                stdin_to_tasks(st, m, -1);
            json_decref(m);
        }
        finish(st); /* waiting for the TLS handshake to end */
    } else if (n < 0) {
        uv_read_stop(s);
        if (st->pmix)
            nd_pmix_ns_lost(st->pmix);
        if (st->tty_task && !st->tty_task->reaped && st->tty_task->pid > 0)
            killpg(st->tty_task->pid, SIGHUP);
        for (size_t i = 0; i < st->ntasks; i++)
            close_stdin(&st->tasks[i]);
        srun_lost(st, n);
        st->io_failed = true; /* nothing more goes to srun */
        finish(st);
    }
    free(buf->base);
}

static void connect_cb(uv_connect_t *req, int status)
{
    struct nd_step *st = req->data;

    if (status < 0) {
        if (st->pmix)
            nd_pmix_ns_lost(st->pmix);
        log_error("StepId=%u.%u: connecting to srun: %s", st->job_id,
                  st->step_id, uv_strerror(status));
        st->io_failed = true;
        kill_tasks(st, SIGKILL);
    }
    st->connected = true;
    if (status >= 0)
        uv_read_start((uv_stream_t *)&st->tcp, stepd_alloc_cb, io_read_cb);
    finish(st);
}

/* The task's name=value list: the step's environment without the
 * per-task names, then those. */
static const char *const task_vars[] = {
    "SLURM_STEP_ID=", "SLURM_STEPID=", "SLURM_PROCID=", "SLURM_LOCALID=",
    "SLURM_NODEID=", "SLURM_STEP_NODELIST=", "SLURM_STEP_NUM_TASKS=",
    "SLURM_STEP_NUM_NODES=", "SLURM_STEP_TASKS_PER_NODE=",
    "SLURMD_NODENAME=", "SLURM_CONF=", "SLURM_GTIDS=",
    "SLURM_TOPOLOGY_ADDR=", "SLURM_TOPOLOGY_ADDR_PATTERN=",
    "SLURM_CPUS_ON_NODE=", "SLURM_LAUNCH_NODE_IPADDR=",
    "SLURM_SRUN_COMM_HOST=", "SLURM_SRUN_COMM_PORT=", "SLURM_TASK_PID=",
    NULL,
};

/* Replaced when the step has GPUs on this node. */
static const char *const gpu_vars[] = {
    "CUDA_VISIBLE_DEVICES=", "GPU_DEVICE_ORDINAL=", "SLURM_STEP_GPUS=",
    "SLURM_SHARDS_ON_NODE=", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=", NULL,
};

static bool in_list(const char *kv, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        if (!strncmp(kv, names[i], strlen(names[i])))
            return true;
    return false;
}

static bool is_task_var(const char *kv, bool gpus)
{
    return in_list(kv, task_vars) || (gpus && in_list(kv, gpu_vars));
}

/* "2,3": 'n' GPUs of the step's list on this node from position 'first'
 * (all of them when n is 0); with 'relative', their positions in the
 * list instead ("0,1"): a step whose cgroup hides the node's other GPUs
 * sees its own numbered from 0, as Slurm numbers them under
 * ConstrainDevices. */
static char *gpu_ids(json_t *gpus, size_t first, size_t n, bool relative)
{
    char *s = xstrdup(""), *t;

    if (!n) {
        first = 0;
        n = json_array_size(gpus);
    }
    for (size_t i = first; i < first + n && i < json_array_size(gpus); i++) {
        long long id = relative ? (long long)i
                                : (long long)json_integer_value(
                                      json_array_get(gpus, i));

        t = xasprintf("%s%s%lld", s, *s ? "," : "", id);
        free(s);
        s = t;
    }
    return s;
}

/* The GPUs at positions 'pos' of 'gpus', as gpu_ids() writes them. */
static char *gpu_ids_at(json_t *gpus, json_t *pos, bool relative)
{
    char *s = xstrdup(""), *t, *one;
    json_t *p;
    size_t i;

    json_array_foreach(pos, i, p) {
        one = gpu_ids(gpus, (size_t)json_integer_value(p), 1, relative);
        t = xasprintf("%s%s%s", s, *s ? "," : "", one);
        free(one);
        free(s);
        s = t;
    }
    return s;
}

/* The step's GPUs on this node (step_launch "gpus"): task 'local' sees
 * those --gpu-bind gives it (step_bind.h), else its own gpus_per_task of
 * them, in order, or all of them.  SLURM_STEP_GPUS keeps the node's
 * indexes; with the job's shards here (step_launch "shards") it is
 * SLURM_SHARDS_ON_NODE instead, with its gres/mps ("mps_percent")
 * CUDA_MPS_ACTIVE_THREAD_PERCENTAGE. */
static size_t set_gpu_vars(char **e, size_t n, json_t *body, int local,
                           bool relative, const struct step_bind *bind)
{
    json_t *gpus = json_object_get(body, "gpus"), *pos;
    json_int_t gpt = json_integer_value(json_object_get(body,
                                                        "gpus_per_task"));
    json_int_t shards = json_integer_value(json_object_get(body, "shards"));
    json_int_t mps = json_integer_value(json_object_get(body, "mps_percent"));
    char *all, *mine;

    if (!json_is_array(gpus))
        return n;
    all = gpu_ids(gpus, 0, 0, false);
    pos = step_bind_gpus(bind, gpus, (size_t)local);
    mine = pos ? gpu_ids_at(gpus, pos, relative)
           : gpt > 0 ? gpu_ids(gpus, (size_t)(local * gpt), (size_t)gpt,
                               relative)
                     : gpu_ids(gpus, 0, 0, relative);
    json_decref(pos);
    e[n++] = xasprintf("CUDA_VISIBLE_DEVICES=%s", mine);
    e[n++] = xasprintf("GPU_DEVICE_ORDINAL=%s", mine);
    if (shards > 0 && mps > 0) /* gres/mps: Slurm's share of the GPU */
        e[n++] = xasprintf("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%lld",
                           (long long)mps);
    else if (shards > 0) /* gres/shard of the one GPU (Slurm's variable) */
        e[n++] = xasprintf("SLURM_SHARDS_ON_NODE=%lld", (long long)shards);
    else
        e[n++] = xasprintf("SLURM_STEP_GPUS=%s", all);
    free(all);
    free(mine);
    return n;
}

struct step_desc {
    json_t *body;
    const struct cgroup_step *cg; /* or NULL */
    const struct step_bind *bind; /* or NULL */
    const struct oci_step *oci;   /* --container, or NULL */
    const char *user;
    const char *cwd;
    json_int_t uid, gid, node_index, ntasks, job_id, step_id;
    const char *nodes;
    const char *tasks_per_node;
    json_int_t num_nodes;
    const char *input;     /* srun -i, or NULL */
    const char *job_name;  /* SLURM_JOB_NAME of env, or NULL */
};

/* The variables Slurm's slurmstepd sets for this node's tasks (7 of
 * them, into e[0..6]): the ranks here, the node in the topology, the
 * job's CPUs here, srun's address and port. */
static void node_vars(const struct step_desc *d, struct noded *nd, char **e)
{
    const char *host = json_string_value(json_object_get(d->body, "io_host"));
    json_int_t port = json_integer_value(json_object_get(d->body, "io_port"));
    json_t *ranks = json_object_get(d->body, "ranks"), *r;
    char *gtids = xstrdup(""), *t;
    size_t i;

    json_array_foreach(ranks, i, r) {
        t = xasprintf("%s%s%lld", gtids, i ? "," : "",
                      (long long)json_integer_value(r));
        free(gtids);
        gtids = t;
    }
    e[0] = xasprintf("SLURM_GTIDS=%s", gtids);
    free(gtids);
    e[1] = xasprintf("SLURM_TOPOLOGY_ADDR=%s", nd->node->name);
    e[2] = xstrdup("SLURM_TOPOLOGY_ADDR_PATTERN=node");
    e[3] = xasprintf("SLURM_CPUS_ON_NODE=%lld", (long long)json_integer_value(
                         json_object_get(d->body, "job_cpus")));
    e[4] = xasprintf("SLURM_LAUNCH_NODE_IPADDR=%s", host ? host : "");
    e[5] = xasprintf("SLURM_SRUN_COMM_HOST=%s", host ? host : "");
    e[6] = xasprintf("SLURM_SRUN_COMM_PORT=%lld", (long long)port);
}

static char **task_env(const struct step_desc *d, struct noded *nd, int rank,
                       int local)
{
    json_t *env = json_object_get(d->body, "env"), *v;
    char **e = xzalloc(sizeof(*e) * (json_array_size(env) + 32));
    bool gpus = json_is_array(json_object_get(d->body, "gpus"));
    size_t i, n = 0;

    json_array_foreach(env, i, v) {
        const char *s = json_string_value(v);
        if (s && !is_task_var(s, gpus) && !step_bind_replaces(d->bind, s))
            e[n++] = xstrdup(s);
    }
    n = set_gpu_vars(e, n, d->body, local,
                     nd->cgroup && cgroup_root_isolates_devices(nd->cgroup),
                     d->bind);
    n = step_bind_env(d->bind, (size_t)local, e, n);
    e[n++] = xasprintf("SLURM_STEP_ID=%lld", (long long)d->step_id);
    e[n++] = xasprintf("SLURM_STEPID=%lld", (long long)d->step_id);
    e[n++] = xasprintf("SLURM_PROCID=%d", rank);
    e[n++] = xasprintf("SLURM_LOCALID=%d", local);
    e[n++] = xasprintf("SLURM_NODEID=%lld", (long long)d->node_index);
    e[n++] = xasprintf("SLURM_STEP_NODELIST=%s", d->nodes);
    e[n++] = xasprintf("SLURM_STEP_NUM_TASKS=%lld", (long long)d->ntasks);
    e[n++] = xasprintf("SLURM_STEP_NUM_NODES=%lld", (long long)d->num_nodes);
    e[n++] = xasprintf("SLURM_STEP_TASKS_PER_NODE=%s", d->tasks_per_node);
    e[n++] = xasprintf("SLURMD_NODENAME=%s", nd->node->name);
    if (nd->conf->path) /* as in a batch job (launch_env.c) */
        e[n++] = xasprintf("SLURM_CONF=%s", nd->conf->path);
    node_vars(d, nd, e + n);
    return e;
}

static char **str_array(json_t *a)
{
    char **v = xzalloc(sizeof(*v) * (json_array_size(a) + 1));
    json_t *x;
    size_t i;

    json_array_foreach(a, i, x) v[i] = xstrdup(json_string_value(x) ?: "");
    return v;
}

static void free_strv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* In the task's process: SLURM_TASK_PID, then slurm.conf TaskProlog and
 * srun --task-prolog (task_script.h); a failing one ends the task. */
static void task_prologs(const struct step_desc *d, struct noded *nd,
                         char ***envp)
{
    const char *paths[] = {nd->conf->task_prolog,
                           json_string_value(json_object_get(d->body,
                                                             "task_prolog"))};
    char pid[16];

    snprintf(pid, sizeof(pid), "%d", (int)getpid());
    task_env_set(envp, "SLURM_TASK_PID", pid);
    for (size_t i = 0; i < 2; i++) {
        int rc = paths[i] ? task_prolog_run(paths[i], envp) : 0;

        if (rc) {
            log_error("%s failed status=%d",
                      i ? "--task-prolog" : "TaskProlog", rc);
            _exit(rc);
        }
    }
}

/* 'in' -1: 'in_path' (-i FILE, opened as the user) or /dev/null;
 * 'ctty': 'in' is a terminal to make ours. */
static void task_child(const struct step_desc *d, const struct step_task *t,
                       int local, int in, const char *in_path, int out,
                       int err, bool ctty, char **argv, char **envp)
{
    int null = in;

    child_reset();
    if (d->cg && cgroup_step_attach(d->cg, 0) < 0)
        dprintf(err, "droverd: step task: joining its cgroup: %s\n",
                strerror(errno));
    /* after the cgroup: joining a cpuset resets the CPU mask */
    step_bind_apply(d->bind, (size_t)local, t->rank, t->st->nd->node->name,
                    err);
    if (ctty && ioctl(in, TIOCSCTTY, 0) < 0)
        dprintf(err, "droverd: step task: TIOCSCTTY: %s\n", strerror(errno));
    task_limits_apply(json_object_get(d->body, "rlimits"), envp, err);
    if (child_become_user(d->user, (uid_t)d->uid, (gid_t)d->gid) < 0) {
        dprintf(err, "droverd: step task: setting user: %s\n",
                strerror(errno));
        _exit(127);
    }
    if (chdir(d->cwd) < 0 && chdir("/tmp") < 0)
        _exit(127);
    if (null < 0 && in_path && (null = open(in_path, O_RDONLY)) < 0) {
        dprintf(err, "slurmstepd: error: %s: %s\n", in_path,
                strerror(errno));
        _exit(1);
    }
    if (null < 0)
        null = open("/dev/null", O_RDONLY);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0
        || dup2(err, 2) < 0)
        _exit(127);
    child_close_fds();
    task_prologs(d, t->st->nd, &envp);
    if (d->oci)
        oci_task_exec(d->oci, t->rank, argv, envp);
    environ = envp;
    execvp(argv[0], argv);
    fprintf(stderr, "droverd: step task: %s: %s\n", argv[0], strerror(errno));
    _exit(errno == ENOENT ? 127 : 126);
}

static void watch_pipe(struct step_task *t, uv_pipe_t *p, int fd)
{
    struct nd_step *st = t->st;

    uv_pipe_init(st->nd->loop, p, 0);
    uv_pipe_open(p, fd);
    p->data = t;
    st->handles++;
    t->open_pipes++;
    uv_read_start((uv_stream_t *)p, stepd_alloc_cb, read_cb);
}

/* srun -i (docs/protocol.md step_launch "input"): -1 when every task
 * reads srun's stdin ("all", or none given), the rank that alone reads
 * it, or -2: a file name pattern each task opens ("none" came as
 * /dev/null). */
static long input_rank(const char *mode)
{
    char *end;
    long r;

    if (!mode || !strcmp(mode, "all"))
        return -1;
    r = strtol(mode, &end, 10);
    return end != mode && !*end && r >= 0 ? r : -2;
}

static bool reads_srun_stdin(const struct step_desc *d, int rank)
{
    long r = input_rank(d->input);

    return r == -1 || r == rank;
}

/* -i FILE for task 'rank', expanded; NULL when it reads no file. */
static char *stdin_path(const struct step_desc *d, struct noded *nd,
                        int rank)
{
    struct jobpath_vars v = {
        .job_id = (uint32_t)d->job_id, .job_name = d->job_name,
        .user = d->user, .node = nd->node->name, .array_task_id = -1,
        .work_dir = d->cwd, .have_step = true,
        .step_id = (uint32_t)d->step_id, .task_id = (uint32_t)rank,
        .node_id = (uint32_t)d->node_index,
    };

    return input_rank(d->input) == -2 ? jobpath_expand(d->input, &v) : NULL;
}

/* Its stdin: a pipe fed by srun's stdin frames, or -1. */
static int stdin_pipe(struct nd_step *st, const struct step_desc *d,
                      struct step_task *t)
{
    int in[2];

    if (!reads_srun_stdin(d, t->rank) || pipe2(in, O_CLOEXEC) < 0)
        return -1;
    uv_pipe_init(st->nd->loop, &t->in, 0);
    uv_pipe_open(&t->in, in[1]);
    t->in.data = t;
    t->in_open = true;
    st->handles++;
    return in[0];
}

/* Fork rank 'rank' (local index 'local'); its pipes are watched. */
static int start_task(struct nd_step *st, const struct step_desc *d,
                      struct step_task *t, int local, char **argv)
{
    int out[2], err[2], in;
    char **envp, *in_path;

    if (pipe2(out, O_CLOEXEC) < 0)
        return -1;
    if (pipe2(err, O_CLOEXEC) < 0) {
        close(out[0]);
        close(out[1]);
        return -1;
    }
    t->st = st;
    in = stdin_pipe(st, d, t);
    in_path = stdin_path(d, st->nd, t->rank);
    envp = task_env(d, st->nd, t->rank, local);
    if (st->pmix)
        nd_pmix_ns_fork_env(st->pmix, t->rank, &envp);
    if ((t->pid = fork()) == 0)
        task_child(d, t, local, in, in_path, out[1], err[1], false, argv,
                   envp);
    free_strv(envp);
    free(in_path);
    if (in >= 0)
        close(in);
    close(out[1]);
    close(err[1]);
    if (t->pid < 0) {
        close(out[0]);
        close(err[0]);
        return -1;
    }
    watch_pipe(t, &t->out, out[0]);
    watch_pipe(t, &t->err, err[0]);
    return 0;
}

/* srun --pty: rank 0 with a pseudo-terminal as stdin, stdout and stderr
 * and as its controlling terminal; the master is its output stream. */
static int start_tty_task(struct nd_step *st, const struct step_desc *d,
                          struct step_task *t, int local, char **argv)
{
    json_t *b = d->body;
    struct winsize ws = {
        .ws_row = (unsigned short)json_integer_value(
            json_object_get(b, "pty_rows")),
        .ws_col = (unsigned short)json_integer_value(
            json_object_get(b, "pty_cols")),
    };
    int master, slave;
    char **envp;

    if (!ws.ws_row || !ws.ws_col)
        ws = (struct winsize){.ws_row = 24, .ws_col = 80};
    if (openpty(&master, &slave, NULL, NULL, &ws) < 0)
        return -1;
    fcntl(master, F_SETFD, FD_CLOEXEC);
    if (fchown(slave, (uid_t)d->uid, (gid_t)d->gid) < 0)
        log_err("StepId=%u.%u: pty owner", st->job_id, st->step_id);
    envp = task_env(d, st->nd, t->rank, local);
    t->st = st;
    if ((t->pid = fork()) == 0)
        task_child(d, t, local, slave, NULL, slave, slave, true, argv, envp);
    free_strv(envp);
    close(slave);
    if (t->pid < 0) {
        close(master);
        return -1;
    }
    watch_pipe(t, &t->out, master);
    st->tty_task = t;
    return 0;
}

/* NAME's value in a ["K=V"] list, or NULL. */
static const char *env_value(json_t *env, const char *name)
{
    size_t i, n = strlen(name);
    json_t *v;

    json_array_foreach(env, i, v) {
        const char *s = json_string_value(v);
        if (s && !strncmp(s, name, n) && s[n] == '=')
            return s + n + 1;
    }
    return NULL;
}

static int parse_desc(json_t *body, struct step_desc *d, drv_error_t *error)
{
    d->body = body;
    if (json_unpack(body,
                    "{s:I s:I s:I s:I s:s s:s s:I s:I s:s s:s s:I}",
                    "job_id", &d->job_id, "step_id", &d->step_id, "uid",
                    &d->uid, "gid", &d->gid, "user_name", &d->user, "cwd",
                    &d->cwd, "node_index", &d->node_index, "ntasks",
                    &d->ntasks, "nodes", &d->nodes, "tasks_per_node",
                    &d->tasks_per_node, "num_nodes", &d->num_nodes)
            < 0
        || json_array_size(json_object_get(body, "argv")) == 0
        || json_array_size(json_object_get(body, "ranks")) == 0
        || !json_is_string(json_object_get(body, "io_key")))
        return errprintf(error, "step_launch: incomplete step description");
    d->input = json_string_value(json_object_get(body, "input"));
    d->job_name = env_value(json_object_get(body, "env"), "SLURM_JOB_NAME");
    return 0;
}

static int connect_srun(struct nd_step *st, json_t *body, drv_error_t *error)
{
    const char *host = json_string_value(json_object_get(body, "io_host"));
    int port = (int)json_integer_value(json_object_get(body, "io_port"));
    struct sockaddr_storage sa;
    int rc;

    if (!host || (uv_ip4_addr(host, port, (struct sockaddr_in *)&sa) < 0
                  && uv_ip6_addr(host, port, (struct sockaddr_in6 *)&sa) < 0))
        return errprintf(error, "step_launch: bad io_host");
    uv_tcp_init(st->nd->loop, &st->tcp);
    st->tcp.data = st;
    st->handles++;
    if (stepd_link_init(&st->link, (uv_stream_t *)&st->tcp, st->nd->io_tls,
                        error) < 0) {
        st->io_failed = true;
        return -1;
    }
    st->connect_req.data = st;
    rc = uv_tcp_connect(&st->connect_req, &st->tcp, (struct sockaddr *)&sa,
                        connect_cb);
    if (rc < 0) {
        st->io_failed = true;
        return errprintf(error, "connecting to srun: %s", uv_strerror(rc));
    }
    return 0;
}

static void pmix_send(void *arg, json_t *msg)
{
    send_frame(arg, msg);
}

/* --mpi: "none" (or absent) runs the tasks as they are; "pmix" and
 * "pmix_v4" serve them a PMIx namespace (pmix.c). */
static int mpi_setup(struct nd_step *st, const struct step_desc *d,
                     drv_error_t *error)
{
    const char *mpi = json_string_value(json_object_get(d->body, "mpi"));
    struct nd_pmix_step ps = {
        .job_id = (uint32_t)d->job_id, .step_id = (uint32_t)d->step_id,
        .uid = (uid_t)d->uid, .gid = (gid_t)d->gid,
        .ntasks = (uint32_t)d->ntasks, .node_index = (uint32_t)d->node_index,
        .nodes = d->nodes, .tasks_per_node = d->tasks_per_node,
        .task_map = json_object_get(d->body, "task_map"),
        .send = pmix_send, .send_arg = st,
    };

    if (!mpi || !strcmp(mpi, "none"))
        return 0;
    if (strcmp(mpi, "pmix") && strcmp(mpi, "pmix_v4"))
        return errprintf(error, "step_launch: MPI type '%s' is not supported",
                         mpi);
    st->pmix = nd_pmix_ns_create(st->nd, &ps, error);
    return st->pmix ? 0 : -1;
}

/* The split of the node's GPU files (gpu_files.h) for 'given', a JSON
 * array of GPU indexes (anything else: none given). */
static void step_gpu_files(const struct conf_node *node, json_t *given,
                           struct gpu_files *out)
{
    size_t bits = node->gres_dev_count, i;
    bitmap_t *b = NULL;
    json_t *g;

    json_array_foreach(given, i, g) {
        json_int_t idx = json_integer_value(g);
        if (idx >= 0 && idx < (1 << 16) && (size_t)idx >= bits)
            bits = (size_t)idx + 1;
    }
    if (json_array_size(given) && (b = bitmap_create(bits ? bits : 1)))
        json_array_foreach(given, i, g) {
            json_int_t idx = json_integer_value(g);
            if (idx >= 0 && (size_t)idx < bits)
                bitmap_set(b, (size_t)idx);
        }
    gpu_files_split(node, b, out);
    bitmap_destroy(b);
}

/* --container (oci.h): the step's directory, its GPU files bound in. */
static int oci_setup(struct nd_step *st, const struct step_desc *d,
                     drv_error_t *error)
{
    struct oci_step_spec spec = {0};
    struct gpu_files files;

    if (!oci_spec_from_json(d->body, &spec))
        return 0;
    step_gpu_files(st->nd->node, json_object_get(d->body, "gpus"), &files);
    spec.oci = &st->nd->conf->oci;
    spec.cwd = d->cwd;
    spec.spool = st->nd->spool_dir;
    spec.node = st->nd->node->name;
    spec.user = d->user;
    spec.job_id = st->job_id;
    spec.step_id = st->step_id;
    spec.uid = (uid_t)d->uid;
    spec.gid = (gid_t)d->gid;
    spec.devices = files.allowed;
    st->oci = oci_step_create(&spec, error);
    gpu_files_free(&files);
    return st->oci ? 0 : -1;
}

/* The step's cgroup below its job's: the job's memory, CPUs and GPUs on
 * this node, the step's --mem and GPUs (cgroup.h).  No cgroups: 0. */
static int cgroup_setup(struct nd_step *st, const struct step_desc *d,
                        drv_error_t *error)
{
    struct noded *nd = st->nd;
    struct gpu_files job_files, step_files;
    struct cgroup_limits job = {0}, step = {0};
    char name[16], *cpus = NULL;

    if (!nd->cgroup)
        return 0;
    step_gpu_files(nd->node, json_object_get(d->body, "job_gpus"),
                   &job_files);
    step_gpu_files(nd->node, json_object_get(d->body, "gpus"), &step_files);
    job.mem_mib = (uint64_t)json_integer_value(json_object_get(d->body,
                                                               "job_mem_mib"));
    step.mem_mib = (uint64_t)json_integer_value(json_object_get(d->body,
                                                                "mem_mib"));
    job.deny_devices = job_files.denied;
    step.deny_devices = step_files.denied;
    /* ConstrainCores: the step may use every CPU of its job here */
    if (cgroup_root_constrains_cores(nd->cgroup)
        && !(cpus = step_bind_job_cpus(
                 (uint32_t)json_integer_value(json_object_get(d->body,
                                                              "job_cpus")),
                 json_string_value(json_object_get(d->body, "job_cpu_ids")),
                 error)))
        goto out;
    job.cpus = step.cpus = cpus;
    snprintf(name, sizeof(name), "%u", st->step_id);
    st->cg = cgroup_step_create(nd->cgroup, st->job_id, name, &job, &step,
                                error);
out:
    gpu_files_free(&job_files);
    gpu_files_free(&step_files);
    free(cpus);
    return st->cg ? 0 : -1;
}

/* Task 'rank''s argv: the step's, or with srun --multi-prog its line of
 * the file (multiprog.h); NULL (logged) when the file names no program
 * for it. */
static char **task_argv(const struct step_desc *d, int rank, char **argv)
{
    const char *text = json_string_value(json_object_get(d->body,
                                                         "multi_prog"));
    char **v;

    if (!text)
        return argv;
    if (!(v = multiprog_argv(text, rank)))
        log_error("StepId=%lld.%lld: --multi-prog names no program for "
                  "task %d", (long long)d->job_id, (long long)d->step_id,
                  rank);
    return v;
}

int step_launch(struct noded *nd, json_t *body, drv_error_t *error)
{
    json_t *ranks = json_object_get(body, "ranks");
    struct step_desc d = {0};
    struct nd_step *st;
    char **argv;

    if (parse_desc(body, &d, error) < 0)
        return -1;
    /* drover_tls_rpc: the step's I/O to srun and sattach runs over TLS */
    if (!nd->io_tls
        && stepd_link_tls_setup(&nd->conf->tls, &nd->io_tls, error) < 0)
        return -1;
    st = xzalloc(sizeof(*st));
    st->nd = nd;
    st->job_id = (uint32_t)d.job_id;
    st->step_id = (uint32_t)d.step_id;
    st->ntasks = st->remaining = json_array_size(ranks);
    st->tasks = xzalloc(sizeof(*st->tasks) * st->ntasks);
    st->pty = json_is_true(json_object_get(body, "pty"));
    st->body = json_incref(body);
    st->attach = step_attach_create(nd->loop, nd->io_tls, attach_input, st);
    st->next = nd->steps;
    nd->steps = st;
    if (mpi_setup(st, &d, error) < 0 || cgroup_setup(st, &d, error) < 0
        || oci_setup(st, &d, error) < 0) {
        unlink_free(st);
        return -1;
    }
    d.cg = st->cg;
    d.oci = st->oci;
    if (step_bind_create(nd->conf, nd->node, body, st->ntasks, &st->bind,
                         error) < 0) {
        unlink_free(st);
        return -1;
    }
    d.bind = st->bind;
    if (connect_srun(st, body, error) < 0) {
        st->io_failed = true;
        st->remaining = 0;
        if (st->handles)
            uv_close((uv_handle_t *)&st->tcp, handle_closed);
        else
            unlink_free(st);
        return -1;
    }
    /* The hello: which ranks run here, and the step's I/O key, which
     * srun checks before it reads anything else from us. */
    send_frame(st, json_pack("{s:s s:O s:O s:O}", "node", nd->node->name,
                             "ranks", ranks, "node_index",
                             json_object_get(body, "node_index"), "io_key",
                             json_object_get(body, "io_key")));
    argv = str_array(json_object_get(body, "argv"));
    child_user_groups(d.user, (gid_t)d.gid); /* not in the children */
    for (size_t i = 0; i < st->ntasks; i++) {
        struct step_task *t = &st->tasks[i];
        char **targv;

        t->rank = (int)json_integer_value(json_array_get(ranks, i));
        targv = task_argv(&d, t->rank, argv);
        if (!targv
            || (st->pty && t->rank == 0
                    ? start_tty_task(st, &d, t, (int)i, targv)
                    : start_task(st, &d, t, (int)i, targv))
                   < 0) {
            log_err("StepId=%u.%u: task %d", st->job_id, st->step_id,
                    t->rank);
            t->reaped = true;
            t->status = 127 << 8;
            close_stdin(t);
            task_check(t);
        }
        if (targv != argv)
            free_strv(targv);
    }
    free_strv(argv);
    log_info("Launched StepId=%u.%u: %zu tasks", st->job_id, st->step_id,
             st->ntasks);
    return 0;
}

/* After task 't' (local index 'local') ended: srun --task-epilog (5 s at
 * most), then slurm.conf TaskEpilog, as the user with the task's
 * environment (task_script.h).  Blocks droverstepd while they run, as
 * Slurm's slurmstepd does. */
static void task_epilogs(struct nd_step *st, const struct step_task *t,
                         int local)
{
    const char *paths[] = {json_string_value(json_object_get(st->body,
                                                             "task_epilog")),
                           st->nd->conf->task_epilog};
    struct step_desc d = {0};
    drv_error_t error = {0};
    char **envp;

    if ((!paths[0] && !paths[1]) || parse_desc(st->body, &d, &error) < 0)
        return;
    d.cg = st->cg;
    d.bind = st->bind;
    envp = task_env(&d, st->nd, t->rank, local);
    task_env_set(&envp, "SLURM_SCRIPT_CONTEXT", "epilog_task");
    for (size_t i = 0; i < 2; i++) {
        int rc = paths[i] ? task_epilog_run(paths[i], d.user, (uid_t)d.uid,
                                            (gid_t)d.gid, d.cwd, envp,
                                            i ? -1 : 5)
                          : 0;
        if (rc)
            log_error("StepId=%u.%u: %s failed status=%d", st->job_id,
                      st->step_id, i ? "TaskEpilog" : "--task-epilog", rc);
    }
    free_strv(envp);
}

bool step_reaped(struct noded *nd, pid_t pid, int status,
                 const struct rusage *ru)
{
    for (struct nd_step *st = nd->steps; st; st = st->next) {
        for (size_t i = 0; i < st->ntasks; i++) {
            struct step_task *t = &st->tasks[i];

            if (t->pid == pid && !t->reaped) {
                t->reaped = true;
                t->status = status;
                t->ru = *ru;
                task_epilogs(st, t, (int)i);
                close_stdin(t);
                kill_leftovers(st);
                task_check(t);
                return true;
            }
        }
    }
    return false;
}

/* Slurm's slurmstepd line on srun's stderr when a step is cancelled (at
 * the time limit: "DUE TO TIME LIMIT", and the frame says "time_limit"
 * for srun's own line). */
static void tell_cancelled(struct nd_step *st, bool time_limit)
{
    char stamp[32], *text, *b64;
    json_t *frame;

    if (st->ntasks == 0 || !st->connected || st->io_failed)
        return;
    timefmt_stamp(time(NULL), 0, stamp, sizeof(stamp));
    text = xasprintf("slurmstepd: error: *** STEP %u.%u ON %s CANCELLED AT "
                     "%s%s ***\n",
                     st->job_id, st->step_id, st->nd->node->name, stamp,
                     time_limit ? " DUE TO TIME LIMIT" : "");
    b64 = base64_encode(text, strlen(text));
    frame = json_pack("{s:i s:s s:s}", "task", st->tasks[0].rank, "stream",
                      "err", "data", b64);
    if (time_limit)
        json_object_set_new(frame, "time_limit", json_true());
    send_output(st, frame);
    free(b64);
    free(text);
}

int step_signal(struct noded *nd, uint32_t job_id, uint32_t step_id,
                int signo, int cancel)
{
    int n = 0;

    for (struct nd_step *st = nd->steps; st; st = st->next) {
        if (st->job_id != job_id || st->step_id != step_id)
            continue;
        if (cancel != STEP_SIGNAL && !st->killed) /* once, whatever follows */
            tell_cancelled(st, cancel == STEP_CANCEL_TIME);
        if (cancel != STEP_SIGNAL)
            st->killed = true;
        for (size_t i = 0; i < st->ntasks; i++) {
            struct step_task *t = &st->tasks[i];
            if (t->pid > 0 && !t->reaped && killpg(t->pid, signo) == 0)
                n++;
            /* a suspended task wakes to take its end (Slurm: SIGCONT
             * after SIGTERM) */
            if (t->pid > 0 && !t->reaped && signo == SIGTERM)
                killpg(t->pid, SIGCONT);
        }
        /* suspend, resume and kill reach what left the task's group */
        if (st->cg && (signo == SIGKILL || signo == SIGSTOP
                       || signo == SIGCONT))
            cgroup_step_signal(st->cg, signo);
    }
    return n;
}

/* The step's user may attach, and root and SlurmUser (Slurm's slurmd
 * lets the step's uid and its authorized users reattach). */
static bool attach_allowed(const struct nd_step *st, json_t *req)
{
    json_int_t uid = json_integer_value(json_object_get(st->body, "uid"));

    return json_is_true(json_object_get(req, "admin"))
           || json_integer_value(json_object_get(req, "uid")) == uid;
}

json_t *step_attach_control(struct noded *nd, uint32_t job_id,
                            uint32_t step_id, json_t *req)
{
    json_t *at = json_object_get(req, "attach");
    struct nd_step *st = nd->steps;
    drv_error_t error = {0};
    json_t *hello;

    while (st && (st->job_id != job_id || st->step_id != step_id))
        st = st->next;
    if (!st || st->finishing)
        return json_pack("{s:i s:s}", "errnum", EDRV_ALREADY_DONE, "errstr",
                         "Job/step already completing or completed");
    if (!attach_allowed(st, req)) {
        log_info("StepId=%u.%u: attach by uid %lld refused", job_id,
                 step_id,
                 (long long)json_integer_value(json_object_get(req, "uid")));
        return json_pack("{s:i}", "errnum", EDRV_ACCESS_DENIED);
    }
    hello = json_pack("{s:s s:O s:O s:O}", "node", nd->node->name, "ranks",
                      json_object_get(st->body, "ranks"), "node_index",
                      json_object_get(st->body, "node_index"), "io_key",
                      json_object_get(at, "io_key"));
    if (json_is_true(json_object_get(req, "layout"))) {
        json_object_del(hello, "io_key");
        return hello;
    }
    if (!json_is_string(json_object_get(at, "io_key"))
        || step_attach_add(st->attach,
                           json_string_value(json_object_get(at, "host")),
                           (int)json_integer_value(json_object_get(at,
                                                                   "port")),
                           json_incref(hello), &error)
               < 0) {
        int e = error.text[0] ? errno : EDRV_PROTOCOL_MALFORMED;

        json_decref(hello);
        return json_pack("{s:i s:s}", "errnum", e, "errstr",
                         error.text[0] ? error.text
                                       : "step_attach: no io_key");
    }
    log_info("StepId=%u.%u: sattach attached from %s:%lld", job_id, step_id,
             json_string_value(json_object_get(at, "host")),
             (long long)json_integer_value(json_object_get(at, "port")));
    json_object_del(hello, "io_key");
    return hello;
}

json_t *step_pids_control(struct noded *nd, uint32_t job_id,
                          uint32_t step_id, json_t *req)
{
    struct nd_step *st = nd->steps;
    json_t *tasks;

    while (st && (st->job_id != job_id || st->step_id != step_id))
        st = st->next;
    if (!st)
        return json_pack("{s:i}", "errnum", EDRV_INVALID_JOB_ID);
    if (!attach_allowed(st, req))
        return json_pack("{s:i}", "errnum", EDRV_ACCESS_DENIED);
    tasks = json_array();
    for (size_t i = 0; i < st->ntasks; i++) {
        const struct step_task *t = &st->tasks[i];
        if (t->pid > 0 && !t->reaped)
            json_array_append_new(tasks,
                                  json_pack("{s:i s:I s:i}", "pid",
                                            (int)t->pid, "local_id",
                                            (json_int_t)i, "global_id",
                                            t->rank));
    }
    return json_pack("{s:o}", "tasks", tasks);
}
