/* SPDX-License-Identifier: Apache-2.0
 *
 * srun_env.c - limits, umask and nice value srun passes on (srun_env.h)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "cmd/lib/srun_env.h"
#include "common/rlimits.h"

int srun_propagate_mask(bool given, const char *list,
                        const struct slurm_conf *conf, unsigned *mask,
                        FILE *err)
{
    const char *bad;
    unsigned except;

    if (given) {
        if (!list || !*list) {
            *mask = RLIMITS_ALL;
            return 0;
        }
        if (rlimits_parse(list, mask, &bad) < 0) {
            fprintf(err, "srun: error: --propagate=%s is not valid.\n", list);
            return -1;
        }
        return 0;
    }
    /* slurm.conf's values were checked when it was read */
    if (conf->propagate_rlimits_except
        && rlimits_parse(conf->propagate_rlimits_except, &except, &bad) == 0) {
        *mask = RLIMITS_ALL & ~except;
        return 0;
    }
    if (!conf->propagate_rlimits
        || rlimits_parse(conf->propagate_rlimits, mask, &bad) < 0)
        *mask = RLIMITS_ALL;
    return 0;
}

json_t *srun_rlimits_json(unsigned mask)
{
    json_t *o = json_object();

    for (size_t i = 0; i < RLIMIT_ROWS; i++) {
        struct rlimit rl;

        if (!(mask & (1u << i)) || getrlimit(rlimit_table[i].resource, &rl) < 0)
            continue;
        json_object_set_new(o, rlimit_table[i].name,
                            json_integer(rl.rlim_cur == RLIM_INFINITY
                                             ? -1
                                             : (json_int_t)rl.rlim_cur));
    }
    return o;
}

void srun_env_umask_prio(void)
{
    char buf[16];
    mode_t mask;
    int prio;

    if (!getenv("SLURM_UMASK")) {
        mask = umask(0);
        umask(mask);
        snprintf(buf, sizeof(buf), "%04o", (unsigned)mask);
        setenv("SLURM_UMASK", buf, 1);
    }
    if (!getenv("SLURM_PRIO_PROCESS")) {
        errno = 0;
        prio = getpriority(PRIO_PROCESS, 0);
        snprintf(buf, sizeof(buf), "%d", errno ? 0 : prio);
        setenv("SLURM_PRIO_PROCESS", buf, 1);
    }
}
