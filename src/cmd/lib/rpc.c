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
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cmd/lib/rpc.h"
#include "common/xalloc.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "proto/tls.h"

static struct slurm_conf *conf, *conf_nodes;
static proto_auth_t *auth;
/* cmd_rpc_read()'s reader of the answer during its call */
static proto_frame_reader_f answer_reader;
static void *answer_reader_arg;

static struct slurm_conf *load_or_exit(const char *prog, bool nodes)
{
    drv_error_t error = {{0}};
    struct slurm_conf *c = nodes ? conf_load(NULL, &error)
                                 : conf_load_client(NULL, &error);

    if (!c) {
        fprintf(stderr, "%s: error: %s\n", prog, error.text);
        exit(1);
    }
    /* CommunicationParameters=drover_tls_rpc: libssl is loaded only then */
    if (!proto_tls_client_ctx_get()
        && proto_tls_client_setup(c->tls.rpc, c->tls.ca, &error) < 0) {
        fprintf(stderr, "%s: error: %s\n", prog, error.text);
        exit(1);
    }
    return c;
}

const char *cmd_clusters_check(const char *prog, const char *list)
{
    const char *mine = cmd_conf(prog)->cluster_name;
    char *copy = xstrdup(list), *save = NULL;
    const char *bad = NULL;

    if (!mine)
        mine = "";
    if (!strcasecmp(list, "all") || !strcmp(list, "-1")) {
        free(copy);
        return mine;
    }
    for (char *t = strtok_r(copy, ",", &save); t && !bad;
         t = strtok_r(NULL, ",", &save))
        if (strcmp(t, mine))
            bad = t;
    if (bad)
        fprintf(stderr, "%s: error: --clusters: Drover has one cluster, "
                "\"%s\"; not \"%s\"\n", prog, mine, bad);
    free(copy);
    return bad ? NULL : mine;
}

const struct slurm_conf *cmd_conf(const char *prog)
{
    if (!conf)
        conf = load_or_exit(prog, false);
    return conf;
}

const struct slurm_conf *cmd_conf_nodes(const char *prog)
{
    if (!conf_nodes)
        conf_nodes = load_or_exit(prog, true);
    return conf_nodes;
}

/* Send 'body' (borrowed) to controller 'i' of 'c'.  A request the
 * controller refused for its rate limit (EDRV_CTLD_COMMUNICATIONS_BACKOFF:
 * SlurmctldParameters=rl_enable) never reached its handler: as Slurm's
 * commands do (slurm_send_recv_controller_msg), sleep 1 s, then 2 s, 3 s...
 * and send it again, for as long as it takes.  Returns as
 * proto_client_call(), or -1 with the connect's errno and *connected
 * false. */
static int ctld_try(const struct slurm_conf *c, size_t i, proto_auth_t *a,
                    const char *type, json_t *body, json_t **resp,
                    int timeout_ms, bool *connected, drv_error_t *error)
{
    unsigned backed_off = 0;
    proto_client_t *client;
    int rc;

    for (;;) {
        if (error)
            error->text[0] = '\0';
        *connected = false;
        /* Slurm's TCPTimeout for the connect: an unreachable controller
         * (cut off, its host down) is passed over in seconds. */
        if (!(client = proto_client_connect(conf_ctld_addr(c, i),
                                            c->ctld_port,
                                            c->tcp_timeout_s
                                                ? (int)c->tcp_timeout_s * 1000
                                                : timeout_ms,
                                            error)))
            return -1;
        proto_client_set_timeout(client, timeout_ms);
        proto_client_set_reader(client, answer_reader, answer_reader_arg);
        *connected = true;
        rc = proto_client_call(client, a, type, json_incref(body), resp,
                               error);
        proto_client_destroy(client);
        if (rc == 0 || errno != EDRV_CTLD_COMMUNICATIONS_BACKOFF)
            return rc;
        sleep(++backed_off);
    }
}

/* One call to the controller as Slurm's commands make it
 * (slurm_open_controller_conn, slurm_send_recv_controller_msg): each
 * SlurmctldHost in order, passing over those that do not answer and those
 * that stand by (EDRV_IN_STANDBY_MODE: a Raft follower, which did nothing
 * with the request); while none takes it, again once a second,
 * MessageTimeout rounds in all (Slurm's retry count).  Then -1 with errno
 * EDRV_CTLD_COMMUNICATIONS_CONNECTION (Slurm's 1800, "Unable to contact
 * slurm controller (connect failure)").  'body' is stolen. */
static int ctld_call(const struct slurm_conf *c, proto_auth_t *a,
                     const char *type, json_t *body, json_t **resp,
                     int timeout_ms, drv_error_t *error)
{
    unsigned tries = c->msg_timeout_s ? c->msg_timeout_s : 1;
    int rc;

    for (unsigned attempt = 0; attempt < tries; attempt++) {
        if (attempt)
            sleep(1);
        for (size_t i = 0; i <= c->ctld_backup_count; i++) {
            bool connected = false;

            rc = ctld_try(c, i, a, type, body, resp, timeout_ms, &connected,
                          error);
            if (!connected && proto_errnum_try_next(errno))
                continue; /* no connection */
            if (rc == 0 || errno != EDRV_IN_STANDBY_MODE) {
                json_decref(body);
                return rc;
            }
        }
    }
    json_decref(body);
    errno = EDRV_CTLD_COMMUNICATIONS_CONNECTION;
    if (error)
        errprintf(error, "%s", drv_strerror(errno));
    return -1;
}

/* One call with 'a' (the MUNGE context when NULL: made on first use) to
 * 'host':'port', or to the controller (ctld_call()) when 'host' is
 * NULL. */
static unsigned timeout_override_s; /* cmd_rpc_set_timeout() */

void cmd_rpc_set_timeout(unsigned seconds)
{
    timeout_override_s = seconds;
}

static int call(const char *prog, proto_auth_t *a, const char *host,
                uint16_t port, const char *type, json_t *body, json_t **resp,
                drv_error_t *error)
{
    const struct slurm_conf *c = cmd_conf(prog);
    int timeout_ms = timeout_override_s ? (int)timeout_override_s * 1000
                     : c->msg_timeout_s ? (int)c->msg_timeout_s * 1000
                                        : 10000;
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
    if (!host)
        rc = ctld_call(c, a ? a : auth, type, body, resp, timeout_ms, error);
    else if (!(client = proto_client_connect(host, port, timeout_ms, error))) {
        json_decref(body);
        return -1;
    } else {
        rc = proto_client_call(client, a ? a : auth, type, body, resp, error);
        proto_client_destroy(client);
    }
    if (rc < 0 && error && !error->text[0])
        errprintf(error, "%s", drv_strerror(errno));
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
            token_auth = proto_auth_create_token(token, NULL, NULL);
    }
    return token_auth;
}

/* DROVER_STALE_READS=1: the listings say stale data will do, so that a
 * Raft follower answers them from its copy (docs/ha.md). */
static json_t *maybe_stale(const char *type, json_t *body)
{
    const char *v = getenv("DROVER_STALE_READS");

    if (!v || strcmp(v, "1")
        || (strcmp(type, "job_info") && strcmp(type, "node_info")
            && strcmp(type, "partition_info")))
        return body;
    if (!body)
        body = json_object();
    json_object_set_new(body, "stale_ok", json_true());
    return body;
}

int cmd_rpc(const char *prog, const char *type, json_t *body, json_t **resp,
            drv_error_t *error)
{
    return call(prog, jwt_auth(cmd_conf(prog)), NULL, 0, type,
                maybe_stale(type, body), resp, error);
}

int cmd_rpc_read(const char *prog, const char *type, json_t *body,
                 proto_frame_reader_f reader, void *arg, json_t **resp,
                 drv_error_t *error)
{
    int rc;

    answer_reader = reader;
    answer_reader_arg = arg;
    rc = cmd_rpc(prog, type, body, resp, error);
    answer_reader = NULL;
    answer_reader_arg = NULL;
    return rc;
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
