/* SPDX-License-Identifier: Apache-2.0
 *
 * auth.c - MUNGE credentials whose payload binds them to one message
 *
 * The payload is "drv2:" + 64 hex digits of a SHA-256 digest (GNU Nettle's)
 * of the message, so a peer cannot build a second body that fits a
 * credential it captured.  Nettle rather than OpenSSL's libcrypto: every
 * command mints a credential, and loading and initializing libcrypto cost
 * each command process 1.7 ms (serial sbatch fell from 203 to 151 jobs/s);
 * Nettle costs 0.1 ms.  Payloads of other versions (the retired FNV-1a
 * "drv1:") are refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <munge.h>
#include <nettle/sha2.h>

#include "proto/auth.h"

#define PAYLOAD_PREFIX "drv2:"
#define PAYLOAD_PREFIX_LEN (sizeof(PAYLOAD_PREFIX) - 1)
#define PAYLOAD_LEN (PAYLOAD_PREFIX_LEN + 2 * PROTO_AUTH_DIGEST_LEN)

/* Every MUNGE credential starts so; anything else is a bearer token. */
#define MUNGE_PREFIX "MUNGE:"

struct proto_auth {
    munge_ctx_t ctx;           /* NULL for a token client */
    char *token;               /* client: sent in place of a credential */
    proto_token_verify_f verify; /* server: checks tokens (NULL: refused) */
    void *verify_arg;
};

static int digest_chunk(const char *chunk, size_t size, void *arg)
{
    sha256_update(arg, size, (const uint8_t *)chunk);
    return 0;
}

int proto_auth_digest(const char *type, const json_t *body,
                      unsigned char digest[PROTO_AUTH_DIGEST_LEN])
{
    json_t *empty = NULL;
    struct sha256_ctx md;
    int ok;

    if (!type || !digest || (body && !json_is_object(body))) {
        errno = EINVAL;
        return -1;
    }
    if (!body && !(body = empty = json_object())) {
        errno = ENOMEM;
        return -1;
    }
    /* The type includes its NUL, so "ab"+{..} and "a"+"b{.." differ. */
    sha256_init(&md);
    sha256_update(&md, strlen(type) + 1, (const uint8_t *)type);
    ok = json_dump_callback(body, digest_chunk, &md,
                            JSON_COMPACT | JSON_SORT_KEYS)
         == 0;
    if (ok)
        sha256_digest(&md, PROTO_AUTH_DIGEST_LEN, digest);
    json_decref(empty);
    if (!ok) {
        errno = ENOMEM; /* allocation is all that can fail here */
        return -1;
    }
    return 0;
}

int proto_auth_digest_text(const char *type, const char *text, size_t len,
                           unsigned char digest[PROTO_AUTH_DIGEST_LEN])
{
    struct sha256_ctx md;

    if (!type || !text || !digest) {
        errno = EINVAL;
        return -1;
    }
    sha256_init(&md);
    sha256_update(&md, strlen(type) + 1, (const uint8_t *)type);
    sha256_update(&md, len, (const uint8_t *)text);
    sha256_digest(&md, PROTO_AUTH_DIGEST_LEN, digest);
    return 0;
}

/* The credential's payload for 'digest'. */
static void make_payload(const unsigned char digest[PROTO_AUTH_DIGEST_LEN],
                         char payload[PAYLOAD_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    char *p = payload + PAYLOAD_PREFIX_LEN;

    memcpy(payload, PAYLOAD_PREFIX, PAYLOAD_PREFIX_LEN);
    for (size_t i = 0; i < PROTO_AUTH_DIGEST_LEN; i++) {
        *p++ = hex[digest[i] >> 4];
        *p++ = hex[digest[i] & 0xf];
    }
    *p = '\0';
}

static int munge_fail(proto_auth_t *auth, munge_err_t e, const char *what,
                      drv_error_t *error)
{
    const char *text = auth->ctx ? munge_ctx_strerror(auth->ctx) : NULL;

    errprintf(error, "%s: %s", what, text ? text : munge_strerror(e));
    errno = e == EMUNGE_NO_MEMORY ? ENOMEM : EDRV_PROTOCOL_AUTH;
    return -1;
}

proto_auth_t *proto_auth_create(const char *socket_path, drv_error_t *error)
{
    proto_auth_t *auth;
    munge_err_t e;

    if (!(auth = calloc(1, sizeof(*auth))))
        return NULL;
    if (!(auth->ctx = munge_ctx_create())) {
        free(auth);
        errno = ENOMEM;
        return NULL;
    }
    if (socket_path
        && (e = munge_ctx_set(auth->ctx, MUNGE_OPT_SOCKET, socket_path))
               != EMUNGE_SUCCESS) {
        munge_fail(auth, e, "MUNGE socket", error);
        proto_auth_destroy(auth);
        return NULL;
    }
    return auth;
}

void proto_auth_destroy(proto_auth_t *auth)
{
    if (auth) {
        int saved_errno = errno;
        if (auth->ctx)
            munge_ctx_destroy(auth->ctx);
        if (auth->token) {
            explicit_bzero(auth->token, strlen(auth->token));
            free(auth->token);
        }
        free(auth);
        errno = saved_errno;
    }
}

proto_auth_t *proto_auth_clone(const proto_auth_t *auth)
{
    proto_auth_t *c;

    if (!auth) {
        errno = EINVAL;
        return NULL;
    }
    if (!(c = calloc(1, sizeof(*c)))
        || (auth->ctx && !(c->ctx = munge_ctx_copy(auth->ctx)))
        || (auth->token && !(c->token = strdup(auth->token)))) {
        proto_auth_destroy(c);
        errno = ENOMEM;
        return NULL;
    }
    return c;
}

/* The credential for a message of 'digest' (NULL: a token context's,
 * which binds none). */
static char *encode_digest(proto_auth_t *auth,
                           const unsigned char *digest, drv_error_t *error)
{
    char payload[PAYLOAD_LEN + 1];
    char *cred = NULL;
    munge_err_t e;

    if (auth->token) {
        if (!(cred = strdup(auth->token)))
            errprintf(error, "out of memory");
        return cred;
    }
    make_payload(digest, payload);
    e = munge_encode(&cred, auth->ctx, payload, (int)PAYLOAD_LEN);
    if (e != EMUNGE_SUCCESS) {
        free(cred);
        munge_fail(auth, e, "MUNGE encode failed", error);
        return NULL;
    }
    return cred;
}

/* A digest failure as proto_auth_encode() reports it. */
static char *digest_failed(drv_error_t *error)
{
    errprintf(error, "cannot digest the message: %s", strerror(errno));
    return NULL;
}

char *proto_auth_encode(proto_auth_t *auth, const char *type,
                        const json_t *body, drv_error_t *error)
{
    unsigned char digest[PROTO_AUTH_DIGEST_LEN];

    if (!auth)
        return errno = EINVAL, digest_failed(error);
    if (!auth->token && proto_auth_digest(type, body, digest) < 0)
        return digest_failed(error);
    return encode_digest(auth, digest, error);
}

char *proto_auth_encode_text(proto_auth_t *auth, const char *type,
                             const char *text, size_t len,
                             drv_error_t *error)
{
    unsigned char digest[PROTO_AUTH_DIGEST_LEN];

    if (!auth)
        return errno = EINVAL, digest_failed(error);
    if (!auth->token && proto_auth_digest_text(type, text, len, digest) < 0)
        return digest_failed(error);
    return encode_digest(auth, digest, error);
}

proto_auth_t *proto_auth_create_token(const char *token, const char *as_user,
                                      drv_error_t *error)
{
    proto_auth_t *auth;
    int n;

    if (!token || !*token || strchr(token, ';')
        || strncmp(token, MUNGE_PREFIX, sizeof(MUNGE_PREFIX) - 1) == 0) {
        errno = EINVAL;
        errprintf(error, "not a token");
        return NULL;
    }
    if (!(auth = calloc(1, sizeof(*auth)))) {
        errno = ENOMEM;
        errprintf(error, "out of memory");
        return NULL;
    }
    if (as_user && *as_user)
        n = asprintf(&auth->token, "%s" PROTO_AUTH_AS_USER "%s", token,
                     as_user);
    else
        n = (auth->token = strdup(token)) ? 0 : -1;
    if (n < 0) {
        auth->token = NULL;
        free(auth);
        errno = ENOMEM;
        errprintf(error, "out of memory");
        return NULL;
    }
    return auth;
}

void proto_auth_set_token_verifier(proto_auth_t *auth,
                                   proto_token_verify_f verify, void *arg)
{
    auth->verify = verify;
    auth->verify_arg = arg;
}

/* A credential that is not MUNGE's: the token verifier's, if any. */
static int decode_token(proto_auth_t *auth, const char *cred, uid_t *uid,
                        gid_t *gid, drv_error_t *error)
{
    uid_t u;
    gid_t g;

    if (!auth->verify) {
        errno = EDRV_PROTOCOL_AUTH;
        return errprintf(error, "credential is not a MUNGE credential "
                                "(tokens need AuthAltTypes=auth/jwt)");
    }
    if (auth->verify(cred, &u, &g, error, auth->verify_arg) < 0)
        return -1;
    if (uid)
        *uid = u;
    if (gid)
        *gid = g;
    return 0;
}

int proto_auth_decode(proto_auth_t *auth, const char *cred, const char *type,
                      const json_t *body, uid_t *uid, gid_t *gid,
                      bool *by_token, drv_error_t *error)
{
    char payload[PAYLOAD_LEN + 1];
    unsigned char digest[PROTO_AUTH_DIGEST_LEN];
    void *buf = NULL;
    int len = 0;
    uid_t u;
    gid_t g;
    munge_err_t e;

    if (by_token)
        *by_token = false;
    if (auth && cred && !auth->token && auth->ctx
        && strncmp(cred, MUNGE_PREFIX, sizeof(MUNGE_PREFIX) - 1) != 0) {
        if (by_token)
            *by_token = true;
        return decode_token(auth, cred, uid, gid, error);
    }
    if (!auth || !cred || proto_auth_digest(type, body, digest) < 0) {
        if (!auth || !cred)
            errno = EINVAL;
        return errprintf(error, "cannot check the credential: %s",
                         strerror(errno));
    }
    make_payload(digest, payload);
    e = munge_decode(cred, auth->ctx, &buf, &len, &u, &g);
    if (e != EMUNGE_SUCCESS) {
        /* MUNGE may return the payload along with an error (expired,
         * replayed); it is ours to free either way.
         */
        free(buf);
        return munge_fail(auth, e, "MUNGE decode failed", error);
    }
    if (len < (int)PAYLOAD_PREFIX_LEN
        || memcmp(buf, PAYLOAD_PREFIX, PAYLOAD_PREFIX_LEN) != 0) {
        free(buf);
        errno = EDRV_PROTOCOL_AUTH;
        return errprintf(error, "credential payload is not a Drover '%.4s' "
                                "message digest (a sender of another "
                                "version?)",
                         PAYLOAD_PREFIX);
    }
    if (len != (int)PAYLOAD_LEN || memcmp(buf, payload, PAYLOAD_LEN) != 0) {
        free(buf);
        errno = EDRV_PROTOCOL_AUTH;
        return errprintf(error, "credential was not issued for this message");
    }
    free(buf);
    if (uid)
        *uid = u;
    if (gid)
        *gid = g;
    return 0;
}
