/* SPDX-License-Identifier: Apache-2.0
 *
 * part.h - partitions as administrators change them (scontrol
 * create|update|delete partition)
 *
 * slurm.conf gives the partitions.  A change is the part_changed event,
 * {"op":"create"|"update"|"delete","name","set":{"Keyword":"value"}} with
 * slurm.conf's PartitionName= keywords and values, which
 * conf_partition_update() reads as the file's; ctld_apply() applies and
 * journals it.  The changes so far, merged per partition, are what the
 * snapshot keeps: {"default": the partition Default=YES moved to ("": none
 * marked; absent: slurm.conf's), "parts": [{"name", "created": true |
 * "deleted": true, "set": {...}}]} in the order they were made.  A
 * restart reads slurm.conf and lays them over it, so a change lasts until
 * changed again, slurm.conf edits included for the keywords scontrol did
 * not set.  (Slurm's slurmctld saves partitions too, but reads them back
 * only when started with -R.)
 *
 * Applying a change also judges the partition's pending jobs' limits
 * again (PartitionTimeLimit, PartitionNodeLimit) and the partition factor
 * of priorities; State= is the scheduler's (PartitionDown,
 * PartitionInactive) and the submission's (DRAIN, INACTIVE refuse new
 * jobs) to read.  Running jobs keep running.
 */
#ifndef DROVER_CTLD_PART_H
#define DROVER_CTLD_PART_H

#include <stdbool.h>
#include <jansson.h>

#include "common/error.h"
#include "proto/server.h"

struct ctld;

/* Would 'change' apply now?  0, or -1 with *errnum (EDRV_* or EINVAL,
 * ENOMEM) and 'error' saying why:
 *   EDRV_INVALID_PARTITION_NAME  create: the name is taken, DEFAULT or
 *                                not a name; update, delete: no such
 *                                partition
 *   EDRV_PARTITION_IN_USE        delete: jobs not yet ended name it
 *   EDRV_INVALID_NODE_NAME       Nodes= names a node the table lacks
 *   EINVAL                       a bad value or keyword ("Key=Value: why")
 */
int part_check(struct ctld *ctld, json_t *change, int *errnum,
               drv_error_t *error);

/* Apply a part_changed record (event.c): the table, the merged changes,
 * the partition's pending jobs.  0, or -1 (logged) when it does not
 * apply. */
int part_apply(struct ctld *ctld, json_t *change);

/* Does a job not yet ended name partition 'name' (Slurm's
 * partition_in_use())? */
bool part_in_use(struct ctld *ctld, const char *name);

/* The merged changes, for the snapshot (new reference), and their
 * restore over slurm.conf's partitions (state.c); a change that no longer
 * applies (its nodes left slurm.conf) is logged and skipped. */
json_t *part_snapshot(struct ctld *ctld);
void part_restore(struct ctld *ctld, json_t *o);

/* Free the merged changes (at exit). */
void part_fini(struct ctld *ctld);

/* part_create, part_update, part_delete (docs/protocol-messages.md). */
extern const struct proto_handler rpc_part_handlers[];

#endif /* !DROVER_CTLD_PART_H */
