/* SPDX-License-Identifier: Apache-2.0
 *
 * trigger_fire.c - the periodic trigger check and the programs
 * (trigger.h)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/trigger.h"
#include "ctld/trigger_private.h"
#include "proto/job_state.h"

/* What happened to the nodes since the last check. */
struct node_events {
    bitmap_t *down, *drained, *up;
};

/* One trigger's outcome, kept until the table is done with. */
struct firing {
    uint32_t id;
    bool run;         /* fire (else clear: its job can no longer) */
    char *arg;        /* the program's argument */
    char *program;
    uid_t uid;
    gid_t gid;
};

static unsigned node_seen(struct ctld *ctld, size_t i)
{
    const char *base = node_table_base_state(ctld->nodes, i);
    bool busy = !strcmp(base, "ALLOCATED") || !strcmp(base, "MIXED");
    struct node_admin a;
    unsigned f = 0;

    node_table_admin_get(ctld->nodes, i, &a);
    if (!strcmp(base, "DOWN"))
        f |= SEEN_DOWN;
    if (a.drain && !busy)
        f |= SEEN_DRAINED;
    if (!strcmp(base, "IDLE") && !a.drain)
        f |= SEEN_IDLE;
    return f;
}

/* Compare each node with the last check ('ev' NULL, or no check yet:
 * only look). */
static void observe(struct ctld *ctld, struct triggers *ts, time_t now,
                    struct node_events *ev)
{
    size_t n = ctld->nodes->count;
    bool first = !ts->seen || !ev || ts->stale;

    if (!ts->seen) {
        ts->seen = xzalloc(n ? n : 1);
        ts->idle_since = xzalloc((n ? n : 1) * sizeof(time_t));
    }
    if (first)
        memset(ts->idle_since, 0, (n ? n : 1) * sizeof(time_t));
    ts->stale = false;
    for (size_t i = 0; i < n; i++) {
        unsigned f = node_seen(ctld, i), old = ts->seen[i];
        if (!first && (f & SEEN_DOWN) && !(old & SEEN_DOWN))
            bitmap_set(ev->down, i);
        if (!first && !(f & SEEN_DOWN) && (old & SEEN_DOWN))
            bitmap_set(ev->up, i);
        if (!first && (f & SEEN_DRAINED) && !(old & SEEN_DRAINED))
            bitmap_set(ev->drained, i);
        if (!(f & SEEN_IDLE))
            ts->idle_since[i] = 0;
        else if (!ts->idle_since[i])
            ts->idle_since[i] = now;
        ts->seen[i] = (unsigned char)f;
    }
}

/* The nodes of 't' in 'happened' as a hostlist, or NULL when none. */
static char *node_arg(struct ctld *ctld, const struct trigger *t,
                      const bitmap_t *happened)
{
    bitmap_t *b = bitmap_copy(happened);
    char *arg = NULL;

    if (t->nodes) { /* b &= t->nodes */
        for (size_t i = 0; i < ctld->nodes->count; i++)
            if (!bitmap_test(t->nodes, i))
                bitmap_clear(b, i);
    }
    if (bitmap_count(b))
        arg = node_table_hostlist(ctld->nodes, b);
    bitmap_destroy(b);
    return arg;
}

/* The nodes of idle trigger 't' idle for its offset by 'now'. */
static char *idle_arg(struct ctld *ctld, struct triggers *ts,
                      const struct trigger *t, time_t now)
{
    bitmap_t *b;
    char *arg;

    if (t->perm && t->fired_at && now - t->fired_at < TRIGGER_REFIRE_S)
        return NULL;
    b = bitmap_create(ctld->nodes->count);
    for (size_t i = 0; i < ctld->nodes->count; i++)
        if (ts->idle_since[i] && now - ts->idle_since[i] >= t->offset)
            bitmap_set(b, i);
    arg = node_arg(ctld, t, b);
    bitmap_destroy(b);
    return arg;
}

/* A job trigger's outcome: 1 fire, 0 not yet, -1 clear. */
static int job_due(struct ctld *ctld, const struct trigger *t, time_t now)
{
    struct job *job = ctld_job_find(ctld, t->job_id);
    bool ended = !job
                 || (job_state_is_final((int)job->state) && !job->completing);

    if (t->type == TRIGGER_FINI) {
        if (!job)
            return 1;
        return ended && now >= job->end_time + (t->offset > 0 ? t->offset
                                                              : 0);
    }
    if (ended)
        return -1;
    if (job->state != JOB_RUNNING || job->time_limit_s == TIME_INFINITE)
        return 0;
    return now >= job->start_time + job->time_limit_s + t->offset;
}

/* What 't' does now into *f; false when nothing. */
static bool outcome(struct ctld *ctld, struct triggers *ts,
                    const struct trigger *t, const struct node_events *ev,
                    time_t now, struct firing *f)
{
    int due;

    memset(f, 0, sizeof(*f));
    f->run = true;
    switch (t->type) {
    case TRIGGER_DOWN: f->arg = node_arg(ctld, t, ev->down); break;
    case TRIGGER_DRAINED: f->arg = node_arg(ctld, t, ev->drained); break;
    case TRIGGER_UP: f->arg = node_arg(ctld, t, ev->up); break;
    case TRIGGER_IDLE: f->arg = idle_arg(ctld, ts, t, now); break;
    case TRIGGER_RECONFIG: /* slurmctld's argument is the event's name */
        f->arg = ts->reconfigured ? xstrdup("reconfig") : NULL;
        break;
    default:
        if ((due = job_due(ctld, t, now)) == 0)
            return false;
        f->run = due > 0;
        f->arg = xasprintf("%u", t->job_id);
        break;
    }
    if (!f->arg)
        return false;
    f->id = t->id;
    f->program = xstrdup(t->program);
    f->uid = t->uid;
    f->gid = t->gid;
    return true;
}

static void run_program(struct ctld *ctld, struct triggers *ts,
                        const struct firing *f)
{
    char **args = xzalloc(2 * sizeof(*args));
    char **env = xzalloc(sizeof(*env)); /* empty */
    char *label = xasprintf("trigger %u %s", f->id, f->arg);

    if (!ts->run)
        ts->run = prog_run_create(ctld->loop, "strigger", f->program, 0, 0,
                                  0, TRIGGER_MAX_CHILDREN);
    args[0] = xstrdup(f->arg);
    log_info("trigger %u fired: %s %s (uid %u)", f->id, f->program, f->arg,
             (unsigned)f->uid);
    prog_run_start_as(ts->run, f->program, f->uid, f->gid, label, args, env);
    free(label);
}

/* Journal the outcome, then run the program (never on replay: events
 * replayed come through trigger_apply() only). */
static void settle(struct ctld *ctld, struct triggers *ts,
                   const struct firing *f, time_t now)
{
    struct ctld_event ev = {.t = now};

    if (f->run) {
        ev.type = CTLD_EV_TRIGGER_FIRED;
        ev.trigger = json_pack("{s:I}", "id", (json_int_t)f->id);
    } else {
        ev.type = CTLD_EV_TRIGGER_CLEARED;
        ev.trigger = json_pack("{s:[I]}", "ids", (json_int_t)f->id);
    }
    if (ctld_apply(ctld, &ev) == 0 && f->run)
        run_program(ctld, ts, f);
    json_decref(ev.trigger);
}

void trigger_watch(struct ctld *ctld, time_t now)
{
    observe(ctld, triggers_of(ctld), now, NULL);
}

void trigger_reconfigured(struct ctld *ctld)
{
    triggers_of(ctld)->reconfigured = true;
}

void trigger_check(struct ctld *ctld, time_t now)
{
    struct triggers *ts = triggers_of(ctld);
    size_t n = ctld->nodes->count, count = 0, nf = 0;
    struct node_events ev;
    struct firing *fs;

    if (!ts->head) { /* nothing to fire: no scan of every node */
        ts->stale = true;
        ts->reconfigured = false;
        return;
    }
    ev = (struct node_events){bitmap_create(n), bitmap_create(n),
                              bitmap_create(n)};
    observe(ctld, ts, now, &ev);
    for (struct trigger *t = ts->head; t; t = t->next)
        count++;
    fs = xzalloc((count ? count : 1) * sizeof(*fs));
    for (struct trigger *t = ts->head; t; t = t->next)
        if (outcome(ctld, ts, t, &ev, now, &fs[nf]))
            nf++;
    ts->reconfigured = false; /* the event is seen once, as Slurm's */
    for (size_t i = 0; i < nf; i++) { /* the table changes from here */
        settle(ctld, ts, &fs[i], now);
        free(fs[i].arg);
        free(fs[i].program);
    }
    free(fs);
    bitmap_destroy(ev.down);
    bitmap_destroy(ev.drained);
    bitmap_destroy(ev.up);
}
