/* SPDX-License-Identifier: Apache-2.0
 *
 * resv.c - advance reservations: the table, its records, what they allow
 * and forbid a job, expiry (resv.h)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/part_access.h"
#include "ctld/resv.h"
#include "ctld/resv_parts.h"

static const struct {
    const char *name;
    uint32_t flag;
} flag_names[] = {
    /* Slurm's print order (reservation_flags_string) */
    { "MAINT", RESV_MAINT },         { "FLEX", RESV_FLEX },
    { "OVERLAP", RESV_OVERLAP },     { "IGNORE_JOBS", RESV_IGNORE_JOBS },
    { "DAILY", RESV_DAILY },         { "WEEKDAY", RESV_WEEKDAY },
    { "WEEKLY", RESV_WEEKLY },       { "SPEC_NODES", RESV_SPEC_NODES },
    { "PURGE_COMP", RESV_PURGE_COMP }, { "MAGNETIC", RESV_MAGNETIC },
};
#define NFLAGS (sizeof(flag_names) / sizeof(flag_names[0]))

bool resv_active(const struct resv *r, time_t now)
{
    return r->start <= now && now < r->end;
}

struct resv *resv_find(struct ctld *ctld, const char *name)
{
    struct resv *r = NULL;

    if (name)
        HASH_FIND_STR(ctld->resvs, name, r);
    return r;
}

static void resv_free(struct resv *r)
{
    free(r->name);
    free(r->node_list);
    bitmap_destroy(r->nodes);
    free(r->users);
    free(r->accounts);
    free(r->partition);
    sched_alloc_destroy(r->part);
    free(r);
}

/* --- records ------------------------------------------------------------- */

static json_t *resv_flags_json(uint32_t flags)
{
    json_t *a = json_array();

    for (size_t i = 0; i < NFLAGS; i++)
        if (flags & flag_names[i].flag)
            json_array_append_new(a, json_string(flag_names[i].name));
    return a;
}

int resv_flag_parse(const char *name, uint32_t *flag)
{
    for (size_t i = 0; i < NFLAGS; i++)
        if (!strcasecmp(name, flag_names[i].name)) {
            *flag = flag_names[i].flag;
            return 0;
        }
    return -1;
}

json_t *resv_to_json(struct ctld *ctld, const struct resv *r)
{
    json_t *o = json_pack("{s:s s:I s:I s:s s:o}", "name", r->name,
                          "start_time", (json_int_t)r->start, "end_time",
                          (json_int_t)r->end, "nodes", r->node_list,
                          "flags", resv_flags_json(r->flags));

    if (r->users)
        json_object_set_new(o, "users", json_string(r->users));
    if (r->accounts)
        json_object_set_new(o, "accounts", json_string(r->accounts));
    if (r->partition)
        json_object_set_new(o, "partition", json_string(r->partition));
    if (r->purge_s)
        json_object_set_new(o, "purge_s", json_integer(r->purge_s));
    if (r->part)
        json_object_set_new(o, "parts", resv_parts_json(ctld, r->part));
    return o;
}

static char *dup_or_null(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s && *s ? xstrdup(s) : NULL;
}

/* A reservation from its record; NULL (logged) when malformed. */
static struct resv *resv_from_json(struct ctld *ctld, json_t *o)
{
    const char *name = json_string_value(json_object_get(o, "name"));
    const char *nodes = json_string_value(json_object_get(o, "nodes"));
    struct resv *r;
    json_t *f;
    size_t i;
    drv_error_t error = {{0}};

    if (!name || !nodes) {
        log_error("reservation record without name or nodes ignored");
        return NULL;
    }
    r = xzalloc(sizeof(*r));
    r->name = xstrdup(name);
    r->node_list = xstrdup(nodes);
    r->start = (time_t)json_integer_value(json_object_get(o, "start_time"));
    r->end = (time_t)json_integer_value(json_object_get(o, "end_time"));
    r->users = dup_or_null(o, "users");
    r->accounts = dup_or_null(o, "accounts");
    r->partition = dup_or_null(o, "partition");
    r->purge_s = json_integer_value(json_object_get(o, "purge_s"));
    json_array_foreach(json_object_get(o, "flags"), i, f) {
        uint32_t flag;
        if (json_is_string(f) && resv_flag_parse(json_string_value(f), &flag)
                                     == 0)
            r->flags |= flag;
    }
    if (!(r->nodes = node_table_bitmap(ctld->nodes, nodes, &error))) {
        log_error("reservation %s: %s; ignored", name, error.text);
        resv_free(r);
        return NULL;
    }
    if (json_array_size(json_object_get(o, "parts"))
        && !(r->part = resv_parts_alloc(ctld, json_object_get(o, "parts")))) {
        resv_free(r);
        return NULL;
    }
    return r;
}

static void resv_put(struct ctld *ctld, struct resv *r)
{
    struct resv *old = resv_find(ctld, r->name);

    if (old) {
        HASH_DEL(ctld->resvs, old);
        resv_free(old);
    }
    HASH_ADD_KEYPTR(hh, ctld->resvs, r->name, strlen(r->name), r);
}

int resv_apply(struct ctld *ctld, json_t *change)
{
    const char *op = json_string_value(json_object_get(change, "op"));
    json_t *rec = json_object_get(change, "resv");
    struct resv *r;

    if (op && !strcmp(op, "delete")) {
        if (!(r = resv_find(ctld, json_string_value(
                                      json_object_get(rec, "name")))))
            return -1;
        HASH_DEL(ctld->resvs, r);
        resv_free(r);
        return 0;
    }
    if (!(r = resv_from_json(ctld, rec)))
        return -1;
    resv_put(ctld, r);
    return 0;
}

json_t *resv_snapshot(struct ctld *ctld)
{
    json_t *a = json_array();
    struct resv *r, *tmp;

    HASH_ITER(hh, ctld->resvs, r, tmp)
        json_array_append_new(a, resv_to_json(ctld, r));
    return a;
}

void resv_restore(struct ctld *ctld, json_t *list)
{
    json_t *o;
    size_t i;

    json_array_foreach(list, i, o) {
        struct resv *r = resv_from_json(ctld, o);
        if (r)
            resv_put(ctld, r);
    }
}

void resv_fini(struct ctld *ctld)
{
    struct resv *r, *tmp;

    HASH_ITER(hh, ctld->resvs, r, tmp) {
        HASH_DEL(ctld->resvs, r);
        resv_free(r);
    }
}

/* --- what a reservation means for jobs ----------------------------------- */

static bool may_use(const struct resv *r, const struct job *job)
{
    return part_access_in_list(r->users, job->user_name)
           || part_access_in_list(r->accounts, job->account);
}

int resv_check_job(struct ctld *ctld, const struct job *job,
                   drv_error_t *error)
{
    struct resv *r;

    if (!job->reservation)
        return 0;
    if (!(r = resv_find(ctld, job->reservation))) {
        errno = EDRV_RESERVATION_INVALID;
        return errprintf(error, "%s", drv_strerror(errno));
    }
    if (!may_use(r, job) && job->uid != 0) {
        errno = EDRV_RESERVATION_ACCESS;
        return errprintf(error, "%s", drv_strerror(errno));
    }
    return 0;
}

/* Does [now, now + limit) meet [r->start, r->end)? */
static bool overlaps(const struct resv *r, const struct job *job, time_t now)
{
    if (r->end <= now)
        return false;
    return job->time_limit_s == TIME_INFINITE
           || now + job->time_limit_s > r->start;
}

/* All nodes of the table, or a copy of 'allowed'. */
static bitmap_t *nodes_or_all(struct ctld *ctld, const bitmap_t *allowed)
{
    bitmap_t *out;

    if (allowed)
        return bitmap_copy(allowed);
    out = bitmap_create(ctld->nodes->count ? ctld->nodes->count : 1);
    for (size_t i = 0; i < ctld->nodes->count; i++)
        bitmap_set(out, i);
    return out;
}

/* A job naming 'mine' (not FLEX): its nodes within 'allowed', none while
 * it is not active (*waits). */
static bitmap_t *own_nodes(struct ctld *ctld, const struct resv *mine,
                           const bitmap_t *allowed, time_t now, bool *waits)
{
    bitmap_t *out = bitmap_create(ctld->nodes->count ? ctld->nodes->count
                                                     : 1);

    if (!mine || !resv_active(mine, now)) {
        *waits = true;
        return out; /* no node */
    }
    for (size_t i = 0; i < ctld->nodes->count; i++)
        if (bitmap_test(mine->nodes, i)
            && (!allowed || bitmap_test(allowed, i)))
            bitmap_set(out, i);
    return out;
}

/* May 'job' use 'r' though it does not keep it off r's nodes: its own
 * FLEX reservation, or an active MAGNETIC one it may use. */
static bool may_enter(const struct resv *r, const struct resv *mine,
                      const struct job *job, time_t now)
{
    if (r == mine)
        return true; /* FLEX: its own nodes too */
    return !mine && (r->flags & RESV_MAGNETIC) && resv_active(r, now)
           && may_use(r, job);
}

bitmap_t *resv_job_nodes(struct ctld *ctld, const struct job *job,
                         const bitmap_t *allowed, time_t now, bool *waits)
{
    struct resv *r, *tmp, *mine = resv_find(ctld, job->reservation);
    bitmap_t *out = NULL;

    *waits = false;
    if (job->reservation && !(mine && (mine->flags & RESV_FLEX)))
        return own_nodes(ctld, mine, allowed, now, waits);
    HASH_ITER(hh, ctld->resvs, r, tmp) {
        if (!overlaps(r, job, now) || may_enter(r, mine, job, now)
            || r->part) /* the rest of its nodes is free to use */
            continue;
        if (!out)
            out = nodes_or_all(ctld, allowed);
        bitmap_and_not(out, r->nodes);
    }
    return out;
}

/* A hold of the whole nodes of 'r' (exclusive: every CPU, MiB and GPU). */
static struct sched_alloc *whole_nodes(struct ctld *ctld, const struct resv *r)
{
    struct sched_alloc *a = sched_alloc_create((uint32_t)bitmap_count(r->nodes));
    uint32_t k = 0;

    if (!a)
        return NULL;
    a->exclusive = true;
    for (size_t i = 0; i < ctld->nodes->count; i++) {
        const struct sched_node *nd = &ctld->nodes->sched[i];
        if (!bitmap_test(r->nodes, i))
            continue;
        a->node_idx[k] = (uint32_t)i;
        a->tasks[k] = 1;
        a->cpus[k] = nd->cpus;
        a->mem_mib[k] = nd->mem_mib;
        if (nd->gpus && (a->gpus[k] = bitmap_create(nd->gpus)))
            for (uint32_t g = 0; g < nd->gpus; g++)
                bitmap_set(a->gpus[k], g);
        k++;
    }
    a->node_count = k;
    return a;
}

struct sched_hold *resv_holds(struct ctld *ctld, const struct resv *except,
                              time_t now, size_t *n)
{
    struct sched_hold *h = NULL;
    struct resv *r, *tmp;

    *n = 0;
    HASH_ITER(hh, ctld->resvs, r, tmp) {
        if (r == except || r->end <= now
            || (except && ((r->flags | except->flags) & RESV_OVERLAP)
                && bitmap_overlap(r->nodes, except->nodes)))
            continue;
        h = xrealloc(h, (*n + 1) * sizeof(*h));
        h[*n] = (struct sched_hold){
            .start = r->start, .end = r->end,
            .alloc = r->part ? resv_parts_hold(ctld, r, now)
                             : whole_nodes(ctld, r)};
        (*n)++;
    }
    return h;
}

json_t *resv_acct_record(struct ctld *ctld, const struct resv *r, time_t end)
{
    uint64_t cpus = 0, mem = 0, gpus = 0;
    uint32_t pc, pg;
    char flags[256] = "";

    for (size_t i = 0; !r->part && i < ctld->nodes->count; i++) {
        if (!bitmap_test(r->nodes, i))
            continue;
        cpus += ctld->nodes->sched[i].cpus;
        mem += ctld->nodes->sched[i].mem_mib;
        gpus += ctld->nodes->sched[i].gpus;
    }
    if (r->part) {
        resv_parts_totals(r->part, &pc, &pg);
        cpus = pc;
        gpus = pg;
    }
    for (size_t i = 0; i < NFLAGS; i++)
        if (r->flags & flag_names[i].flag)
            snprintf(flags + strlen(flags), sizeof(flags) - strlen(flags),
                     "%s%s", *flags ? "," : "", flag_names[i].name);
    return json_pack("{s:s s:I s:I s:s s:I s:s s:{s:I s:I s:I s:I}}",
                     "name", r->name, "start_time", (json_int_t)r->start,
                     "end_time", (json_int_t)end, "nodes", r->node_list,
                     "node_cnt", (json_int_t)bitmap_count(r->nodes), "flags",
                     flags, "tres", "cpu", (json_int_t)cpus, "mem",
                     (json_int_t)mem, "node",
                     (json_int_t)bitmap_count(r->nodes), "gres/gpu",
                     (json_int_t)gpus);
}

bool resv_maint_in_way(struct ctld *ctld, const struct job *job,
                       const bitmap_t *nodes, time_t now)
{
    struct resv *r, *tmp;

    HASH_ITER(hh, ctld->resvs, r, tmp) {
        if ((r->flags & RESV_MAINT) && overlaps(r, job, now)
            && (!nodes || bitmap_overlap(r->nodes, nodes)))
            return true;
    }
    return false;
}

struct resv *resv_pass_of(struct ctld *ctld, const struct job *job,
                          time_t now, bool *waits)
{
    struct resv *r, *tmp, *mine = resv_find(ctld, job->reservation);

    *waits = false;
    if (job->reservation) {
        if (mine && (resv_active(mine, now) || (mine->flags & RESV_FLEX)))
            return mine;
        *waits = true;
        return NULL;
    }
    HASH_ITER(hh, ctld->resvs, r, tmp) {
        if ((r->flags & RESV_MAGNETIC) && resv_active(r, now)
            && may_use(r, job))
            return r;
    }
    return NULL;
}

bitmap_t *resv_pass_nodes(struct ctld *ctld, const struct resv *r,
                          const struct job *job, const bitmap_t *allowed)
{
    bitmap_t *out;

    if (!job->reservation || (r->flags & RESV_FLEX))
        return NULL;
    out = bitmap_create(ctld->nodes->count ? ctld->nodes->count : 1);
    for (size_t i = 0; i < ctld->nodes->count; i++)
        if (bitmap_test(r->nodes, i) && (!allowed || bitmap_test(allowed, i)))
            bitmap_set(out, i);
    return out;
}

void resv_holds_free(struct sched_hold *holds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sched_alloc_destroy((struct sched_alloc *)holds[i].alloc);
    free(holds);
}

bool resv_node_reserved(struct ctld *ctld, size_t i, time_t now,
                        bool *maint)
{
    struct resv *r, *tmp;
    bool any = false;

    *maint = false;
    HASH_ITER(hh, ctld->resvs, r, tmp) {
        if (!resv_active(r, now) || !bitmap_test(r->nodes, i) || r->part)
            continue;
        any = true;
        *maint = *maint || (r->flags & RESV_MAINT);
    }
    return any;
}

/* The next start of a recurring reservation after 'now', or 0. */
static time_t next_start(const struct resv *r, time_t now)
{
    time_t step = r->flags & RESV_WEEKLY ? 7 * 86400 : 86400;
    time_t start = r->start;
    struct tm tm;

    if (!(r->flags & (RESV_DAILY | RESV_WEEKLY | RESV_WEEKDAY)))
        return 0;
    do {
        start += step;
        localtime_r(&start, &tm);
    } while (start + (r->end - r->start) <= now
             || ((r->flags & RESV_WEEKDAY)
                 && (tm.tm_wday == 0 || tm.tm_wday == 6)));
    return start;
}

/* Delete 'r' (the resv_changed event). */
static void resv_delete(struct ctld *ctld, struct resv *r, time_t now)
{
    struct ctld_event ev = {
        .type = CTLD_EV_RESV_CHANGED, .t = now,
        .resv = json_pack("{s:s s:o}", "op", "delete", "resv",
                          resv_to_json(ctld, r))};

    ctld_apply(ctld, &ev);
    json_decref(ev.resv);
}

/* PURGE_COMP: active reservations no unfinished job names are deleted
 * once idle for their purge time (the idle time restarts with the
 * controller). */
static void purge_idle(struct ctld *ctld, time_t now)
{
    struct resv *r, *tmp;
    struct job *job;
    bool any = false;

    HASH_ITER(hh, ctld->resvs, r, tmp) {
        if ((r->flags & RESV_PURGE_COMP) && resv_active(r, now)) {
            any = true;
            if (!r->idle_since)
                r->idle_since = now;
        }
    }
    if (!any)
        return;
    for (job = ctld_live_first(ctld); job; job = ctld_live_next(ctld, job)) {
        if (job->reservation && !job_state_is_final(job->state)
            && (r = resv_find(ctld, job->reservation)))
            r->idle_since = now; /* in use */
    }
    HASH_ITER(hh, ctld->resvs, r, tmp) {
        int64_t purge = r->purge_s ? r->purge_s : RESV_PURGE_DEFAULT_S;
        if (!(r->flags & RESV_PURGE_COMP) || !resv_active(r, now)
            || !r->idle_since || now - r->idle_since < purge)
            continue;
        log_info("reservation %s purged: idle for %lld s", r->name,
                 (long long)(now - r->idle_since));
        resv_delete(ctld, r, now);
    }
}

void resv_expire(struct ctld *ctld, time_t now)
{
    struct resv *r, *tmp;

    purge_idle(ctld, now);
    HASH_ITER(hh, ctld->resvs, r, tmp) {
        time_t next;
        json_t *rec;
        if (r->end > now)
            continue;
        rec = resv_to_json(ctld, r);
        if ((next = next_start(r, now))) {
            json_object_set_new(rec, "end_time",
                                json_integer(next + (r->end - r->start)));
            json_object_set_new(rec, "start_time", json_integer(next));
        }
        struct ctld_event ev = {
            .type = CTLD_EV_RESV_CHANGED, .t = now,
            .resv = json_pack("{s:s s:o}", "op", next ? "update" : "delete",
                              "resv", rec)};
        log_info("reservation %s %s", r->name,
                 next ? "moves on to its next period" : "ended");
        ctld_apply(ctld, &ev);
        json_decref(ev.resv);
    }
}
