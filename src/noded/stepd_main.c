/* SPDX-License-Identifier: Apache-2.0
 *
 * droverstepd - one job step on one node (stepd.h has the contract)
 *
 * Started by droverd for each step_launch: reads the launch from stdin,
 * starts the tasks in the step's cgroup (step.c), answers on stdout,
 * then serves its control socket until every task has ended and its
 * report is written.  It outlives a droverd that stops meanwhile.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/daemon.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "noded/cgroup.h"
#include "noded/cgroup_bpf.h"
#include "noded/mpi_pmix.h"
#include "noded/jobcontainer.h"
#include "noded/noded.h"
#include "noded/spool.h"
#include "noded/stepd.h"
#include "proto/frame.h"

static const char usage_text[] =
    "Usage: droverstepd -f slurm.conf -N nodename [-v]\n"
    "  Started by droverd, one per job step: the step_launch body on\n"
    "  stdin, with droverd's configuration in it (the files are not read\n"
    "  again), the answer on stdout (see src/noded/stepd.h).\n";

struct stepd {
    struct noded nd;
    uint32_t job_id;
    uint32_t step_id;
    char *sock_path;
    uv_pipe_t server;
    uv_signal_t sigchld;
    bool closing;
};

static struct stepd S;

/* The launch body: all of stdin. */
static json_t *read_body(drv_error_t *error)
{
    json_error_t jerr;
    json_t *body = json_loadf(stdin, 0, &jerr);

    if (!json_is_object(body)) {
        json_decref(body);
        errprintf(error, "droverstepd: bad launch on stdin: %s", jerr.text);
        return NULL;
    }
    return body;
}

/* The answer to droverd, then stdout goes to /dev/null. */
static void answer(const char *error)
{
    json_t *a = error ? json_pack("{s:s}", "error", error) : json_object();

    json_dumpf(a, stdout, JSON_COMPACT);
    fflush(stdout);
    json_decref(a);
    if (!freopen("/dev/null", "w", stdout))
        log_err("/dev/null");
}

static void sigchld_cb(uv_signal_t *h, int signo)
{
    struct rusage ru;
    int status;
    pid_t pid;

    (void)h;
    (void)signo;
    while ((pid = wait4(-1, &status, WNOHANG, &ru)) > 0)
        if (!jobs_reaped(&S.nd, pid, status, &ru))
            step_reaped(&S.nd, pid, status, &ru);
}

struct control_conn {
    uv_pipe_t pipe;
    proto_decoder_t *dec;
    struct control_conn *next, **pprev; /* S.conns: open ones */
};

static struct control_conn *open_conns;

static void conn_closed(uv_handle_t *h)
{
    struct control_conn *c = h->data;

    if ((*c->pprev = c->next))
        c->next->pprev = c->pprev;
    proto_decoder_destroy(c->dec);
    free(c);
}

/* At exit: the control connections still open (one may arrive as the
 * step ends) close with their records. */
static void close_control_conns(void)
{
    for (struct control_conn *c = open_conns; c; c = c->next)
        if (!uv_is_closing((uv_handle_t *)&c->pipe))
            uv_close((uv_handle_t *)&c->pipe, conn_closed);
}

static void write_done(uv_write_t *w, int status)
{
    (void)status;
    uv_close((uv_handle_t *)w->handle, conn_closed);
    free(w->data);
    free(w);
}

/* The batch step's requests (stepd.h): a signal to the script's
 * processes, terminate, a new time limit. */
static json_t *batch_answer(json_t *req)
{
    struct nd_job *job = jobs_find(&S.nd, S.job_id);
    int signo = (int)json_integer_value(json_object_get(req, "signal"));
    json_t *limit = json_object_get(req, "time_limit_s");
    json_t *over = json_object_get(req, "over_time_s");

    if (!job)
        return json_pack("{s:i}", "count", 0);
    if (json_is_integer(over))
        job->over_time_s = json_integer_value(over);
    if (json_is_true(json_object_get(req, "terminate")))
        jobs_terminate(&S.nd, job);
    else if (json_is_integer(limit))
        jobs_set_limit(&S.nd, job, json_integer_value(limit));
    else if (signo > 0)
        jobs_signal(job, signo);
    return json_pack("{s:i s:I}", "count", 1, "run_id",
                     (json_int_t)job->run_id);
}

/* sattach to the batch step: its output goes to files, there is nothing
 * to attach to; the job's user (or an administrator) is told so, others
 * are refused as for any step (step_attach_control()). */
static json_t *batch_attach(json_t *req)
{
    struct nd_job *job = jobs_find(&S.nd, S.job_id);

    if (job && !json_is_true(json_object_get(req, "admin"))
        && json_integer_value(json_object_get(req, "uid"))
               != (json_int_t)job->uid)
        return json_pack("{s:i}", "errnum", EDRV_ACCESS_DENIED);
    return json_pack("{s:i s:s}", "errnum", EDRV_INVALID_JOB_ID, "errstr",
                     "the batch step has no I/O to attach to");
}

/* scontrol listpids of the batch step: its script is task 0 (as
 * slurmstepd's task list has it); the rest of its cgroup droverd adds. */
static json_t *batch_pids(json_t *req)
{
    struct nd_job *job = jobs_find(&S.nd, S.job_id);

    if (!job)
        return json_pack("{s:i}", "errnum", EDRV_INVALID_JOB_ID);
    if (!json_is_true(json_object_get(req, "admin"))
        && json_integer_value(json_object_get(req, "uid"))
               != (json_int_t)job->uid)
        return json_pack("{s:i}", "errnum", EDRV_ACCESS_DENIED);
    return json_pack("{s:[{s:i s:i s:i}]}", "tasks", "pid", (int)job->pid,
                     "local_id", 0, "global_id", 0);
}

static void control_answer(struct control_conn *c, json_t *req)
{
    int signo = (int)json_integer_value(json_object_get(req, "signal"));
    int cancelled = !json_is_true(json_object_get(req, "cancelled"))
                        ? STEP_SIGNAL
                    : json_is_true(json_object_get(req, "time_limit"))
                        ? STEP_CANCEL_TIME
                        : STEP_CANCEL;
    json_t *resp = json_object_get(req, "pids")
                       ? (S.step_id == STEPD_BATCH
                              ? batch_pids(req)
                              : step_pids_control(&S.nd, S.job_id,
                                                  S.step_id, req))
                   : json_object_get(req, "attach")
                       ? (S.step_id == STEPD_BATCH
                              ? batch_attach(req)
                              : step_attach_control(&S.nd, S.job_id,
                                                    S.step_id, req))
                   : S.step_id == STEPD_BATCH
                       ? batch_answer(req)
                       : json_pack("{s:i}", "count",
                                   step_signal(&S.nd, S.job_id, S.step_id,
                                               signo, cancelled));
    uv_write_t *w = xzalloc(sizeof(*w));
    uv_buf_t buf;
    char *data;
    size_t len;

    if (proto_frame_encode(resp, &data, &len) < 0) {
        free(w);
        uv_close((uv_handle_t *)&c->pipe, conn_closed);
    } else {
        w->data = data;
        buf = uv_buf_init(data, (unsigned)len);
        if (uv_write(w, (uv_stream_t *)&c->pipe, &buf, 1, write_done) < 0) {
            free(data);
            free(w);
            uv_close((uv_handle_t *)&c->pipe, conn_closed);
        }
    }
    json_decref(resp);
}

static void control_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct control_conn *c = s->data;
    json_t *req = NULL;

    if (n > 0 && proto_decoder_feed(c->dec, buf->base, (size_t)n) == 0)
        req = proto_decoder_next(c->dec, NULL);
    free(buf->base);
    if (req) {
        uv_read_stop(s);
        control_answer(c, req);
        json_decref(req);
    } else if (n < 0 || (errno != EAGAIN && n > 0)) {
        uv_close((uv_handle_t *)s, conn_closed);
    }
}

/* Only root and droverd's user (ours) may signal the step. */
static bool peer_allowed(uv_pipe_t *p)
{
    struct ucred cred;
    socklen_t len = sizeof(cred);
    uv_os_fd_t fd;

    if (uv_fileno((uv_handle_t *)p, &fd) < 0
        || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
        return false;
    return cred.uid == 0 || cred.uid == geteuid();
}

static void control_conn_cb(uv_stream_t *server, int status)
{
    struct control_conn *c;

    if (status < 0)
        return;
    c = xzalloc(sizeof(*c));
    c->dec = proto_decoder_create();
    if ((c->next = open_conns))
        open_conns->pprev = &c->next;
    c->pprev = &open_conns;
    open_conns = c;
    uv_pipe_init(server->loop, &c->pipe, 0);
    c->pipe.data = c;
    if (uv_accept(server, (uv_stream_t *)&c->pipe) < 0
        || !peer_allowed(&c->pipe)) {
        uv_close((uv_handle_t *)&c->pipe, conn_closed);
        return;
    }
    uv_read_start((uv_stream_t *)&c->pipe, stepd_alloc_cb, control_read);
}

static int control_listen(drv_error_t *error)
{
    char name[108];
    int dirfd, rc;

    S.sock_path = stepd_sock_path(S.nd.spool_dir, S.job_id, S.step_id);
    unlink(S.sock_path);
    if (stepd_sun_path(S.sock_path, name, sizeof(name), &dirfd) < 0)
        return errprintf(error, "%s: %s", S.sock_path, strerror(errno));
    uv_pipe_init(S.nd.loop, &S.server, 0);
    rc = uv_pipe_bind(&S.server, name);
    if (dirfd >= 0)
        close(dirfd);
    if (rc == 0)
        rc = uv_listen((uv_stream_t *)&S.server, 16, control_conn_cb);
    if (rc < 0)
        return errprintf(error, "listening on %s: %s", S.sock_path,
                         uv_strerror(rc));
    chmod(S.sock_path, 0600);
    return 0;
}

void stepd_step_freed(struct noded *nd)
{
    (void)nd;
    S.closing = true;
    uv_stop(S.nd.loop);
}

/* The step's PMIx directory and what libpmix left in it (spool.h). */
static void remove_pmix_dir(const struct noded *nd)
{
    const char *name = strrchr(nd->pmix_dir, '/') + 1;

    if (spool_remove(nd->spool_dir, name) < 0)
        log_err("removing %s", nd->pmix_dir);
}

/* job_container/tmpfs: make or join the job's namespace, which the
 * step's processes enter (child_set_mnt_ns()); droverstepd itself stays
 * in the host's, where its spool and socket are. */
static int container_enter(json_t *body, drv_error_t *error)
{
    json_t *o = json_object_get(json_object_get(body, "step_conf"),
                                "job_container");
    json_t *who = S.step_id == STEPD_BATCH ? json_object_get(body, "job")
                                           : body;
    bool batch = S.step_id == STEPD_BATCH;
    json_int_t uid = json_integer_value(json_object_get(
        who, batch ? "user_id" : "uid"));
    json_int_t gid = json_integer_value(json_object_get(
        who, batch ? "group_id" : "gid"));
    const char *user = json_string_value(json_object_get(who, "user_name"));
    int fd;

    if (!o)
        return 0;
    if ((fd = jc_job_enter(o, S.job_id, user ?: "", (uid_t)uid, (gid_t)gid,
                           error)) < 0)
        return -1;
    child_set_mnt_ns(fd);
    return 0;
}

/* The batch step: the script as the job's user, tracked by jobs.c. */
static int batch_launch(json_t *body, drv_error_t *error)
{
    struct nd_job *job = launch_batch(&S.nd, json_object_get(body, "job"),
                                      error);

    if (!job)
        return -1;
    jobs_track(&S.nd, job);
    return 0;
}

static void stepd_init(struct daemon_opts *o, json_t *body)
{
    drv_error_t error = {0};
    struct noded *nd = &S.nd;
    char *prog;

    /* droverd's configuration, not the files as they are now */
    if (!(nd->conf = conf_step_from_json(json_object_get(body, "step_conf"),
                                         &error)))
        log_fatal("%s", error.text);
    nd->node = &nd->conf->nodes[0];
    if (o->node_name && strcmp(o->node_name, nd->node->name))
        log_fatal("-N %s, but the launch is for node %s", o->node_name,
                  nd->node->name);
    S.job_id = (uint32_t)json_integer_value(json_object_get(body, "job_id"));
    S.step_id = (uint32_t)json_integer_value(json_object_get(body,
                                                             "step_id"));
    prog = xasprintf("droverstepd(%s %u.%u)", nd->node->name, S.job_id,
                     S.step_id);
    log_init(prog, (enum log_level)(LOG_LEVEL_INFO + o->verbose));
    if (nd->conf->slurmd_log_file) {
        char *p = conf_expand_node_path(nd->conf->slurmd_log_file, nd->node);
        if (log_open(p) < 0)
            log_err("cannot open %s", p);
        free(p);
    }
    nd->spool_dir = conf_expand_node_path(
        nd->conf->slurmd_spool_dir ?: "/var/spool/drover/%n", nd->node);
    nd->pmix_dir = xasprintf("%s/pmix.%u.%u", nd->spool_dir, S.job_id,
                             S.step_id);
    nd->loop = uv_default_loop();
    nd->cgroup = cgroup_root_open(nd->conf, nd->node->name, &error);
    if (!nd->cgroup && error.text[0])
        log_verbose("%s: the step runs without cgroups", error.text);
    cgroup_bpf_enable(nd->cgroup, false); /* droverd said why not */
}

int main(int argc, char **argv)
{
    struct daemon_opts o;
    drv_error_t error = {0};
    json_t *body;
    int rc;

    daemon_parse_opts(argc, argv, usage_text, true, &o);
    signal(SIGPIPE, SIG_IGN);
    if (!(body = read_body(&error))) {
        answer(error.text);
        return 1;
    }
    stepd_init(&o, body);
    uv_signal_init(S.nd.loop, &S.sigchld);
    uv_signal_start(&S.sigchld, sigchld_cb, SIGCHLD);
    rc = control_listen(&error);
    if (rc == 0)
        rc = container_enter(body, &error);
    if (rc == 0 && S.step_id == STEPD_BATCH)
        rc = batch_launch(body, &error);
    else if (rc == 0)
        rc = step_launch(&S.nd, body, &error);
    answer(rc < 0 ? error.text : NULL);
    json_decref(body);
    if (rc == 0 && !S.closing)
        uv_run(S.nd.loop, UV_RUN_DEFAULT);
    unlink(S.sock_path);
    close_control_conns();
    daemon_close_loop(S.nd.loop);
    nd_pmix_shutdown();
    remove_pmix_dir(&S.nd);
    cgroup_root_destroy(S.nd.cgroup);
    proto_tls_ctx_destroy(S.nd.io_tls);
    free(S.sock_path);
    free(S.nd.pmix_dir);
    free(S.nd.spool_dir);
    conf_destroy(S.nd.conf);
    return rc < 0 ? 1 : 0;
}
