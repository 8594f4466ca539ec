/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_sched_node.h - slurm.conf as the scheduling core sees it: a struct
 * sched_node per NodeName= record, a bitmap of node indexes per
 * PartitionName= line, the pass's knobs from SchedulerParameters.  Shared
 * by the controller (src/ctld/node_table.c, scheduler.c) and the
 * simulator (src/sim/sim_cluster.c, drover-sim), so both plan the same
 * cluster the same way.
 */
#ifndef DROVER_CONF_CONF_SCHED_NODE_H
#define DROVER_CONF_CONF_SCHED_NODE_H

#include "common/bitmap.h"
#include "common/error.h"
#include "conf/conf.h"
#include "sched/sched.h"

/* Set the configuration of *sn from node 'cn': cpus (CPUs=), mem_mib
 * (RealMemory=, MiB), weight, features, gpus (the sum of its Gres=gpu
 * counts, typed or not) and gpu_type (the type of the last typed gpu
 * entry, else NULL; NULL with gpu_types, conf_node's per-index types of
 * a node with GPUs of several types), shards (gres/shard per GPU, conf_node's gpu_shards),
 * a new empty alloc_gpus bitmap of gpus bits, and with shards a zeroed
 * alloc_shards.  The strings and shards are borrowed from 'cn' (valid while
 * its conf lives); the other usage fields and 'available' are left as they
 * were.  The caller frees the usage with sched_node_free_usage().
 * Returns 0, or -1 with errno=ENOMEM (both usage arrays are then NULL).
 */
int conf_sched_node_init(struct sched_node *sn, const struct conf_node *cn);

/* The nodes of partition 'cp' (its Nodes= hostlist) as a bitmap over the
 * indexes of conf->nodes (at least one bit wide).  Caller frees with
 * bitmap_destroy().  NULL with errno and the reason in 'error' (may be
 * NULL): EINVAL for a bad hostlist or "PartitionName=P: no such node N";
 * ENOMEM.
 */
bitmap_t *conf_sched_node_part(const struct slurm_conf *conf,
                               const struct conf_partition *cp,
                               drv_error_t *error);

/* Slurm's default bf_resolution, seconds. */
#define CONF_BF_RESOLUTION_DEFAULT 60

/* Whether the default backfill (SchedulerParameters drover_backfill=
 * predict, src/sched/backfill.h) plans: not with drover_backfill=slurm,
 * nor under SchedulerType=sched/builtin. */
bool conf_sched_predicting(const struct slurm_conf *conf);

/* The pass's knobs from 'conf' into *o: SCHED_PASS_OPTS_DEFAULT, then
 * bf_max_job_test as reserve_depth (500 unless set), bf_window (a day
 * unless set; no window when conf_sched_predicting() and unset: a lead's
 * reservation is never out of reach), bf_resolution (60 s unless set).
 * No holds or gate. */
void conf_sched_pass_opts(const struct slurm_conf *conf,
                          struct sched_pass_opts *o);

#endif /* !DROVER_CONF_CONF_SCHED_NODE_H */
