/* SPDX-License-Identifier: Apache-2.0
 *
 * test_cgroup.c - src/noded/cgroup.c on a fake cgroup tree (v1 and v2),
 * and on the machine's real v1 tree when it is writable
 *
 * The fake tree is plain files in a temporary directory given as
 * CgroupMountpoint=.  What the kernel does on its own is played by this
 * file: the executable is linked with --wrap=mkdir,--wrap=rmdir, so a
 * mkdir under the fake tree also makes the control files the kernel would
 * (a v2 child gets the controllers its parent enabled), and an rmdir
 * refuses a cgroup with processes or children (EBUSY) and removes the
 * control files with the directory.  Values are checked in the files.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf/conf.h"
#include "noded/cgroup.h"
#include "noded/cgroup_dev.h"

/* --- the fake kernel --------------------------------------------------- */

static char fake[64]; /* the fake tree's root; "" when none */
static bool fake_no_memsw; /* v1 without swap accounting */

int __real_mkdir(const char *path, mode_t mode);
int __real_rmdir(const char *path);
int __wrap_mkdir(const char *path, mode_t mode);
int __wrap_rmdir(const char *path);

struct fake_file {
    const char *ctl;  /* the hierarchy ("memory"; "unified" for v2) */
    const char *name;
    const char *text; /* what the kernel shows at first */
};

static const struct fake_file fake_files[] = {
    { "*", "cgroup.procs", "" },
    { "v1", "tasks", "" },
    { "v1", "notify_on_release", "0\n" },
    { "memory", "memory.limit_in_bytes", "9223372036854771712\n" },
    { "memory", "memory.soft_limit_in_bytes", "9223372036854771712\n" },
    { "memory", "memory.memsw.limit_in_bytes", "9223372036854771712\n" },
    { "memory", "memory.oom_control",
      "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n" },
    { "memory", "memory.max_usage_in_bytes", "0\n" },
    { "cpuset", "cpuset.cpus", "" },
    { "cpuset", "cpuset.mems", "" },
    { "devices", "devices.deny", "" },
    { "devices", "devices.allow", "" },
    { "freezer", "freezer.state", "THAWED\n" },
    { "pids", "pids.max", "max\n" },
    { "unified", "cgroup.controllers", "" },
    { "unified", "cgroup.subtree_control", "" },
    { "unified", "cgroup.kill", "" },
    { "unified", "cgroup.events", "populated 0\nfrozen 0\n" },
    /* v2 files of a controller exist when the parent enabled it. */
    { "+memory", "memory.max", "max\n" },
    { "+memory", "memory.swap.max", "max\n" },
    { "+memory", "memory.events",
      "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n" },
    { "+memory", "memory.peak", "0\n" },
    { "+cpuset", "cpuset.cpus", "" },
    { "+cpuset", "cpuset.mems", "" },
    { "+pids", "pids.max", "max\n" },
};

static char *slurp(const char *path)
{
    static char buf[4096];
    int fd = open(path, O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return n < 0 ? NULL : buf;
}

static void put(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* The hierarchy of 'path' under the fake tree ("memory"), or NULL. */
static const char *fake_ctl(const char *path, char *buf, size_t size)
{
    size_t n = strlen(fake);

    if (!fake[0] || strncmp(path, fake, n) || path[n] != '/')
        return NULL;
    snprintf(buf, size, "%.*s", (int)strcspn(path + n + 1, "/"),
             path + n + 1);
    return buf;
}

/* The v2 controllers a new child of 'dir' gets: its subtree_control
 * ("+memory+pids" as appended), as "memory pids". */
static void child_controllers(const char *dir, char *out, size_t size)
{
    char path[PATH_MAX + 32];
    const char *text;

    snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
    text = slurp(path);
    out[0] = '\0';
    for (const char *w = text; w && *w;) {
        size_t len;
        w += strspn(w, "+ \n");
        len = strcspn(w, "+ \n");
        if (len)
            snprintf(out + strlen(out), size - strlen(out), "%.*s ",
                     (int)len, w);
        w += len;
    }
}

int __wrap_mkdir(const char *path, mode_t mode)
{
    char ctl[64], path2[PATH_MAX], parent[PATH_MAX], have[256] = "";
    bool v2;

    if (__real_mkdir(path, mode) < 0)
        return -1;
    if (!fake_ctl(path, ctl, sizeof(ctl)))
        return 0;
    v2 = !strcmp(ctl, "unified");
    snprintf(parent, sizeof(parent), "%s", path);
    *strrchr(parent, '/') = '\0';
    if (v2 && strcmp(parent, fake))
        child_controllers(parent, have, sizeof(have));
    for (size_t i = 0; i < sizeof(fake_files) / sizeof(fake_files[0]); i++) {
        const struct fake_file *f = &fake_files[i];
        bool want = !strcmp(f->ctl, "*") || !strcmp(f->ctl, ctl)
                    || (!v2 && !strcmp(f->ctl, "v1"))
                    || (v2 && f->ctl[0] == '+' && strstr(have, f->ctl + 1));
        if (!want || (fake_no_memsw && strstr(f->name, "memsw")))
            continue;
        snprintf(path2, sizeof(path2), "%s/%s", path, f->name);
        put(path2, f->text);
    }
    if (v2) {
        snprintf(path2, sizeof(path2), "%s/cgroup.controllers", path);
        put(path2, have);
    }
    return 0;
}

int __wrap_rmdir(const char *path)
{
    char ctl[64], p[PATH_MAX];
    struct dirent *e;
    const char *procs;
    DIR *d;

    if (!fake_ctl(path, ctl, sizeof(ctl)))
        return __real_rmdir(path);
    snprintf(p, sizeof(p), "%s/cgroup.procs", path);
    if ((procs = slurp(p)) && procs[strspn(procs, " \n")]) {
        errno = EBUSY; /* processes in it */
        return -1;
    }
    if (!(d = opendir(path)))
        return -1;
    while ((e = readdir(d))) {
        struct stat st;
        snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
        if (e->d_name[0] != '.' && stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            closedir(d);
            errno = EBUSY; /* a child cgroup */
            return -1;
        }
    }
    rewinddir(d);
    while ((e = readdir(d))) {
        snprintf(p, sizeof(p), "%s/%s", path, e->d_name);
        if (e->d_name[0] != '.')
            unlink(p);
    }
    closedir(d);
    return __real_rmdir(path);
}

/* --- helpers ------------------------------------------------------------ */

static void fake_start(void)
{
    snprintf(fake, sizeof(fake), "/tmp/test_cgroup.XXXXXX");
    assert_non_null(mkdtemp(fake));
    fake_no_memsw = false;
}

static void fake_end(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fake);
    fake[0] = '\0';
    assert_int_equal(system(cmd), 0);
}

/* mkdir fake/<rel> (through the fake kernel). */
static void fake_mkdir(const char *rel)
{
    char path[PATH_MAX];

    snprintf(path, sizeof(path), "%s/%s", fake, rel);
    assert_int_equal(mkdir(path, 0755), 0);
}

static void fake_put(const char *rel, const char *text)
{
    char path[PATH_MAX];

    snprintf(path, sizeof(path), "%s/%s", fake, rel);
    put(path, text);
}

/* The text of fake/<rel>, first line only, or "(none)". */
static const char *fake_get(const char *rel)
{
    char path[PATH_MAX];
    char *text;

    snprintf(path, sizeof(path), "%s/%s", fake, rel);
    if (!(text = slurp(path)))
        return "(none)";
    return text;
}

static bool fake_exists(const char *rel)
{
    char path[PATH_MAX];

    snprintf(path, sizeof(path), "%s/%s", fake, rel);
    return access(path, F_OK) == 0;
}

/* A v1 fake: every controller at the root, memory nested in /sub/x. */
static const char v1_self[] = "11:devices:/\n10:memory:/sub/x\n9:pids:/\n"
                              "8:freezer:/\n7:cpuset:/\n6:cpu,cpuacct:/\n"
                              "0::/\n";

static void fake_v1_tree(void)
{
    static const char *const dirs[] = {
        "freezer", "pids", "memory", "memory/sub", "memory/sub/x",
        "cpuset", "devices",
    };

    fake_start();
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
        fake_mkdir(dirs[i]);
    fake_put("cpuset/cpuset.cpus", "0-3\n");
    fake_put("cpuset/cpuset.mems", "0\n");
}

/* slurm.conf with node n1 on port 7001 and 'extra' lines; cgroup.conf
 * settings are set in the struct by the caller. */
static struct slurm_conf *make_conf(const char *extra)
{
    char text[512];
    drv_error_t error = { 0 };
    struct slurm_conf *conf;

    snprintf(text, sizeof(text), "NodeName=n1 Port=7001\n%s", extra);
    conf = conf_parse("/nonexistent/slurm.conf", text, "", &error);
    if (!conf)
        fail_msg("conf_parse: %s", error.text);
    return conf;
}

static void set_mountpoint(struct slurm_conf *conf, const char *path)
{
    free(conf->cgroup.mountpoint);
    conf->cgroup.mountpoint = strdup(path);
}

static struct slurm_conf *constrained_conf(enum conf_cgroup_plugin plugin,
                                           const char *mnt)
{
    struct slurm_conf *conf = make_conf("TaskPlugin=task/cgroup\n");

    conf->cgroup.plugin = plugin;
    conf->cgroup.constrain_ram_space = true;
    conf->cgroup.constrain_swap_space = true;
    conf->cgroup.constrain_devices = true;
    conf->cgroup.constrain_cores = true;
    conf->cgroup.allowed_swap_space = 10;
    set_mountpoint(conf, mnt);
    return conf;
}

static struct cgroup_root *open_ok(struct slurm_conf *conf, const char *self)
{
    drv_error_t error = { 0 };
    struct cgroup_root *root = cgroup_root_open_as(conf, "n1", self, &error);

    if (!root)
        fail_msg("cgroup_root_open_as: %s", error.text);
    return root;
}

static struct cgroup_step *create_ok(struct cgroup_root *root, uint32_t job,
                                     const char *step,
                                     const struct cgroup_limits *jl,
                                     const struct cgroup_limits *sl)
{
    drv_error_t error = { 0 };
    struct cgroup_step *s = cgroup_step_create(root, job, step, jl, sl,
                                               &error);

    if (!s)
        fail_msg("cgroup_step_create: %s", error.text);
    return s;
}

#define MIB(n) ((unsigned long long)(n) * 1048576)

static void assert_file(const char *rel, const char *want)
{
    const char *got = fake_get(rel);

    if (strcmp(got, want))
        fail_msg("%s: \"%s\", expected \"%s\"", rel, got, want);
}

static void assert_bytes(const char *rel, unsigned long long want)
{
    char buf[32];

    snprintf(buf, sizeof(buf), "%llu", want);
    assert_file(rel, buf);
}

/* The v1 step directories of job 7, hierarchy by hierarchy. */
static const char *const v1_bases[] = {
    "freezer/drover_n1_7001", "pids/drover_n1_7001",
    "memory/sub/x/drover_n1_7001", "cpuset/drover_n1_7001",
    "devices/drover_n1_7001",
};
#define NBASES (sizeof(v1_bases) / sizeof(v1_bases[0]))

static const char *const deny_null[] = { "/dev/null", NULL };

/* --- v1 ------------------------------------------------------------------ */

static void v1_root_is_made_beside_our_own_cgroup(void **state)
{
    (void)state;
    struct slurm_conf *conf;
    struct cgroup_root *root;

    fake_v1_tree();
    conf = constrained_conf(CONF_CGROUP_AUTODETECT, fake);
    root = open_ok(conf, v1_self);
    assert_string_equal(cgroup_root_version(root), "v1");
    assert_string_equal(cgroup_root_controllers(root),
                        "freezer,pids,memory,cpuset,devices");
    for (size_t i = 0; i < NBASES; i++)
        assert_true(fake_exists(v1_bases[i]));
    assert_false(fake_exists("memory/drover_n1_7001"));
    /* A cpuset cgroup needs CPUs and memory nodes before a task joins. */
    assert_file("cpuset/drover_n1_7001/cpuset.cpus", "0-3");
    assert_file("cpuset/drover_n1_7001/cpuset.mems", "0");
    cgroup_root_destroy(root);
    conf_destroy(conf);
    fake_end();
}

static void v1_step_gets_limits_and_its_tasks(void **state)
{
    (void)state;
    struct cgroup_limits job = { .mem_mib = 100, .cpus = "0-1",
                                 .deny_devices = deny_null };
    struct cgroup_limits step = { .mem_mib = 40, .cpus = "1" };
    struct slurm_conf *conf;
    struct cgroup_root *root;
    struct cgroup_step *s;
    char rel[256];

    fake_v1_tree();
    conf = constrained_conf(CONF_CGROUP_V1, fake);
    root = open_ok(conf, v1_self);
    s = create_ok(root, 7, "0", &job, &step);

    /* Memory: hard = soft = the job's memory; RAM+swap 110 %. */
    assert_bytes("memory/sub/x/drover_n1_7001/job_7/memory.limit_in_bytes",
                 MIB(100));
    assert_bytes("memory/sub/x/drover_n1_7001/job_7/"
                 "memory.soft_limit_in_bytes", MIB(100));
    assert_bytes("memory/sub/x/drover_n1_7001/job_7/"
                 "memory.memsw.limit_in_bytes", MIB(110));
    assert_bytes("memory/sub/x/drover_n1_7001/job_7/step_0/"
                 "memory.limit_in_bytes", MIB(40));
    assert_bytes("memory/sub/x/drover_n1_7001/job_7/step_0/"
                 "memory.memsw.limit_in_bytes", MIB(44));
    /* Devices: /dev/null is c 1:3. */
    assert_file("devices/drover_n1_7001/job_7/devices.deny", "c 1:3 rwm");
    assert_file("devices/drover_n1_7001/job_7/step_0/devices.deny", "");
    /* CPUs: ConstrainCores with a list; memory nodes from the parent. */
    assert_file("cpuset/drover_n1_7001/job_7/cpuset.cpus", "0-1");
    assert_file("cpuset/drover_n1_7001/job_7/cpuset.mems", "0");
    assert_file("cpuset/drover_n1_7001/job_7/step_0/cpuset.cpus", "1");

    assert_int_equal(cgroup_step_attach(s, 4242), 0);
    for (size_t i = 0; i < NBASES; i++) {
        snprintf(rel, sizeof(rel), "%s/job_7/step_0/cgroup.procs",
                 v1_bases[i]);
        assert_file(rel, "4242");
    }
    fake_put("freezer/drover_n1_7001/job_7/step_0/cgroup.procs", "");
    for (size_t i = 0; i < NBASES; i++) {
        snprintf(rel, sizeof(rel), "%s/job_7/step_0/cgroup.procs",
                 v1_bases[i]);
        fake_put(rel, "");
    }
    cgroup_step_destroy(s);
    for (size_t i = 0; i < NBASES; i++) {
        snprintf(rel, sizeof(rel), "%s/job_7", v1_bases[i]);
        assert_false(fake_exists(rel));
        assert_true(fake_exists(v1_bases[i]));
    }
    cgroup_root_destroy(root);
    conf_destroy(conf);
    fake_end();
}

static void v1_job_stays_while_another_step_runs(void **state)
{
    (void)state;
    struct cgroup_limits job = { .mem_mib = 100 };
    struct slurm_conf *conf;
    struct cgroup_root *root;
    struct cgroup_step *batch, *step;

    fake_v1_tree();
    conf = constrained_conf(CONF_CGROUP_V1, fake);
    root = open_ok(conf, v1_self);
    batch = create_ok(root, 8, "batch", &job, NULL);
    step = create_ok(root, 8, "0", &job, NULL);
    /* A step without limits of its own: only the job's apply. */
    assert_file("memory/sub/x/drover_n1_7001/job_8/step_0/"
                "memory.limit_in_bytes", "9223372036854771712\n");
    cgroup_step_destroy(step);
    assert_false(fake_exists("pids/drover_n1_7001/job_8/step_0"));
    assert_true(fake_exists("pids/drover_n1_7001/job_8/step_batch"));
    cgroup_step_destroy(batch);
    assert_false(fake_exists("pids/drover_n1_7001/job_8"));
    assert_false(fake_exists("memory/sub/x/drover_n1_7001/job_8"));
    cgroup_root_destroy(root);
    conf_destroy(conf);
    fake_end();
}

static void v1_min_ram_and_allowed_ram(void **state)
{
    (void)state;
    struct cgroup_limits job = { .mem_mib = 40 };
    struct cgroup_limits step = { .mem_mib = 200 };
    struct slurm_conf *conf;
    struct cgroup_root *root;
    struct cgroup_step *s;

    fake_v1_tree();
    fake_no_memsw = true; /* no swap accounting: memsw is skipped */
    conf = constrained_conf(CONF_CGROUP_V1, fake);
    conf->cgroup.allowed_ram_space = 50;
    conf->cgroup.min_ram_space_mib = 30;
    root = open_ok(conf, v1_self);
    s = create_ok(root, 9, "batch", &job, &step);
    /* 40 MiB at 50 % is 20 MiB: raised to MinRAMSpace; soft = hard. */
    assert_bytes("memory/sub/x/drover_n1_7001/job_9/memory.limit_in_bytes",
                 MIB(30));
    assert_bytes("memory/sub/x/drover_n1_7001/job_9/"
                 "memory.soft_limit_in_bytes", MIB(30));
    assert_bytes("memory/sub/x/drover_n1_7001/job_9/step_batch/"
                 "memory.limit_in_bytes", MIB(100));
    assert_false(fake_exists("memory/sub/x/drover_n1_7001/job_9/"
                             "memory.memsw.limit_in_bytes"));
    cgroup_step_destroy(s);
    cgroup_root_destroy(root);
    conf_destroy(conf);
    fake_end();
}

static void v1_swap_alone_limits_ram_to_ram_plus_swap(void **state)
{
    (void)state;
    struct cgroup_limits job = { .mem_mib = 100 };
    struct slurm_conf *conf;
    struct cgroup_root *root;
    struct cgroup_step *s;

    fake_v1_tree();
    conf = constrained_conf(CONF_CGROUP_V1, fake);
    conf->cgroup.constrain_ram_space = false;
    conf->cgroup.allowed_ram_space = 50; /* not used without RAM */
    root = open_ok(conf, v1_self);
    s = create_ok(root, 10, "batch", &job, NULL);
    assert_bytes("memory/sub/x/drover_n1_7001/job_10/memory.limit_in_bytes",
                 MIB(110));
    assert_bytes("memory/sub/x/drover_n1_7001/job_10/"
                 "memory.memsw.limit_in_bytes", MIB(110));
    cgroup_step_destroy(s);
    cgroup_root_destroy(root);
    conf_destroy(conf);
    fake_end();
}

static void v1_limits_need_task_cgroup(void **state)
{
    (void)state;
    struct cgroup_limits job = { .mem_mib = 100, .cpus = "0",
                                 .deny_devices = deny_null };
    struct slurm_conf *conf;
    struct cgroup_root *root;
    struct cgroup_step *s;

    fake_v1_tree();
    conf = make_conf(""); /* proctrack/cgroup, task/none */
    conf->cgroup.constrain_ram_space = true;
    conf->cgroup.constrain_devices = true;
    conf->cgroup.constrain_cores = true;
    set_mountpoint(conf, fake);
    root = open_ok(conf, v1_self);
    s = create_ok(root, 11, "batch", &job, NULL);
    assert_file("memory/sub/x/drover_n1_7001/job_11/memory.limit_in_bytes",
                "9223372036854771712\n");
    assert_file("devices/drover_n1_7001/job_11/devices.deny", "");
    assert_file("cpuset/drover_n1_7001/job_11/cpuset.cpus", "0-3");
    assert_int_equal(cgroup_step_attach(s, 77), 0);
    assert_file("pids/drover_n1_7001/job_11/step_batch/cgroup.procs", "77");
    for (size_t i = 0; i < NBASES; i++) {
        char rel[256];
        snprintf(rel, sizeof(rel), "%s/job_11/step_batch/cgroup.procs",
                 v1_bases[i]);
        fake_put(rel, "");
    }
    cgroup_step_destroy(s);
    cgroup_root_destroy(root);
    conf_destroy(conf);
    fake_end();
}

static pid_t spawn_sleeper(void)
{
    pid_t pid = fork();

    assert_true(pid >= 0);
    if (pid == 0) {
        for (;;)
            pause();
    }
    return pid;
}

static void v1_signal_reaches_every_listed_process(void **state)
{
    (void)state;
    struct slurm_conf *conf;
    struct cgroup_root *root;
    struct cgroup_step *s;
    pid_t a, b;
    char pids[64];
    int status;

    fake_v1_tree();
    conf = constrained_conf(CONF_CGROUP_V1, fake);
    root = open_ok(conf, v1_self);
    s = create_ok(root, 12, "batch", NULL, NULL);
    assert_true(cgroup_step_empty(s));
    a = spawn_sleeper();
    b = spawn_sleeper();
    /* The freezer hierarchy is the one that lists a step's processes. */
    snprintf(pids, sizeof(pids), "%d\n%d\n", (int)a, (int)b);
    fake_put("freezer/drover_n1_7001/job_12/step_batch/cgroup.procs", pids);
    assert_false(cgroup_step_empty(s));
    assert_int_equal(cgroup_step_signal(s, SIGTERM), 2);
    assert_int_equal(waitpid(a, &status, 0), a);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    assert_int_equal(waitpid(b, &status, 0), b);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    fake_put("freezer/drover_n1_7001/job_12/step_batch/cgroup.procs", "");
    assert_true(cgroup_step_empty(s));
    assert_int_equal(cgroup_step_signal(s, SIGTERM), 0);
    cgroup_step_destroy(s);
    cgroup_root_destroy(root);
    conf_destroy(conf);
    fake_end();
}

static void v1_oom_kills_and_max_rss(void **state)
{
    (void)state;
    struct slurm_conf *conf;
    struct cgroup_root *root;
    struct cgroup_step *s;

    fake_v1_tree();
    conf = constrained_conf(CONF_CGROUP_V1, fake);
    root = open_ok(conf, v1_self);
    s = create_ok(root, 13, "batch", NULL, NULL);
    assert_int_equal(cgroup_step_oom_kills(s), 0);
    fake_put("memory/sub/x/drover_n1_7001/job_13/step_batch/"
             "memory.oom_control",
             "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
    fake_put("memory/sub/x/drover_n1_7001/job_13/step_batch/"
             "memory.max_usage_in_bytes", "52428800\n");
    assert_int_equal(cgroup_step_oom_kills(s), 3);
    assert_int_equal(cgroup_step_max_rss_kib(s), 51200);
    cgroup_step_destroy(s);
    cgroup_root_destroy(root);
    conf_destroy(conf);
    fake_end();
}

static void sweep_and_prune_keep_jobs_with_processes(void **state)
{
    (void)state;
    struct slurm_conf *conf;
    struct cgroup_root *root;
    char rel[256];

    fake_v1_tree();
    conf = constrained_conf(CONF_CGROUP_V1, fake);
    root = open_ok(conf, v1_self);
    /* Left by a previous run: job 5 ended, job 6 still runs. */
    for (size_t i = 0; i < NBASES; i++) {
        snprintf(rel, sizeof(rel), "%s/job_5", v1_bases[i]);
        fake_mkdir(rel);
        snprintf(rel, sizeof(rel), "%s/job_5/step_batch", v1_bases[i]);
        fake_mkdir(rel);
        snprintf(rel, sizeof(rel), "%s/job_6", v1_bases[i]);
        fake_mkdir(rel);
        snprintf(rel, sizeof(rel), "%s/job_6/step_0", v1_bases[i]);
        fake_mkdir(rel);
        snprintf(rel, sizeof(rel), "%s/job_6/step_0/cgroup.procs",
                 v1_bases[i]);
        fake_put(rel, "12345\n");
    }
    assert_int_equal(cgroup_root_sweep(root), 1);
    assert_false(fake_exists("memory/sub/x/drover_n1_7001/job_5"));
    assert_true(fake_exists("memory/sub/x/drover_n1_7001/job_6/step_0"));
    assert_int_equal(cgroup_root_prune(root), -1);
    assert_true(fake_exists("pids/drover_n1_7001"));
    for (size_t i = 0; i < NBASES; i++) {
        snprintf(rel, sizeof(rel), "%s/job_6/step_0/cgroup.procs",
                 v1_bases[i]);
        fake_put(rel, "");
    }
    assert_int_equal(cgroup_root_prune(root), 0);
    for (size_t i = 0; i < NBASES; i++)
        assert_false(fake_exists(v1_bases[i]));
    cgroup_root_destroy(root);
    conf_destroy(conf);
    fake_end();
}

static void node_prune_removes_a_stopped_daemons_tree(void **state)
{
    (void)state;
    struct slurm_conf *conf;
    struct cgroup_root *root;
    struct cgroup_step *s;

    fake_v1_tree();
    conf = constrained_conf(CONF_CGROUP_V1, fake);
    /* Nothing there: nothing is made. */
    assert_int_equal(cgroup_node_prune(conf, "n1", v1_self), 0);
    assert_false(fake_exists("pids/drover_n1_7001"));
    /* A daemon stopped while job 4 ran; the job has ended since. */
    root = open_ok(conf, v1_self);
    s = create_ok(root, 4, "batch", NULL, NULL);
    cgroup_step_release(s);
    cgroup_root_destroy(root);
    assert_true(fake_exists("pids/drover_n1_7001/job_4/step_batch"));
    assert_int_equal(cgroup_node_prune(conf, "n1", v1_self), 0);
    for (size_t i = 0; i < NBASES; i++)
        assert_false(fake_exists(v1_bases[i]));
    conf_destroy(conf);
    fake_end();
}

static void bad_step_names_are_refused(void **state)
{
    (void)state;
    static const char *const bad[] = { "", "a/b", ".", ".." };
    struct slurm_conf *conf;
    struct cgroup_root *root;
    drv_error_t error = { 0 };

    fake_v1_tree();
    conf = constrained_conf(CONF_CGROUP_V1, fake);
    root = open_ok(conf, v1_self);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        errno = 0;
        assert_null(cgroup_step_create(root, 1, bad[i], NULL, NULL, &error));
        assert_int_equal(errno, EINVAL);
    }
    cgroup_root_destroy(root);
    conf_destroy(conf);
    fake_end();
}

/* --- v2 ------------------------------------------------------------------ */

/* A v2 fake: the root offers cpuset, memory and pids to /svc, where the
 * daemon runs. */
static void fake_v2_tree(const char *root_offers)
{
    fake_start();
    fake_mkdir("unified");
    fake_put("unified/cgroup.controllers", "cpuset cpu io memory pids\n");
    fake_put("unified/cgroup.subtree_control", root_offers);
    fake_mkdir("unified/svc");
}

/* The eBPF attach (cgroup_bpf.c, tested in test_cgroup_bpf) as the
 * daemons give it: here each call is written down, "dir: c 1:3\n". */
static char attached[PATH_MAX + 256];

static int record_attach(const char *dir, const struct cgroup_dev_rule *r,
                         size_t n, drv_error_t *error)
{
    (void)error;
    for (size_t i = 0; i < n; i++)
        snprintf(attached + strlen(attached),
                 sizeof(attached) - strlen(attached), "%s: %c %u:%u\n", dir,
                 r[i].type, r[i].major, r[i].minor);
    return 0;
}

static void v2_enables_controllers_and_limits(void **state)
{
    (void)state;
    struct cgroup_limits job = { .mem_mib = 100, .cpus = "0-1",
                                 .deny_devices = deny_null };
    struct cgroup_limits step = { .mem_mib = 50 };
    struct slurm_conf *conf;
    struct cgroup_root *root;
    struct cgroup_step *s;
    char mnt[128], want[PATH_MAX + 64];

    fake_v2_tree("+cpuset +cpu +memory +pids");
    snprintf(mnt, sizeof(mnt), "%s/unified", fake);
    conf = constrained_conf(CONF_CGROUP_AUTODETECT, mnt);
    root = open_ok(conf, "0::/svc\n");
    assert_string_equal(cgroup_root_version(root), "v2");
    assert_string_equal(cgroup_root_controllers(root),
                        "memory,cpu,cpuset,pids");
    /* each level enables all four */
    assert_file("unified/svc/cgroup.subtree_control",
                "+memory+cpu+cpuset+pids");
    assert_file("unified/svc/drover_n1_7001/cgroup.subtree_control",
                "+memory+cpu+cpuset+pids");
    /* devices: once the daemon gives the eBPF attach */
    assert_true(cgroup_root_needs_dev_program(root));
    assert_false(cgroup_root_isolates_devices(root));
    cgroup_root_set_dev_attach(root, record_attach);
    assert_true(cgroup_root_isolates_devices(root));
    assert_true(cgroup_root_constrains_cores(root));
    assert_string_equal(cgroup_root_controllers(root),
                        "memory,cpu,cpuset,pids,devices");

    attached[0] = '\0';
    s = create_ok(root, 7, "batch", &job, &step);
    assert_file("unified/svc/drover_n1_7001/job_7/cgroup.subtree_control",
                "+memory+cpu+cpuset+pids");
    /* the job's rule on the job's directory; the step denies nothing */
    snprintf(want, sizeof(want), "%s/unified/svc/drover_n1_7001/job_7: "
             "c 1:3\n", fake);
    assert_string_equal(attached, want);
    assert_bytes("unified/svc/drover_n1_7001/job_7/memory.max", MIB(100));
    assert_bytes("unified/svc/drover_n1_7001/job_7/memory.swap.max",
                 MIB(10));
    assert_file("unified/svc/drover_n1_7001/job_7/cpuset.cpus", "0-1");
    assert_bytes("unified/svc/drover_n1_7001/job_7/step_batch/memory.max",
                 MIB(50));
    assert_bytes("unified/svc/drover_n1_7001/job_7/step_batch/"
                 "memory.swap.max", MIB(5));
    assert_int_equal(cgroup_step_attach(s, 4243), 0);
    assert_file("unified/svc/drover_n1_7001/job_7/step_batch/cgroup.procs",
                "4243");
    fake_put("unified/svc/drover_n1_7001/job_7/step_batch/cgroup.procs", "");

    fake_put("unified/svc/drover_n1_7001/job_7/step_batch/memory.events",
             "low 0\nhigh 0\nmax 4\noom 2\noom_kill 2\n");
    fake_put("unified/svc/drover_n1_7001/job_7/step_batch/memory.peak",
             "1048576\n");
    assert_int_equal(cgroup_step_oom_kills(s), 2);
    assert_int_equal(cgroup_step_max_rss_kib(s), 1024);

    /* SIGKILL goes through cgroup.kill. */
    assert_int_equal(cgroup_step_signal(s, SIGKILL), 0);
    assert_file("unified/svc/drover_n1_7001/job_7/step_batch/cgroup.kill",
                "1");
    cgroup_step_destroy(s);
    assert_false(fake_exists("unified/svc/drover_n1_7001/job_7"));
    assert_int_equal(cgroup_root_prune(root), 0);
    assert_false(fake_exists("unified/svc/drover_n1_7001"));
    cgroup_root_destroy(root);
    conf_destroy(conf);
    fake_end();
}

static void v2_without_memory_tracks_only(void **state)
{
    (void)state;
    struct cgroup_limits job = { .mem_mib = 100 };
    struct slurm_conf *conf;
    struct cgroup_root *root;
    struct cgroup_step *s;
    char mnt[128];

    fake_v2_tree("+pids"); /* memory not offered to /svc */
    snprintf(mnt, sizeof(mnt), "%s/unified", fake);
    conf = constrained_conf(CONF_CGROUP_V2, mnt);
    root = open_ok(conf, "0::/svc\n");
    assert_string_equal(cgroup_root_controllers(root), "pids");
    s = create_ok(root, 3, "batch", &job, NULL);
    assert_false(fake_exists("unified/svc/drover_n1_7001/job_3/memory.max"));
    assert_int_equal(cgroup_step_oom_kills(s), 0);
    assert_int_equal(cgroup_step_attach(s, 99), 0);
    assert_file("unified/svc/drover_n1_7001/job_3/step_batch/cgroup.procs",
                "99");
    fake_put("unified/svc/drover_n1_7001/job_3/step_batch/cgroup.procs", "");
    cgroup_step_destroy(s);
    cgroup_root_destroy(root);
    conf_destroy(conf);
    fake_end();
}

/* droverd's own cgroup holds processes (droverd, the shell that started
 * it): it cannot enable controllers for children, so <base> goes to the
 * nearest ancestor that holds none (here the root, which offers them
 * first); `drover down`'s prune finds it there once droverd is gone. */
static void v2_base_leaves_a_cgroup_with_processes(void **state)
{
    (void)state;
    struct slurm_conf *conf;
    struct cgroup_root *root;
    char mnt[128];

    fake_v2_tree("");
    fake_put("unified/svc/cgroup.procs", "42\n43\n");
    snprintf(mnt, sizeof(mnt), "%s/unified", fake);
    conf = constrained_conf(CONF_CGROUP_V2, mnt);
    root = open_ok(conf, "0::/svc\n");
    assert_string_equal(cgroup_root_controllers(root),
                        "memory,cpu,cpuset,pids");
    assert_file("unified/cgroup.subtree_control", "+memory+cpu+cpuset+pids");
    assert_file("unified/drover_n1_7001/cgroup.subtree_control",
                "+memory+cpu+cpuset+pids");
    assert_false(fake_exists("unified/svc/drover_n1_7001"));
    cgroup_root_destroy(root);

    fake_put("unified/svc/cgroup.procs", ""); /* droverd stopped */
    assert_int_equal(cgroup_node_prune(conf, "n1", "0::/svc\n"), 0);
    assert_false(fake_exists("unified/drover_n1_7001"));
    conf_destroy(conf);
    fake_end();
}

/* cgroup_usage_read(): the memory figures of a job's and a step's cgroup
 * (v1 files; the kernel's huge "no limit" is 0), v2's with cpu.stat;
 * a missing cgroup or a bad step name is -1. */
static void usage_read_v1_and_v2(void **state)
{
    (void)state;
    struct cgroup_limits job = { .mem_mib = 100 };
    struct cgroup_usage u;
    struct slurm_conf *conf;
    struct cgroup_root *root;
    struct cgroup_step *s;
    char mnt[128];

    fake_v1_tree();
    conf = constrained_conf(CONF_CGROUP_V1, fake);
    root = open_ok(conf, v1_self);
    s = create_ok(root, 13, "batch", &job, NULL);
    fake_put("memory/sub/x/drover_n1_7001/job_13/memory.usage_in_bytes",
             "3000\n");
    fake_put("memory/sub/x/drover_n1_7001/job_13/memory.max_usage_in_bytes",
             "4000\n");
    assert_int_equal(cgroup_usage_read(root, 13, NULL, &u), 0);
    assert_true(u.mem);
    assert_false(u.cpu);
    assert_int_equal(u.mem_bytes, 3000);
    assert_int_equal(u.mem_peak_bytes, 4000);
    assert_int_equal(u.mem_limit_bytes,
                     strtoull(fake_get("memory/sub/x/drover_n1_7001/job_13/"
                                       "memory.limit_in_bytes"), NULL, 10));
    assert_true(u.mem_limit_bytes >= MIB(100));
    assert_int_equal(cgroup_usage_read(root, 13, "batch", &u), 0);
    assert_int_equal(u.mem_limit_bytes, 0); /* 9223372036854771712 */
    assert_int_equal(cgroup_usage_read(root, 14, NULL, &u), -1);
    assert_int_equal(cgroup_usage_read(root, 13, "..", &u), -1);
    assert_int_equal(cgroup_usage_read(NULL, 13, NULL, &u), -1);
    cgroup_step_destroy(s);
    cgroup_root_destroy(root);
    conf_destroy(conf);
    fake_end();

    fake_v2_tree("+cpuset +cpu +memory +pids");
    snprintf(mnt, sizeof(mnt), "%s/unified", fake);
    conf = constrained_conf(CONF_CGROUP_AUTODETECT, mnt);
    root = open_ok(conf, "0::/svc\n");
    s = create_ok(root, 7, "batch", &job, NULL);
    fake_put("unified/svc/drover_n1_7001/job_7/step_batch/memory.current",
             "5000\n");
    fake_put("unified/svc/drover_n1_7001/job_7/step_batch/memory.peak",
             "6000\n");
    fake_put("unified/svc/drover_n1_7001/job_7/step_batch/cpu.stat",
             "usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n");
    assert_int_equal(cgroup_usage_read(root, 7, "batch", &u), 0);
    assert_true(u.mem && u.cpu);
    assert_int_equal(u.mem_bytes, 5000);
    assert_int_equal(u.mem_peak_bytes, 6000);
    assert_int_equal(u.mem_limit_bytes, 0); /* "max" */
    assert_int_equal(u.cpu_us, 2500000);
    assert_int_equal(cgroup_usage_read(root, 7, NULL, &u), 0);
    assert_int_equal(u.mem_limit_bytes, MIB(100));
    assert_false(u.cpu); /* no cpu.stat in the fake job directory */
    fake_put("unified/svc/drover_n1_7001/job_7/step_batch/cgroup.procs", "");
    cgroup_step_destroy(s);
    cgroup_root_destroy(root);
    conf_destroy(conf);
    fake_end();
}

/* --- when there is no tree ---------------------------------------------- */

static void not_in_use_is_null_without_error(void **state)
{
    (void)state;
    struct slurm_conf *conf = make_conf("ProctrackType=proctrack/linuxproc\n"
                                        "TaskPlugin=task/affinity\n");
    drv_error_t error = { 0 };

    strcpy(error.text, "stale");
    assert_null(cgroup_root_open(conf, "n1", &error));
    assert_string_equal(error.text, "");
    conf_destroy(conf);
}

static void no_hierarchy_is_an_error(void **state)
{
    (void)state;
    struct slurm_conf *conf;
    drv_error_t error = { 0 };
    char want[256];

    fake_start();
    conf = constrained_conf(CONF_CGROUP_V1, fake);
    errno = 0;
    assert_null(cgroup_root_open_as(conf, "n1", v1_self, &error));
    assert_int_equal(errno, ENOENT);
    snprintf(want, sizeof(want), "no cgroup v1 controller (freezer, pids, "
             "memory, cpuset, devices) mounted under %s", fake);
    assert_string_equal(error.text, want);
    errno = 0;
    assert_null(cgroup_root_open_as(conf, "n9", v1_self, &error));
    assert_int_equal(errno, EINVAL);
    assert_string_equal(error.text, "cgroup: node n9 is not in slurm.conf");
    conf_destroy(conf);
    fake_end();
}

/* --- the machine's own v1 tree ------------------------------------------- */

static bool real_v1_writable(void)
{
    return access("/sys/fs/cgroup/memory/cgroup.procs", W_OK) == 0
           && access("/sys/fs/cgroup/pids/cgroup.procs", W_OK) == 0
           && access("/sys/fs/cgroup/cgroup.controllers", F_OK) != 0;
}

/* A child that joins 's', says so on 'fd', then runs 'work'. */
static pid_t spawn_in(struct cgroup_step *s, int fd, size_t alloc_mib)
{
    pid_t pid = fork();

    assert_true(pid >= 0);
    if (pid == 0) {
        char ok = cgroup_step_attach(s, 0) == 0 ? 'y' : 'n';
        if (write(fd, &ok, 1) != 1)
            _exit(2);
        if (alloc_mib) {
            char *p = malloc(alloc_mib << 20);
            for (size_t i = 0; p && i < alloc_mib << 20; i += 4096)
                p[i] = 1;
        }
        for (;;)
            pause();
    }
    return pid;
}

static struct slurm_conf *real_conf(int *port)
{
    char extra[128];
    struct slurm_conf *conf;

    *port = 10000 + (int)(getpid() % 50000);
    snprintf(extra, sizeof(extra),
             "NodeName=unit Port=%d\nTaskPlugin=task/cgroup\n", *port);
    conf = make_conf(extra);
    conf->cgroup.plugin = CONF_CGROUP_V1;
    conf->cgroup.constrain_ram_space = true;
    conf->cgroup.constrain_swap_space = true;
    return conf;
}

static void real_v1_tree_holds_and_kills_a_task(void **state)
{
    (void)state;
    struct cgroup_limits job = { .mem_mib = 64 };
    drv_error_t error = { 0 };
    struct slurm_conf *conf;
    struct cgroup_root *root;
    struct cgroup_step *s;
    char want[64], path[256], ok;
    const char *text;
    int fds[2], status, port;
    pid_t pid;

    if (!real_v1_writable())
        skip();
    conf = real_conf(&port);
    if (!(root = cgroup_root_open(conf, "unit", &error)))
        fail_msg("cgroup_root_open: %s", error.text);
    assert_string_equal(cgroup_root_version(root), "v1");
    if (!(s = cgroup_step_create(root, 1, "batch", &job, NULL, &error)))
        fail_msg("cgroup_step_create: %s", error.text);
    assert_int_equal(pipe(fds), 0);
    pid = spawn_in(s, fds[1], 0);
    assert_int_equal(read(fds[0], &ok, 1), 1);
    assert_int_equal(ok, 'y');

    snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
    snprintf(want, sizeof(want), "/drover_unit_%d/job_1/step_batch\n", port);
    text = slurp(path);
    assert_non_null(text);
    if (!strstr(text, want))
        fail_msg("%s: %s lacks %s", path, text, want);
    assert_false(cgroup_step_empty(s));
    assert_int_equal(cgroup_step_signal(s, SIGKILL), 1);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    assert_true(cgroup_step_empty(s));
    cgroup_step_destroy(s);
    snprintf(path, sizeof(path), "%s/job_1", cgroup_root_base(root));
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(cgroup_root_prune(root), 0);
    assert_int_equal(access(cgroup_root_base(root), F_OK), -1);
    close(fds[0]);
    close(fds[1]);
    cgroup_root_destroy(root);
    conf_destroy(conf);
}

static void real_v1_memory_limit_brings_the_oom_killer(void **state)
{
    (void)state;
    struct cgroup_limits job = { .mem_mib = 32 };
    drv_error_t error = { 0 };
    struct slurm_conf *conf;
    struct cgroup_root *root;
    struct cgroup_step *s;
    int fds[2], status, port;
    pid_t pid;
    char ok;

    if (!real_v1_writable())
        skip();
    conf = real_conf(&port);
    if (!(root = cgroup_root_open(conf, "unit", &error)))
        fail_msg("cgroup_root_open: %s", error.text);
    if (!(s = cgroup_step_create(root, 2, "batch", &job, NULL, &error)))
        fail_msg("cgroup_step_create: %s", error.text);
    assert_int_equal(pipe(fds), 0);
    pid = spawn_in(s, fds[1], 256);
    assert_int_equal(read(fds[0], &ok, 1), 1);
    assert_int_equal(ok, 'y');
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    assert_int_equal(cgroup_step_oom_kills(s), 1);
    assert_true(cgroup_step_max_rss_kib(s) >= 30 * 1024);
    assert_true(cgroup_step_max_rss_kib(s) <= 32 * 1024);
    cgroup_step_destroy(s);
    assert_int_equal(cgroup_root_prune(root), 0);
    close(fds[0]);
    close(fds[1]);
    cgroup_root_destroy(root);
    conf_destroy(conf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(v1_root_is_made_beside_our_own_cgroup),
        cmocka_unit_test(v1_step_gets_limits_and_its_tasks),
        cmocka_unit_test(v1_job_stays_while_another_step_runs),
        cmocka_unit_test(v1_min_ram_and_allowed_ram),
        cmocka_unit_test(v1_swap_alone_limits_ram_to_ram_plus_swap),
        cmocka_unit_test(v1_limits_need_task_cgroup),
        cmocka_unit_test(v1_signal_reaches_every_listed_process),
        cmocka_unit_test(v1_oom_kills_and_max_rss),
        cmocka_unit_test(usage_read_v1_and_v2),
        cmocka_unit_test(sweep_and_prune_keep_jobs_with_processes),
        cmocka_unit_test(node_prune_removes_a_stopped_daemons_tree),
        cmocka_unit_test(bad_step_names_are_refused),
        cmocka_unit_test(v2_enables_controllers_and_limits),
        cmocka_unit_test(v2_without_memory_tracks_only),
        cmocka_unit_test(v2_base_leaves_a_cgroup_with_processes),
        cmocka_unit_test(not_in_use_is_null_without_error),
        cmocka_unit_test(no_hierarchy_is_an_error),
        cmocka_unit_test(real_v1_tree_holds_and_kills_a_task),
        cmocka_unit_test(real_v1_memory_limit_brings_the_oom_killer),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
