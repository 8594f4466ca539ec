/* SPDX-License-Identifier: Apache-2.0
 *
 * jsonget.h - forgiving reads of fields in controller records
 *
 * Commands print what the controller sent; unknown fields are ignored and
 * missing ones fall back to a default, so an older or newer controller still
 * gives readable output (docs/protocol.md: unknown fields are ignored).
 *
 * A record is an object, or a row of a listing read into a table
 * (rowtable.h: job_info "rows", read without a hash table per record).
 * Every read below takes either.  The key of a read of a row must be a
 * text that does not change while its table lives: a string literal.
 */
#ifndef DROVER_CMD_LIB_JSONGET_H
#define DROVER_CMD_LIB_JSONGET_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

/* The string at 'key', or NULL when absent or not a string.  Borrowed from
 * 'o'.
 */
const char *jstr(const json_t *o, const char *key);

/* As jstr(), but 'dflt' when absent, not a string, or empty. */
const char *jstr_or(const json_t *o, const char *key, const char *dflt);

/* The integer at 'key' ('dflt' when absent or not a number; reals are
 * truncated).
 */
int64_t jint(const json_t *o, const char *key, int64_t dflt);

/* The boolean at 'key' ('dflt' when absent; numbers count as true when
 * non-zero).
 */
bool jbool(const json_t *o, const char *key, bool dflt);

/* True when 'key' is present (any type). */
bool jhas(const json_t *o, const char *key);

/* The value at 'key' of record 'o' (object or row); NULL when absent
 * (for a row: null) or 'o' is NULL.  Borrowed (a row's is made once and
 * kept with its table). */
json_t *jget(const json_t *o, const char *key);

/* Set 'key' of record 'o' to 'v' (stolen; NULL removes it).  A row has
 * only its columns: a key that is none is not set. */
void jset(json_t *o, const char *key, json_t *v);

/* A copy of record 'o' that jset() may change: an object's deep copy
 * (caller decrefs), or a row added to its table (json_decref() is a no-op
 * on it; it lives as long as the table).  NULL without memory. */
json_t *jcopy(const json_t *o);

#endif /* !DROVER_CMD_LIB_JSONGET_H */
