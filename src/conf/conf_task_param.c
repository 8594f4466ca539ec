/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_task_param.c - TaskPluginParam=: task/affinity's defaults
 *
 * As slurm.conf(5) of Slurm 22.05: at most one of None, Sockets, Cores,
 * Threads (the binding of tasks when srun asks none: it overrides the
 * automatic binding), Verbose (report every binding), autobind=Threads|
 * Cores|Sockets (the binding when the automatic one finds no match), and
 * SlurmdOffSpec (slurmd off specialized cores: Drover has no core
 * specialization, so it has no effect).  Words are case-insensitive;
 * anything else is refused with the item named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cpubind.h"
#include "conf/conf.h"
#include "conf/conf_private.h"

/* The binding one word names, with --cpu-bind's word table
 * (common/cpubind.h): none, sockets, cores or threads; CPUBIND_UNSET for
 * any other word (rank, map_cpu, verbose, ... are no default). */
static enum cpubind_type bind_of(const char *word)
{
    struct cpubind b;
    enum cpubind_type t;

    if (strchr(word, ':') || cpubind_parse(word, &b, NULL) < 0)
        return CPUBIND_UNSET;
    t = b.type;
    cpubind_clear(&b);
    return t == CPUBIND_NONE || t == CPUBIND_SOCKETS || t == CPUBIND_CORES
                   || t == CPUBIND_THREADS
               ? t
               : CPUBIND_UNSET;
}

static int one_item(struct slurm_conf *conf, const char *item,
                    drv_error_t *error)
{
    struct conf_task_param *p = &conf->task_param;
    enum cpubind_type b;

    if (!strcasecmp(item, "verbose")) {
        p->verbose = true;
    } else if (!strcasecmp(item, "slurmdoffspec")) {
        p->slurmd_off_spec = true;
    } else if (!strncasecmp(item, "autobind=", 9)) {
        b = bind_of(item + 9);
        if (b == CPUBIND_UNSET || b == CPUBIND_NONE)
            return conf__einval(error, "%s: TaskPluginParam=%s: autobind "
                                "takes Threads, Cores or Sockets",
                                conf->path, item);
        p->autobind = b;
    } else if ((b = bind_of(item)) != CPUBIND_UNSET) {
        if (p->bind != CPUBIND_UNSET && p->bind != b)
            return conf__einval(error, "%s: TaskPluginParam: more than one "
                                "of None, Sockets, Cores and Threads",
                                conf->path);
        p->bind = b;
    } else {
        return conf__einval(error, "%s: TaskPluginParam=%s: unknown item "
                            "(None, Sockets, Cores, Threads, Verbose, "
                            "autobind=, SlurmdOffSpec)", conf->path, item);
    }
    return 0;
}

int conf__task_param(struct slurm_conf *conf, drv_error_t *error)
{
    conf->task_param = (struct conf_task_param){0};
    return conf__each_item(conf, conf->task_plugin_param, one_item, error);
}
