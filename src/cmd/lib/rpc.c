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
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* Did connecting fail because no controller listens there (yet)? */
static bool no_controller(int err)
{
    return err == ECONNREFUSED || err == ETIMEDOUT || err == EHOSTUNREACH
           || err == ENETUNREACH || err == ECONNRESET
           || err == EADDRNOTAVAIL;
}

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Connect to a controller as Slurm's commands do
 * (slurm_open_controller_conn): each SlurmctldHost in order, and while
 * none answers, again once a second for MessageTimeout seconds, so a
 * command outlives a controller's restart or failover.  Then NULL with
 * errno EDRV_CTLD_COMMUNICATIONS_CONNECTION (Slurm's 1800, "Unable to
 * contact slurm controller (connect failure)"). */
static proto_client_t *ctld_connect(const struct slurm_conf *c,
                                    int timeout_ms, drv_error_t *error)
{
    int64_t give_up = now_ms() + timeout_ms;

    for (;;) {
        for (size_t i = 0; i <= c->ctld_backup_count; i++) {
            const char *addr = i ? c->ctld_backup_addrs[i - 1]
                                 : c->ctld_addr ? c->ctld_addr : c->ctld_host;
            proto_client_t *client = proto_client_connect(
                addr, c->ctld_port, timeout_ms, error);

            if (client)
                return client;
            if (!no_controller(errno))
                return NULL;
        }
        if (now_ms() + 1000 > give_up)
            break;
        sleep(1);
    }
    errno = EDRV_CTLD_COMMUNICATIONS_CONNECTION;
    if (error)
        errprintf(error, "%s", drv_strerror(errno));
    return NULL;
}

/* One call with 'a' (the MUNGE context when NULL: made on first use) to
 * 'host':'port', or to the controller (ctld_connect()) when 'host' is
 * NULL. */
static int call(const char *prog, proto_auth_t *a, const char *host,
                uint16_t port, const char *type, json_t *body, json_t **resp,
                drv_error_t *error)
{
    const struct slurm_conf *c = cmd_conf(prog);
    int timeout_ms = c->msg_timeout_s ? (int)c->msg_timeout_s * 1000 : 10000;
    proto_client_t *client;
    int rc;

    if (resp)
        *resp = NULL;
    if (!a && !auth && !(auth = proto_auth_create(c->auth_socket, error))) {
        json_decref(body);
        if (error && !error->text[0])
            errprintf(error, "%s", drv_strerror(errno));
        return -1;
    }
    client = host ? proto_client_connect(host, port, timeout_ms, error)
                  : ctld_connect(c, timeout_ms, error);
    if (!client) {
        json_decref(body);
        return -1;
    }
    rc = proto_client_call(client, a ? a : auth, type, body, resp, error);
    if (rc < 0 && error && !error->text[0])
        errprintf(error, "%s", drv_strerror(errno));
    proto_client_destroy(client);
    return rc;
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
    return call(prog, jwt_auth(cmd_conf(prog)), NULL, 0, type, body, resp,
                error);
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
