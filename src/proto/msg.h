/* SPDX-License-Identifier: Apache-2.0
 *
 * msg.h - the message envelope carried in every frame
 *
 *   request:  {"v":1,"type":"job_submit","cred":"<munge>","body":{...}}
 *   response: {"v":1,"type":"job_submit","body":{...}}
 *   error:    {"v":1,"type":"error","body":{"errnum":2017,"errstr":"..."}}
 *
 * A response echoes the request's type; an error response has type "error"
 * and errnum is an EDRV_* number or an errno value; errstr is optional detail.
 * Unknown fields are ignored everywhere, so versions interoperate during a
 * rolling upgrade.  The body of each type is described by its table in
 * schema_msgs.c (schema.h), which the server checks before the handler
 * runs; this header only knows the envelope.
 */
#ifndef DROVER_PROTO_MSG_H
#define DROVER_PROTO_MSG_H

#include <stdbool.h>

#include <jansson.h>

#include "common/error.h"

#define PROTO_VERSION 1
#define PROTO_TYPE_ERROR "error"

/* A parsed envelope.  All pointers are borrowed from the json_t that was
 * parsed and are valid while it lives.
 */
struct proto_msg {
    int v;            /* always PROTO_VERSION after a successful parse */
    const char *type; /* non-empty */
    const char *cred; /* NULL when the message carries no "cred" */
    json_t *body;     /* an object; never NULL after a successful parse */
};

/* Build a request envelope.  'type' is copied; 'cred' (may be NULL: left out)
 * is copied; 'body' is stolen, also on failure, and NULL means {}.
 * Returns a new object, or NULL with errno EINVAL (no type, or a body that is
 * not an object) or ENOMEM.
 */
json_t *proto_msg_request(const char *type, const char *cred, json_t *body);

/* Build a success response envelope; as proto_msg_request without a cred. */
json_t *proto_msg_response(const char *type, json_t *body);

/* Build an error response.  errnum: EDRV_* or errno (0 becomes EDRV_ERROR);
 * errstr: detail for people, copied, may be NULL (left out).
 * Returns a new object, or NULL with errno=ENOMEM.
 */
json_t *proto_msg_error(int errnum, const char *errstr);

/* Check and take apart an envelope.  A missing "body" is taken as {} and is
 * added to 'msg' (so 'out->body' is never NULL).  Returns 0, or -1 with errno
 * and 'error' (may be NULL) saying why:
 *   EPROTO           "v" not an integer, "type" not a non-empty string,
 *                    "cred" present but not a string, "body" not an object
 *   EPROTONOSUPPORT  "v" is not PROTO_VERSION
 *   ENOMEM
 */
int proto_msg_parse(json_t *msg, struct proto_msg *out, drv_error_t *error);

/* Read the body of an error response.  *errnum gets "errnum" (EDRV_ERROR when
 * it is missing, zero or not an integer); *errstr gets "errstr" (borrowed from
 * 'body') or NULL when absent or empty.
 */
void proto_msg_error_parse(const json_t *body, int *errnum,
                           const char **errstr);

/* Answers in parts (docs/protocol.md): join the answer read so far,
 * '*acc' (NULL before the first part), and the next frame 'msg' (stolen),
 * a part when it is marked "more": true.  Each array member of msg's body is
 * appended to the same member of acc's body, other members are set.
 * When 'msg' is a part, it is kept in *acc (the first) or joined to it
 * and NULL is returned; otherwise the joined answer is returned (msg's
 * envelope with the joined body) and *acc is NULL.  An error answer ends
 * the parts: it is returned as it is and the parts are dropped.  NULL
 * with errno ENOMEM (everything freed, *acc NULL) also.  Parts whose
 * bodies are not objects join as empty ones. */
json_t *proto_msg_join_part(json_t **acc, json_t *msg);

#endif /* !DROVER_PROTO_MSG_H */
