/* SPDX-License-Identifier: Apache-2.0
 *
 * spool.h - files the node daemons make as root under SlurmdSpoolDir
 *
 * droverd and droverstepd run as root and write in the spool directory:
 * batch scripts (job<ID>/slurm_script), PMIx directories, step sockets
 * and reports.  Nothing there may be writable by a job's user, and a
 * name that is already there is hostile until proven otherwise: it is
 * removed (never followed) and made afresh.  Every call here works on
 * directory descriptors opened with O_NOFOLLOW, so a symbolic link put
 * in the way is never followed and a path swapped under us is never
 * written through (docs/security.md).
 */
#ifndef DROVER_NODED_SPOOL_H
#define DROVER_NODED_SPOOL_H

#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"

/* The deepest directory tree spool_remove() descends (a tree deeper than
 * this is left in place and reported). */
#define SPOOL_REMOVE_MAX_DEPTH 32

/* Make the spool directory 'path' (mode 0755) when missing and check it
 * is safe to write in as root: a directory (not a symbolic link) owned by
 * this process's effective uid, writable by no one else.  Returns 0, or
 * -1 with 'error' naming the path and what is wrong with it.
 */
int spool_check(const char *path, drv_error_t *error);

/* Remove 'name' in directory 'dir' (a path) and, when it is a directory,
 * everything under it (up to SPOOL_REMOVE_MAX_DEPTH levels), without ever
 * following a symbolic link: links are removed, not their targets.
 * A missing 'name' is success.  Returns 0, or -1 with errno of the first
 * failure (the rest is still attempted); the caller logs.
 */
int spool_remove(const char *dir, const char *name);

/* Make a new directory 'name' in 'dir' owned by this process's effective
 * uid and gid, with exactly 'mode' (umask aside); whatever was at 'name'
 * before is removed first (spool_remove()).  Returns a descriptor of the
 * new directory (O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC; the caller closes it),
 * or -1 with 'error' naming the path and the failure.
 */
int spool_mkdir_fresh(const char *dir, const char *name, mode_t mode,
                      drv_error_t *error);

/* Create the file 'name' in the directory open as 'dirfd', which must not
 * exist (O_EXCL|O_NOFOLLOW), write the 'len' bytes of 'data', give it to
 * 'uid':'gid' (when running as root) with 'mode'.  Returns 0, or -1 with
 * 'error' naming 'name' and the failure (the partial file is removed).
 */
int spool_write_new(int dirfd, const char *name, const void *data, size_t len,
                    mode_t mode, uid_t uid, gid_t gid, drv_error_t *error);

#endif /* !DROVER_NODED_SPOOL_H */
