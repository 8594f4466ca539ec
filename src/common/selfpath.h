/* SPDX-License-Identifier: Apache-2.0
 *
 * selfpath.h - where the running program lives, to find the programs
 * installed beside it (the build tree and an installed prefix alike)
 */
#ifndef DROVER_COMMON_SELFPATH_H
#define DROVER_COMMON_SELFPATH_H

/* The directory of the running program (/proc/self/exe).  Returns a new
 * string (caller frees), or NULL with errno from readlink() when it cannot
 * be read.  Aborts on ENOMEM (xalloc). */
char *self_dir(void);

/* "<self_dir()>/name", or NULL as self_dir().  Caller frees. */
char *self_sibling(const char *name);

#endif /* !DROVER_COMMON_SELFPATH_H */
