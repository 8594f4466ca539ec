/* SPDX-License-Identifier: Apache-2.0
 *
 * config_print.h - `scontrol show config` in Slurm 22.05's layout
 *
 * "Configuration data as of <stamp>", then one "Key = Value" line per key
 * (key padded to 23 columns) in Slurm's order, a blank line and
 * "Slurmctld(primary) at <host> is UP".  Values come from the controller's
 * config_info answer (its running configuration, docs/protocol.md);
 * durations get Slurm's units ("MinJobAge = 300 sec").  Keys Drover does
 * not parse print Slurm's default for an unset key.
 */
#ifndef DROVER_CMD_LIB_CONFIG_PRINT_H
#define DROVER_CMD_LIB_CONFIG_PRINT_H

#include <jansson.h>

/* The whole text for a config_info response body 'resp' ({"now",
 * "boot_time", "next_job_id", "config":{Key:value}}).  Caller frees.
 */
char *config_sprint(const json_t *resp);

#endif /* !DROVER_CMD_LIB_CONFIG_PRINT_H */
