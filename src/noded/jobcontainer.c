/* SPDX-License-Identifier: Apache-2.0
 *
 * jobcontainer.c - job_container/tmpfs: each job's private /tmp and
 * /dev/shm (jobcontainer.h has the layout and who calls what)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/magic.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/jobcontainer.h"
#include "noded/noded.h"
#include "noded/spool.h"

#define NS_FILE ".ns"
#define LOCK_FILE ".drover.lock"
#define TRASH_PREFIX ".trash."

json_t *jc_to_json(const struct conf_jc *jc)
{
    if (!jc)
        return NULL;
    return json_pack("{s:s s:s s:s* s:b}", "base_path", jc->base_path,
                     "dirs", jc->dirs, "init_script", jc->init_script,
                     "shared", jc->shared);
}

/* Is 'path' (absolute, no trailing slash) a mount point of ours? */
static bool is_mount_point(const char *path)
{
    FILE *fp = fopen("/proc/self/mountinfo", "re");
    char line[8192], mnt[4096];
    bool found = false;

    while (fp && !found && fgets(line, sizeof(line), fp))
        if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1
            && !strcmp(mnt, path))
            found = true;
    if (fp)
        fclose(fp);
    return found;
}

/* A descriptor of BasePath after checking it is a directory (not a link)
 * of root's that no one else may write in. */
static int open_base(const char *base, drv_error_t *error)
{
    int fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;

    if (fd < 0)
        return errprintf(error, "BasePath %s: %s", base, strerror(errno));
    if (fstat(fd, &st) < 0 || st.st_uid != geteuid()
        || (st.st_mode & (S_IWGRP | S_IWOTH))) {
        close(fd);
        return errprintf(error, "BasePath %s must be a directory of uid %d "
                         "that no one else may write in", base,
                         (int)geteuid());
    }
    return fd;
}

/* mkdir -p, each missing component 0755. */
static int make_dirs(const char *path)
{
    char *p = xstrdup(path);
    int rc = 0;

    for (char *s = p + 1; rc == 0; s++) {
        if (*s != '/' && *s)
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0755) < 0 && errno != EEXIST)
            rc = -1;
        *s = c;
        if (!c)
            break;
    }
    free(p);
    return rc;
}

/* Slurm refuses a BasePath inside one of the Dirs it hides. */
static bool base_in_dirs(const char *base, const char *dirs)
{
    while (*dirs) {
        size_t n = strcspn(dirs, ",");
        if (!strncmp(base, dirs, n) && (base[n] == '/' || !base[n]))
            return true;
        dirs += n + (dirs[n] == ',');
    }
    return false;
}

int jc_base_init(const struct conf_jc *jc, drv_error_t *error)
{
    const char *base = jc->base_path;
    char *parent = xstrdup(base);
    int fd, rc = 0;

    if (base_in_dirs(base, jc->dirs)) {
        free(parent);
        return errprintf(error, "BasePath %s cannot also be in Dirs (%s)",
                         base, jc->dirs);
    }
    *strrchr(parent, '/') = '\0'; /* BasePath as written; ours is below */
    if ((jc->auto_base_path ? make_dirs(base)
                            : (access(parent, F_OK) < 0
                               || (mkdir(base, 0755) < 0 && errno != EEXIST)))
        < 0)
        rc = errprintf(error, "BasePath %s: %s%s", jc->auto_base_path
                       ? base : parent, strerror(errno),
                       jc->auto_base_path ? "" : " (AutoBasePath=false)");
    free(parent);
    if (rc < 0 || (fd = open_base(base, error)) < 0)
        return -1;
    close(fd);
    if (!is_mount_point(base) && mount(base, base, NULL, MS_BIND, NULL) < 0)
        return errprintf(error, "bind-mounting BasePath %s: %s", base,
                         strerror(errno));
    if (mount(NULL, base, NULL, MS_PRIVATE, NULL) < 0)
        return errprintf(error, "making BasePath %s private: %s", base,
                         strerror(errno));
    return 0;
}

/* The name under the job's directory of Dirs= entry 'dir' (n bytes):
 * Slurm's ".<job>" for /tmp, else the path with '/' as '_'. */
static void dir_name(const char *dir, size_t n, uint32_t job, char *out,
                     size_t size)
{
    if (n == 4 && !strncmp(dir, "/tmp", 4)) {
        snprintf(out, size, ".%u", job);
        return;
    }
    snprintf(out, size, "%.*s", (int)n, dir);
    for (char *s = out; *s; s++)
        if (*s == '/')
            *s = '_';
}

static bool is_shm(const char *dir, size_t n)
{
    return n == 8 && !strncmp(dir, "/dev/shm", 8);
}

/* The namespace file of an existing container of the job, or -1. */
static int join_existing(int jd)
{
    int fd = openat(jd, NS_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct statfs sf;

    if (fd >= 0 && fstatfs(fd, &sf) == 0 && sf.f_type == NSFS_MAGIC)
        return fd;
    if (fd >= 0)
        close(fd);
    return -1;
}

/* The job's directories: the job's own (root 0700), and one per Dirs=
 * entry but /dev/shm, its user's, 0700, and the empty namespace file. */
static int make_job_dirs(int base_fd, const char *name, const char *dirs,
                         uint32_t job, uid_t uid, gid_t gid, int *jd_out,
                         drv_error_t *error)
{
    char sub[4096];
    int jd, fd;

    if (mkdirat(base_fd, name, 0700) < 0
        || (jd = openat(base_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW
                                       | O_CLOEXEC)) < 0)
        return errprintf(error, "making %s: %s", name, strerror(errno));
    *jd_out = jd;
    for (const char *d = dirs; *d;) {
        size_t n = strcspn(d, ",");
        dir_name(d, n, job, sub, sizeof(sub));
        if (!is_shm(d, n)
            && (mkdirat(jd, sub, 0700) < 0
                || fchownat(jd, sub, uid, gid, AT_SYMLINK_NOFOLLOW) < 0))
            return errprintf(error, "making %s/%s: %s", name, sub,
                             strerror(errno));
        d += n + (d[n] == ',');
    }
    if ((fd = openat(jd, NS_FILE, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW
                                  | O_CLOEXEC, 0400)) < 0)
        return errprintf(error, "making %s/%s: %s", name, NS_FILE,
                         strerror(errno));
    close(fd);
    return 0;
}

/* In the helper child, in its new namespace: mount each Dirs= entry.
 * The sources are opened again by path here ('job_dir': BasePath/<job>,
 * root's, 0700): a descriptor opened before unshare() is of the old
 * namespace's mount, which the kernel does not bind from. */
static int mount_dirs(const char *job_dir, const char *dirs, uint32_t job,
                      bool shared, char *why, size_t size)
{
    char sub[4096], src[64];
    int jd = open(job_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (jd < 0)
        return snprintf(why, size, "%s: %s", job_dir, strerror(errno)), -1;
    if (mount(NULL, "/", NULL, MS_REC | (shared ? MS_SLAVE : MS_PRIVATE),
              NULL) < 0)
        return snprintf(why, size, "making / %s: %s",
                        shared ? "a slave" : "private", strerror(errno)), -1;
    for (const char *d = dirs; *d;) {
        size_t n = strcspn(d, ",");
        char *target = xasprintf("%.*s", (int)n, d);
        int fd = -1, rc;
        dir_name(d, n, job, sub, sizeof(sub));
        if (is_shm(d, n)) {
            rc = mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV,
                       "mode=1777");
        } else if ((fd = openat(jd, sub, O_PATH | O_DIRECTORY | O_NOFOLLOW
                                         | O_CLOEXEC)) < 0) {
            rc = -1;
        } else {
            snprintf(src, sizeof(src), "/proc/self/fd/%d", fd);
            rc = mount(src, target, NULL, MS_BIND, NULL);
        }
        if (rc < 0)
            snprintf(why, size, "mounting %s: %s", target, strerror(errno));
        if (fd >= 0)
            close(fd);
        free(target);
        if (rc < 0)
            return -1;
        d += n + (d[n] == ',');
    }
    return 0;
}

/* Make the namespace: a helper child unshares it and mounts the Dirs,
 * this process (still in the host's namespace) binds the child's
 * namespace onto <job>/.ns, then lets the child go. */
static int make_ns(const char *job_dir, const char *ns_path,
                   const char *dirs, uint32_t job, bool shared,
                   drv_error_t *error)
{
    int ready[2], go[2], status, rc = 0;
    char why[512] = "", src[64];
    ssize_t n;
    pid_t pid;

    if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0)
        return errprintf(error, "pipe: %s", strerror(errno));
    if ((pid = fork()) == 0) {
        close(ready[0]);
        close(go[1]);
        if (unshare(CLONE_NEWNS) < 0)
            snprintf(why, sizeof(why), "unshare: %s", strerror(errno));
        else
            mount_dirs(job_dir, dirs, job, shared, why, sizeof(why));
        if (write(ready[1], why, strlen(why) + 1) < 0 || why[0])
            _exit(1);
        while (read(go[0], why, 1) > 0)
            ;
        _exit(0);
    }
    close(ready[1]);
    close(go[0]);
    n = pid < 0 ? -1 : read(ready[0], why, sizeof(why) - 1);
    why[n > 0 ? n : 0] = '\0';
    if (pid < 0 || n <= 0 || why[0])
        rc = errprintf(error, "job container: %s",
                       why[0] ? why : "the namespace helper failed");
    snprintf(src, sizeof(src), "/proc/%d/ns/mnt", (int)pid);
    if (rc == 0 && mount(src, ns_path, NULL, MS_BIND, NULL) < 0)
        rc = errprintf(error, "binding %s on %s: %s", src, ns_path,
                       strerror(errno));
    close(go[1]);
    close(ready[0]);
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return rc;
}

/* InitScript, as root, before the namespace is made (as Slurm's). */
static int run_init_script(const char *script, uint32_t job,
                           const char *user, uid_t uid, drv_error_t *error)
{
    char env[3][128];
    char *envp[] = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:"
                    "/usr/bin:/sbin:/bin", env[0], env[1], env[2], NULL};
    char *argv[] = {(char *)script, NULL};
    int status, null;
    pid_t pid;

    snprintf(env[0], sizeof(env[0]), "SLURM_JOB_ID=%u", job);
    snprintf(env[1], sizeof(env[1]), "SLURM_JOB_UID=%u", (unsigned)uid);
    snprintf(env[2], sizeof(env[2]), "SLURM_JOB_USER=%s", user);
    if ((pid = fork()) == 0) {
        child_reset();
        null = open("/dev/null", O_RDWR);
        if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
            _exit(127);
        execve(script, argv, envp);
        _exit(127);
    }
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
        return errprintf(error, "job container: InitScript %s failed",
                         script);
    return 0;
}

/* Undo a container of 'name' (a job id) under 'base': unmount its
 * namespace file and remove the directory. */
static void undo(const char *base, const char *name)
{
    char *ns = xasprintf("%s/%s/%s", base, name, NS_FILE);

    umount2(ns, MNT_DETACH | UMOUNT_NOFOLLOW);
    free(ns);
    if (spool_remove(base, name) < 0)
        log_err("job container: removing %s/%s", base, name);
}

static int make_container(int base_fd, const char *base, uint32_t job,
                          json_t *o, const char *user, uid_t uid, gid_t gid,
                          drv_error_t *error)
{
    const char *dirs = json_string_value(json_object_get(o, "dirs"));
    const char *init = json_string_value(json_object_get(o, "init_script"));
    bool shared = json_is_true(json_object_get(o, "shared"));
    char name[16], *ns_path, *job_dir;
    int jd = -1, fd = -1;

    snprintf(name, sizeof(name), "%u", job);
    if (init && run_init_script(init, job, user, uid, error) < 0)
        return -1;
    job_dir = xasprintf("%s/%s", base, name);
    ns_path = xasprintf("%s/%s", job_dir, NS_FILE);
    if (make_job_dirs(base_fd, name, dirs ?: "/tmp,/dev/shm", job, uid,
                      gid, &jd, error) == 0
        && make_ns(job_dir, ns_path, dirs ?: "/tmp,/dev/shm", job, shared,
                   error) == 0
        && (fd = join_existing(jd)) < 0)
        errprintf(error, "job container: %s is not a namespace", ns_path);
    if (fd < 0)
        undo(base, name);
    if (jd >= 0)
        close(jd);
    free(ns_path);
    free(job_dir);
    return fd;
}

int jc_job_enter(json_t *o, uint32_t job_id, const char *user, uid_t uid,
                 gid_t gid, drv_error_t *error)
{
    const char *base = json_string_value(json_object_get(o, "base_path"));
    int base_fd, lock_fd, jd, fd = -1;
    char name[16];

    if (!base)
        return errprintf(error, "job container: no BasePath");
    if ((base_fd = open_base(base, error)) < 0)
        return -1;
    lock_fd = openat(base_fd, LOCK_FILE, O_RDWR | O_CREAT | O_NOFOLLOW
                                         | O_CLOEXEC, 0600);
    if (lock_fd < 0 || flock(lock_fd, LOCK_EX) < 0) {
        errprintf(error, "job container: locking %s/%s: %s", base,
                  LOCK_FILE, strerror(errno));
        goto out;
    }
    snprintf(name, sizeof(name), "%u", job_id);
    if ((jd = openat(base_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW
                                    | O_CLOEXEC)) >= 0) {
        fd = join_existing(jd);
        close(jd);
        if (fd >= 0)
            goto out;
        undo(base, name); /* half made, or a leftover: start again */
    }
    fd = make_container(base_fd, base, job_id, o, user, uid, gid, error);
out:
    if (lock_fd >= 0)
        close(lock_fd);
    close(base_fd);
    return fd;
}

void jc_job_remove(const char *base, uint32_t job_id)
{
    static unsigned seq;
    char name[16], trash[64];
    int base_fd, lock_fd;
    drv_error_t error = {0};
    pid_t pid;

    if ((base_fd = open_base(base, &error)) < 0) {
        log_error("job container: %s", error.text);
        return;
    }
    snprintf(name, sizeof(name), "%u", job_id);
    snprintf(trash, sizeof(trash), TRASH_PREFIX "%u.%d.%u", job_id,
             (int)getpid(), seq++);
    lock_fd = openat(base_fd, LOCK_FILE, O_RDWR | O_CREAT | O_NOFOLLOW
                                         | O_CLOEXEC, 0600);
    if (lock_fd >= 0)
        flock(lock_fd, LOCK_EX);
    char *ns = xasprintf("%s/%s/%s", base, name, NS_FILE);
    umount2(ns, MNT_DETACH | UMOUNT_NOFOLLOW);
    free(ns);
    if (renameat(base_fd, name, base_fd, trash) < 0) {
        if (errno != ENOENT)
            log_err("job container: renaming %s/%s", base, name);
        trash[0] = '\0';
    }
    if (lock_fd >= 0)
        close(lock_fd);
    close(base_fd);
    if (!trash[0])
        return;
    log_verbose("JobId=%u: removing its job container %s/%s", job_id, base,
                name);
    if ((pid = fork()) == 0) { /* reaped by droverd's SIGCHLD handler */
        _exit(spool_remove(base, trash) < 0 ? 1 : 0);
    } else if (pid < 0 && spool_remove(base, trash) < 0) {
        log_err("job container: removing %s/%s", base, trash);
    }
}

int jc_sweep(const char *base, bool (*running)(uint32_t, void *), void *arg)
{
    DIR *d = opendir(base);
    struct dirent *e;
    uint32_t *ids = NULL;
    size_t count = 0;
    int n = 0;

    while (d && (e = readdir(d))) { /* collect first: removal renames */
        char *end;
        unsigned long id = strtoul(e->d_name, &end, 10);
        if (!strncmp(e->d_name, TRASH_PREFIX, strlen(TRASH_PREFIX))) {
            if (spool_remove(base, e->d_name) == 0)
                n++;
        } else if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && !*end
                   && id <= UINT32_MAX && !running((uint32_t)id, arg)) {
            ids = xrealloc(ids, (count + 1) * sizeof(*ids));
            ids[count++] = (uint32_t)id;
        }
    }
    if (d)
        closedir(d);
    for (size_t i = 0; i < count; i++)
        jc_job_remove(base, ids[i]);
    free(ids);
    return n + (int)count;
}
