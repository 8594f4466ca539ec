/* SPDX-License-Identifier: Apache-2.0
 *
 * bitmap.h - fixed-size bit sets (GPU indices, CPU ids, node sets)
 *
 * Formats as Slurm's ranges: bits 0,1,2,5 -> "0-2,5".
 */
#ifndef DROVER_COMMON_BITMAP_H
#define DROVER_COMMON_BITMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

typedef struct bitmap bitmap_t;

/* New bitmap of 'nbits' bits, all clear.  NULL with errno=ENOMEM. */
bitmap_t *bitmap_create(size_t nbits);

/* Copy.  NULL with errno=ENOMEM. */
bitmap_t *bitmap_copy(const bitmap_t *b);

size_t bitmap_size(const bitmap_t *b);
void bitmap_set(bitmap_t *b, size_t bit);
void bitmap_clear(bitmap_t *b, size_t bit);
bool bitmap_test(const bitmap_t *b, size_t bit);
void bitmap_clear_all(bitmap_t *b);

/* Number of set bits. */
size_t bitmap_count(const bitmap_t *b);

/* First clear bit at or after 'from', or -1 if none. */
long bitmap_first_clear(const bitmap_t *b, size_t from);

/* First set bit at or after 'from', or -1 if none. */
long bitmap_first_set(const bitmap_t *b, size_t from);

/* Set in 'dst' every bit set in 'src' (sizes must match) / clear them. */
void bitmap_or(bitmap_t *dst, const bitmap_t *src);
void bitmap_and_not(bitmap_t *dst, const bitmap_t *src);

/* True if any bit is set in both. */
bool bitmap_overlap(const bitmap_t *a, const bitmap_t *b);

/* Ranges form "0-2,5" ("" when empty).  Caller frees.  NULL on ENOMEM. */
char *bitmap_fmt(const bitmap_t *b);

/* Parse "0-2,5" into a new bitmap of 'nbits' bits.  NULL with errno EINVAL
 * (syntax, or a bit >= nbits; 'error' says which) or ENOMEM.
 */
bitmap_t *bitmap_parse(const char *s, size_t nbits, drv_error_t *error);

/* Bits a ranges form such as "0-3,8" needs: its largest number + 1, at
 * most 'max' (bitmap_parse() of a larger number then fails). */
size_t bitmap_list_bits(const char *s, size_t max);

/* NULL is a no-op.  errno is preserved. */
void bitmap_destroy(bitmap_t *b);

#endif /* !DROVER_COMMON_BITMAP_H */
