/* SPDX-License-Identifier: Apache-2.0
 *
 * sbatch_files.h - the files some options name: --nodefile (-F) and
 * sbatch's --export-file
 */
#ifndef DROVER_CMD_LIB_SBATCH_FILES_H
#define DROVER_CMD_LIB_SBATCH_FILES_H

#include <stddef.h>

#include <jansson.h>

/* Read the node names of --nodefile 'path': names separated by commas,
 * blanks or newlines, over any number of lines (Slurm's -F), duplicates
 * kept once.  Returns a comma-separated list (malloc'd, the caller frees)
 * for -w, or NULL with a message in 'err' ('size' bytes): the file cannot
 * be read, holds no name, or is over 1 MiB.
 */
char *sbatch_read_nodefile(const char *path, char *err, size_t size);

/* Add the variables of --export-file 'spec' to 'env' (NAME -> value):
 * NAME=value definitions separated by NUL bytes, as Slurm's sbatch reads
 * them (so values may hold newlines).  'spec' is a file name, or a number
 * from 3 up read as an open file descriptor (Slurm's rule: 0-2 are not
 * accepted as descriptors, so "1" names a file).  Returns 0, or -1 with a
 * message in 'err': unreadable, over 1 MiB, or an entry without '='.
 */
int sbatch_read_export_file(const char *spec, json_t *env, char *err,
                            size_t size);

#endif /* !DROVER_CMD_LIB_SBATCH_FILES_H */
