/* SPDX-License-Identifier: Apache-2.0
 *
 * sim_cluster.c - the cluster a replay runs on, from a slurm.conf (sim.h)
 *
 * The nodes and partitions come through conf/conf_sched_node.h, the code
 * the controller builds its node table with, so the replay schedules on
 * the nodes the controller would.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"
#include "conf/conf_sched_node.h"
#include "sim/sim.h"

static int take_nodes(struct sim_cluster *c, const struct slurm_conf *conf)
{
    if (!(c->nodes = sched_nodes_alloc(conf->node_count)))
        return -1;
    for (size_t i = 0; i < conf->node_count; i++) {
        if (conf_sched_node_init(&c->nodes[i], &conf->nodes[i]) < 0)
            return -1;
        c->nodes[i].available = true;
        c->nnodes++;
        c->cpus += c->nodes[i].cpus;
    }
    return 0;
}

static int take_parts(struct sim_cluster *c, const struct slurm_conf *conf,
                      drv_error_t *error)
{
    size_t n = conf->partition_count;

    if (n && !(c->parts = calloc(n, sizeof(*c->parts)))) {
        errno = ENOMEM;
        return errprintf(error, "out of memory");
    }
    for (size_t p = 0; p < n; p++) {
        const struct conf_partition *cp = &conf->partitions[p];
        bitmap_t *b = conf_sched_node_part(conf, cp, error);
        if (!b)
            return -1;
        c->parts[c->nparts++] = (struct sim_part){.name = cp->name};
        /* Every node: no restriction, as a pool (and no cost per job). */
        if (bitmap_count(b) == c->nnodes)
            bitmap_destroy(b);
        else
            c->parts[p].nodes = b;
    }
    if (n) /* Default=YES, else the first (as the controller) */
        c->default_part = (size_t)(conf_partition_default(conf)
                                   - conf->partitions);
    return 0;
}

int sim_cluster_from_conf(struct sim_cluster *c, struct slurm_conf *conf,
                          drv_error_t *error)
{
    memset(c, 0, sizeof(*c));
    if (!conf->node_count) {
        errno = EINVAL;
        return errprintf(error, "names no node");
    }
    if (take_nodes(c, conf) < 0) {
        errno = ENOMEM;
        errprintf(error, "out of memory");
        goto error;
    }
    if (take_parts(c, conf, error) < 0)
        goto error;
    conf_priority_sched(&conf->priority, &c->prio);
    c->conf = conf;
    return 0;
error:
    sim_cluster_free(c);
    return -1;
}

long sim_cluster_part(const struct sim_cluster *c, const char *name)
{
    for (size_t p = 0; p < c->nparts; p++)
        if (!strcmp(c->parts[p].name, name))
            return (long)p;
    return -1;
}

void sim_cluster_free(struct sim_cluster *c)
{
    if (!c)
        return;
    int saved_errno = errno;
    for (size_t i = 0; i < c->nnodes; i++)
        sched_node_free_usage(&c->nodes[i]);
    for (size_t p = 0; p < c->nparts; p++)
        bitmap_destroy(c->parts[p].nodes);
    free(c->nodes);
    free(c->parts);
    conf_destroy(c->conf);
    memset(c, 0, sizeof(*c));
    errno = saved_errno;
}
