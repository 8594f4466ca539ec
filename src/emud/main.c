/* SPDX-License-Identifier: Apache-2.0
 *
 * drover-emud - emulate many nodes in one process (emud.h)
 *
 * drover-emud -N 'sim[00001-00500]' [-f slurm.conf] registers each of
 * those slurm.conf nodes with the controller and runs their batch jobs as
 * timers.  It logs to stderr (or --log-file).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/daemon.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "emud/emud.h"
#include "proto/client.h"

#define HEARTBEAT_S_DEFAULT 5.0 /* droverd's */
#define RUN_S_DEFAULT 1.0
#define MAX_CALLS_DEFAULT 64
#define STATS_MS 30000

static const char usage_text[] =
    "Usage: drover-emud -N HOSTLIST [OPTIONS]\n"
    "Emulate the slurm.conf nodes of HOSTLIST (e.g. sim[00001-10000]) in one\n"
    "process: they register, heartbeat and run batch jobs as timers.\n"
    "  -N HOSTLIST          the nodes to emulate (required)\n"
    "  -f FILE              read FILE instead of $DROVER_CONF\n"
    "  -D                   run in the foreground (it always does)\n"
    "  --heartbeat=SECS     between a node's registrations (5, as droverd)\n"
    "  --run=SECS|MIN-MAX   run time of a job whose comment has no\n"
    "                       emulate:run=SECONDS hint (1; MIN-MAX: uniform)\n"
    "  --max-calls=N        controller calls under way at most (64)\n"
    "  --pid-file=FILE      write the pid to FILE\n"
    "  --log-file=FILE      log to FILE instead of stderr\n"
    "  -v                   more verbose logging (repeat)\n"
    "  -V                   print the version and exit\n";

struct emud_opts {
    const char *conf_path;
    const char *nodes;
    const char *pid_file;
    const char *log_file;
    double heartbeat_s, run_min_s, run_max_s;
    unsigned max_calls;
    int verbose;
};

enum { OPT_HEARTBEAT = 256, OPT_RUN, OPT_MAX_CALLS, OPT_PID, OPT_LOG };

static const struct option long_opts[] = {
    {"heartbeat", required_argument, NULL, OPT_HEARTBEAT},
    {"run", required_argument, NULL, OPT_RUN},
    {"max-calls", required_argument, NULL, OPT_MAX_CALLS},
    {"pid-file", required_argument, NULL, OPT_PID},
    {"log-file", required_argument, NULL, OPT_LOG},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static void bad_opt(const char *what, const char *arg)
{
    fprintf(stderr, "drover-emud: %s=%s: not valid\n%s", what, arg,
            usage_text);
    exit(1);
}

/* A positive number of seconds (fraction allowed). */
static double parse_secs(const char *what, const char *s, double min)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= min) || v > 1e8)
        bad_opt(what, s);
    return v;
}

/* --run=SECS or MIN-MAX. */
static void parse_run(struct emud_opts *o, const char *s)
{
    const char *dash = strchr(s, '-');
    char min[64];

    if (!dash) {
        o->run_min_s = o->run_max_s = parse_secs("--run", s, 0);
        return;
    }
    if ((size_t)(dash - s) >= sizeof(min))
        bad_opt("--run", s);
    snprintf(min, sizeof(min), "%.*s", (int)(dash - s), s);
    o->run_min_s = parse_secs("--run", min, 0);
    o->run_max_s = parse_secs("--run", dash + 1, 0);
    if (o->run_max_s < o->run_min_s)
        bad_opt("--run", s);
}

static void parse_opts(int argc, char **argv, struct emud_opts *o)
{
    int c;

    *o = (struct emud_opts){.heartbeat_s = HEARTBEAT_S_DEFAULT,
                            .run_min_s = RUN_S_DEFAULT,
                            .run_max_s = RUN_S_DEFAULT,
                            .max_calls = MAX_CALLS_DEFAULT};
    while ((c = getopt_long(argc, argv, "Df:N:vVh", long_opts, NULL)) != -1) {
        switch (c) {
        case 'D':
            break;
        case 'f':
            o->conf_path = optarg;
            break;
        case 'N':
            o->nodes = optarg;
            break;
        case 'v':
            o->verbose++;
            break;
        case 'V':
            daemon_print_version();
            exit(0);
        case 'h':
            fputs(usage_text, stdout);
            exit(0);
        case OPT_HEARTBEAT:
            o->heartbeat_s = parse_secs("--heartbeat", optarg, 0.1);
            break;
        case OPT_RUN:
            parse_run(o, optarg);
            break;
        case OPT_MAX_CALLS:
            o->max_calls = (unsigned)parse_secs("--max-calls", optarg, 1);
            break;
        case OPT_PID:
            o->pid_file = optarg;
            break;
        case OPT_LOG:
            o->log_file = optarg;
            break;
        default:
            fputs(usage_text, stderr);
            exit(1);
        }
    }
    if (!o->nodes || optind != argc) {
        fputs(usage_text, stderr);
        exit(1);
    }
}

static unsigned roles_of(uid_t uid, gid_t gid, void *arg)
{
    uid_t *slurm_uid = arg;

    (void)gid;
    if (uid == 0 || uid == *slurm_uid)
        return PROTO_ROLE_USER | PROTO_ROLE_DAEMON;
    return PROTO_ROLE_USER;
}

static void signal_cb(uv_signal_t *s, int signo)
{
    log_info("Terminate signal (%s) received", strsignal(signo));
    uv_stop(s->loop);
}

static void os_string(char *buf, size_t len)
{
    struct utsname u;

    if (uname(&u) < 0)
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "%s %s %s", u.sysname, u.release, u.version);
}

/* The nodes of 'expr', each from slurm.conf. */
static void load_nodes(struct emud *e, const char *expr)
{
    drv_error_t error = {0};
    hostlist_t *hl = hostlist_decode(expr, &error);

    if (!hl)
        log_fatal("-N %s: %s", expr, error.text);
    if (!(e->node_count = hostlist_count(hl)))
        log_fatal("-N %s: no nodes", expr);
    e->nodes = xzalloc(e->node_count * sizeof(*e->nodes));
    for (size_t i = 0; i < e->node_count; i++) {
        struct emu_node *n = &e->nodes[i], *dup = NULL;
        const char *name = hostlist_nth(hl, i);

        if (!(n->conf = conf_node_find(e->conf, name)))
            log_fatal("node %s is not in %s", name, e->conf->path);
        HASH_FIND_STR(e->by_name, n->conf->name, dup);
        if (dup)
            log_fatal("-N %s: node %s twice", expr, name);
        n->emud = e;
        n->done = json_array();
        HASH_ADD_KEYPTR(hh, e->by_name, n->conf->name,
                        strlen(n->conf->name), n);
    }
    hostlist_destroy(hl);
}

static void emud_init(struct emud *e, const struct emud_opts *o)
{
    drv_error_t error = {0};

    if (!(e->conf = conf_load(o->conf_path, &error)))
        log_fatal("%s", error.text);
    log_init("drover-emud", (enum log_level)(LOG_LEVEL_INFO + o->verbose));
    if (o->log_file && log_open(o->log_file) < 0)
        log_fatal("cannot open %s", o->log_file);
    load_nodes(e, o->nodes);
    if (!(e->auth = proto_auth_create(e->conf->auth_socket, &error)))
        log_fatal("%s", error.text);
    e->heartbeat_ms = (uint64_t)(o->heartbeat_s * 1000);
    e->run_min_ms = (uint64_t)(o->run_min_s * 1000);
    e->run_max_ms = (uint64_t)(o->run_max_s * 1000);
    e->max_calls = o->max_calls;
    e->start_time = time(NULL);
    os_string(e->os, sizeof(e->os));
    srandom((unsigned)getpid() ^ (unsigned)e->start_time);
}

static int port_cmp(const void *a, const void *b)
{
    return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/* Listen once on each distinct Port= of the nodes. */
static void emud_listen(struct emud *e, uid_t *slurm_uid)
{
    uint16_t *ports = xzalloc(e->node_count * sizeof(*ports));
    drv_error_t error = {0};
    size_t listened = 0;

    daemon_raise_nofile();
    if (!(e->server = proto_server_create(e->loop, e->auth, roles_of,
                                          slurm_uid, &error))
        || proto_server_tls_setup(e->server, e->conf->tls.rpc,
                                  e->conf->tls.cert, e->conf->tls.key,
                                  e->conf->tls.ca, &error) < 0
        || proto_server_register(e->server, emud_handlers, e, &error) < 0)
        log_fatal("%s", error.text);
    for (size_t i = 0; i < e->node_count; i++)
        ports[i] = e->nodes[i].conf->port;
    qsort(ports, e->node_count, sizeof(*ports), port_cmp);
    for (size_t i = 0; i < e->node_count; i++) {
        if (i && ports[i] == ports[i - 1])
            continue;
        if (proto_server_listen(e->server, "0.0.0.0", ports[i], &error) < 0)
            log_fatal("%s", error.text);
        listened++;
    }
    proto_server_set_unauth_timeout(e->server, e->conf->msg_timeout_s * 1000);
    proto_server_fit_script(e->server, e->conf->sched.max_script_size);
    log_info("drover-emud %s: %zu node%s (%s ...) on %zu port%s", 
             DROVER_VERSION, e->node_count, e->node_count == 1 ? "" : "s",
             e->nodes[0].conf->name, listened, listened == 1 ? "" : "s");
    free(ports);
}

static void stats_cb(uv_timer_t *t)
{
    struct emud *e = t->data;
    size_t registered = 0;

    for (size_t i = 0; i < e->node_count; i++)
        registered += e->nodes[i].registered;
    log_info("%zu/%zu nodes registered; jobs: %zu running, %llu started, "
             "%llu ended; controller calls: %u under way, %zu in all",
             registered, e->node_count, e->running,
             (unsigned long long)e->started, (unsigned long long)e->ended,
             e->calls, proto_call_count());
}

static void emud_start_handles(struct emud *e)
{
    uv_signal_init(e->loop, &e->sigterm);
    uv_signal_start(&e->sigterm, signal_cb, SIGTERM);
    uv_signal_init(e->loop, &e->sigint);
    uv_signal_start(&e->sigint, signal_cb, SIGINT);
    uv_timer_init(e->loop, &e->stats_timer);
    e->stats_timer.data = e;
    uv_timer_start(&e->stats_timer, stats_cb, STATS_MS, STATS_MS);
    node_start_all(e);
}

static void emud_free(struct emud *e)
{
    for (size_t i = 0; i < e->node_count; i++)
        json_decref(e->nodes[i].done);
    HASH_CLEAR(hh, e->by_name);
    free(e->nodes);
    proto_auth_destroy(e->auth);
    conf_destroy(e->conf);
}

int main(int argc, char **argv)
{
    struct emud_opts o;
    struct emud e = {0};
    struct passwd *pw;
    uid_t slurm_uid;

    parse_opts(argc, argv, &o);
    signal(SIGPIPE, SIG_IGN);
    log_init("drover-emud", LOG_LEVEL_INFO);
    e.loop = uv_default_loop();
    emud_init(&e, &o);
    pw = getpwnam(e.conf->slurm_user ? e.conf->slurm_user : "root");
    slurm_uid = pw ? pw->pw_uid : 0;
    emud_listen(&e, &slurm_uid);
    emud_start_handles(&e);
    daemon_write_pidfile(o.pid_file);
    daemon_notify("READY=1");
    uv_run(e.loop, UV_RUN_DEFAULT);
    daemon_notify("STOPPING=1");
    /* The emulated jobs end with the emulator: at its next registration
     * the controller finds them gone, as after a node's reboot. */
    e.stopping = true;
    stats_cb(&e.stats_timer);
    node_stop_all(&e);
    job_forget_all(&e);
    proto_server_destroy(e.server);
    proto_call_cancel_all();
    daemon_close_loop(e.loop);
    emud_free(&e);
    return 0;
}
