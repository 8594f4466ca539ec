/* SPDX-License-Identifier: Apache-2.0
 *
 * srun_script.c - srun's own prolog and epilog
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/xalloc.h"
#include "cmd/lib/srun_script.h"

const char *srun_script_pick(const char *option, const char *conf)
{
    const char *p = option ? option : conf;

    return p && *p && strcasecmp(p, "none") ? p : NULL;
}

int srun_script_run(const char *path, const char *context,
                    char *const *argv)
{
    size_t n = 0;
    int status;
    pid_t pid;

    if (access(path, R_OK | X_OK) < 0) { /* Slurm goes on without it */
        fprintf(stderr, "srun: Access denied for %s: %s\n", path,
                strerror(errno));
        return 0;
    }
    while (argv[n])
        n++;
    fflush(stdout);
    fflush(stderr);
    if ((pid = fork()) < 0) {
        fprintf(stderr, "srun: error: fork: %s\n", strerror(errno));
        return 127;
    }
    if (pid == 0) {
        char **args = xzalloc((n + 2) * sizeof(*args));

        args[0] = (char *)path;
        for (size_t i = 0; i < n; i++)
            args[i + 1] = argv[i];
        setenv("SLURM_SCRIPT_CONTEXT", context, 1);
        execv(path, args);
        fprintf(stderr, "srun: error: exec %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return 127;
    return WIFEXITED(status) ? WEXITSTATUS(status)
                             : 128 + WTERMSIG(status);
}
