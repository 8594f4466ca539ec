/* SPDX-License-Identifier: Apache-2.0
 *
 * drover_proc.c - the processes of a local cluster: start, find, stop
 *
 * Daemons are started with fork and exec in their own session, with their
 * output in a log file and no descriptor of ours: a test harness that runs
 * `drover up` with pipes gets end-of-file when drover exits, not when the
 * last daemon does.  Whether exec worked is learnt through a close-on-exec
 * pipe, so "cannot execute" is drover's error, not a line in a log.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/lib/drover_isolate.h"
#include "cmd/lib/drover_proc.h"
#include "common/xalloc.h"

#define POLL_MS 50

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* Read a whole small file (a /proc entry or a pid file).  Caller frees.
 * *len gets the byte count.  NULL on error.
 */
static char *read_small(const char *path, size_t max, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char *buf;
    ssize_t n;
    size_t got = 0;

    if (fd < 0)
        return NULL;
    buf = xzalloc(max + 1);
    while (got < max && (n = read(fd, buf + got, max - got)) > 0)
        got += (size_t)n;
    close(fd);
    *len = got;
    return buf;
}

static pid_t read_pidfile(const char *pidfile)
{
    size_t len;
    char *s = read_small(pidfile, 32, &len);
    long pid = s ? strtol(s, NULL, 10) : 0;

    free(s);
    return pid > 1 ? (pid_t)pid : 0;
}

/* Is thread 'tid' of 'pid' neither a zombie nor dead? */
static bool task_alive(pid_t pid, const char *tid)
{
    char path[320], *stat, *paren;
    size_t len;
    bool alive;

    snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", (int)pid, tid);
    if (!(stat = read_small(path, 1024, &len)))
        return false;
    /* "pid (comm) S ...": the state follows the last ')'. */
    paren = strrchr(stat, ')');
    alive = paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
    free(stat);
    return alive;
}

/* A process is gone once every thread is: its main thread turns zombie
 * first, while the others (a daemon's thread pool) may still hold its
 * descriptors, its listening port included. */
bool drover_proc_alive(pid_t pid)
{
    char path[64];
    struct dirent *e;
    bool alive = false;
    DIR *d;

    if (pid <= 0 || (kill(pid, 0) < 0 && errno != EPERM))
        return false;
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    if (!(d = opendir(path)))
        return false;
    while (!alive && (e = readdir(d)))
        alive = e->d_name[0] != '.' && task_alive(pid, e->d_name);
    closedir(d);
    return alive;
}

/* Does the NUL-separated argv in 'cmd' match name, dir and arg? */
static bool cmdline_matches(const char *cmd, size_t len, const char *name,
                            const char *dir, const char *arg)
{
    const char *base = strrchr(cmd, '/');
    bool has_dir = false, has_arg = !arg;

    if (strcmp(base ? base + 1 : cmd, name))
        return false;
    for (const char *a = cmd + strlen(cmd) + 1; a < cmd + len;
         a += strlen(a) + 1) {
        if (strstr(a, dir))
            has_dir = true;
        if (arg && !strcmp(a, arg))
            has_arg = true;
    }
    return has_dir && has_arg;
}

pid_t drover_proc_find(const char *pidfile, const char *name, const char *dir,
                       const char *arg)
{
    pid_t pid = read_pidfile(pidfile);
    char path[64], *cmd;
    size_t len;
    bool match;

    if (!pid || !drover_proc_alive(pid))
        return 0;
    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    if (!(cmd = read_small(path, 65536, &len)))
        return 0;
    match = len > 0 && cmdline_matches(cmd, len, name, dir, arg);
    free(cmd);
    return match ? pid : 0;
}

/* In the child: never returns.  Reports a failure's errno on 'fd'. */
static void exec_child(char *const argv[], const char *dir, const char *log,
                       const char *netns, const char *hostname, int fd)
{
    int err, in, out;

    if (netns && drover_isolate_enter(netns, hostname) < 0)
        goto fail;
    setsid();
    umask(022);
    if (chdir(dir) < 0)
        goto fail;
    if ((in = open("/dev/null", O_RDONLY)) < 0 || dup2(in, 0) < 0)
        goto fail;
    if ((out = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644)) < 0
        || dup2(out, 1) < 0 || dup2(out, 2) < 0)
        goto fail;
    for (int i = 3; i < 1024; i++) {
        if (i != fd)
            close(i);
    }
    execv(argv[0], argv);
fail:
    err = errno;
    if (write(fd, &err, sizeof(err)) < 0)
        _exit(126);
    _exit(127);
}

static int write_pidfile(const char *pidfile, pid_t pid, drv_error_t *error)
{
    char *tmp = xasprintf("%s.tmp", pidfile);
    FILE *fp = fopen(tmp, "we");
    int rc = 0;

    if (!fp || fprintf(fp, "%d\n", (int)pid) < 0 || fclose(fp) != 0
        || rename(tmp, pidfile) < 0)
        rc = errprintf(error, "cannot write %s: %s", pidfile, strerror(errno));
    free(tmp);
    return rc;
}

pid_t drover_proc_spawn(char *const argv[], const char *dir, const char *log,
                        const char *pidfile, drv_error_t *error)
{
    return drover_proc_spawn_in(argv, dir, log, pidfile, NULL, NULL, error);
}

pid_t drover_proc_spawn_in(char *const argv[], const char *dir,
                           const char *log, const char *pidfile,
                           const char *netns, const char *hostname,
                           drv_error_t *error)
{
    int p[2], err = 0;
    pid_t pid;
    ssize_t n;

    if (pipe2(p, O_CLOEXEC) < 0)
        return errprintf(error, "pipe: %s", strerror(errno));
    if ((pid = fork()) < 0) {
        errprintf(error, "fork: %s", strerror(errno));
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0)
        exec_child(argv, dir, log, netns, hostname, p[1]);
    close(p[1]);
    while ((n = read(p[0], &err, sizeof(err))) < 0 && errno == EINTR)
        ;
    close(p[0]);
    if (n > 0) {
        (void)waitpid(pid, NULL, 0);
        errno = err;
        return errprintf(error, "cannot run %s (log %s): %s", argv[0], log,
                         strerror(err));
    }
    if (pidfile && write_pidfile(pidfile, pid, error) < 0) {
        (void)kill(pid, SIGKILL);
        (void)waitpid(pid, NULL, 0);
        return -1;
    }
    return pid;
}

bool drover_proc_exited(pid_t pid, int *status)
{
    int st;

    if (waitpid(pid, &st, WNOHANG) != pid)
        return false;
    if (status)
        *status = st;
    return true;
}

int drover_proc_wait(pid_t pid, int timeout_ms)
{
    int status;

    for (int waited = 0; waited <= timeout_ms; waited += POLL_MS) {
        pid_t r = waitpid(pid, &status, WNOHANG);

        if (r == pid)
            return status;
        if (r < 0)
            return -1;
        sleep_ms(POLL_MS);
    }
    errno = ETIMEDOUT;
    return -1;
}

static size_t count_alive(const pid_t *pids, size_t count)
{
    size_t n = 0;

    for (size_t i = 0; i < count; i++) {
        if (pids[i] > 0) {
            (void)waitpid(pids[i], NULL, WNOHANG); /* reap our own */
            if (drover_proc_alive(pids[i]))
                n++;
        }
    }
    return n;
}

static void signal_all(const pid_t *pids, size_t count, int sig)
{
    for (size_t i = 0; i < count; i++) {
        if (pids[i] > 0 && drover_proc_alive(pids[i]))
            (void)kill(pids[i], sig);
    }
}

static bool wait_gone(const pid_t *pids, size_t count, int timeout_ms)
{
    for (int waited = 0; waited < timeout_ms; waited += POLL_MS) {
        if (!count_alive(pids, count))
            return true;
        sleep_ms(POLL_MS);
    }
    return !count_alive(pids, count);
}

int drover_proc_stop(const pid_t *pids, size_t count, int timeout_ms)
{
    int killed;

    signal_all(pids, count, SIGTERM);
    if (wait_gone(pids, count, timeout_ms))
        return 0;
    killed = (int)count_alive(pids, count);
    signal_all(pids, count, SIGKILL);
    (void)wait_gone(pids, count, 5000);
    return killed;
}

/* Is 'pid' a job of the cluster whose config is 'want' ("SLURM_CONF=...")? */
static bool is_job_of(pid_t pid, const char *want)
{
    char path[64], *env;
    size_t len;
    bool conf = false, node = false;

    snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
    if (!(env = read_small(path, 1 << 20, &len)))
        return false;
    for (const char *e = env; e < env + len; e += strlen(e) + 1) {
        if (!strcmp(e, want))
            conf = true;
        else if (!strncmp(e, "SLURMD_NODENAME=", 16))
            node = true;
    }
    free(env);
    return conf && node;
}

/* Is 'pid' a droverstepd of that cluster ("droverstepd -f CONF ...")?
 * Its tasks are jobs; it goes with them. */
static bool is_stepd_of(pid_t pid, const char *conf_path)
{
    char path[64], *argv;
    size_t len;
    bool found = false;

    snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
    if (!(argv = read_small(path, 1 << 16, &len)))
        return false;
    if (len > 0 && !strcmp(argv, "droverstepd"))
        for (const char *a = argv; a < argv + len; a += strlen(a) + 1)
            if (!strcmp(a, "-f") && a + 3 < argv + len
                && !strcmp(a + 3, conf_path))
                found = true;
    free(argv);
    return found;
}

/* One sweep over /proc.  Returns the number of job processes killed. */
static int kill_jobs_once(const char *want, const char *conf_path)
{
    DIR *d = opendir("/proc");
    struct dirent *de;
    int found = 0;

    if (!d)
        return 0;
    while ((de = readdir(d))) {
        pid_t pid, pgid;

        if (!isdigit((unsigned char)de->d_name[0]))
            continue;
        pid = (pid_t)atoi(de->d_name);
        if (pid == getpid() || pid == getppid() || !drover_proc_alive(pid))
            continue;
        if (is_stepd_of(pid, conf_path)) {
            (void)kill(pid, SIGKILL);
            continue;
        }
        if (!is_job_of(pid, want))
            continue;
        /* Jobs run in their own session: their group holds the job's
         * children, whatever they did to their environment. */
        pgid = getpgid(pid);
        if (pgid > 1 && pgid != getpgrp())
            (void)kill(-pgid, SIGKILL);
        (void)kill(pid, SIGKILL);
        found++;
    }
    closedir(d);
    return found;
}

int drover_proc_kill_jobs(const char *conf_path)
{
    char *want = xasprintf("SLURM_CONF=%s", conf_path);
    int total = 0, n;

    /* Sweep again while a sweep finds something: a job may have forked
     * between our reading /proc and our signal. */
    for (int i = 0; i < 5 && (n = kill_jobs_once(want, conf_path)) > 0; i++) {
        total += n;
        sleep_ms(POLL_MS);
    }
    free(want);
    return total;
}

/* The last 'max' bytes of 'path'.  Caller frees.  NULL with errno. */
static char *read_end(const char *path, size_t max, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    char *buf;
    ssize_t n;

    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size > max)
        (void)lseek(fd, st.st_size - (off_t)max, SEEK_SET);
    buf = xzalloc(max + 1);
    *len = 0;
    while (*len < max && (n = read(fd, buf + *len, max - *len)) > 0)
        *len += (size_t)n;
    close(fd);
    return buf;
}

void drover_print_tail(FILE *out, const char *path, int lines)
{
    size_t len;
    char *text = read_end(path, 65536, &len);
    const char *start;
    int seen = 0;

    if (!text) {
        fprintf(out, "  (cannot read %s: %s)\n", path, strerror(errno));
        return;
    }
    /* Walk back over 'lines' newlines, ignoring a final one. */
    start = text + len;
    if (start > text && start[-1] == '\n')
        start--;
    while (start > text && seen < lines) {
        start--;
        if (*start == '\n' && ++seen == lines)
            start++;
    }
    fprintf(out, "--- last lines of %s ---\n", path);
    for (const char *l = start; l < text + len && *l;) {
        const char *nl = strchr(l, '\n');
        int n = nl ? (int)(nl - l) : (int)strlen(l);

        fprintf(out, "  %.*s\n", n, l);
        l += n + (nl ? 1 : 0);
    }
    free(text);
}
