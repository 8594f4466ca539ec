/* SPDX-License-Identifier: Apache-2.0
 *
 * spool.c - files the node daemons make as root under SlurmdSpoolDir
 * (spool.h)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fdio.h"
#include "noded/spool.h"

int spool_check(const char *path, drv_error_t *error)
{
    struct stat st;

    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return errprintf(error, "cannot create SlurmdSpoolDir %s: %s", path,
                         strerror(errno));
    if (lstat(path, &st) < 0)
        return errprintf(error, "SlurmdSpoolDir %s: %s", path,
                         strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return errprintf(error, "SlurmdSpoolDir %s is not a directory%s",
                         path, S_ISLNK(st.st_mode)
                                   ? " (a symbolic link: name its target)"
                                   : "");
    if (st.st_uid != geteuid())
        return errprintf(error, "SlurmdSpoolDir %s is owned by uid %u, not "
                                "by this daemon's uid %u", path,
                         (unsigned)st.st_uid, (unsigned)geteuid());
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return errprintf(error, "SlurmdSpoolDir %s is writable by others "
                                "(mode %04o): chmod go-w it", path,
                         (unsigned)(st.st_mode & 07777));
    return 0;
}

static int remove_at(int dirfd, const char *name, int depth);

/* Empty the directory open as 'fd' (consumed). */
static int remove_entries(int fd, int depth)
{
    DIR *d = fdopendir(fd);
    struct dirent *e;
    int rc = 0, saved = 0;

    if (!d) {
        close(fd);
        return -1;
    }
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (remove_at(dirfd(d), e->d_name, depth + 1) < 0 && !saved) {
            saved = errno;
            rc = -1;
        }
    }
    closedir(d);
    errno = saved;
    return rc;
}

static int remove_at(int dirfd, const char *name, int depth)
{
    int fd, rc;

    if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return -1;
    if (depth >= SPOOL_REMOVE_MAX_DEPTH) {
        errno = ELOOP;
        return -1;
    }
    fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    rc = remove_entries(fd, depth);
    if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
        return -1;
    return rc;
}

int spool_remove(const char *dir, const char *name)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc, saved;

    if (fd < 0)
        return -1;
    rc = remove_at(fd, name, 0);
    saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

int spool_mkdir_fresh(const char *dir, const char *name, mode_t mode,
                      drv_error_t *error)
{
    int pfd = -1, fd = -1;
    struct stat st;

    if (spool_remove(dir, name) < 0)
        return errprintf(error, "removing %s/%s: %s", dir, name,
                         strerror(errno));
    pfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0 || mkdirat(pfd, name, 0700) < 0
        || (fd = openat(pfd, name,
                        O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC))
               < 0
        || fstat(fd, &st) < 0) {
        errprintf(error, "mkdir %s/%s: %s", dir, name, strerror(errno));
        goto fail;
    }
    /* Made by us a moment ago: anything else means a race was tried. */
    if (st.st_uid != geteuid() || !S_ISDIR(st.st_mode)) {
        errprintf(error, "%s/%s: replaced while being made", dir, name);
        goto fail;
    }
    if (fchmod(fd, mode) < 0) {
        errprintf(error, "chmod %s/%s: %s", dir, name, strerror(errno));
        goto fail;
    }
    close(pfd);
    return fd;
fail:
    if (fd >= 0)
        close(fd);
    if (pfd >= 0)
        close(pfd);
    return -1;
}

int spool_write_new(int dirfd, const char *name, const void *data, size_t len,
                    mode_t mode, uid_t uid, gid_t gid, drv_error_t *error)
{
    int fd = openat(dirfd, name,
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    0600);

    if (fd < 0)
        return errprintf(error, "creating %s: %s", name, strerror(errno));
    if (fd_write_all(fd, data, len) < 0
        || (geteuid() == 0 && fchown(fd, uid, gid) < 0)
        || fchmod(fd, mode) < 0) {
        errprintf(error, "writing %s: %s", name, strerror(errno));
        close(fd);
        unlinkat(dirfd, name, 0);
        return -1;
    }
    close(fd);
    return 0;
}
