/* SPDX-License-Identifier: Apache-2.0
 *
 * auth.c - MUNGE credentials whose payload binds them to one message
 *
 * The payload is "drv1:" + 16 hex digits of the digest.  FNV-1a keeps us free
 * of a crypto dependency; it detects a credential moved onto another message
 * but is not collision-resistant against a peer that can forge bodies on
 * purpose.  Swapping in SHA-256 only changes digest_update()/the prefix.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <munge.h>

#include "proto/auth.h"

#define PAYLOAD_PREFIX "drv1:"
#define PAYLOAD_LEN (sizeof(PAYLOAD_PREFIX) - 1 + 16)

#define FNV64_OFFSET 0xcbf29ce484222325ULL
#define FNV64_PRIME 0x100000001b3ULL

struct proto_auth {
    munge_ctx_t ctx;
};

static void digest_update(uint64_t *h, const void *data, size_t len)
{
    const unsigned char *p = data;

    for (size_t i = 0; i < len; i++) {
        *h ^= p[i];
        *h *= FNV64_PRIME;
    }
}

static int digest_chunk(const char *chunk, size_t size, void *arg)
{
    digest_update(arg, chunk, size);
    return 0;
}

int proto_auth_digest(const char *type, const json_t *body, uint64_t *digest)
{
    uint64_t h = FNV64_OFFSET;
    json_t *empty = NULL;
    int rc;

    if (!type || !digest || (body && !json_is_object(body))) {
        errno = EINVAL;
        return -1;
    }
    if (!body && !(body = empty = json_object())) {
        errno = ENOMEM;
        return -1;
    }
    digest_update(&h, type, strlen(type) + 1); /* includes the NUL */
    /* Sorting keys allocates; that is the only way this can fail. */
    rc = json_dump_callback(body, digest_chunk, &h,
                            JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(empty);
    if (rc < 0) {
        errno = ENOMEM;
        return -1;
    }
    *digest = h;
    return 0;
}

static int make_payload(const char *type, const json_t *body,
                        char payload[PAYLOAD_LEN + 1])
{
    uint64_t h;

    if (proto_auth_digest(type, body, &h) < 0)
        return -1;
    snprintf(payload, PAYLOAD_LEN + 1, PAYLOAD_PREFIX "%016" PRIx64, h);
    return 0;
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
        free(auth);
        errno = saved_errno;
    }
}

char *proto_auth_encode(proto_auth_t *auth, const char *type,
                        const json_t *body, drv_error_t *error)
{
    char payload[PAYLOAD_LEN + 1];
    char *cred = NULL;
    munge_err_t e;

    if (!auth || make_payload(type, body, payload) < 0) {
        if (!auth)
            errno = EINVAL;
        errprintf(error, "cannot digest the message: %s", strerror(errno));
        return NULL;
    }
    e = munge_encode(&cred, auth->ctx, payload, (int)PAYLOAD_LEN);
    if (e != EMUNGE_SUCCESS) {
        free(cred);
        munge_fail(auth, e, "MUNGE encode failed", error);
        return NULL;
    }
    return cred;
}

int proto_auth_decode(proto_auth_t *auth, const char *cred, const char *type,
                      const json_t *body, uid_t *uid, gid_t *gid,
                      drv_error_t *error)
{
    char payload[PAYLOAD_LEN + 1];
    void *buf = NULL;
    int len = 0;
    uid_t u;
    gid_t g;
    munge_err_t e;

    if (!auth || !cred || make_payload(type, body, payload) < 0) {
        if (!auth || !cred)
            errno = EINVAL;
        return errprintf(error, "cannot check the credential: %s",
                         strerror(errno));
    }
    e = munge_decode(cred, auth->ctx, &buf, &len, &u, &g);
    if (e != EMUNGE_SUCCESS) {
        /* MUNGE may return the payload along with an error (expired,
         * replayed); it is ours to free either way.
         */
        free(buf);
        return munge_fail(auth, e, "MUNGE decode failed", error);
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
