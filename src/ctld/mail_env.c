/* SPDX-License-Identifier: Apache-2.0
 *
 * mail_env.c - the environment slurmctld 22.05 gives MailProg (mail_env.h)
 */
#include <stdarg.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "common/mailtype.h"
#include "common/taskcount.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/job_info.h"
#include "ctld/mail_env.h"
#include "proto/job_state.h"

struct env {
    char **v;
    size_t n, cap;
};

static void env_add(struct env *e, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void env_add(struct env *e, const char *name, const char *fmt, ...)
{
    va_list ap;
    char *value;

    va_start(ap, fmt);
    if (vasprintf(&value, fmt, ap) < 0)
        abort();
    va_end(ap);
    if (e->n + 2 > e->cap) {
        e->cap = e->cap ? 2 * e->cap : 32;
        e->v = xrealloc(e->v, e->cap * sizeof(*e->v));
    }
    e->v[e->n++] = xasprintf("%s=%s", name, value);
    e->v[e->n] = NULL;
    free(value);
}

/* "2(x3),1": the CPUs per node it holds, or held when it ran. */
static char *cpus_per_node(const struct job *job, size_t *nodes)
{
    json_t *arr = NULL, *e;
    int64_t *c;
    size_t i, n = 0;
    char *s;

    if (job->alloc)
        n = job->alloc->node_count;
    else if (job->last_alloc_json
             && (arr = json_loads(job->last_alloc_json, 0, NULL)))
        n = json_array_size(arr);
    c = xzalloc((n ? n : 1) * sizeof(*c));
    for (i = 0; i < n; i++)
        c[i] = job->alloc ? job->alloc->cpus[i]
                          : json_integer_value(json_object_get(
                                (e = json_array_get(arr, i)), "cpus"));
    json_decref(arr);
    s = n ? taskcount_encode(c, n) : NULL;
    free(c);
    *nodes = n;
    return s;
}

static void env_array(struct env *e, const struct job *job)
{
    const struct job_array *a = job->array;

    if (!a)
        return;
    env_add(e, "SLURM_ARRAY_JOB_ID", "%u", a->job_id);
    env_add(e, "SLURM_ARRAY_TASK_COUNT", "%u", a->count);
    if (a->task_id != ARRAY_TASK_NONE)
        env_add(e, "SLURM_ARRAY_TASK_ID", "%u", a->task_id);
    env_add(e, "SLURM_ARRAY_TASK_MAX", "%u", a->max);
    env_add(e, "SLURM_ARRAY_TASK_MIN", "%u", a->min);
    env_add(e, "SLURM_ARRAY_TASK_STEP", "%u", a->step);
}

static void env_nodes(struct env *e, const struct job *job)
{
    const char *nodes = job->nodes ? job->nodes : job->last_nodes;
    size_t n;
    char *cpus = cpus_per_node(job, &n);

    if (cpus) {
        env_add(e, "SLURM_JOB_CPUS_PER_NODE", "%s", cpus);
        env_add(e, "SLURM_JOB_NUM_NODES", "%zu", n);
    }
    env_add(e, "SLURM_JOB_NODELIST", "%s",
            nodes && *nodes ? nodes : "(null)");
    free(cpus);
}

/* SLURM_JOB_EXIT_CODE* of an END or FAIL mail, as slurmctld 22.05 (a
 * summary of tasks ended by a signal: SLURM_JOB_TERM_SIGNAL_MAX). */
static void env_exit(struct env *e, const struct mail_what *w)
{
    int st = w->summary ? w->exit_max : w->exit_zero ? 0 : w->job->exit_status;
    char *ec;

    if (w->summary && w->max_signal) {
        env_add(e, "SLURM_JOB_DERIVED_EC", "0");
        env_add(e, "SLURM_JOB_EXIT_CODE", "0");
        env_add(e, "SLURM_JOB_EXIT_CODE2", "0:0");
        env_add(e, "SLURM_JOB_TERM_SIGNAL_MAX", "%d", w->max_signal);
        return;
    }
    ec = job_info_exit_code(st);

    env_add(e, "SLURM_JOB_DERIVED_EC", "0");
    env_add(e, "SLURM_JOB_EXIT_CODE", "%d", st);
    env_add(e, "SLURM_JOB_EXIT_CODE2", "%s", ec);
    env_add(e, "SLURM_JOB_EXIT_CODE_MAX", "%d",
            WIFEXITED(st) ? WEXITSTATUS(st) : 0);
    if (w->summary)
        env_add(e, "SLURM_JOB_EXIT_CODE_MIN", "%d",
                WIFEXITED(w->exit_min) ? WEXITSTATUS(w->exit_min) : 0);
    free(ec);
}

char **mail_env(const struct ctld *ctld, const struct mail_what *w,
                int64_t secs)
{
    const struct job *job = w->job;
    struct env e = {0};
    char t[32];

    env_array(&e, job);
    env_add(&e, "SLURM_CLUSTER_NAME", "%s",
            ctld->conf->cluster_name ? ctld->conf->cluster_name : "");
    env_add(&e, "SLURM_JOBID", "%u", job->id);
    env_add(&e, "SLURM_JOB_ACCOUNT", "%s",
            job->account ? job->account : "(null)");
    env_nodes(&e, job);
    if (w->type == MAIL_END || w->type == MAIL_FAIL)
        env_exit(&e, w);
    env_add(&e, "SLURM_JOB_GID", "%u", (unsigned)job->gid);
    env_add(&e, "SLURM_JOB_GROUP", "%s", job->group_name);
    env_add(&e, "SLURM_JOB_ID", "%u", job->id);
    env_add(&e, "SLURM_JOB_MAIL_TYPE", "%s", mailtype_event(w->type));
    env_add(&e, "SLURM_JOB_NAME", "%s", job->name ? job->name : "");
    env_add(&e, "SLURM_JOB_PARTITION", "%s",
            job->partition ? job->partition : "");
    if (secs >= 0)
        env_add(&e, w->type == MAIL_BEGIN ? "SLURM_JOB_QUEUED_TIME"
                                          : "SLURM_JOB_RUN_TIME",
                "%s", timefmt_duration(secs, 1, t, sizeof(t)));
    env_add(&e, "SLURM_JOB_RESTART_COUNT", "%u", job->restarts);
    env_add(&e, "SLURM_JOB_STATE", "%s",
            w->type == MAIL_REQUEUE ? "PENDING" : job_state_name(job->state));
    if (!job->interactive)
        env_add(&e, "SLURM_JOB_STDIN", "%s",
                job->std_in ? job->std_in : "/dev/null");
    env_add(&e, "SLURM_JOB_UID", "%u", (unsigned)job->uid);
    env_add(&e, "SLURM_JOB_USER", "%s", job->user_name);
    env_add(&e, "SLURM_JOB_WORK_DIR", "%s",
            job->work_dir ? job->work_dir : "");
    return e.v;
}
