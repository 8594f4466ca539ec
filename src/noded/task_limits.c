/* SPDX-License-Identifier: Apache-2.0
 *
 * task_limits.c - srun's limits and umask in a task (task_limits.h)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "common/rlimits.h"
#include "noded/task_limits.h"

static void set_limit(const struct rlimit_row *row, json_int_t v, int err_fd)
{
    rlim_t want = v < 0 ? RLIM_INFINITY : (rlim_t)v;
    struct rlimit rl;

    if (getrlimit(row->resource, &rl) < 0)
        return;
    rl.rlim_cur = want;
    if (rl.rlim_max != RLIM_INFINITY
        && (want == RLIM_INFINITY || rl.rlim_max < want))
        rl.rlim_max = want;
    if (setrlimit(row->resource, &rl) < 0)
        dprintf(err_fd, "slurmstepd: error: Can't propagate RLIMIT_%s of "
                        "%lld from submit host: %s\n",
                row->name, (long long)v, strerror(errno));
}

void task_limits_apply(json_t *rlimits, char *const *envp, int err_fd)
{
    for (size_t i = 0; i < RLIMIT_ROWS; i++) {
        json_t *v = json_object_get(rlimits, rlimit_table[i].name);

        if (json_is_integer(v))
            set_limit(&rlimit_table[i], json_integer_value(v), err_fd);
    }
    for (; envp && *envp; envp++)
        if (!strncmp(*envp, "SLURM_UMASK=", 12)) {
            char *end;
            long mask = strtol(*envp + 12, &end, 8);

            if (end != *envp + 12 && !*end && mask >= 0 && mask <= 0777)
                umask((mode_t)mask);
        }
}
