/* SPDX-License-Identifier: Apache-2.0
 *
 * srun.c - run a job step inside an allocation
 *
 *     srun [resource options] [-l] [--pty] command [args...]
 *
 * Options are sbatch's table (src/cmd/lib/sbatch_opt.c, srun's rows).
 * Inside a job (SLURM_JOB_ID) the step runs in that allocation; outside
 * one srun first gets an allocation exactly as salloc does
 * (src/cmd/lib/alloc.c), runs the step over it and releases it with
 * the step's exit status.  srun listens on an ephemeral TCP port, asks
 * the controller for the step (step_create), and each node's droverd
 * connects back with the tasks' output and exits as frames
 * (docs/protocol.md); with --pty, srun's terminal goes raw and its keys
 * and window size go to task 0's pseudo-terminal; with --mpi=pmix srun
 * is the hub of the nodes' PMIx fences (srun_mpi.h).  The exit code is the
 * highest task's (128+signal for a signal).
 */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cmd/lib/alloc.h"
#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/sbatch_opt.h"
#include "cmd/lib/sbatch_req.h"
#include "cmd/lib/srun_bind.h"
#include "cmd/lib/srun_env.h"
#include "cmd/lib/srun_mpi.h"
#include "cmd/lib/srun_multiprog.h"
#include "cmd/lib/srun_script.h"
#include "cmd/lib/slurm_texts.h"
#include "cmd/lib/srun_verbose.h"
#include "cmd/lib/stepio.h"
#include "common/base64.h"
#include "common/hostlist.h"
#include "common/jobpath.h"
#include "common/rlimits.h"
#include "common/taskdist.h"
#include "common/xalloc.h"
#include "proto/frame.h"

#define MAX_CONNS 1024
/* Before a connection proved it is one of the step's nodes (its first
 * frame carries the step's I/O key), it may send STEPIO_PREAUTH_MAX bytes
 * and take this long; then it is dropped (docs/security.md). */
#define IO_PREAUTH_MAX_MS 10000

extern char **environ;

struct task {
    bool exited;
    int status;
    char *node;
    bool mid_line[2]; /* -l: last output did not end a line */
    FILE *file[2];    /* -o/-e: where its stdout/stderr go (NULL: ours) */
    int64_t node_id;  /* its node's index in the step; -1 until known */
    bool reported;    /* its "srun: error:" line is out already (-K) */
};

/* An -o/-e file, shared by the tasks whose pattern expands to it. */
struct out_file {
    char *path;
    FILE *f;
    struct out_file *next;
};

struct srun {
    const char *out_pattern; /* -o: per-task stdout file (%t %n %s %j ...) */
    const char *err_pattern; /* -e: stderr; NULL: with stdout */
    struct out_file *files;
    long ntasks;
    long nodes;
    bool label;
    char **argv;
    int ntask_total;
    struct task *tasks;
    int exited;
    bool pty;                /* --pty: task 0 on a terminal */
    const char *input;       /* -i: all (NULL), a rank, or a file name */
    int stdin_rank;          /* the task our stdin goes to; -1: every
                              * task; -2: none (-i FILE or none) */
    const char *mpi;         /* --mpi / SLURM_MPI_TYPE; NULL: none */
    struct srun_fence_hub *fences; /* --mpi=pmix: fences in progress */
    struct conn *conns;      /* the nodes' connections (io_loop) */
    int nconn;
    bool aborted;            /* a rank called MPI_Abort */
    long job_id, step_id;
    bool own_alloc;          /* srun made the allocation itself */
    int alive_ms;            /* own_alloc: job_alive every this often (0:
                              * never: no InactiveLimit) */
    struct timespec alive_at; /* the last job_alive */
    bool kill_bad;           /* -K: a bad exit kills the step */
    int bad_status;          /* -K: the status that did (0: none) */
    bool aborting;           /* we killed the step: no "Killed" lines */
    bool node_failed;        /* a node's connection broke mid-step */
    json_t *req;             /* step_create keys from the options */
    char io_key[2 * STEPIO_KEY_BYTES + 1]; /* the step's I/O secret (hex) */
    int nauth;               /* connections that proved they are nodes */
    int verbose;             /* -v count */
    const char *step_name;   /* -J, else the command's base name */
    const char *nodelist;    /* -w as given, or NULL */
    long cpus_per_task;      /* -c, else 1 */
    int lfd, io_port;        /* the I/O socket, open before the step */
    json_t *node_names;      /* step_create's answer (srun -v) */
    const char *prolog, *epilog; /* --prolog/SrunProlog..., or NULL */
    json_t *task_map;
    char *multi_prog;        /* --multi-prog: the file's text */
    unsigned rlimit_mask;    /* limits to propagate (rlimits.h bits) */
    bool preserve_env;       /* -E: the job's counts, not the step's */
    bool quit_on_intr;       /* --quit-on-interrupt: one ^C ends it */
    bool no_status;          /* -X: ^C never prints the tasks' states */
    const char *work_dir;    /* -D (absolute), else srun's directory */
    const char *export;      /* --export as given, or NULL (ALL) */
    long max_wait_s;         /* -W: after the first exit; 0: no limit */
    long first_exit_ms;      /* when the first task ended (mono_ms) */
    bool waited_out;         /* -W expired: the step was killed */
    bool timed_out;          /* a node said the job hit its time limit */
};

static void tty_size(int *rows, int *cols)
{
    struct winsize ws = {0};

    if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) < 0 || !ws.ws_row)
        ws = (struct winsize){.ws_row = 24, .ws_col = 80};
    *rows = ws.ws_row;
    *cols = ws.ws_col;
}

/* --pty puts our terminal in raw mode: keys go to task 0 as typed. */
static struct termios saved_tty;
static bool tty_raw;

static void tty_restore(void)
{
    if (tty_raw)
        tcsetattr(STDIN_FILENO, TCSADRAIN, &saved_tty);
    tty_raw = false;
}

static void tty_make_raw(void)
{
    struct termios raw;

    if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_tty) < 0)
        return;
    raw = saved_tty;
    cfmakeraw(&raw);
    if (tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) == 0) {
        tty_raw = true;
        atexit(tty_restore);
    }
}

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

/* The count of "gpu:2", "gpu:a100:2", "a100:2" or "2"; -1 when 's' is
 * not of that form. */
static long gpu_count(const char *s)
{
    const char *last = strrchr(s, ':');
    char *end;
    long v;

    if (!strncmp(s, "gpu", 3) && !last)
        return s[3] ? -1 : 1;
    v = strtol(last ? last + 1 : s, &end, 10);
    return *end || v < 0 ? -1 : v;
}

static bool extra_flag(const struct sbatch_opts *o, const char *key)
{
    json_t *v = json_object_get(o->extra, key);
    const char *str = json_string_value(v);

    return json_is_true(v) || (str && strcmp(str, "0"));
}

/* The step's own resource request (docs/protocol.md step_create). */
static json_t *step_request(const struct sbatch_opts *o)
{
    json_t *r = json_object();
    const char *gpt = json_string_value(json_object_get(o->extra,
                                                        "gpus_per_task"));

    if (o->cpus_per_task > 0)
        json_object_set_new(r, "cpus_per_task",
                            json_integer(o->cpus_per_task));
    if (json_is_string(json_object_get(o->extra, "mincpus")))
        json_object_set_new(r, "min_cpus", json_integer(atol(
            json_string_value(json_object_get(o->extra, "mincpus")))));
    if (o->mem_per_node_mib >= 0)
        json_object_set_new(r, "mem_mib", json_integer(o->mem_per_node_mib));
    if (gpt)
        json_object_set_new(r, "gpus_per_task", json_integer(gpu_count(gpt)));
    if (o->gpus)
        json_object_set_new(r, "gpus", json_integer(gpu_count(o->gpus)));
    if (o->gres) {
        bool shares;
        long n = sbatch_gres_gpus(o->gres, &shares);
        if (!shares) /* else its tasks see the shares' GPU (step_launch) */
            json_object_set_new(r, "gpus_per_node", json_integer(n));
    } else if (o->gpus_per_node) {
        json_object_set_new(r, "gpus_per_node",
                            json_integer(gpu_count(o->gpus_per_node)));
    } else if (o->gpus_per_socket && !o->gpus && !gpt) {
        /* N per socket of -B/--sockets-per-node (required, sbatch_opt.c):
         * N x S on each node, as for the job (ctld/rpc_job.c) */
        long n = gpu_count(o->gpus_per_socket);

        json_object_set_new(r, "gpus_per_node",
                            json_integer(n < 0 ? n : n * o->sockets_per_node));
    }
    /* -B S:C:T: the step's nodes are those of the job's with at least
     * these (ctld/step_nodes.h) */
    if (o->sockets_per_node > 0)
        json_object_set_new(r, "sockets_per_node",
                            json_integer(o->sockets_per_node));
    if (o->cores_per_socket > 0)
        json_object_set_new(r, "cores_per_socket",
                            json_integer(o->cores_per_socket));
    if (o->threads_per_core > 0)
        json_object_set_new(r, "threads_per_core",
                            json_integer(o->threads_per_core));
    if (extra_flag(o, "exact"))
        json_object_set_new(r, "exact", json_true());
    if (extra_flag(o, "overlap"))
        json_object_set_new(r, "overlap", json_true());
    if (extra_flag(o, "overcommit"))
        json_object_set_new(r, "overcommit", json_true());
    /* --container, else SLURM_CONTAINER (as Slurm's srun reads it) */
    if (json_is_string(json_object_get(o->extra, "container")))
        json_object_set(r, "container", json_object_get(o->extra,
                                                        "container"));
    else if (getenv("SLURM_CONTAINER") && *getenv("SLURM_CONTAINER"))
        json_object_set_new(r, "container",
                            json_string(getenv("SLURM_CONTAINER")));
    /* Pyxis's, built in; --task-prolog/epilog: as given */
    for (size_t i = 0; i < 5; i++) {
        static const char *const keys[] = {"container_image",
                                           "container_mounts",
                                           "container_workdir",
                                           "task_prolog", "task_epilog"};
        json_t *v = json_object_get(o->extra, keys[i]);

        if (json_is_string(v))
            json_object_set(r, keys[i], v);
    }
    return r;
}

static int report_opts(const struct sbatch_error *e)
{
    sbatch_error_print_as(e, "srun", stderr);
    return e->exit_code;
}

/* --mpi, else SLURM_MPI_TYPE, else slurm.conf's MpiDefault (none: no
 * type): checked (Slurm's error for an unknown type), and exported to the
 * tasks as srun does.  Returns -1 to go on, else the exit status. */
static int mpi_type(struct sbatch_opts *o, struct srun *s)
{
    const char *dflt = cmd_conf("srun")->mpi_default;
    int known;

    s->mpi = o->mpi ? o->mpi : getenv("SLURM_MPI_TYPE");
    if (!s->mpi && dflt && strcmp(dflt, "none"))
        s->mpi = dflt;
    if (!s->mpi)
        return -1;
    if ((known = srun_mpi_check(s->mpi, stdout, stderr)) != 0)
        return known > 0 ? 0 : 1;
    setenv("SLURM_MPI_TYPE", s->mpi, 1);
    return -1;
}

/* Which task reads our stdin: task 0 with --pty; -i all (or none
 * given) every task (-1); -i N task N; -i FILE (and none, which became
 * /dev/null) no task (-2): the tasks open the file themselves. */
static int stdin_rank(bool pty, const char *input)
{
    char *end;
    long r;

    if (pty)
        return 0;
    if (!input || !strcmp(input, "all"))
        return -1;
    r = strtol(input, &end, 10);
    return end != input && !*end && r >= 0 && r <= INT_MAX ? (int)r : -2;
}

/* Add the hosts of hostlist expression 'expr' ("n[1-2],n1") to 'names'
 * in order, up to 'max' in all.  -1 when 'expr' is not a hostlist. */
static int push_hosts(json_t *names, const char *expr, size_t max)
{
    hostlist_t *hl = hostlist_decode(expr, NULL);

    if (!hl)
        return -1;
    for (size_t i = 0; i < hostlist_count(hl) && json_array_size(names) < max;
         i++)
        json_array_append_new(names, json_string(hostlist_nth(hl, i)));
    hostlist_destroy(hl);
    return 0;
}

/* SLURM_HOSTFILE's hosts in order (one hostlist expression a line; blank
 * and '#' lines skipped), up to 'max'; NULL after Slurm's message. */
static json_t *read_hostfile(const char *path, size_t max)
{
    FILE *f = fopen(path, "r");
    json_t *names = json_array();
    char line[4096];
    int n = 0;

    if (!f) {
        fprintf(stderr, "srun: error: Unable to open hostfile %s: %s\n",
                path, strerror(errno));
        goto fail;
    }
    while (json_array_size(names) < max && fgets(line, sizeof(line), f)) {
        n++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        if (push_hosts(names, line, max) < 0) {
            fprintf(stderr, "srun: error: Invalid hostfile %s contents on "
                            "line %d\n", path, n);
            goto fail;
        }
    }
    if (max != SIZE_MAX && json_array_size(names) < max) {
        fprintf(stderr, "srun: error: Too few NodeNames in SLURM "
                        "Hostfile\n");
        goto fail;
    }
    fclose(f);
    return names;
fail:
    if (f)
        fclose(f);
    json_decref(names);
    fprintf(stderr, "srun: error: Failure getting NodeNames from "
                    "hostfile\n");
    return NULL;
}

/* -m arbitrary, or SLURM_HOSTFILE without -w (which makes it arbitrary,
 * as Slurm's srun): rank r runs on the r-th host of -w or the file, sent
 * as "task_nodes"; -n defaults to their count (the controller makes the
 * step's nodes the distinct ones).  Returns -1 to go on, else the exit
 * status. */
static int arbitrary(const struct sbatch_opts *o, struct srun *s,
                     struct taskdist *d)
{
    const char *w = json_string_value(json_object_get(o->extra, "nodelist"));
    const char *file = getenv("SLURM_HOSTFILE");
    size_t max = s->ntasks ? (size_t)s->ntasks : SIZE_MAX;
    json_t *names;

    if (!w && file && *file)
        *d = (struct taskdist){.node = TASKDIST_ARBITRARY, .pack = d->pack};
    if (d->node != TASKDIST_ARBITRARY)
        return -1;
    if (!w && !(file && *file)) {
        fprintf(stderr, "srun: error: With Arbitrary distribution you need "
                        "to specify a nodelist or hostfile with the -w "
                        "option\n");
        return 1;
    }
    if (w) {
        names = json_array();
        if (push_hosts(names, w, max) < 0 || !json_array_size(names)) {
            json_decref(names);
            fprintf(stderr, "srun: error: Invalid node list specified\n");
            return 1;
        }
    } else if (!(names = read_hostfile(file, max))) {
        return 1;
    }
    if (s->ntasks && json_array_size(names) < (size_t)s->ntasks) {
        fprintf(stderr, "srun: error: Asked for %ld tasks have %zu in the "
                        "nodelist.  Check your nodelist, or set the -n "
                        "option to be %zu\n",
                s->ntasks, json_array_size(names), json_array_size(names));
        json_decref(names);
        return 1;
    }
    s->ntasks = (long)json_array_size(names);
    json_object_set_new(s->req, "task_nodes", names);
    return -1;
}

/* -m, else SLURM_DISTRIBUTION (what sbatch/salloc -m set for the job's
 * sruns): the step's distribution, sent as "distribution" in step_create
 * (the controller lays the ranks out and sets SLURM_DISTRIBUTION for the
 * tasks).  -m was checked by the option table; the variable is checked
 * here with Slurm's message.  Returns -1 to go on, else the exit status. */
static int dist_option(const struct sbatch_opts *o, struct srun *s)
{
    const char *env = getenv("SLURM_DISTRIBUTION");
    char text[TASKDIST_TEXT_MAX];
    struct taskdist d = {0};
    drv_error_t error;
    int rc;

    if (!sbatch_opts_distribution(o, &d) && env
        && taskdist_parse(env, getenv("SLURM_DIST_PLANESIZE"), &d,
                          &error) < 0) {
        struct sbatch_error e = {.exit_code = 255, .level = "error"};

        snprintf(e.text, sizeof(e.text), "%s", error.text);
        return report_opts(&e);
    }
    if ((rc = arbitrary(o, s, &d)) >= 0)
        return rc;
    if (*taskdist_format(&d, 1, text))
        json_object_set_new(s->req, "distribution", json_string(text));
    return -1;
}

/* -w and -x of a step (not -m arbitrary, where -w is the task list):
 * sent as "nodelist" and "exclude" for the controller to place the step
 * on those nodes of the allocation (Slurm's errors for a node named by
 * both); without -N the step's node count is -w's (at most -n), as
 * Slurm's srun sets it.  Returns -1 to go on, else the exit status. */
static int step_nodes(const struct sbatch_opts *o, struct srun *s)
{
    const char *w = json_string_value(json_object_get(o->extra, "nodelist"));
    const char *x = json_string_value(json_object_get(o->extra, "exclude"));
    bool n_given = o->nodes_min > 0 && o->nodes_src != SBATCH_SRC_ENV;
    hostlist_t *wl = NULL, *xl = NULL;
    int rc = -1;

    if (json_object_get(s->req, "task_nodes") || (!w && !x))
        return -1;
    if (!n_given) /* the allocation's SLURM_NNODES yields to -w and -x */
        s->nodes = 0;
    if ((w && !(wl = hostlist_decode(w, NULL)))
        || (x && !(xl = hostlist_decode(x, NULL)))) {
        fprintf(stderr, "srun: error: Invalid node list specified\n");
        rc = 1;
        goto out;
    }
    for (size_t i = 0; wl && xl && i < hostlist_count(xl); i++)
        if (hostlist_find(wl, hostlist_nth(xl, i)) >= 0) {
            fprintf(stderr, "srun: error: Requested node %s is also in the "
                            "excluded list.\n", hostlist_nth(xl, i));
            fprintf(stderr, "srun: error: Job not submitted.\n");
            rc = 1;
            goto out;
        }
    if (w) {
        json_object_set_new(s->req, "nodelist", json_string(w));
        for (size_t i = 0; !n_given && i < hostlist_count(wl); i++)
            s->nodes += hostlist_find(wl, hostlist_nth(wl, i)) == (long)i;
        if (s->ntasks && s->ntasks < s->nodes && !n_given)
            s->nodes = s->ntasks;
    }
    if (x)
        json_object_set_new(s->req, "exclude", json_string(x));
out:
    hostlist_destroy(wl);
    hostlist_destroy(xl);
    return rc;
}

/* The allocation's SLURM_NTASKS and SLURM_NNODES (srun's input
 * variables) yield to the command line: -w, -x or -B drop both (srun -w n2
 * inside a two-task job runs one task there), -n the node count. */
static void env_counts_yield(struct sbatch_opts *o)
{
    bool w = json_object_get(o->extra, "nodelist")
             || json_object_get(o->extra, "exclude")
             || o->sockets_per_node || o->cores_per_socket
             || o->threads_per_core; /* -B leaves nodes out as -x does */
    bool cli_n = o->ntasks_set && o->ntasks_src != SBATCH_SRC_ENV;
    bool cli_N = o->nodes_min > 0 && o->nodes_src != SBATCH_SRC_ENV;

    if (o->ntasks_set && !cli_n && w)
        o->ntasks_set = false;
    if (o->nodes_min > 0 && !cli_N && (cli_n || w))
        o->nodes_min = o->nodes_max = 0;
}

/* -E: SLURM_NTASKS and SLURM_NNODES (or SLURM_JOB_NUM_NODES) over -n
 * and -N, and the tasks keep them; --propagate or slurm.conf: the
 * limits to pass on.  Returns 0, or -1 after the error. */
static int propagation(struct sbatch_opts *o, struct srun *s)
{
    json_t *prop = json_object_get(o->extra, "propagate");

    if ((s->preserve_env = extra_flag(o, "preserve_env"))) {
        const char *nt = getenv("SLURM_NTASKS");
        const char *nn = getenv("SLURM_NNODES");

        if (!nn)
            nn = getenv("SLURM_JOB_NUM_NODES");
        if (nt && atoi(nt) > 0) {
            o->ntasks = atoi(nt);
            o->ntasks_set = true;
        }
        if (nn && atoi(nn) > 0)
            o->nodes_min = o->nodes_max = atoi(nn);
    }
    return srun_propagate_mask(prop != NULL, json_string_value(prop),
                               cmd_conf("srun"), &s->rlimit_mask, stderr);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

/* Options from sbatch's table (srun's rows).  Returns -1 to go on, else
 * the exit status. */
static int parse_args(int argc, char **argv, struct sbatch_opts *o,
                      struct srun *s)
{
    struct sbatch_error e = {0};
    int rc;

    switch (sbatch_opts_first_pass(o, argc, argv, &e)) {
    case SBATCH_SUBMIT:
        break;
    case SBATCH_HELP:
        sbatch_opts_print_help_cmd(stdout, SBATCH_CMD_SRUN);
        return 0;
    case SBATCH_USAGE:
        fputs(srun_usage_text, stdout);
        return 0;
    case SBATCH_VERSION:
        cmd_print_version();
        return 0;
    default:
        return report_opts(&e);
    }
    if (sbatch_opts_second_pass(o, NULL, NULL, environ, &e) < 0)
        return report_opts(&e);
    if (o->mpi && !strcmp(o->mpi, "list")) /* needs no command */
        return srun_mpi_check(o->mpi, stdout, stderr) > 0 ? 0 : 1;
    if (srun_bind_help(o->extra, stdout))
        return 0;
    if (!o->script_path)
        usage_error("No command given to execute.");
    s->argv = xzalloc(sizeof(char *) * (size_t)(o->script_argc + 2));
    s->argv[0] = o->script_path;
    for (int i = 0; i < o->script_argc; i++)
        s->argv[i + 1] = o->script_argv[i];
    s->label = o->label;
    s->pty = o->pty;
    s->verbose = o->verbose;
    s->step_name = o->job_name ? o->job_name : base_name(o->script_path);
    s->nodelist = json_string_value(json_object_get(o->extra, "nodelist"));
    s->cpus_per_task = o->cpus_per_task > 0 ? o->cpus_per_task : 1;
    if (o->verbose)
        sbatch_opts_print_set(o, stderr);
    s->input = o->std_in;
    s->stdin_rank = stdin_rank(s->pty, o->std_in);
    s->out_pattern = o->std_out;
    s->err_pattern = o->std_err;
    env_counts_yield(o);
    if (propagation(o, s) < 0)
        return 1;
    if (extra_flag(o, "multi_prog")) { /* the "command" is the file */
        int n = o->ntasks;

        if (!(s->multi_prog = srun_multiprog_load(o->script_path, &n,
                                                  o->ntasks_set, stderr)))
            return 1;
        o->ntasks = n;
        o->ntasks_set = true;
    }
    s->ntasks = o->ntasks_set ? o->ntasks : 0;
    s->nodes = o->nodes_min > 0 ? o->nodes_min : 0;
    if (o->ntasks_per_node && !s->nodes && s->ntasks)
        s->nodes = (s->ntasks + o->ntasks_per_node - 1) / o->ntasks_per_node;
    /* -K[0|1], else slurm.conf's KillOnBadExit */
    s->kill_bad = json_object_get(o->extra, "kill_on_bad_exit")
                      ? extra_flag(o, "kill_on_bad_exit")
                      : cmd_conf("srun")->kill_on_bad_exit != 0;
    s->quit_on_intr = extra_flag(o, "quit_on_interrupt");
    s->work_dir = o->work_dir;
    /* -W, else slurm.conf's WaitTime */
    s->max_wait_s = json_object_get(o->extra, "wait")
        ? atol(json_string_value(json_object_get(o->extra, "wait")) ?: "0")
        : (long)cmd_conf("srun")->wait_time_s;
    s->export = o->export_env;
    s->no_status = extra_flag(o, "disable_status");
    s->req = step_request(o);
    if ((rc = dist_option(o, s)) >= 0 || (rc = step_nodes(o, s)) >= 0
        || (rc = srun_bind_options(o->extra, s->req, stderr)) >= 0)
        return rc;
    return mpi_type(o, s);
}

static json_t *str_array(char **v)
{
    json_t *a = json_array();

    for (; v && *v; v++)
        json_array_append_new(a, json_string(*v));
    return a;
}

/* Slurm's wait for a step that does not fit the allocation's free part
 * yet: one message, then a retry each second until it is created.  The
 * first half second is quiet: the step before may have ended with its
 * nodes' reports still on their way to the controller. */
static int step_create_retry(const char *type, json_t *body, json_t **resp,
                             long job_id, drv_error_t *error)
{
    bool told = false;
    long quiet_ms = 20;

    for (;;) {
        if (cmd_rpc("srun", type, json_incref(body), resp, error) == 0) {
            if (told)
                fprintf(stderr, "srun: Step created for StepId=%ld.%lld\n",
                        job_id, (long long)json_integer_value(
                                    json_object_get(*resp, "step_id")));
            return 0;
        }
        if (errno != EDRV_NODES_BUSY)
            return -1;
        if (quiet_ms <= 320) {
            struct timespec ts = {0, quiet_ms * 1000000};

            nanosleep(&ts, NULL);
            quiet_ms *= 2;
            continue;
        }
        if (!told)
            fprintf(stderr, "srun: Job %ld step creation temporarily "
                            "disabled, retrying (%s)\n",
                    job_id, error->text);
        told = true;
        sleep(1);
    }
}

/* -v: the step's launch lines (srun_verbose.h). */
static void verbose_launch(const struct srun *s)
{
    struct srun_vstep st = {
        .job_id = s->job_id, .step_id = s->step_id, .uid = getuid(),
        .nodelist = s->nodelist, .cpus = s->ntask_total * s->cpus_per_task,
        .ntasks = s->ntask_total, .name = s->step_name,
        .cpu_bind = json_string_value(json_object_get(s->req, "cpu_bind")),
        .mpi = s->mpi, .io_port = s->io_port, .node_names = s->node_names,
        .task_map = s->task_map};

    srun_verbose_launch(stderr, s->verbose, &st);
}

/* The tasks' environment: srun's, as --export selects it. */
static json_t *task_env(const struct srun *s)
{
    json_t *sel = sbatch_export_select(s->export, environ), *v;
    json_t *env = json_array();
    const char *name;

    json_object_foreach(sel, name, v)
        json_array_append_new(env, json_sprintf("%s=%s", name,
                                                json_string_value(v)));
    json_decref(sel);
    return env;
}

static int step_create(struct srun *s, long job_id, int port)
{
    char host[256] = "";
    json_t *body, *resp = NULL;
    drv_error_t error = {0};
    int rc;

    body = json_pack("{s:I s:o s:o s:s s:i s:b}", "job_id",
                     (json_int_t)job_id, "argv", str_array(s->argv), "env",
                     task_env(s), "cwd", s->work_dir, "io_port", port,
                     "label", s->label);
    json_object_set_new(body, "io_key", json_string(s->io_key));
    if (s->ntasks)
        json_object_set_new(body, "ntasks", json_integer(s->ntasks));
    if (s->nodes)
        json_object_set_new(body, "nodes", json_integer(s->nodes));
    if (s->mpi)
        json_object_set_new(body, "mpi", json_string(s->mpi));
    if (s->input)
        json_object_set_new(body, "input", json_string(s->input));
    if (s->multi_prog)
        json_object_set_new(body, "multi_prog", json_string(s->multi_prog));
    json_object_set_new(body, "rlimits", srun_rlimits_json(s->rlimit_mask));
    if (s->preserve_env)
        json_object_set_new(body, "preserve_env", json_true());
    if (s->pty) {
        int rows, cols;

        tty_size(&rows, &cols);
        json_object_set_new(body, "pty", json_true());
        json_object_set_new(body, "pty_rows", json_integer(rows));
        json_object_set_new(body, "pty_cols", json_integer(cols));
    }
    gethostname(host, sizeof(host) - 1);
    json_object_set_new(body, "srun_host", json_string(host));
    json_object_set_new(body, "srun_pid", json_integer(getpid()));
    json_object_update(body, s->req);
    rc = step_create_retry("step_create", body, &resp, job_id, &error);
    json_decref(body);
    if (rc < 0) {
        fprintf(stderr, "srun: error: Unable to create step for job %ld: %s\n",
                job_id, error.text);
        return -1;
    }
    s->job_id = job_id;
    s->step_id = json_integer_value(json_object_get(resp, "step_id"));
    s->ntask_total = (int)json_integer_value(json_object_get(resp, "ntasks"));
    s->nodes = json_integer_value(json_object_get(resp, "nodes"));
    s->node_names = json_incref(json_object_get(resp, "node_names"));
    s->task_map = json_incref(json_object_get(resp, "task_map"));
    json_decref(resp);
    verbose_launch(s);
    s->tasks = xzalloc(sizeof(*s->tasks) * (size_t)(s->ntask_total + 1));
    for (int i = 0; i < s->ntask_total; i++)
        s->tasks[i].node_id = -1;
    return 0;
}

/* Write task output, with "R: " at each line start under -l. */
/* The file -o/-e name for task 'rank' (opened on first use: truncated, or
 * appended to with JobFileAppend=1), or NULL: the task's stream goes to
 * ours. */
static FILE *task_file(struct srun *s, int rank, int err)
{
    const char *pattern = err && s->err_pattern ? s->err_pattern
                                                : s->out_pattern;
    struct task *t = &s->tasks[rank];
    struct jobpath_vars v = {
        .job_id = (uint32_t)s->job_id, .job_name = getenv("SLURM_JOB_NAME"),
        .user = getenv("USER"), .node = t->node, .array_task_id = -1,
        .have_step = true, .step_id = (uint32_t)s->step_id,
        .task_id = (uint32_t)rank,
        .node_id = t->node_id >= 0 ? (uint32_t)t->node_id : 0,
    };
    struct out_file *of;
    char *path;

    if (!pattern || t->file[err])
        return t->file[err];
    if (!(path = jobpath_expand(pattern, &v)))
        return NULL;
    for (of = s->files; of && strcmp(of->path, path); of = of->next)
        ;
    if (!of) {
        FILE *f = fopen(path, cmd_conf("srun")->job_file_append ? "a"
                                                                : "w");
        if (!f) {
            fprintf(stderr, "srun: error: %s: %s\n", path, strerror(errno));
            free(path);
            return NULL;
        }
        of = xzalloc(sizeof(*of));
        of->path = path;
        of->f = f;
        of->next = s->files;
        s->files = of;
    } else {
        free(path);
    }
    return t->file[err] = of->f;
}

static void files_close(struct srun *s)
{
    struct out_file *of, *next;

    for (of = s->files; of; of = next) {
        next = of->next;
        fclose(of->f);
        free(of->path);
        free(of);
    }
    s->files = NULL;
}

static void output(struct srun *s, int rank, int err, const char *data,
                   size_t len)
{
    struct task *t = &s->tasks[rank];
    FILE *f = task_file(s, rank, err);

    stepio_print(f ? f : err ? stderr : stdout, rank, s->label,
                 &t->mid_line[err], data, len);
}

/* step_cancel for our step: 'signo' to its tasks (0: SIGKILL; the step
 * ends CANCELLED then, or with 'cancel'), or 'failed' names the node whose
 * connection broke. */
static void step_cancel_as(const struct srun *s, int signo, bool cancel,
                           const char *failed)
{
    json_t *body = json_pack("{s:I s:I}", "job_id", (json_int_t)s->job_id,
                             "step_id", (json_int_t)s->step_id);
    drv_error_t error = {0};

    if (signo)
        json_object_set_new(body, "signal", json_integer(signo));
    if (failed)
        json_object_set_new(body, "node_fail", json_string(failed));
    if (cancel)
        json_object_set_new(body, "cancel", json_true());
    if (cmd_rpc("srun", "step_cancel", body, NULL, &error) < 0
        && errno != EDRV_ALREADY_DONE)
        fprintf(stderr, "srun: error: signalling StepId=%ld.%ld: %s\n",
                s->job_id, s->step_id, error.text);
}

static void step_cancel(const struct srun *s, int signo, const char *failed)
{
    step_cancel_as(s, signo, false, failed);
}

/* "srun: error: NODE: task(s) R: Exited with exit code C" (or the
 * signal's name) for 'n' ranks 'list' ("0-1,4"), all with 'status'. */
static void task_line(const char *node, int n, const char *list, int status)
{
    char *ranks = xasprintf("%s %s", n > 1 ? "tasks" : "task", list);

    if (WIFSIGNALED(status))
        fprintf(stderr, "srun: error: %s: %s: %s%s\n", node, ranks,
                strsignal(WTERMSIG(status)),
                WCOREDUMP(status) ? " (core dumped)" : "");
    else
        fprintf(stderr, "srun: error: %s: %s: Exited with exit code %d\n",
                node, ranks, WEXITSTATUS(status));
    free(ranks);
}

/* -K: the first task to fail ends the step (Slurm's kill-on-bad-exit). */
static void kill_on_bad_exit(struct srun *s, int rank)
{
    struct task *t = &s->tasks[rank];
    char one[16];

    if (!s->kill_bad || s->bad_status || s->aborting || !t->status)
        return;
    s->bad_status = t->status;
    t->reported = true;
    snprintf(one, sizeof(one), "%d", rank);
    task_line(t->node, 1, one, t->status);
    fprintf(stderr, "srun: Terminating StepId=%ld.%ld\n", s->job_id,
            s->step_id);
    step_cancel(s, 0, NULL);
}

static long mono_ms(void);

/* -W: the first task's end starts the clock (Slurm's verbose line). */
static void first_exit(struct srun *s)
{
    if (s->max_wait_s <= 0 || s->first_exit_ms)
        return;
    s->first_exit_ms = mono_ms();
    if (s->verbose)
        fprintf(stderr, "srun: First task exited. Terminating job in %lds\n",
                s->max_wait_s);
}

static void abort_wait_line(void);

static void handle_frame(struct srun *s, json_t *m)
{
    json_int_t rank = json_integer_value(json_object_get(m, "task"));
    const char *data = json_string_value(json_object_get(m, "data"));
    json_t *exit_v = json_object_get(m, "exit");
    struct task *t;

    if (rank < 0 || rank >= s->ntask_total)
        return;
    t = &s->tasks[rank];
    /* the job's time limit ended the step: Slurm's srun says it aborts
     * before the nodes' "DUE TO TIME LIMIT" lines */
    if (json_is_true(json_object_get(m, "time_limit")) && !s->timed_out) {
        s->timed_out = true;
        if (!s->aborting)
            abort_wait_line();
    }
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
        if (!t->node)
            t->node = xstrdup(json_string_value(json_object_get(m, "node")));
        s->exited++;
        srun_verbose_task_exit(stderr, s->verbose, s->job_id, s->step_id,
                               t->node, (int)rank, t->status);
        first_exit(s);
        kill_on_bad_exit(s, (int)rank);
    }
}

struct conn {
    struct stepio_conn io; /* io.authed: its first frame carried the
                            * step's I/O key */
    bool stdin_to; /* its node runs a task that reads our stdin */
    char *node; /* its first frame's "node" and "ranks" */
    json_t *ranks;
    struct timespec accepted;
};

/* A node's first frame names its tasks: their node and node index (-o's
 * %N and %n). */
static void note_nodes(struct srun *s, const struct conn *c, json_t *m)
{
    json_t *r;
    size_t i;
    json_int_t idx = json_integer_value(json_object_get(m, "node_index"));

    json_array_foreach(c->ranks, i, r) {
        json_int_t rank = json_integer_value(r);
        if (rank >= 0 && rank < s->ntask_total) {
            s->tasks[rank].node_id = idx;
            if (!s->tasks[rank].node)
                s->tasks[rank].node = xstrdup(c->node);
        }
    }
}

/* A node's first frame: {"node","ranks","node_index"}: does one of its
 * tasks read our stdin (srun_stdin_rank)? */
static bool frame_reads_stdin(int stdin_rank, json_t *m)
{
    json_t *ranks = json_object_get(m, "ranks"), *r;
    size_t i;

    if (stdin_rank == -2)
        return false;
    json_array_foreach(ranks, i, r) if (stdin_rank == -1
                                        || json_integer_value(r)
                                               == stdin_rank) return true;
    return false;
}

static void fence_frame(struct srun *s, json_t *m);
static void abort_frame(struct srun *s, json_t *m);


/* A connection's first frame must be a node's hello with the step's key:
 * {"node","ranks","node_index","io_key"}.  Anything else, or too much
 * before it, and the connection is dropped unread. */
static bool conn_authenticate(struct srun *s, struct conn *c, json_t *m)
{
    if (!json_is_string(json_object_get(m, "node"))
        || !json_is_array(json_object_get(m, "ranks"))
        || !stepio_key_ok(s->io_key, m))
        return false;
    c->io.authed = true;
    s->nauth++;
    return true;
}

/* Read what arrived on connection 'c'; false at its end (or, for a
 * connection that has not authenticated, at anything but a node's
 * hello). */
static bool conn_read(struct srun *s, struct conn *c)
{
    int fed = stepio_conn_feed("srun", &c->io);
    json_t *m;

    if (fed <= 0)
        return fed == 0;
    while ((m = proto_decoder_next(c->io.dec, NULL))) {
        if (!c->io.authed && !conn_authenticate(s, c, m)) {
            json_decref(m);
            return false;
        }
        if (json_object_get(m, "ranks")) {
            c->stdin_to = c->stdin_to || frame_reads_stdin(s->stdin_rank,
                                                           m);
            if (!c->node) {
                c->node = xstrdup(json_string_value(json_object_get(m,
                                                                    "node")));
                c->ranks = json_incref(json_object_get(m, "ranks"));
                note_nodes(s, c, m);
                srun_verbose_node_started(stderr, s->verbose, c->node,
                                          json_array_size(c->ranks));
            }
        } else if (json_object_get(m, "fence"))
            fence_frame(s, m);
        else if (json_object_get(m, "abort"))
            abort_frame(s, m);
        else
            handle_frame(s, m);
        json_decref(m);
    }
    return errno == EAGAIN;
}

/* One frame ('msg', stolen) to a node (blocking; the node reads them
 * as they come). */
static void send_to(struct conn *c, json_t *msg)
{
    (void)stepio_conn_send(&c->io, msg); /* a node gone: its EOF says so */
    json_decref(msg);
}

/* One frame ('msg', stolen) to every node of the step: the connections
 * that authenticated, never one still to say its hello (anyone may
 * connect to the port). */
static void send_all(struct srun *s, json_t *msg)
{
    for (int i = 0; i < s->nconn; i++)
        if (s->conns[i].io.fd >= 0 && s->conns[i].io.authed)
            send_to(&s->conns[i], json_incref(msg));
    json_decref(msg);
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
}

static volatile sig_atomic_t winched;
static volatile sig_atomic_t stopped; /* SIGTERM/HUP, own allocation */
static volatile sig_atomic_t intr_count;    /* SIGINTs to handle */
static volatile sig_atomic_t caught[NSIG];  /* other signals to handle */

static void on_stop(int signo)
{
    stopped = signo;
}

static void on_signal(int signo)
{
    if (signo == SIGINT)
        intr_count++;
    else
        caught[signo] = 1;
}

static const int step_sigs[] = {SIGINT,  SIGQUIT, SIGUSR1,
                                SIGUSR2, SIGTERM, SIGHUP};

/* The signals catch_step_signals() handles, into 'set'. */
static void step_signals_set(sigset_t *set)
{
    sigemptyset(set);
    for (size_t i = 0; i < sizeof(step_sigs) / sizeof(step_sigs[0]); i++)
        sigaddset(set, step_sigs[i]);
}

/* Signals srun handles while its step runs (no SA_RESTART: poll wakes);
 * SIGTERM and SIGHUP only inside a job (an own allocation is released
 * on them: on_stop). */
static void catch_step_signals(bool own_alloc)
{
    struct sigaction sa = {.sa_handler = on_signal};
    const int *sigs = step_sigs;

    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(step_sigs) / sizeof(step_sigs[0]); i++)
        if (!own_alloc || (sigs[i] != SIGTERM && sigs[i] != SIGHUP))
            sigaction(sigs[i], &sa, NULL);
}

static long mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* 0 running, 1 exited, 2 exited abnormally (Slurm's task states). */
static int task_state(const struct task *t)
{
    return !t->exited ? 0 : t->status ? 2 : 1;
}

/* "srun: StepId=J.S tasks 0-1,3: running": the tasks in state 'want'. */
static void status_line(const struct srun *s, int want)
{
    static const char *const names[] = {"running", "exited",
                                        "exited abnormally"};
    char *list = xstrdup(""), *t;
    int n = 0;

    for (int i = 0, j; i < s->ntask_total; i = j + 1) {
        j = i;
        if (task_state(&s->tasks[i]) != want)
            continue;
        while (j + 1 < s->ntask_total
               && task_state(&s->tasks[j + 1]) == want)
            j++;
        t = j > i ? xasprintf("%s%s%d-%d", list, *list ? "," : "", i, j)
                  : xasprintf("%s%s%d", list, *list ? "," : "", i);
        free(list);
        list = t;
        n += j - i + 1;
    }
    if (n)
        fprintf(stderr, "srun: StepId=%ld.%ld %s %s: %s\n", s->job_id,
                s->step_id, n > 1 ? "tasks" : "task", list, names[want]);
    free(list);
}

static void abort_wait_line(void)
{
    fprintf(stderr, "srun: Job step aborted: Waiting up to %u seconds for "
                    "job step to finish.\n",
            cmd_conf("srun")->kill_wait_s + 2);
}

/* Kill the step's tasks (the step ends CANCELLED); their deaths are not
 * reported, as Slurm's srun does not once it cancelled the step. */
static void force_terminate(struct srun *s)
{
    if (s->aborting)
        return;
    s->aborting = true;
    fprintf(stderr, "srun: forcing job termination\n");
    if (!s->timed_out) /* said already */
        abort_wait_line(); /* before the call: the job may be ending */
    step_cancel(s, 0, NULL);
}

/* Ctrl-C once: the tasks' states; twice within a second: SIGINT to the
 * tasks, then kill them.  SIGTERM, SIGHUP, SIGQUIT end the step; other
 * signals go to the tasks. */
static void handle_signals(struct srun *s)
{
    static long last_intr = -100000;

    for (; intr_count > 0; intr_count--) {
        long now = mono_ms();

        if (s->quit_on_intr) { /* as Slurm: no Ctrl-C to the tasks */
            force_terminate(s);
            continue;
        }
        if (now - last_intr < 1000 || s->no_status) {
            fprintf(stderr, "srun: sending Ctrl-C to StepId=%ld.%ld\n",
                    s->job_id, s->step_id);
            step_cancel_as(s, SIGINT, true, NULL); /* the step is ending */
            force_terminate(s);
            continue;
        }
        fprintf(stderr, "srun: interrupt (one more within 1 sec to "
                        "abort)\n");
        for (int w = 0; w < 3; w++)
            status_line(s, w);
        last_intr = now;
    }
    for (int sig = 1; sig < NSIG; sig++) {
        if (!caught[sig])
            continue;
        caught[sig] = 0;
        if (sig == SIGQUIT)
            fprintf(stderr, "srun: Quit\n");
        if (sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT)
            force_terminate(s);
        else
            step_cancel(s, sig, NULL);
    }
}

/* A node's connection ended: if tasks of it never reported an exit, its
 * daemon died (Slurm's srun hears the same from the controller). */
static void conn_closed(struct srun *s, const struct conn *c)
{
    json_t *r;
    size_t i;

    json_array_foreach(c->ranks, i, r) {
        json_int_t k = json_integer_value(r);

        if (k < 0 || k >= s->ntask_total || s->tasks[k].exited)
            continue;
        fprintf(stderr, "srun: error: Node failure on %s\n", c->node);
        s->node_failed = true;
        if (!s->aborting)
            abort_wait_line();
        s->aborting = true;
        step_cancel(s, 0, c->node);
        return;
    }
}

static void on_winch(int signo)
{
    (void)signo;
    winched = 1;
}


/* Our stdin to the tasks that read it (-i, or task 0's terminal with
 * --pty): {"stdin":base64} to each of their nodes, at its end
 * {"stdin_eof":true}; returns false once it ended. */
static bool forward_stdin(struct conn *conns, int nconn)
{
    char buf[4096];
    ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));
    char *b64 = NULL;

    if (n < 0 && errno == EINTR)
        return true;
    if (n > 0)
        b64 = base64_encode(buf, (size_t)n);
    for (int i = 0; i < nconn; i++) {
        if (!conns[i].stdin_to || conns[i].io.fd < 0)
            continue;
        send_to(&conns[i], b64 ? json_pack("{s:s}", "stdin", b64)
                                 : json_pack("{s:b}", "stdin_eof", 1));
    }
    free(b64);
    return n > 0;
}

/* The connection of the first node reading our stdin (with --pty, task
 * 0's), or NULL. */
static struct conn *stdin_conn(struct conn *conns, int nconn)
{
    for (int i = 0; i < nconn; i++)
        if (conns[i].stdin_to && conns[i].io.fd >= 0)
            return &conns[i];
    return NULL;
}

/* Our stdin is read once every node has said which tasks it runs, so
 * none misses the start of it. */
static bool stdin_ready(const struct srun *s)
{
    return s->nauth >= s->nodes;
}

static long ms_since(const struct timespec *t)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t->tv_sec) * 1000L
           + (now.tv_nsec - t->tv_nsec) / 1000000L;
}

/* Close connection i; one that never proved it is a node is dropped from
 * the table (it counts for nothing) and said so. */
static void conn_drop(struct srun *s, struct conn *conns, int *nconn, int i,
                      int *closed)
{
    struct conn *c = &conns[i];

    if (c->io.authed) {
        conn_closed(s, c);
        (*closed)++;
    } else {
        /* a node speaking TLS to a plain srun waits for a ClientHello */
        fprintf(stderr, "srun: error: dropped an I/O connection that did "
                        "not authenticate as a node of StepId=%ld.%ld%s\n",
                s->job_id, s->step_id,
                !c->io.tls && c->io.preauth_in == 0
                    ? " (it sent nothing: a node whose I/O runs over TLS "
                      "needs CommunicationParameters=drover_tls_rpc here "
                      "too)"
                    : "");
    }
    stepio_conn_close(&c->io);
    if (!c->io.authed) {
        free(c->node);
        json_decref(c->ranks);
        conns[i] = conns[--*nconn];
    }
}

/* -W: SECS after the first task ended, the others are killed with
 * Slurm's lines (they get their "Killed" lines).  Returns true when it
 * just did so; else lowers *timeout (ms, -1 none) to the deadline. */
static bool max_wait_expired(struct srun *s, int *timeout)
{
    long left;

    if (!s->first_exit_ms || s->aborting || s->bad_status || s->waited_out)
        return false;
    left = s->first_exit_ms + s->max_wait_s * 1000 - mono_ms();
    if (left > 0) {
        if (*timeout < 0 || *timeout > left)
            *timeout = (int)left;
        return false;
    }
    s->waited_out = true;
    fprintf(stderr, "srun: First task exited %lds ago\n", s->max_wait_s);
    for (int w = 0; w < 3; w++)
        status_line(s, w);
    fprintf(stderr, "srun: launch/slurm: _step_signal: Terminating "
                    "StepId=%ld.%ld\n", s->job_id, s->step_id);
    step_cancel(s, 0, NULL);
    abort_wait_line();
    return true;
}

/* Serve the nodes' connections until every task has exited (or every
 * node has hung up).  Returns the number of tasks never heard from. */
static int io_loop(struct srun *s, int lfd)
{
    struct pollfd pfd[MAX_CONNS + 2];
    struct conn conns[MAX_CONNS];
    int nconn = 0, closed = 0;
    struct conn *tty = NULL;
    bool in_open = s->stdin_rank != -2;
    int connect_ms = (int)cmd_conf("srun")->msg_timeout_s * 1000;
    struct timespec began;

    clock_gettime(CLOCK_MONOTONIC, &began);
    while (s->exited < s->ntask_total
           && !(closed >= s->nodes && closed == s->nauth)) {
        int preauth = 0;
        short in_events;

        pfd[0] = (struct pollfd){.fd = lfd, .events = POLLIN};
        for (int i = 0; i < nconn; i++) {
            pfd[i + 1] = (struct pollfd){.fd = conns[i].io.fd,
                                         .events = POLLIN};
            preauth += !conns[i].io.authed;
        }
        tty = stdin_conn(conns, nconn);
        pfd[nconn + 1] = (struct pollfd){
            .fd = in_open && tty && stdin_ready(s)
                      ? STDIN_FILENO
                      : -1,
            .events = POLLIN};
        if (winched && tty && s->pty) {
            int rows, cols;

            winched = 0;
            tty_size(&rows, &cols);
            send_to(tty, json_pack("{s:{s:i s:i}}", "winsize", "rows",
                                      rows, "cols", cols));
        }
        /* Every node connects back at launch: one that has not within
         * MessageTimeout never will (its daemon died or the launch
         * failed), and srun must not wait for it forever. */
        int timeout = -1;
        if (s->nauth < s->nodes
            && (timeout = connect_ms - (int)ms_since(&began)) <= 0) {
            fprintf(stderr, "srun: error: %ld of %ld node(s) never "
                            "connected back within %d s\n",
                    (long)(s->nodes - s->nauth), (long)s->nodes,
                    connect_ms / 1000);
            break;
        }
        if (preauth && (timeout < 0 || timeout > 1000))
            timeout = 1000; /* to drop connections idle before a hello */
        if (max_wait_expired(s, &timeout))
            continue;
        if (s->alive_ms) { /* InactiveLimit: our allocation's heartbeat */
            long left = s->alive_ms - ms_since(&s->alive_at);

            if (left <= 0) {
                (void)alloc_alive("srun", (uint32_t)s->job_id);
                clock_gettime(CLOCK_MONOTONIC, &s->alive_at);
                left = s->alive_ms;
            }
            if (timeout < 0 || timeout > left)
                timeout = (int)left;
        }
        s->conns = conns;
        s->nconn = nconn;
        int n = poll(pfd, (nfds_t)nconn + 2, timeout);
        int poll_errno = errno;

        /* a signal: what the nodes sent already is read before it is
         * handled (the "DUE TO TIME LIMIT" line comes with a SIGTERM) */
        if (n < 0 && poll_errno == EINTR) {
            n = poll(pfd, (nfds_t)nconn + 2, 0);
            poll_errno = n < 0 ? errno : EINTR;
        }
        if (n < 0 && poll_errno != EINTR)
            break;
        in_events = pfd[nconn + 1].revents;
        /* Backwards, so that dropping i (the last entry moves into its
         * place) leaves the entries still to visit where they were. */
        for (int i = nconn - 1; i >= 0; i--) {
            if (conns[i].io.fd < 0)
                continue;
            if (pfd[i + 1].revents && !conn_read(s, &conns[i]))
                conn_drop(s, conns, &nconn, i, &closed);
            else if (!conns[i].io.authed
                     && ms_since(&conns[i].accepted) > IO_PREAUTH_MAX_MS)
                conn_drop(s, conns, &nconn, i, &closed);
        }
        if (in_events && tty)
            in_open = forward_stdin(conns, nconn);
        if ((pfd[0].revents & POLLIN) && nconn < MAX_CONNS) {
            conns[nconn] = (struct conn){.io.fd = -1};
            if (stepio_accept("srun", lfd, &conns[nconn].io) == 0)
                clock_gettime(CLOCK_MONOTONIC, &conns[nconn++].accepted);
        }
        handle_signals(s);
        if (stopped)
            break; /* main() gives the allocation back: tasks end */
    }
    for (int i = 0; i < nconn; i++) {
        stepio_conn_close(&conns[i].io);
        free(conns[i].node);
        json_decref(conns[i].ranks);
    }
    return s->ntask_total - s->exited;
}

static int task_code(int status)
{
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* Does task j go in task i's exit line: same node, same status, not
 * told already? */
static bool same_line(const struct task *i, const struct task *j)
{
    return j->exited && j->status == i->status
           && j->reported == i->reported
           && !strcmp(j->node ? j->node : "", i->node ? i->node : "");
}

/* Append rank r to a range list "0-1,4" whose last rank is 'last'. */
static char *range_add(char *list, int *last, bool *open, int r)
{
    char *t;

    if (*list && r == *last + 1) {
        *open = true;
        *last = r;
        return list;
    }
    t = *open ? xasprintf("%s-%d,%d", list, *last, r)
              : xasprintf("%s%s%d", list, *list ? "," : "", r);
    free(list);
    *open = false;
    *last = r;
    return t;
}

/* One exit line for the tasks of task i's node with its status, their
 * ranks as Slurm's range list ("0,2" under -m cyclic); marks them done. */
static void node_line(struct srun *s, int i, bool *done)
{
    const struct task *t = &s->tasks[i];
    char *list = xstrdup(""), *full;
    int n = 0, last = -1;
    bool open = false;

    for (int j = i; j < s->ntask_total; j++) {
        if (done[j] || !same_line(t, &s->tasks[j]))
            continue;
        done[j] = true;
        list = range_add(list, &last, &open, j);
        n++;
    }
    full = open ? xasprintf("%s-%d", list, last) : xstrdup(list);
    task_line(t->node ? t->node : "(null)", n, full, t->status);
    free(full);
    free(list);
}

/* "srun: error: NODE: task(s) R: Exited with exit code C", one line per
 * node and status.  Returns the step's exit code. */
static int report(struct srun *s)
{
    bool *done = xzalloc(sizeof(*done) * (size_t)(s->ntask_total + 1));
    int rc = 0;

    for (int i = 0; i < s->ntask_total; i++) {
        struct task *t = &s->tasks[i];

        if (task_code(t->status) > rc)
            rc = task_code(t->status);
        if (done[i] || !t->status || !t->exited || t->reported
            || (s->aborting && WIFSIGNALED(t->status)))
            continue;
        node_line(s, i, done);
    }
    free(done);
    /* -K: the exit that ended the step, not the kills that followed */
    return s->bad_status ? task_code(s->bad_status) : rc;
}

/* srun outside a job: an allocation exactly as salloc's (alloc.c), with
 * the job's variables in the environment the step inherits.  Returns the
 * job id, or 0 with *rc set. */
static uint32_t allocate(struct sbatch_opts *o, int *rc)
{
    struct sbatch_error e = {0};
    json_t *desc, *job;
    uint32_t id;

    o->submit_host = alloc_submit_host();
    if (!(desc = sbatch_opts_job_desc(o, NULL, environ, &e))
        || sbatch_req_finish(desc, time(NULL), &e) < 0) {
        json_decref(desc);
        *rc = report_opts(&e);
        return 0;
    }
    if (o->test_only) { /* nothing runs: main() returns *rc */
        *rc = alloc_test_only(o, desc);
        return 0;
    }
    if (!(job = alloc_create(o, desc, rc)))
        return 0;
    id = (uint32_t)json_integer_value(json_object_get(job, "job_id"));
    alloc_set_env(o, job);
    json_decref(job);
    return id;
}

/* The raw wait status of the task with the highest exit code. */
static int worst_status(const struct srun *s)
{
    int worst = 0;

    for (int i = 0; i < s->ntask_total; i++)
        if (task_code(s->tasks[i].status) > task_code(worst))
            worst = s->tasks[i].status;
    return worst;
}

static int run_step(struct srun *s, long job_id)
{
    int port = s->io_port, lfd = s->lfd, lost, rc;

    sigset_t blocked, old_mask;

    stepio_make_key("srun", s->io_key);
    srun_verbose_job(stderr, s->verbose, job_id);
    if (s->prolog
        && (rc = srun_script_run(s->prolog, "prolog_srun", s->argv))) {
        fprintf(stderr, "srun: error: srun prolog failed rc = %d. "
                        "Aborting step.\n", rc);
        close(lfd);
        return 1;
    }
    /* The tasks may start before step_create's answer arrives: a signal
     * meant for the step waits until srun handles it. */
    step_signals_set(&blocked);
    sigprocmask(SIG_BLOCK, &blocked, &old_mask);
    if (step_create(s, job_id, port) < 0) {
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        close(lfd);
        return 1;
    }
    catch_step_signals(s->own_alloc);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    if (s->pty) {
        struct sigaction sa = {.sa_handler = on_winch};

        sigemptyset(&sa.sa_mask);
        sigaction(SIGWINCH, &sa, NULL);
        tty_make_raw();
    }
    lost = io_loop(s, lfd);
    tty_restore();
    close(lfd);
    srun_verbose_end(stderr, s->verbose, s->own_alloc);
    rc = report(s);
    if (s->epilog) {
        int erc = srun_script_run(s->epilog, "epilog_srun", s->argv);

        if (erc)
            fprintf(stderr, "srun: error: srun epilog failed status=%d\n",
                    erc);
    }
    if (lost && !stopped && !s->node_failed)
        fprintf(stderr, "srun: error: %d task(s) lost\n", lost);
    if (lost && !stopped)
        rc = rc ? rc : 1;
    return rc;
}

int main(int argc, char **argv)
{
    struct srun s = {0};
    struct sbatch_opts *o;
    const char *job = getenv("SLURM_JOB_ID");
    uint32_t own = 0;
    int rc;

    setvbuf(stderr, NULL, _IOLBF, 0);
    if (!(o = sbatch_opts_create_cmd(stderr, SBATCH_CMD_SRUN)))
        usage_error("getcwd failed");
    if ((rc = parse_args(argc, argv, o, &s)) >= 0) {
        free(s.argv);
        free(s.multi_prog);
        json_decref(s.req);
        sbatch_opts_destroy(o);
        return rc;
    }
    if (o->clusters && !cmd_clusters_check("srun", o->clusters)) {
        free(s.argv);
        free(s.multi_prog);
        json_decref(s.req);
        sbatch_opts_destroy(o);
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    s.prolog = srun_script_pick(o->srun_prolog, cmd_conf("srun")->srun_prolog);
    s.epilog = srun_script_pick(o->srun_epilog, cmd_conf("srun")->srun_epilog);
    s.lfd = stepio_listen("srun", &s.io_port);
    srun_env_umask_prio();
    srun_verbose_propagate(stderr, s.verbose, s.rlimit_mask);
    if (o->jobid) { /* --jobid: that allocation, as if inside it */
        job = o->jobid;
        setenv("SLURM_JOB_ID", job, 1);
        setenv("SLURM_JOBID", job, 1);
    }
    if (!job || !*job) {
        struct sigaction sa = {.sa_handler = on_stop};

        srun_verbose_alloc_thread(stderr, s.verbose, s.io_port);
        srun_verbose_plugins(stderr, s.verbose);
        if (!(own = allocate(o, &rc))) {
            free(s.argv);
            json_decref(s.req);
            sbatch_opts_destroy(o);
            return rc;
        }
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        s.own_alloc = true;
        s.alive_ms = alloc_alive_interval_ms("srun"); /* from 0: at once */
        rc = run_step(&s, own);
        if (stopped) {
            fprintf(stderr, "srun: Force Terminated JobId=%u\n", own);
            rc = 128 + stopped;
        }
        alloc_release("srun", own,
                      stopped                          ? stopped
                      : rc && !worst_status(&s) ? 1 << 8
                                                : worst_status(&s),
                      false);
    } else if (json_is_true(json_object_get(o->extra, "no_kill"))
               || json_object_get(o->extra, "tmp")) {
        /* job options a step inside an allocation cannot honour: its
         * tasks end with a failed node; its nodes are the job's */
        fprintf(stderr, "srun: error: %s is not supported by Drover (for a "
                        "step inside an allocation)\n",
                json_object_get(o->extra, "tmp") ? "--tmp" : "--no-kill");
        rc = 1;
    } else if (o->gpus_per_socket
               && (o->gres || o->gpus || o->gpus_per_node
                   || json_object_get(o->extra, "gpus_per_task"))) {
        fprintf(stderr, "srun: error: --gpus-per-socket with another GPU "
                        "count is not supported by Drover\n");
        rc = 1;
    } else {
        srun_verbose_plugins(stderr, s.verbose);
        rc = run_step(&s, number(job, "SLURM_JOB_ID"));
    }
    json_decref(s.node_names);
    json_decref(s.task_map);
    free(s.multi_prog);
    for (int i = 0; i < s.ntask_total; i++)
        free(s.tasks[i].node);
    free(s.tasks);
    free(s.argv);
    srun_fence_hub_destroy(s.fences);
    files_close(&s);
    json_decref(s.req);
    sbatch_opts_destroy(o);
    return rc;
}
