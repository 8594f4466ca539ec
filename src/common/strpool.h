/* SPDX-License-Identifier: Apache-2.0
 *
 * strpool.h - shared, reference-counted copies of strings
 *
 * Many records hold the same few texts (a user's name, a partition, a
 * working directory): a pool keeps one copy of each and counts its
 * holders, so a record costs a pointer per text instead of an allocation.
 * The pool is a hash table (uthash) keyed by the text.  Not thread-safe.
 */
#ifndef DROVER_COMMON_STRPOOL_H
#define DROVER_COMMON_STRPOOL_H

#include <stddef.h>

struct strpool;

/* A new, empty pool.  Never NULL (aborts on ENOMEM, as xalloc.h). */
struct strpool *strpool_create(void);

/* Free the pool and every string in it, whether held or not.  NULL is a
 * no-op. */
void strpool_destroy(struct strpool *pool);

/* The pool's copy of 's', with one more holder: the same pointer for equal
 * texts while any holder remains.  NULL for NULL.  Release it with
 * strpool_put(), never free(). */
const char *strpool_get(struct strpool *pool, const char *s);

/* Drop one holder of 's' (a strpool_get() result of this pool); the copy
 * is freed with its last holder.  NULL is a no-op. */
void strpool_put(struct strpool *pool, const char *s);

/* Replace the string *field holds (a strpool_get() result, or NULL) by the
 * pool's copy of 'value' (NULL clears it). */
void strpool_set(struct strpool *pool, const char **field, const char *value);

/* Distinct strings in the pool, and the bytes they take (text, counts and
 * the table's entries; not malloc's own overhead). */
size_t strpool_count(const struct strpool *pool);
size_t strpool_bytes(const struct strpool *pool);

#endif /* !DROVER_COMMON_STRPOOL_H */
