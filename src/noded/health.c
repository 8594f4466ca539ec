/* SPDX-License-Identifier: Apache-2.0
 *
 * health.c - HealthCheckProgram: droverd runs it as root at start and
 * every HealthCheckInterval seconds, in the node states
 * HealthCheckNodeState names (slurm.conf(5), 22.05)
 *
 * The program runs without blocking the loop: forked (reaped by main.c's
 * SIGCHLD handler, which waits for every child, so libuv's uv_spawn could
 * not see its exit), its stdout and stderr read from one pipe by libuv up
 * to HEALTH_OUTPUT_MAX bytes, killed with its process group after
 * HEALTH_TIMEOUT_MS as Slurm's slurmd does.  Unlike Slurm, where the
 * program drains the node itself (scontrol update), droverd reports the
 * result in its next registration, sent at once: a failure (non-zero
 * exit, a signal, the timeout) carries the output as the reason, and the
 * controller drains the node (src/ctld/node_health.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/noded.h"

#define HEALTH_TIMEOUT_MS 60000 /* Slurm kills the program after 60 s */
#define HEALTH_OUTPUT_MAX 4096  /* bytes of output kept */
#define HEALTH_REASON_MAX 512   /* bytes of the drain reason */

struct nd_health {
    struct noded *nd;
    pid_t pid;             /* the running program, 0: none */
    bool timed_out;
    bool registered;       /* register_start() was called */
    bool have_result;
    bool ok;               /* the last run passed */
    char reason[HEALTH_REASON_MAX]; /* why it failed */
    char out[HEALTH_OUTPUT_MAX];
    size_t out_len;
    char *ctld_state;      /* the controller's base state of this node,
                            * NULL: not known yet */
    bool ctld_drain;
    uv_pipe_t pipe;
    bool pipe_open;
    uv_timer_t kill_timer; /* HEALTH_TIMEOUT_MS after the start */
    uv_timer_t next_timer; /* the next run */
};

/* Is the node in a state HealthCheckNodeState names?  Before the
 * controller has answered (droverd's start) it always is, as Slurm runs
 * the program when slurmd starts. */
static bool state_wanted(const struct nd_health *h, uint32_t flags)
{
    const char *s = h->ctld_state;

    if ((flags & CONF_HEALTH_ANY) == CONF_HEALTH_ANY || !s)
        return true;
    if (!strcmp(s, "IDLE"))
        return (flags & CONF_HEALTH_IDLE)
               || ((flags & CONF_HEALTH_NONDRAINED_IDLE) && !h->ctld_drain);
    if (!strcmp(s, "ALLOCATED"))
        return flags & CONF_HEALTH_ALLOC;
    if (!strcmp(s, "MIXED"))
        return flags & CONF_HEALTH_MIXED;
    return false;
}

/* Milliseconds to the next run: the next multiple of the interval on the
 * wall clock, so every node runs at once as in Slurm; with CYCLE, node i
 * of n is offset by i/n of the interval. */
static uint64_t next_delay_ms(const struct noded *nd)
{
    const struct slurm_conf *c = nd->conf;
    uint64_t iv = (uint64_t)c->health_check_interval_s * 1000, off = 0;
    struct timespec ts;
    uint64_t now;

    clock_gettime(CLOCK_REALTIME, &ts);
    now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
    if ((c->health_check_node_state & CONF_HEALTH_CYCLE)
        && c->node_count > 1)
        off = iv * (uint64_t)(nd->node - c->nodes) / c->node_count;
    return iv - (now + iv - off) % iv;
}

static void health_run(struct noded *nd);

static void next_cb(uv_timer_t *t)
{
    struct noded *nd = t->data;

    if (nd->health->pid == 0 && !nd->health->pipe_open
        && state_wanted(nd->health, nd->conf->health_check_node_state))
        health_run(nd);
    uv_timer_start(t, next_cb, next_delay_ms(nd), 0);
}

/* The output as one printable line: control characters and runs of
 * white space become one space, trimmed, cut at HEALTH_REASON_MAX. */
static void output_reason(struct nd_health *h)
{
    size_t n = 0;

    for (size_t i = 0; i < h->out_len && n + 1 < sizeof(h->reason); i++) {
        unsigned char c = (unsigned char)h->out[i];
        if (c < 0x20 || c == 0x7f || c == ' ') {
            if (n && h->reason[n - 1] != ' ')
                h->reason[n++] = ' ';
        } else {
            h->reason[n++] = (char)c;
        }
    }
    while (n && h->reason[n - 1] == ' ')
        n--;
    h->reason[n] = '\0';
}

/* The run's result: a failure's reason is the program's output, or, when
 * it printed nothing, what ended it; a timeout is said after the output. */
static void set_result(struct nd_health *h, int status)
{
    const char *prog = h->nd->conf->health_check_program;
    size_t n;
    char why[300];

    h->have_result = true;
    h->ok = !h->timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (h->ok)
        return;
    if (h->timed_out)
        snprintf(why, sizeof(why), "%s timed out after %d s", prog,
                 HEALTH_TIMEOUT_MS / 1000);
    else if (WIFSIGNALED(status))
        snprintf(why, sizeof(why), "%s killed by signal %d", prog,
                 WTERMSIG(status));
    else
        snprintf(why, sizeof(why), "%s exit code %d", prog,
                 WEXITSTATUS(status));
    output_reason(h);
    n = strlen(h->reason);
    if (!n)
        snprintf(h->reason, sizeof(h->reason), "%s", why);
    else if (h->timed_out)
        snprintf(h->reason + n, sizeof(h->reason) - n, " (%s)", why);
    log_error("HealthCheckProgram failed: %s", h->reason);
}

static void alloc_cb(uv_handle_t *hd, size_t suggested, uv_buf_t *buf)
{
    struct nd_health *h = hd->data;
    static char sink[4096];

    (void)suggested;
    /* Beyond the cap the output is read and dropped, so the program never
     * blocks on a full pipe. */
    if (h->out_len < sizeof(h->out))
        *buf = uv_buf_init(h->out + h->out_len,
                           (unsigned)(sizeof(h->out) - h->out_len));
    else
        *buf = uv_buf_init(sink, sizeof(sink));
}

static void pipe_closed(uv_handle_t *hd)
{
    struct nd_health *h = hd->data;

    h->pipe_open = false;
}

static void read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct nd_health *h = s->data;

    if (n > 0 && buf->base == h->out + h->out_len)
        h->out_len += (size_t)n;
    else if (n < 0) {
        uv_read_stop(s);
        uv_close((uv_handle_t *)s, pipe_closed);
    }
}

static void kill_cb(uv_timer_t *t)
{
    struct nd_health *h = t->data;

    if (!h->pid)
        return;
    h->timed_out = true;
    kill(-h->pid, SIGKILL);
    kill(h->pid, SIGKILL);
}

static void exec_program(struct noded *nd, int out)
{
    char name[256], conf[4096];
    char *argv[] = {nd->conf->health_check_program, NULL};
    char *envp[] = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:"
                    "/usr/bin:/sbin:/bin", name, conf, NULL};
    int null = open("/dev/null", O_RDONLY);

    child_reset();
    snprintf(name, sizeof(name), "SLURMD_NODENAME=%s", nd->node->name);
    snprintf(conf, sizeof(conf), "SLURM_CONF=%s", nd->conf->path);
    if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
        _exit(127);
    child_close_fds();
    execve(argv[0], argv, envp);
    fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

static void health_run(struct noded *nd)
{
    struct nd_health *h = nd->health;
    int fds[2];
    pid_t pid;

    if (pipe2(fds, O_CLOEXEC) < 0) {
        log_err("HealthCheckProgram: pipe");
        return;
    }
    if ((pid = fork()) == 0)
        exec_program(nd, fds[1]);
    close(fds[1]);
    if (pid < 0) {
        log_err("HealthCheckProgram: fork");
        close(fds[0]);
        return;
    }
    h->pid = pid;
    h->timed_out = false;
    h->out_len = 0;
    uv_pipe_init(nd->loop, &h->pipe, 0);
    h->pipe.data = h;
    h->pipe_open = true;
    uv_pipe_open(&h->pipe, fds[0]);
    uv_read_start((uv_stream_t *)&h->pipe, alloc_cb, read_cb);
    uv_timer_start(&h->kill_timer, kill_cb, HEALTH_TIMEOUT_MS, 0);
    log_verbose("HealthCheckProgram %s started (pid %d)",
                nd->conf->health_check_program, (int)pid);
}

/* What is still in the pipe once the program ended (its own writes are
 * there; a child it left running may hold the pipe open). */
static void drain_pipe(struct nd_health *h)
{
    uv_os_fd_t fd;
    ssize_t n;
    char sink[4096];

    if (!h->pipe_open || uv_fileno((uv_handle_t *)&h->pipe, &fd) < 0)
        return;
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    for (;;) {
        char *to = h->out_len < sizeof(h->out) ? h->out + h->out_len : sink;
        size_t room = to == sink ? sizeof(sink) : sizeof(h->out) - h->out_len;
        if ((n = read(fd, to, room)) <= 0)
            break;
        if (to != sink)
            h->out_len += (size_t)n;
    }
    uv_read_stop((uv_stream_t *)&h->pipe);
    if (!uv_is_closing((uv_handle_t *)&h->pipe))
        uv_close((uv_handle_t *)&h->pipe, pipe_closed);
}

bool health_reaped(struct noded *nd, pid_t pid, int status)
{
    struct nd_health *h = nd->health;

    if (!h || !h->pid || pid != h->pid)
        return false;
    h->pid = 0;
    uv_timer_stop(&h->kill_timer);
    kill(-pid, SIGKILL); /* what it left running in its session */
    drain_pipe(h);
    set_result(h, status);
    log_verbose("HealthCheckProgram ended: %s", h->ok ? "passed" : h->reason);
    if (!h->registered) {
        h->registered = true;
        register_start(nd);
    } else {
        register_now(nd);
    }
    return true;
}

void health_start(struct noded *nd)
{
    const struct slurm_conf *c = nd->conf;
    struct nd_health *h;

    if (!c->health_check_program || !c->health_check_interval_s) {
        register_start(nd);
        return;
    }
    h = nd->health = xzalloc(sizeof(*h));
    h->nd = nd;
    uv_timer_init(nd->loop, &h->kill_timer);
    h->kill_timer.data = h;
    uv_timer_init(nd->loop, &h->next_timer);
    h->next_timer.data = nd;
    uv_timer_start(&h->next_timer, next_cb, next_delay_ms(nd), 0);
    /* As slurmd: once at start, before the first registration. */
    health_run(nd);
    if (!h->pid) {
        h->registered = true;
        register_start(nd);
    }
}

void health_to_json(const struct noded *nd, json_t *body)
{
    const struct nd_health *h = nd->health;
    json_t *reason;

    if (!h || !h->have_result)
        return;
    json_object_set_new(body, "health_ok", json_boolean(h->ok));
    if (h->ok)
        return;
    if (!(reason = json_string(h->reason))) { /* not UTF-8, or cut in one */
        char ascii[sizeof(h->reason)];
        size_t i;
        for (i = 0; h->reason[i]; i++)
            ascii[i] = (unsigned char)h->reason[i] < 0x80 ? h->reason[i] : '?';
        ascii[i] = '\0';
        reason = json_string(ascii);
    }
    json_object_set_new(body, "health_reason", reason);
}

void health_node_state(struct noded *nd, json_t *answer)
{
    struct nd_health *h = nd->health;
    const char *state = json_string_value(json_object_get(answer, "state"));

    if (!h || !state)
        return;
    free(h->ctld_state);
    h->ctld_state = xstrdup(state);
    h->ctld_drain = json_is_true(json_object_get(answer, "drain"));
}

void health_stop(struct noded *nd)
{
    struct nd_health *h = nd->health;

    if (!h)
        return;
    if (h->pid) {
        kill(-h->pid, SIGKILL);
        kill(h->pid, SIGKILL);
    }
    uv_timer_stop(&h->kill_timer);
    uv_timer_stop(&h->next_timer);
}

void health_free(struct noded *nd)
{
    if (!nd->health)
        return;
    free(nd->health->ctld_state);
    free(nd->health);
    nd->health = NULL;
}
