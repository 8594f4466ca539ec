/* SPDX-License-Identifier: Apache-2.0
 *
 * child.c - what every process droverd forks does before exec: default
 * signal dispositions and mask, a new session, the open files limit droverd
 * was started with, the user's identity.
 * Shared by batch scripts (launch.c) and step tasks (step.c).
 */
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "common/daemon.h"
#include "noded/noded.h"

void child_reset(void)
{
    sigset_t all;

    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    for (int s = 1; s < NSIG; s++)
        signal(s, SIG_DFL);
    setsid();
    daemon_restore_nofile();
}

void child_close_fds(void)
{
    long max;

    if (close_range(3, ~0U, 0) == 0)
        return;
    max = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < (max > 0 ? max : 1024); fd++)
        close((int)fd);
}

static int mnt_ns_fd = -1; /* the job's container (jobcontainer.h) */

void child_set_mnt_ns(int fd)
{
    mnt_ns_fd = fd;
}

int child_become_user(const char *user, uid_t uid, gid_t gid)
{
    if (mnt_ns_fd >= 0 && setns(mnt_ns_fd, CLONE_NEWNS) < 0)
        return -1;
    if (getuid() != 0)
        return uid == getuid() ? 0 : (errno = EPERM, -1);
    if (initgroups(user, gid) < 0 && setgroups(0, NULL) < 0)
        return -1;
    if (setgid(gid) < 0 || setuid(uid) < 0)
        return -1;
    return 0;
}
