/* SPDX-License-Identifier: Apache-2.0
 *
 * srun_bind.c - srun's --cpu-bind, --gpu-bind and --hint (srun_bind.h)
 */
#include <stdlib.h>
#include <strings.h>

#include "cmd/lib/srun_bind.h"
#include "common/cpubind.h"

static const char cpu_bind_help[] =
    "CPU bind options:\n"
    "    --cpu-bind=         Bind tasks to CPUs\n"
    "        q[uiet]         quietly bind before task runs (default)\n"
    "        v[erbose]       verbosely report binding before task runs\n"
    "        no[ne]          don't bind tasks to CPUs\n"
    "        rank            bind by task rank (whole node only)\n"
    "        map_cpu:<list>  specify a CPU ID binding for each task\n"
    "                        where <list> is <cpuid1>,<cpuid2>,...<cpuidN>\n"
    "        mask_cpu:<list> specify a CPU ID binding mask for each task\n"
    "                        where <list> is <mask1>,<mask2>,...<maskN>\n"
    "        sockets         auto-generated masks bind to sockets\n"
    "        cores           auto-generated masks bind to cores\n"
    "        threads         auto-generated masks bind to threads\n"
    "        ldoms           auto-generated masks bind to NUMA locality\n"
    "                        domains (sockets in Drover)\n"
    "        help            show this help message\n";

/* The option's value, else the variable's; NULL when neither is set. */
static const char *value(json_t *extra, const char *key, const char *var)
{
    const char *v = json_string_value(json_object_get(extra, key));

    return v ? v : getenv(var);
}

/* A value from the environment is checked here (options were checked by
 * the option table, with the same functions). */
static int check(const char *key, const char *v, drv_error_t *error)
{
    struct cpubind cb;
    struct gpubind gb;
    enum cpubind_type type;
    bool one;
    int rc;

    if (key[0] == 'c') {
        rc = cpubind_parse(v, &cb, error);
        cpubind_clear(&cb);
    } else if (key[0] == 'g') {
        rc = gpubind_parse(v, &gb, error);
        gpubind_clear(&gb);
    } else {
        rc = cpubind_hint(v, &type, &one, error);
    }
    return rc;
}

bool srun_bind_help(json_t *extra, FILE *out)
{
    const char *v = value(extra, "cpu_bind", "SLURM_CPU_BIND");

    if (!v || strcasecmp(v, "help"))
        return false;
    fputs(cpu_bind_help, out);
    return true;
}

int srun_bind_options(json_t *extra, json_t *req, FILE *err)
{
    static const char *const keys[][2] = {
        {"cpu_bind", "SLURM_CPU_BIND"},
        {"gpu_bind", "SLURM_GPU_BIND"},
        {"hint", "SLURM_HINT"},
    };

    for (size_t i = 0; i < 3; i++) {
        const char *v = value(extra, keys[i][0], keys[i][1]);
        drv_error_t error;

        if (!v || !*v)
            continue;
        if (check(keys[i][0], v, &error) < 0) {
            fprintf(err, "srun: error: %s\n", error.text);
            return 255;
        }
        json_object_set_new(req, keys[i][0], json_string(v));
    }
    return -1;
}
