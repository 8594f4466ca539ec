/* SPDX-License-Identifier: Apache-2.0
 *
 * mail_run.c - running MailProg from the controller's loop (mail_run.h)
 */
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/mail_run.h"

struct mail_item {
    char *subject, *to;
    char **env;
    struct mail_item *next;
};

struct mail_child {
    uv_process_t proc;
    uv_timer_t timer;
    struct mail_run *r;
    struct mail_item *item;
    int open_handles;
    struct mail_child *prev, *next; /* the runner's running children */
};

struct mail_run {
    uv_loop_t *loop;
    char *prog;
    uid_t uid;
    gid_t gid;
    uint64_t timeout_ms;
    unsigned running, waiting;
    struct mail_child *children;
    struct mail_item *head, **tail; /* waiting, oldest first */
};

static void item_free(struct mail_item *m)
{
    if (!m)
        return;
    for (char **e = m->env; e && *e; e++)
        free(*e);
    free(m->env);
    free(m->subject);
    free(m->to);
    free(m);
}

struct mail_run *mail_run_create(uv_loop_t *loop, const char *prog,
                                 uid_t uid, gid_t gid, uint64_t timeout_ms)
{
    struct mail_run *r = xzalloc(sizeof(*r));

    r->loop = loop;
    r->prog = xstrdup(prog);
    r->uid = uid;
    r->gid = gid;
    r->timeout_ms = timeout_ms;
    r->tail = &r->head;
    return r;
}

static void start_next(struct mail_run *r);

static void child_closed(uv_handle_t *h)
{
    struct mail_child *c = h->data;

    if (--c->open_handles > 0)
        return;
    item_free(c->item);
    free(c);
}

/* Off the running list; both handles closed, then freed. */
static void child_done(struct mail_child *c)
{
    struct mail_run *r = c->r;

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

static void child_exited(uv_process_t *p, int64_t status, int sig)
{
    struct mail_child *c = p->data;

    if (sig)
        log_error("MailProg %s killed by signal %d: mail to %s \"%s\"",
                  c->r->prog, sig, c->item->to, c->item->subject);
    else if (status)
        log_error("MailProg %s exited %lld: mail to %s \"%s\"", c->r->prog,
                  (long long)status, c->item->to, c->item->subject);
    child_done(c);
}

static void child_timeout(uv_timer_t *t)
{
    struct mail_child *c = t->data;

    log_error("MailProg %s still running after %llu ms: killed", c->r->prog,
              (unsigned long long)c->r->timeout_ms);
    uv_process_kill(&c->proc, SIGKILL);
}

/* Spawn one waiting mail.  Returns false when it could not start (logged,
 * the mail dropped). */
static bool spawn(struct mail_run *r, struct mail_item *m)
{
    struct mail_child *c = xzalloc(sizeof(*c));
    char *args[] = {r->prog, "-s", m->subject, m->to, NULL};
    uv_process_options_t o = {.exit_cb = child_exited, .file = r->prog,
                              .args = args, .env = m->env};
    int err;

    if (geteuid() == 0 && r->uid != 0) {
        o.flags = UV_PROCESS_SETUID | UV_PROCESS_SETGID;
        o.uid = r->uid;
        o.gid = r->gid;
    }
    /* stdio_count 0: libuv puts /dev/null on 0, 1 and 2 */
    c->r = r;
    c->item = m;
    c->proc.data = c->timer.data = c;
    if ((err = uv_spawn(r->loop, &c->proc, &o)) < 0) {
        log_error("MailProg %s: %s: mail to %s \"%s\" not sent", r->prog,
                  uv_strerror(err), m->to, m->subject);
        c->open_handles = 1; /* uv_spawn initialized the handle */
        uv_close((uv_handle_t *)&c->proc, child_closed);
        return false;
    }
    log_debug("email msg to %s: %s", m->to, m->subject);
    c->open_handles = 2;
    uv_timer_init(r->loop, &c->timer);
    uv_timer_start(&c->timer, child_timeout, r->timeout_ms, 0);
    c->next = r->children;
    if (c->next)
        c->next->prev = c;
    r->children = c;
    r->running++;
    return true;
}

static void start_next(struct mail_run *r)
{
    struct mail_item *m;

    while (r->running < MAIL_RUN_MAX_CHILDREN && (m = r->head)) {
        if (!(r->head = m->next))
            r->tail = &r->head;
        r->waiting--;
        m->next = NULL;
        spawn(r, m);
    }
}

void mail_run_send(struct mail_run *r, const char *subject, const char *to,
                   char **env)
{
    struct mail_item *m = xzalloc(sizeof(*m));

    m->subject = xstrdup(subject);
    m->to = xstrdup(to);
    m->env = env;
    *r->tail = m;
    r->tail = &m->next;
    r->waiting++;
    start_next(r);
}

unsigned mail_run_busy(const struct mail_run *r)
{
    return r->running + r->waiting;
}

void mail_run_destroy(struct mail_run *r)
{
    struct mail_item *m, *next;
    struct mail_child *c, *cn;

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
    free(r->prog);
    free(r);
}
