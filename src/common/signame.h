/* SPDX-License-Identifier: Apache-2.0
 *
 * signame.h - signal names as Slurm's commands read them
 */
#ifndef DROVER_COMMON_SIGNAME_H
#define DROVER_COMMON_SIGNAME_H

/* The signal 's' names: a number from 1 below NSIG, or a name with or
 * without "SIG" in any case ("KILL", "sigusr1", "9"), as scancel -s,
 * sbatch --signal and salloc -K take them.  Returns the number, or -1
 * for anything else.
 */
int sig_parse(const char *s);

#endif /* !DROVER_COMMON_SIGNAME_H */
