/* SPDX-License-Identifier: Apache-2.0
 *
 * depend.c - dependency evaluation and the scheduler's gate (depend.h)
 *
 * Targets are looked up by id in the job table; only a target that is an
 * array, and singleton, scan the table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/depend.h"

void job_depend_destroy(struct job_depend *d)
{
    if (d) {
        dep_list_destroy(d->list);
        free(d);
    }
}

static struct job_depend *depend_of(struct job *job)
{
    if (!job->depend)
        job->depend = xzalloc(sizeof(*job->depend));
    return job->depend;
}

/* Parse 'spec' for 'job' ('job->id' 0 while submitting), dropping items
 * naming unknown jobs: the list to keep (NULL when none is left), or NULL
 * with errno EDRV_DEPENDENCY and 'error' set.
 */
static struct dep_list *parse_known(struct ctld *ctld, const struct job *job,
                                    const char *spec, bool *bad,
                                    drv_error_t *error)
{
    struct dep_list *l;
    size_t n = 0;

    *bad = false;
    if (!(l = dep_parse(spec, error))) {
        *bad = true;
        errno = EDRV_DEPENDENCY;
        return NULL;
    }
    for (size_t i = 0; i < l->count; i++) {
        l->items[i].state = DEP_UNFULFILLED;
        if (job->id && l->items[i].job_id == job->id
            && l->items[i].type != DEP_SINGLETON) {
            dep_list_destroy(l);
            *bad = true;
            errno = EDRV_DEPENDENCY;
            errprintf(error, "Job %u cannot depend on itself", job->id);
            return NULL;
        }
        if (l->items[i].type == DEP_SINGLETON
            || ctld_job_find(ctld, l->items[i].job_id))
            l->items[n++] = l->items[i];
    }
    l->count = n;
    if (!n) {
        dep_list_destroy(l);
        return NULL;
    }
    return l;
}

int depend_submit(struct ctld *ctld, struct job *job, json_t *body,
                  drv_error_t *error)
{
    const char *spec = json_string_value(json_object_get(body, "dependency"));
    const char *kill = json_string_value(
        json_object_get(body, "kill_on_invalid_dep"));
    struct dep_list *l;
    bool bad;

    if (kill)
        depend_of(job)->kill_invalid = !strcasecmp(kill, "yes");
    if (!spec)
        return 0;
    if (!(l = parse_known(ctld, job, spec, &bad, error)))
        return bad ? -1 : 0;
    depend_of(job)->list = l;
    return 0;
}

/* scontrol update's Dependency='spec' for 'job': the list to keep (NULL
 * for "", "0" or when no item names a known job), *bad on a bad spec. */
static struct dep_list *parse_update(struct ctld *ctld, const struct job *job,
                                     const char *spec, bool *bad,
                                     drv_error_t *error)
{
    *bad = false;
    if (!*spec || !strcmp(spec, "0"))
        return NULL;
    return parse_known(ctld, job, spec, bad, error);
}

int depend_update_check(struct ctld *ctld, const struct job *job,
                        const char *spec, drv_error_t *error)
{
    bool bad;

    if (!spec) {
        errno = EDRV_DEPENDENCY;
        return errprintf(error, "Dependency must be a string");
    }
    if (job->state != JOB_PENDING) {
        errno = EDRV_JOB_NOT_PENDING;
        return -1;
    }
    dep_list_destroy(parse_update(ctld, job, spec, &bad, error));
    return bad ? -1 : 0;
}

void depend_set(struct ctld *ctld, struct job *job, const char *spec)
{
    bool bad;
    struct dep_list *l = parse_update(ctld, job, spec, &bad, NULL);

    dep_list_destroy(depend_of(job)->list);
    job->depend->list = l;
    if (job->reason == JOB_REASON_DEPENDENCY
        || job->reason == JOB_REASON_DEP_NEVER)
        job->reason = JOB_REASON_NONE;
    log_info("JobId=%u: dependency set to '%s'", job->id, spec);
}

void depend_to_json(const struct job *job, json_t *o)
{
    char *s;

    if (!job->depend)
        return;
    json_object_set_new(o, "kill_on_invalid_dep",
                        json_boolean(job->depend->kill_invalid));
    if (job->depend->list && (s = dep_fmt(job->depend->list, true))) {
        json_object_set_new(o, "dependency", json_string(s));
        free(s);
    }
}

void depend_apply_json(struct job *job, json_t *o)
{
    json_t *kill = json_object_get(o, "kill_on_invalid_dep");
    const char *spec = json_string_value(json_object_get(o, "dependency"));

    if (json_is_boolean(kill))
        depend_of(job)->kill_invalid = json_is_true(kill);
    if (spec) {
        dep_list_destroy(depend_of(job)->list);
        job->depend->list = *spec ? dep_parse(spec, NULL) : NULL;
    }
}

/* What the records of a target amount to. */
struct agg {
    unsigned found, unstarted, running, ok, not_ok;
    time_t last_start;
};

static void agg_add(struct agg *g, const struct job *j)
{
    g->found++;
    if (j->state == JOB_PENDING)
        g->unstarted++;
    else if (!job_state_is_final(j->state) || j->completing)
        g->running++;
    else if (j->state == JOB_COMPLETED)
        g->ok++;
    else
        g->not_ok++;
    if (j->start_time > g->last_start)
        g->last_start = j->start_time;
}

static void target(struct ctld *ctld, uint32_t id, uint32_t task,
                   struct agg *g)
{
    struct job *j = ctld_job_find(ctld, id), *r;

    memset(g, 0, sizeof(*g));
    if (task != DEP_TASK_ALL) {
        if ((r = array_find_task(ctld, id, task)))
            agg_add(g, r);
        else if (j && array_is_master(j) && j->array->job_id == id
                 && bitmap_test(j->array->pending, task))
            g->found = g->unstarted = 1;
        return;
    }
    if (!j || !j->array) {
        if (j)
            agg_add(g, j);
        return;
    }
    for (r = array_first(ctld, id); r; r = array_next(r)) {
        agg_add(g, r);
        if (array_is_master(r))
            g->unstarted += (unsigned)bitmap_count(r->array->pending);
    }
}

static enum dep_state ended_ok(const struct agg *g)
{
    if (g->not_ok)
        return DEP_FAILED;
    return g->unstarted || g->running ? DEP_UNFULFILLED : DEP_FULFILLED;
}

static bool singleton_free(struct ctld *ctld, const struct job *job)
{
    struct job *j, *tmp;

    HASH_ITER(hh, ctld->jobs, j, tmp) {
        if (j == job || j->uid != job->uid || job_state_is_final(j->state)
            || !j->name || !job->name || strcmp(j->name, job->name)
            || (job->array && j->array
                && j->array->job_id == job->array->job_id))
            continue;
        if (j->state != JOB_PENDING || j->id < job->id)
            return false;
    }
    return true;
}

static enum dep_state item_state(struct ctld *ctld, const struct job *job,
                                 const struct dep_item *it, time_t now)
{
    struct agg g;

    if (it->type == DEP_SINGLETON)
        return singleton_free(ctld, job) ? DEP_FULFILLED : DEP_UNFULFILLED;
    if (it->type == DEP_AFTER_CORR && array_is_master(job))
        return depend_array_task(ctld, job) >= 0 ? DEP_FULFILLED
                                                 : DEP_UNFULFILLED;
    if (it->type == DEP_AFTER_CORR && job->array
        && it->task_id == DEP_TASK_ALL)
        target(ctld, it->job_id, job->array->task_id, &g); /* split task */
    else
        target(ctld, it->job_id, it->task_id, &g);
    if (!g.found)
        return DEP_FULFILLED;
    switch (it->type) {
    case DEP_AFTER:
        if (g.unstarted)
            return DEP_UNFULFILLED;
        return now >= g.last_start + 60 * (time_t)it->minutes
                   ? DEP_FULFILLED
                   : DEP_UNFULFILLED;
    case DEP_AFTER_ANY:
        return g.unstarted || g.running ? DEP_UNFULFILLED : DEP_FULFILLED;
    case DEP_AFTER_NOT_OK:
        if (g.unstarted || g.running)
            return DEP_UNFULFILLED;
        return g.not_ok ? DEP_FULFILLED : DEP_FAILED;
    default: /* afterok, and aftercorr outside an array */
        return ended_ok(&g);
    }
}

/* The aftercorr items of master 'job' for its task 'k', together. */
static enum dep_state corr_state(struct ctld *ctld, const struct job *job,
                                 uint32_t k)
{
    const struct dep_list *l = job->depend ? job->depend->list : NULL;
    enum dep_state s = DEP_FULFILLED;
    struct agg g;

    for (size_t i = 0; l && i < l->count; i++) {
        if (l->items[i].type != DEP_AFTER_CORR)
            continue;
        target(ctld, l->items[i].job_id, k, &g);
        if (g.found && ended_ok(&g) == DEP_FAILED)
            return DEP_FAILED;
        if (g.found && ended_ok(&g) == DEP_UNFULFILLED)
            s = DEP_UNFULFILLED;
    }
    return s;
}

long depend_array_task(struct ctld *ctld, const struct job *job)
{
    const bitmap_t *p = job->array->pending;

    for (long k = bitmap_first_set(p, 0); k >= 0;
         k = bitmap_first_set(p, (size_t)k + 1)) {
        if (corr_state(ctld, job, (uint32_t)k) == DEP_FULFILLED)
            return k;
    }
    return -1;
}

/* The gate as 'job' stands: its reason and eligible time; the items'
 * states are copied only once one changes (gate_set_state()), so a pass
 * allocates nothing for a job whose dependencies stand as they were. */
static void gate_init(struct job_gate *g, const struct job *job)
{
    *g = (struct job_gate){.reason = job->reason,
                           .eligible_time = job->eligible_time};
}

/* Item 'i' of 'job''s list is now in state 's'. */
static void gate_set_state(struct job_gate *g, const struct job *job,
                           size_t i, enum dep_state s)
{
    const struct dep_list *l = job->depend->list;

    if (!g->dep_state) {
        if (l->items[i].state == s)
            return;
        g->dep_count = l->count;
        g->dep_state = xzalloc(l->count * sizeof(*g->dep_state));
        for (size_t k = 0; k < l->count; k++)
            g->dep_state[k] = l->items[k].state;
    }
    g->dep_state[i] = s;
}

static bool gate_differs(const struct job_gate *g, const struct job *job)
{
    return (int)job->reason != g->reason
           || job->eligible_time != g->eligible_time || g->dep_resolved
           || g->dep_state;
}

/* Apply 'g' to 'job' at 'now' if it changes anything; frees its states. */
static void gate_post(struct ctld *ctld, struct job *job,
                      struct job_gate *g, time_t now)
{
    if (gate_differs(g, job)) {
        struct ctld_event ev = {.type = CTLD_EV_JOB_GATE,
                                .t = now,
                                .job_id = job->id,
                                .gate = g};
        ctld_apply(ctld, &ev);
    }
    free(g->dep_state);
    g->dep_state = NULL;
}

void depend_gate_apply(struct job *job, const struct job_gate *g)
{
    struct dep_list *l = job->depend ? job->depend->list : NULL;

    job->reason = (enum job_reason)g->reason;
    job->eligible_time = g->eligible_time;
    if (!l)
        return;
    if (g->dep_resolved) {
        dep_list_destroy(l);
        job->depend->list = NULL;
    } else if (g->dep_state && g->dep_count == l->count) {
        for (size_t i = 0; i < l->count; i++)
            l->items[i].state = g->dep_state[i];
    }
}

void depend_gate_to_json(const struct job_gate *g, json_t *o)
{
    json_t *a = json_array();

    for (size_t i = 0; i < g->dep_count; i++)
        json_array_append_new(a, json_integer(g->dep_state[i]));
    json_object_set_new(o, "reason",
                        json_string(job_reason_string(
                            (enum job_reason)g->reason)));
    json_object_set_new(o, "eligible_time",
                        json_integer((json_int_t)g->eligible_time));
    json_object_set_new(o, "dep_resolved", json_boolean(g->dep_resolved));
    json_object_set_new(o, "dep_state", a);
}

int depend_gate_from_json(json_t *o, struct job_gate *g, drv_error_t *error)
{
    json_t *a = json_object_get(o, "dep_state");
    const char *reason = json_string_value(json_object_get(o, "reason"));

    *g = (struct job_gate){
        .reason = job_reason_parse(reason),
        .eligible_time = (time_t)json_integer_value(
            json_object_get(o, "eligible_time")),
        .dep_resolved = json_is_true(json_object_get(o, "dep_resolved")),
        .dep_count = json_array_size(a)};
    if (g->reason < 0)
        return errprintf(error, "job_gate: unknown reason '%s'",
                         reason ? reason : "(none)");
    if (g->dep_count)
        g->dep_state = xzalloc(g->dep_count * sizeof(*g->dep_state));
    for (size_t i = 0; i < g->dep_count; i++)
        g->dep_state[i] =
            (enum dep_state)json_integer_value(json_array_get(a, i));
    return 0;
}

/* Tasks of master 'job' whose matching task failed can never start: split
 * them off, so that each shows DependencyNeverSatisfied (and is cancelled
 * with --kill-on-invalid-dep=yes) when the gate sees its record.
 */
static void split_failed_corr(struct ctld *ctld, struct job *job, time_t now)
{
    for (long k = bitmap_first_set(job->array->pending, 0);
         k >= 0 && array_is_master(job);
         k = bitmap_first_set(job->array->pending, (size_t)k + 1)) {
        if (corr_state(ctld, job, (uint32_t)k) != DEP_FAILED)
            continue;
        struct job *t = array_split(ctld, job, (uint32_t)k);
        struct job_gate g;
        if (!t) /* no free job id (array.h): the next pass tries again */
            break;
        gate_init(&g, t);
        g.reason = JOB_REASON_DEP_NEVER;
        gate_post(ctld, t, &g, now);
    }
}

/* The items' states into g; the state of the whole list. */
static enum dep_state evaluate(struct ctld *ctld, struct job *job,
                               time_t now, struct job_gate *g)
{
    struct dep_list *l = job->depend->list;
    size_t nfail = 0, nok = 0;

    for (size_t i = 0; i < l->count; i++) {
        enum dep_state s = item_state(ctld, job, &l->items[i], now);
        if (l->items[i].type == DEP_AFTER_CORR && s == DEP_FULFILLED)
            nok++; /* per task: the item itself stays unfulfilled */
        else
            gate_set_state(g, job, i, s);
        nfail += s == DEP_FAILED;
        nok += s == DEP_FULFILLED && l->items[i].type != DEP_AFTER_CORR;
    }
    if (l->any)
        return nok ? DEP_FULFILLED
                   : nfail == l->count ? DEP_FAILED : DEP_UNFULFILLED;
    return nfail ? DEP_FAILED
                 : nok == l->count ? DEP_FULFILLED : DEP_UNFULFILLED;
}

static bool has_corr(const struct dep_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        if (l->items[i].type == DEP_AFTER_CORR)
            return true;
    return false;
}

/* The dependency part of the gate, into 'g'; *kill when the job is to be
 * cancelled (never satisfiable, --kill-on-invalid-dep=yes). */
static bool depend_wait(struct ctld *ctld, struct job *job, time_t now,
                        struct job_gate *g, bool *kill)
{
    enum dep_state s = evaluate(ctld, job, now, g);

    if (s == DEP_FAILED) {
        g->reason = JOB_REASON_DEP_NEVER;
        *kill = job->depend->kill_invalid;
        return true;
    }
    if (s == DEP_UNFULFILLED) {
        g->reason = JOB_REASON_DEPENDENCY;
        return true;
    }
    g->dep_resolved = !has_corr(job->depend->list);
    if (g->reason == JOB_REASON_DEPENDENCY)
        g->reason = JOB_REASON_NONE;
    if (!g->eligible_time)
        g->eligible_time = now;
    return false;
}

bool depend_gate(struct ctld *ctld, struct job *job, time_t now)
{
    bool wait = false, kill = false;
    struct job_gate g;

    if (job->state != JOB_PENDING || job->hold || job->priority == 0)
        return false;
    if (job->depend && job->depend->list && array_is_master(job)
        && has_corr(job->depend->list))
        split_failed_corr(ctld, job, now);
    gate_init(&g, job);
    if (job->depend && job->depend->list)
        wait = depend_wait(ctld, job, now, &g, &kill);
    if (!wait && array_is_master(job) && job->array->throttle
        && array_running(ctld, job->array->job_id) >= job->array->throttle) {
        g.reason = JOB_REASON_ARRAY_TASK_LIMIT;
        wait = true;
    } else if (!wait && g.reason == JOB_REASON_ARRAY_TASK_LIMIT) {
        g.reason = JOB_REASON_NONE;
    }
    gate_post(ctld, job, &g, now); /* the reason first, as the record
                                    * shows it */
    if (kill) {
        struct ctld_event ev = {.type = CTLD_EV_JOB_CANCELLED,
                                .t = now,
                                .job_id = job->id,
                                .by = -1};
        log_info("JobId=%u: dependency never satisfied; cancelled", job->id);
        ctld_apply(ctld, &ev);
    }
    return wait;
}

int depend_array_submit(struct ctld *ctld, struct job *job, json_t *body,
                        drv_error_t *error)
{
    const char *spec = json_string_value(json_object_get(body, "array"));

    if (spec && array_submit(job, spec, ctld->conf->max_array_size, error) < 0)
        return -1;
    return depend_submit(ctld, job, body, error);
}
