/* SPDX-License-Identifier: Apache-2.0
 *
 * srun_multiprog.h - srun --multi-prog: the configuration file read and
 * checked before anything is allocated (common/multiprog.h)
 */
#ifndef DROVER_CMD_LIB_SRUN_MULTIPROG_H
#define DROVER_CMD_LIB_SRUN_MULTIPROG_H

#include <stdbool.h>
#include <stdio.h>

/* Read the file 'path' (as given on the command line; at most 1 MiB) and
 * check it for *ntasks tasks; with 'ntasks_set' false (no -n) *ntasks
 * is SLURM_NTASKS (Slurm's input variable for -n) or, without it, 1
 * grown to the highest rank named plus one, as Slurm's srun.  Returns the file's text (caller frees), or NULL
 * after Slurm's "srun: error: ..." lines on 'err'.
 */
char *srun_multiprog_load(const char *path, int *ntasks, bool ntasks_set,
                          FILE *err);

#endif /* !DROVER_CMD_LIB_SRUN_MULTIPROG_H */
