/* SPDX-License-Identifier: Apache-2.0
 *
 * srun_script.h - srun's own prolog and epilog (--prolog, --epilog,
 * SrunProlog=, SrunEpilog=)
 *
 * As Slurm's srun: the program runs on srun's host as srun's user, with
 * srun's environment plus SLURM_SCRIPT_CONTEXT ("prolog_srun" or
 * "epilog_srun"), and the step's command and arguments as its own.
 */
#ifndef DROVER_CMD_LIB_SRUN_SCRIPT_H
#define DROVER_CMD_LIB_SRUN_SCRIPT_H

/* The program to run: the option's value when given ("none": none), else
 * slurm.conf's (may be NULL).  Returns NULL when there is none. */
const char *srun_script_pick(const char *option, const char *conf);

/* Run 'path' with argv[0] = path and the rest of 'argv' (the step's
 * command and arguments, NULL-terminated, argv[0] the command) and
 * SLURM_SCRIPT_CONTEXT='context'; wait for it.  Returns its exit status
 * (0-255), 128+N when killed by signal N, or 127 when it could not run
 * (fork or exec failed: a message on stderr).  A program srun's user may
 * not read and execute is skipped with Slurm's "Access denied for PATH"
 * line (0 returned), as Slurm's srun goes on without it.
 */
int srun_script_run(const char *path, const char *context,
                    char *const *argv);

#endif /* !DROVER_CMD_LIB_SRUN_SCRIPT_H */
