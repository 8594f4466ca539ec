/* SPDX-License-Identifier: Apache-2.0
 *
 * srun.c - run a job step inside an allocation
 *
 *     srun [-n N] [-N M] [-l] command [args...]
 *
 * Needs SLURM_JOB_ID (a batch job; allocation-less srun is not there
 * yet).  srun listens on an ephemeral TCP port, asks the controller for
 * the step (step_create), and each node's droverd connects back with the
 * tasks' output and exits as frames (docs/protocol.md).  The exit code is
 * the highest task's (128+signal for a signal).
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/srun_mpi.h"
#include "common/base64.h"
#include "common/hostlist.h"
#include "common/xalloc.h"
#include "proto/frame.h"

#define MAX_CONNS 1024

extern char **environ;

struct task {
    bool exited;
    int status;
    char *node;
    bool mid_line[2]; /* -l: last output did not end a line */
};

struct conn;

struct srun {
    const char *mpi;         /* --mpi / SLURM_MPI_TYPE; NULL: none */
    struct srun_fence_hub *fences; /* --mpi=pmix: fences in progress */
    struct conn *conns;      /* the nodes' connections (io_loop) */
    int nconn;
    bool aborted;            /* a rank called MPI_Abort */
    long ntasks;
    long nodes;
    long ntasks_per_node;    /* --ntasks-per-node (mpirun's orted launch) */
    const char *nodelist;    /* -w/--nodelist */
    bool label;
    char **argv;
    int ntask_total;
    struct task *tasks;
    int exited;
};

static void usage_error(const char *msg)
{
    fprintf(stderr, "srun: error: %s\n", msg);
    exit(1);
}

static long number(const char *s, const char *opt)
{
    char *end;
    long v = strtol(s ? s : "", &end, 10);

    if (!s || *end || v <= 0 || v > INT_MAX) {
        fprintf(stderr, "srun: error: invalid %s: %s\n", opt, s ? s : "");
        exit(1);
    }
    return v;
}

/* Value of option 'arg' ("-n4", "-n 4", "--ntasks=4"); advances *i. */
static const char *opt_value(char **argv, int *i, const char *s,
                             const char *l)
{
    const char *a = argv[*i];
    size_t ll = strlen(l);

    if (!strncmp(a, l, ll) && a[ll] == '=')
        return a + ll + 1;
    if (!strcmp(a, l) || !strcmp(a, s))
        return argv[++*i];
    if (!strncmp(a, s, 2) && a[2])
        return a + 2;
    return NULL;
}

static void print_help(void)
{
    printf("Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]]\n"
           "Runs a job step inside the current allocation (SLURM_JOB_ID).\n"
           "\n"
           "  -l, --label                 prepend task number to lines of "
           "stdout/err\n"
           "      --mpi=type              type of MPI being used\n"
           "  -N, --nodes=N               number of nodes on which to run\n"
           "  -n, --ntasks=ntasks         number of tasks to run\n"
           "\n"
           "Help options:\n"
           "  -h, --help                  show this help message\n"
           "      --usage                 display brief usage message\n"
           "  -V, --version               output version information and "
           "exit\n");
}

/* The options Open MPI's mpirun (plm/slurm) gives srun to start its
 * orted daemons: --ntasks-per-node=1 --kill-on-bad-exit --cpu-bind=none
 * [--nodes=N --nodelist=h1,h2].  Binding is not done by Drover, so
 * --cpu-bind is accepted as "none"; --kill-on-bad-exit is accepted (a
 * daemon that fails makes mpirun end the job itself).  Returns true when
 * argv[*i] was one of them (advancing *i past a separate value). */
static bool launcher_opt(char **argv, int *i, struct srun *s)
{
    const char *a = argv[*i], *v;

    if (!strncmp(a, "--ntasks-per-node", 17)) {
        v = opt_value(argv, i, "--ntasks-per-node", "--ntasks-per-node");
        s->ntasks_per_node = number(v, "ntasks-per-node");
    } else if (!strcmp(a, "-K") || !strcmp(a, "-K0") || !strcmp(a, "-K1")
               || !strncmp(a, "--kill-on-bad-exit", 18)) {
        ;
    } else if (!strncmp(a, "--cpu-bind", 10) || !strncmp(a, "--cpu_bind", 10)) {
        if (!strchr(a, '='))
            ++*i;
    } else if (!strncmp(a, "-w", 2) || !strncmp(a, "--nodelist", 10)) {
        if (!(s->nodelist = opt_value(argv, i, "-w", "--nodelist")))
            usage_error("option '--nodelist' requires an argument");
    } else {
        return false;
    }
    return true;
}

/* Derive the node count from --ntasks-per-node and --nodelist.  A
 * nodelist must be the first nodes of the allocation (steps are laid out
 * from the first node). */
static void launcher_fixup(struct srun *s)
{
    drv_error_t err = {0};
    hostlist_t *want, *job;
    const char *jl = getenv("SLURM_JOB_NODELIST");

    if (s->ntasks_per_node && !s->nodes && s->ntasks)
        s->nodes = (s->ntasks + s->ntasks_per_node - 1) / s->ntasks_per_node;
    if (s->ntasks_per_node && !s->ntasks && s->nodes)
        s->ntasks = s->nodes * s->ntasks_per_node;
    if (!s->nodelist)
        return;
    if (!(want = hostlist_decode(s->nodelist, &err))) {
        fprintf(stderr, "srun: error: --nodelist=%s: %s\n", s->nodelist,
                err.text);
        exit(1);
    }
    job = hostlist_decode(jl ? jl : "", &err);
    for (size_t n = 0; n < hostlist_count(want); n++) {
        if (!job || n >= hostlist_count(job)
            || strcmp(hostlist_nth(want, n), hostlist_nth(job, n))) {
            fprintf(stderr, "srun: error: --nodelist=%s: Drover runs a step "
                            "on the first nodes of the allocation (%s)\n",
                    s->nodelist, jl ? jl : "none");
            exit(1);
        }
    }
    if (!s->nodes)
        s->nodes = (long)hostlist_count(want);
    hostlist_destroy(want);
    hostlist_destroy(job);
}

static void parse_args(int argc, char **argv, struct srun *s)
{
    int i;

    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i], *v;

        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            print_help();
            exit(0);
        } else if (!strcmp(a, "--usage")) {
            printf("Usage: srun [-N nnodes] [-n ntasks] [-l] executable "
                   "[args...]\n");
            exit(0);
        } else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
            cmd_print_version();
            exit(0);
        } else if (launcher_opt(argv, &i, s)) {
            ;
        } else if (!strcmp(a, "-l") || !strcmp(a, "--label"))
            s->label = true;
        else if (!strncmp(a, "-n", 2) || !strncmp(a, "--ntasks", 8))
            v = opt_value(argv, &i, "-n", "--ntasks"),
            s->ntasks = number(v, "ntasks");
        else if (!strncmp(a, "-N", 2) || !strncmp(a, "--nodes", 7))
            v = opt_value(argv, &i, "-N", "--nodes"),
            s->nodes = number(v, "node count");
        else if (!strncmp(a, "--mpi", 5) && (a[5] == '=' || !a[5])) {
            s->mpi = a[5] ? a + 6 : argv[++i];
            if (!s->mpi)
                usage_error("option '--mpi' requires an argument");
        } else if (!strcmp(a, "--"))
            break;
        else {
            fprintf(stderr, "srun: error: unrecognized option '%s'\n", a);
            exit(1);
        }
    }
    if (i < argc && !strcmp(argv[i], "--"))
        i++;
    if (i >= argc)
        usage_error("No command given to execute.");
    s->argv = argv + i;
    launcher_fixup(s);
}

static int listen_any(int *port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t len = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0
        || listen(fd, 128) < 0
        || getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
        fprintf(stderr, "srun: error: I/O socket: %s\n", strerror(errno));
        exit(1);
    }
    *port = ntohs(sa.sin_port);
    return fd;
}

static json_t *str_array(char **v)
{
    json_t *a = json_array();

    for (; v && *v; v++)
        json_array_append_new(a, json_string(*v));
    return a;
}

static void step_create(struct srun *s, long job_id, int port)
{
    char cwd[PATH_MAX];
    json_t *body, *resp = NULL;
    drv_error_t error = {0};

    if (!getcwd(cwd, sizeof(cwd)))
        strcpy(cwd, "/tmp");
    body = json_pack("{s:I s:o s:o s:s s:i s:b}", "job_id",
                     (json_int_t)job_id, "argv", str_array(s->argv), "env",
                     str_array(environ), "cwd", cwd, "io_port", port,
                     "label", s->label);
    if (s->ntasks)
        json_object_set_new(body, "ntasks", json_integer(s->ntasks));
    if (s->nodes)
        json_object_set_new(body, "nodes", json_integer(s->nodes));
    if (s->mpi)
        json_object_set_new(body, "mpi", json_string(s->mpi));
    if (cmd_rpc("srun", "step_create", body, &resp, &error) < 0) {
        fprintf(stderr, "srun: error: Unable to create step for job %ld: %s\n",
                job_id, error.text);
        exit(1);
    }
    s->ntask_total = (int)json_integer_value(json_object_get(resp, "ntasks"));
    s->nodes = json_integer_value(json_object_get(resp, "nodes"));
    json_decref(resp);
    s->tasks = xzalloc(sizeof(*s->tasks) * (size_t)(s->ntask_total + 1));
}

/* Write task output, with "R: " at each line start under -l. */
static void output(struct srun *s, int rank, int err, const char *data,
                   size_t len)
{
    FILE *f = err ? stderr : stdout;
    struct task *t = &s->tasks[rank];

    for (size_t i = 0; i < len; i++) {
        if (s->label && !t->mid_line[err])
            fprintf(f, "%d: ", rank);
        fputc(data[i], f);
        t->mid_line[err] = data[i] != '\n';
    }
    fflush(f);
}

static void handle_frame(struct srun *s, json_t *m)
{
    json_int_t rank = json_integer_value(json_object_get(m, "task"));
    const char *data = json_string_value(json_object_get(m, "data"));
    json_t *exit_v = json_object_get(m, "exit");
    struct task *t;

    if (rank < 0 || rank >= s->ntask_total)
        return;
    t = &s->tasks[rank];
    if (data) {
        size_t len;
        unsigned char *bytes = base64_decode(data, &len);
        const char *st = json_string_value(json_object_get(m, "stream"));

        if (bytes)
            output(s, (int)rank, st && !strcmp(st, "err"), (char *)bytes,
                   len);
        free(bytes);
    } else if (json_is_integer(exit_v) && !t->exited) {
        t->exited = true;
        t->status = (int)json_integer_value(exit_v);
        t->node = xstrdup(json_string_value(json_object_get(m, "node")));
        s->exited++;
    }
}

struct conn {
    int fd;
    proto_decoder_t *dec;
};

static void write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        buf += n;
        len -= (size_t)n;
    }
}

static void send_all(struct srun *s, json_t *msg)
{
    char *buf;
    size_t len;

    if (proto_frame_encode(msg, &buf, &len) < 0)
        return;
    for (int i = 0; i < s->nconn; i++)
        if (s->conns[i].fd >= 0)
            write_all(s->conns[i].fd, buf, len);
    free(buf);
}

/* --mpi=pmix: a rank called MPI_Abort; every node kills the step. */
static void abort_frame(struct srun *s, json_t *m)
{
    json_t *status = json_object_get(m, "abort");

    if (s->aborted || !json_is_integer(status))
        return;
    s->aborted = true;
    fprintf(stderr, "srun: error: %s: task %lld: MPI_Abort with status %lld; "
                    "killing the step\n",
            json_string_value(json_object_get(m, "node")) ?: "?",
            (long long)json_integer_value(json_object_get(m, "rank")),
            (long long)json_integer_value(status));
    send_all(s, json_pack("{s:O}", "abort", status));
}

/* --mpi=pmix: a node's share of a fence; the last share makes the
 * answer, sent to every node (srun_mpi.h). */
static void fence_frame(struct srun *s, json_t *m)
{
    const char *error;
    json_t *answer;

    if (!s->fences)
        s->fences = srun_fence_hub_create((int)s->nodes);
    answer = srun_fence_add(s->fences, m, &error);
    if (error)
        fprintf(stderr, "srun: error: PMIx: %s\n", error);
    if (answer)
        send_all(s, answer);
    json_decref(answer);
}

/* Read what arrived on connection 'c'; false at its end. */
static bool conn_read(struct srun *s, struct conn *c)
{
    char buf[65536];
    ssize_t n = read(c->fd, buf, sizeof(buf));
    json_t *m;

    if (n < 0 && errno == EINTR)
        return true;
    if (n <= 0 || proto_decoder_feed(c->dec, buf, (size_t)n) < 0)
        return false;
    while ((m = proto_decoder_next(c->dec, NULL))) {
        if (json_object_get(m, "fence"))
            fence_frame(s, m);
        else if (json_object_get(m, "abort"))
            abort_frame(s, m);
        else
            handle_frame(s, m);
        json_decref(m);
    }
    return errno == EAGAIN;
}

/* Serve the nodes' connections until every task has exited (or every
 * node has hung up).  Returns the number of tasks never heard from. */
static int io_loop(struct srun *s, int lfd)
{
    struct pollfd pfd[MAX_CONNS + 1];
    struct conn conns[MAX_CONNS];
    int nconn = 0, closed = 0;
    int connect_ms = (int)cmd_conf("srun")->msg_timeout_s * 1000;

    while (s->exited < s->ntask_total
           && !(closed >= s->nodes && closed == nconn)) {
        pfd[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
        for (int i = 0; i < nconn; i++)
            pfd[i + 1] = (struct pollfd){.fd = conns[i].fd, .events = POLLIN};
        /* Every node connects back at launch: one that has not within
         * MessageTimeout never will (its daemon died or the launch
         * failed), and srun must not wait for it forever. */
        int timeout = nconn < s->nodes ? connect_ms : -1;
        s->conns = conns;
        s->nconn = nconn;
        int n = poll(pfd, (nfds_t)nconn + 1, timeout);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        if (n == 0) {
            fprintf(stderr, "srun: error: %ld of %ld node(s) never "
                            "connected back within %d s\n",
                    (long)(s->nodes - nconn), (long)s->nodes,
                    connect_ms / 1000);
            break;
        }
        for (int i = 0; i < nconn; i++) {
            if (conns[i].fd < 0 || !pfd[i + 1].revents)
                continue;
            if (!conn_read(s, &conns[i])) {
                close(conns[i].fd);
                proto_decoder_destroy(conns[i].dec);
                conns[i].fd = -1;
                closed++;
            }
        }
        if ((pfd[0].revents & POLLIN) && nconn < MAX_CONNS) {
            int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

            if (fd >= 0)
                conns[nconn++] = (struct conn){fd, proto_decoder_create()};
        }
    }
    for (int i = 0; i < nconn; i++)
        if (conns[i].fd >= 0) {
            close(conns[i].fd);
            proto_decoder_destroy(conns[i].dec);
        }
    return s->ntask_total - s->exited;
}

static int task_code(int status)
{
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* "srun: error: NODE: task(s) R: Exited with exit code C", one line per
 * run of consecutive ranks on one node with one status. */
static int report(struct srun *s)
{
    int rc = 0;

    for (int i = 0; i < s->ntask_total;) {
        struct task *t = &s->tasks[i];
        int j = i + 1, code = task_code(t->status);

        if (code > rc)
            rc = code;
        while (j < s->ntask_total && s->tasks[j].status == t->status
               && s->tasks[j].node && t->node
               && !strcmp(s->tasks[j].node, t->node))
            j++;
        if (t->status && t->exited) {
            char ranks[64];

            if (j - i > 1)
                snprintf(ranks, sizeof(ranks), "tasks %d-%d", i, j - 1);
            else
                snprintf(ranks, sizeof(ranks), "task %d", i);
            if (WIFSIGNALED(t->status))
                fprintf(stderr, "srun: error: %s: %s: %s\n", t->node, ranks,
                        strsignal(WTERMSIG(t->status)));
            else
                fprintf(stderr,
                        "srun: error: %s: %s: Exited with exit code %d\n",
                        t->node, ranks, code);
        }
        i = j;
    }
    return rc;
}

int main(int argc, char **argv)
{
    struct srun s = {0};
    const char *job = getenv("SLURM_JOB_ID");
    int port, lfd, lost, rc;

    parse_args(argc, argv, &s);
    if (!s.mpi)
        s.mpi = getenv("SLURM_MPI_TYPE");
    if (s.mpi) {
        int known = srun_mpi_check(s.mpi, stdout, stderr);

        if (known != 0)
            exit(known > 0 ? 0 : 1);
        setenv("SLURM_MPI_TYPE", s.mpi, 1);
    }
    if (!job || !*job)
        usage_error("srun outside a job allocation is not supported: "
                    "SLURM_JOB_ID is not set (run it inside sbatch)");
    signal(SIGPIPE, SIG_IGN);
    lfd = listen_any(&port);
    step_create(&s, number(job, "SLURM_JOB_ID"), port);
    lost = io_loop(&s, lfd);
    close(lfd);
    rc = report(&s);
    if (lost) {
        fprintf(stderr, "srun: error: %d task(s) lost\n", lost);
        rc = rc ? rc : 1;
    }
    for (int i = 0; i < s.ntask_total; i++)
        free(s.tasks[i].node);
    free(s.tasks);
    srun_fence_hub_destroy(s.fences);
    return rc;
}
