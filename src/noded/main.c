/* SPDX-License-Identifier: Apache-2.0
 *
 * droverd - the node daemon
 *
 * droverd -N node01 serves the node named node01 in slurm.conf, on that
 * node's Port=, with SlurmdSpoolDir (with %n expanded) as its spool.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/daemon.h"
#include "common/log.h"
#include "proto/client.h"
#include "common/xalloc.h"
#include "noded/bcast.h"
#include "noded/cgroup.h"
#include "noded/cgroup_bpf.h"
#include "noded/gpu_nvml.h"
#include "noded/jobcontainer.h"
#include "noded/metrics.h"
#include "noded/noded.h"
#include "noded/prolog.h"
#include "noded/spool.h"
#include "noded/stepd.h"

static const char usage_text[] =
    "Usage: droverd [-D] [-f slurm.conf] [-N nodename] [-v] [-V]\n"
    "  -D        run in the foreground, log to stderr\n"
    "  -f FILE   read FILE instead of $DROVER_CONF\n"
    "  -N NAME   the node this daemon serves (default: hostname)\n"
    "  -v        more verbose logging (repeat)\n"
    "  -V        print the version and exit\n";

static unsigned roles_of(uid_t uid, gid_t gid, void *arg)
{
    struct noded *nd = arg;

    (void)gid;
    if (uid == 0 || uid == nd->slurm_uid)
        return PROTO_ROLE_USER | PROTO_ROLE_DAEMON;
    return PROTO_ROLE_USER;
}

static void signal_cb(uv_signal_t *s, int signo)
{
    log_info("Terminate signal (%s) received", strsignal(signo));
    uv_stop(s->loop);
}

/* Reap children: droverstepd processes (batch and srun steps). */
static void sigchld_cb(uv_signal_t *h, int signo)
{
    struct noded *nd = h->data;
    int status;
    pid_t pid;

    (void)signo;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
        if (!stepmgr_reaped(nd, pid, status)
            && !health_reaped(nd, pid, status)
            && !prolog_reaped(nd, pid, status)
            && !bcast_reaped(nd, pid, status))
            log_verbose("child %d reaped", (int)pid);
}

/* GPUs are named by gres.conf File= (and MultipleFiles=) lines: check
 * they exist, as slurmd does, so a broken device shows in the log rather
 * than inside a job. */
static void check_char_dev(const char *gres, const char *file)
{
    struct stat st;

    if (file && (stat(file, &st) < 0 || !S_ISCHR(st.st_mode)))
        log_error("gres/%s: %s is not a character device", gres, file);
}

static void check_gres_devices(const struct conf_node *node)
{
    for (size_t i = 0; i < node->gres_dev_count; i++) {
        const struct conf_gres_dev *d = &node->gres_devs[i];
        check_char_dev(d->name, d->file);
        for (size_t k = 0; d->more_files && d->more_files[k]; k++)
            check_char_dev(d->name, d->more_files[k]);
    }
}

void noded_log_level_set(const struct noded *nd)
{
    static char *prog;
    int level = log_level_parse(nd->conf->slurmd_debug ?: "info");

    if (!prog)
        prog = xasprintf("droverd(%s)", nd->node->name);
    log_init(prog, (enum log_level)((level < 0 ? LOG_LEVEL_INFO : level)
                                    + nd->log_verbose));
}

static void noded_init(struct noded *nd, struct daemon_opts *o)
{
    drv_error_t error = {0};
    char host[256] = "";
    struct passwd *pw;

    if (!(nd->conf = conf_load(o->conf_path, &error)))
        log_fatal("%s", error.text);
    if (!o->node_name && gethostname(host, sizeof(host)) == 0)
        o->node_name = host;
    if (!(nd->node = conf_node_find(nd->conf, o->node_name)))
        log_fatal("node %s is not in %s", o->node_name, nd->conf->path);
    nd->log_verbose = o->verbose;
    noded_log_level_set(nd);
    if (!o->foreground && nd->conf->slurmd_log_file) {
        char *p = conf_expand_node_path(nd->conf->slurmd_log_file, nd->node);
        if (log_open(p) < 0)
            log_fatal("cannot open %s", p);
        free(p);
    }
    /* Before the steps' copy is made; the conf is droverd's own. */
    if (nd->node->gpu_autodetect)
        gpu_nvml_autodetect((struct conf_node *)nd->node);
    if (!(nd->step_conf = conf_step_to_json(nd->conf, nd->node)))
        log_fatal("out of memory");
    pw = getpwnam(nd->conf->slurm_user ?: "root");
    nd->slurm_uid = pw ? pw->pw_uid : 0;
    nd->spool_dir = conf_expand_node_path(
        nd->conf->slurmd_spool_dir ?: "/var/spool/drover/%n", nd->node);
    if (spool_check(nd->spool_dir, &error) < 0)
        log_fatal("%s", error.text);
    if (!(nd->auth = proto_auth_create(nd->conf->auth_socket, &error)))
        log_fatal("%s", error.text);
    check_gres_devices(nd->node);
    nd->done = json_array();
    nd->start_time = time(NULL);
}

/* JobContainerType=job_container/tmpfs: this node's BasePath ready, and
 * its settings in what each step daemon gets (jobcontainer.h). */
static void noded_job_container(struct noded *nd)
{
    drv_error_t error = {0};
    struct conf_jc jc;

    if (!conf_job_container_tmpfs(nd->conf))
        return;
    if (conf_job_container_for(nd->conf, nd->node->name, &jc) < 0)
        log_fatal("%s: no line for node %s (JobContainerType="
                  "job_container/tmpfs)", nd->conf->job_container.path,
                  nd->node->name);
    if (jc_base_init(&jc, &error) < 0)
        log_fatal("%s: %s", nd->conf->job_container.path, error.text);
    json_object_set_new(nd->step_conf, "job_container", jc_to_json(&jc));
    nd->jc_base = jc.base_path;
    log_info("jobs get a private %s under %s", jc.dirs, jc.base_path);
}

static bool job_here(uint32_t job_id, void *arg)
{
    return stepmgr_job_here(arg, job_id);
}

/* The node's cgroup tree.  Jobs still run when it cannot be used (not
 * root, no hierarchy): the log says so. */
static void noded_cgroups(struct noded *nd)
{
    drv_error_t error = {0};
    int swept;

    if (!(nd->cgroup = cgroup_root_open(nd->conf, nd->node->name, &error))) {
        if (error.text[0])
            log_error("%s: jobs run without cgroups", error.text);
        else
            log_verbose("cgroups not in use (ProctrackType=%s TaskPlugin=%s)",
                        nd->conf->proctrack_type ?: "",
                        nd->conf->task_plugin ?: "");
        return;
    }
    cgroup_bpf_enable(nd->cgroup, true);
    log_info("jobs run in cgroup %s (%s) under %s%s",
             cgroup_root_version(nd->cgroup),
             cgroup_root_controllers(nd->cgroup),
             cgroup_root_base(nd->cgroup),
             conf_task_cgroup(nd->conf) ? "" : "; no limits (TaskPlugin "
                                               "has no task/cgroup)");
    if ((swept = cgroup_root_sweep(nd->cgroup)) > 0)
        log_info("removed %d empty job cgroup%s left by a previous run",
                 swept, swept == 1 ? "" : "s");
}

static void noded_listen(struct noded *nd)
{
    drv_error_t error = {0};

    daemon_raise_nofile();
    if (!(nd->server = proto_server_create(nd->loop, nd->auth, roles_of, nd,
                                           &error))
        || proto_server_tls_setup(nd->server, nd->conf->tls.rpc,
                                  nd->conf->tls.cert, nd->conf->tls.key,
                                  nd->conf->tls.ca, &error) < 0
        || proto_server_register(nd->server, noded_handlers, nd, &error) < 0
        || proto_server_register(nd->server, noded_reconfig_handlers, nd,
                                 &error) < 0
        || proto_server_listen(nd->server, "0.0.0.0", nd->node->port, &error)
               < 0)
        log_fatal("%s", error.text);
    proto_server_set_unauth_timeout(nd->server,
                                    nd->conf->msg_timeout_s * 1000);
    proto_server_fit_script(nd->server, nd->conf->sched.max_script_size);
    if (metrics_start(nd, &error) < 0)
        log_fatal("%s", error.text);
}

static void noded_start_handles(struct noded *nd)
{
    uv_signal_init(nd->loop, &nd->sigchld);
    nd->sigchld.data = nd;
    uv_signal_start(&nd->sigchld, sigchld_cb, SIGCHLD);
    uv_signal_init(nd->loop, &nd->sigterm);
    uv_signal_start(&nd->sigterm, signal_cb, SIGTERM);
    uv_signal_init(nd->loop, &nd->sigint);
    uv_signal_start(&nd->sigint, signal_cb, SIGINT);
    stepmgr_watch(nd);
    stepmgr_scan(nd, true); /* the first registration lists them */
    if (nd->jc_base && jc_sweep(nd->jc_base, job_here, nd) > 0)
        log_info("removed job containers left by a previous run");
    health_start(nd); /* then the first registration */
}

static void write_pidfile(struct noded *nd)
{
    char *path;

    if (!nd->conf->slurmd_pid_file)
        return;
    path = conf_expand_node_path(nd->conf->slurmd_pid_file, nd->node);
    daemon_write_pidfile(path);
    free(path);
}

int main(int argc, char **argv)
{
    struct daemon_opts o;
    struct noded nd = {0};

    daemon_parse_opts(argc, argv, usage_text, true, &o);
    signal(SIGPIPE, SIG_IGN);
    nd.loop = uv_default_loop();
    noded_init(&nd, &o);
    noded_job_container(&nd);
    noded_cgroups(&nd);
    noded_listen(&nd);
    noded_start_handles(&nd);
    write_pidfile(&nd);
    log_info("droverd %s started: node %s port %u", DROVER_VERSION,
             nd.node->name, nd.node->port);
    daemon_notify("READY=1");
    uv_run(nd.loop, UV_RUN_DEFAULT);
    daemon_notify("STOPPING=1");
    /* Jobs keep running when droverd stops (as slurmd's do); the
     * controller reconciles at the next registration.  Requests waiting
     * for a step process are answered first. */
    stepctl_cancel_all();
    stepmgr_stop(&nd);
    health_stop(&nd);
    bcast_stop(&nd);
    metrics_stop(&nd);
    proto_server_destroy(nd.server);
    proto_call_cancel_all();
    daemon_close_loop(nd.loop);
    stepmgr_forget_all(&nd);
    health_free(&nd);
    prolog_free(&nd);
    bcast_free(&nd);
    cgroup_root_prune(nd.cgroup); /* what no job uses any more */
    cgroup_root_destroy(nd.cgroup);
    json_decref(nd.done);
    json_decref(nd.step_conf);
    for (size_t i = 0; i < nd.retired_count; i++)
        free(nd.retired[i]);
    free(nd.retired);
    proto_auth_destroy(nd.auth);
    free(nd.spool_dir);
    free(nd.jc_base);
    conf_destroy(nd.conf);
    return 0;
}
