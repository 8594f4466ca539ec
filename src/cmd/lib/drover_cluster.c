/* SPDX-License-Identifier: Apache-2.0
 *
 * drover_cluster.c - lay out a local cluster's directory and configuration
 *
 * The configuration is plain slurm.conf and gres.conf, so what `drover up`
 * makes is also a worked example of a cluster configuration.  Ports are
 * chosen below the kernel's ephemeral range: a port taken from that range
 * could later be handed to an outgoing connection as its local port, and a
 * daemon restarted after that could not listen again.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cmd/lib/drover_cluster.h"
#include "cmd/lib/drover_isolate.h"
#include "common/xalloc.h"

#define NVIDIA_MAJOR 195 /* the NVIDIA driver's character device major */
#define MUNGE_KEY_BYTES 1024
#define PORT_LOW 10000  /* lowest port drover picks by itself */

char *drover_path(const char *dir, const char *rel)
{
    return xasprintf("%s/%s", dir, rel);
}

char *drover_node_log(const char *dir, const char *node)
{
    return xasprintf("%s/log/droverd-%s.log", dir, node);
}

char *drover_node_pidfile(const char *dir, const char *node)
{
    return xasprintf("%s/run/droverd-%s.pid", dir, node);
}

char *drover_default_dir(void)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    const char *user = getenv("USER");
    struct passwd *pw = getpwuid(geteuid());

    if (xdg && xdg[0] == '/')
        return xasprintf("%s/drover", xdg);
    if (pw)
        user = pw->pw_name;
    if (user && user[0])
        return xasprintf("/tmp/drover-%s", user);
    return xasprintf("/tmp/drover-%u", (unsigned)geteuid());
}

bool drover_cluster_exists(const char *dir)
{
    char *conf = drover_path(dir, DROVER_CONF_REL);
    bool exists = access(conf, F_OK) == 0;

    free(conf);
    return exists;
}

/* mkdir -p 'path'; the last component, if made here, gets 'mode'.  An
 * existing directory keeps its mode: it may be one the user chose.
 */
static int mkdir_p(const char *path, mode_t mode, drv_error_t *error)
{
    char *p = xstrdup(path);

    for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(p, 0755) < 0 && errno != EEXIST) {
            errprintf(error, "cannot create %s: %s", p, strerror(errno));
            free(p);
            return -1;
        }
        *s = '/';
    }
    free(p);
    if (mkdir(path, mode) < 0) {
        if (errno == EEXIST)
            return 0;
        return errprintf(error, "cannot create %s: %s", path, strerror(errno));
    }
    if (chmod(path, mode) < 0) /* not limited by the umask */
        return errprintf(error, "cannot chmod %s: %s", path, strerror(errno));
    return 0;
}

int drover_make_dir(const char *dir, drv_error_t *error)
{
    return mkdir_p(dir, 0755, error);
}

/* The munge directory is searchable by all, so that every user can reach
 * the socket (munged warns otherwise); the key itself is 0400.
 */
static const struct {
    const char *rel;
    mode_t mode;
} layout[] = {
    {"etc", 0755},   {"munge", 0755}, {"state", 0700}, {"spool", 0755},
    {"log", 0755},   {"run", 0755},   {"dev", 0755},
};

static int make_layout(const char *dir, drv_error_t *error)
{
    if (mkdir_p(dir, 0755, error) < 0)
        return -1;
    for (size_t i = 0; i < sizeof(layout) / sizeof(layout[0]); i++) {
        char *p = drover_path(dir, layout[i].rel);
        int rc = mkdir_p(p, layout[i].mode, error);

        free(p);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* Make one fake GPU.  Returns 0, 1 when mknod is not permitted, or -1. */
static int make_fake_gpu(const char *dir, unsigned i, drv_error_t *error)
{
    char *path = xasprintf("%s/dev/nvidia%u", dir, i);
    dev_t dev = makedev(NVIDIA_MAJOR, i);
    struct stat st;
    int rc = 0;

    if (lstat(path, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == dev)
        goto out;
    (void)unlink(path);
    if (mknod(path, S_IFCHR | 0666, dev) < 0 || chmod(path, 0666) < 0) {
        if (errno == EPERM || errno == EACCES)
            rc = 1;
        else
            rc = errprintf(error, "cannot create %s: %s", path,
                           strerror(errno));
    }
out:
    free(path);
    return rc;
}

/* Make dir/dev/nvidia0..count-1.  Sets *made to whether they exist. */
static int make_fake_gpus(const char *dir, unsigned count, bool *made,
                          drv_error_t *error)
{
    *made = count > 0;
    for (unsigned i = 0; i < count; i++) {
        int rc = make_fake_gpu(dir, i, error);

        if (rc < 0)
            return -1;
        if (rc > 0) {
            fprintf(stderr, "drover: warning: cannot create fake GPU devices "
                            "in %s/dev (mknod needs root or CAP_MKNOD): "
                            "gres.conf gives GPU counts without File=\n",
                    dir);
            *made = false;
            return 0;
        }
    }
    return 0;
}

static bool port_free(unsigned port)
{
    struct sockaddr_in sa = {
        .sin_family = AF_INET,
        .sin_port = htons((uint16_t)port),
        .sin_addr.s_addr = htonl(INADDR_ANY),
    };
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool ok = fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;

    if (fd >= 0)
        close(fd);
    return ok;
}

static bool ports_free(unsigned base, unsigned count)
{
    for (unsigned p = base; p < base + count; p++) {
        if (!port_free(p))
            return false;
    }
    return true;
}

/* The first port of the kernel's ephemeral range (32768 by default). */
static unsigned ephemeral_low(void)
{
    FILE *fp = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    unsigned lo = 32768, hi;

    if (fp) {
        if (fscanf(fp, "%u %u", &lo, &hi) != 2)
            lo = 32768;
        fclose(fp);
    }
    return lo;
}

/* Find 'count' consecutive free ports; store the first in *base. */
static int pick_ports(unsigned count, unsigned *base, drv_error_t *error)
{
    unsigned lo = PORT_LOW, hi = ephemeral_low();
    unsigned seed;

    if (hi < lo + 10 * count) { /* an odd ephemeral range: use the top */
        lo = 49152;
        hi = 65536;
    }
    if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
        seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    srand(seed);
    for (int tries = 0; tries < 500; tries++) {
        unsigned b = lo + (unsigned)rand() % (hi - lo - count);

        if (ports_free(b, count)) {
            *base = b;
            return 0;
        }
    }
    errno = EADDRINUSE;
    return errprintf(error, "no %u free consecutive ports in %u-%u; "
                     "give one with --port-base", count, lo, hi - 1);
}

/* The ports before the nodes' metrics ports: controller, nodes,
 * droverdbd, droverrestd, drover-emud's one and the Raft group's one. */
static unsigned ports_before_metrics(const struct drover_shape *shape)
{
    return shape->nodes + 3 + (shape->emulate_nodes ? 1 : 0)
           + (shape->controllers > 1 ? 1 : 0);
}

/* Each real node's droverd metrics port is its Port= plus this
 * (SlurmdParameters=drover_metrics=127.0.0.1:+N): the last ports. */
static unsigned metrics_offset(const struct drover_shape *shape)
{
    return ports_before_metrics(shape) - 1;
}

static int choose_ports(const struct drover_shape *shape, unsigned *base,
                        drv_error_t *error)
{
    unsigned count = ports_before_metrics(shape) + shape->nodes;

    if (!shape->port_base)
        return pick_ports(count, base, error);
    if (shape->port_base + count > 65536) {
        errno = EINVAL;
        return errprintf(error, "--port-base %u: %u ports do not fit below "
                         "65536", shape->port_base, count);
    }
    for (unsigned p = shape->port_base; p < shape->port_base + count; p++) {
        if (!port_free(p)) {
            errno = EADDRINUSE;
            return errprintf(error, "port %u (from --port-base %u) is in "
                             "use", p, shape->port_base);
        }
    }
    *base = shape->port_base;
    return 0;
}

/* Write 'text' to 'path' through a temporary file and rename(). */
static int write_file(const char *path, const char *text, mode_t mode,
                      drv_error_t *error)
{
    char *tmp = xasprintf("%s.tmp", path);
    size_t len = strlen(text);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    int rc = -1;

    if (fd < 0) {
        errprintf(error, "cannot create %s: %s", tmp, strerror(errno));
        goto out;
    }
    if (write(fd, text, len) != (ssize_t)len || fsync(fd) < 0
        || fchmod(fd, mode) < 0) {
        errprintf(error, "cannot write %s: %s", tmp, strerror(errno));
        close(fd);
        goto out;
    }
    close(fd);
    if (rename(tmp, path) < 0) {
        errprintf(error, "cannot rename %s: %s", tmp, strerror(errno));
        goto out;
    }
    rc = 0;
out:
    if (rc < 0)
        (void)unlink(tmp);
    free(tmp);
    return rc;
}

/* Node names: node01..node99, then as many digits as the count needs. */
static int name_width(unsigned nodes)
{
    int w = 1;

    for (unsigned n = nodes; n >= 10; n /= 10)
        w++;
    return w < 2 ? 2 : w;
}

static char *node_range(unsigned nodes)
{
    int w = name_width(nodes);

    if (nodes == 1)
        return xasprintf("node%0*u", w, 1u);
    return xasprintf("node[%0*u-%0*u]", w, 1u, w, nodes);
}

char *drover_emulated_range(unsigned count)
{
    int w = name_width(count);

    w = w < 5 ? 5 : w;
    if (count == 1)
        return xasprintf("sim%0*u", w, 1u);
    return xasprintf("sim[%0*u-%0*u]", w, 1u, w, count);
}

static char *port_range(unsigned first, unsigned count)
{
    if (count == 1)
        return xasprintf("%u", first);
    return xasprintf("%u-%u", first, first + count - 1);
}

static char *gres_spec(const struct drover_shape *shape)
{
    if (!shape->gpus_per_node)
        return xstrdup("");
    if (shape->gpu_type)
        return xasprintf(" Gres=gpu:%s:%u", shape->gpu_type,
                         shape->gpus_per_node);
    return xasprintf(" Gres=gpu:%u", shape->gpus_per_node);
}

/* The gres.conf line of 'nodes' (emulated nodes: a count, their GPUs
 * are never opened). */
static char *gres_conf_line(const char *dir, const struct drover_shape *shape,
                            const char *nodes, bool files)
{
    char *type = shape->gpu_type ? xasprintf(" Type=%s", shape->gpu_type)
                                 : xstrdup("");
    char *what;

    if (!files)
        what = xasprintf("NodeName=%s Name=gpu%s Count=%u\n", nodes, type,
                         shape->gpus_per_node);
    else if (shape->gpus_per_node == 1)
        what = xasprintf("NodeName=%s Name=gpu%s File=%s/dev/nvidia0\n",
                         nodes, type, dir);
    else
        what = xasprintf("NodeName=%s Name=gpu%s File=%s/dev/nvidia[0-%u]\n",
                         nodes, type, dir, shape->gpus_per_node - 1);
    free(type);
    return what;
}

static char *gres_conf_text(const char *dir, const struct drover_shape *shape,
                            bool files)
{
    char *nodes = node_range(shape->nodes);
    char *sim = drover_emulated_range(shape->emulate_nodes);
    char *real = shape->nodes ? gres_conf_line(dir, shape, nodes, files)
                              : xstrdup("");
    char *emu = shape->emulate_nodes
                    ? gres_conf_line(dir, shape, sim, false)
                    : xstrdup("");
    char *text;

    if (!shape->gpus_per_node)
        text = xstrdup("# gres.conf written by `drover up`.\n# (no GPUs)\n");
    else
        text = xasprintf("# gres.conf written by `drover up`.  Every node "
                         "daemon of this host\n# shares the same fake GPU "
                         "devices.\n%s%s", real, emu);
    free(nodes);
    free(sim);
    free(real);
    free(emu);
    return text;
}

/* Where the controllers reach the daemons of this host: the loopback,
 * or with --isolate the bridge's address (the loopback of a controller's
 * namespace is its own).  Caller frees. */
static char *local_addr(const struct drover_shape *shape)
{
    return shape->isolate_octet ? xasprintf("10.77.%d.1", shape->isolate_octet)
                                : xstrdup("127.0.0.1");
}

/* --isolate: the real nodes' addresses, each droverd in its own network
 * namespace after the controllers' (drover_isolate.h):
 * 10.77.X.(controllers + 2 ...), as a hostlist. */
static char *isolated_node_addrs(const struct drover_shape *shape)
{
    unsigned first = shape->controllers + 2;

    if (shape->nodes == 1)
        return xasprintf("10.77.%d.%u", shape->isolate_octet, first);
    return xasprintf("10.77.%d.[%u-%u]", shape->isolate_octet, first,
                     first + shape->nodes - 1);
}

/* The NodeName= line of 'nodes' on 'ports'; 'real': droverd nodes (each
 * in its own namespace, named after itself, with --isolate), not
 * drover-emud's. */
static char *node_line_of(const struct drover_shape *shape, const char *nodes,
                          const char *ports, bool real)
{
    unsigned cpus = shape->cpus_per_node;
    unsigned sockets = (cpus >= 2 && cpus % 2 == 0) ? 2 : 1;
    bool own = real && shape->isolate_octet;
    char *gres = gres_spec(shape);
    char *addr = own ? isolated_node_addrs(shape) : local_addr(shape);
    char *line;

    line = xasprintf("NodeName=%s NodeAddr=%s NodeHostname=%s "
                     "Port=%s CPUs=%u Sockets=%u CoresPerSocket=%u "
                     "ThreadsPerCore=1 RealMemory=%llu%s State=UNKNOWN\n",
                     nodes, addr, own ? nodes : "localhost", ports, cpus,
                     sockets, cpus / sockets,
                     (unsigned long long)shape->mem_mib, gres);
    free(gres);
    free(addr);
    return line;
}

static unsigned emud_port(const struct drover_shape *shape, unsigned base)
{
    return base + shape->nodes + 3;
}

/* The real nodes' line (their own ports), then the emulated nodes' (one
 * port shared by all: drover-emud finds the node in each request). */
static char *node_line(const struct drover_shape *shape, unsigned base)
{
    char *nodes = node_range(shape->nodes);
    char *ports = port_range(base + 1, shape->nodes);
    char *sim = drover_emulated_range(shape->emulate_nodes);
    char *sim_port = port_range(emud_port(shape, base), 1);
    char *real = shape->nodes ? node_line_of(shape, nodes, ports, true)
                              : xstrdup("");
    char *emu = shape->emulate_nodes
                    ? node_line_of(shape, sim, sim_port, false)
                    : xstrdup("");
    char *line = xasprintf("%s%s%s", real,
                           shape->emulate_nodes
                               ? "# Emulated nodes (drover-emud, "
                                 "docs/emulator.md): one port for all.\n"
                               : "",
                           emu);

    free(nodes);
    free(ports);
    free(sim);
    free(sim_port);
    free(real);
    free(emu);
    return line;
}

static const char slurm_conf_fmt[] =
    "# slurm.conf written by `drover up` for a local cluster in\n"
    "# %1$s\n"
    "# Slurm's own dialect: edit it and run `drover down` and `drover up`\n"
    "# --dir %1$s to apply.\n"
    "ClusterName=drover\n"
    "SlurmctldHost=localhost(127.0.0.1)\n"
    "SlurmctldPort=%2$u\n"
    "SlurmUser=%3$s\n"
    "AuthType=auth/munge\n"
    "AuthInfo=socket=%1$s/" DROVER_MUNGE_SOCKET_REL "\n"
    "StateSaveLocation=%1$s/state\n"
    "SlurmdSpoolDir=%1$s/spool/%%n\n"
    "SlurmctldLogFile=%1$s/" DROVER_CTLD_LOG_REL "\n"
    "SlurmdLogFile=%1$s/log/droverd-%%n.log\n"
    "SlurmctldPidFile=%1$s/" DROVER_CTLD_PID_REL "\n"
    "SlurmdPidFile=%1$s/run/droverd-%%n.pid\n"
    "AccountingStorageType=accounting_storage/slurmdbd\n"
    "AccountingStorageHost=%7$s\n"
    "AccountingStoragePort=%6$u\n"
    "# Tokens for the REST API (scontrol token; droverrestd passes them on).\n"
    "AuthAltTypes=auth/jwt\n"
    "AuthAltParameters=jwt_key=%1$s/" DROVER_JWT_KEY_REL "\n"
    "# Short timeouts: every daemon is on this host.\n"
    "KillWait=5\n"
    "SlurmdTimeout=30\n"
    "MinJobAge=300\n"
    "ReturnToService=1\n"
    "SchedulerType=sched/backfill\n"
    "SelectType=select/cons_tres\n"
    "GresTypes=gpu\n"
    "# Jobs in cgroups, limited as cgroup.conf says (droverd runs them\n"
    "# without, and logs why, where it cannot use the cgroup tree).\n"
    "ProctrackType=proctrack/cgroup\n"
    "TaskPlugin=task/cgroup\n"
    "\n"
    "%4$s"
    "PartitionName=%5$s Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n";

/* Put one "Key=Value" line into the top-level settings of 'text': it
 * replaces the line of the same key (case-insensitive), else goes before
 * the node lines; a PartitionName=/NodeName= line replaces the line of
 * that name anywhere, else goes at the end.  Returns the new text; frees
 * 'text'.
 */
static char *conf_set_line(char *text, const char *line, size_t len)
{
    const char *eq = memchr(line, '=', len);
    size_t klen = eq ? (size_t)(eq - line) : len;
    bool named = eq && ((klen == 13 && !strncasecmp(line, "PartitionName", 13))
                        || (klen == 8 && !strncasecmp(line, "NodeName", 8)));
    char *p = text, *out;

    /* PartitionName= and NodeName= lines replace the line of the same
     * name only: "PartitionName=high ..." adds a partition. */
    if (named)
        klen = strcspn(line, " \t") < len ? strcspn(line, " \t") : len;
    for (; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
        if (strncasecmp(p, line, klen) == 0
            && (named ? (p[klen] == ' ' || p[klen] == '\t'
                         || p[klen] == '\n' || !p[klen])
                      : p[klen] == '='))
            break;
        if (*p == '\n' && !named)
            break; /* the blank line before the nodes */
    }
    if (*p == '\n' || !*p) {
        out = xasprintf("%.*s%.*s\n%s", (int)(p - text), text, (int)len, line,
                        p);
    } else {
        const char *end = strchr(p, '\n');
        out = xasprintf("%.*s%.*s%s", (int)(p - text), text, (int)len, line,
                        end ? end : "");
    }
    free(text);
    return out;
}

/* Apply "Key=Value\n" lines of 'extra' (may be NULL) to 'text'. */
static char *conf_set_lines(char *text, const char *extra)
{
    const char *l, *nl;

    for (l = extra; l && *l; l = nl ? nl + 1 : l + strlen(l)) {
        nl = strchr(l, '\n');
        if ((nl ? (size_t)(nl - l) : strlen(l)) > 0)
            text = conf_set_line(text, l, nl ? (size_t)(nl - l) : strlen(l));
    }
    return text;
}

static unsigned dbd_port(const struct drover_shape *shape, unsigned base)
{
    return base + shape->nodes + 1;
}

static unsigned restd_port(const struct drover_shape *shape, unsigned base)
{
    return base + shape->nodes + 2;
}

/* The SlurmctldHost lines: one controller, or a Raft group of
 * shape->controllers named ctl1.. on 127.0.0.1.. (every 127.x address is
 * this host's) with its port after every other one. */
static char *ctld_lines(const struct drover_shape *shape, unsigned base)
{
    unsigned raft_port = base + shape->nodes + 3
                         + (shape->emulate_nodes ? 1 : 0);
    char *lines, *more;

    if (shape->controllers <= 1)
        return xstrdup("SlurmctldHost=localhost(127.0.0.1)\n");
    lines = xstrdup("");
    for (unsigned i = 1; i <= shape->controllers; i++) {
        if (shape->isolate_octet) /* the bridge is .1 */
            more = xasprintf("%sSlurmctldHost=ctl%u(10.77.%d.%u)\n", lines, i,
                             shape->isolate_octet, i + 1);
        else
            more = xasprintf("%sSlurmctldHost=ctl%u(127.0.0.%u)\n", lines, i,
                             i);
        free(lines);
        lines = more;
    }
    more = xasprintf("%sSlurmctldParameters=drover_raft_port=%u\n", lines,
                     raft_port);
    free(lines);
    return more;
}

/* droverd's Prometheus endpoint on each real node (metrics.h), on
 * 127.0.0.1 and the ports after every other one. */
static char *metrics_line(const struct drover_shape *shape)
{
    if (!shape->nodes)
        return xstrdup("");
    /* --isolate: droverd's loopback is its namespace's own */
    const char *host = shape->isolate_octet ? "0.0.0.0" : "127.0.0.1";

    return xasprintf("# Each droverd's Prometheus endpoint: GET "
                     "http://<its NodeAddr>:<its Port= + %u>/metrics\n"
                     "SlurmdParameters=drover_metrics=%s:+%u\n",
                     metrics_offset(shape), host, metrics_offset(shape));
}

static char *slurm_conf_text(const char *dir, const struct drover_shape *shape,
                             unsigned base, const char *user)
{
    static const char one[] = "SlurmctldHost=localhost(127.0.0.1)\n";
    char *nodes = node_line(shape, base), *ctld = ctld_lines(shape, base);
    char *metrics = metrics_line(shape);
    char *dbd_host = shape->isolate_octet ? local_addr(shape)
                                          : xstrdup("localhost");
    char *text = xasprintf(slurm_conf_fmt, dir, base, user, nodes,
                           shape->partition, dbd_port(shape, base), dbd_host);
    char *at = strstr(text, one);
    char *both = xasprintf("%.*s%s%s%s", (int)(at - text), text, ctld,
                           metrics, at + strlen(one));

    free(text);
    free(nodes);
    free(ctld);
    free(metrics);
    free(dbd_host);
    return conf_set_lines(both, shape->conf_extra);
}

static const char dbd_conf_fmt[] =
    "# slurmdbd.conf written by `drover up` for the local cluster in\n"
    "# %1$s\n"
    "# It may hold a database password: droverdbd refuses it unless it is\n"
    "# mode 0600 and owned by the user droverdbd runs as.\n"
    "DbdHost=localhost\n"
    "DbdAddr=127.0.0.1\n"
    "DbdPort=%2$u\n"
    "SlurmUser=%3$s\n"
    "AuthType=auth/munge\n"
    "AuthInfo=socket=%1$s/" DROVER_MUNGE_SOCKET_REL "\n"
    "AuthAltTypes=auth/jwt\n"
    "AuthAltParameters=jwt_key=%1$s/" DROVER_JWT_KEY_REL "\n"
    "LogFile=%1$s/" DROVER_DBD_LOG_REL "\n"
    "PidFile=%1$s/" DROVER_DBD_PID_REL "\n"
    "DebugLevel=info\n"
    "StorageType=accounting_storage/sqlite\n"
    "StorageLoc=%1$s/state/acct.sqlite\n"
    "PurgeJobAfter=12months\n";

static int write_dbd_conf(const char *dir, const struct drover_shape *shape,
                          unsigned base, const char *user, drv_error_t *error)
{
    char *path = drover_path(dir, DROVER_DBD_CONF_REL);
    char *text = conf_set_lines(xasprintf(dbd_conf_fmt, dir,
                                          dbd_port(shape, base), user),
                                shape->dbd_conf_extra);
    int rc = write_file(path, text, 0600, error);

    free(path);
    free(text);
    return rc;
}

static const char cgroup_conf_text[] =
    "# cgroup.conf written by `drover up`: each job is held to its memory\n"
    "# and its GPUs.  Unprivileged, droverd cannot use the cgroup tree and\n"
    "# runs jobs without (its log says so).\n"
    "CgroupPlugin=autodetect\n"
    "ConstrainRAMSpace=yes\n"
    "ConstrainDevices=yes\n";

static int write_cgroup_conf(const char *dir, const struct drover_shape *shape,
                             drv_error_t *error)
{
    char *path = drover_path(dir, DROVER_CGROUP_CONF_REL);
    char *text = conf_set_lines(xstrdup(cgroup_conf_text),
                                shape->cgroup_conf_extra);
    int rc = write_file(path, text, 0644, error);

    free(path);
    free(text);
    return rc;
}

/* Where droverrestd listens: etc/restd.addr holds "127.0.0.1:PORT". */
static int write_restd_addr(const char *dir, const struct drover_shape *shape,
                            unsigned base, drv_error_t *error)
{
    char *path = drover_path(dir, DROVER_RESTD_ADDR_REL);
    char *text = xasprintf("127.0.0.1:%u\n", restd_port(shape, base));
    int rc = write_file(path, text, 0644, error);

    free(path);
    free(text);
    return rc;
}

static int random_key(const char *path, size_t bytes, drv_error_t *error);

/* The auth/jwt key: 32 random bytes, mode 0400, in the state directory. */
static int write_jwt_key(const char *dir, drv_error_t *error)
{
    char *path = drover_path(dir, DROVER_JWT_KEY_REL);
    int rc = random_key(path, 32, error);

    free(path);
    return rc;
}

static int current_user(char *buf, size_t size, drv_error_t *error)
{
    struct passwd *pw = getpwuid(geteuid());

    if (!pw) {
        errno = ENOENT;
        return errprintf(error, "uid %u has no user name (SlurmUser= needs "
                         "one)", (unsigned)geteuid());
    }
    snprintf(buf, size, "%s", pw->pw_name);
    return 0;
}

static int write_confs(const char *dir, const struct drover_shape *shape,
                       unsigned base, bool files, drv_error_t *error)
{
    char user[256];
    char *path, *text;
    int rc;

    if (current_user(user, sizeof(user), error) < 0)
        return -1;
    path = drover_path(dir, "etc/gres.conf");
    text = gres_conf_text(dir, shape, files);
    rc = write_file(path, text, 0644, error);
    free(path);
    free(text);
    if (rc < 0 || write_dbd_conf(dir, shape, base, user, error) < 0
        || write_cgroup_conf(dir, shape, error) < 0
        || write_restd_addr(dir, shape, base, error) < 0
        || write_jwt_key(dir, error) < 0)
        return -1;
    path = drover_path(dir, DROVER_CONF_REL);
    text = slurm_conf_text(dir, shape, base, user);
    rc = write_file(path, text, 0644, error);
    free(path);
    free(text);
    return rc;
}

/* etc/emulated.nodes: the hostlist drover-emud serves, or no file. */
static int write_emulated(const char *dir, const struct drover_shape *shape,
                          drv_error_t *error)
{
    char *path = drover_path(dir, DROVER_EMULATED_REL);
    char *range, *text;
    int rc;

    if (!shape->emulate_nodes) {
        (void)unlink(path);
        free(path);
        return 0;
    }
    range = drover_emulated_range(shape->emulate_nodes);
    text = xasprintf("%s\n", range);
    rc = write_file(path, text, 0644, error);
    free(range);
    free(text);
    free(path);
    return rc;
}

/* --isolate: a free subnet, kept in etc/isolate.net (drover_isolate.h). */
static int write_isolate(const char *dir, struct drover_shape *shape,
                         drv_error_t *error)
{
    char *path, *text;
    int rc;

    if (!shape->isolate)
        return 0;
    if ((shape->isolate_octet = drover_isolate_pick(dir, error)) < 0)
        return -1;
    path = drover_path(dir, DROVER_ISOLATE_REL);
    text = xasprintf("10.77.%d.0/24\n", shape->isolate_octet);
    rc = write_file(path, text, 0644, error);
    free(path);
    free(text);
    return rc;
}

int drover_cluster_create(const char *dir, const struct drover_shape *given,
                          drv_error_t *error)
{
    struct drover_shape s = *given, *shape = &s;
    unsigned base = 0;
    bool files = false;

    if (shape->isolate && shape->controllers < 2) {
        errno = EINVAL;
        return errprintf(error, "--isolate needs --controllers=2 or more "
                         "(it puts each controller of a Raft group in its "
                         "own network namespace)");
    }
    if (make_layout(dir, error) < 0 || write_isolate(dir, shape, error) < 0
        || make_fake_gpus(dir, shape->gpus_per_node, &files, error) < 0
        || choose_ports(shape, &base, error) < 0)
        return -1;
    if (write_emulated(dir, shape, error) < 0)
        return -1;
    return write_confs(dir, shape, base, files, error);
}

int drover_munge_key(const char *path, drv_error_t *error)
{
    return random_key(path, MUNGE_KEY_BYTES, error);
}

/* 'bytes' random bytes (at most MUNGE_KEY_BYTES) at 'path', mode 0400,
 * unless it exists. */
static int random_key(const char *path, size_t bytes, drv_error_t *error)
{
    unsigned char key[MUNGE_KEY_BYTES];
    int fd;

    if (access(path, F_OK) == 0)
        return 0;
    if (getrandom(key, bytes, 0) != (ssize_t)bytes)
        return errprintf(error, "cannot read random bytes for %s: %s", path,
                         strerror(errno));
    if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400)) < 0)
        return errprintf(error, "cannot create %s: %s", path, strerror(errno));
    if (write(fd, key, bytes) != (ssize_t)bytes || fsync(fd) < 0) {
        errprintf(error, "cannot write %s: %s", path, strerror(errno));
        close(fd);
        (void)unlink(path);
        return -1;
    }
    close(fd);
    return 0;
}
