/* SPDX-License-Identifier: Apache-2.0
 *
 * daemon.c - command line, pid files, loop teardown and service manager
 * notifications of the daemons
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/daemon.h"
#include "common/xalloc.h"
#include "common/log.h"

/* Linux's default fs.nr_open: the most a hard limit of "unlimited" can
 * mean for descriptors.
 */
#define NOFILE_UNLIMITED 1048576

/* The soft limit found by daemon_raise_nofile; RLIM_INFINITY: unchanged. */
static rlim_t nofile_orig = RLIM_INFINITY;

void daemon_write_pidfile(const char *path)
{
    char *tmp;
    FILE *fp = NULL;
    bool ok;
    int fd;

    if (!path)
        return;
    /* Written whole under a fresh name, then renamed over the path: a
     * reader (drover status, an init script) never sees it empty, and a
     * link someone put at the path is replaced, never followed
     * (docs/security.md).  mkostemp makes the new name with O_EXCL. */
    tmp = xasprintf("%s.XXXXXX", path);
    if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
        log_err("cannot write %s", path);
        free(tmp);
        return;
    }
    ok = fchmod(fd, 0644) == 0 && (fp = fdopen(fd, "w"))
         && fprintf(fp, "%d\n", (int)getpid()) > 0;
    if (fp)
        ok = fclose(fp) == 0 && ok;
    else
        close(fd);
    if (!ok || rename(tmp, path) < 0) {
        log_err("cannot write %s", path);
        (void)unlink(tmp);
    }
    free(tmp);
}

void daemon_raise_nofile(void)
{
    struct rlimit rl;
    rlim_t want;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
        log_err("getrlimit(RLIMIT_NOFILE)");
        return;
    }
    want = rl.rlim_max == RLIM_INFINITY ? NOFILE_UNLIMITED : rl.rlim_max;
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want)
        return;
    nofile_orig = rl.rlim_cur;
    rl.rlim_cur = want;
    if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
        log_err("cannot raise the open files limit to %llu",
                (unsigned long long)want);
        nofile_orig = RLIM_INFINITY;
        return;
    }
    log_debug("open files limit raised from %llu to %llu",
              (unsigned long long)nofile_orig, (unsigned long long)want);
}

void daemon_restore_nofile(void)
{
    struct rlimit rl;

    if (nofile_orig == RLIM_INFINITY || getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return;
    rl.rlim_cur = nofile_orig;
    (void)setrlimit(RLIMIT_NOFILE, &rl);
}

static void close_cb(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

void daemon_close_loop(uv_loop_t *loop)
{
    uv_walk(loop, close_cb, NULL);
    uv_run(loop, UV_RUN_DEFAULT);
}

void daemon_parse_opts(int argc, char **argv, const char *usage,
                       bool node_opt, struct daemon_opts *o)
{
    int c;

    memset(o, 0, sizeof(*o));
    while ((c = getopt(argc, argv, node_opt ? "Df:N:vVh" : "Df:vVh")) != -1) {
        switch (c) {
        case 'D':
            o->foreground = true;
            break;
        case 'f':
            o->conf_path = optarg;
            break;
        case 'N':
            o->node_name = optarg;
            break;
        case 'v':
            o->verbose++;
            break;
        case 'V':
            daemon_print_version();
            exit(0);
        case 'h':
            fputs(usage, stdout);
            exit(0);
        default:
            fputs(usage, stderr);
            exit(1);
        }
    }
}

void daemon_print_version(void)
{
    printf("drover %s (slurm %s)\n", DROVER_VERSION, DROVER_SLURM_VERSION);
}

/* $NOTIFY_SOCKET's value into a socket address; its length, or -1. */
static socklen_t notify_addr(const char *name, struct sockaddr_un *sa)
{
    size_t len = strlen(name);

    if (name[0] != '/' && name[0] != '@') {
        errno = EINVAL;
        return -1;
    }
    if (len > sizeof(sa->sun_path) - (name[0] == '/')) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    memcpy(sa->sun_path, name, len);
    if (name[0] == '@')
        sa->sun_path[0] = '\0'; /* abstract: no terminating NUL counted */
    else
        len++;
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
}

int daemon_notify(const char *state)
{
    const char *name = getenv("NOTIFY_SOCKET");
    struct sockaddr_un sa;
    socklen_t sa_len;
    ssize_t n;
    int fd, saved;

    if (!name || !*name)
        return 0;
    if ((sa_len = notify_addr(name, &sa)) == (socklen_t)-1
        || (fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0) {
        log_debug("NOTIFY_SOCKET=%s: %s", name, strerror(errno));
        return -1;
    }
    n = sendto(fd, state, strlen(state), MSG_NOSIGNAL,
               (struct sockaddr *)&sa, sa_len);
    saved = errno;
    close(fd);
    if (n < 0) {
        log_debug("cannot send %s to %s: %s", state, name, strerror(saved));
        errno = saved;
        return -1;
    }
    return 1;
}
