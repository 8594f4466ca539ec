/* SPDX-License-Identifier: Apache-2.0
 *
 * slurm_texts.h - Slurm 22.05.8's hand-written help and usage texts
 */
#ifndef DROVER_CMD_LIB_SLURM_TEXTS_H
#define DROVER_CMD_LIB_SLURM_TEXTS_H

/* Each is the whole text, NUL-terminated, every line ending in '\n'.
 * srun_help_text: Drover's own rows go after the line starting
 * "      --container ".  scontrol's, sacctmgr's and sreport's --help and
 * --usage (and their "help" command) print the same text, as Slurm's. */
extern const char salloc_help_text[];
extern const char srun_help_text[];
extern const char salloc_usage_text[];
extern const char srun_usage_text[];
extern const char scontrol_help_text[];
extern const char sacctmgr_help_text[];
extern const char sreport_help_text[];

#endif /* !DROVER_CMD_LIB_SLURM_TEXTS_H */
