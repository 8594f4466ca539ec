/* SPDX-License-Identifier: Apache-2.0
 *
 * sbatch_refuse.c - the options of sbatch, salloc and srun Drover refuses
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/lib/sbatch_refuse.h"

static const struct {
    const char *name;
    const char *why;
} refused[] = {
    {"bb", "no burst buffers"},
    {"bbf", "no burst buffers"},
    {"batch", "no node features for the batch host"},
    {"cluster-constraint", "no federation"},
    {"contiguous", "nodes are not placed contiguously"},
    {"core-spec", "no specialised cores"},
    {"thread-spec", "no specialised threads"},
    {"ntasks-per-core", "no per-core task placement"},
    {"ntasks-per-socket", "no per-socket task placement"},
    {"ntasks-per-gpu", "no per-GPU task placement"},
    {"licenses", "no licenses"},
    {"mcs-label", "no MCS labels"},
    {"spread-job", "jobs are not spread over nodes"},
    {"bcast", "no executable broadcast; use sbcast"},
    {"bcast-exclude", "no executable broadcast; use sbcast"},
    {"compress", "no executable broadcast; use sbcast -C"},
    {"send-libs", "no executable broadcast; use sbcast"},
    {"het-group", "no heterogeneous jobs"},
    {"no-allocate", "every step runs in an allocation"},
    {"relative", "steps are not placed relative to a node"},
    {"resv-ports", "no reserved ports"},
    {"slurmd-debug", "droverd's log level is its own (SlurmdDebug)"},
};

/* --mem-bind=none (Slurm's default): nothing asked for. */
static bool asks_nothing(const char *name, const char *arg)
{
    if (!arg)
        return false;
    if (!strcmp(name, "mem-bind"))
        return !strcasecmp(arg, "none") || !strcasecmp(arg, "no");
    return false;
}

const char *sbatch_option_refusal(const char *name, const char *arg)
{
    if (!strcmp(name, "mem-bind"))
        return asks_nothing(name, arg) ? NULL : "no memory binding";
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        if (!strcmp(refused[i].name, name))
            return refused[i].why;
    return NULL;
}
