/* SPDX-License-Identifier: Apache-2.0
 *
 * user_env.c - load a user's login environment (sbatch --get-user-env)
 *
 * Slurm runs "su - <user> -c /usr/bin/env" on the batch host.  The job
 * process has already become the user here, so su (which would ask for a
 * password) is not needed: the user's login shell is started as a login
 * shell ("-" in argv[0]) and prints a marker line, then its environment
 * NUL-separated, so that whatever the profile prints does not mix in.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "noded/user_env.h"

#define MARKER "__DROVER_USER_ENV__"
#define MAX_OUTPUT (4u << 20)

/* realloc or abort, as xalloc.h does for the other allocations. */
static void *grow(void *p, size_t size)
{
    if (!(p = realloc(p, size)))
        abort();
    return p;
}

/* Start the login shell with a minimal environment, its stdout on
 * 'out'.  posix_spawn, not fork: droverd's libraries have fork handlers
 * (libuv re-creates its signal pipe in a forked child) that would take
 * the descriptor numbers of the pipe this process made.
 * Returns the pid, or -1 with errno set.
 */
static pid_t spawn_login_shell(const struct passwd *pw, int fds[2])
{
    const char *shell = pw->pw_shell && *pw->pw_shell ? pw->pw_shell
                                                      : "/bin/sh";
    const char *base = strrchr(shell, '/');
    char *argv0 = xasprintf("-%s", base ? base + 1 : shell);
    char *env[] = {
        xasprintf("HOME=%s", pw->pw_dir), xasprintf("USER=%s", pw->pw_name),
        xasprintf("LOGNAME=%s", pw->pw_name), xasprintf("SHELL=%s", shell),
        xstrdup("PATH=/usr/local/bin:/usr/bin:/bin"), NULL,
    };
    char *argv[] = {argv0, "-c",
                    "echo; echo " MARKER "; exec /usr/bin/env -0", NULL};
    posix_spawn_file_actions_t fa;
    pid_t pid = -1;
    int rc;

    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    if (fds[1] != 1)
        posix_spawn_file_actions_addclose(&fa, fds[1]);
    if ((rc = posix_spawn(&pid, shell, &fa, NULL, argv, env)) != 0) {
        errno = rc;
        pid = -1;
    }
    posix_spawn_file_actions_destroy(&fa);
    free(argv0);
    for (size_t i = 0; env[i]; i++)
        free(env[i]);
    return pid;
}

/* Read 'fd' to EOF within 'timeout_s'.  NULL on timeout or error. */
static char *read_all(int fd, unsigned timeout_s, size_t *len)
{
    size_t cap = 65536;
    char *buf = xzalloc(cap + 1);
    time_t end = time(NULL) + timeout_s;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    ssize_t n;

    *len = 0;
    for (;;) {
        time_t left = end - time(NULL);
        if (left <= 0 || poll(&p, 1, (int)left * 1000) <= 0)
            break;
        if (*len == cap) {
            if (cap >= MAX_OUTPUT)
                break;
            buf = grow(buf, (cap *= 2) + 1);
        }
        if ((n = read(fd, buf + *len, cap - *len)) < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            buf[*len] = '\0';
            return n == 0 ? buf : (free(buf), NULL);
        }
        *len += (size_t)n;
    }
    free(buf);
    return NULL;
}

static bool env_has(char **envp, const char *var, size_t name_len)
{
    for (; envp && *envp; envp++)
        if (!strncmp(*envp, var, name_len) && (*envp)[name_len] == '=')
            return true;
    return false;
}

/* Variables of the shell itself, not of the user's environment. */
static bool shell_own(const char *var, size_t name_len)
{
    static const char *const own[] = {"_", "PWD", "OLDPWD", "SHLVL"};

    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
        if (strlen(own[i]) == name_len && !strncmp(var, own[i], name_len))
            return true;
    return false;
}

/* Append the NUL-separated "K=V" entries of out[0..len) to envp. */
static char **merge(char **envp, const char *out, size_t len)
{
    size_t n = 0;

    while (envp && envp[n])
        n++;
    for (const char *p = out; p < out + len; p += strlen(p) + 1) {
        const char *eq = strchr(p, '=');
        size_t name_len = eq ? (size_t)(eq - p) : 0;

        if (!name_len || shell_own(p, name_len) || env_has(envp, p, name_len))
            continue;
        envp = grow(envp, sizeof(*envp) * (n + 2));
        envp[n++] = xstrdup(p);
        envp[n] = NULL;
    }
    return envp;
}

char **user_env_merge(char **envp, const char *user, unsigned timeout_s)
{
    struct passwd *pw = getpwnam(user);
    int fds[2], status;
    char *out, *start;
    size_t len;
    pid_t pid;

    if (!pw || pipe(fds) < 0) {
        fprintf(stderr, "droverd: --get-user-env: %s: %s\n", user,
                pw ? strerror(errno) : "no such user");
        return envp;
    }
    if ((pid = spawn_login_shell(pw, fds)) < 0) {
        fprintf(stderr, "droverd: --get-user-env: %s: %s\n", pw->pw_shell,
                strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return envp;
    }
    close(fds[1]);
    out = read_all(fds[0], timeout_s, &len);
    close(fds[0]);
    if (!out)
        kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!out || !(start = strstr(out, "\n" MARKER "\n"))) {
        fprintf(stderr, "droverd: --get-user-env: no environment from the "
                "login shell of %s within %u s\n", user, timeout_s);
    } else {
        start += strlen("\n" MARKER "\n");
        envp = merge(envp, start, len - (size_t)(start - out));
    }
    free(out);
    return envp;
}
