/* SPDX-License-Identifier: Apache-2.0
 *
 * jwt_auth.c - HS256 tokens with Slurm's claims, over libjwt (jwt_auth.h)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <jwt.h>

#include "common/base64.h"
#include "common/ident.h"
#include "proto/auth.h"
#include "proto/jwt_auth.h"

/* A key file larger than this is not a key (bytes). */
#define KEY_MAX 65536

struct proto_jwt {
    struct ident *ident; /* proto_jwt_accept()'s, for user names */
    uid_t proxy_uid;     /* SlurmUser's: its tokens may act for others */
    size_t len;
    unsigned char key[];
};

proto_jwt_t *proto_jwt_from_key(const void *key, size_t len,
                                drv_error_t *error)
{
    proto_jwt_t *jwt;

    if (len < PROTO_JWT_MIN_KEY) {
        errno = EINVAL;
        errprintf(error, "the JWT key is %zu bytes, at least %d are needed",
                  len, PROTO_JWT_MIN_KEY);
        return NULL;
    }
    if (!(jwt = malloc(sizeof(*jwt) + len))) {
        errprintf(error, "out of memory");
        return NULL;
    }
    jwt->ident = NULL;
    jwt->proxy_uid = 0;
    jwt->len = len;
    memcpy(jwt->key, key, len);
    return jwt;
}

/* Read all of 'fd' (at most KEY_MAX bytes) into buf; returns the length
 * or -1 with errno. */
static ssize_t read_key(int fd, unsigned char *buf)
{
    size_t got = 0;
    ssize_t n;

    while (got <= KEY_MAX
           && (n = read(fd, buf + got, KEY_MAX + 1 - got)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        got += (size_t)n;
    }
    if (got > KEY_MAX) {
        errno = EFBIG;
        return -1;
    }
    return (ssize_t)got;
}

proto_jwt_t *proto_jwt_load(const char *path, drv_error_t *error)
{
    unsigned char *buf = NULL;
    proto_jwt_t *jwt = NULL;
    struct stat st;
    ssize_t len;
    int fd;

    if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0) {
        errprintf(error, "JWT key %s: %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) < 0) {
        errprintf(error, "JWT key %s: %s", path, strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        errno = EINVAL;
        errprintf(error, "JWT key %s is not a regular file", path);
        goto out;
    }
    if (st.st_mode & S_IRWXO) {
        errno = EPERM;
        errprintf(error, "JWT key %s is accessible by others (mode %04o): "
                         "chmod 0400 it", path,
                  (unsigned)(st.st_mode & 07777));
        goto out;
    }
    if (!(buf = malloc(KEY_MAX + 1))) {
        errprintf(error, "out of memory");
        goto out;
    }
    if ((len = read_key(fd, buf)) < 0) {
        errprintf(error, "JWT key %s: %s", path, strerror(errno));
        goto out;
    }
    if ((jwt = proto_jwt_from_key(buf, (size_t)len, error)) == NULL
        && errno == EINVAL)
        errprintf(error, "JWT key %s is %zd bytes, at least %d are needed",
                  path, len, PROTO_JWT_MIN_KEY);
out:
    if (buf) {
        explicit_bzero(buf, KEY_MAX + 1);
        free(buf);
    }
    close(fd);
    return jwt;
}

void proto_jwt_destroy(proto_jwt_t *jwt)
{
    if (jwt) {
        explicit_bzero(jwt->key, jwt->len);
        free(jwt);
    }
}

char *proto_jwt_issue(const proto_jwt_t *jwt, const char *user, time_t now,
                      long lifespan_s, drv_error_t *error)
{
    jwt_t *t = NULL;
    char *token = NULL;
    int rc;

    if (!user || !*user || lifespan_s <= 0) {
        errno = EINVAL;
        errprintf(error, "a token needs a user and a lifespan above 0");
        return NULL;
    }
    if ((rc = jwt_new(&t)) == 0 && (rc = jwt_add_grant(t, "sun", user)) == 0
        && (rc = jwt_add_grant_int(t, "iat", (long)now)) == 0
        && (rc = jwt_add_grant_int(t, "exp", (long)now + lifespan_s)) == 0
        && (rc = jwt_set_alg(t, JWT_ALG_HS256, jwt->key, (int)jwt->len))
               == 0
        && !(token = jwt_encode_str(t)))
        rc = ENOMEM;
    jwt_free(t);
    if (!token) {
        errno = rc ? rc : ENOMEM;
        errprintf(error, "cannot make a token: %s", strerror(errno));
    }
    return token;
}

/* The "alg" of the token's header, read without trusting it (libjwt
 * reports "none" for any token decoded without a key), so that a token of
 * another algorithm is refused by name before its signature is looked
 * at.  JWT_ALG_INVAL when the header is not base64url JSON. */
static jwt_alg_t header_alg(const char *token)
{
    size_t n = strcspn(token, "."), len = 0;
    unsigned char *raw;
    json_t *hdr;
    jwt_alg_t alg = JWT_ALG_INVAL;
    const char *name;

    if (!token[n] || n == 0 || !(raw = base64url_decode(token, n, &len)))
        return JWT_ALG_INVAL;
    hdr = json_loadb((const char *)raw, len, 0, NULL);
    free(raw);
    if ((name = json_string_value(json_object_get(hdr, "alg"))))
        alg = !strcmp(name, "none") ? JWT_ALG_NONE : jwt_str_alg(name);
    json_decref(hdr);
    return alg;
}

static int refuse(drv_error_t *error, const char *fmt, const char *arg)
    __attribute__((format(printf, 2, 0)));

static int refuse(drv_error_t *error, const char *fmt, const char *arg)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    errprintf(error, fmt, arg);
#pragma GCC diagnostic pop
    errno = EDRV_PROTOCOL_AUTH;
    return -1;
}

int proto_jwt_verify(const proto_jwt_t *jwt, const char *token, time_t now,
                     char **user, time_t *exp, drv_error_t *error)
{
    jwt_alg_t alg;
    jwt_t *t = NULL;
    const char *sun;
    long expiry;
    char when[32];

    if (!token || !*token)
        return refuse(error, "%stoken is empty", "");
    alg = header_alg(token);
    if (alg == JWT_ALG_INVAL)
        return refuse(error, "%stoken is not a JWT", "");
    if (alg != JWT_ALG_HS256)
        return refuse(error, "token is not signed with HS256 (alg %s)",
                      jwt_alg_str(alg) ? jwt_alg_str(alg) : "?");
    if (jwt_decode(&t, token, jwt->key, (int)jwt->len) != 0
        || jwt_get_alg(t) != JWT_ALG_HS256) {
        jwt_free(t);
        return refuse(error, "%stoken signature does not match the key",
                      "");
    }
    errno = 0;
    expiry = jwt_get_grant_int(t, "exp");
    if (errno != 0) {
        jwt_free(t);
        return refuse(error, "%stoken carries no expiry (exp)", "");
    }
    if ((time_t)expiry <= now) {
        jwt_free(t);
        snprintf(when, sizeof(when), "%ld", expiry);
        return refuse(error, "token expired at %s", when);
    }
    if (!(sun = jwt_get_grant(t, "sun")) || !*sun) {
        jwt_free(t);
        return refuse(error, "%stoken carries no user name (sun)", "");
    }
    if (!(*user = strdup(sun))) {
        jwt_free(t);
        errno = ENOMEM;
        return errprintf(error, "out of memory");
    }
    if (exp)
        *exp = (time_t)expiry;
    jwt_free(t);
    return 0;
}

/* A user name of the credential's ";user=" part: 1 to 64 bytes of the
 * portable user-name set ([A-Za-z0-9._-], '$' last), as useradd takes. */
static bool user_name_valid(const char *name)
{
    size_t n = strlen(name);

    if (n == 0 || n > 64 || name[0] == '-')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-'
              || (c == '$' && i == n - 1)))
            return false;
    }
    return true;
}

/* Split "TOKEN[;user=NAME]" (proto_auth_create_token()): a copy of the
 * token into *token and NAME (borrowed from 'cred') into *as_user, or
 * NULL there without one.  -1 with errno and 'error' for a bad NAME. */
static int split_cred(const char *cred, char **token, const char **as_user,
                      drv_error_t *error)
{
    const char *sep = strstr(cred, PROTO_AUTH_AS_USER);

    *as_user = NULL;
    if (sep) {
        *as_user = sep + strlen(PROTO_AUTH_AS_USER);
        if (!user_name_valid(*as_user)) {
            errno = EDRV_PROTOCOL_AUTH;
            return errprintf(error, "the proxied user name is not a user "
                                    "name");
        }
    }
    if (!(*token = sep ? strndup(cred, (size_t)(sep - cred)) : strdup(cred))) {
        errno = ENOMEM;
        return errprintf(error, "out of memory");
    }
    return 0;
}

/* The token's user as the sender: unknown users are refused.  A token of
 * root or SlurmUser may name another user to act as (";user=NAME", sent
 * by droverrestd for X-SLURM-USER-NAME), as Slurm's auth/jwt lets them
 * proxy; anyone else's is refused, as Slurm refuses an "alternate user
 * from non-SlurmUser". */
static int verify_token(const char *cred, uid_t *uid, gid_t *gid,
                        drv_error_t *error, void *arg)
{
    proto_jwt_t *jwt = arg;
    time_t now = time(NULL);
    const char *as_user;
    char *token, *user = NULL;
    int rc;

    if (split_cred(cred, &token, &as_user, error) < 0)
        return -1;
    rc = proto_jwt_verify(jwt, token, now, &user, NULL, error);
    free(token);
    if (rc < 0)
        return -1;
    rc = -1;
    if (!ident_user_id(jwt->ident, user, uid, gid, now))
        errprintf(error, "token user %s is not a user of this host", user);
    else if (as_user && strcmp(as_user, user) != 0
             && *uid != 0 && *uid != jwt->proxy_uid)
        errprintf(error, "token user %s may not act as user %s (only "
                         "root's and SlurmUser's tokens may)", user, as_user);
    else if (as_user && !ident_user_id(jwt->ident, as_user, uid, gid, now))
        errprintf(error, "proxied user %s is not a user of this host",
                  as_user);
    else
        rc = 0;
    free(user);
    if (rc < 0)
        errno = EDRV_PROTOCOL_AUTH;
    return rc;
}

void proto_jwt_accept(proto_auth_t *auth, proto_jwt_t *jwt,
                      struct ident *ident, uid_t proxy_uid)
{
    jwt->ident = ident;
    jwt->proxy_uid = proxy_uid;
    proto_auth_set_token_verifier(auth, verify_token, jwt);
}
