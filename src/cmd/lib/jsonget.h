/* SPDX-License-Identifier: Apache-2.0
 *
 * jsonget.h - forgiving reads of fields in controller records
 *
 * Commands print what the controller sent; unknown fields are ignored and
 * missing ones fall back to a default, so an older or newer controller still
 * gives readable output (docs/protocol.md: unknown fields are ignored).
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

#endif /* !DROVER_CMD_LIB_JSONGET_H */
