/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_auth.c - AuthAltTypes= and AuthAltParameters= (auth/jwt)
 *
 * Slurm 22.05 knows one alternative type, auth/jwt, and these parameters
 * for it: jwt_key=PATH (default StateSaveLocation/jwt_hs256.key),
 * disable_token_creation, max_token_lifespan=SECONDS.  jwks= (RS256 keys
 * from an identity provider) is refused as not supported rather than
 * ignored.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/conf.h"
#include "conf/conf_private.h"

/* Call 'fn' on each comma-separated item of 'value' (not empty ones);
 * stops at the first non-NULL answer and returns it. */
static const char *each_item(const char *value,
                             const char *(*fn)(const char *item, size_t n,
                                               void *arg),
                             void *arg)
{
    const char *why;

    for (const char *s = value; *s;) {
        size_t n = strcspn(s, ",");
        if (n && (why = fn(s, n, arg)))
            return why;
        s += n + (s[n] == ',');
    }
    return NULL;
}

static const char *check_type(const char *item, size_t n, void *arg)
{
    (void)arg;
    if (n == 8 && !strncasecmp(item, "auth/jwt", 8))
        return NULL;
    return "only auth/jwt is supported";
}

const char *conf__set_auth_alt_types(char **field, const char *value)
{
    const char *why = each_item(value, check_type, NULL);

    if (why)
        return why;
    return conf__set_string(field, value, strlen(value)) < 0 ? "" : NULL;
}

static bool is_key(const char *item, size_t n, const char *key)
{
    size_t k = strlen(key);
    return n >= k && !strncasecmp(item, key, k);
}

/* One parameter into 'out' (may be NULL: checking only). */
static const char *take_param(const char *item, size_t n, void *arg)
{
    struct conf_jwt *out = arg;
    char num[32], *end;
    long v;

    if (n == 22 && !strncasecmp(item, "disable_token_creation", 22)) {
        if (out)
            out->token_creation = false;
        return NULL;
    }
    if (is_key(item, n, "jwt_key=")) {
        if (n == 8 || item[8] != '/')
            return "jwt_key= needs an absolute path";
        if (out) {
            free(out->key_path);
            if (!(out->key_path = strndup(item + 8, n - 8)))
                return "";
        }
        return NULL;
    }
    if (is_key(item, n, "max_token_lifespan=")) {
        if (n - 19 >= sizeof(num))
            return "max_token_lifespan= expects seconds";
        memcpy(num, item + 19, n - 19);
        num[n - 19] = '\0';
        errno = 0;
        v = strtol(num, &end, 10);
        if (errno || end == num || *end || v <= 0)
            return "max_token_lifespan= expects seconds above 0";
        if (out)
            out->max_lifespan_s = v;
        return NULL;
    }
    if (is_key(item, n, "jwks="))
        return "jwks= (RS256 keys) is not supported: use jwt_key=";
    return "unknown parameter: expected jwt_key=PATH, "
           "disable_token_creation or max_token_lifespan=SECONDS";
}

const char *conf__set_auth_alt_params(char **field, const char *value)
{
    const char *why = each_item(value, take_param, NULL);

    if (why)
        return why;
    return conf__set_string(field, value, strlen(value)) < 0 ? "" : NULL;
}

int conf_auth_jwt(const struct slurm_conf *conf, struct conf_jwt *out)
{
    return conf_auth_jwt_from(conf->auth_alt_types, conf->auth_alt_params,
                              conf->state_save_location, out);
}

int conf_auth_jwt_from(const char *types, const char *params,
                       const char *state_dir, struct conf_jwt *out)
{
    *out = (struct conf_jwt){.token_creation = true};
    out->enabled = types && *types;
    if (params && each_item(params, take_param, out)) {
        free(out->key_path);
        out->key_path = NULL;
        errno = ENOMEM; /* the values were checked when read */
        return -1;
    }
    if (!out->key_path
        && asprintf(&out->key_path, "%s/jwt_hs256.key",
                    state_dir ? state_dir : "/var/spool")
               < 0) {
        out->key_path = NULL;
        errno = ENOMEM;
        return -1;
    }
    return 0;
}
