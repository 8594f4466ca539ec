/* SPDX-License-Identifier: Apache-2.0
 *
 * req_field.h - the type, range and size of every value a request body
 * carries, checked before a handler reads any of them
 *
 * A handler describes its body with one table of struct req_field and
 * calls req_check() first: a value of the wrong JSON type, an integer out
 * of its range, a string over its length or holding a control character
 * is refused with an error naming the key, instead of being ignored,
 * truncated or wrapped by a cast.  Keys not in the table are left alone
 * (docs/protocol.md: unknown fields are ignored).  Pure: no allocation,
 * no state.
 */
#ifndef DROVER_CTLD_REQ_FIELD_H
#define DROVER_CTLD_REQ_FIELD_H

#include <stdint.h>
#include <jansson.h>

#include "common/error.h"

enum req_type {
    REQ_INT,      /* integer in [min, max] */
    REQ_BOOL,     /* true or false (not 0 or 1) */
    REQ_STR,      /* string of at most max bytes */
    REQ_STR_LIST, /* array of at most max strings */
    REQ_STR_MAP,  /* object of at most max string values */
};

enum req_flags {
    REQ_PRINTABLE = 1 << 0, /* REQ_STR: no control character (0x01-0x1f,
                               0x7f): the value is printed one per line */
    REQ_REQUIRED = 1 << 1,  /* absent is an error ("key: missing") */
};

/* One key of a request body. */
struct req_field {
    const char *key;
    enum req_type type;
    int64_t min, max; /* REQ_INT: inclusive range; else the size's (bytes
                         of a string, members of a list or map) */
    int errnum;       /* errno for a value out of range or too long;
                         0: EDRV_PROTOCOL_MALFORMED */
    unsigned flags;   /* enum req_flags */
};

/* Largest time limit or time value in seconds a request may carry:
 * Slurm's largest finite limit (2^32 - 3 minutes), far below any int64_t
 * overflow when added to an epoch time. */
#define REQ_TIME_MAX_S ((int64_t)0xfffffffd * 60)

/* Longest name-like string (job name, comment, partition, account...):
 * Slurm's limit for these job fields. */
#define REQ_STR_MAX 1024

/* Longest path (work_dir, std_out...): Linux's PATH_MAX. */
#define REQ_PATH_MAX 4096

/* Longest list-like string (-w/-x host lists, a dependency list) and
 * most members of an argv or environment. */
#define REQ_LIST_MAX 131072

/* Latest epoch time a request may carry (9999-12-31 23:59:59 UTC). */
#define REQ_EPOCH_MAX ((int64_t)253402300799)

/* Check key 'f->key' of object 'body' against 'f' (absent passes unless
 * REQ_REQUIRED; JSON null is a type error).
 * Returns 0, or -1 with errno EDRV_PROTOCOL_MALFORMED (wrong type),
 * f->errnum or EDRV_PROTOCOL_MALFORMED (out of range, too long),
 * EDRV_CONTROL_CHARACTER (REQ_PRINTABLE), and 'error' (may be NULL)
 * naming the key and what is wrong.
 */
int req_check_field(json_t *body, const struct req_field *f,
                    drv_error_t *error);

/* req_check_field() for every row of 'fields', which ends with a row
 * whose key is NULL; stops at the first error.  A body that is not an
 * object is EDRV_PROTOCOL_MALFORMED.  Returns 0 or -1 as above.
 */
int req_check(json_t *body, const struct req_field *fields,
              drv_error_t *error);

/* Integer 'key' of 'body' in [min, max] into *out (untouched when the key
 * is absent).  Returns 1 when present and valid, 0 when absent, -1 as
 * req_check_field() with 'errnum' for a value out of range.
 */
int req_int(json_t *body, const char *key, int64_t min, int64_t max,
            int errnum, int64_t *out, drv_error_t *error);

#endif /* !DROVER_CTLD_REQ_FIELD_H */
