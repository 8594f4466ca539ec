/* SPDX-License-Identifier: Apache-2.0
 *
 * launch_store.h - the batch script and environment of pending jobs, kept
 * compact and shared
 *
 * A job's launch data ({"script","argv","env",...}) is most of what a
 * pending job costs: a jansson object of 40 variables takes ~7 KiB.  Here
 * the environment is kept as its compact JSON text, and identical scripts
 * and environments (a sweep submitted from one shell) share one string.
 */
#ifndef DROVER_CTLD_LAUNCH_STORE_H
#define DROVER_CTLD_LAUNCH_STORE_H

#include <jansson.h>

struct launch_store;

/* Create / destroy (NULL is a no-op).  Creation aborts on ENOMEM (glue). */
struct launch_store *launch_store_create(void);
void launch_store_destroy(struct launch_store *ls);

/* Return the stored form of 'launch' (borrowed in): "env" (object) becomes
 * "env_text" (compact sorted JSON), and "script" and "env_text" are shared
 * with other jobs that have the same text.  A launch already in stored form
 * is re-shared.  Identical stored launches are one object, shared: it must
 * not be changed.  New reference; NULL if 'launch' is NULL.
 */
json_t *launch_store_pack(struct launch_store *ls, json_t *launch);

/* The wire form for droverd: "env" as an object again.  New reference. */
json_t *launch_store_unpack(json_t *stored);

/* Forget shared texts no job holds any more.  Call now and then. */
void launch_store_sweep(struct launch_store *ls);

#endif /* !DROVER_CTLD_LAUNCH_STORE_H */
