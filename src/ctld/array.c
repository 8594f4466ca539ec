/* SPDX-License-Identifier: Apache-2.0
 *
 * array.c - job arrays: one master record until tasks start, task records
 * split off as they start, cancel and throttle updates (array.h)
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/job_listing.h"
#include "ctld/depend.h"

int array_submit(struct job *job, const char *spec, uint32_t max_size,
                 drv_error_t *error)
{
    struct job_array *a;
    uint32_t throttle = 0;
    bitmap_t *bm = array_spec_parse(spec, max_size, &throttle, error);

    if (!bm || bitmap_count(bm) == 0) {
        bitmap_destroy(bm);
        errno = EDRV_INVALID_ARRAY;
        return -1;
    }
    a = xzalloc(sizeof(*a));
    a->task_id = ARRAY_TASK_NONE;
    a->throttle = throttle;
    a->pending = bm;
    a->count = (uint32_t)bitmap_count(bm);
    a->min = (uint32_t)bitmap_first_set(bm, 0);
    a->max = (uint32_t)bitmap_size(bm) - 1;
    a->step = array_spec_step(bm);
    job->array = a;
    return 0;
}

void array_set_id(struct job *job)
{
    if (job->array)
        job->array->job_id = job->id;
}

bool array_is_master(const struct job *job)
{
    return job->array && job->array->pending;
}

uint32_t array_jobs_of(const struct job *job)
{
    return array_is_master(job) ? (uint32_t)bitmap_count(job->array->pending)
                                : 1;
}

/* The records of one array, in order (array_first()). */
struct array_group {
    uint32_t job_id; /* the ArrayJobId: the key */
    struct job *head, *tail;
    UT_hash_handle hh;
};

static struct array_group *group_of(struct ctld *ctld, uint32_t array_id)
{
    struct array_group *g = NULL;

    HASH_FIND(hh, ctld->array_groups, &array_id, sizeof(array_id), g);
    return g;
}

void array_index_add(struct ctld *ctld, struct job *job)
{
    struct job_array *a = job->array;
    struct array_group *g;

    if (!a)
        return;
    if (!(g = group_of(ctld, a->job_id))) {
        g = xzalloc(sizeof(*g));
        g->job_id = a->job_id;
        HASH_ADD(hh, ctld->array_groups, job_id, sizeof(g->job_id), g);
    }
    a->index_prev = g->tail;
    a->index_next = NULL;
    if (g->tail)
        g->tail->array->index_next = job;
    else
        g->head = job;
    g->tail = job;
}

void array_index_del(struct ctld *ctld, struct job *job)
{
    struct job_array *a = job->array;
    struct array_group *g;

    if (!a || !(g = group_of(ctld, a->job_id)))
        return;
    if (a->index_prev)
        a->index_prev->array->index_next = a->index_next;
    else
        g->head = a->index_next;
    if (a->index_next)
        a->index_next->array->index_prev = a->index_prev;
    else
        g->tail = a->index_prev;
    a->index_prev = a->index_next = NULL;
    if (!g->head) {
        HASH_DEL(ctld->array_groups, g);
        free(g);
    }
}

struct job *array_first(struct ctld *ctld, uint32_t array_id)
{
    struct array_group *g = group_of(ctld, array_id);

    return g ? g->head : NULL;
}

struct job *array_next(const struct job *job)
{
    return job->array ? job->array->index_next : NULL;
}

void job_array_destroy(struct job_array *a)
{
    if (a) {
        bitmap_destroy(a->pending);
        free(a);
    }
}

void array_to_json(const struct job *job, json_t *o, bool info)
{
    const struct job_array *a = job->array;

    if (!a)
        return;
    json_object_set_new(o, "array_job_id", json_integer(a->job_id));
    json_object_set_new(o, "array_max_tasks", json_integer(a->throttle));
    json_object_set_new(o, "array_task_count", json_integer(a->count));
    json_object_set_new(o, "array_task_min", json_integer(a->min));
    json_object_set_new(o, "array_task_max", json_integer(a->max));
    json_object_set_new(o, "array_task_step", json_integer(a->step));
    if (a->task_id != ARRAY_TASK_NONE)
        json_object_set_new(o, "array_task_id", json_integer(a->task_id));
    if (a->pending) {
        char *s = bitmap_fmt(a->pending);
        json_object_set_new(o, "array_pending", json_string(s ? s : ""));
        free(s);
        if (info && (s = array_spec_fmt(a->pending, a->throttle))) {
            json_object_set_new(o, "array_task_str", json_string(s));
            free(s);
        }
    }
}

static uint32_t get_u32(json_t *o, const char *key, uint32_t dflt)
{
    json_t *v = json_object_get(o, key);

    return json_is_integer(v) ? (uint32_t)json_integer_value(v) : dflt;
}

void array_apply_json(struct job *job, json_t *o)
{
    const char *pending = json_string_value(json_object_get(o, "array_pending"));
    struct job_array *a;

    if (!json_object_get(o, "array_job_id"))
        return;
    job_array_destroy(job->array);
    a = job->array = xzalloc(sizeof(*a));
    a->job_id = get_u32(o, "array_job_id", job->id);
    a->task_id = get_u32(o, "array_task_id", ARRAY_TASK_NONE);
    a->throttle = get_u32(o, "array_max_tasks", 0);
    a->count = get_u32(o, "array_task_count", 0);
    a->min = get_u32(o, "array_task_min", 0);
    a->max = get_u32(o, "array_task_max", 0);
    a->step = get_u32(o, "array_task_step", 1);
    if (pending && a->task_id == ARRAY_TASK_NONE) {
        a->pending = *pending ? bitmap_parse(pending, (size_t)a->max + 1, NULL)
                              : bitmap_create((size_t)a->max + 1);
        if (!a->pending)
            log_error("JobId=%u: bad array_pending '%s'", job->id, pending);
    }
}

uint32_t array_running(struct ctld *ctld, uint32_t array_id)
{
    uint32_t n = 0;

    for (struct job *job = array_first(ctld, array_id); job;
         job = array_next(job))
        if (job->state == JOB_RUNNING || job->alloc)
            n++;
    return n;
}

struct job *array_find_task(struct ctld *ctld, uint32_t array_id,
                            uint32_t task)
{
    for (struct job *job = array_first(ctld, array_id); job;
         job = array_next(job))
        if (job->array->task_id == task)
            return job;
    return NULL;
}

static long no_nodes(const char *name, uint32_t *ngpus, void *arg)
{
    (void)name;
    (void)ngpus;
    (void)arg;
    return -1;
}

/* A copy of the master's record (not its allocation) for task 'task',
 * as job 'id'. */
static struct job *copy_task(struct ctld *ctld, struct job *master,
                             uint32_t task, uint32_t id)
{
    json_t *o = job_to_json(master, ctld->nodes->names, 0);
    struct job *job = job_create(id);

    json_object_del(o, "job_id");
    json_object_del(o, "array_pending");
    json_object_set_new(o, "array_task_id", json_integer(task));
    if (job_apply_json(job, o, no_nodes, NULL, NULL) < 0)
        log_error("JobId=%u: copying array task record", job->id);
    json_decref(o);
    job->launch = master->launch ? json_incref(master->launch) : NULL;
    ctld_job_enter(ctld, job);
    return job;
}

int array_split_apply(struct ctld *ctld, struct job *master, uint32_t task,
                      uint32_t new_job_id)
{
    struct job_array *a = master->array;

    if (!array_is_master(master) || task >= bitmap_size(a->pending)
        || !bitmap_test(a->pending, task)
        || (bitmap_count(a->pending) == 1) != (new_job_id == 0)
        || (new_job_id && ctld_job_find(ctld, new_job_id)))
        return -1;
    bitmap_clear(a->pending, task);
    if (!new_job_id) {
        bitmap_destroy(a->pending);
        a->pending = NULL;
        a->task_id = task;
        return 0;
    }
    copy_task(ctld, master, task, new_job_id);
    job_listing_split(ctld, master->id, new_job_id);
    return 0;
}

struct job *array_split(struct ctld *ctld, struct job *master, uint32_t task)
{
    struct ctld_event ev = {
        .type = CTLD_EV_ARRAY_TASK_SPLIT,
        .t = ctld_now(ctld),
        .job_id = master->id,
        .task = task,
        .new_job_id = bitmap_count(master->array->pending) == 1
                          ? 0
                          : ctld_job_id_next(ctld)};

    if (bitmap_count(master->array->pending) > 1 && !ev.new_job_id) {
        log_error("JobId=%u: no free job id for array task %u "
                  "(FirstJobId=%u MaxJobId=%u)", master->id, task,
                  ctld->conf->first_job_id, ctld->conf->max_job_id);
        return NULL;
    }
    if (ctld_apply(ctld, &ev) < 0)
        log_error("JobId=%u: cannot split array task %u", master->id, task);
    return ev.new_job_id ? ctld_job_find(ctld, ev.new_job_id) : master;
}

struct job *array_start_next(struct ctld *ctld, struct job *master)
{
    long k = depend_array_task(ctld, master);

    if (k < 0)
        return NULL;
    if (bitmap_count(master->array->pending) > 1)
        scheduler_request(ctld);
    return array_split(ctld, master, (uint32_t)k);
}

void array_restore_launch(struct ctld *ctld)
{
    struct job *job, *tmp, *master;

    HASH_ITER(hh, ctld->jobs, job, tmp) {
        if (job->array && job->array->job_id != job->id && !job->launch
            && (master = ctld_job_find(ctld, job->array->job_id))
            && master->launch)
            job->launch = json_incref(master->launch);
    }
}

static bool may_act(const struct job *job, proto_req_t *req)
{
    return job->uid == proto_req_uid(req)
           || (proto_req_roles(req) & (PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN));
}

static void cancel_whole(struct ctld *ctld, uint32_t array_id, uid_t by)
{
    struct job *next;

    for (struct job *job = array_first(ctld, array_id); job; job = next) {
        next = array_next(job);
        ctld_job_cancel(ctld, job, by);
    }
}

/* Does 'set' hold every task 'pending' holds? */
static bool holds_all(const bitmap_t *set, const bitmap_t *pending)
{
    for (long k = bitmap_first_set(pending, 0); k >= 0;
         k = bitmap_first_set(pending, (size_t)k + 1))
        if ((size_t)k >= bitmap_size(set) || !bitmap_test(set, (size_t)k))
            return false;
    return true;
}

/* Cancel tasks 'set' of array 'id'; returns how many were found.  When
 * 'set' holds every task still pending in the master record, that record
 * is cancelled whole, as Slurm cancels an array's pending meta record
 * (scancel -t PENDING sends it so): one event, not one split and one
 * cancel per task. */
static size_t cancel_tasks(struct ctld *ctld, uint32_t id, const bitmap_t *set,
                           uid_t by)
{
    struct job *master = ctld_job_find(ctld, id), *job;
    bool pending = master && array_is_master(master)
                   && master->array->job_id == id;
    bool whole = pending && holds_all(set, master->array->pending);
    size_t found = 0;

    for (long k = bitmap_first_set(set, 0); k >= 0;
         k = bitmap_first_set(set, (size_t)k + 1)) {
        if ((job = array_find_task(ctld, id, (uint32_t)k))) {
            found++;
            ctld_job_cancel(ctld, job, by);
        } else if (pending && array_is_master(master)
                   && bitmap_test(master->array->pending, (size_t)k)) {
            struct job *t;

            found++;
            if (!whole && (t = array_split(ctld, master, (uint32_t)k)))
                ctld_job_cancel(ctld, t, by);
        }
    }
    if (whole)
        ctld_job_cancel(ctld, master, by);
    return found;
}

bool array_cancel_rpc(struct ctld *ctld, proto_req_t *req)
{
    json_t *body = proto_req_body(req);
    json_int_t id = 0;
    const char *tasks = NULL;
    int signo = SIGKILL;
    struct job *job;
    bitmap_t *set;
    int errnum = 0;

    if (json_unpack(body, "{s:I s?s s?i}", "job_id", &id, "array_tasks",
                    &tasks, "signal", &signo) < 0
        || id <= 0 || id > UINT32_MAX || signo != SIGKILL)
        return false;
    job = ctld_job_find(ctld, (uint32_t)id);
    if (!tasks && !(job && job->array && job->array->job_id == job->id))
        return false;
    if (!(job = array_first(ctld, (uint32_t)id)))
        errnum = EDRV_INVALID_JOB_ID;
    else if (!may_act(job, req))
        errnum = EDRV_ACCESS_DENIED;
    else if (!tasks)
        cancel_whole(ctld, (uint32_t)id, proto_req_uid(req));
    else if (!(set = array_spec_parse(tasks, 4000001, NULL, NULL)))
        errnum = EDRV_INVALID_JOB_ID;
    else {
        if (cancel_tasks(ctld, (uint32_t)id, set, proto_req_uid(req)) == 0)
            errnum = EDRV_INVALID_JOB_ID;
        bitmap_destroy(set);
    }
    if (errnum) {
        if (proto_respond_error(req, errnum, NULL) < 0)
            log_err("job_cancel: responding");
        return true;
    }
    log_info("job_cancel: JobId=%u_%s uid %u", (uint32_t)id,
             tasks ? tasks : "*", proto_req_uid(req));
    ctld_respond_durable(ctld, req, NULL);
    scheduler_request(ctld);
    return true;
}

void array_throttle_apply(struct ctld *ctld, uint32_t array_id,
                          uint32_t throttle)
{
    for (struct job *job = array_first(ctld, array_id); job;
         job = array_next(job))
        job->array->throttle = throttle;
}

/* Slurm keeps the throttle on the master and each task record. */
bool array_update_rpc(struct ctld *ctld, proto_req_t *req)
{
    json_t *body = proto_req_body(req);
    json_int_t id = 0, throttle = -1;
    struct job *first;
    struct ctld_event ev = {.type = CTLD_EV_ARRAY_THROTTLE};

    if (json_unpack(body, "{s:I s:I}", "job_id", &id, "array_throttle",
                    &throttle) < 0)
        return false;
    if (id <= 0 || id > UINT32_MAX || throttle < 0 || throttle > UINT32_MAX
        || !(first = array_first(ctld, (uint32_t)id))) {
        if (proto_respond_error(req, EDRV_INVALID_JOB_ID, NULL) < 0)
            log_err("job_update: responding");
        return true;
    }
    if (!may_act(first, req)) {
        if (proto_respond_error(req, EDRV_USER_ID_MISSING, NULL) < 0)
            log_err("job_update: responding");
        return true;
    }
    ev.t = ctld_now(ctld);
    ev.job_id = (uint32_t)id;
    ev.throttle = (uint32_t)throttle;
    ctld_apply(ctld, &ev);
    ctld_respond_durable(ctld, req, NULL);
    scheduler_request(ctld);
    return true;
}
