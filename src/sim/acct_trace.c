/* SPDX-License-Identifier: Apache-2.0
 *
 * acct_trace.c - sacct --json output as a replay trace (acct_trace.h)
 *
 * A bad record is named and skipped, never fatal: accounting spans
 * months, and one odd job should not stop the replay of the others.
 * Only a document that is not JSON, or has no "jobs" array, is an error.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <uthash.h>

#include "sim/acct_trace.h"

/* A name (user, partition) and the number it was given. */
struct name_ix {
    char *name;
    uint32_t ix;
    UT_hash_handle hh;
};

struct reader {
    const char *source;
    struct swf_trace *t;
    size_t cap;
    struct name_ix *users, *accounts, *parts;
};

/* What is wrong with a record, for the message naming it. */
enum verdict { KEEP, SKIP, BAD, NOMEM };

/* o[key] (or o[key][sub]) as a whole number in *v.  Returns 1, 0 if it is
 * absent or null, -1 if it is something else. */
static int num(const json_t *o, const char *key, const char *sub, int64_t *v)
{
    const json_t *x = json_object_get(o, key);

    if (sub)
        x = json_object_get(x, sub);
    if (!x || json_is_null(x))
        return 0;
    if (json_is_integer(x)) {
        *v = json_integer_value(x);
        return 1;
    }
    if (json_is_real(x) && json_real_value(x) >= (double)INT64_MIN
        && json_real_value(x) <= (double)INT64_MAX) {
        *v = (int64_t)json_real_value(x);
        return 1;
    }
    return -1;
}

/* The count of the TRES 'type' (and 'name', e.g. gres/gpu) in the list
 * o.tres[which] ([{type, name, count}]), or 0. */
static int64_t tres(const json_t *o, const char *which, const char *type,
                    const char *name)
{
    const json_t *list = json_object_get(json_object_get(o, "tres"), which);
    const json_t *e;
    size_t i;

    json_array_foreach(list, i, e) {
        const char *ty = json_string_value(json_object_get(e, "type"));
        const char *nm = json_string_value(json_object_get(e, "name"));
        int64_t c;
        if (ty && !strcmp(ty, type) && (!name || (nm && !strcmp(nm, name)))
            && num(e, "count", NULL, &c) == 1 && c > 0)
            return c;
    }
    return 0;
}

/* The number of 'name' in *hash, a new one (*n, then *n + 1) if unseen.
 * -1 on ENOMEM. */
static int64_t intern(struct name_ix **hash, uint32_t *n, const char *name)
{
    struct name_ix *e = NULL;

    HASH_FIND_STR(*hash, name, e);
    if (e)
        return e->ix;
    if (!(e = calloc(1, sizeof(*e))) || !(e->name = strdup(name))) {
        free(e);
        return -1;
    }
    e->ix = (*n)++;
    HASH_ADD_KEYPTR(hh, *hash, e->name, strlen(e->name), e);
    return e->ix;
}

static void names_free(struct name_ix **hash)
{
    struct name_ix *e, *tmp;

    HASH_ITER(hh, *hash, e, tmp) {
        HASH_DEL(*hash, e);
        free(e->name);
        free(e);
    }
}

/* The number of 'name' in *hash and in the list names[0..*n), added to
 * both when new; -1 on ENOMEM. */
static int64_t listed(struct name_ix **hash, char ***names, size_t *n,
                      const char *name)
{
    uint32_t k = (uint32_t)*n;
    int64_t ix;

    if ((ix = intern(hash, &k, name)) < 0)
        return -1;
    if (k > *n) {
        char **p = realloc(*names, k * sizeof(*p));
        if (!p)
            return -1;
        *names = p;
        if (!(p[*n] = strdup(name)))
            return -1;
        (*n)++;
    }
    return ix;
}

/* The partition number of swf_job.part for 'name' (0: none given),
 * adding it to t->parts when new; -1 on ENOMEM. */
static int64_t part_of(struct reader *rd, const char *name)
{
    int64_t ix;

    if (!name || !*name)
        return 0;
    if ((ix = listed(&rd->parts, &rd->t->parts, &rd->t->nparts, name)) < 0)
        return -1;
    return ix + 1;
}

/* The job's times: submit, run, estimate, wait.  SKIP for a job that
 * never started or has not ended. */
static enum verdict job_times(const json_t *o, struct swf_job *j,
                              const char **why)
{
    int64_t start = 0, end = 0, limit = 0;

    if (num(o, "time", "submission", &j->submit) != 1 || j->submit <= 0) {
        *why = "time.submission missing or not a time";
        return BAD;
    }
    if (num(o, "time", "start", &start) < 0 || num(o, "time", "end", &end) < 0
        || num(o, "time", "limit", &limit) < 0) {
        *why = "time.start, time.end or time.limit not a number";
        return BAD;
    }
    if (start <= 0 || end <= 0)
        return SKIP; /* never started (cancelled pending), or running */
    if (end < start) {
        *why = "time.end before time.start";
        return BAD;
    }
    j->run = end - start;
    j->wait = start - j->submit;
    /* v0.0.38 writes 0 for UNLIMITED; Slurm's NO_VAL/INFINITE too. */
    j->estimate = limit > 0 && limit < 0xfffffffeLL ? limit * 60 : j->run;
    return KEEP;
}

/* The job's request: procs, nodes, memory, GPUs. */
static enum verdict job_request(const json_t *o, struct swf_job *j,
                                const char **why)
{
    int64_t cpus = 0, nodes = tres(o, "requested", "node", NULL);
    int64_t mem = tres(o, "requested", "mem", NULL);
    int64_t gpus = tres(o, "requested", "gres", "gpu");

    if (num(o, "required", "CPUs", &cpus) < 0) {
        *why = "required.CPUs not a number";
        return BAD;
    }
    if (cpus <= 0)
        cpus = tres(o, "requested", "cpu", NULL);
    if (cpus <= 0)
        cpus = tres(o, "allocated", "cpu", NULL);
    if (cpus <= 0 || cpus > UINT32_MAX || nodes > UINT32_MAX
        || gpus > UINT32_MAX) {
        *why = cpus <= 0 ? "no CPU count (required.CPUs, tres)"
                         : "a count out of range (cpu, node, gres/gpu)";
        return BAD;
    }
    j->procs = (uint32_t)cpus;
    j->req_procs = cpus;
    j->alloc_procs = tres(o, "allocated", "cpu", NULL);
    j->nodes = nodes > 1 ? (uint32_t)nodes : 0;
    if (mem > 0)
        j->mem_per_cpu_mib = mem / cpus ? (uint64_t)(mem / cpus) : 1;
    j->gpus = (uint32_t)gpus;
    return KEEP;
}

/* Name a bad record on stderr (the first few) and count it. */
static void bad(struct reader *rd, size_t i, int64_t id, const char *why)
{
    struct swf_trace *t = rd->t;

    if (t->malformed < ACCT_TRACE_NAMED_MAX) {
        if (id > 0)
            fprintf(stderr, "%s: jobs[%zu] (JobId=%" PRId64 "): %s, "
                    "skipped\n", rd->source, i, id, why);
        else
            fprintf(stderr, "%s: jobs[%zu]: %s, skipped\n", rd->source, i,
                    why);
    } else if (t->malformed == ACCT_TRACE_NAMED_MAX) {
        fprintf(stderr, "%s: more bad job records, not named\n", rd->source);
    }
    t->malformed++;
}

static int push(struct reader *rd, const struct swf_job *j)
{
    struct swf_trace *t = rd->t;

    if (t->njobs == rd->cap) {
        size_t ncap = rd->cap ? rd->cap * 2 : 256;
        struct swf_job *nj = realloc(t->jobs, ncap * sizeof(*nj));
        if (!nj)
            return -1;
        t->jobs = nj;
        rd->cap = ncap;
    }
    t->jobs[t->njobs++] = *j;
    if (j->procs > t->max_procs)
        t->max_procs = j->procs;
    return 0;
}

/* Record jobs[i]: kept, skipped (counted), or bad (named, counted).
 * -1 only on ENOMEM. */
static int take_job(struct reader *rd, size_t i, const json_t *o)
{
    struct swf_job j = {0};
    const char *why = NULL, *state, *user, *account;
    enum verdict v = BAD;
    int64_t part, uid, aid;

    if (!json_is_object(o))
        why = "not an object";
    else if (num(o, "job_id", NULL, &j.id) != 1 || j.id <= 0)
        why = "job_id missing or not a positive number";
    else if ((v = job_times(o, &j, &why)) == KEEP)
        v = job_request(o, &j, &why);
    if (v == SKIP) {
        rd->t->skipped++;
        return 0;
    }
    if (v == BAD || why) {
        bad(rd, i, j.id, why);
        return 0;
    }
    state = json_string_value(json_object_get(json_object_get(o, "state"),
                                              "current"));
    j.status = state && !strcmp(state, "COMPLETED");
    user = json_string_value(json_object_get(o, "user"));
    account = json_string_value(json_object_get(o, "account"));
    part = part_of(rd, json_string_value(json_object_get(o, "partition")));
    uid = listed(&rd->users, &rd->t->users, &rd->t->nusers,
                 user ? user : "");
    aid = listed(&rd->accounts, &rd->t->accounts, &rd->t->naccounts,
                 account ? account : "");
    if (part < 0 || uid < 0 || aid < 0)
        return -1;
    j.part = (uint32_t)part;
    j.user = uid;
    j.group = aid;
    return push(rd, &j);
}

static int by_id(const void *a, const void *b)
{
    const struct swf_job *x = a, *y = b;

    return x->id < y->id ? -1 : x->id > y->id;
}

/* Job id order, and times from the first submission. */
static void finish(struct swf_trace *t)
{
    int64_t first = INT64_MAX;

    if (t->njobs) /* jobs is NULL without */
        qsort(t->jobs, t->njobs, sizeof(*t->jobs), by_id);
    for (size_t i = 0; i < t->njobs; i++)
        if (t->jobs[i].submit < first)
            first = t->jobs[i].submit;
    for (size_t i = 0; i < t->njobs; i++)
        t->jobs[i].submit -= first;
}

static int from_json(const json_t *doc, const char *source,
                     struct swf_trace *out, drv_error_t *error)
{
    const json_t *jobs = json_object_get(doc, "jobs"), *o;
    struct reader rd = {.source = source, .t = out};
    int rc = 0;
    size_t i;

    if (!json_is_array(jobs)) {
        errno = EINVAL;
        return errprintf(error, "%s: no \"jobs\" array (not the output of "
                         "sacct --json?)", source);
    }
    json_array_foreach(jobs, i, o) {
        if (take_job(&rd, i, o) < 0) {
            errno = ENOMEM;
            rc = errprintf(error, "%s: out of memory", source);
            break;
        }
    }
    names_free(&rd.users);
    names_free(&rd.accounts);
    names_free(&rd.parts);
    if (rc == 0)
        finish(out);
    return rc;
}

/* from_json() on a loaded document (NULL: jansson's error in 'jerr'). */
static int take_doc(json_t *doc, const json_error_t *jerr, const char *source,
                    struct swf_trace *out, drv_error_t *error)
{
    int rc;

    memset(out, 0, sizeof(*out));
    if (!doc) {
        errno = EINVAL;
        return errprintf(error, "%s:%d:%d: %s", source, jerr->line,
                         jerr->column, jerr->text);
    }
    rc = from_json(doc, source, out, error);
    json_decref(doc);
    if (rc < 0)
        swf_trace_free(out);
    return rc;
}

int acct_trace_parse(const char *text, size_t len, const char *source,
                     struct swf_trace *out, drv_error_t *error)
{
    json_error_t jerr;

    return take_doc(json_loadb(text, len, 0, &jerr), &jerr, source, out,
                    error);
}

int acct_trace_read(const char *path, struct swf_trace *out,
                    drv_error_t *error)
{
    bool in = !strcmp(path, "-");
    const char *source = in ? "standard input" : path;
    FILE *f = in ? stdin : fopen(path, "r");
    json_error_t jerr;
    json_t *doc;

    if (!f) {
        memset(out, 0, sizeof(*out));
        return errprintf(error, "%s: %s", path, strerror(errno));
    }
    doc = json_loadf(f, 0, &jerr);
    if (!in)
        fclose(f);
    return take_doc(doc, &jerr, source, out, error);
}
