/* SPDX-License-Identifier: Apache-2.0
 *
 * child.c - what every process droverd forks does before exec: default
 * signal dispositions and mask, a new session, the open files limit droverd
 * was started with, the user's identity.
 * Shared by batch scripts (launch.c) and step tasks (step.c).
 *
 * A child of a process with threads (droverstepd runs PMIx's and libuv's)
 * may only make async-signal-safe calls until it execs: a lock another
 * thread held at the fork stays held in the child.  initgroups() is not
 * one (NSS loads its modules and allocates): a task forked while PMIx's
 * thread held the allocator's lock hung in it under ASan, holding the
 * step's answer to droverd open (tests/e2e/test_mpi.py, 1 run in 6).  So
 * the parent resolves the user's groups first (child_user_groups()), and
 * the child only calls setgroups().
 */
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/daemon.h"
#include "common/xalloc.h"
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

/* The supplementary groups of the user child_user_groups() resolved. */
static struct {
    char *user;
    gid_t gid;
    gid_t *groups;
    int n;
} known;

static bool is_known(const char *user, gid_t gid)
{
    return user && known.user && known.gid == gid
           && !strcmp(known.user, user);
}

void child_user_groups(const char *user, gid_t gid)
{
    int n = 32, want;
    gid_t *groups = NULL;

    if (!user || is_known(user, gid))
        return;
    for (;;) {
        groups = xrealloc(groups, (size_t)n * sizeof(*groups));
        want = n;
        if (getgrouplist(user, gid, groups, &want) >= 0) {
            n = want;
            break;
        }
        if (want <= n) { /* no count to retry with */
            free(groups);
            return;
        }
        n = want;
    }
    free(known.user);
    free(known.groups);
    known.user = xstrdup(user);
    known.gid = gid;
    known.groups = groups;
    known.n = n;
}

int child_become_user(const char *user, uid_t uid, gid_t gid)
{
    if (mnt_ns_fd >= 0 && setns(mnt_ns_fd, CLONE_NEWNS) < 0)
        return -1;
    if (getuid() != 0)
        return uid == getuid() ? 0 : (errno = EPERM, -1);
    if (is_known(user, gid)) { /* resolved before the fork */
        if (setgroups((size_t)known.n, known.groups) < 0)
            return -1;
    } else if (initgroups(user, gid) < 0 && setgroups(0, NULL) < 0) {
        return -1;
    }
    if (setgid(gid) < 0 || setuid(uid) < 0)
        return -1;
    return 0;
}
