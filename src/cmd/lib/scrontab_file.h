/* SPDX-License-Identifier: Apache-2.0
 *
 * scrontab_file.h - a crontab file (scrontab(1)) read into its entries,
 * each one a batch job description
 *
 * Lines, as Slurm 22.05's scrontab reads them: blank lines and '#'
 * comments are skipped; "#SCRON <options>" lines hold sbatch options for
 * the next entry only (parsed by sbatch's own parser, sbatch_opt.h);
 * "NAME=value" lines set a variable that "$NAME" in later commands is
 * replaced with; any other line is an entry, a time specification
 * (common/cron.h) and a command.  Each entry becomes the job Slurm's
 * scrontab submits: the script "#!/bin/sh", "# This job was submitted
 * through scrontab", its #SCRON lines, "# crontab time request was:
 * '<spec>'" and the command, run from the user's home directory unless
 * --chdir says otherwise, named after the command's first word unless
 * --job-name does, with the user's login environment (SLURM_GET_USER_ENV).
 */
#ifndef DROVER_CMD_LIB_SCRONTAB_FILE_H
#define DROVER_CMD_LIB_SCRONTAB_FILE_H

#include <stdio.h>
#include <jansson.h>

/* Read crontab 'text' for a user whose home directory is 'home'.
 * Returns a new array of {"line_start", "line_end", "cron_spec", "job"}
 * (lines 1-based, the first #SCRON line to the entry's), the body of
 * crontab_set's "entries".  On the first bad line returns NULL with
 * *bad_line set to its number, and the reason on 'err' as
 * "scrontab: error: line N: ..." lines (sbatch's own messages for a bad
 * #SCRON option).
 */
json_t *scrontab_file_entries(const char *text, const char *home,
                              int *bad_line, FILE *err);

/* 'text' with the lines numbered in 'lines' (an array of 1-based line
 * numbers; NULL: none) prefixed 'prefix': "#DISABLED: " as scrontab -l
 * shows entries scancel disabled, "#BAD: " as scrontab -e marks the lines
 * refused before editing again (Slurm's words).  Caller frees. */
char *scrontab_file_mark(const char *text, json_t *lines,
                         const char *prefix);

#endif /* !DROVER_CMD_LIB_SCRONTAB_FILE_H */
