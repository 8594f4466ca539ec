/* SPDX-License-Identifier: Apache-2.0
 *
 * droverctld - the controller
 *
 * main() reads top to bottom: options, config, logging, modules in
 * dependency order, state restore, listen, loop, teardown in reverse.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <sys/stat.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/daemon.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/acct.h"
#include "ctld/ctld.h"
#include "ctld/listing.h"
#include "ctld/mail.h"
#include "ctld/prolog_ctld.h"
#include "ctld/event.h"
#include "ctld/ha.h"
#include "ctld/rpc_gate.h"
#include "ctld/rpc_ha.h"
#include "ctld/interactive.h"
#include "ctld/part_access.h"
#include "ctld/enforce.h"
#include "ctld/gang.h"
#include "ctld/node_epilog.h"
#include "ctld/part.h"
#include "ctld/preempt.h"
#include "ctld/priority.h"
#include "ctld/resv.h"
#include "ctld/trigger.h"
#include "ctld/crontab.h"
#include "common/ident.h"
#include "ctld/rpc_stat.h"
#include "ctld/token.h"
#include "ctld/state.h"
#include "ctld/suspend.h"
#include "proto/client.h"

#define PERIODIC_MS 2000
/* Records in the journal before a snapshot compacts it; the environment's
 * DROVER_SNAPSHOT_RECORDS (a count, at least 1) sets another (tests,
 * docs/architecture.md). */
#define SNAPSHOT_RECORDS 20000

static size_t snapshot_records(void)
{
    static size_t n;

    if (!n)
        n = (size_t)ctld_env_count("DROVER_SNAPSHOT_RECORDS",
                                   SNAPSHOT_RECORDS);
    return n;
}

static char **saved_argv; /* a Raft member re-executes itself (ha.h) */
static long ha_self = -1; /* its index among SlurmctldHost lines */

static const char usage_text[] =
    "Usage: droverctld [-D] [-f slurm.conf] [-N NAME] [-v...] [-V]\n"
    "  -D        run in the foreground, log to stderr\n"
    "  -f FILE   read FILE instead of $DROVER_CONF\n"
    "  -N NAME   this controller's SlurmctldHost name (default: the host\n"
    "            name), when several are listed (a Raft group)\n"
    "  -v        more verbose logging (repeat)\n"
    "  -V        print the version and exit\n";

static bool in_list(const char *list, const char *name)
{
    char *copy, *tok, *save = NULL;
    bool found = false;

    if (!list || !name)
        return false;
    copy = xstrdup(list);
    for (tok = strtok_r(copy, ",", &save); tok && !found;
         tok = strtok_r(NULL, ",", &save))
        found = !strcmp(tok, name);
    free(copy);
    return found;
}

/* Roles from the credential's uid: root and SlurmUser are daemons and
 * admins; DroverOperators= are operators; everyone is a user. */
static unsigned roles_of(uid_t uid, gid_t gid, void *arg)
{
    struct ctld *ctld = arg;
    const struct ident_user *u;

    (void)gid;
    if (uid == 0 || uid == ctld->slurm_uid)
        return PROTO_ROLE_USER | PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN
               | PROTO_ROLE_DAEMON;
    if (!ctld->conf->operators)
        return PROTO_ROLE_USER;
    u = ident_user(ctld->ident, uid, ctld_now(ctld));
    if (u->known && in_list(ctld->conf->operators, u->name))
        return PROTO_ROLE_USER | PROTO_ROLE_OPERATOR;
    return PROTO_ROLE_USER;
}

/* A running --no-kill job whose failed node 'i' is not its batch host
 * loses that node and goes on (Slurm's excise_node_from_job()).  Returns
 * whether it did. */
static bool job_node_excised(struct ctld *ctld, struct job *job, size_t i)
{
    struct ctld_event ev = {.type = CTLD_EV_JOB_NODE_REMOVED,
                            .t = ctld_now(ctld),
                            .job_id = job->id,
                            .node = ctld->nodes->names[i]};

    if (!job->no_kill || job->state != JOB_RUNNING || !job->alloc
        || job->alloc->node_count < 2 || job->alloc->node_idx[0] == i
        || job->preempt_suspended || job->cancel_requested)
        return false;
    if (ctld_apply(ctld, &ev) < 0)
        return false;
    log_info("JobId=%u: node %s failed; removed from the job (--no-kill)",
             job->id, ev.node);
    return true;
}

/* A node silent for SlurmdTimeout is DOWN ("Not responding", as Slurm
 * says) and its jobs end NODE_FAIL, or are requeued when they allow it;
 * a --no-kill job only loses the node, unless it is its batch host. */
static void node_lost(struct ctld *ctld, size_t i)
{
    struct ctld_node *n = &ctld->nodes->info[i];
    struct node_admin a;
    struct job *job;

    log_error("Node %s not responding, setting DOWN", n->conf->name);
    n->responding = false;
    node_table_admin_get(ctld->nodes, i, &a);
    a.down = true;
    a.reason = "Not responding";
    a.reason_time = ctld_now(ctld);
    ctld_node_admin(ctld, (long)i, &a);
    size_t count;
    uint32_t *ids = ctld_node_jobs(ctld, (long)i, &count); /* its own */

    for (size_t k = 0; k < count; k++) {
        if (!(job = ctld_job_find(ctld, ids[k])))
            continue;
        if (job_node_excised(ctld, job, i))
            continue;
        ctld_job_finished(ctld, job, 0, false, true);
    }
    free(ids);
}

/* Whether the server turned connections away (descriptors exhausted, or
 * a flood of unauthenticated connections) in the last SlurmdTimeout: a
 * node's silence may then be the controller's deafness, and no node is
 * declared DOWN for it.
 */
static bool nodes_maybe_unheard(struct ctld *ctld)
{
    uint64_t drop = proto_server_last_drop(ctld->server);

    return drop
           && uv_now(ctld->loop) - drop
                  < (uint64_t)ctld->conf->slurmd_timeout_s * 1000;
}

/* Mark DOWN the nodes silent for SlurmdTimeout, unless the controller may
 * not have heard them (said once per such period).
 */
static void check_node_timeouts(struct ctld *ctld, time_t now)
{
    bool unheard = nodes_maybe_unheard(ctld);
    size_t held = 0;

    for (size_t i = 0; i < ctld->nodes->count; i++) {
        struct ctld_node *n = &ctld->nodes->info[i];
        if (n->down
            || (!n->responding && !ctld->nodes->sched[i].running_jobs)
            || now - n->last_seen <= (time_t)ctld->conf->slurmd_timeout_s)
            continue;
        if (unheard)
            held++;
        else
            node_lost(ctld, i);
    }
    if (held && !ctld->node_timeouts_held)
        log_error("%zu node%s silent for SlurmdTimeout not set DOWN: the "
                  "controller turned connections away in that time",
                  held, held == 1 ? "" : "s");
    ctld->node_timeouts_held = held > 0;
}

static void sweep_launches(struct ctld *ctld, time_t now)
{
    (void)now;
    launch_store_sweep(ctld->launches);
}

static void acct_check(struct ctld *ctld, time_t now)
{
    (void)now;
    acct_periodic(ctld);
}

/* The periodic checks, each a part of its turn by its name (stats.h), so
 * that a long turn says which. */
static const struct periodic_check {
    const char *name;
    void (*fn)(struct ctld *ctld, time_t now);
} periodic_checks[] = {
    {"periodic: node timeouts", check_node_timeouts},
    {"periodic: node epilogs", node_epilog_check},
    {"periodic: interactive limits", interactive_check_limits},
    {"periodic: job purge", state_purge_old_jobs},
    {"periodic: reservations", resv_expire},
    {"periodic: triggers", trigger_check},
    {"periodic: preemption grace", preempt_grace_check},
    {"periodic: gang scheduling", gang_periodic},
    {"periodic: launch store", sweep_launches},
    {"periodic: accounting spool", acct_check},
};

/* Node health, purging and snapshots, every PERIODIC_MS. */
static void periodic_cb(uv_timer_t *t)
{
    struct ctld *ctld = t->data;
    time_t now = ctld_now(ctld);
    uint64_t began;

    if (!ctld_active(ctld)) /* a Raft follower changes nothing itself */
        return;
    for (size_t i = 0; i < sizeof(periodic_checks) / sizeof(*periodic_checks);
         i++) {
        began = uv_hrtime();
        periodic_checks[i].fn(ctld, now);
        stats_turn_part(ctld, periodic_checks[i].name, began);
    }
    began = uv_hrtime();
    if (ctld->journal && state_snapshot_periodic(ctld, snapshot_records()) < 0)
        log_err("snapshot");
    stats_turn_part(ctld, "periodic snapshot", began);
    scheduler_request(ctld);
}

/* Each request's handling is a part of its loop turn (stats.h). */
static void request_timed(const char *type, uint64_t began_ns, void *arg)
{
    stats_turn_part(arg, type, began_ns);
}

static void signal_cb(uv_signal_t *s, int signo)
{
    log_info("Terminate signal (%s) received", strsignal(signo));
    uv_stop(s->loop);
}

void ctld_log_level_set(const struct ctld *ctld)
{
    const char *debug = ctld->conf->ctld_debug;
    int level = log_level_parse(debug ? debug : "info");

    if (level < 0)
        level = LOG_LEVEL_INFO;
    log_init("droverctld", (enum log_level)(level + ctld->log_verbose));
}

static void setup_logging(struct ctld *ctld, const struct slurm_conf *conf,
                          struct daemon_opts *o)
{
    ctld->log_verbose = o->verbose;
    ctld_log_level_set(ctld);
    if (!o->foreground && conf->ctld_log_file
        && log_open(conf->ctld_log_file) < 0)
        log_fatal("cannot open %s", conf->ctld_log_file);
}

/* '*path' with "-NAME" before its extension (droverctld.log ->
 * droverctld-ctl2.log), or "/NAME" below it when 'dir': each member of a
 * Raft group on one host keeps its own files. */
static void own_path(char **path, const char *name, bool dir)
{
    char *p = *path, *dot, *slash;

    if (!p)
        return;
    dot = strrchr(p, '.');
    slash = strrchr(p, '/');
    if (dir || !dot || (slash && dot < slash))
        *path = xasprintf(dir ? "%s/%s" : "%s-%s", p, name);
    else
        *path = xasprintf("%.*s-%s%s", (int)(dot - p), p, name, dot);
    free(p);
}

/* In a Raft group: which member this is, and its own state directory,
 * log and pid files. */
static void ha_identify(struct slurm_conf *conf, struct daemon_opts *o)
{
    drv_error_t error = {0};
    const char *name;

    if (!ha_configured(conf))
        return;
    if (!conf->raft_port) {
        fprintf(stderr, "droverctld: error: %s: %zu SlurmctldHost lines form "
                "a Raft group, which needs SlurmctldParameters="
                "drover_raft_port=PORT\n", conf->path,
                conf->ctld_backup_count + 1);
        exit(1);
    }
    if ((ha_self = ha_self_index(conf, o->node_name, &error)) < 0) {
        fprintf(stderr, "droverctld: error: %s\n", error.text);
        exit(1);
    }
    name = conf_ctld_name(conf, (size_t)ha_self);
    own_path(&conf->state_save_location, name, true);
    own_path(&conf->ctld_log_file, name, false);
    own_path(&conf->ctld_pid_file, name, false);
}

static void ctld_init(struct ctld *ctld, struct daemon_opts *o)
{
    drv_error_t error = {0};
    struct passwd *pw;

    if (!(ctld->conf = conf_load(o->conf_path, &error)))
        log_fatal("%s", error.text);
    ha_identify(ctld->conf, o);
    setup_logging(ctld, ctld->conf, o);
    /* Keywords Drover accepts and does not use: said once, here (the
     * commands that read slurm.conf too stay quiet). */
    for (size_t i = 0; i < ctld->conf->notice_count; i++)
        log_info("%s", ctld->conf->notices[i]);
    for (size_t i = 0; i < ctld->conf->cgroup.notice_count; i++)
        log_info("%s", ctld->conf->cgroup.notices[i]);
    pw = getpwnam(ctld->conf->slurm_user ? ctld->conf->slurm_user : "root");
    ctld->slurm_uid = pw ? pw->pw_uid : 0;
    /* GroupUpdateTime=0: Slurm's "no periodic updating". */
    ctld->ident = ident_create(ctld->conf->group_update_time_s
                                   ? ctld->conf->group_update_time_s
                                   : UINT_MAX);
    ctld->access = part_access_create(ctld->slurm_uid, ctld->ident);
    if (!ctld->conf->state_save_location)
        log_fatal("StateSaveLocation is not set in %s", ctld->conf->path);
    if (!(ctld->nodes = node_table_create(ctld->conf, &error)))
        log_fatal("%s: %s", ctld->conf->path, error.text);
    if (ha_self < 0 && !(ctld->journal = journal_open(
                            ctld->conf->state_save_location, &error)))
        log_fatal("%s", error.text);
    if (ha_self >= 0 && mkdir(ctld->conf->state_save_location, 0700) < 0
        && errno != EEXIST)
        log_fatal("%s: %s", ctld->conf->state_save_location,
                  strerror(errno));
    ctld->next_job_id = ctld->conf->first_job_id ? ctld->conf->first_job_id
                                                 : 1;
    ctld->acks_tail = &ctld->acks;
    ctld->launches = launch_store_create();
    /* The accounting tables (cached copy) and the priority state before
     * the replay: priority calculations read them. */
    if (enforce_init(ctld, &error) < 0)
        log_fatal("%s", error.text);
    priority_init(ctld);
    if (ha_self >= 0) {
        char *dir = xasprintf("%s/raft", ctld->conf->state_save_location);
        if (!(ctld->ha = ha_start(ctld, ha_self, dir, saved_argv, &error)))
            log_fatal("%s", error.text);
        free(dir);
    } else if (state_restore(ctld, &error) < 0) {
        log_fatal("restoring state from %s: %s",
                  ctld->conf->state_save_location, error.text);
    } else {
        trigger_watch(ctld, ctld->boot_time); /* changes from now on */
    }
    /* Nodes get SlurmdTimeout from now to register again. */
    for (size_t i = 0; i < ctld->nodes->count; i++)
        ctld->nodes->info[i].last_seen = ctld->boot_time;
    if (!(ctld->auth = proto_auth_create(ctld->conf->auth_socket, &error)))
        log_fatal("%s", error.text);
    if (token_init(ctld, &error) < 0)
        log_fatal("auth/jwt: %s", error.text);
    if (mail_init(ctld, &error) < 0)
        log_fatal("MailProg: %s", error.text);
    if (prolog_ctld_init(ctld, &error) < 0)
        log_fatal("PrologSlurmctld: %s", error.text);
    if (acct_init(ctld, &error) < 0)
        log_fatal("accounting spool: %s", error.text);
    if (!ctld->ha)
        state_respool_replayed(ctld);
}

static void ctld_listen(struct ctld *ctld)
{
    drv_error_t error = {0};

    daemon_raise_nofile();
    if (!(ctld->server = proto_server_create(ctld->loop, ctld->auth, roles_of,
                                             ctld, &error))
        || proto_server_tls_setup(ctld->server, ctld->conf->tls.rpc,
                                  ctld->conf->tls.cert, ctld->conf->tls.key,
                                  ctld->conf->tls.ca, &error) < 0
        || proto_server_register(ctld->server, rpc_job_handlers, ctld, &error)
               < 0
        || proto_server_register(ctld->server, rpc_node_handlers, ctld,
                                 &error)
               < 0
        || proto_server_register(ctld->server, rpc_config_handlers, ctld,
                                 &error)
               < 0
        || proto_server_register(ctld->server, rpc_step_handlers, ctld,
                                 &error)
               < 0
        || proto_server_register(ctld->server, rpc_alloc_handlers, ctld,
                                 &error)
               < 0
        || proto_server_register(ctld->server, rpc_stats_handlers, ctld,
                                 &error) < 0
        || proto_server_register(ctld->server, rpc_priority_handlers, ctld,
                                 &error) < 0
        || proto_server_register(ctld->server, rpc_assoc_mgr_handlers, ctld,
                                 &error) < 0
        || proto_server_register(ctld->server, rpc_suspend_handlers, ctld,
                                 &error) < 0
        || proto_server_register(ctld->server, rpc_resv_handlers, ctld,
                                 &error) < 0
        || proto_server_register(ctld->server, rpc_reconfig_handlers, ctld,
                                 &error) < 0
        || proto_server_register(ctld->server, rpc_part_handlers, ctld,
                                 &error) < 0
        || proto_server_register(ctld->server, rpc_trigger_handlers, ctld,
                                 &error) < 0
        || proto_server_register(ctld->server, rpc_crontab_handlers, ctld,
                                 &error) < 0
        || proto_server_register(ctld->server, rpc_token_handlers, ctld,
                                 &error) < 0
        || proto_server_register(ctld->server, rpc_ha_handlers, ctld,
                                 &error) < 0
        || proto_server_register(ctld->server, rpc_stat_handlers, ctld,
                                 &error) < 0
        || proto_server_register(ctld->server, rpc_step_info_handlers, ctld,
                                 &error)
               < 0
        || proto_server_listen(ctld->server,
                               ctld->ha ? conf_ctld_addr(ctld->conf,
                                                       (size_t)ha_self)
                                        : "0.0.0.0",
                               ctld->conf->ctld_port, &error)
               < 0)
        log_fatal("%s", error.text);
    if (rpc_gate_install(ctld, &error) < 0)
        log_fatal("%s", error.text);
    proto_server_set_timed(ctld->server, request_timed, ctld);
    proto_call_set_timed(request_timed, ctld);
    proto_server_set_unauth_timeout(ctld->server,
                                    ctld->conf->msg_timeout_s * 1000);
    proto_server_fit_script(ctld->server, ctld->conf->sched.max_script_size);
}

static void ctld_start_handles(struct ctld *ctld)
{
    uv_prepare_init(ctld->loop, &ctld->flush_handle);
    ctld->flush_handle.data = ctld;
    uv_prepare_start(&ctld->flush_handle, ctld_flush_cb);
    uv_check_init(ctld->loop, &ctld->answers_handle);
    ctld->answers_handle.data = ctld;
    uv_check_start(&ctld->answers_handle, ctld_answers_cb);
    uv_timer_init(ctld->loop, &ctld->sched_timer);
    ctld->sched_timer.data = ctld;
    uv_timer_init(ctld->loop, &ctld->periodic_timer);
    ctld->periodic_timer.data = ctld;
    uv_timer_start(&ctld->periodic_timer, periodic_cb, PERIODIC_MS,
                   PERIODIC_MS);
    uv_signal_init(ctld->loop, &ctld->sigterm);
    uv_signal_start(&ctld->sigterm, signal_cb, SIGTERM);
    uv_signal_init(ctld->loop, &ctld->sigint);
    uv_signal_start(&ctld->sigint, signal_cb, SIGINT);
}

static void ctld_fini(struct ctld *ctld)
{
    struct job *job, *tmp;

    ctld_flush_cb(&ctld->flush_handle);
    if (ctld->journal && state_snapshot(ctld) < 0)
        log_err("final snapshot");
    listing_fini(ctld);
    proto_server_destroy(ctld->server);
    rpc_gate_fini(ctld);
    acct_fini(ctld);
    ha_stop(ctld->ha);
    prolog_ctld_stop(ctld);
    daemon_close_loop(ctld->loop);
    mail_fini(ctld); /* after the loop closed its children's handles */
    prolog_ctld_fini(ctld);
    trigger_fini(ctld); /* likewise */
    ha_destroy(ctld->ha);
    enforce_fini(ctld);
    priority_fini(ctld);
    resv_fini(ctld);
    part_fini(ctld);
    json_decref(ctld->crontabs);
    bitmap_destroy(ctld->planned_nodes);
    sched_predict_destroy(ctld->predict);
    journal_close(ctld->journal);
    HASH_ITER(hh, ctld->jobs, job, tmp) {
        ctld_job_unlink(ctld, job);
        job_destroy(job);
    }
    free(ctld->replayed); /* a Raft follower's, never respooled */
    ctld_job_sets_free(ctld);
    idmap_free(&ctld->job_ids);
    ctld_user_jobs_free(ctld);
    launch_store_destroy(ctld->launches);
    node_table_destroy(ctld->nodes);
    part_access_destroy(ctld->access);
    ident_destroy(ctld->ident);
    token_fini(ctld);
    proto_auth_destroy(ctld->auth);
    conf_destroy(ctld->conf);
    for (size_t i = 0; i < ctld->retired_conf_count; i++)
        conf_destroy(ctld->retired_confs[i]);
    free(ctld->retired_confs);
}

int main(int argc, char **argv)
{
    struct daemon_opts o;
    struct ctld ctld = {0};

    saved_argv = argv;
    daemon_parse_opts(argc, argv, usage_text, true, &o);
    signal(SIGPIPE, SIG_IGN);
    ctld.loop = uv_default_loop();
    uv_loop_configure(ctld.loop, UV_METRICS_IDLE_TIME); /* stats.h */
    ctld.boot_time = time(NULL);
    ctld.stats.since = ctld.boot_time;
    ctld_init(&ctld, &o);
    ctld_listen(&ctld);
    ctld_start_handles(&ctld);
    priority_start(&ctld);
    daemon_write_pidfile(ctld.conf->ctld_pid_file);
    if (ctld.conf->prolog_flags & CONF_PROLOG_CONTAIN)
        log_info("PrologFlags=Contain: the Prolog runs at allocation (as "
                 "Alloc); Drover makes no extern step, so pam_slurm_adopt "
                 "finds none to adopt into (docs/compatibility.md)");
    log_info("droverctld %s started on port %u", DROVER_VERSION,
             ctld.conf->ctld_port);
    if (ctld_active(&ctld))
        scheduler_request(&ctld);
    daemon_notify("READY=1"); /* state restored, listening */
    uv_run(ctld.loop, UV_RUN_DEFAULT);
    daemon_notify("STOPPING=1");
    ctld_fini(&ctld);
    uv_loop_close(ctld.loop);
    return 0;
}
