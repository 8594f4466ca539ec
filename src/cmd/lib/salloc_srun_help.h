/* SPDX-License-Identifier: Apache-2.0
 *
 * salloc_srun_help.h - salloc's and srun's --help texts (Slurm 22.05.8's)
 */
#ifndef DROVER_CMD_LIB_SALLOC_SRUN_HELP_H
#define DROVER_CMD_LIB_SALLOC_SRUN_HELP_H

/* Slurm's whole --help of salloc and of srun, NUL-terminated, each line
 * ending in '\n'; Drover's own rows go after the line starting
 * "      --container ". */
extern const char salloc_help_text[];
extern const char srun_help_text[];

#endif /* !DROVER_CMD_LIB_SALLOC_SRUN_HELP_H */
