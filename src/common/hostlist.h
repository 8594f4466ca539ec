/* SPDX-License-Identifier: Apache-2.0
 *
 * hostlist.h - ordered host names with Slurm's range syntax
 *
 * "gpu[01-03],login1" <-> gpu01 gpu02 gpu03 login1
 */
#ifndef DROVER_COMMON_HOSTLIST_H
#define DROVER_COMMON_HOSTLIST_H

#include <stddef.h>

#include "common/error.h"

/* Hosts in one expression.  The fuzz build (meson -Dfuzz=true) lowers it,
 * so that an input of a few bytes cannot cost seconds and a gigabyte
 * under ASan by expanding to a million hosts: libFuzzer then reaches the
 * same over-the-limit paths at a size it can afford (tests/fuzz/README). */
#ifndef HOSTLIST_MAX
#define HOSTLIST_MAX 1000000
#endif

typedef struct hostlist hostlist_t;

/* Create an empty hostlist.  NULL with errno=ENOMEM. */
hostlist_t *hostlist_create(void);

/* Parse a hostlist expression such as "gpu[001-016],login1" or
 * "n[1-3,7],m[01-02]x".  Zero padding is significant, as in Slurm: "n[1-3]"
 * gives n1, "n[01-03]" n01.  An empty string gives an empty list.
 * Returns a new hostlist (free with hostlist_destroy()), or NULL with errno:
 *   EINVAL  syntax error; 'error' says what and where
 *   ERANGE  more than HOSTLIST_MAX hosts
 *   ENOMEM
 * 'error' may be NULL.
 */
hostlist_t *hostlist_decode(const char *expr, drv_error_t *error);

/* Append one host name (copied).  Returns 0, or -1 with errno=ENOMEM. */
int hostlist_append(hostlist_t *hl, const char *host);

/* Return the compressed expression, in list order, merging consecutive
 * numeric suffixes of the same prefix and width: n01 n02 n03 n05 ->
 * "n[01-03,05]".  Caller frees with free().  NULL with errno=ENOMEM.
 */
char *hostlist_encode(const hostlist_t *hl);

/* Return host n (0-based).  Borrowed: valid until 'hl' is modified.
 * NULL with errno=ERANGE if n >= hostlist_count(hl).
 */
const char *hostlist_nth(const hostlist_t *hl, size_t n);

/* Index of 'host' in the list, or -1 if absent. */
long hostlist_find(const hostlist_t *hl, const char *host);

size_t hostlist_count(const hostlist_t *hl);

/* NULL is a no-op.  errno is preserved. */
void hostlist_destroy(hostlist_t *hl);

#endif /* !DROVER_COMMON_HOSTLIST_H */
