/* SPDX-License-Identifier: Apache-2.0
 *
 * prog_run.c - running a site program from the controller's loop
 * (prog_run.h)
 */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/prog_run.h"

struct prog_item {
    char *label;
    char *prog;          /* NULL: the runner's */
    bool as_user;        /* uid/gid below, not the runner's */
    uid_t uid;
    gid_t gid;
    char **args, **env;
    prog_run_done_f done;
    void *arg;
    struct prog_item *next;
};

struct prog_child {
    uv_process_t proc;
    uv_timer_t timer;
    struct prog_run *r;
    struct prog_item *item;
    int open_handles;
    bool ok;
    struct prog_child *prev, *next; /* the runner's running children */
};

struct prog_run {
    uv_loop_t *loop;
    char *what, *prog;
    uid_t uid;
    gid_t gid;
    uint64_t timeout_ms;
    unsigned max_children;
    unsigned running, waiting;
    struct prog_child *children;
    struct prog_item *head, **tail; /* waiting, oldest first */
};

static void strv_free(char **v)
{
    for (char **e = v; e && *e; e++)
        free(*e);
    free(v);
}

static void item_free(struct prog_item *m)
{
    if (!m)
        return;
    strv_free(m->env);
    strv_free(m->args);
    free(m->prog);
    free(m->label);
    free(m);
}

struct prog_run *prog_run_create(uv_loop_t *loop, const char *what,
                                 const char *prog, uid_t uid, gid_t gid,
                                 uint64_t timeout_ms, unsigned max_children)
{
    struct prog_run *r = xzalloc(sizeof(*r));

    r->loop = loop;
    r->what = xstrdup(what);
    r->prog = xstrdup(prog);
    r->uid = uid;
    r->gid = gid;
    r->timeout_ms = timeout_ms;
    r->max_children = max_children ? max_children : 1;
    r->tail = &r->head;
    return r;
}

static void start_next(struct prog_run *r);

static void child_closed(uv_handle_t *h)
{
    struct prog_child *c = h->data;

    if (--c->open_handles > 0)
        return;
    /* Told from here, a loop turn after the end, never from inside
     * prog_run_start().  (The loop's own close at the daemon's end passes
     * no callback: nothing is told then.) */
    if (c->item->done)
        c->item->done(c->item->arg, c->ok);
    item_free(c->item);
    free(c);
}

/* Off the running list; both handles closed, then its callback told and
 * freed. */
static void child_done(struct prog_child *c)
{
    struct prog_run *r = c->r;

    if (c->prev)
        c->prev->next = c->next;
    else
        r->children = c->next;
    if (c->next)
        c->next->prev = c->prev;
    r->running--;
    uv_timer_stop(&c->timer);
    uv_close((uv_handle_t *)&c->timer, child_closed);
    uv_close((uv_handle_t *)&c->proc, child_closed);
    start_next(r);
}

/* The program of run 'm' of 'r'. */
static const char *prog_of(const struct prog_run *r,
                           const struct prog_item *m)
{
    return m->prog ? m->prog : r->prog;
}

static void child_exited(uv_process_t *p, int64_t status, int sig)
{
    struct prog_child *c = p->data;
    struct prog_run *r = c->r;

    if (sig)
        log_error("%s %s killed by signal %d: %s", r->what,
                  prog_of(r, c->item), sig, c->item->label);
    else if (status)
        log_error("%s %s exited %lld: %s", r->what, prog_of(r, c->item),
                  (long long)status, c->item->label);
    c->ok = !sig && !status;
    child_done(c);
}

static void child_timeout(uv_timer_t *t)
{
    struct prog_child *c = t->data;

    log_error("%s %s still running after %llu ms: killed: %s", c->r->what,
              prog_of(c->r, c->item), (unsigned long long)c->r->timeout_ms,
              c->item->label);
    uv_process_kill(&c->proc, SIGKILL);
}

/* argv: the program, then the item's arguments.  The array only (its
 * strings are borrowed). */
static char **argv_of(struct prog_run *r, struct prog_item *m)
{
    size_t n = 0;
    char **v;

    while (m->args && m->args[n])
        n++;
    v = xzalloc((n + 2) * sizeof(*v));
    v[0] = (char *)prog_of(r, m);
    for (size_t i = 0; i < n; i++)
        v[i + 1] = m->args[i];
    return v;
}

/* Spawn one waiting run.  One that cannot start is logged (its callback
 * told as its handle closes). */
static void spawn(struct prog_run *r, struct prog_item *m)
{
    struct prog_child *c = xzalloc(sizeof(*c));
    char **argv = argv_of(r, m);
    uv_process_options_t o = {.exit_cb = child_exited,
                              .file = prog_of(r, m), .args = argv,
                              .env = m->env};
    uid_t uid = m->as_user ? m->uid : r->uid;
    int err;

    if (geteuid() == 0 && uid != 0) {
        o.flags = UV_PROCESS_SETUID | UV_PROCESS_SETGID;
        o.uid = uid;
        o.gid = m->as_user ? m->gid : r->gid;
    }
    /* stdio_count 0: libuv puts /dev/null on 0, 1 and 2 */
    c->r = r;
    c->item = m;
    c->proc.data = c->timer.data = c;
    err = uv_spawn(r->loop, &c->proc, &o);
    free(argv);
    if (err < 0) {
        log_error("%s %s: %s: %s not run", r->what, prog_of(r, m),
                  uv_strerror(err), m->label);
        c->open_handles = 1; /* uv_spawn initialized the handle */
        uv_close((uv_handle_t *)&c->proc, child_closed);
        return;
    }
    log_debug("%s %s: %s", r->what, prog_of(r, m), m->label);
    c->open_handles = 2;
    uv_timer_init(r->loop, &c->timer);
    if (r->timeout_ms)
        uv_timer_start(&c->timer, child_timeout, r->timeout_ms, 0);
    c->next = r->children;
    if (c->next)
        c->next->prev = c;
    r->children = c;
    r->running++;
}

static void start_next(struct prog_run *r)
{
    struct prog_item *m;

    while (r->running < r->max_children && (m = r->head)) {
        if (!(r->head = m->next))
            r->tail = &r->head;
        r->waiting--;
        m->next = NULL;
        spawn(r, m);
    }
}

static struct prog_item *item_new(const char *label, char **args, char **env,
                                  prog_run_done_f done, void *arg)
{
    struct prog_item *m = xzalloc(sizeof(*m));

    m->label = xstrdup(label);
    m->args = args;
    m->env = env;
    m->done = done;
    m->arg = arg;
    return m;
}

static void enqueue(struct prog_run *r, struct prog_item *m)
{
    *r->tail = m;
    r->tail = &m->next;
    r->waiting++;
    start_next(r);
}

void prog_run_start(struct prog_run *r, const char *label, char **args,
                    char **env, prog_run_done_f done, void *arg)
{
    enqueue(r, item_new(label, args, env, done, arg));
}

void prog_run_start_as(struct prog_run *r, const char *prog, uid_t uid,
                       gid_t gid, const char *label, char **args, char **env)
{
    struct prog_item *m = item_new(label, args, env, NULL, NULL);

    m->prog = xstrdup(prog);
    m->as_user = true;
    m->uid = uid;
    m->gid = gid;
    enqueue(r, m);
}

unsigned prog_run_busy(const struct prog_run *r)
{
    return r->running + r->waiting;
}

void prog_run_destroy(struct prog_run *r)
{
    struct prog_item *m, *next;
    struct prog_child *c, *cn;

    if (!r)
        return;
    for (c = r->children; c; c = cn) { /* handles closed by the loop's end */
        cn = c->next;
        item_free(c->item);
        free(c);
    }
    for (m = r->head; m; m = next) {
        next = m->next;
        item_free(m);
    }
    free(r->what);
    free(r->prog);
    free(r);
}
