/* SPDX-License-Identifier: Apache-2.0
 *
 * jwt_auth.h - JSON Web Tokens as Slurm's auth/jwt makes them (HS256)
 *
 * AuthAltTypes=auth/jwt with AuthAltParameters=jwt_key=PATH lets a client
 * authenticate with a token instead of a MUNGE credential: REST clients
 * (droverrestd passes their token on) and commands run with SLURM_JWT set.
 * A token is an RFC 7519 JWT signed with HMAC-SHA256 under the cluster's
 * key, with Slurm's claims: "sun" (the user name), "iat" and "exp" (epoch
 * seconds).  Signing and checking are libjwt's; this module holds the key
 * and the rules: only HS256 (never "none", never another algorithm), an
 * expiry that must be present and in the future, a user name that must be
 * present.  Linked by the daemons only: libjwt loads libcrypto, whose
 * start-up cost every command would otherwise pay (auth.c).
 */
#ifndef DROVER_PROTO_JWT_AUTH_H
#define DROVER_PROTO_JWT_AUTH_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "common/error.h"

/* Slurm's lifespan of a token from `scontrol token` without lifespan=
 * (seconds). */
#define PROTO_JWT_DEFAULT_LIFESPAN_S 1800

/* The key shortest key accepted (bytes): HS256 wants at least its hash
 * size (RFC 7518 3.2). */
#define PROTO_JWT_MIN_KEY 32

typedef struct proto_jwt proto_jwt_t;

/* Read the HS256 key from 'path', as slurmctld does for jwt_key=: the file
 * must be a regular file not readable or writable by others (Slurm:
 * "must not be accessible by 'other'") holding at least PROTO_JWT_MIN_KEY
 * bytes (all of it is the key, binary or text).  Returns the key holder
 * (free with proto_jwt_destroy), or NULL with errno and 'error' naming the
 * path and the fault:  ENOENT/EACCES... (cannot read), EPERM (accessible
 * by others), EINVAL (too short, not a regular file), ENOMEM. */
proto_jwt_t *proto_jwt_load(const char *path, drv_error_t *error);

/* The same from 'len' bytes at 'key' (copied); EINVAL when too short. */
proto_jwt_t *proto_jwt_from_key(const void *key, size_t len,
                                drv_error_t *error);

/* NULL is a no-op; the key bytes are wiped. */
void proto_jwt_destroy(proto_jwt_t *jwt);

/* A token for 'user' issued at 'now' expiring 'lifespan_s' seconds later
 * (> 0).  Returns a new string (caller frees with free()), or NULL with
 * errno EINVAL (no user, lifespan <= 0) or ENOMEM and 'error' set. */
char *proto_jwt_issue(const proto_jwt_t *jwt, const char *user, time_t now,
                      long lifespan_s, drv_error_t *error);

/* Check 'token' at time 'now': signed with this key by HS256, an "exp"
 * later than 'now', a non-empty "sun".  Returns 0 and sets *user to the
 * user name (a new string, caller frees) and *exp (may be NULL) to the
 * expiry; or -1 with errno EDRV_PROTOCOL_AUTH (or ENOMEM) and 'error'
 * saying why: "token is not a JWT", "token is not signed with HS256
 * (alg none)", "token signature does not match the key", "token expired
 * at 1764201234", "token carries no user name (sun)". */
int proto_jwt_verify(const proto_jwt_t *jwt, const char *token, time_t now,
                     char **user, time_t *exp, drv_error_t *error);

struct ident;
struct proto_auth;

/* Make the server context 'auth' accept tokens signed with 'jwt' in place
 * of MUNGE credentials (proto_auth_set_token_verifier): the token's "sun"
 * is the sender, its uid and primary gid looked up through 'ident' (a
 * name that is no user here is refused).  A credential that names a user
 * to act as (proto_auth_create_token()'s 'as_user') is that user's only
 * when the token is root's or 'proxy_uid''s (SlurmUser's), as Slurm's
 * auth/jwt lets those proxy for any user (slurmrestd's
 * X-SLURM-USER-NAME); another user's token naming someone else is
 * refused.  Both pointers are borrowed and must outlive 'auth'. */
void proto_jwt_accept(struct proto_auth *auth, proto_jwt_t *jwt,
                      struct ident *ident, uid_t proxy_uid);

#endif /* !DROVER_PROTO_JWT_AUTH_H */
