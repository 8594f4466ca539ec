/* SPDX-License-Identifier: Apache-2.0
 *
 * scontrol_part.h - the words of scontrol create|update partition
 */
#ifndef DROVER_CMD_LIB_SCONTROL_PART_H
#define DROVER_CMD_LIB_SCONTROL_PART_H

#include <stdbool.h>
#include <jansson.h>

/* Parse the Key=Value words of update PartitionName=... or create
 * partition (argv[0..argc), the command word and "partition" excluded)
 * into a part_update or part_create body {"name","set"} (*body, caller
 * decrefs).  Keys take Slurm 22.05 scontrol's abbreviations and values
 * its prefixes (State=D, Hidden=y); Priority= is PriorityTier= and
 * PriorityJobFactor=.  The values are then checked by the table that
 * reads slurm.conf (conf_partition_update()), so a bad one is refused
 * here as the controller would.  Returns 0, or -1 with the message
 * Slurm's scontrol prints (its "prog: error: " prefix included) written
 * to stderr. */
int scontrol_part_parse(const char *prog, int argc, char **argv, bool create,
                        json_t **body);

#endif /* !DROVER_CMD_LIB_SCONTROL_PART_H */
