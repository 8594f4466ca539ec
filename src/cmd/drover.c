/* SPDX-License-Identifier: Apache-2.0
 *
 * drover.c - the operator's front door: a whole local cluster in one command
 *
 * `drover up` makes (or reuses) a cluster directory, starts whichever of
 * munged, droverdbd, droverctld and the droverd of each node is not
 * running (droverdbd answering before droverctld starts), and
 * returns only when the controller answers and every node is up: after it,
 * commands need no sleeps.  Emulated nodes (--emulate-nodes, listed in
 * etc/emulated.nodes) are served by one drover-emud instead of a droverd
 * each (docs/emulator.md).  `drover status` and `drover down` find the
 * daemons through their pid files (drover_proc.h says how a pid is trusted).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd/lib/drover_cluster.h"
#include "cmd/lib/drover_isolate.h"
#include "cmd/lib/drover_proc.h"
#include "cmd/lib/opt.h"
#include "common/error.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/sizefmt.h"
#include "common/selfpath.h"
#include "common/xalloc.h"
#include "conf/conf.h"
#include "noded/cgroup.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "proto/tls.h"

#define PROG "drover"
#define EXIT_NOT_RUNNING 3 /* drover status: LSB's "program is not running" */
#define UP_TIMEOUT_S 30
#define STOP_TIMEOUT_MS 10000
#define POLL_MS 200
#define TAIL_LINES 20

enum daemon_kind {
    DAEMON_MUNGED, DAEMON_CTLD, DAEMON_NODE, DAEMON_DBD, DAEMON_RESTD,
    DAEMON_EMUD
};

struct daemon {
    enum daemon_kind kind;
    const char *name; /* argv[0]'s base name: munged, droverctld, droverd,
                       * droverdbd */
    char *node;       /* droverd: the node it serves; drover-emud: the
                       * hostlist of its nodes */
    char *pidfile;
    char *log;        /* where its stdout and stderr go */
    pid_t pid;        /* running, or 0 */
    bool started;     /* started by this run of drover */
    time_t start_time;
};

struct cluster {
    char *dir;                /* absolute */
    char *conf_path;          /* dir/etc/slurm.conf */
    char *dbd_conf_path;      /* dir/etc/slurmdbd.conf */
    struct slurm_conf *conf;  /* NULL while only half known (drover down) */
    struct daemon *daemons;   /* [0] munged, [1] droverctld, then nodes,
                               * then droverdbd if etc/slurmdbd.conf is,
                               * then droverrestd if etc/restd.addr is */
    size_t count;
    proto_auth_t *auth;
    char *restd_addr;         /* etc/restd.addr, or NULL */
    char **emulated;          /* etc/emulated.nodes expanded, sorted (for
                               * bsearch), or NULL */
    size_t emulated_count;
    int isolate_octet;        /* etc/isolate.net: 10.77.X.0/24; 0: the
                               * controllers share the host's network */
};

struct opts {
    const char *dir;
    struct drover_shape shape;
    const char *shape_opt; /* the first shape option given, for messages */
    bool nodes_given;      /* --nodes (else none beside emulated ones) */
    bool timeout_given;
    int timeout_s;
};

enum {
    OPT_DIR = CMD_OPT_LONG,
    OPT_NODES,
    OPT_GPUS,
    OPT_CPUS,
    OPT_MEM,
    OPT_GPU_TYPE,
    OPT_PARTITION,
    OPT_PORT_BASE,
    OPT_TIMEOUT,
    OPT_CONF_EXTRA,
    OPT_DBD_CONF_EXTRA,
    OPT_CGROUP_CONF_EXTRA,
    OPT_EMULATE_NODES,
    OPT_CONTROLLERS,
    OPT_ISOLATE,
};

static const struct cmd_opt opts_table[] = {
    {"dir", OPT_DIR, required_argument,
     "  --dir=DIR               the cluster's directory (default\n"
     "                          $XDG_RUNTIME_DIR/drover, else /tmp/drover-$USER)\n"},
    {"nodes", OPT_NODES, required_argument,
     "  --nodes=N               up: number of nodes, node01..nodeNN (4)\n"},
    {"emulate-nodes", OPT_EMULATE_NODES, required_argument,
     "  --emulate-nodes=N       up: N emulated nodes sim[00001-N], all in one\n"
     "                          drover-emud (no real node unless --nodes)\n"},
    {"controllers", OPT_CONTROLLERS, required_argument,
     "  --controllers=N         up: N controllers ctl1..ctlN replicating\n"
     "                          their state through Raft (1; 3 or 5 for high\n"
     "                          availability)\n"},
    {"isolate", OPT_ISOLATE, no_argument,
     "  --isolate               up: each controller and each node in its\n"
     "                          own network namespace on a bridge, to cut\n"
     "                          it off with `ip link set` (root;\n"
     "                          docs/ha.md)\n"},
    {"gpus-per-node", OPT_GPUS, required_argument,
     "  --gpus-per-node=G       up: fake GPUs per node (8)\n"},
    {"cpus-per-node", OPT_CPUS, required_argument,
     "  --cpus-per-node=C       up: CPUs per node (32)\n"},
    {"mem-per-node", OPT_MEM, required_argument,
     "  --mem-per-node=SIZE     up: memory per node, MiB or with a unit: 16G\n"
     "                          (256G)\n"},
    {"gpu-type", OPT_GPU_TYPE, required_argument,
     "  --gpu-type=TYPE         up: GPU type, as in Gres=gpu:TYPE:G (none)\n"},
    {"partition", OPT_PARTITION, required_argument,
     "  --partition=NAME        up: name of the default partition (debug)\n"},
    {"port-base", OPT_PORT_BASE, required_argument,
     "  --port-base=PORT        up: controller port; nodes use the next ones\n"
     "                          (default: a free block below the ephemeral "
     "range)\n"},
    {"conf-extra", OPT_CONF_EXTRA, required_argument,
     "  --conf-extra=KEY=VALUE  up: a slurm.conf setting for the new cluster\n"
     "                          (replaces drover's own; may be repeated)\n"},
    {"dbd-conf-extra", OPT_DBD_CONF_EXTRA, required_argument,
     "  --dbd-conf-extra=KEY=VALUE  up: a slurmdbd.conf setting, e.g.\n"
     "                          StorageType=accounting_storage/pgsql (may be\n"
     "                          repeated)\n"},
    {"cgroup-conf-extra", OPT_CGROUP_CONF_EXTRA, required_argument,
     "  --cgroup-conf-extra=KEY=VALUE  up: a cgroup.conf setting, e.g.\n"
     "                          ConstrainRAMSpace=no (may be repeated)\n"},
    {"timeout", OPT_TIMEOUT, required_argument,
     "  --timeout=SECS          up: how long to wait for the cluster (30)\n"},
    {"help", 'h', no_argument, "  -h, --help              show this help\n"},
    {"version", 'V', no_argument,
     "  -V, --version           show drover's version\n"},
    CMD_OPT_END,
};

static const char help_head[] =
    "Usage: drover up [OPTIONS]      start a local cluster (or what is missing "
    "of it)\n"
    "       drover status [--dir=DIR] one line per daemon; exit 3 unless all "
    "run\n"
    "       drover down [--dir=DIR]   stop every daemon and job of the "
    "cluster\n"
    "\n"
    "A local cluster is a private munged, a droverdbd (accounting, on\n"
    "SQLite), a droverctld and one droverd per node on this host, all under\n"
    "one directory.  `drover up` returns when\n"
    "every node is up; run it again to restart any daemon that died.\n"
    "\n"
    "Options:\n";

/* --- options ------------------------------------------------------------ */

static unsigned parse_count(const char *opt, const char *s, unsigned min,
                            unsigned max)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max || s[0] == '-') {
        cmd_error(PROG, "--%s=%s: expected a number from %u to %u", opt, s,
                  min, max);
        exit(1);
    }
    return (unsigned)v;
}

static uint64_t parse_mem(const char *s)
{
    drv_error_t error = {{0}};
    uint64_t mib;

    if (sizefmt_parse_mib(s, &mib, &error) < 0 || mib == 0) {
        cmd_error(PROG, "--mem-per-node=%s: %s", s,
                  error.text[0] ? error.text : "expected a size such as 16G");
        exit(1);
    }
    return mib;
}

/* The option name of 'val' (for "applies only to up" messages). */
static const char *opt_name(int val)
{
    for (const struct cmd_opt *o = opts_table; o->name; o++) {
        if (o->val == val)
            return o->name;
    }
    return "?";
}

/* --conf-extra=Key=Value (or --dbd-conf-extra), collected as lines in
 * *lines; 'keep' (a static) holds them to the end.
 */
static void add_conf_extra(const char **lines, char **keep, const char *opt,
                           const char *arg)
{
    char *more;

    if (!strchr(arg, '=') || strchr(arg, '\n')) {
        fprintf(stderr, "drover: --%s=%s: want KEY=VALUE\n", opt, arg);
        exit(1);
    }
    more = xasprintf("%s%s\n", *keep ? *keep : "", arg);
    free(*keep);
    *lines = *keep = more;
}

static char *conf_extra_lines, *dbd_conf_extra_lines,
    *cgroup_conf_extra_lines;

static void set_shape_opt(struct opts *o, int c, const char *arg)
{
    struct drover_shape *s = &o->shape;

    if (!o->shape_opt && c != OPT_TIMEOUT)
        o->shape_opt = opt_name(c);
    switch (c) {
    case OPT_NODES:
        s->nodes = parse_count("nodes", arg, 1, 999);
        o->nodes_given = true;
        break;
    case OPT_EMULATE_NODES:
        s->emulate_nodes = parse_count("emulate-nodes", arg, 1, 99999);
        break;
    case OPT_CONTROLLERS:
        s->controllers = parse_count("controllers", arg, 1, 7);
        break;
    case OPT_ISOLATE:
        s->isolate = true;
        break;
    case OPT_GPUS:
        s->gpus_per_node = parse_count("gpus-per-node", arg, 0, 64);
        break;
    case OPT_CPUS:
        s->cpus_per_node = parse_count("cpus-per-node", arg, 1, 4096);
        break;
    case OPT_MEM:
        s->mem_mib = parse_mem(arg);
        break;
    case OPT_GPU_TYPE:
        s->gpu_type = arg;
        break;
    case OPT_PARTITION:
        s->partition = arg;
        break;
    case OPT_PORT_BASE:
        s->port_base = parse_count("port-base", arg, 1024, 65535);
        break;
    case OPT_TIMEOUT:
        o->timeout_s = (int)parse_count("timeout", arg, 1, 3600);
        o->timeout_given = true;
        break;
    case OPT_CONF_EXTRA:
        add_conf_extra(&s->conf_extra, &conf_extra_lines, "conf-extra", arg);
        break;
    case OPT_DBD_CONF_EXTRA:
        add_conf_extra(&s->dbd_conf_extra, &dbd_conf_extra_lines,
                       "dbd-conf-extra", arg);
        break;
    case OPT_CGROUP_CONF_EXTRA:
        add_conf_extra(&s->cgroup_conf_extra, &cgroup_conf_extra_lines,
                       "cgroup-conf-extra", arg);
        break;
    }
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
    int c;

    while ((c = cmd_getopt(argc, argv, opts_table)) != -1) {
        switch (c) {
        case OPT_DIR:
            o->dir = optarg;
            break;
        case 'h':
            cmd_print_help(stdout, help_head, opts_table, NULL);
            exit(0);
        case 'V':
            cmd_print_version();
            exit(0);
        case '?':
            fprintf(stderr, "Try \"drover --help\" for more information\n");
            exit(1);
        default:
            set_shape_opt(o, c, optarg);
        }
    }
    if (o->shape.emulate_nodes && !o->nodes_given)
        o->shape.nodes = 0; /* only emulated nodes */
    if (o->shape.emulate_nodes && !o->timeout_given) /* they register */
        o->timeout_s += (int)(o->shape.emulate_nodes / 100);
}

/* --- the cluster directory ---------------------------------------------- */

/* Names that would not survive slurm.conf's lexer or a hostlist. */
static bool dir_name_ok(const char *dir)
{
    for (const char *p = dir; *p; p++) {
        if (*p <= ' ' || strchr("#[],=\"'\\", *p))
            return false;
    }
    return true;
}

/* An absolute, normalized form of 'dir' (which need not exist yet). */
static char *absolute_dir(const char *dir)
{
    char real[PATH_MAX], cwd[PATH_MAX];

    if (realpath(dir, real))
        return xstrdup(real);
    if (dir[0] == '/')
        return xstrdup(dir);
    if (!getcwd(cwd, sizeof(cwd))) {
        cmd_error(PROG, "cannot find the current directory: %s",
                  strerror(errno));
        exit(1);
    }
    return xasprintf("%s/%s", cwd, dir);
}

/* The cluster directory to use; 'create' makes it first (drover up), so
 * that the paths written into slurm.conf are already normalized.
 */
static char *resolve_dir(const char *given, bool create)
{
    char *dflt = given ? NULL : drover_default_dir();
    drv_error_t error = {{0}};
    char *dir;

    if (create && drover_make_dir(given ? given : dflt, &error) < 0) {
        cmd_error(PROG, "%s", error.text);
        exit(1);
    }
    dir = absolute_dir(given ? given : dflt);
    free(dflt);
    while (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/')
        dir[strlen(dir) - 1] = '\0';
    if (!dir_name_ok(dir)) {
        cmd_error(PROG, "%s: the cluster directory's path must not contain "
                  "spaces or any of #[],=\"'\\", dir);
        exit(1);
    }
    return dir;
}

static void add_daemon(struct cluster *c, enum daemon_kind kind,
                       const char *node)
{
    struct daemon *d;

    c->daemons = realloc(c->daemons, (c->count + 1) * sizeof(*d));
    if (!c->daemons)
        abort();
    d = &c->daemons[c->count++];
    *d = (struct daemon){.kind = kind};
    if (kind == DAEMON_MUNGED) {
        d->name = "munged";
        d->pidfile = drover_path(c->dir, DROVER_MUNGE_PID_REL);
        d->log = drover_path(c->dir, "log/munged.out");
    } else if (kind == DAEMON_DBD) {
        d->name = "droverdbd";
        d->pidfile = drover_path(c->dir, DROVER_DBD_PID_REL);
        d->log = drover_path(c->dir, DROVER_DBD_LOG_REL);
    } else if (kind == DAEMON_RESTD) {
        d->name = "droverrestd";
        d->pidfile = drover_path(c->dir, DROVER_RESTD_PID_REL);
        d->log = drover_path(c->dir, DROVER_RESTD_LOG_REL);
    } else if (kind == DAEMON_EMUD) {
        d->name = "drover-emud";
        d->node = xstrdup(node);
        d->pidfile = drover_path(c->dir, DROVER_EMUD_PID_REL);
        d->log = drover_path(c->dir, DROVER_EMUD_LOG_REL);
    } else if (kind == DAEMON_CTLD && node) { /* one of a Raft group */
        d->name = "droverctld";
        d->node = xstrdup(node);
        d->pidfile = xasprintf("%s/run/droverctld-%s.pid", c->dir, node);
        d->log = xasprintf("%s/log/droverctld-%s.log", c->dir, node);
    } else if (kind == DAEMON_CTLD) {
        d->name = "droverctld";
        d->pidfile = drover_path(c->dir, DROVER_CTLD_PID_REL);
        d->log = drover_path(c->dir, DROVER_CTLD_LOG_REL);
    } else {
        d->name = "droverd";
        d->node = xstrdup(node);
        d->pidfile = drover_node_pidfile(c->dir, node);
        d->log = drover_node_log(c->dir, node);
    }
}

/* Nodes of a directory whose slurm.conf cannot be read: from pid files. */
static void add_nodes_from_pidfiles(struct cluster *c)
{
    char *pattern = drover_path(c->dir, "run/droverd-*.pid");
    glob_t g;

    if (glob(pattern, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            char *node = xstrdup(strrchr(g.gl_pathv[i], '/') + 9);

            node[strlen(node) - 4] = '\0'; /* "droverd-" ... ".pid" */
            add_daemon(c, DAEMON_NODE, node);
            free(node);
        }
        globfree(&g);
    }
    free(pattern);
}

/* The first line of the small file 'rel' of 'dir', without its newline;
 * NULL when the file is missing or that line is empty.  Caller frees. */
static char *read_first_line(const char *dir, const char *rel)
{
    char *path = drover_path(dir, rel);
    char buf[4096] = "";
    FILE *f = fopen(path, "r");

    free(path);
    if (!f)
        return NULL;
    if (!fgets(buf, sizeof(buf), f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\r\n")] = '\0';
    return buf[0] ? xstrdup(buf) : NULL;
}

/* The "HOST:PORT" droverrestd listens on (etc/restd.addr), or NULL for a
 * directory made before droverrestd.  Caller frees. */
static char *read_restd_addr(const char *dir)
{
    return read_first_line(dir, DROVER_RESTD_ADDR_REL);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Is 'name' one of the emulated nodes? */
static bool is_emulated(const struct cluster *c, const char *name)
{
    return c->emulated
           && bsearch(&name, c->emulated, c->emulated_count,
                      sizeof(*c->emulated), name_cmp);
}

/* etc/emulated.nodes: the hostlist of drover-emud's nodes, or NULL.
 * Its names go to c->emulated.  Caller frees. */
static char *read_emulated(struct cluster *c)
{
    char *line = read_first_line(c->dir, DROVER_EMULATED_REL);
    hostlist_t *hl;

    if (!line || !(hl = hostlist_decode(line, NULL))) {
        free(line);
        return NULL;
    }
    c->emulated_count = hostlist_count(hl);
    c->emulated = xzalloc((c->emulated_count + 1) * sizeof(*c->emulated));
    for (size_t i = 0; i < c->emulated_count; i++)
        c->emulated[i] = xstrdup(hostlist_nth(hl, i));
    qsort(c->emulated, c->emulated_count, sizeof(*c->emulated), name_cmp);
    hostlist_destroy(hl);
    return line;
}

/* Load the cluster in 'dir'.  With 'must_load', a slurm.conf that cannot
 * be read is fatal; otherwise the nodes come from the pid files.
 */
static struct cluster *cluster_open(char *dir, bool must_load)
{
    struct cluster *c = xzalloc(sizeof(*c));
    drv_error_t error = {{0}};
    char *emulated;

    c->dir = dir;
    if ((c->isolate_octet = drover_isolate_octet(dir, &error)) < 0) {
        cmd_error(PROG, "%s", error.text);
        exit(1);
    }
    emulated = read_emulated(c);
    c->conf_path = drover_path(dir, DROVER_CONF_REL);
    c->conf = conf_load(c->conf_path, &error);
    if (!c->conf && must_load) {
        cmd_error(PROG, "%s", error.text);
        exit(1);
    }
    /* its calls to the daemons (up's readiness pings, down...) */
    if (c->conf && !proto_tls_client_ctx_get()
        && proto_tls_client_setup(c->conf->tls.rpc, c->conf->tls.ca, &error)
               < 0) {
        cmd_error(PROG, "%s", error.text);
        exit(1);
    }
    add_daemon(c, DAEMON_MUNGED, NULL);
    if (c->conf && c->conf->ctld_backup_count) { /* a Raft group */
        add_daemon(c, DAEMON_CTLD, c->conf->ctld_host);
        for (size_t i = 0; i < c->conf->ctld_backup_count; i++)
            add_daemon(c, DAEMON_CTLD, c->conf->ctld_backup_hosts[i]);
    } else {
        add_daemon(c, DAEMON_CTLD, NULL);
    }
    if (c->conf) {
        for (size_t i = 0; i < c->conf->node_count; i++)
            if (!is_emulated(c, c->conf->nodes[i].name))
                add_daemon(c, DAEMON_NODE, c->conf->nodes[i].name);
    } else {
        add_nodes_from_pidfiles(c);
    }
    if (emulated)
        add_daemon(c, DAEMON_EMUD, emulated);
    free(emulated);
    c->dbd_conf_path = drover_path(dir, DROVER_DBD_CONF_REL);
    if (access(c->dbd_conf_path, F_OK) == 0)
        add_daemon(c, DAEMON_DBD, NULL);
    if ((c->restd_addr = read_restd_addr(dir)))
        add_daemon(c, DAEMON_RESTD, NULL);
    return c;
}

static void cluster_close(struct cluster *c)
{
    for (size_t i = 0; i < c->count; i++) {
        free(c->daemons[i].node);
        free(c->daemons[i].pidfile);
        free(c->daemons[i].log);
    }
    free(c->daemons);
    for (size_t i = 0; i < c->emulated_count; i++)
        free(c->emulated[i]);
    free(c->emulated);
    proto_auth_destroy(c->auth);
    conf_destroy(c->conf);
    free(c->conf_path);
    free(c->dbd_conf_path);
    free(c->restd_addr);
    free(c->dir);
    free(c);
}

/* Fill in the pid of each running daemon; returns how many run. */
static size_t cluster_scan(struct cluster *c)
{
    size_t running = 0;

    for (size_t i = 0; i < c->count; i++) {
        struct daemon *d = &c->daemons[i];

        d->pid = drover_proc_find(d->pidfile, d->name, c->dir, d->node);
        if (d->pid)
            running++;
    }
    return running;
}

/* --- finding the programs ----------------------------------------------- */

/* The directory drover runs from; exits when it cannot be read. */
static char *drover_dir(void)
{
    char *dir = self_dir();

    if (!dir) {
        cmd_error(PROG, "cannot read /proc/self/exe: %s", strerror(errno));
        exit(1);
    }
    return dir;
}

/* A daemon next to drover: $DROVER_SBIN_DIR, the build tree
 * (src/cmd/../ctld), the same directory, or ../sbin of an installed prefix.
 */
static char *find_daemon(const char *name, const char *build_subdir)
{
    const char *sbin = getenv("DROVER_SBIN_DIR");
    char *self = drover_dir();
    char *cand[4] = {
        sbin && sbin[0] ? xasprintf("%s/%s", sbin, name) : NULL,
        xasprintf("%s/../%s/%s", self, build_subdir, name),
        xasprintf("%s/%s", self, name),
        xasprintf("%s/../sbin/%s", self, name),
    };
    char *found = NULL;

    for (size_t i = 0; i < 4; i++) {
        if (!found && cand[i] && access(cand[i], X_OK) == 0)
            found = xstrdup(cand[i]);
        free(cand[i]);
    }
    if (!found) {
        cmd_error(PROG, "cannot find %s next to %s (looked in "
                  "$DROVER_SBIN_DIR, ../%s, ., ../sbin)", name, self,
                  build_subdir);
        exit(1);
    }
    free(self);
    return found;
}

static char *find_munged(void)
{
    static const char *const paths[] = {
        "/usr/sbin/munged", "/usr/local/sbin/munged", "/sbin/munged",
    };
    const char *env = getenv("DROVER_MUNGED");

    if (env && env[0])
        return xstrdup(env);
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
        if (access(paths[i], X_OK) == 0)
            return xstrdup(paths[i]);
    }
    cmd_error(PROG, "cannot find munged (install the munge package, or set "
              "DROVER_MUNGED)");
    exit(1);
}

/* --- starting ----------------------------------------------------------- */

static void fail_with_log(const char *log, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

static void fail_with_log(const char *log, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: error: ", PROG);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (log)
        drover_print_tail(stderr, log, TAIL_LINES);
    exit(1);
}

static void start_munged(struct cluster *c, struct daemon *d)
{
    char *munged = find_munged();
    char *key = drover_path(c->dir, "munge/munge.key");
    char *sock = drover_path(c->dir, DROVER_MUNGE_SOCKET_REL);
    char *argv[] = {
        munged,
        xasprintf("--socket=%s", sock),
        xasprintf("--key-file=%s", key),
        xasprintf("--pid-file=%s", d->pidfile),
        xasprintf("--log-file=%s/munge/munged.log", c->dir),
        xasprintf("--seed-file=%s/munge/munged.seed", c->dir),
        "--force",
        NULL,
    };
    drv_error_t error = {{0}};
    pid_t pid;
    int status;

    if (drover_munge_key(key, &error) < 0
        || (pid = drover_proc_spawn(argv, c->dir, d->log, NULL, &error)) < 0)
        fail_with_log(NULL, "%s", error.text);
    /* munged forks and its first process exits once the daemon is ready. */
    if ((status = drover_proc_wait(pid, 15000)) < 0 || status != 0)
        fail_with_log(d->log, "munged did not start (%s)",
                      status < 0 ? strerror(errno) : "it exited with an error");
    if (!(d->pid = drover_proc_find(d->pidfile, d->name, c->dir, NULL)))
        fail_with_log(d->log, "munged started but %s names no munged",
                      d->pidfile);
    d->started = true;
    for (size_t i = 1; i < 6; i++)
        free(argv[i]);
    free(munged);
    free(key);
    free(sock);
}

/* Seconds between an emulated node's registrations: droverd's 5 s, but
 * all of them together at most about 200 a second, and well inside
 * SlurmdTimeout (30 s here). */
static unsigned emud_heartbeat_s(size_t nodes)
{
    size_t s = nodes / 200;

    return s < 5 ? 5 : s > 15 ? 15 : (unsigned)s;
}

static void start_emud(struct cluster *c, struct daemon *d)
{
    char *bin = find_daemon("drover-emud", "emud");
    char *hb = xasprintf("--heartbeat=%u",
                         emud_heartbeat_s(c->emulated_count));
    char *argv[] = {bin, "-f", c->conf_path, "-N", d->node, hb, NULL};
    drv_error_t error = {{0}};

    d->start_time = time(NULL);
    d->pid = drover_proc_spawn(argv, c->dir, d->log, d->pidfile, &error);
    if (d->pid < 0)
        fail_with_log(NULL, "%s", error.text);
    d->started = true;
    free(bin);
    free(hb);
}

static void start_daemon(struct cluster *c, struct daemon *d, const char *bin)
{
    char *conf = d->kind == DAEMON_DBD ? c->dbd_conf_path : c->conf_path;
    char *argv[] = {(char *)bin, "-D", "-f", conf, d->node ? "-N" : NULL,
                    d->node, NULL};
    char *restd_argv[] = {(char *)bin, "-f", conf, c->restd_addr, NULL};
    bool isolated = c->isolate_octet && d->node
                    && (d->kind == DAEMON_CTLD || d->kind == DAEMON_NODE);
    char *netns = isolated ? drover_isolate_netns(c->dir, d->node) : NULL;
    drv_error_t error = {{0}};

    d->start_time = time(NULL);
    d->pid = drover_proc_spawn_in(d->kind == DAEMON_RESTD ? restd_argv : argv,
                                  c->dir, d->log, d->pidfile, netns, d->node,
                                  &error);
    free(netns);
    if (d->pid < 0)
        fail_with_log(NULL, "%s", error.text);
    d->started = true;
}

static void check_started_alive(struct cluster *c);
static void sleep_ms(int ms);

/* The droverdbd of the cluster, or NULL (a directory made before it). */
static struct daemon *dbd_daemon(struct cluster *c)
{
    for (size_t i = 0; i < c->count; i++)
        if (c->daemons[i].kind == DAEMON_DBD)
            return &c->daemons[i];
    return NULL;
}

/* Start droverdbd if it is not running and wait until it answers, so that
 * the controller finds it from its first job.
 */
static void start_dbd(struct cluster *c, struct daemon *d, time_t deadline)
{
    char *bin = find_daemon("droverdbd", "dbd");
    drv_error_t error = {{0}};

    if (!d->pid)
        start_daemon(c, d, bin);
    free(bin);
    for (;;) {
        check_started_alive(c);
        memset(&error, 0, sizeof(error));
        if (proto_call_sync(c->conf->accounting_storage_host ?: "localhost",
                            c->conf->accounting_storage_port, c->auth, "ping",
                            NULL, NULL, 2000, &error) == 0)
            return;
        if (time(NULL) >= deadline)
            fail_with_log(d->log, "droverdbd did not answer on port %u: %s",
                          c->conf->accounting_storage_port, error.text);
        sleep_ms(POLL_MS);
    }
}

/* --isolate: the bridge, and the namespace and veth pair of each
 * controller, then of each droverd node, those that are missing
 * (drover_isolate.h; the order gives their addresses, as slurm.conf
 * has them). */
static void isolate_up(struct cluster *c)
{
    size_t nctl = c->conf->ctld_backup_count + 1, n = nctl;
    char **names = xzalloc((nctl + c->count) * sizeof(*names));
    drv_error_t error = {{0}};

    for (size_t i = 0; i < nctl; i++)
        names[i] = (char *)conf_ctld_name(c->conf, i);
    for (size_t i = 0; i < c->count; i++)
        if (c->daemons[i].kind == DAEMON_NODE)
            names[n++] = (char *)c->daemons[i].node;
    if (drover_isolate_up(c->dir, c->isolate_octet, names, n, &error) < 0)
        fail_with_log(NULL, "%s", error.text);
    free(names);
}

static void start_missing(struct cluster *c, time_t deadline)
{
    char *ctld = find_daemon("droverctld", "ctld");
    char *noded = find_daemon("droverd", "noded");
    char *restd = find_daemon("droverrestd", "restd");
    drv_error_t error = {{0}};

    if (c->isolate_octet)
        isolate_up(c);
    if (!c->daemons[0].pid)
        start_munged(c, &c->daemons[0]);
    if (!(c->auth = proto_auth_create(c->conf->auth_socket, &error)))
        fail_with_log(NULL, "%s", error.text);
    if (dbd_daemon(c))
        start_dbd(c, dbd_daemon(c), deadline);
    for (size_t i = 1; i < c->count; i++) {
        struct daemon *d = &c->daemons[i];

        if (!d->pid && d->kind == DAEMON_EMUD)
            start_emud(c, d);
        else if (!d->pid && d->kind != DAEMON_DBD)
            start_daemon(c, d, d->kind == DAEMON_CTLD    ? ctld
                               : d->kind == DAEMON_RESTD ? restd
                                                         : noded);
    }
    free(ctld);
    free(noded);
    free(restd);
}

/* --- waiting until the cluster is up ------------------------------------ */

/* Fail if a daemon we started has already exited. */
static void check_started_alive(struct cluster *c)
{
    for (size_t i = 1; i < c->count; i++) {
        struct daemon *d = &c->daemons[i];
        int status;

        if (!d->started || !drover_proc_exited(d->pid, &status))
            continue;
        d->pid = 0;
        if (WIFSIGNALED(status))
            fail_with_log(d->log, "%s%s%s was killed by signal %d", d->name,
                          d->node ? " " : "", d->node ? d->node : "",
                          WTERMSIG(status));
        fail_with_log(d->log, "%s%s%s exited with status %d", d->name,
                      d->node ? " " : "", d->node ? d->node : "",
                      WEXITSTATUS(status));
    }
}

/* Call the controller; in a Raft group each in turn until the leader
 * answers (a follower answers only ping). */
static int ctld_call(struct cluster *c, const char *type, json_t **resp,
                     drv_error_t *error)
{
    int rc = -1;

    for (size_t i = 0; i <= c->conf->ctld_backup_count; i++) {
        memset(error, 0, sizeof(*error));
        if ((rc = proto_call_sync(conf_ctld_addr(c->conf, i), c->conf->ctld_port,
                                  c->auth, type, NULL, resp, 2000, error))
            == 0)
            return 0;
    }
    return rc;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL);
}

static void wait_ctld(struct cluster *c, time_t deadline, int timeout_s)
{
    drv_error_t error = {{0}};

    for (;;) {
        check_started_alive(c);
        memset(&error, 0, sizeof(error));
        /* A Raft group is up once one leads: followers answer ping. */
        if (ctld_call(c, c->conf->ctld_backup_count ? "node_info" : "ping",
                      NULL, &error) == 0)
            return;
        if (time(NULL) >= deadline)
            break;
        sleep_ms(POLL_MS);
    }
    fail_with_log(c->daemons[1].log, "droverctld did not answer within %d s: "
                  "%s", timeout_s, error.text);
}

/* Is node 'j' up, and registered by the droverd we started (if we did)? */
static bool node_up(const struct daemon *d, json_t *j)
{
    const char *state = json_string_value(json_object_get(j, "state"));
    json_t *nr = json_object_get(j, "not_responding");
    json_int_t start =
        json_integer_value(json_object_get(j, "slurmd_start_time"));

    if (!state || !strcmp(state, "DOWN") || !strcmp(state, "UNKNOWN")
        || json_is_true(nr))
        return false;
    return !d->started || start >= (json_int_t)d->start_time;
}

/* The first node not up, or NULL; its record goes to *why (borrowed). */
static struct daemon *first_node_down(struct cluster *c, json_t *resp,
                                      json_t **why)
{
    json_t *nodes = json_object_get(resp, "nodes"), *j;
    size_t k;

    for (size_t i = 2; i < c->count; i++) {
        struct daemon *d = &c->daemons[i];
        bool up = false;

        if (d->kind != DAEMON_NODE)
            continue;
        *why = NULL;
        json_array_foreach(nodes, k, j) {
            const char *name = json_string_value(json_object_get(j, "name"));

            if (name && !strcmp(name, d->node)) {
                *why = j;
                up = node_up(d, j);
            }
        }
        if (!up)
            return d;
    }
    return NULL;
}

/* The drover-emud of the cluster, or NULL. */
static struct daemon *emud_daemon(struct cluster *c)
{
    for (size_t i = 0; i < c->count; i++)
        if (c->daemons[i].kind == DAEMON_EMUD)
            return &c->daemons[i];
    return NULL;
}

/* The first emulated node not up, or NULL (its drover-emud in *d).  Also
 * counts them: a node the controller does not list is down too. */
static json_t *first_emulated_down(struct cluster *c, json_t *resp,
                                   struct daemon **d)
{
    json_t *nodes = json_object_get(resp, "nodes"), *j;
    size_t k, seen = 0;

    if (!(*d = emud_daemon(c)))
        return NULL;
    json_array_foreach(nodes, k, j) {
        const char *name = json_string_value(json_object_get(j, "name"));

        if (!name || !is_emulated(c, name))
            continue;
        if (!node_up(*d, j))
            return j;
        seen++;
    }
    return seen == c->emulated_count ? NULL : json_null();
}

static void fail_node(struct daemon *d, json_t *j, int timeout_s)
{
    const char *st = json_string_value(json_object_get(j, "state_str"));
    const char *reason = json_string_value(json_object_get(j, "reason"));

    const char *name = json_string_value(json_object_get(j, "name"));

    fail_with_log(d->log, "node %s was not up within %d s (state %s%s%s%s)",
                  name ? name : d->node, timeout_s, st ? st : "unknown to droverctld",
                  json_is_true(json_object_get(j, "not_responding"))
                      ? ", not responding" : "",
                  reason && reason[0] ? ", reason: " : "",
                  reason && reason[0] ? reason : "");
}

static void wait_nodes(struct cluster *c, time_t deadline, int timeout_s)
{
    drv_error_t error = {{0}};
    struct daemon *d = NULL;
    json_t *resp = NULL, *why = NULL;

    for (;;) {
        check_started_alive(c);
        json_decref(resp);
        resp = NULL;
        memset(&error, 0, sizeof(error));
        if (ctld_call(c, "node_info", &resp, &error) == 0
            && !(d = first_node_down(c, resp, &why))
            && !(why = first_emulated_down(c, resp, &d)))
            break;
        if (time(NULL) >= deadline) {
            if (!resp)
                fail_with_log(c->daemons[1].log, "node_info: %s", error.text);
            fail_node(d, why, timeout_s);
        }
        /* Each look lists every node: at 10,000 nodes a listing every
         * 200 ms took half of the controller's time while the nodes
         * registered (bench/scale's restart), so the pause grows with
         * them (1.2 s at 10,000). */
        sleep_ms(POLL_MS + (int)((c->count + c->emulated_count) / 10));
    }
    json_decref(resp);
}

/* Does something accept connections at "HOST:PORT"? */
static bool accepting(const char *addr)
{
    const char *colon = strrchr(addr, ':');
    struct sockaddr_in sin = {.sin_family = AF_INET};
    char host[64];
    bool ok;
    int fd;

    if (!colon)
        return false;
    snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
    sin.sin_port = htons((uint16_t)atoi(colon + 1));
    if (inet_pton(AF_INET, host, &sin.sin_addr) != 1
        || (fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
        return false;
    ok = connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0;
    close(fd);
    return ok;
}

/* Wait until droverrestd listens, so the printed URL answers. */
static void wait_restd(struct cluster *c, time_t deadline)
{
    struct daemon *d = NULL;

    for (size_t i = 0; i < c->count; i++)
        if (c->daemons[i].kind == DAEMON_RESTD)
            d = &c->daemons[i];
    if (!d)
        return;
    while (!accepting(c->restd_addr)) {
        check_started_alive(c);
        if (time(NULL) >= deadline)
            fail_with_log(d->log, "droverrestd does not listen on %s",
                          c->restd_addr);
        sleep_ms(POLL_MS);
    }
}

/* --- subcommands -------------------------------------------------------- */

/* Hold DIR/drover.lock until exit, so that two `drover up` (or an up and a
 * down) on one directory take turns instead of racing to start daemons.
 * Daemons do not inherit it (drover_proc_spawn closes descriptors).
 */
static void lock_dir(const char *dir)
{
    char *path = drover_path(dir, "drover.lock");
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

    if (fd < 0 || flock(fd, LOCK_EX) < 0) {
        cmd_error(PROG, "cannot lock %s: %s", path, strerror(errno));
        exit(1);
    }
    free(path);
}

/* The URL of a node daemon's metrics endpoint into 'url' when its
 * droverd serves one (SlurmdParameters=drover_metrics=); else false. */
static bool node_metrics_url(const struct cluster *c, const struct daemon *d,
                             char *url, size_t size)
{
    const struct conf_node *n;
    uint16_t port;

    if (d->kind != DAEMON_NODE || !c->conf || !d->node
        || !(n = conf_node_find(c->conf, d->node))
        || !(port = conf_metrics_port(c->conf, n)))
        return false;
    snprintf(url, size, "http://%s:%u/metrics",
             strcmp(c->conf->metrics.host, "0.0.0.0") ? c->conf->metrics.host
                                                       : n->addr,
             port);
    return true;
}

static void print_usage_hint(struct cluster *c)
{
    char *bin = drover_dir(), url[300];
    size_t nodes = c->conf->node_count;

    printf("drover: cluster %s is up in %s: %zu node%s, controller on "
           "%s:%u\n", c->conf->cluster_name ? c->conf->cluster_name : "",
           c->dir, nodes, nodes == 1 ? "" : "s", c->conf->ctld_addr,
           c->conf->ctld_port);
    if (c->restd_addr)
        printf("REST: %1$s://%2$s (a token: scontrol token)\n"
               "metrics: %1$s://%2$s/metrics\n",
               c->conf->tls.cert ? "https" : "http", c->restd_addr);
    for (size_t i = 0; i < c->count; i++)
        if (node_metrics_url(c, &c->daemons[i], url, sizeof(url)))
            printf("metrics of %s: %s\n", c->daemons[i].node, url);
    printf("To use it:\n"
           "  export DROVER_CONF=%s\n"
           "  export PATH=%s:$PATH\n"
           "To stop it:\n"
           "  %s/drover down --dir %s\n", c->conf_path, bin, bin, c->dir);
    free(bin);
}

static int cmd_up(char *dir, const struct opts *o)
{
    drv_error_t error = {{0}};
    struct cluster *c;
    time_t deadline;

    lock_dir(dir);
    if (!drover_cluster_exists(dir)) {
        if (drover_cluster_create(dir, &o->shape, &error) < 0) {
            cmd_error(PROG, "%s", error.text);
            free(dir);
            return 1;
        }
    } else if (o->shape_opt) {
        fprintf(stderr, "drover: note: %s already holds a cluster; its "
                "configuration is kept (--%s is ignored)\n", dir,
                o->shape_opt);
    }
    c = cluster_open(dir, true);
    cluster_scan(c);
    deadline = time(NULL) + o->timeout_s;
    start_missing(c, deadline);
    wait_ctld(c, deadline, o->timeout_s);
    wait_nodes(c, deadline, o->timeout_s);
    wait_restd(c, deadline);
    print_usage_hint(c);
    cluster_close(c);
    return 0;
}

/* The Raft role controller 'name' reports to ping ("leader",
 * "follower", "candidate"), or "not answering". */
static const char *ctld_role(struct cluster *c, const char *name)
{
    static char role[32];
    drv_error_t error = {{0}};
    json_t *resp = NULL;

    snprintf(role, sizeof(role), "not answering");
    if (!c->auth && !(c->auth = proto_auth_create(c->conf->auth_socket,
                                                  &error)))
        return role;
    for (size_t i = 0; i <= c->conf->ctld_backup_count; i++) {
        if (strcmp(conf_ctld_name(c->conf, i), name))
            continue;
        if (proto_call_sync(conf_ctld_addr(c->conf, i), c->conf->ctld_port, c->auth,
                            "ping", NULL, &resp, 2000, &error)
            == 0)
            snprintf(role, sizeof(role), "%s",
                     json_string_value(json_object_get(resp, "role"))
                         ?: "unknown");
        json_decref(resp);
    }
    return role;
}

static int cmd_status(char *dir)
{
    struct cluster *c;
    size_t running;
    int rc;

    if (!drover_cluster_exists(dir)) {
        printf("drover: no cluster in %s\n", dir);
        free(dir);
        return EXIT_NOT_RUNNING;
    }
    c = cluster_open(dir, false);
    running = cluster_scan(c);
    for (size_t i = 0; i < c->count; i++) {
        struct daemon *d = &c->daemons[i];
        char what[128], url[300];

        snprintf(what, sizeof(what), "%s%s%s", d->name, d->node ? " " : "",
                 d->node ? d->node : "");
        if (d->pid && d->kind == DAEMON_CTLD && d->node)
            printf("%-20s running  pid %d  %s\n", what, (int)d->pid,
                   ctld_role(c, d->node));
        else if (d->pid && node_metrics_url(c, d, url, sizeof(url)))
            printf("%-20s running  pid %d  metrics %s\n", what, (int)d->pid,
                   url);
        else if (d->pid)
            printf("%-20s running  pid %d\n", what, (int)d->pid);
        else
            printf("%-20s stopped\n", what);
    }
    rc = running == c->count ? 0 : EXIT_NOT_RUNNING;
    cluster_close(c);
    return rc;
}

static void remove_pidfiles(struct cluster *c)
{
    for (size_t i = 0; i < c->count; i++) {
        if (c->daemons[i].pid)
            (void)unlink(c->daemons[i].pidfile);
    }
}

static char *read_cgroup_file(pid_t pid)
{
    char path[64], buf[4096];
    FILE *fp;
    size_t n;

    if (pid)
        snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
    else
        snprintf(path, sizeof(path), "/proc/self/cgroup");
    if (!(fp = fopen(path, "r")))
        return NULL;
    n = fread(buf, 1, sizeof(buf) - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return xstrdup(buf);
}

/* Where each node daemon's cgroup tree is: beside its own cgroup, read
 * while it runs (/proc/PID/cgroup), or beside ours for one that is not
 * running (it died; `drover up`, which started it, is most likely run
 * from where `drover down` is).  Caller frees each and the array. */
static char **node_cgroups(struct cluster *c)
{
    char **texts = xzalloc(c->count * sizeof(*texts));

    for (size_t i = 0; i < c->count; i++) {
        if (c->daemons[i].kind != DAEMON_NODE)
            continue;
        if (!c->daemons[i].pid || !(texts[i] = read_cgroup_file(
                                        c->daemons[i].pid)))
            texts[i] = read_cgroup_file(0);
    }
    return texts;
}

/* Once the jobs are gone, their cgroups and the node daemons' trees go
 * too (a droverd that stops keeps those of the jobs still running; one
 * that was killed leaves its own).  Only empty directories are removed. */
static void prune_cgroups(struct cluster *c, char **texts)
{
    for (size_t i = 0; i < c->count; i++) {
        /* A job killed a moment ago may still be exiting. */
        for (int tries = 0; texts[i] && c->conf && tries < 20
                            && cgroup_node_prune(c->conf, c->daemons[i].node,
                                                 texts[i]) < 0;
             tries++)
            usleep(POLL_MS * 1000 / 2);
        free(texts[i]);
    }
    free(texts);
}

static int cmd_down(char *dir)
{
    struct cluster *c;
    size_t running;
    pid_t *pids;
    char **cgroups;
    int forced, jobs, isolated;

    if (access(dir, F_OK) == 0)
        lock_dir(dir);
    c = cluster_open(dir, false);
    running = cluster_scan(c);
    pids = xzalloc(c->count * sizeof(*pids));

    /* Controller and nodes first (they need munged to the end), then the
     * jobs the node daemons leave running, then munged. */
    for (size_t i = 1; i < c->count; i++)
        pids[i] = c->daemons[i].pid;
    cgroups = node_cgroups(c);
    forced = drover_proc_stop(pids, c->count, STOP_TIMEOUT_MS);
    jobs = drover_proc_kill_jobs(c->conf_path);
    prune_cgroups(c, cgroups);
    forced += drover_proc_stop(&c->daemons[0].pid, 1, STOP_TIMEOUT_MS);
    remove_pidfiles(c);
    /* Always, by the names derived from the directory: a crashed
     * --isolate run's namespaces and links go too. */
    isolated = drover_isolate_down(c->dir);
    printf("drover: stopped %zu daemon%s in %s", running,
           running == 1 ? "" : "s", c->dir);
    if (forced)
        printf(" (%d with SIGKILL)", forced);
    if (jobs)
        printf(", killed %d job process%s", jobs, jobs == 1 ? "" : "es");
    if (isolated)
        printf(", removed %d network namespace%s and link%s", isolated,
               isolated == 1 ? "" : "s", isolated == 1 ? "" : "s");
    printf("\n");
    free(pids);
    cluster_close(c);
    return 0;
}

int main(int argc, char **argv)
{
    struct opts o = {.shape = DROVER_SHAPE_DEFAULT, .timeout_s = UP_TIMEOUT_S};
    const char *sub;

    log_init(PROG, LOG_LEVEL_INFO);
    signal(SIGPIPE, SIG_IGN);
    parse_opts(argc, argv, &o);
    if (optind != argc - 1) {
        cmd_error(PROG, optind >= argc ? "say up, status or down (see drover "
                  "--help)" : "too many arguments (see drover --help)");
        return 1;
    }
    sub = argv[optind];
    if (strcmp(sub, "up") && o.shape_opt) {
        cmd_error(PROG, "--%s applies only to drover up", o.shape_opt);
        return 1;
    }
    if (!strcmp(sub, "up"))
        return cmd_up(resolve_dir(o.dir, true), &o);
    if (!strcmp(sub, "status"))
        return cmd_status(resolve_dir(o.dir, false));
    if (!strcmp(sub, "down"))
        return cmd_down(resolve_dir(o.dir, false));
    cmd_error(PROG, "unknown command '%s': say up, status or down", sub);
    return 1;
}
