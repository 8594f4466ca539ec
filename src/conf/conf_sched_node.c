/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_sched_node.c - sched_node and partition bitmaps from slurm.conf
 * (conf_sched_node.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/hostlist.h"
#include "conf/conf_sched_node.h"

/* A count for the scheduler's 16-bit fields (Slurm's are 16-bit too). */
static uint16_t clamp16(uint32_t v)
{
    return v > UINT16_MAX ? UINT16_MAX : (uint16_t)v;
}

int conf_sched_node_init(struct sched_node *sn, const struct conf_node *cn)
{
    sn->name = cn->name;
    sn->cpus = cn->cpus;
    sn->mem_mib = cn->real_memory_mib;
    sn->weight = cn->weight;
    sn->features = cn->features;
    sn->tmp_disk_mib = cn->tmp_disk_mib;
    sn->sockets = clamp16(cn->sockets);
    sn->cores_per_socket = clamp16(cn->cores_per_socket);
    sn->threads_per_core = clamp16(cn->threads_per_core);
    sn->gpus = 0;
    sn->gpu_type = NULL;
    for (size_t g = 0; g < cn->gres_count; g++) {
        if (strcmp(cn->gres[g].name, "gpu"))
            continue;
        sn->gpus += cn->gres[g].count;
        if (cn->gres[g].type)
            sn->gpu_type = cn->gres[g].type;
    }
    sn->gpu_types = cn->gpu_types;
    if (sn->gpu_types)
        sn->gpu_type = NULL;
    sn->shards = cn->gpu_shards;
    sn->share_name = cn->gpu_share;
    sn->alloc_shards = NULL;
    if (!(sn->alloc_gpus = bitmap_create(sn->gpus))
        || (sn->shards
            && !(sn->alloc_shards = calloc(sn->gpus, sizeof(uint32_t))))) {
        sched_node_free_usage(sn);
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* Index of node 'name' in conf->nodes, or -1.  The conf's name index
 * when it has one; a conf rebuilt without it is searched in order. */
static long node_index(const struct slurm_conf *conf, const char *name)
{
    const struct conf_node *cn = conf_node_find(conf, name);

    if (cn)
        return (long)(cn - conf->nodes);
    for (size_t i = 0; i < conf->node_count; i++)
        if (!strcmp(conf->nodes[i].name, name))
            return (long)i;
    return -1;
}

bitmap_t *conf_sched_node_part(const struct slurm_conf *conf,
                               const struct conf_partition *cp,
                               drv_error_t *error)
{
    hostlist_t *hl = hostlist_decode(cp->nodes ? cp->nodes : "", error);
    bitmap_t *b;

    if (!hl)
        return NULL;
    if (!(b = bitmap_create(conf->node_count ? conf->node_count : 1))) {
        hostlist_destroy(hl);
        errno = ENOMEM;
        errprintf(error, "out of memory");
        return NULL;
    }
    for (size_t h = 0; h < hostlist_count(hl); h++) {
        long i = node_index(conf, hostlist_nth(hl, h));
        if (i < 0) {
            errno = EINVAL;
            errprintf(error, "PartitionName=%s: no such node %s", cp->name,
                      hostlist_nth(hl, h));
            hostlist_destroy(hl);
            bitmap_destroy(b);
            return NULL;
        }
        bitmap_set(b, (size_t)i);
    }
    hostlist_destroy(hl);
    return b;
}

bool conf_sched_predicting(const struct slurm_conf *conf)
{
    const char *type = conf->scheduler_type;

    return conf->sched.drover_backfill == CONF_BACKFILL_PREDICT
           && !(type && !strcasecmp(type, "sched/builtin"));
}

void conf_sched_pass_opts(const struct slurm_conf *conf,
                          struct sched_pass_opts *o)
{
    const struct conf_sched *sp = &conf->sched;

    *o = SCHED_PASS_OPTS_DEFAULT;
    if (sp->bf_max_job_test) /* Slurm's default 500 is the pass's */
        o->reserve_depth = sp->bf_max_job_test;
    if (sp->bf_window_s) /* Slurm's default one day is the pass's */
        o->window_s = sp->bf_window_s;
    else if (conf_sched_predicting(conf))
        o->window_s = 0;
    o->resolution_s = sp->bf_resolution_s ? sp->bf_resolution_s
                                          : CONF_BF_RESOLUTION_DEFAULT;
}
