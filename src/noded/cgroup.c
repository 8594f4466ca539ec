/* SPDX-License-Identifier: Apache-2.0
 *
 * cgroup.c - the cgroups of a node's jobs and steps (cgroup.h), v1 and v2
 *
 * A root is a list of hierarchies, each with its <base> directory: on v1
 * one per mounted controller we use (freezer, pids, memory, cpuset,
 * devices: the first one is the one whose cgroup.procs lists a step's
 * processes), on v2 the one unified tree.  A step keeps, per hierarchy,
 * its job and step directories and the cgroup.procs path that
 * cgroup_step_attach() writes after fork: every path is built at create
 * time, so the child only open()s and write()s.
 *
 * Only the kernel's files are used (v2 devices: through the attach
 * function the daemons give, cgroup_bpf.c, so this file needs no libbpf);
 * nothing here knows droverd, so the
 * step process (droverstepd) links it too, and the unit test runs it on a
 * fake tree (CgroupMountpoint= a temporary directory, and the text of
 * /proc/self/cgroup given to cgroup_root_open_as()).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "conf/conf.h"
#include "noded/cgroup.h"
#include "noded/cgroup_dev.h"

/* Controllers.  v1 uses the first V1_COUNT, in the order a step's
 * processes are looked up: the freezer is Slurm's proctrack hierarchy;
 * pids next.  cpu is enabled on v2 only (as Slurm's cgroup/v2 does). */
enum ctl { CTL_FREEZER, CTL_PIDS, CTL_MEMORY, CTL_CPUSET, CTL_DEVICES,
           CTL_CPU, CTL_COUNT };
#define V1_COUNT (CTL_DEVICES + 1)

static const char *const ctl_names[CTL_COUNT] = {
    "freezer", "pids", "memory", "cpuset", "devices", "cpu",
};

#define KILL_ROUNDS 100         /* SIGKILL: read and kill up to this often */
#define KILL_PAUSE_NS 10000000L /*   10 ms apart: 1 s at most */
#define RMDIR_TRIES 50          /* an ending step may still be exiting */

struct hier {
    enum ctl ctl;               /* v1 controller; v2: CTL_COUNT */
    char *base;                 /* .../drover_<node>_<port> */
    char *parent;               /* the directory <base> is made in */
};

struct cgroup_root {
    int version;                /* 1 or 2 */
    struct hier h[CTL_COUNT];
    size_t n;
    bool v2_ctl[CTL_COUNT];     /* v2: memory, cpu, cpuset, pids enabled */
    cgroup_dev_attach_fn *dev_attach; /* v2 devices (cgroup_bpf.h) */
    bool ram, swap, cores, devices; /* Constrain*, with task/cgroup */
    double allowed_ram, allowed_swap; /* percent */
    uint64_t min_ram_mib;
    char controllers[64];       /* "freezer,pids,memory" (logs) */
    char *mountpoint;           /* v2: the hierarchy's root */
};

struct cgroup_step {
    int version;
    size_t n;
    enum ctl ctl[CTL_COUNT];    /* per hierarchy, as in the root */
    char *job_dir[CTL_COUNT];
    char *dir[CTL_COUNT];
    char *procs[CTL_COUNT];     /* dir/cgroup.procs: attach, signal */
    int mem;                    /* hierarchy with memory files, or -1 */
    char *kill_file;            /* v2: dir/cgroup.kill */
};

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static bool is_dir(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Write 'text' to a kernel file; 'flags' adds O_APPEND or O_TRUNC. */
static int write_at(const char *path, const char *text, int flags,
                    drv_error_t *error)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC | flags);
    size_t len = strlen(text);
    ssize_t n;

    if (fd < 0)
        return errprintf(error, "cannot open %s: %s", path, strerror(errno));
    n = write(fd, text, len);
    if (n != (ssize_t)len) {
        int saved_errno = n < 0 ? errno : EIO;
        close(fd);
        errno = saved_errno;
        return errprintf(error, "cannot write \"%s\" to %s: %s", text, path,
                         strerror(errno));
    }
    if (close(fd) < 0) /* some cgroup files fail only here */
        return errprintf(error, "cannot write \"%s\" to %s: %s", text, path,
                         strerror(errno));
    return 0;
}

static int write_value(const char *dir, const char *file, const char *text,
                       drv_error_t *error)
{
    char *path = xasprintf("%s/%s", dir, file);
    int rc = write_at(path, text, O_TRUNC, error);

    free(path);
    return rc;
}

/* The whole of a small file; NULL with errno.  Caller frees. */
static char *read_text(const char *path)
{
    size_t cap = 4096, len = 0;
    char *buf = xzalloc(cap);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0) {
        free(buf);
        return NULL;
    }
    while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
        len += (size_t)n;
        if (len + 1 == cap)
            buf = xrealloc(buf, cap *= 2);
    }
    if (n < 0) {
        int saved_errno = errno;
        close(fd);
        free(buf);
        errno = saved_errno;
        return NULL;
    }
    close(fd);
    buf[len] = '\0';
    return buf;
}

static char *read_value(const char *dir, const char *file)
{
    char *path = xasprintf("%s/%s", dir, file);
    char *text = read_text(path);

    free(path);
    return text;
}

/* The number after "key " in a "key value" per line file; 0 if none. */
static uint64_t keyed_value(const char *text, const char *key)
{
    size_t n = strlen(key);

    for (const char *l = text; l && *l; l = strchr(l, '\n')) {
        l += *l == '\n';
        if (!strncmp(l, key, n) && l[n] == ' ')
            return strtoull(l + n + 1, NULL, 10);
    }
    return 0;
}

/* Whether the space-separated 'words' has 'word'. */
static bool has_word(const char *words, const char *word)
{
    size_t n = strlen(word);

    for (const char *w = words; w && *w;) {
        size_t len;
        w += strspn(w, " \t\n");
        len = strcspn(w, " \t\n");
        if (len == n && !strncmp(w, word, n))
            return true;
        w += len;
    }
    return false;
}

static int make_dir(const char *path, drv_error_t *error)
{
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return errprintf(error, "cannot create %s: %s", path,
                         strerror(errno));
    return 0;
}

/* A v1 cpuset cgroup starts with no CPUs and no memory nodes, and no
 * process may join it so: give it its parent's where it has none. */
static int copy_cpuset(const char *parent, const char *dir, drv_error_t *error)
{
    static const char *const files[] = { "cpuset.cpus", "cpuset.mems" };
    int rc = 0;

    for (size_t i = 0; i < 2 && rc == 0; i++) {
        char *mine = read_value(dir, files[i]), *theirs;
        if (mine && mine[strspn(mine, " \n")] == '\0'
            && (theirs = read_value(parent, files[i]))) {
            theirs[strcspn(theirs, "\n")] = '\0';
            if (*theirs)
                rc = write_value(dir, files[i], theirs, error);
            free(theirs);
        }
        free(mine);
    }
    return rc;
}

/* Where /proc/self/cgroup ('text') puts us in hierarchy 'name' (v1: a
 * controller of the comma list; v2: NULL, the "0::" line).  Caller
 * frees; "/" when not listed. */
static char *self_path(const char *text, const char *name)
{
    for (const char *l = text; l && *l;) {
        const char *c1 = strchr(l, ':'), *nl = strchr(l, '\n');
        const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        size_t end = nl ? (size_t)(nl - l) : strlen(l);

        if (c2 && (size_t)(c2 - l) < end) {
            const char *list = c1 + 1;
            size_t llen = (size_t)(c2 - list);
            bool match = !name ? llen == 0 : false;
            for (size_t i = 0; name && i < llen;) {
                size_t w = strcspn(list + i, ",:");
                if (w == strlen(name) && !strncmp(list + i, name, w))
                    match = true;
                i += w + 1;
            }
            if (match)
                return xasprintf("%.*s", (int)(end - (size_t)(c2 + 1 - l)),
                                 c2 + 1);
        }
        l += end + (nl ? 1 : 0);
    }
    return xstrdup("/");
}

/* mountpoint + own cgroup; the mount root itself when that is not there
 * (a container that sees its host's paths without a cgroup namespace). */
static char *parent_dir(const char *mnt, const char *self)
{
    char *dir = xasprintf("%s%s", mnt, strcmp(self, "/") ? self : "");

    if (!is_dir(dir)) {
        log_debug("cgroup: %s not found; using %s", dir, mnt);
        free(dir);
        dir = xstrdup(mnt);
    }
    return dir;
}

static int find_hier(const struct cgroup_root *r, enum ctl ctl)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->h[i].ctl == ctl)
            return (int)i;
    return -1;
}

static void add_controller_name(struct cgroup_root *r, const char *name)
{
    size_t len = strlen(r->controllers);

    snprintf(r->controllers + len, sizeof(r->controllers) - len, "%s%s",
             len ? "," : "", name);
}

/* <base> of hierarchy 'h' (made again if someone removed it). */
static int ensure_base(const struct hier *h, drv_error_t *error)
{
    if (make_dir(h->base, error) < 0)
        return -1;
    return h->ctl == CTL_CPUSET ? copy_cpuset(h->parent, h->base, error) : 0;
}

/* Find the v1 hierarchies and name <base> in each; makes nothing. */
static int locate_v1(struct cgroup_root *r, const char *mountpoint,
                     const char *self_text, const char *leaf,
                     drv_error_t *error)
{
    for (int c = 0; c < V1_COUNT; c++) {
        char *mnt = xasprintf("%s/%s", mountpoint, ctl_names[c]);
        char *probe = xasprintf("%s/cgroup.procs", mnt);
        char *self;
        struct hier *h;

        if (!exists(probe)) { /* not mounted */
            free(probe);
            free(mnt);
            continue;
        }
        free(probe);
        self = self_path(self_text, ctl_names[c]);
        h = &r->h[r->n++];
        h->ctl = (enum ctl)c;
        h->parent = parent_dir(mnt, self);
        h->base = xasprintf("%s/%s", h->parent, leaf);
        free(self);
        free(mnt);
    }
    if (r->n == 0) {
        errno = ENOENT;
        return errprintf(error, "no cgroup v1 controller (freezer, pids, "
                         "memory, cpuset, devices) mounted under %s",
                         mountpoint);
    }
    return 0;
}

static int make_v1(struct cgroup_root *r, drv_error_t *error)
{
    for (size_t i = 0; i < r->n; i++) {
        if (ensure_base(&r->h[i], error) < 0)
            return -1;
        add_controller_name(r, ctl_names[r->h[i].ctl]);
    }
    if ((r->ram || r->swap) && find_hier(r, CTL_MEMORY) < 0)
        log_error("cgroup v1: no memory hierarchy: ConstrainRAMSpace is not "
                  "applied");
    if (r->devices && find_hier(r, CTL_DEVICES) < 0)
        log_error("cgroup v1: no devices hierarchy: ConstrainDevices is not "
                  "applied");
    if (r->cores && find_hier(r, CTL_CPUSET) < 0)
        log_error("cgroup v1: no cpuset hierarchy: ConstrainCores is not "
                  "applied");
    return 0;
}

/* Enable controller 'name' for the children of 'dir' (v2).  Returns
 * whether it is. */
static bool enable_v2(const char *dir, const char *name)
{
    char *word = xasprintf("+%s", name);
    char *path = xasprintf("%s/cgroup.subtree_control", dir);
    drv_error_t error = { 0 };
    int rc = write_at(path, word, O_APPEND, &error);

    free(word);
    free(path);
    if (rc < 0)
        log_debug("cgroup: %s", error.text);
    return rc == 0;
}

static const enum ctl v2_wanted[] = { CTL_MEMORY, CTL_CPU, CTL_CPUSET,
                                      CTL_PIDS };
#define V2_WANTED (sizeof(v2_wanted) / sizeof(v2_wanted[0]))

/* Whether cgroup 'dir' holds processes of its own (cgroup.procs not
 * empty); an unreadable file counts as none. */
static bool holds_processes(const char *dir)
{
    char *procs = read_value(dir, "cgroup.procs");
    bool some = procs && procs[strspn(procs, " \n")];

    free(procs);
    return some;
}

/* The cgroup <base> is made in (v2): droverd's own ('self' under 'mnt'),
 * unless it holds processes; then the nearest ancestor that holds none,
 * the mount root at the latest.  A cgroup with processes cannot enable
 * controllers for its children (the kernel's "no internal processes"
 * rule; the root is exempt), and droverd's own holds droverd and often
 * what started it (a shell, a service manager's scope): as Slurm's
 * cgroup/v2 makes slurmstepd.scope outside slurmd's own cgroup.
 * 'skip_own' starts at the parent (droverd gone, `drover down` asks where
 * it was).  Caller frees. */
static char *v2_parent(const char *mnt, const char *self, bool skip_own)
{
    char *dir = parent_dir(mnt, self);
    size_t root_len = strlen(mnt);

    for (bool first = true; strlen(dir) > root_len; first = false) {
        if (!(first && skip_own) && !holds_processes(dir))
            break;
        *strrchr(dir, '/') = '\0';
    }
    return dir;
}

/* Controller 'name' offered to 'dir' (v2): enabled in the subtree_control
 * of each cgroup from the mount root down to dir's parent where it is not
 * yet (one that holds processes refuses; the next level then lacks it). */
static void offer_down_to(const char *mnt, const char *dir, const char *name)
{
    char *level = xstrdup(mnt);
    size_t root_len = strlen(mnt), at = root_len;

    while (dir[at] == '/') {
        char *enabled = read_value(level, "cgroup.subtree_control");
        if (!has_word(enabled, name))
            enable_v2(level, name);
        free(enabled);
        at += 1 + strcspn(dir + at + 1, "/");
        free(level);
        level = xasprintf("%.*s", (int)at, dir);
    }
    free(level);
}

/* The memory, cpu, cpuset and pids controllers for the jobs: the parent must
 * enable them for <base> (before it is made), which enables them for the
 * jobs; ones the parent is not offered are enabled down the tree first.
 * The ones that cannot be (a cgroup on the way holds processes, the
 * kernel lacks one) are logged once here: the jobs are tracked without
 * those limits.  Sets ok[i] for v2_wanted[i] enabled in the parent. */
static void enable_in_parent(const struct hier *h, const char *mnt,
                             bool ok[V2_WANTED])
{
    char *avail = read_value(h->parent, "cgroup.controllers");
    char *enabled = read_value(h->parent, "cgroup.subtree_control");

    for (size_t i = 0; i < V2_WANTED; i++) {
        const char *name = ctl_names[v2_wanted[i]];
        if (!has_word(avail, name)) {
            offer_down_to(mnt, h->parent, name);
            free(avail);
            avail = read_value(h->parent, "cgroup.controllers");
        }
        if (!has_word(avail, name))
            log_error("cgroup v2: the %s controller is not available in %s",
                      name, h->parent);
        else if (!has_word(enabled, name) && !enable_v2(h->parent, name))
            log_error("cgroup v2: cannot enable the %s controller in "
                      "%s/cgroup.subtree_control (a cgroup with processes "
                      "cannot)", name, h->parent);
        else
            ok[i] = true;
    }
    free(avail);
    free(enabled);
}

static void locate_v2(struct cgroup_root *r, const char *mountpoint,
                      const char *self_text, const char *leaf, bool skip_own)
{
    char *self = self_path(self_text, NULL);
    struct hier *h = &r->h[r->n++];

    h->ctl = CTL_COUNT;
    h->parent = v2_parent(mountpoint, self, skip_own);
    h->base = xasprintf("%s/%s", h->parent, leaf);
    r->mountpoint = xstrdup(mountpoint);
    free(self);
}

static int make_v2(struct cgroup_root *r, drv_error_t *error)
{
    struct hier *h = &r->h[0];
    bool ok[V2_WANTED] = { false };

    enable_in_parent(h, r->mountpoint, ok);
    if (ensure_base(h, error) < 0)
        return -1;
    for (size_t i = 0; i < V2_WANTED; i++) {
        if (ok[i] && enable_v2(h->base, ctl_names[v2_wanted[i]])) {
            r->v2_ctl[v2_wanted[i]] = true;
            add_controller_name(r, ctl_names[v2_wanted[i]]);
        }
    }
    if (r->ram && !r->v2_ctl[CTL_MEMORY])
        log_error("cgroup v2: no memory controller: ConstrainRAMSpace is "
                  "not applied");
    if (r->cores && !r->v2_ctl[CTL_CPUSET])
        log_error("cgroup v2: no cpuset controller: ConstrainCores is not "
                  "applied");
    return 0;
}

static void copy_settings(struct cgroup_root *r, const struct slurm_conf *c)
{
    bool task = conf_task_cgroup(c);

    r->ram = task && c->cgroup.constrain_ram_space;
    r->swap = task && c->cgroup.constrain_swap_space;
    r->cores = task && c->cgroup.constrain_cores;
    r->devices = task && c->cgroup.constrain_devices;
    r->allowed_ram = c->cgroup.allowed_ram_space;
    r->allowed_swap = c->cgroup.allowed_swap_space;
    r->min_ram_mib = c->cgroup.min_ram_space_mib;
}

static int pick_version(const struct slurm_conf *conf, const char *mnt)
{
    char *probe;
    int v;

    if (conf->cgroup.plugin == CONF_CGROUP_V1)
        return 1;
    if (conf->cgroup.plugin == CONF_CGROUP_V2)
        return 2;
    probe = xasprintf("%s/cgroup.controllers", mnt);
    v = exists(probe) ? 2 : 1;
    free(probe);
    return v;
}

/* The root of node 'node_name' with its paths named, nothing made. */
static struct cgroup_root *root_locate(const struct slurm_conf *conf,
                                       const char *node_name,
                                       const char *self_cgroup,
                                       bool skip_own, drv_error_t *error)
{
    const struct conf_node *node = conf_node_find(conf, node_name);
    const char *mnt = conf->cgroup.mountpoint ? conf->cgroup.mountpoint
                                              : "/sys/fs/cgroup";
    struct cgroup_root *r;
    char *leaf;
    int rc = 0;

    if (!node) {
        errno = EINVAL;
        return errprintf(error, "cgroup: node %s is not in slurm.conf",
                         node_name ? node_name : "(null)"), NULL;
    }
    r = xzalloc(sizeof(*r));
    copy_settings(r, conf);
    r->version = pick_version(conf, mnt);
    leaf = xasprintf("drover_%s_%u", node->name, (unsigned)node->port);
    if (r->version == 1)
        rc = locate_v1(r, mnt, self_cgroup, leaf, error);
    else
        locate_v2(r, mnt, self_cgroup, leaf, skip_own);
    free(leaf);
    if (rc < 0) {
        cgroup_root_destroy(r);
        return NULL;
    }
    return r;
}

struct cgroup_root *cgroup_root_open_as(const struct slurm_conf *conf,
                                        const char *node_name,
                                        const char *self_cgroup,
                                        drv_error_t *error)
{
    struct cgroup_root *r;

    if (error)
        error->text[0] = '\0';
    if (!conf || !conf_cgroup_in_use(conf)
        || !(r = root_locate(conf, node_name, self_cgroup, false, error)))
        return NULL;
    if ((r->version == 1 ? make_v1(r, error) : make_v2(r, error)) < 0) {
        cgroup_root_destroy(r);
        return NULL;
    }
    return r;
}

int cgroup_node_prune(const struct slurm_conf *conf, const char *node_name,
                      const char *self_cgroup)
{
    int rc = 0;

    if (!conf || !conf_cgroup_in_use(conf))
        return 0;
    /* droverd's own cgroup may be empty now that droverd is gone: its
     * tree is in the first cgroup of the walk that held no processes
     * then, its own or an ancestor (v2_parent()); both are pruned. */
    for (int skip_own = 0; skip_own < 2; skip_own++) {
        struct cgroup_root *r = root_locate(conf, node_name, self_cgroup,
                                            skip_own, NULL);
        if (!r || cgroup_root_prune(r) < 0)
            rc = -1;
        cgroup_root_destroy(r);
    }
    return rc;
}

struct cgroup_root *cgroup_root_open(const struct slurm_conf *conf,
                                     const char *node_name,
                                     drv_error_t *error)
{
    struct cgroup_root *r;
    char *self;

    if (error)
        error->text[0] = '\0';
    if (!conf || !conf_cgroup_in_use(conf))
        return NULL;
    if (!(self = read_text("/proc/self/cgroup"))) {
        errprintf(error, "cannot read /proc/self/cgroup: %s",
                  strerror(errno));
        return NULL;
    }
    r = cgroup_root_open_as(conf, node_name, self, error);
    free(self);
    return r;
}

const char *cgroup_root_version(const struct cgroup_root *root)
{
    return root && root->version == 2 ? "v2" : "v1";
}

const char *cgroup_root_controllers(const struct cgroup_root *root)
{
    return root ? root->controllers : "";
}

bool cgroup_root_isolates_devices(const struct cgroup_root *root)
{
    if (!root || !root->devices)
        return false;
    return root->version == 1 ? find_hier(root, CTL_DEVICES) >= 0
                              : root->dev_attach != NULL;
}

bool cgroup_root_needs_dev_program(const struct cgroup_root *root)
{
    return root && root->version == 2 && root->devices;
}

void cgroup_root_set_dev_attach(struct cgroup_root *root,
                                cgroup_dev_attach_fn *attach)
{
    if (!cgroup_root_needs_dev_program(root))
        return;
    if (!root->dev_attach && attach)
        add_controller_name(root, "devices");
    root->dev_attach = attach;
}

bool cgroup_root_constrains_cores(const struct cgroup_root *root)
{
    if (!root || !root->cores)
        return false;
    return root->version == 1 ? find_hier(root, CTL_CPUSET) >= 0
                              : root->v2_ctl[CTL_CPUSET];
}

const char *cgroup_root_base(const struct cgroup_root *root)
{
    return root && root->n ? root->h[0].base : NULL;
}

void cgroup_root_destroy(struct cgroup_root *root)
{
    if (!root)
        return;
    int saved_errno = errno;
    for (size_t i = 0; i < root->n; i++) {
        free(root->h[i].base);
        free(root->h[i].parent);
    }
    free(root->mountpoint);
    free(root);
    errno = saved_errno;
}

/* Remove what is left of a dead job's tree: its empty step directories,
 * then itself.  Returns whether 'job_dir' went. */
static bool remove_job_tree(const char *job_dir)
{
    DIR *d = opendir(job_dir);
    struct dirent *e;

    while (d && (e = readdir(d))) {
        if (!strncmp(e->d_name, "step_", 5)) {
            char *p = xasprintf("%s/%s", job_dir, e->d_name);
            if (is_dir(p))
                (void)rmdir(p); /* EBUSY: processes still there */
            free(p);
        }
    }
    if (d)
        closedir(d);
    return rmdir(job_dir) == 0;
}

int cgroup_root_sweep(struct cgroup_root *root)
{
    int removed = 0;

    for (size_t i = 0; root && i < root->n; i++) {
        DIR *d = opendir(root->h[i].base);
        struct dirent *e;

        while (d && (e = readdir(d))) {
            char *p;
            if (strncmp(e->d_name, "job_", 4))
                continue;
            p = xasprintf("%s/%s", root->h[i].base, e->d_name);
            if (is_dir(p) && remove_job_tree(p) && i == 0)
                removed++;
            free(p);
        }
        if (d)
            closedir(d);
    }
    return removed;
}

int cgroup_root_prune(struct cgroup_root *root)
{
    int rc = 0;

    cgroup_root_sweep(root);
    for (size_t i = 0; root && i < root->n; i++) {
        if (rmdir(root->h[i].base) < 0 && errno != ENOENT) {
            log_debug("cgroup: cannot remove %s: %s", root->h[i].base,
                      strerror(errno));
            rc = -1;
        }
    }
    return rc;
}

/* Memory limits of one cgroup directory, as task/cgroup sets them: the
 * hard limit at mem * AllowedRAMSpace%, the soft one at the allocation
 * (or the hard one when lower), RAM+swap at mem * (AllowedRAMSpace% +
 * AllowedSwapSpace%); with ConstrainSwapSpace alone, RAM gets the RAM+swap
 * limit (cgroup.conf(5)).  No limit is below MinRAMSpace. */
static uint64_t limit_bytes(const struct cgroup_root *r, uint64_t mib,
                            double percent)
{
    double bytes = (double)mib * 1048576.0 * percent / 100.0;
    uint64_t min = r->min_ram_mib * 1048576;

    return bytes < (double)min ? min : (uint64_t)bytes;
}

static int set_memory(const struct cgroup_root *r, const char *dir,
                      uint64_t mib, drv_error_t *error)
{
    double ram_pct = r->ram ? r->allowed_ram : 100.0;
    uint64_t total = limit_bytes(r, mib, ram_pct + r->allowed_swap);
    uint64_t ram = r->ram ? limit_bytes(r, mib, ram_pct) : total;
    uint64_t soft = mib * 1048576 < ram ? mib * 1048576 : ram;
    char buf[32], *memsw;

    if (!mib || !(r->ram || r->swap))
        return 0;
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)ram);
    if (write_value(dir, r->version == 1 ? "memory.limit_in_bytes"
                                         : "memory.max", buf, error) < 0)
        return -1;
    if (r->version == 2) {
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)(total - ram));
        return r->swap ? write_value(dir, "memory.swap.max", buf, error) : 0;
    }
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)soft);
    if (write_value(dir, "memory.soft_limit_in_bytes", buf, error) < 0)
        return -1;
    if (!r->swap)
        return 0;
    memsw = xasprintf("%s/memory.memsw.limit_in_bytes", dir);
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)total);
    if (exists(memsw)) {
        int rc = write_at(memsw, buf, O_TRUNC, error);
        free(memsw);
        return rc;
    }
    log_debug("cgroup: %s does not exist (no swap accounting): RAM+swap "
              "is not limited", memsw);
    free(memsw);
    return 0;
}

/* The device files 'files' denied in 'dir' (cgroup_dev.h): v1 a
 * devices.deny line each ("c 195:1 rwm"), v2 the eBPF program. */
static int deny_devices(const struct cgroup_root *r, const char *dir,
                        const char *const *files, drv_error_t *error)
{
    struct cgroup_dev_rule *rules;
    size_t n = cgroup_dev_rules(files, &rules);
    char *deny;
    int rc = 0;

    if (r->version == 2) {
        rc = n > 0 ? r->dev_attach(dir, rules, n, error) : 0;
        free(rules);
        return rc;
    }
    deny = xasprintf("%s/devices.deny", dir);
    for (size_t i = 0; i < n && rc == 0; i++) {
        char line[CGROUP_DEV_V1_MAX];
        rc = write_at(deny, cgroup_dev_v1_text(&rules[i], line), O_APPEND,
                      error);
    }
    free(deny);
    free(rules);
    return rc;
}

/* v1 cpuset: the given CPUs with ConstrainCores, else the parent's. */
static int set_cpuset_v1(const struct cgroup_root *r, const char *parent,
                         const char *dir, const struct cgroup_limits *lim,
                         drv_error_t *error)
{
    if (r->cores && lim && lim->cpus && *lim->cpus
        && write_value(dir, "cpuset.cpus", lim->cpus, error) < 0)
        return -1;
    return copy_cpuset(parent, dir, error);
}

/* v2: the job passes its controllers on to its steps; then limits. */
static int set_v2(const struct cgroup_root *r, const char *dir,
                  const struct cgroup_limits *lim, bool job_level,
                  drv_error_t *error)
{
    for (size_t i = 0; job_level && i < V2_WANTED; i++) {
        enum ctl c = v2_wanted[i];
        if (r->v2_ctl[c] && !enable_v2(dir, ctl_names[c]))
            log_error("cgroup v2: cannot enable %s in %s", ctl_names[c],
                      dir);
    }
    if (!lim)
        return 0;
    if (r->v2_ctl[CTL_MEMORY] && set_memory(r, dir, lim->mem_mib, error) < 0)
        return -1;
    if (r->devices && r->dev_attach
        && deny_devices(r, dir, lim->deny_devices, error) < 0)
        return -1;
    if (r->cores && r->v2_ctl[CTL_CPUSET] && lim->cpus && *lim->cpus)
        return write_value(dir, "cpuset.cpus", lim->cpus, error);
    return 0;
}

/* Make 'dir' (a job's or a step's) in hierarchy 'h' under 'parent' and
 * write the limits of its controller. */
static int setup_dir(const struct cgroup_root *r, const struct hier *h,
                     const char *parent, const char *dir,
                     const struct cgroup_limits *lim, bool job_level,
                     drv_error_t *error)
{
    if (make_dir(dir, error) < 0)
        return -1;
    switch (h->ctl) {
    case CTL_MEMORY:
        return lim ? set_memory(r, dir, lim->mem_mib, error) : 0;
    case CTL_CPUSET:
        return set_cpuset_v1(r, parent, dir, lim, error);
    case CTL_DEVICES:
        return lim && r->devices
                   ? deny_devices(r, dir, lim->deny_devices, error)
                   : 0;
    case CTL_COUNT:
        return set_v2(r, dir, lim, job_level, error);
    default:
        return 0;
    }
}

static int rmdir_patiently(const char *path)
{
    struct timespec pause = { 0, KILL_PAUSE_NS };

    for (int i = 0; i < RMDIR_TRIES; i++) {
        if (rmdir(path) == 0 || errno == ENOENT)
            return 0;
        if (errno != EBUSY)
            break;
        nanosleep(&pause, NULL);
    }
    return -1;
}

/* The step's directories, then its job's where no other step is left. */
static void remove_dirs(const struct cgroup_step *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->dir[i] && rmdir_patiently(s->dir[i]) < 0)
            log_error("cgroup: cannot remove %s: %s", s->dir[i],
                      strerror(errno));
    for (size_t i = 0; i < s->n; i++)
        if (s->job_dir[i] && rmdir(s->job_dir[i]) < 0 && errno != ENOENT
            && errno != EBUSY && errno != ENOTEMPTY)
            log_error("cgroup: cannot remove %s: %s", s->job_dir[i],
                      strerror(errno));
}

static void step_free(struct cgroup_step *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->job_dir[i]);
        free(s->dir[i]);
        free(s->procs[i]);
    }
    free(s->kill_file);
    free(s);
}

static int build_step(const struct cgroup_root *r, const struct cgroup_step *s,
                      const struct cgroup_limits *job,
                      const struct cgroup_limits *step_lim,
                      drv_error_t *error)
{
    for (size_t i = 0; i < r->n; i++) {
        const struct hier *h = &r->h[i];
        if (ensure_base(h, error) < 0
            || setup_dir(r, h, h->base, s->job_dir[i], job, true, error) < 0
            || setup_dir(r, h, s->job_dir[i], s->dir[i], step_lim, false,
                         error) < 0)
            return -1;
    }
    return 0;
}

static bool step_name_ok(const char *step)
{
    return step && *step && !strchr(step, '/') && strcmp(step, ".")
           && strcmp(step, "..");
}

struct cgroup_step *cgroup_step_create(struct cgroup_root *root,
                                       uint32_t job_id, const char *step,
                                       const struct cgroup_limits *job,
                                       const struct cgroup_limits *step_lim,
                                       drv_error_t *error)
{
    struct cgroup_step *s;
    int rc;

    if (!root || !step_name_ok(step)) {
        errno = EINVAL;
        return errprintf(error, "cgroup: no root or a bad step name"), NULL;
    }
    s = xzalloc(sizeof(*s));
    s->version = root->version;
    s->n = root->n;
    s->mem = -1;
    for (size_t i = 0; i < root->n; i++) {
        s->ctl[i] = root->h[i].ctl;
        s->job_dir[i] = xasprintf("%s/job_%u", root->h[i].base, job_id);
        s->dir[i] = xasprintf("%s/step_%s", s->job_dir[i], step);
        s->procs[i] = xasprintf("%s/cgroup.procs", s->dir[i]);
        if (s->ctl[i] == CTL_MEMORY
            || (s->ctl[i] == CTL_COUNT && root->v2_ctl[CTL_MEMORY]))
            s->mem = (int)i;
    }
    if (root->version == 2)
        s->kill_file = xasprintf("%s/cgroup.kill", s->dir[0]);
    /* ENOENT: the last step of the job removed the job's directory
     * between our mkdir of it and of the step's (another process). */
    for (int tries = 0; (rc = build_step(root, s, job, step_lim, error)) < 0
                        && errno == ENOENT && tries < 3;
         tries++)
        ;
    if (rc < 0) {
        int saved_errno = errno;
        remove_dirs(s);
        step_free(s);
        errno = saved_errno;
        return NULL;
    }
    return s;
}

int cgroup_step_attach(const struct cgroup_step *s, pid_t pid)
{
    char digits[24], buf[24];
    size_t n = 0, len = 0;

    if (!s) {
        errno = EINVAL;
        return -1;
    }
    if (pid == 0)
        pid = getpid();
    do {
        digits[n++] = (char)('0' + pid % 10);
        pid /= 10;
    } while (pid > 0 && n < sizeof(digits));
    while (n > 0)
        buf[len++] = digits[--n];
    for (size_t i = 0; i < s->n; i++) {
        int fd = open(s->procs[i], O_WRONLY | O_APPEND | O_CLOEXEC);
        ssize_t w;
        if (fd < 0)
            return -1;
        w = write(fd, buf, len);
        if (w != (ssize_t)len) {
            int saved_errno = w < 0 ? errno : EIO;
            close(fd);
            errno = saved_errno;
            return -1;
        }
        if (close(fd) < 0)
            return -1;
    }
    return 0;
}

/* The pids in the step's tracking cgroup, but our own; *count of them.
 * Caller frees. */
/* The pids listed in the cgroup.procs file 'path' (none when it cannot
 * be read), without this process's own. */
static pid_t *read_pids(const char *path, size_t *count)
{
    char *text = read_text(path);
    size_t n = 0, cap = 16;
    pid_t *pids = xzalloc(cap * sizeof(*pids)), self = getpid();

    for (char *p = text; p && *p;) {
        long v = strtol(p, &p, 10);
        if (v > 0 && (pid_t)v != self) {
            if (n == cap)
                pids = xrealloc(pids, (cap *= 2) * sizeof(*pids));
            pids[n++] = (pid_t)v;
        }
        while (*p && !isdigit((unsigned char)*p))
            p++;
    }
    free(text);
    *count = n;
    return pids;
}

static pid_t *step_pids(const struct cgroup_step *s, size_t *count)
{
    return read_pids(s->procs[0], count);
}

int cgroup_job_procs(const struct cgroup_root *root, uint32_t job_id,
                     struct cgroup_step_procs **out, size_t *n)
{
    char *dir, *procs;
    struct dirent *e;
    DIR *d;

    *out = NULL;
    *n = 0;
    if (!root || root->n == 0)
        return 0;
    dir = xasprintf("%s/job_%u", root->h[0].base, job_id);
    if (!(d = opendir(dir))) {
        free(dir);
        return 0;
    }
    while ((e = readdir(d))) {
        struct cgroup_step_procs *sp;
        if (strncmp(e->d_name, "step_", 5) || !step_name_ok(e->d_name + 5))
            continue;
        *out = xrealloc(*out, (*n + 1) * sizeof(**out));
        sp = &(*out)[(*n)++];
        sp->step = xstrdup(e->d_name + 5);
        procs = xasprintf("%s/%s/cgroup.procs", dir, e->d_name);
        sp->pids = read_pids(procs, &sp->npids);
        free(procs);
    }
    closedir(d);
    free(dir);
    return 0;
}

/* The number in file 'file' of 'dir' ("max": none), or 0. */
static uint64_t number_in(const char *dir, const char *file)
{
    char *text = read_value(dir, file);
    uint64_t v = text && isdigit((unsigned char)text[0])
                     ? strtoull(text, NULL, 10) : 0;

    free(text);
    return v;
}

int cgroup_usage_read(const struct cgroup_root *root, uint32_t job_id,
                      const char *step, struct cgroup_usage *u)
{
    int mem = root && root->version == 1 ? find_hier(root, CTL_MEMORY) : 0;
    const char *base;
    char *dir, *text;

    *u = (struct cgroup_usage){0};
    if (!root || root->n == 0 || (step && !step_name_ok(step)))
        return -1;
    base = root->h[mem < 0 ? 0 : mem].base; /* v1 without memory: tracked */
    dir = step ? xasprintf("%s/job_%u/step_%s", base, job_id, step)
               : xasprintf("%s/job_%u", base, job_id);
    if (!is_dir(dir)) {
        free(dir);
        return -1;
    }
    if (root->version == 1 && mem >= 0) {
        u->mem = true;
        u->mem_bytes = number_in(dir, "memory.usage_in_bytes");
        u->mem_peak_bytes = number_in(dir, "memory.max_usage_in_bytes");
        u->mem_limit_bytes = number_in(dir, "memory.limit_in_bytes");
        if (u->mem_limit_bytes >= (1ull << 62)) /* the kernel's "none" */
            u->mem_limit_bytes = 0;
    } else if (root->version == 2) {
        u->mem = root->v2_ctl[CTL_MEMORY];
        u->mem_bytes = number_in(dir, "memory.current");
        u->mem_peak_bytes = number_in(dir, "memory.peak");
        u->mem_limit_bytes = number_in(dir, "memory.max");
        if ((text = read_value(dir, "cpu.stat"))) {
            u->cpu = true;
            u->cpu_us = keyed_value(text, "usage_usec");
            free(text);
        }
    }
    free(dir);
    return 0;
}

void cgroup_step_procs_free(struct cgroup_step_procs *p, size_t n)
{
    for (size_t i = 0; p && i < n; i++) {
        free(p[i].step);
        free(p[i].pids);
    }
    free(p);
}

/* Wait until the step's cgroup is empty; false when it is not in time. */
static bool wait_empty(const struct cgroup_step *s)
{
    struct timespec pause = { 0, KILL_PAUSE_NS };

    for (int i = 0; i < KILL_ROUNDS; i++) {
        if (cgroup_step_empty(s))
            return true;
        nanosleep(&pause, NULL);
    }
    return false;
}

/* v2 cgroup.kill: the kernel kills all of it, forks in flight too. */
static int kill_v2(const struct cgroup_step *s, int *count)
{
    size_t n;
    pid_t *pids = step_pids(s, &n);

    free(pids);
    if (write_at(s->kill_file, "1", 0, NULL) < 0)
        return -1;
    *count = (int)n;
    if (!wait_empty(s))
        log_error("cgroup: %s: processes left after cgroup.kill", s->dir[0]);
    return 0;
}

int cgroup_step_signal(const struct cgroup_step *s, int signo)
{
    struct timespec pause = { 0, KILL_PAUSE_NS };
    int rounds = signo == SIGKILL ? KILL_ROUNDS : 1, count = 0;
    pid_t *done = NULL;
    size_t ndone = 0;

    if (!s)
        return 0;
    if (signo == SIGKILL && s->kill_file && exists(s->kill_file)
        && kill_v2(s, &count) == 0)
        return count;
    /* Read and signal until none is left: a process may fork meanwhile. */
    for (int r = 0; r < rounds; r++) {
        size_t n;
        pid_t *pids = step_pids(s, &n);
        for (size_t i = 0; i < n; i++) {
            size_t k = 0;
            if (kill(pids[i], signo) < 0)
                continue;
            while (k < ndone && done[k] != pids[i])
                k++;
            if (k == ndone) {
                done = xrealloc(done, (ndone + 1) * sizeof(*done));
                done[ndone++] = pids[i];
            }
        }
        free(pids);
        if (n == 0)
            break;
        if (r + 1 < rounds)
            nanosleep(&pause, NULL);
    }
    free(done);
    count = (int)ndone;
    return count;
}

bool cgroup_step_empty(const struct cgroup_step *s)
{
    size_t n = 0;

    if (s)
        free(step_pids(s, &n));
    return n == 0;
}

uint64_t cgroup_step_oom_kills(const struct cgroup_step *s)
{
    char *text;
    uint64_t v;

    if (!s || s->mem < 0)
        return 0;
    text = read_value(s->dir[s->mem], s->version == 1 ? "memory.oom_control"
                                                      : "memory.events");
    v = keyed_value(text, "oom_kill");
    free(text);
    return v;
}

uint64_t cgroup_step_max_rss_kib(const struct cgroup_step *s)
{
    char *text;
    uint64_t v;

    if (!s || s->mem < 0)
        return 0;
    text = read_value(s->dir[s->mem], s->version == 1
                                          ? "memory.max_usage_in_bytes"
                                          : "memory.peak");
    v = text ? strtoull(text, NULL, 10) / 1024 : 0;
    free(text);
    return v;
}

void cgroup_step_destroy(struct cgroup_step *s)
{
    if (!s)
        return;
    int saved_errno = errno;
    cgroup_step_signal(s, SIGKILL);
    remove_dirs(s);
    step_free(s);
    errno = saved_errno;
}

void cgroup_step_release(struct cgroup_step *s)
{
    if (s)
        step_free(s);
}
