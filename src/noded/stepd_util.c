/* SPDX-License-Identifier: Apache-2.0
 *
 * stepd_util.c - what droverd and droverstepd share (stepd.h): the spool
 * names of a step's control socket and report file, the report's write,
 * and a request to a step's control socket.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/fdio.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "noded/noded.h"
#include "noded/stepd.h"
#include "proto/frame.h"

#define CONTROL_TIMEOUT_S 2

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

bool stepd_parse_name(const char *name, const char *suffix, uint32_t *job,
                      uint32_t *step)
{
    unsigned j, st;
    int end = 0;

    if (sscanf(name, "step_%u.%u%n", &j, &st, &end) != 2
        || strcmp(name + end, suffix))
        return false;
    *job = j;
    *step = st;
    return true;
}

json_t *stepd_control(const char *spool, uint32_t job, uint32_t step,
                      json_t *req)
{
    char *path = stepd_sock_path(spool, job, step), *data = NULL;
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    struct timeval tv = {.tv_sec = CONTROL_TIMEOUT_S};
    proto_decoder_t *dec = proto_decoder_create();
    json_t *resp = NULL;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), dirfd = -1;
    size_t len;
    char buf[4096];
    ssize_t n;

    if (fd < 0 || stepd_sun_path(path, sa.sun_path, sizeof(sa.sun_path),
                                 &dirfd) < 0)
        goto out;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0
        || proto_frame_encode(req, &data, &len) < 0
        || fd_write_all(fd, data, len) < 0)
        goto out;
    while (!resp && (n = read(fd, buf, sizeof(buf))) > 0)
        if (proto_decoder_feed(dec, buf, (size_t)n) == 0)
            resp = proto_decoder_next(dec, NULL);
out:
    if (dirfd >= 0)
        close(dirfd);
    if (fd >= 0)
        close(fd);
    proto_decoder_destroy(dec);
    free(data);
    free(path);
    return resp;
}

int stepd_signal_job_steps(const char *spool, uint32_t job_id, int signo,
                           int cancel)
{
    json_t *req = json_pack("{s:i s:b s:b}", "signal", signo, "cancelled",
                            cancel != STEP_SIGNAL, "time_limit",
                            cancel == STEP_CANCEL_TIME);
    DIR *d = opendir(spool);
    struct dirent *e;
    int n = 0;

    while (d && (e = readdir(d))) {
        uint32_t j, st;
        json_t *resp;

        if (!stepd_parse_name(e->d_name, ".sock", &j, &st) || j != job_id
            || st == STEPD_BATCH)
            continue;
        if ((resp = stepd_control(spool, j, st, req)))
            n += (int)json_integer_value(json_object_get(resp, "count"));
        json_decref(resp);
    }
    if (d)
        closedir(d);
    json_decref(req);
    return n;
}

void stepd_alloc_cb(uv_handle_t *h, size_t size, uv_buf_t *buf)
{
    (void)h;
    buf->base = xzalloc(size);
    buf->len = size;
}
