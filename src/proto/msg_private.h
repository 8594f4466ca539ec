/* SPDX-License-Identifier: Apache-2.0
 *
 * msg_private.h - envelope helpers shared by the two clients (in msg.c)
 */
#ifndef DROVER_PROTO_MSG_PRIVATE_H
#define DROVER_PROTO_MSG_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "common/error.h"
#include "proto/auth.h"

/* Mint a credential for ('type', 'body') and encode the whole request as a
 * frame.  'body' is stolen, also on failure; NULL means {}.  Returns 0 with
 * *buf (caller frees) and *len, or -1 with errno (EDRV_PROTOCOL_AUTH,
 * EMSGSIZE, EINVAL, ENOMEM) and 'error' filled.
 */
int proto__request_frame(proto_auth_t *auth, const char *type, json_t *body,
                         char **buf, size_t *len, drv_error_t *error);

/* The text a request's 'body' (stolen, also on failure; NULL means {})
 * is sent and its credential bound as: jansson's JSON_COMPACT|
 * JSON_SORT_KEYS dump.  Returns it (caller frees) with *len, or NULL with
 * errno (EINVAL: no type, or a body that is not an object; ENOMEM) and
 * 'error' filled. */
char *proto__request_text(const char *type, json_t *body, size_t *len,
                          drv_error_t *error);

/* proto__request_frame() for a body already serialized: 'text' ('len'
 * bytes, borrowed) is a JSON object as jansson's JSON_COMPACT|
 * JSON_SORT_KEYS dump gives it (the credential binds that text:
 * proto_auth_encode_text()).  Returns as proto__request_frame().
 */
int proto__request_frame_text(proto_auth_t *auth, const char *type,
                              const char *text, size_t len, char **buf,
                              size_t *buf_len, drv_error_t *error);

/* Interpret 'msg' as the answer to a request of 'type'.  Returns 0 with
 * *body borrowed from 'msg'.  Returns -1 with errno and 'error' filled:
 * for an error response *server_error is set true and errno is the server's
 * errnum (text: its errstr, else drv_strerror); otherwise *server_error is
 * false and errno is EDRV_PROTOCOL_MALFORMED (or ENOMEM).
 * 'peer' names the server in texts.
 */
int proto__response_parse(json_t *msg, const char *type, const char *peer,
                          json_t **body, bool *server_error,
                          drv_error_t *error);

/* libuv writes with write(2), so a peer that went away raises SIGPIPE,
 * which kills a process by default.  If SIGPIPE still has its default
 * action, ignore it (the write then fails with EPIPE); a handler or
 * disposition the program chose is left alone.
 */
void proto__sigpipe_ignore(void);

#endif /* !DROVER_PROTO_MSG_PRIVATE_H */
