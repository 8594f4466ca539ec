/* SPDX-License-Identifier: Apache-2.0
 *
 * prolog.c - Prolog= and Epilog= on this node (prolog.h)
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/noded.h"
#include "noded/prolog.h"

enum pe_state { PE_NONE, PE_RUNNING, PE_PASSED, PE_FAILED };

struct waiter {
    prolog_done_fn *done;
    void *arg;
    struct waiter *next;
};

struct pe_run;

struct pe_job {
    uint32_t id;
    enum pe_state prolog;
    json_t *env;             /* the launch's or the end's, or NULL */
    struct waiter *waiters;  /* launches waiting for the Prolog */
    bool end_pending;        /* ended while its Prolog ran */
    struct pe_run *run;      /* the script running for it, or NULL */
    UT_hash_handle hh;
};

struct pe_run {
    struct noded *nd;
    struct pe_job *job;      /* NULL once the job record went */
    uint32_t job_id;
    bool epilog;
    char **scripts;          /* NULL-terminated */
    size_t next;             /* the one running is scripts[next] */
    char **envp;
    pid_t pid;
    uv_timer_t timer;        /* PrologEpilogTimeout */
    struct pe_run *link;     /* nd_prolog.runs, or .queued */
};

struct nd_prolog {
    struct pe_job *jobs;     /* uthash by id */
    struct pe_run *runs;     /* running */
    struct pe_run *queued;   /* PrologFlags=Serial: waiting for the one
                              * running, oldest first */
    json_t *epilog_failed;   /* job ids not yet told to the controller */
    json_t *epilog_done;     /* likewise, every Epilog that ended */
};

static struct nd_prolog *state(struct noded *nd)
{
    if (!nd->prolog) {
        nd->prolog = xzalloc(sizeof(*nd->prolog));
        nd->prolog->epilog_failed = json_array();
        nd->prolog->epilog_done = json_array();
    }
    return nd->prolog;
}

static struct pe_job *job_get(struct noded *nd, uint32_t id, bool make)
{
    struct nd_prolog *p = state(nd);
    struct pe_job *j;

    HASH_FIND(hh, p->jobs, &id, sizeof(id), j);
    if (!j && make) {
        j = xzalloc(sizeof(*j));
        j->id = id;
        HASH_ADD(hh, p->jobs, id, sizeof(j->id), j);
    }
    return j;
}

static void job_drop(struct noded *nd, struct pe_job *j)
{
    HASH_DEL(nd->prolog->jobs, j);
    if (j->run)
        j->run->job = NULL;
    json_decref(j->env);
    free(j);
}

/* The scripts of 'pattern': every match of a glob pattern, in order (none
 * matching: none), else the path itself. */
static char **scripts_of(const char *pattern)
{
    char **out;
    glob_t g;

    if (!strpbrk(pattern, "*?[")) {
        out = xzalloc(2 * sizeof(*out));
        out[0] = xstrdup(pattern);
        return out;
    }
    if (glob(pattern, 0, NULL, &g) != 0) {
        log_verbose("%s: no script matches", pattern);
        return xzalloc(sizeof(*out));
    }
    out = xzalloc((g.gl_pathc + 1) * sizeof(*out));
    for (size_t i = 0; i < g.gl_pathc; i++)
        out[i] = xstrdup(g.gl_pathv[i]);
    globfree(&g);
    return out;
}

static char **build_env(struct noded *nd, json_t *env, bool epilog,
                        uint32_t job_id)
{
    size_t n = 0, i;
    char **e = xzalloc((json_array_size(env) + 6) * sizeof(*e));
    json_t *v;

    json_array_foreach(env, i, v)
        if (json_is_string(v) && strchr(json_string_value(v), '='))
            e[n++] = xstrdup(json_string_value(v));
    if (!json_array_size(env))
        e[n++] = xasprintf("SLURM_JOB_ID=%u", job_id);
    e[n++] = xasprintf("SLURMD_NODENAME=%s", nd->node->name);
    e[n++] = xasprintf("SLURM_CONF=%s", nd->conf->path);
    e[n++] = xasprintf("SLURM_SCRIPT_CONTEXT=%s",
                       epilog ? "epilog_slurmd" : "prolog_slurmd");
    e[n++] = xstrdup("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:"
                     "/usr/bin:/sbin:/bin");
    return e;
}

static void free_strv(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

static void run_closed(uv_handle_t *h)
{
    struct pe_run *r = h->data;

    free_strv(r->scripts);
    free_strv(r->envp);
    free(r);
}

static const char *what(const struct pe_run *r)
{
    return r->epilog ? "Epilog" : "Prolog";
}

static void run_start_next(struct pe_run *r);
static void epilog_start(struct noded *nd, struct pe_job *j);
static void run_begin(struct noded *nd, struct pe_run *r);

/* PrologFlags=Serial: once nothing runs, the oldest queued run starts. */
static void start_queued(struct noded *nd)
{
    struct nd_prolog *p = nd->prolog;
    struct pe_run *r = p->queued;

    if (p->runs || !r)
        return;
    p->queued = r->link;
    run_begin(nd, r);
}

/* The run is over: record the result, wake the launches, go on with an
 * Epilog the job's end asked for meanwhile. */
static void run_finish(struct pe_run *r, bool ok)
{
    struct noded *nd = r->nd;
    struct nd_prolog *p = nd->prolog;
    struct pe_job *j = r->job;
    struct pe_run **pp;

    for (pp = &p->runs; *pp && *pp != r; pp = &(*pp)->link)
        ;
    if (*pp)
        *pp = r->link;
    if (j)
        j->run = NULL;
    if (r->epilog) {
        if (!ok)
            json_array_append_new(p->epilog_failed,
                                  json_integer(r->job_id));
        json_array_append_new(p->epilog_done, json_integer(r->job_id));
        register_now(nd); /* the controller holds the node till then */
        if (j)
            job_drop(nd, j);
    } else if (j) {
        struct waiter *w = j->waiters;
        j->prolog = ok ? PE_PASSED : PE_FAILED;
        j->waiters = NULL;
        while (w) {
            struct waiter *next = w->next;
            w->done(ok, w->arg);
            free(w);
            w = next;
        }
        if (j->end_pending)
            epilog_start(nd, j);
        else if (!ok) /* a requeued run of the job tries again */
            job_drop(nd, j);
    }
    uv_close((uv_handle_t *)&r->timer, run_closed);
    start_queued(nd);
}

static void timeout_cb(uv_timer_t *t)
{
    struct pe_run *r = t->data;

    if (!r->pid)
        return;
    log_error("JobId=%u: %s %s timed out after %u s: killed", r->job_id,
              what(r), r->scripts[r->next],
              r->nd->conf->prolog_epilog_timeout_s);
    kill(-r->pid, SIGKILL);
}

static void exec_script(const char *script, char **envp)
{
    char *argv[] = {(char *)script, NULL};
    int null = open("/dev/null", O_RDWR);

    child_reset();
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0
        || dup2(null, 2) < 0)
        _exit(127);
    child_close_fds();
    execve(script, argv, envp);
    _exit(127);
}

static void run_start_next(struct pe_run *r)
{
    const char *script = r->scripts[r->next];
    pid_t pid;

    if (!script) {
        run_finish(r, true);
        return;
    }
    if ((pid = fork()) == 0)
        exec_script(script, r->envp);
    if (pid < 0) {
        log_err("JobId=%u: %s %s: fork", r->job_id, what(r), script);
        run_finish(r, false);
        return;
    }
    r->pid = pid;
    if (r->nd->conf->prolog_epilog_timeout_s)
        uv_timer_start(&r->timer, timeout_cb,
                       (uint64_t)r->nd->conf->prolog_epilog_timeout_s * 1000,
                       0);
    log_verbose("JobId=%u: %s %s started (pid %d)", r->job_id, what(r),
                script, (int)pid);
}

static void run_start(struct noded *nd, struct pe_job *j, bool epilog)
{
    struct pe_run *r = xzalloc(sizeof(*r));

    r->nd = nd;
    r->job = j;
    r->job_id = j->id;
    r->epilog = epilog;
    r->scripts = scripts_of(epilog ? nd->conf->epilog : nd->conf->prolog);
    r->envp = build_env(nd, j->env, epilog, j->id);
    uv_timer_init(nd->loop, &r->timer);
    r->timer.data = r;
    j->run = r;
    if ((nd->conf->prolog_flags & CONF_PROLOG_SERIAL) && nd->prolog->runs) {
        struct pe_run **q = &nd->prolog->queued;

        while (*q)
            q = &(*q)->link;
        *q = r; /* Serial: after the one running (start_queued()) */
        log_verbose("JobId=%u: %s waits for the one running "
                    "(PrologFlags=Serial)", r->job_id, what(r));
        return;
    }
    run_begin(nd, r);
}

/* Into the running list, its first script started. */
static void run_begin(struct noded *nd, struct pe_run *r)
{
    r->link = nd->prolog->runs;
    nd->prolog->runs = r;
    run_start_next(r);
}

bool prolog_reaped(struct noded *nd, pid_t pid, int status)
{
    struct pe_run *r;

    if (!nd->prolog)
        return false;
    for (r = nd->prolog->runs; r && r->pid != pid; r = r->link)
        ;
    if (!r)
        return false;
    r->pid = 0;
    uv_timer_stop(&r->timer);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        r->next++;
        run_start_next(r);
        return true;
    }
    if (WIFSIGNALED(status))
        log_error("JobId=%u: %s %s killed by signal %d", r->job_id, what(r),
                  r->scripts[r->next], WTERMSIG(status));
    else
        log_error("JobId=%u: %s %s failed: exit code %d", r->job_id, what(r),
                  r->scripts[r->next], WEXITSTATUS(status));
    run_finish(r, false);
    return true;
}

void prolog_before_launch(struct noded *nd, uint32_t job_id, json_t *env,
                          prolog_done_fn *done, void *arg)
{
    struct pe_job *j;
    struct waiter *w;

    if (!nd->conf->prolog && !nd->conf->epilog) {
        done(true, arg);
        return;
    }
    j = job_get(nd, job_id, true);
    if (!j->env && json_is_array(env))
        j->env = json_incref(env);
    if (!nd->conf->prolog || j->prolog == PE_PASSED
        || j->prolog == PE_FAILED) {
        done(!nd->conf->prolog || j->prolog == PE_PASSED, arg);
        return;
    }
    w = xzalloc(sizeof(*w));
    w->done = done;
    w->arg = arg;
    w->next = j->waiters;
    j->waiters = w;
    if (j->prolog == PE_NONE) {
        j->prolog = PE_RUNNING;
        run_start(nd, j, false);
    }
}

static void epilog_start(struct noded *nd, struct pe_job *j)
{
    if (!nd->conf->epilog)
        job_drop(nd, j);
    else
        run_start(nd, j, true);
}

void prolog_job_ended(struct noded *nd, uint32_t job_id, json_t *env)
{
    struct pe_job *j;

    if (!nd->conf->prolog && !nd->conf->epilog)
        return;
    j = job_get(nd, job_id, true);
    if (json_array_size(env)) {
        json_decref(j->env);
        j->env = json_incref(env);
    }
    if (j->end_pending || (j->run && j->run->epilog))
        return; /* ended already: one Epilog */
    j->end_pending = true;
    if (!j->run)
        epilog_start(nd, j);
}

void prolog_to_json(struct noded *nd, json_t *body)
{
    if (!nd->prolog)
        return;
    if (json_array_size(nd->prolog->epilog_failed))
        json_object_set_new(body, "epilog_failed",
                            json_copy(nd->prolog->epilog_failed));
    if (json_array_size(nd->prolog->epilog_done))
        json_object_set_new(body, "epilog_done",
                            json_copy(nd->prolog->epilog_done));
}

/* 'list' less the ids in 'sent'. */
static json_t *untold(json_t *list, json_t *sent)
{
    json_t *keep = json_array(), *id, *s;
    size_t i, k;

    json_array_foreach(list, i, id) {
        bool told = false;
        json_array_foreach(sent, k, s) told |= json_equal(id, s);
        if (!told)
            json_array_append(keep, id);
    }
    json_decref(list);
    return keep;
}

void prolog_registered(struct noded *nd, json_t *body)
{
    if (!nd->prolog || !body)
        return;
    nd->prolog->epilog_failed = untold(
        nd->prolog->epilog_failed, json_object_get(body, "epilog_failed"));
    nd->prolog->epilog_done = untold(nd->prolog->epilog_done,
                                     json_object_get(body, "epilog_done"));
}

void prolog_free(struct noded *nd)
{
    struct pe_job *j, *tmp;
    struct pe_run *r;

    if (!nd->prolog)
        return;
    HASH_ITER(hh, nd->prolog->jobs, j, tmp) {
        struct waiter *w = j->waiters;
        while (w) {
            struct waiter *next = w->next;
            free(w);
            w = next;
        }
        job_drop(nd, j);
    }
    /* the loop is closed: the runs' timers with it */
    while ((r = nd->prolog->runs) || (r = nd->prolog->queued)) {
        if (r == nd->prolog->runs)
            nd->prolog->runs = r->link;
        else
            nd->prolog->queued = r->link;
        free_strv(r->scripts);
        free_strv(r->envp);
        free(r);
    }
    json_decref(nd->prolog->epilog_failed);
    json_decref(nd->prolog->epilog_done);
    free(nd->prolog);
    nd->prolog = NULL;
}
