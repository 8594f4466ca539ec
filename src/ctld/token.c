/* SPDX-License-Identifier: Apache-2.0
 *
 * token.c - auth/jwt in the controller (token.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "conf/conf.h"
#include "ctld/ctld.h"
#include "common/ident.h"
#include "ctld/token.h"
#include "proto/auth.h"
#include "proto/jwt_auth.h"

int token_init(struct ctld *ctld, drv_error_t *error)
{
    struct conf_jwt c;

    if (conf_auth_jwt(ctld->conf, &c) < 0)
        return errprintf(error, "out of memory");
    if (c.enabled) {
        if (!(ctld->jwt = proto_jwt_load(c.key_path, error))) {
            free(c.key_path);
            return -1;
        }
        proto_jwt_accept(ctld->auth, ctld->jwt, ctld->ident, ctld->slurm_uid);
        log_verbose("auth/jwt: tokens accepted (key %s)", c.key_path);
    }
    ctld->jwt_conf = c;
    return 0;
}

void token_fini(struct ctld *ctld)
{
    proto_jwt_destroy(ctld->jwt);
    ctld->jwt = NULL;
    free(ctld->jwt_conf.key_path);
    ctld->jwt_conf.key_path = NULL;
}

/* scontrol token [username=U] [lifespan=S], as slurmctld's
 * REQUEST_AUTH_TOKEN: a user's own token; another user's, a lifespan
 * over max_token_lifespan= or any token under disable_token_creation
 * only for root and SlurmUser (administrators here). */
static void rpc_token_issue(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    const struct ident_user *self;
    const char *user = NULL;
    json_int_t lifespan = PROTO_JWT_DEFAULT_LIFESPAN_S;
    bool admin = proto_req_roles(req) & PROTO_ROLE_ADMIN;
    time_t now = ctld_now(ctld);
    drv_error_t error = {0};
    uid_t uid;
    gid_t gid;
    char *token;

    if (!ctld->jwt)
        return (void)proto_respond_error(req, EDRV_NOT_SUPPORTED,
                                         "auth/jwt is not configured "
                                         "(AuthAltTypes=auth/jwt)");
    json_unpack(proto_req_body(req), "{s?s s?I}", "username", &user,
                "lifespan", &lifespan);
    self = ident_user(ctld->ident, proto_req_uid(req), now);
    if (!self->known)
        return (void)proto_respond_error(req, EDRV_USER_ID_MISSING, NULL);
    if (!user)
        user = self->name;
    if (strcmp(user, self->name) && !admin)
        return (void)proto_respond_error(req, EDRV_ACCESS_DENIED,
                                         "only administrators get tokens "
                                         "for other users");
    if (!ctld->jwt_conf.token_creation && !admin)
        return (void)proto_respond_error(req, EDRV_ACCESS_DENIED,
                                         "token creation is disabled "
                                         "(disable_token_creation)");
    if (ctld->jwt_conf.max_lifespan_s && !admin
        && lifespan > ctld->jwt_conf.max_lifespan_s) {
        errprintf(&error, "lifespan %lld is over max_token_lifespan=%ld",
                  (long long)lifespan, ctld->jwt_conf.max_lifespan_s);
        return (void)proto_respond_error(req, EINVAL, error.text);
    }
    if (!ident_user_id(ctld->ident, user, &uid, &gid, now))
        return (void)proto_respond_error(req, EDRV_USER_ID_MISSING, NULL);
    if (!(token = proto_jwt_issue(ctld->jwt, user, now, (long)lifespan,
                                  &error)))
        return (void)proto_respond_error(req, errno, error.text);
    log_verbose("auth/jwt: token for %s (%lld s) to uid %lu", user,
                (long long)lifespan, (unsigned long)proto_req_uid(req));
    proto_respond(req, json_pack("{s:s s:s s:I}", "token", token, "username",
                                 user, "expires",
                                 (json_int_t)(now + lifespan)));
    explicit_bzero(token, strlen(token));
    free(token);
}

const struct proto_handler rpc_token_handlers[] = {
    {"token_issue", rpc_token_issue, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
