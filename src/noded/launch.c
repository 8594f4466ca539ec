/* SPDX-License-Identifier: Apache-2.0
 *
 * launch.c - run a batch script as the job's user
 *
 * The job's cgroup job_<id>/step_batch is made first (limited to the
 * job's memory on this node, without the node's GPUs it was not given);
 * then fork; in the child: new session, the cgroup, the job's groups, gid
 * and uid, its work directory, its output files (opened as the user, so
 * permissions are the user's), the job environment, exec.  The child
 * never returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/cgroup.h"
#include "noded/gpu_files.h"
#include "noded/launch_env.h"
#include "noded/noded.h"
#include "noded/oci.h"
#include "noded/spool.h"
#include "noded/step_bind.h"
#include "noded/task_script.h"
#include "noded/user_env.h"

struct launch {
    uint32_t job_id;
    uid_t uid;
    gid_t gid;
    const char *user;
    const char *work_dir;
    const char *std_out;
    const char *std_err;
    const char *std_in;
    int out_mode;      /* O_TRUNC, or O_APPEND for --open-mode=append */
    bool user_env;     /* --get-user-env (or --export=NONE): add the
                        * user's login environment */
    char *script_path;
    char **argv;
    char **envp;
    struct cgroup_step *cg; /* NULL: no cgroups */
    struct gpu_files gpu_files; /* the job's GPU device files here */
    cpu_set_t cpus;         /* the job's CPUs here, with have_cpus */
    bool have_cpus;         /* ConstrainCores or task/affinity asked */
    bool bind_cpus;         /* task/affinity: the script is bound to them */
    struct oci_step *oci;   /* --container (oci.h), or NULL */
    const char *task_prolog; /* slurm.conf TaskProlog, or NULL */
};

/* The script goes in <spool>/job<ID>/slurm_script.  The directory is
 * droverd's (mode 0711: the user may reach the script, not put anything
 * beside it) and made afresh: one already there (a requeued run, a crash)
 * is removed first, never written through (spool.h). */
static int write_script(struct noded *nd, struct launch *l, const char *text,
                        drv_error_t *error)
{
    char name[32];
    int dfd, rc;

    snprintf(name, sizeof(name), "job%05u", l->job_id);
    if ((dfd = spool_mkdir_fresh(nd->spool_dir, name, 0711, error)) < 0)
        return -1;
    rc = spool_write_new(dfd, "slurm_script", text, strlen(text), 0700,
                         l->uid, l->gid, error);
    close(dfd);
    l->script_path = xasprintf("%s/%s/slurm_script", nd->spool_dir, name);
    return rc;
}

static char **build_argv(const char *script, json_t *args)
{
    size_t n = json_array_size(args);
    char **argv = xzalloc(sizeof(*argv) * (n + 2));
    json_t *v;
    size_t i;

    argv[0] = xstrdup(script);
    json_array_foreach(args, i, v) argv[i + 1] =
        xstrdup(json_string_value(v) ?: "");
    return argv;
}

static void free_strv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static int open_as(const char *path, int flags, int target)
{
    int fd = open(path, flags, 0644);

    if (fd < 0)
        return -1;
    if (fd != target) {
        if (dup2(fd, target) < 0)
            return -1;
        close(fd);
    }
    return 0;
}

static void child_fail(const char *what)
{
    fprintf(stderr, "droverd: job launch: %s: %s\n", what, strerror(errno));
    _exit(127);
}

/* Fill in "SLURM_TASK_PID=" (launch_env.c) with this process's pid.  Runs
 * in the forked child: no allocation, no stdio.
 */
static void set_task_pid(char **envp)
{
    static char var[32] = "SLURM_TASK_PID=";
    char digits[16];
    size_t n = 0, len = strlen(var);
    pid_t pid = getpid();

    do {
        digits[n++] = (char)('0' + pid % 10);
        pid /= 10;
    } while (pid > 0 && n < sizeof(digits));
    while (n > 0 && len + 1 < sizeof(var))
        var[len++] = digits[--n];
    var[len] = '\0';
    for (; envp && *envp; envp++) {
        if (strcmp(*envp, "SLURM_TASK_PID=") == 0) {
            *envp = var;
            return;
        }
    }
}

static void exec_child(struct launch *l)
{
    child_reset();
    if (l->cg && cgroup_step_attach(l->cg, 0) < 0)
        child_fail("joining the job's cgroup");
    /* task/affinity: as Slurm's batch step, the script runs on the job's
     * CPUs of this node */
    if (l->bind_cpus && sched_setaffinity(0, sizeof(l->cpus), &l->cpus) < 0)
        child_fail("binding to the job's CPUs");
    if (child_become_user(l->user, l->uid, l->gid) < 0)
        child_fail("setting user");
    if (chdir(l->work_dir) < 0 && chdir("/tmp") < 0)
        child_fail("chdir");
    if (open_as(l->std_in, O_RDONLY, 0) < 0)
        child_fail(l->std_in);
    if (open_as(l->std_out, O_WRONLY | O_CREAT | l->out_mode, 1) < 0)
        child_fail(l->std_out);
    if (strcmp(l->std_err, l->std_out)) {
        if (open_as(l->std_err, O_WRONLY | O_CREAT | l->out_mode, 2) < 0)
            child_fail(l->std_err);
    } else if (dup2(1, 2) < 0) {
        child_fail("dup2");
    }
    child_close_fds();
    /* After the output files: a failure is reported in the job's stderr. */
    if (l->user_env)
        l->envp = user_env_merge(l->envp, l->user, USER_ENV_TIMEOUT_S);
    /* slurm.conf TaskProlog, as before each srun task: the script is the
     * batch step's task (its "export NAME=value" lines reach it) */
    if (l->task_prolog) {
        int rc = task_prolog_run(l->task_prolog, &l->envp);

        if (rc) {
            fprintf(stderr, "TaskProlog failed status=%d\n", rc);
            _exit(rc);
        }
    }
    set_task_pid(l->envp);
    if (l->oci)
        oci_task_exec(l->oci, 0, l->argv, l->envp);
    execve(l->script_path, l->argv, l->envp);
    child_fail(l->script_path);
}

static int parse_launch(json_t *job, struct launch *l, drv_error_t *error)
{
    json_int_t id = 0, uid = -1, gid = -1;

    if (json_unpack(job, "{s:I s:I s:I s:s s:s s:s s:s s:s}", "job_id", &id,
                    "user_id", &uid, "group_id", &gid, "user_name", &l->user,
                    "work_dir", &l->work_dir, "std_out", &l->std_out,
                    "std_err", &l->std_err, "std_in", &l->std_in)
        < 0)
        return errprintf(error, "batch_launch: incomplete job description");
    l->out_mode = json_is_string(json_object_get(job, "open_mode"))
                          && !strcmp(json_string_value(
                                         json_object_get(job, "open_mode")),
                                     "append")
                      ? O_APPEND
                      : O_TRUNC;
    l->job_id = (uint32_t)id;
    l->uid = (uid_t)uid;
    l->gid = (gid_t)gid;
    return 0;
}

/* This node's entry of the job's "alloc": {"node","cpus","mem_mib","gpus"}. */
static json_t *node_alloc(struct noded *nd, json_t *job)
{
    json_t *e;
    size_t i;

    json_array_foreach(json_object_get(job, "alloc"), i, e) {
        const char *n = json_string_value(json_object_get(e, "node"));
        if (n && !strcmp(n, nd->node->name))
            return e;
    }
    return NULL;
}

/* The GPU device files of the job on this node (ranges 'gpus'): those it
 * is given, those its cgroup denies. */
static void batch_gpu_files(const struct conf_node *node, const char *gpus,
                            struct launch *l)
{
    bitmap_t *given = gpu_files_given(node, gpus);

    gpu_files_free(&l->gpu_files);
    gpu_files_split(node, given, &l->gpu_files);
    bitmap_destroy(given);
}

/* --container: the batch step's directory; the script's bound in. */
static int batch_oci(struct noded *nd, json_t *job, struct launch *l,
                     drv_error_t *error)
{
    struct oci_step_spec spec = {0};
    char *dir;

    if (!oci_spec_from_json(json_object_get(job, "launch"), &spec))
        return 0;
    if (!l->gpu_files.allowed) /* no cgroups: batch_cgroup() did not look */
        batch_gpu_files(nd->node, json_string_value(json_object_get(
                                      node_alloc(nd, job), "gpus")), l);
    dir = xstrdup(l->script_path);
    *strrchr(dir, '/') = '\0';
    spec.oci = &nd->conf->oci;
    spec.cwd = l->work_dir;
    spec.spool = nd->spool_dir;
    spec.node = nd->node->name;
    spec.user = l->user;
    spec.job_id = l->job_id;
    spec.step_id = OCI_BATCH_STEP;
    spec.uid = l->uid;
    spec.gid = l->gid;
    spec.devices = l->gpu_files.allowed;
    spec.ro_dir = dir;
    l->oci = oci_step_create(&spec, error);
    free(dir);
    return l->oci ? 0 : -1;
}

/* The job's CPUs on this node (the PUs of its CPU ids), found once for
 * ConstrainCores' cpuset and task/affinity's binding of the script. */
static int batch_cpus(struct noded *nd, json_t *job, struct launch *l,
                      drv_error_t *error)
{
    json_t *a = node_alloc(nd, job);

    l->bind_cpus = conf_task_affinity(nd->conf);
    if (!l->bind_cpus && !cgroup_root_constrains_cores(nd->cgroup))
        return 0;
    if (step_bind_job_cpuset(
            (uint32_t)json_integer_value(json_object_get(a, "cpus")),
            json_string_value(json_object_get(a, "cpu_ids")), &l->cpus,
            error) < 0)
        return -1;
    l->have_cpus = true;
    return 0;
}

/* The batch step's cgroup: the job's memory on this node, its CPUs
 * (ConstrainCores), and the node's GPU files the job was not given
 * denied.  NULL without cgroups. */
static int batch_cgroup(struct noded *nd, json_t *job, struct launch *l,
                        drv_error_t *error)
{
    const struct conf_node *node = nd->node;
    struct cgroup_limits lim = { 0 };
    char *cpus = NULL;
    json_t *a;

    if (!nd->cgroup)
        return 0;
    a = node_alloc(nd, job);
    batch_gpu_files(node, json_string_value(json_object_get(a, "gpus")), l);
    lim.deny_devices = l->gpu_files.denied;
    lim.mem_mib = (uint64_t)json_integer_value(json_object_get(a, "mem_mib"));
    if (cgroup_root_constrains_cores(nd->cgroup) && l->have_cpus
        && !(cpus = step_bind_cpuset_list(&l->cpus)))
        return errprintf(error, "cgroup: out of memory");
    lim.cpus = cpus;
    l->cg = cgroup_step_create(nd->cgroup, l->job_id, "batch", &lim, NULL,
                               error);
    free(cpus);
    return l->cg ? 0 : -1;
}

/* Where the script's stderr goes, for droverd's own lines (OOM). */
static char *err_path(const struct launch *l)
{
    if (l->std_err[0] == '/')
        return xstrdup(l->std_err);
    return xasprintf("%s/%s", l->work_dir, l->std_err);
}

struct nd_job *launch_batch(struct noded *nd, json_t *job, drv_error_t *error)
{
    struct launch l = {0};
    json_t *launch = json_object_get(job, "launch");
    const char *script = json_string_value(json_object_get(launch, "script"));
    struct nd_job *j;
    pid_t pid;

    if (parse_launch(job, &l, error) < 0)
        return NULL;
    if (!script)
        return errprintf(error, "JobId=%u: no script", l.job_id), NULL;
    if (write_script(nd, &l, script, error) < 0) {
        free(l.script_path);
        return NULL;
    }
    l.argv = build_argv(l.script_path, json_object_get(launch, "argv"));
    l.envp = launch_env_build(nd, job);
    l.user_env = json_is_true(json_object_get(launch, "get_user_env"));
    l.task_prolog = nd->conf->task_prolog;
    child_user_groups(l.user, l.gid); /* not in the child (child.c) */
    if (batch_cpus(nd, job, &l, error) < 0
        || batch_cgroup(nd, job, &l, error) < 0) {
        pid = -1;
    } else if (batch_oci(nd, job, &l, error) < 0) {
        pid = -1;
        cgroup_step_destroy(l.cg);
    } else if ((pid = fork()) < 0) {
        errprintf(error, "fork: %s", strerror(errno));
        cgroup_step_destroy(l.cg);
        oci_step_destroy(l.oci);
    } else if (pid == 0) {
        exec_child(&l);
    }
    free_strv(l.argv);
    free_strv(l.envp);
    free(l.script_path);
    gpu_files_free(&l.gpu_files);
    if (pid < 0)
        return NULL;
    j = xzalloc(sizeof(*j));
    j->id = l.job_id;
    j->pid = pid;
    j->cg = l.cg;
    j->oci = l.oci;
    j->err_path = err_path(&l);
    j->uid = l.uid;
    j->gid = l.gid;
    j->nd = nd;
    j->run_id = (uint32_t)json_integer_value(json_object_get(job, "run_id"));
    j->time_limit_s = json_integer_value(json_object_get(job, "time_limit_s"));
    j->over_time_s = json_integer_value(json_object_get(job, "over_time_s"));
    j->kill_wait_s =
        (uint32_t)json_integer_value(json_object_get(job, "kill_wait_s"));
    j->signal_num = (int)json_integer_value(json_object_get(job, "signal_num"));
    j->signal_secs =
        (int)json_integer_value(json_object_get(job, "signal_secs"));
    j->signal_batch = json_is_true(json_object_get(job, "signal_batch_only"));
    log_info("Launched JobId=%u pid %d as uid %u", j->id, (int)pid, l.uid);
    return j;
}
