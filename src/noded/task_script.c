/* SPDX-License-Identifier: Apache-2.0
 *
 * task_script.c - task prologs and epilogs (task_script.h)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/noded.h"
#include "noded/task_script.h"

/* The index of NAME in envp, or the count when absent. */
static size_t env_find(char **envp, const char *name, size_t len)
{
    size_t i = 0;

    for (; envp[i]; i++)
        if (!strncmp(envp[i], name, len) && envp[i][len] == '=')
            break;
    return i;
}

void task_env_set(char ***envp, const char *name, const char *value)
{
    size_t i = env_find(*envp, name, strlen(name));

    if ((*envp)[i]) {
        free((*envp)[i]);
    } else {
        *envp = xrealloc(*envp, (i + 2) * sizeof(char *));
        (*envp)[i + 1] = NULL;
    }
    (*envp)[i] = xasprintf("%s=%s", name, value);
}

static void env_unset(char **envp, const char *name)
{
    size_t i = env_find(envp, name, strlen(name));

    if (!envp[i])
        return;
    free(envp[i]);
    do
        envp[i] = envp[i + 1];
    while (envp[++i - 1]);
}

/* One line of a prolog's stdout (without its '\n'). */
static void prolog_line(char *line, char ***envp)
{
    char *eq;

    if (!strncmp(line, "export ", 7) && (eq = strchr(line + 7, '='))) {
        *eq = '\0';
        task_env_set(envp, line + 7, eq + 1);
    } else if (!strncmp(line, "unset ", 6)) {
        env_unset(*envp, line + 6);
    } else if (!strncmp(line, "print ", 6)) {
        dprintf(STDOUT_FILENO, "%s\n", line + 6);
    }
}

static int exit_code(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    return 1;
}

int task_prolog_run(const char *path, char ***envp)
{
    int fds[2], status;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    FILE *f;
    pid_t pid;

    task_env_set(envp, "SLURM_SCRIPT_CONTEXT", "prolog_task");
    if (pipe2(fds, O_CLOEXEC) < 0)
        return 127;
    if ((pid = fork()) == 0) {
        char *argv[] = {(char *)path, NULL};

        int null = open("/dev/null", O_RDONLY);

        /* its stdin is not the task's: srun's input is the task's own */
        if (null < 0 || dup2(null, STDIN_FILENO) < 0
            || dup2(fds[1], STDOUT_FILENO) < 0)
            _exit(127);
        execve(path, argv, *envp);
        _exit(127);
    }
    close(fds[1]);
    if (pid < 0 || !(f = fdopen(fds[0], "r"))) {
        close(fds[0]);
        return 127;
    }
    while ((n = getline(&line, &cap, f)) >= 0) {
        if (n > 0 && line[n - 1] == '\n')
            line[n - 1] = '\0';
        prolog_line(line, envp);
    }
    free(line);
    fclose(f);
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 127;
    return exit_code(status);
}

static long now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* Wait for 'pid', killing its session after timeout_s (< 0: never).
 * Returns its wait status, or -1 when killed or lost. */
static int wait_limited(pid_t pid, int timeout_s)
{
    long end = now_ms() + timeout_s * 1000L;
    int status;

    for (;;) {
        pid_t r = waitpid(pid, &status, timeout_s < 0 ? 0 : WNOHANG);

        if (r == pid)
            return status;
        if (r < 0 && errno != EINTR)
            return -1;
        if (timeout_s >= 0 && now_ms() >= end) {
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        if (timeout_s >= 0)
            nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
}

int task_epilog_run(const char *path, const char *user, uid_t uid, gid_t gid,
                    const char *cwd, char **envp, int timeout_s)
{
    pid_t pid = fork();
    int status;

    if (pid == 0) {
        char *argv[] = {(char *)path, NULL};
        int null = open("/dev/null", O_RDWR);

        child_reset();
        if (null < 0 || child_become_user(user, uid, gid) < 0
            || (chdir(cwd) < 0 && chdir("/") < 0))
            _exit(127);
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        child_close_fds();
        execve(path, argv, envp);
        _exit(127);
    }
    if (pid < 0) {
        log_err("task epilog %s: fork", path);
        return -1;
    }
    if ((status = wait_limited(pid, timeout_s)) < 0) {
        log_error("task epilog %s: killed after %d s", path, timeout_s);
        return -1;
    }
    return exit_code(status);
}
