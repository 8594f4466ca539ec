/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc.c - how a user command reaches the controller
 *
 * One configuration and one MUNGE context per process; each call opens its
 * own connection (commands make one or two calls and exit).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/lib/rpc.h"
#include "proto/auth.h"
#include "proto/client.h"

static struct slurm_conf *conf;
static proto_auth_t *auth;

const struct slurm_conf *cmd_conf(const char *prog)
{
    drv_error_t error = {{0}};

    if (!conf && !(conf = conf_load(NULL, &error))) {
        fprintf(stderr, "%s: error: %s\n", prog, error.text);
        exit(1);
    }
    return conf;
}

/* One call with 'a' (the MUNGE context when NULL: made on first use). */
static int call(const char *prog, proto_auth_t *a, const char *host,
                uint16_t port, const char *type, json_t *body, json_t **resp,
                drv_error_t *error)
{
    const struct slurm_conf *c = cmd_conf(prog);
    int timeout_ms = c->msg_timeout_s ? (int)c->msg_timeout_s * 1000 : 10000;

    if (resp)
        *resp = NULL;
    if (!a && !auth && !(auth = proto_auth_create(c->auth_socket, error))) {
        json_decref(body);
        if (error && !error->text[0])
            errprintf(error, "%s", drv_strerror(errno));
        return -1;
    }
    if (proto_call_sync(host, port, a ? a : auth, type, body, resp, timeout_ms,
                        error) < 0) {
        if (error && !error->text[0])
            errprintf(error, "%s", drv_strerror(errno));
        return -1;
    }
    return 0;
}

int cmd_rpc_to(const char *prog, const char *host, uint16_t port,
               const char *type, json_t *body, json_t **resp,
               drv_error_t *error)
{
    return call(prog, NULL, host, port, type, body, resp, error);
}

/* SLURM_JWT as the controller's credential when AuthAltTypes= allows it,
 * as Slurm's commands do (jwt.html); NULL otherwise. */
static proto_auth_t *jwt_auth(const struct slurm_conf *c)
{
    static proto_auth_t *token_auth;
    static bool tried;
    const char *token = getenv("SLURM_JWT");

    if (!tried) {
        tried = true;
        if (token && *token && c->auth_alt_types && *c->auth_alt_types)
            token_auth = proto_auth_create_token(token, NULL);
    }
    return token_auth;
}

int cmd_rpc(const char *prog, const char *type, json_t *body, json_t **resp,
            drv_error_t *error)
{
    const struct slurm_conf *c = cmd_conf(prog);

    return call(prog, jwt_auth(c), c->ctld_addr ? c->ctld_addr : c->ctld_host,
                c->ctld_port, type, body, resp, error);
}

int cmd_rpc_dbd(const char *prog, const char *type, json_t *body,
                json_t **resp, drv_error_t *error)
{
    const struct slurm_conf *c = cmd_conf(prog);
    const char *host = c->accounting_storage_host;

    if (!host)
        host = c->ctld_addr ? c->ctld_addr : c->ctld_host;
    return cmd_rpc_to(prog, host, c->accounting_storage_port, type, body,
                      resp, error);
}
