/* SPDX-License-Identifier: Apache-2.0
 *
 * schema.h - the message schema: every request body's keys, with their
 * JSON type, bounds, unit and meaning, one table per message type
 *
 * A handler table entry (server.h) names its message's schema; the
 * server checks the body against it before the handler runs: a value of
 * the wrong JSON type, an integer out of its range, a string over its
 * length or holding a control character, a required key missing, each is
 * refused with an error naming the key, instead of being ignored,
 * truncated or wrapped by a cast.  Keys not in the table are left alone
 * (docs/protocol.md: unknown fields are ignored, so versions
 * interoperate).  The same tables print docs/protocol-messages.md
 * (schema_doc_write(); a unit test keeps the file equal to them).
 * Checking is pure: no allocation, no state.
 */
#ifndef DROVER_PROTO_SCHEMA_H
#define DROVER_PROTO_SCHEMA_H

#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "common/error.h"

enum schema_type {
    SCHEMA_INT,      /* integer in [min, max] */
    SCHEMA_BOOL,     /* true or false (not 0 or 1) */
    SCHEMA_STR,      /* string of min to max bytes */
    SCHEMA_STR_LIST, /* array of min to max strings */
    SCHEMA_STR_MAP,  /* object of at most max string values */
    SCHEMA_INT_LIST, /* array of at most max integers */
    SCHEMA_OBJECT,   /* object of at most max members, checked by its
                        handler (a nested record: an allocation, a usage) */
    SCHEMA_ARRAY,    /* array of at most max values, checked by its
                        handler */
};

enum schema_flags {
    SCHEMA_PRINTABLE = 1 << 0, /* SCHEMA_STR: no control character
                                  (0x01-0x1f, 0x7f): the value is printed
                                  one per line */
    SCHEMA_REQUIRED = 1 << 1,  /* absent is an error ("key: missing") */
    SCHEMA_HEX = 1 << 2,       /* SCHEMA_STR: hexadecimal digits only */
};

/* One key of a request body.  Rows are written positionally:
 * {key, type, min, max, errnum, flags, unit, doc}. */
struct schema_field {
    const char *key;
    enum schema_type type;
    int64_t min, max; /* SCHEMA_INT: inclusive range; else the size's
                         (bytes of a string, members of a list or map) */
    int errnum;       /* errno for a value out of range or too long;
                         0: EDRV_PROTOCOL_MALFORMED */
    unsigned flags;   /* enum schema_flags */
    const char *unit; /* "s", "MiB", "epoch s", "count"...; NULL: none */
    const char *doc;  /* what it means, for docs/protocol-messages.md */
};

/* One message type: its request body and what its answer carries. */
struct proto_schema {
    const char *type;                  /* "job_submit" */
    const char *who;                   /* which daemon serves it */
    const char *doc;                   /* what it does */
    const struct schema_field *body;   /* ends with a row whose key is
                                          NULL; NULL: no keys read */
    const char *answer;                /* the answer's body, in words */
};

/* Every message type of the protocol, in docs order; ends with a row
 * whose type is NULL.  The tables live in schema_msgs.c. */
extern const struct proto_schema proto_schemas[];

/* The schema of message 'type', or NULL when none is known. */
const struct proto_schema *proto_schema_find(const char *type);

/* Write docs/protocol-messages.md: a section per message type with a
 * table of its body's keys.  Returns 0, or -1 with errno from stdio. */
int schema_doc_write(FILE *out);

/* Largest time limit or time value in seconds a request may carry:
 * Slurm's largest finite limit (2^32 - 3 minutes), far below any int64_t
 * overflow when added to an epoch time. */
#define SCHEMA_TIME_MAX_S ((int64_t)0xfffffffd * 60)

/* Longest name-like string (job name, comment, partition, account...):
 * Slurm's limit for these job fields. */
#define SCHEMA_STR_MAX 1024

/* Longest path (work_dir, std_out...): Linux's PATH_MAX. */
#define SCHEMA_PATH_MAX 4096

/* Longest list-like string (-w/-x host lists, a dependency list) and
 * most members of an argv or environment. */
#define SCHEMA_LIST_MAX 131072

/* Latest epoch time a request may carry (9999-12-31 23:59:59 UTC). */
#define SCHEMA_EPOCH_MAX ((int64_t)253402300799)

/* Check key 'f->key' of object 'body' against 'f' (absent passes unless
 * SCHEMA_REQUIRED; JSON null is a type error).
 * Returns 0, or -1 with errno EDRV_PROTOCOL_MALFORMED (wrong type),
 * f->errnum or EDRV_PROTOCOL_MALFORMED (out of range, too long),
 * EDRV_CONTROL_CHARACTER (SCHEMA_PRINTABLE), and 'error' (may be NULL)
 * naming the key and what is wrong.
 */
int schema_check_field(json_t *body, const struct schema_field *f,
                    drv_error_t *error);

/* schema_check_field() for every row of 'fields', which ends with a row
 * whose key is NULL; stops at the first error.  A body that is not an
 * object is EDRV_PROTOCOL_MALFORMED.  Returns 0 or -1 as above.
 */
int schema_check(json_t *body, const struct schema_field *fields,
              drv_error_t *error);

/* Integer 'key' of 'body' in [min, max] into *out (untouched when the key
 * is absent).  Returns 1 when present and valid, 0 when absent, -1 as
 * schema_check_field() with 'errnum' for a value out of range.
 */
int schema_int(json_t *body, const char *key, int64_t min, int64_t max,
            int errnum, int64_t *out, drv_error_t *error);

#endif /* !DROVER_PROTO_SCHEMA_H */
