/* SPDX-License-Identifier: Apache-2.0
 *
 * stepd_util.c - the spool names droverd and droverstepd share
 * (stepd.h): a step's control socket and its report file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/stepd.h"

char *stepd_done_path(const char *spool, uint32_t job_id, uint32_t step_id)
{
    return xasprintf("%s/step_%u.%u.done", spool, job_id, step_id);
}

char *stepd_sock_path(const char *spool, uint32_t job_id, uint32_t step_id)
{
    return xasprintf("%s/step_%u.%u.sock", spool, job_id, step_id);
}

int stepd_sun_path(const char *path, char *sun_path, size_t len, int *dirfd)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    int n;

    *dirfd = -1;
    if (strlen(path) < len) {
        memcpy(sun_path, path, strlen(path) + 1);
        return 0;
    }
    if (!slash)
        return errno = ENAMETOOLONG, -1;
    dir = xasprintf("%.*s", (int)(slash - path), path);
    *dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (*dirfd < 0)
        return -1;
    n = snprintf(sun_path, len, "/proc/self/fd/%d/%s", *dirfd, slash + 1);
    if (n < 0 || (size_t)n >= len) {
        close(*dirfd);
        *dirfd = -1;
        return errno = ENAMETOOLONG, -1;
    }
    return 0;
}

int stepd_write_report(const char *spool, json_t *c)
{
    uint32_t job = (uint32_t)json_integer_value(json_object_get(c, "job_id"));
    uint32_t step = (uint32_t)json_integer_value(json_object_get(c,
                                                                 "step_id"));
    char *path = stepd_done_path(spool, job, step);
    char *tmp = xasprintf("%s.tmp", path);
    char *text = json_dumps(c, JSON_COMPACT);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                  0600);
    size_t len = text ? strlen(text) : 0;
    int rc = -1;

    if (fd >= 0 && text && write(fd, text, len) == (ssize_t)len
        && fsync(fd) == 0 && close(fd) == 0) {
        fd = -1;
        rc = rename(tmp, path);
    }
    if (rc < 0)
        log_err("StepId=%u.%u: writing %s", job, step, path);
    if (fd >= 0)
        close(fd);
    free(text);
    free(tmp);
    free(path);
    return rc;
}
