/* SPDX-License-Identifier: Apache-2.0
 *
 * multiprog.h - srun --multi-prog configuration files
 *
 * One record per line: a rank specification, the program and its
 * arguments ("0-3,5  ./worker --id=%t").  The ranks are a comma list of
 * ranks and lo-hi ranges, or "*" (every task not named by another line;
 * it must be the last line).  Lines starting with '#' (after blanks) and
 * blank lines are skipped; a line ending with '\' goes on on the next
 * one.  In the arguments, %t is the task's rank and %o its offset within
 * its line's ranks (the rank itself for "*"); single or double quotes
 * keep blanks (and '%') literally, '\' takes the next character as is.
 * srun checks the file (multiprog_check(), Slurm's texts) and sends its
 * text with the step; droverstepd picks each task's argv
 * (multiprog_argv()), as Slurm's srun and slurmstepd do.
 */
#ifndef DROVER_COMMON_MULTIPROG_H
#define DROVER_COMMON_MULTIPROG_H

#include <stdbool.h>
#include <stddef.h>

/* Check 'text' (the file named 'fname', for messages) for *ntasks tasks.
 * With 'ntasks_set' false (no -n) the count becomes the highest rank
 * named plus one (a "*" line alone keeps *ntasks).  Every task must have
 * exactly one record.  Returns 0, or -1 with 'err' holding Slurm's error
 * lines ('\n'-separated, no "srun: error: " prefix), e.g. "Duplicate
 * record for task 1\nLine 3 of configuration file mp.conf invalid".
 */
int multiprog_check(const char *text, const char *fname, int *ntasks,
                    bool ntasks_set, char *err, size_t errlen);

/* The argv of task 'rank' (NULL-terminated; free each string and the
 * array), or NULL when no line names it or its arguments are malformed
 * (an unclosed quote).
 */
char **multiprog_argv(const char *text, int rank);

#endif /* !DROVER_COMMON_MULTIPROG_H */
