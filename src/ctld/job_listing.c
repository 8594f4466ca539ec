/* SPDX-License-Identifier: Apache-2.0
 *
 * job_listing.c - job_info answers, by id at once, whole listings a slice
 * per loop turn (job_listing.h)
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/job_info.h"
#include "ctld/job_listing.h"
#include "ctld/listing.h"
#include "ctld/part_access.h"
#include "proto/job_state.h"
#include "proto/jsonw.h"

/* A job_info request's filter, read once for the whole listing:
 * {"job_ids":[N],"user_ids":[N],"partitions":[S],"states":[S],
 *  "show_all":B}; an empty or absent list matches every job. */
struct job_filter {
    bool by_ids;                 /* "job_ids" given: no listing */
    uint32_t *ids;               /* job or array job ids */
    size_t nids;
    uid_t *users;
    size_t nusers;
    const char **parts;          /* borrowed from the body */
    size_t nparts;
    unsigned states;             /* bit per enum job_state; 0: any */
    bool completing;             /* "COMPLETING"/"CG": any completing job */
    bool configuring;            /* "CONFIGURING"/"CF": any configuring
                                  * job (PrologSlurmctld running) */
    bool show_all;
    bool private_jobs;           /* PrivateData=jobs applies to the sender */
};

/* Bytes of jobs an answer in parts sends at a time, at least: about 550
 * rows of squeue's columns, some 0.15 ms of writing for the controller
 * and of reading for the client; and at least ROW_TABLE_SIMD_MIN, so that
 * squeue reads each with simdjson. */
#define LISTING_PART_BYTES (64 * 1024)

/* A job_info answer being written. */
struct job_listing {
    struct listing base;         /* listing.h: first */
    proto_req_t *req;
    struct job_filter f;
    struct job_info_plan *plan;  /* NULL: whole records */
    bool rows;                   /* "rows": a row of values per job */
    bool parts;                  /* "parts": sent in parts as written */
    time_t now;
    struct jsonw w;
    size_t part_start;           /* w's length before the part's jobs */
    struct jsonw_row row;
    struct jsonw_sink out;
    /* A whole listing: the next job to write and the last one, in the
     * table's order (NULL 'next': the table is done). */
    bool walking;                /* the table's walk is not done */
    struct job *cursor, *last;
    /* States that end no job asked for: the live jobs (ctld.h) instead,
     * by id from 'next_id' (the ones passed are below it). */
    bool live_only;
    uint64_t next_id;
    uint32_t first_new_id;       /* ids from here on came after the start */
    uint32_t *masters;           /* array masters passed */
    size_t nmasters, masters_cap;
    uint32_t *extras;            /* tasks split from masters not passed */
    size_t nextras, extras_cap;
};

static void push_u32(uint32_t **v, size_t *n, size_t *cap, uint32_t x)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *v = xrealloc(*v, *cap * sizeof(**v));
    }
    (*v)[(*n)++] = x;
}

static void filter_read(struct job_filter *f, struct ctld *ctld,
                        proto_req_t *req, json_t *body)
{
    json_t *ids = json_object_get(body, "job_ids");
    json_t *users = json_object_get(body, "user_ids");
    json_t *parts = json_object_get(body, "partitions");
    json_t *states = json_object_get(body, "states"), *v;
    size_t i;
    int s;

    *f = (struct job_filter){
        .show_all = json_is_true(json_object_get(body, "show_all")),
        .private_jobs = ctld_private(ctld, req, CONF_PRIVATE_JOBS),
    };
    f->by_ids = json_array_size(ids) > 0;
    f->ids = xzalloc((json_array_size(ids) + 1) * sizeof(*f->ids));
    json_array_foreach(ids, i, v) {
        json_int_t id = json_integer_value(v);
        if (id > 0 && id <= UINT32_MAX)
            f->ids[f->nids++] = (uint32_t)id;
    }
    f->users = xzalloc((json_array_size(users) + 1) * sizeof(*f->users));
    json_array_foreach(users, i, v)
        f->users[f->nusers++] = (uid_t)json_integer_value(v);
    f->parts = xzalloc((json_array_size(parts) + 1) * sizeof(*f->parts));
    json_array_foreach(parts, i, v)
        f->parts[f->nparts++] = json_string_value(v) ?: "";
    json_array_foreach(states, i, v) {
        const char *name = json_string_value(v) ?: "";

        if (!strcmp(name, "COMPLETING") || !strcmp(name, "CG"))
            f->completing = true;
        else if (!strcmp(name, "CONFIGURING") || !strcmp(name, "CF"))
            f->configuring = true;
        else if ((s = job_state_parse(name)) >= 0)
            f->states |= 1u << s;
    }
    /* A states list naming no state we know matches nothing. */
    if (json_array_size(states) && !f->states && !f->completing
        && !f->configuring)
        f->states = 1u << JOB_STATE_COUNT;
}

static void filter_release(struct job_filter *f)
{
    free(f->ids);
    free(f->users);
    free(f->parts);
}

/* Does 'f' ask for states no ended job is in (squeue's default: PD, R, S,
 * CG)?  Then the listing walks the live jobs only (ctld_live_from()). */
static bool only_live_states(const struct job_filter *f)
{
    if (!f->states && !f->completing && !f->configuring)
        return false;
    for (int s = 0; s < JOB_STATE_COUNT; s++)
        if ((f->states & (1u << s)) && job_state_is_final((enum job_state)s))
            return false;
    return true;
}

static bool filter_matches(const struct job_filter *f, const struct job *job)
{
    bool hit = !f->nusers;

    for (size_t i = 0; i < f->nusers && !hit; i++)
        hit = f->users[i] == job->uid;
    if (!hit)
        return false;
    hit = !f->nparts;
    for (size_t i = 0; i < f->nparts && !hit; i++)
        hit = job->partition && !strcmp(f->parts[i], job->partition);
    if (!hit)
        return false;
    if (f->states || f->completing || f->configuring)
        return (f->states & (1u << job->state))
               || (job->completing && f->completing)
               || (job->configuring && f->configuring);
    return true;
}

/* Does the sender of a job_info request see 'job'?  PrivateData=jobs
 * limits an ordinary user to their own jobs; a listing (no "job_ids")
 * without "show_all" leaves out jobs in partitions the user does not see
 * (Hidden=YES, AllowGroups=), as Slurm's squeue without -a. */
static bool job_shown(struct ctld *ctld, proto_req_t *req,
                      const struct job_filter *f, const struct job *job)
{
    uid_t uid = proto_req_uid(req);
    const struct ctld_partition *part;

    if (job->uid != uid && f->private_jobs)
        return false;
    if (f->show_all || f->by_ids || !job->partition
        || !(part = node_table_partition(ctld->nodes, job->partition)))
        return true;
    return part_access_visible(ctld->access, part->conf, uid,
                               ctld_req_slurm_user(req), ctld_now(ctld));
}

/* Open the body's "jobs" (after the members only the first part has). */
static void open_jobs(struct job_listing *l)
{
    jsonw_key(&l->w, "jobs");
    jsonw_arr_open(&l->w);
}

/* An answer in parts: the jobs written so far go to the client as one
 * ("parts", proto_respond_part_jsonw()) once they fill LISTING_PART_BYTES,
 * or 'now' at the end of a slice, so that the client reads them while the
 * rest is written.  Later parts carry "jobs" alone (docs/protocol.md). */
static void send_part(struct job_listing *l, bool now)
{
    size_t least = now ? l->part_start + 1
                       : PROTO_RESPOND_RESERVE + LISTING_PART_BYTES;

    if (!l->parts || l->w.len < least)
        return;
    jsonw_arr_close(&l->w);
    jsonw_obj_close(&l->w);
    if (proto_respond_part_jsonw(l->req, &l->w) < 0)
        log_err("job_info: sending a part");
    jsonw_init(&l->w, PROTO_RESPOND_RESERVE);
    jsonw_obj_open(&l->w);
    open_jobs(l);
    l->part_start = l->w.len;
}

static void put_job(struct ctld *ctld, struct job_listing *l,
                    struct job *job)
{
    if (!filter_matches(&l->f, job) || !job_shown(ctld, l->req, &l->f, job))
        return;
    if (l->rows) {
        jsonw_row_begin(&l->row, &l->w);
        job_info_put_plan(ctld, job, l->plan, &l->out);
        jsonw_row_write(&l->row, &l->w);
    } else if (l->plan) {
        jsonw_obj_open(&l->w);
        job_info_put_plan(ctld, job, l->plan, &l->out);
        jsonw_obj_close(&l->w);
    } else {
        json_t *o = job_info_json(ctld, job, l->now);

        jsonw_json(&l->w, o);
        json_decref(o);
    }
    send_part(l, false);
}

static struct job_listing *listing_create(struct ctld *ctld,
                                          proto_req_t *req)
{
    json_t *body = proto_req_body(req);
    struct job_listing *l = xzalloc(sizeof(*l));

    l->req = req;
    l->now = ctld_now(ctld);
    l->plan = job_info_plan_create(json_object_get(body, "fields"));
    l->rows = l->plan && json_is_true(json_object_get(body, "rows"));
    l->parts = json_is_true(json_object_get(body, "parts"));
    filter_read(&l->f, ctld, req, body);
    l->out = (struct jsonw_sink){.w = &l->w};
    jsonw_init(&l->w, PROTO_RESPOND_RESERVE);
    jsonw_obj_open(&l->w);
    jsonw_key(&l->w, "now");
    jsonw_int(&l->w, l->now);
    if (l->rows) { /* the columns, then a row of values per job */
        const char *const *keys;
        size_t n = job_info_plan_columns(l->plan, &keys);

        jsonw_key(&l->w, "keys");
        jsonw_arr_open(&l->w);
        for (size_t i = 0; i < n; i++)
            jsonw_str(&l->w, keys[i]);
        jsonw_arr_close(&l->w);
        jsonw_row_init(&l->row, keys, n);
        l->out = (struct jsonw_sink){.row = &l->row};
    }
    open_jobs(l);
    l->part_start = l->w.len;
    return l;
}

/* Close the answer, send it and free 'l'. */
static void answer(struct job_listing *l)
{
    jsonw_arr_close(&l->w);
    jsonw_obj_close(&l->w);
    if (proto_respond_jsonw(l->req, &l->w) < 0)
        log_err("job_info: responding");
    jsonw_row_release(&l->row);
    job_info_plan_destroy(l->plan);
    filter_release(&l->f);
    free(l->masters);
    free(l->extras);
    free(l);
}

static int by_id(const void *a, const void *b)
{
    uint32_t x = (*(struct job *const *)a)->id;
    uint32_t y = (*(struct job *const *)b)->id;

    return x < y ? -1 : x > y;
}

/* The jobs named by id (an array's id names all its records), in id
 * order, each once. */
static void put_by_ids(struct ctld *ctld, struct job_listing *l)
{
    struct job **v = NULL, *job;
    size_t n = 0, cap = 0;

    for (size_t i = 0; i < l->f.nids; i++) {
        struct job *first = array_first(ctld, l->f.ids[i]);

        for (job = first; job; job = array_next(job)) {
            if (n == cap)
                v = xrealloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));
            v[n++] = job;
        }
        if (!first && (job = ctld_job_find(ctld, l->f.ids[i]))) {
            if (n == cap)
                v = xrealloc(v, (cap = cap ? cap * 2 : 16) * sizeof(*v));
            v[n++] = job;
        }
    }
    if (n > 1)
        qsort(v, n, sizeof(*v), by_id);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || v[i] != v[i - 1])
            put_job(ctld, l, v[i]);
    free(v);
}

/* A listing for a few users (squeue -u) is answered at once from their
 * own lists (ctld_user_jobs()) when they hold at most this many jobs
 * together; more are walked in slices like any listing. */
#define USER_LIST_MAX 4096

/* The jobs of the users 'l' names, when they are few: in id order, each
 * once.  False (nothing written) when there are more. */
static bool put_by_users(struct ctld *ctld, struct job_listing *l)
{
    struct job **v, *job;
    size_t n = 0, total = 0, count;

    for (size_t i = 0; i < l->f.nusers; i++) {
        ctld_user_jobs(ctld, l->f.users[i], &count);
        total += count;
    }
    if (total > USER_LIST_MAX)
        return false;
    v = xzalloc((total + 1) * sizeof(*v));
    for (size_t i = 0; i < l->f.nusers; i++) {
        bool twice = false;

        for (size_t k = 0; k < i; k++)
            twice |= l->f.users[k] == l->f.users[i];
        for (job = twice ? NULL : ctld_user_jobs(ctld, l->f.users[i], &count);
             job; job = job->user_next)
            v[n++] = job;
    }
    if (n > 1)
        qsort(v, n, sizeof(*v), by_id);
    for (size_t i = 0; i < n; i++)
        put_job(ctld, l, v[i]);
    free(v);
    return true;
}

static bool passed_master(const struct job_listing *l, uint32_t id)
{
    if (l->live_only)
        return id < l->next_id;
    for (size_t i = 0; i < l->nmasters; i++)
        if (l->masters[i] == id)
            return true;
    return false;
}

/* listing.h's write: the jobs of the table from the cursor, then the
 * tasks split meanwhile from masters not passed. */
static bool write_some(struct ctld *ctld, struct listing *base,
                       uint64_t deadline)
{
    struct job_listing *l = (struct job_listing *)base;
    unsigned n = 0;

    while (l->walking && l->live_only) {
        struct job *job = ctld_live_from(ctld, l->next_id);

        if (!job || job->id >= l->first_new_id) {
            l->walking = false;
            break;
        }
        if ((++n & 63) == 0 && uv_hrtime() >= deadline) {
            send_part(l, true);
            return false;
        }
        l->next_id = (uint64_t)job->id + 1;
        put_job(ctld, l, job);
    }
    if (!l->cursor)
        l->walking = false;
    while (l->cursor) {
        struct job *job = l->cursor;

        if ((++n & 63) == 0 && uv_hrtime() >= deadline) {
            send_part(l, true);
            return false;
        }
        l->cursor = job == l->last ? NULL : job->hh.next;
        l->walking = l->cursor != NULL;
        if (array_is_master(job))
            push_u32(&l->masters, &l->nmasters, &l->masters_cap, job->id);
        put_job(ctld, l, job);
    }
    for (size_t i = 0; i < l->nextras; i++) {
        struct job *job = ctld_job_find(ctld, l->extras[i]);
        if (job)
            put_job(ctld, l, job);
    }
    l->nextras = 0;
    return true;
}

static void finish(struct ctld *ctld, struct listing *base)
{
    (void)ctld;
    answer((struct job_listing *)base);
}

void job_listing_rpc(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    struct job_listing *l = listing_create(ctld, req);

    if (l->f.by_ids) {
        put_by_ids(ctld, l);
        answer(l);
        return;
    }
    if (l->f.nusers && put_by_users(ctld, l)) {
        answer(l);
        return;
    }
    l->walking = true;
    l->live_only = only_live_states(&l->f);
    if (ctld->jobs && !l->live_only) {
        UT_hash_table *tbl = ctld->jobs->hh.tbl;
        l->cursor = ctld->jobs;
        l->last = ELMT_FROM_HH(tbl, tbl->tail);
    }
    /* ids from next_job_id on came later, unless the ids wrapped
     * (MaxJobId, job_id.h) and older jobs hold them: then no bound */
    l->first_new_id = ctld_live_from(ctld, ctld->next_job_id)
                          ? UINT32_MAX
                          : ctld->next_job_id;
    l->base.write = write_some;
    l->base.finish = finish;
    listing_queue(ctld, &l->base);
}

/* The job listings being written ('NULL' after the last). */
static struct job_listing *next_job_listing(struct listing *l)
{
    for (; l; l = l->next)
        if (l->write == write_some)
            return (struct job_listing *)l;
    return NULL;
}

void job_listing_unlinked(struct ctld *ctld, const struct job *job)
{
    for (struct job_listing *l = next_job_listing(ctld->listings); l;
         l = next_job_listing(l->base.next)) {
        if (l->cursor == job)
            l->cursor = job == l->last ? NULL : job->hh.next;
        if (l->last == job)
            l->last = job->hh.prev;
    }
}

void job_listing_split(struct ctld *ctld, uint32_t master_id,
                       uint32_t new_job_id)
{
    for (struct job_listing *l = next_job_listing(ctld->listings); l;
         l = next_job_listing(l->base.next))
        if (l->walking && master_id < l->first_new_id
            && !passed_master(l, master_id))
            push_u32(&l->extras, &l->nextras, &l->extras_cap, new_job_id);
}

