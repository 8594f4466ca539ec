/* SPDX-License-Identifier: Apache-2.0
 *
 * auth.h - MUNGE credentials bound to the message they travel with
 *
 * Every request carries a MUNGE credential; the receiver takes uid and gid
 * from it, never from the body (design.md).  The credential's payload is a
 * digest of the request type and body, checked on decode, so a captured
 * credential cannot be glued to another message.  Replay and expiry are
 * MUNGE's: munged refuses a credential it has already decoded.
 *
 * Both calls are blocking round trips to munged over its local socket (well
 * under a millisecond normally; munge retries for a few seconds when munged
 * is down).  A proto_auth is not thread-safe: use one per thread.
 */
#ifndef DROVER_PROTO_AUTH_H
#define DROVER_PROTO_AUTH_H

#include <stdbool.h>
#include <sys/types.h>

#include <jansson.h>

#include "common/error.h"

typedef struct proto_auth proto_auth_t;

/* Create a credential context talking to munged at 'socket_path' (copied;
 * NULL = MUNGE's default socket).  Nothing is contacted yet.
 * Returns NULL with errno ENOMEM, or EDRV_PROTOCOL_AUTH with 'error' (may be
 * NULL) holding MUNGE's reason.  Free with proto_auth_destroy().
 */
proto_auth_t *proto_auth_create(const char *socket_path, drv_error_t *error);

/* NULL is a no-op.  errno is preserved. */
void proto_auth_destroy(proto_auth_t *auth);

/* A new context that encodes as 'auth' does (the same munged socket, or
 * the same token) with MUNGE state of its own, so that another thread may
 * encode with it while 'auth' is in use (a MUNGE context is not
 * thread-safe; the async client encodes on libuv's thread pool).  Only
 * for encoding: no token verifier is copied.  Returns NULL with errno
 * EINVAL ('auth' NULL) or ENOMEM.  Free with proto_auth_destroy(). */
proto_auth_t *proto_auth_clone(const proto_auth_t *auth);

/* Mint a credential for a request of 'type' carrying 'body' (a JSON object,
 * borrowed; NULL is taken as {}).  Returns a new string (caller frees with
 * free()), or NULL with errno:
 *   EDRV_PROTOCOL_AUTH  munged refused or is unreachable; 'error' holds
 *                       MUNGE's text, e.g. "Failed to access ...: No such
 *                       file or directory"
 *   EINVAL              type NULL or body not an object
 *   ENOMEM
 */
char *proto_auth_encode(proto_auth_t *auth, const char *type,
                        const json_t *body, drv_error_t *error);

/* proto_auth_encode() for a body already serialized: 'text' ('len'
 * bytes, borrowed) must be what jansson's JSON_COMPACT|JSON_SORT_KEYS
 * dump of the body gives (proto_auth_digest_text()), or the receiver's
 * check fails.  Returns and errors as proto_auth_encode(). */
char *proto_auth_encode_text(proto_auth_t *auth, const char *type,
                             const char *text, size_t len,
                             drv_error_t *error);

/* What joins a token and the user it asks to act as in a credential:
 * "TOKEN;user=NAME" (docs/protocol.md). */
#define PROTO_AUTH_AS_USER ";user="

/* A client context whose "credentials" are the bearer 'token' (copied;
 * SLURM_JWT, or a REST client's token that droverrestd passes on):
 * proto_auth_encode() returns it for every message, followed by
 * PROTO_AUTH_AS_USER and 'as_user' when that is given (NULL or "" for
 * none: X-SLURM-USER-NAME naming another user than the token's; only a
 * token of root or SlurmUser may, the receiver decides, see
 * proto_jwt_accept()).  Tokens are not bound to the message as MUNGE
 * credentials are: whoever holds one acts as its user until it expires
 * (Slurm's auth/jwt alike).  Returns NULL with errno EINVAL (empty, a
 * MUNGE credential, or a token holding ';') or ENOMEM. */
proto_auth_t *proto_auth_create_token(const char *token, const char *as_user,
                                      drv_error_t *error);

/* Checks a bearer token (AuthAltTypes=auth/jwt): on success returns 0 and
 * sets *uid and *gid to its user's; otherwise -1 with errno
 * EDRV_PROTOCOL_AUTH (or ENOMEM) and 'error' saying why. */
typedef int (*proto_token_verify_f)(const char *token, uid_t *uid,
                                    gid_t *gid, drv_error_t *error,
                                    void *arg);

/* Accept bearer tokens on this (server) context: a credential that does
 * not start "MUNGE:" goes to 'verify' (with 'arg').  Without a verifier
 * such credentials are refused. */
void proto_auth_set_token_verifier(proto_auth_t *auth,
                                   proto_token_verify_f verify, void *arg);

/* Check 'cred' and that it was minted for exactly this 'type' and 'body'
 * (borrowed; NULL body is taken as {}).  On success returns 0 and sets *uid
 * and *gid (either pointer may be NULL), and *by_token (may be NULL) to
 * whether 'cred' was a bearer token (proto_auth_set_token_verifier; a
 * token is not bound to the message).  Returns -1 with errno:
 *   EDRV_PROTOCOL_AUTH  invalid, expired, replayed or rewound credential,
 *                       a credential minted for another message or with
 *                       another payload version (drv1), or munged
 *                       unreachable; 'error' says which (MUNGE's text)
 *   EINVAL              cred or type NULL, or body not an object
 *   ENOMEM
 */
int proto_auth_decode(proto_auth_t *auth, const char *cred, const char *type,
                      const json_t *body, uid_t *uid, gid_t *gid,
                      bool *by_token, drv_error_t *error);

/* Size of a message digest, in bytes (SHA-256). */
#define PROTO_AUTH_DIGEST_LEN 32

/* The digest bound into credentials: SHA-256 over 'type', one NUL byte,
 * then the body (borrowed; NULL is taken as {}) serialized by jansson with
 * JSON_COMPACT|JSON_SORT_KEYS.  (A non-jansson sender must reproduce that
 * serialization.)  The credential's payload is "drv2:" followed by the
 * digest in 64 lower-case hex digits (docs/protocol.md).  Returns 0 and
 * fills 'digest' (PROTO_AUTH_DIGEST_LEN bytes, the caller's), or -1 with
 * errno EINVAL (type or digest NULL, body not an object) or ENOMEM.
 */
int proto_auth_digest(const char *type, const json_t *body,
                      unsigned char digest[PROTO_AUTH_DIGEST_LEN]);

/* The same digest over a body already serialized as jansson's
 * JSON_COMPACT|JSON_SORT_KEYS dump would ('text', 'len' bytes, borrowed;
 * not checked), so a sender that keeps records as text (the controller's
 * accounting spool) need not rebuild and dump them.  Returns 0, or -1
 * with errno EINVAL (type, text or digest NULL). */
int proto_auth_digest_text(const char *type, const char *text, size_t len,
                           unsigned char digest[PROTO_AUTH_DIGEST_LEN]);

#endif /* !DROVER_PROTO_AUTH_H */
