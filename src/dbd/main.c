/* SPDX-License-Identifier: Apache-2.0
 *
 * droverdbd - the accounting daemon, the only database client
 *
 * main() reads top to bottom: options, slurmdbd.conf (refused unless 0600
 * and ours), logging, listen, connect to the database (retried while it is
 * unreachable: requests get an error meanwhile), loop, teardown.
 */
#include "config.h"

#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/daemon.h"
#include "common/log.h"
#include "dbd/dbd.h"
#include "common/ident.h"
#include "conf/conf.h"
#include "proto/jwt_auth.h"

static const char usage_text[] =
    "Usage: droverdbd [-D] [-f slurmdbd.conf] [-v...] [-V]\n"
    "  -D        run in the foreground, log to stderr\n"
    "  -f FILE   read FILE instead of $DROVER_DBD_CONF, or\n"
    "            slurmdbd.conf beside $DROVER_CONF\n"
    "  -v        more verbose logging (repeat)\n"
    "  -V        print the version and exit\n";

static unsigned roles_of(uid_t uid, gid_t gid, void *arg)
{
    struct dbd *dbd = arg;

    (void)gid;
    if (uid == 0 || uid == dbd->slurm_uid)
        return PROTO_ROLE_USER | PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN
               | PROTO_ROLE_DAEMON;
    return PROTO_ROLE_USER;
}

static void signal_cb(uv_signal_t *s, int signo)
{
    log_info("Terminate signal (%s) received", strsignal(signo));
    uv_stop(s->loop);
}

static void setup_logging(const struct dbd_conf *conf, struct daemon_opts *o)
{
    int level = log_level_parse(conf->debug_level);

    if (level < 0)
        level = LOG_LEVEL_INFO;
    log_init("droverdbd", (enum log_level)(level + o->verbose));
    if (!o->foreground && conf->log_file && log_open(conf->log_file) < 0)
        log_fatal("cannot open %s", conf->log_file);
}

/* AuthAltTypes=auth/jwt in slurmdbd.conf: tokens as credentials, as the
 * controller takes them (ctld/token.h), so droverrestd's /slurmdb paths
 * act as their user. */
static void dbd_jwt_init(struct dbd *dbd)
{
    drv_error_t error = {{0}};
    struct conf_jwt j;

    if (conf_auth_jwt_from(dbd->conf->auth_alt_types,
                           dbd->conf->auth_alt_params, NULL, &j) < 0)
        log_fatal("out of memory");
    if (j.enabled) {
        if (!(dbd->jwt = proto_jwt_load(j.key_path, &error)))
            log_fatal("auth/jwt: %s", error.text);
        dbd->ident = ident_create(0);
        proto_jwt_accept(dbd->auth, dbd->jwt, dbd->ident, dbd->slurm_uid);
        log_verbose("auth/jwt: tokens accepted (key %s)", j.key_path);
    }
    free(j.key_path);
}

static void dbd_init(struct dbd *dbd, struct daemon_opts *o)
{
    drv_error_t error = {{0}};
    struct dbd_conf *c;
    struct passwd *pw;

    log_init("droverdbd", LOG_LEVEL_INFO);
    if (!(c = dbd->conf = conf_dbd_load(o->conf_path, &error)))
        log_fatal("%s", error.text);
    if (conf_dbd_check_file(c->path, geteuid(), &error) < 0)
        log_fatal("slurmdbd.conf file %s %s", c->path, error.text);
    setup_logging(c, o);
    /* Keywords Drover accepts and does not use: said once, here. */
    for (size_t i = 0; i < c->notice_count; i++)
        log_info("%s", c->notices[i]);
    if (!(pw = getpwnam(c->slurm_user)))
        log_fatal("%s: SlurmUser=%s: no such user", c->path, c->slurm_user);
    dbd->slurm_uid = pw->pw_uid;
    dbd->target = (struct db_target){
        .backend = c->storage == DBD_STORAGE_SQLITE ? DB_SQLITE : DB_PGSQL,
        .loc = c->storage_loc,
        .host = c->storage_host,
        .port = c->storage_port,
        .user = c->storage_user,
        .pass = c->storage_pass,
    };
    if (!(dbd->auth = proto_auth_create(c->auth_socket, &error)))
        log_fatal("%s", error.text);
    dbd_jwt_init(dbd);
}

static void dbd_listen(struct dbd *dbd)
{
    drv_error_t error = {{0}};

    /* slurmdbd.conf has no MessageTimeout: the server's default
     * (PROTO_UNAUTH_TIMEOUT_MS, Slurm's 10 s) closes connections that do
     * not authenticate.
     */
    daemon_raise_nofile();
    if (!(dbd->server = proto_server_create(dbd->loop, dbd->auth, roles_of,
                                            dbd, &error))
        || proto_server_tls_setup(dbd->server, dbd->conf->tls.rpc,
                                  dbd->conf->tls.cert, dbd->conf->tls.key,
                                  dbd->conf->tls.ca, &error) < 0
        || proto_server_register(dbd->server, dbd_rpc_handlers, dbd, &error)
               < 0
        || proto_server_register(dbd->server, dbd_assoc_handlers, dbd, &error)
               < 0
        || proto_server_register(dbd->server, dbd_usage_handlers, dbd, &error)
               < 0
        || proto_server_listen(dbd->server, "0.0.0.0", dbd->conf->dbd_port,
                               &error)
               < 0)
        log_fatal("%s", error.text);
}

static void dbd_start_handles(struct dbd *dbd)
{
    uv_signal_init(dbd->loop, &dbd->sigterm);
    uv_signal_start(&dbd->sigterm, signal_cb, SIGTERM);
    uv_signal_init(dbd->loop, &dbd->sigint);
    uv_signal_start(&dbd->sigint, signal_cb, SIGINT);
    dbd_work_start(dbd);
    dbd_usage_start(dbd);
}

static void dbd_fini(struct dbd *dbd)
{
    proto_server_destroy(dbd->server);
    dbd_work_stop(dbd);
    daemon_close_loop(dbd->loop); /* the running work items complete */
    dbd_work_close(dbd);
    proto_auth_destroy(dbd->auth);
    proto_jwt_destroy(dbd->jwt);
    ident_destroy(dbd->ident);
    if (dbd->conf->pid_file)
        (void)unlink(dbd->conf->pid_file);
    conf_dbd_destroy(dbd->conf);
}

int main(int argc, char **argv)
{
    struct daemon_opts o;
    struct dbd dbd = {0};

    daemon_parse_opts(argc, argv, usage_text, false, &o);
    signal(SIGPIPE, SIG_IGN);
    dbd.loop = uv_default_loop();
    dbd_init(&dbd, &o);
    dbd_listen(&dbd);
    dbd_start_handles(&dbd);
    daemon_write_pidfile(dbd.conf->pid_file);
    log_info("droverdbd %s started on port %u (%s, %s)", DROVER_VERSION,
             dbd.conf->dbd_port, dbd.conf->storage_type,
             dbd.conf->storage_loc);
    daemon_notify("READY=1");
    uv_run(dbd.loop, UV_RUN_DEFAULT);
    daemon_notify("STOPPING=1");
    dbd_fini(&dbd);
    uv_loop_close(dbd.loop);
    return 0;
}
