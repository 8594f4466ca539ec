/* SPDX-License-Identifier: Apache-2.0
 *
 * sattach.c - attach to a running job step's I/O
 *
 *     sattach [options] <jobid.stepid>
 *
 * As Slurm's sattach: the controller says where the step runs
 * (step_info), each of its nodes is asked to attach (step_attach,
 * src/noded/attach.h), and each node's droverstepd connects back to the
 * port we listen on, replays the step's recent output it keeps, then
 * sends every new output and exit frame (src/noded/step_attach.h).  We
 * print them as srun does (-l labels, src/cmd/lib/stepio.h), forward our
 * stdin to the tasks, and end once every task ended, with the highest
 * exit code.  --layout prints the tasks' placement and attaches nothing.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/stepio.h"
#include "common/base64.h"
#include "common/hostlist.h"
#include "common/xalloc.h"
#include "proto/frame.h"

#define PROG "sattach"
#define MAX_CONNS 1024

enum { OPT_IN = CMD_OPT_LONG, OPT_OUT, OPT_ERR, OPT_LAYOUT };

/* Slurm 22.05's rows and --help text, byte for byte. */
static const struct cmd_opt opts[] = {
    {"input-filter", OPT_IN, required_argument,
     "      --input-filter=taskid  send stdin to only the specified task\n"},
    {"output-filter", OPT_OUT, required_argument,
     "      --output-filter=taskid only print stdout from the specified "
     "task\n"},
    {"error-filter", OPT_ERR, required_argument,
     "      --error-filter=taskid  only print stderr from the specified "
     "task\n"},
    {"label", 'l', no_argument,
     "  -l, --label        prepend task number to lines of stdout & "
     "stderr\n"},
    {"layout", OPT_LAYOUT, no_argument,
     "      --layout       print task layout info and exit (does not "
     "attach to tasks)\n"},
    {"quiet", 'Q', no_argument,
     "  -Q, --quiet        quiet mode (suppress informational messages)\n"},
    {"verbose", 'v', no_argument,
     "  -v, --verbose      verbose mode (multiple -v's increase "
     "verbosity)\n"},
    {"version", 'V', no_argument,
     "  -V, --version      print the Slurm version and exit\n"
     "\nHelp options:\n"},
    {"help", 'h', no_argument,
     "  -h, --help         print this help message\n"},
    {"usage", 'u', no_argument,
     "  -u, --usage        print a brief usage message\n"},
    CMD_OPT_END,
};

static const char usage_text[] = "Usage: sattach [options] <jobid.stepid>\n";

struct sattach_opts {
    uint32_t job_id, step_id;
    long in_filter, out_filter, err_filter; /* task ids; -1: all */
    bool label, layout;
    int quiet, verbose;
};

struct sattach {
    const struct sattach_opts *o;
    char io_key[2 * STEPIO_KEY_BYTES + 1];
    long ntasks;           /* the step's, from the controller */
    bool (*mid_line)[2];   /* per task and stream (-l) */
    bool *exited;          /* per task */
    long started, ended;   /* tasks the nodes said run, and that ended */
    int nodes_attached;    /* nodes that accepted step_attach */
    int nauth;             /* their connections that said hello */
    int closed;            /* their connections that ended */
    int rc;                /* the highest exit code */
    struct stepio_conn conns[MAX_CONNS]; /* the nodes' connections */
    int nconn;
};

/* "sattach: error: ..." and exit 1. */
__attribute__((format(printf, 1, 2), noreturn)) static void
die(const char *fmt, ...)
{
    va_list ap;

    fputs("sattach: error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

/* An error that Slurm follows with the usage line (on stdout). */
__attribute__((noreturn)) static void die_usage(const char *msg)
{
    fprintf(stderr, "sattach: error: %s\n", msg);
    fputs(usage_text, stdout);
    exit(1);
}

/* A task id of a filter: "-" is every task (Slurm's). */
static long task_id(const char *s, const char *name)
{
    char *end;
    long v;

    if (!strcmp(s, "-"))
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > INT32_MAX)
        die("Invalid numeric value \"%s\" for %s.", s, name);
    return v;
}

/* "J.S" as Slurm's sattach reads it. */
static void parse_step(const char *arg, struct sattach_opts *o)
{
    char *job = xstrdup(arg), *dot = strchr(job, '.'), *end, *msg;
    unsigned long long j, s;

    if (!dot)
        die_usage("Did not find a period in the step ID string");
    *dot = '\0';
    errno = 0;
    j = strtoull(job, &end, 10);
    if (errno || end == job || *end || j == 0 || j > UINT32_MAX) {
        msg = xasprintf("\"%s\" does not look like a jobid", job);
        die_usage(msg);
    }
    errno = 0;
    s = strtoull(dot + 1, &end, 10);
    if (errno || end == dot + 1 || *end || s > UINT32_MAX) {
        msg = xasprintf("\"%s\" does not look like a stepid", dot + 1);
        die_usage(msg);
    }
    o->job_id = (uint32_t)j;
    o->step_id = (uint32_t)s;
    free(job);
}

static void parse_args(int argc, char **argv, struct sattach_opts *o)
{
    int c;

    *o = (struct sattach_opts){.in_filter = -1, .out_filter = -1,
                               .err_filter = -2};
    while ((c = cmd_getopt(argc, argv, opts)) != -1) {
        switch (c) {
        case OPT_IN: o->in_filter = task_id(optarg, "input-filter"); break;
        case OPT_OUT: o->out_filter = task_id(optarg, "output-filter"); break;
        case OPT_ERR: o->err_filter = task_id(optarg, "error-filter"); break;
        case OPT_LAYOUT: o->layout = true; break;
        case 'l': o->label = true; break;
        case 'Q': o->quiet++; break;
        case 'v': o->verbose++; break;
        case 'V': cmd_print_version(); exit(0);
        case 'h': cmd_print_help(stdout, usage_text, opts, NULL); exit(0);
        case 'u': fputs(usage_text, stdout); exit(0);
        default:
            fputs("Try \"sattach --help\" for more information\n", stderr);
            exit(1);
        }
    }
    if (argc - optind != 1)
        die_usage("too many parameters");
    if (o->quiet && o->verbose)
        die("don't specify both --verbose (-v) and --quiet (-Q)");
    if (o->err_filter == -2) /* stderr follows --output-filter (Slurm) */
        o->err_filter = o->out_filter;
    parse_step(argv[optind], o);
}

/* --- the step, from the controller -------------------------------------- */

/* The step's record (new reference), or NULL with errno and the text of
 * Slurm's error in *error: the controller not answering, or the step not
 * there, not ours, or over. */
static json_t *lookup_step(const struct sattach_opts *o, drv_error_t *error)
{
    json_t *resp = NULL, *s, *found = NULL;
    int err = 0;
    size_t i;

    if (cmd_rpc(PROG, "step_info",
                json_pack("{s:[I] s:b}", "job_ids", (json_int_t)o->job_id,
                          "all_states", 1),
                &resp, error)
        < 0)
        return NULL;
    json_array_foreach(json_object_get(resp, "steps"), i, s) {
        if (json_integer_value(json_object_get(s, "job_id")) == o->job_id
            && json_integer_value(json_object_get(s, "step_id"))
                   == o->step_id)
            found = json_incref(s);
    }
    json_decref(resp);
    if (!found)
        err = EDRV_INVALID_JOB_ID;
    else if (getuid() != 0
             && json_integer_value(json_object_get(found, "user_id"))
                    != (json_int_t)getuid())
        err = EDRV_ACCESS_DENIED;
    else if (strcmp(json_string_value(json_object_get(found, "state")) ?: "",
                    "RUNNING"))
        err = EDRV_ALREADY_DONE;
    if (!err)
        return found;
    json_decref(found);
    errprintf(error, "%s", drv_strerror(err));
    errno = err;
    return NULL;
}

/* The step's record (new reference); Slurm's error and exit 1 when it is
 * not there, not ours, or over. */
static json_t *find_step(const struct sattach_opts *o)
{
    drv_error_t error = {0};
    json_t *step = lookup_step(o, &error);

    if (!step)
        die("Could not get job step info: %s", error.text);
    return step;
}

static long mono_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* step_attach to 'node' (body stolen): its answer, or NULL with the
 * error in *error. */
static json_t *ask_node(const char *node, json_t *body, drv_error_t *error)
{
    const struct conf_node *cn = conf_node_find(cmd_conf_nodes(PROG), node);
    json_t *resp = NULL;

    if (!cn) {
        json_decref(body);
        errprintf(error, "%s", drv_strerror(EDRV_INVALID_NODE_NAME));
        errno = EDRV_INVALID_NODE_NAME;
        return NULL;
    }
    if (cmd_rpc_to(PROG, cn->addr, cn->port, "step_attach", body, &resp,
                   error)
        < 0)
        return NULL;
    return resp;
}

/* step_attach to 'node' (body stolen), waiting for a launch on its way:
 * the controller says a step runs once it made it, and its nodes hear of
 * it a moment later, so a node that does not know the step yet is asked
 * again every 50 ms while the controller still says it runs, for
 * MessageTimeout at most (as srun waits for its nodes to connect back).
 * Returns as ask_node(). */
static json_t *ask_node_launched(const struct sattach_opts *o,
                                 const char *node, json_t *body,
                                 drv_error_t *error)
{
    long deadline = mono_ms() + (long)cmd_conf(PROG)->msg_timeout_s * 1000;
    json_t *resp, *step;
    int err = 0;

    for (;;) {
        drv_error_t again = {0};

        if ((resp = ask_node(node, json_incref(body), error))
            || (err = errno) != EDRV_INVALID_JOB_ID || mono_ms() >= deadline)
            break;
        if (!(step = lookup_step(o, &again)))
            break; /* over: the node's answer stands */
        json_decref(step);
        nanosleep(&(struct timespec){0, 50 * 1000000L}, NULL);
    }
    json_decref(body);
    errno = err;
    return resp;
}

/* A node's refusal: another user's step ends us as Slurm's controller
 * would; a node whose tasks are gone gets Slurm's info line; any other
 * error is said and makes our exit status 1.  Returns 1 for an error. */
static int node_refused(const struct sattach_opts *o, const char *node,
                        const drv_error_t *error)
{
    if (errno == EDRV_ACCESS_DENIED)
        die("Could not get job step info: %s", error->text);
    if (errno == EDRV_INVALID_JOB_ID || errno == EDRV_ALREADY_DONE) {
        if (!o->quiet)
            fprintf(stderr, "sattach: Node %s: no tasks running\n", node);
        return 0;
    }
    fprintf(stderr, "sattach: error: Node %s: %s\n", node, error->text);
    return 1;
}

/* --layout: Slurm's lines, each node's task ids from the node itself. */
static int print_layout(const struct sattach_opts *o, json_t *step)
{
    const char *nodes = json_string_value(json_object_get(step, "nodes"));
    hostlist_t *hl = hostlist_decode(nodes ? nodes : "", NULL);
    size_t n = hl ? hostlist_count(hl) : 0;

    printf("Job step layout:\n");
    printf("\t%lld tasks, %zu nodes (%s)\n\n",
           (long long)json_integer_value(json_object_get(step, "ntasks")), n,
           nodes ? nodes : "");
    for (size_t i = 0; i < n; i++) {
        drv_error_t error = {0};
        json_t *resp = ask_node_launched(
            o, hostlist_nth(hl, i),
            json_pack("{s:I s:I s:b}", "job_id", (json_int_t)o->job_id,
                      "step_id", (json_int_t)o->step_id, "layout", 1),
            &error);
        json_t *ranks = json_object_get(resp, "ranks"), *r;
        size_t k;

        if (!resp)
            (void)node_refused(o, hostlist_nth(hl, i), &error);
        printf("\tNode %zu (%s), %zu task(s): ", i, hostlist_nth(hl, i),
               json_array_size(ranks));
        json_array_foreach(ranks, k, r) printf("%lld ",
                                               (long long)json_integer_value(
                                                   r));
        printf("\n");
        json_decref(resp);
    }
    hostlist_destroy(hl);
    return 0;
}

/* Ask every node of the step to connect back to 'port'. */
static void attach_nodes(struct sattach *sa, json_t *step, int port)
{
    const char *nodes = json_string_value(json_object_get(step, "nodes"));
    hostlist_t *hl = hostlist_decode(nodes ? nodes : "", NULL);

    for (size_t i = 0; hl && i < hostlist_count(hl); i++) {
        drv_error_t error = {0};
        json_t *resp = ask_node_launched(
            sa->o, hostlist_nth(hl, i),
            json_pack("{s:I s:I s:i s:s}", "job_id",
                      (json_int_t)sa->o->job_id, "step_id",
                      (json_int_t)sa->o->step_id, "io_port", port, "io_key",
                      sa->io_key),
            &error);

        if (!resp) {
            if (node_refused(sa->o, hostlist_nth(hl, i), &error))
                sa->rc = 1;
            continue;
        }
        sa->nodes_attached++;
        sa->started += (long)json_array_size(json_object_get(resp, "ranks"));
        if (sa->o->verbose)
            fprintf(stderr, "sattach: Node %s, %zu tasks\n",
                    hostlist_nth(hl, i),
                    json_array_size(json_object_get(resp, "ranks")));
        json_decref(resp);
    }
    hostlist_destroy(hl);
}

/* --- the nodes' frames -------------------------------------------------- */

static void output_frame(struct sattach *sa, long rank, json_t *m)
{
    const char *st = json_string_value(json_object_get(m, "stream"));
    int err = st && !strcmp(st, "err");
    long filter = err ? sa->o->err_filter : sa->o->out_filter;
    size_t len;
    unsigned char *bytes;

    if (filter >= 0 && filter != rank)
        return;
    bytes = base64_decode(json_string_value(json_object_get(m, "data")),
                          &len);
    if (bytes)
        stepio_print(err ? stderr : stdout, (int)rank, sa->o->label,
                     &sa->mid_line[rank][err], (char *)bytes, len);
    free(bytes);
}

/* A task's exit: Slurm's sattach lines, and the highest code is ours. */
static void exit_frame(struct sattach *sa, long rank, int status)
{
    if (sa->exited[rank])
        return;
    sa->exited[rank] = true;
    sa->ended++;
    if (sa->o->verbose)
        fprintf(stderr, "sattach: 1 tasks finished (rc=%u)\n",
                (unsigned)status);
    if (WIFEXITED(status) && WEXITSTATUS(status)) {
        fprintf(stderr, "sattach: error: task %ld exited with exit code "
                        "%d\n",
                rank, WEXITSTATUS(status));
        if (WEXITSTATUS(status) > sa->rc)
            sa->rc = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status) && sa->o->verbose) {
        fprintf(stderr, "sattach: task %ld killed by signal %d\n", rank,
                WTERMSIG(status));
    }
}

static void handle_frame(struct sattach *sa, json_t *m)
{
    json_t *task = json_object_get(m, "task");
    json_t *exit_v = json_object_get(m, "exit");
    long rank = (long)json_integer_value(task);

    if (!json_is_integer(task) || rank < 0 || rank >= sa->ntasks)
        return;
    if (json_is_string(json_object_get(m, "data")))
        output_frame(sa, rank, m);
    else if (json_is_integer(exit_v))
        exit_frame(sa, rank, (int)json_integer_value(exit_v));
}

/* Read what arrived on 'c'; false at its end, or at anything but a
 * node's hello with our secret first. */
static bool conn_read(struct sattach *sa, struct stepio_conn *c)
{
    int fed = stepio_conn_feed(PROG, c);
    json_t *m;

    if (fed <= 0)
        return fed == 0;
    while ((m = proto_decoder_next(c->dec, NULL))) {
        if (!c->authed) {
            if (!json_is_array(json_object_get(m, "ranks"))
                || !stepio_key_ok(sa->io_key, m)) {
                json_decref(m);
                return false;
            }
            c->authed = true;
            sa->nauth++;
        } else {
            handle_frame(sa, m);
        }
        json_decref(m);
    }
    return errno == EAGAIN;
}

static void conn_drop(struct sattach *sa, int i)
{
    struct stepio_conn *c = &sa->conns[i];

    if (c->authed)
        sa->closed++;
    stepio_conn_close(c);
    sa->conns[i] = sa->conns[--sa->nconn];
}

/* Our stdin, as srun's stdin frames, to every node (each hands it to
 * its tasks that read stdin; with --input-filter only to that task).
 * False at its end, which is not passed on: the tasks' stdin is srun's. */
static bool forward_stdin(struct sattach *sa)
{
    char buf[4096];
    ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
    char *b64;

    if (n < 0 && errno == EINTR)
        return true;
    if (n <= 0)
        return false;
    b64 = base64_encode(buf, (size_t)n);
    for (int i = 0; i < sa->nconn; i++) {
        json_t *m = json_pack("{s:s}", "stdin", b64);

        if (sa->o->in_filter >= 0)
            json_object_set_new(m, "task", json_integer(sa->o->in_filter));
        if (sa->conns[i].authed) /* a node gone: its EOF says so */
            (void)stepio_conn_send(&sa->conns[i], m);
        json_decref(m);
    }
    free(b64);
    return true;
}

static void accept_conn(struct sattach *sa, int lfd)
{
    struct stepio_conn c;

    if (stepio_accept(PROG, lfd, &c) < 0)
        return;
    if (sa->nconn == MAX_CONNS) {
        stepio_conn_close(&c);
        return;
    }
    sa->conns[sa->nconn++] = c;
}

/* Serve the nodes' connections until every task we attached to ended,
 * or every node hung up. */
static void io_loop(struct sattach *sa, int lfd)
{
    struct pollfd pfd[MAX_CONNS + 2];
    bool in_open = true;
    long deadline = mono_ms() + (long)cmd_conf(PROG)->msg_timeout_s * 1000;

    while (sa->ended < sa->started && sa->closed < sa->nodes_attached) {
        int n, timeout = -1;

        /* a node that accepted connects back at once: one that has not
         * within MessageTimeout never will */
        if (sa->nauth < sa->nodes_attached
            && (timeout = (int)(deadline - mono_ms())) <= 0) {
            fprintf(stderr, "sattach: error: %d of %d node(s) never "
                            "connected back\n",
                    sa->nodes_attached - sa->nauth, sa->nodes_attached);
            sa->nodes_attached = sa->nauth;
            continue;
        }

        pfd[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
        /* stdin is read once every node said hello, so none misses it */
        pfd[1] = (struct pollfd){
            .fd = in_open && sa->nauth >= sa->nodes_attached ? STDIN_FILENO
                                                             : -1,
            .events = POLLIN};
        for (int i = 0; i < sa->nconn; i++)
            pfd[i + 2] = (struct pollfd){.fd = sa->conns[i].fd,
                                         .events = POLLIN};
        n = poll(pfd, (nfds_t)sa->nconn + 2, timeout);
        if (n < 0 && errno != EINTR)
            break;
        if (n <= 0)
            continue;
        for (int i = sa->nconn - 1; i >= 0; i--)
            if (pfd[i + 2].revents && !conn_read(sa, &sa->conns[i]))
                conn_drop(sa, i);
        if (pfd[1].revents)
            in_open = forward_stdin(sa);
        if (pfd[0].revents & POLLIN)
            accept_conn(sa, lfd);
    }
}

static void sattach_free(struct sattach *sa)
{
    for (int i = 0; i < sa->nconn; i++)
        stepio_conn_close(&sa->conns[i]);
    free(sa->mid_line);
    free(sa->exited);
    free(sa);
}

int main(int argc, char **argv)
{
    struct sattach_opts o;
    struct sattach *sa;
    json_t *step;
    int lfd, port, rc;

    signal(SIGPIPE, SIG_IGN); /* a node gone: its connection's EOF says */
    parse_args(argc, argv, &o);
    step = find_step(&o);
    if (o.layout) {
        rc = print_layout(&o, step);
        json_decref(step);
        return rc;
    }
    sa = xzalloc(sizeof(*sa));
    sa->o = &o;
    sa->ntasks = (long)json_integer_value(json_object_get(step, "ntasks"));
    sa->mid_line = xzalloc(sizeof(*sa->mid_line) * (size_t)(sa->ntasks + 1));
    sa->exited = xzalloc(sizeof(*sa->exited) * (size_t)(sa->ntasks + 1));
    stepio_make_key(PROG, sa->io_key);
    lfd = stepio_listen(PROG, &port);
    attach_nodes(sa, step, port);
    json_decref(step);
    io_loop(sa, lfd);
    close(lfd);
    rc = sa->rc;
    sattach_free(sa);
    return rc;
}
