/* SPDX-License-Identifier: Apache-2.0
 *
 * job_info.c - derived fields of job_info answers
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/jobpath.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/depend.h"
#include "ctld/explain.h"
#include "ctld/job_info.h"
#include "ctld/job_place.h"
#include "ctld/step.h"

static uint32_t job_node_count(const struct job *job)
{
    if (job->alloc)
        return job->alloc->node_count;
    return job->req.min_nodes ? job->req.min_nodes : 1;
}

static uint32_t job_num_tasks(const struct job *job)
{
    if (job->req.ntasks)
        return job->req.ntasks;
    if (job->req.ntasks_per_node)
        return job->req.ntasks_per_node * job_node_count(job);
    return job_node_count(job);
}

uint32_t job_info_req_cpus(const struct job *job, uint32_t *gpus,
                           uint64_t *mem)
{
    uint32_t cpt = job->req.cpus_per_task ? job->req.cpus_per_task : 1;
    uint32_t nodes = job_node_count(job);

    *gpus = job->req.gpus_total ? job->req.gpus_total
                                : job->req.gpus_per_node * nodes
                                      + job->req.gpus_per_task
                                            * job_num_tasks(job);
    *mem = job->req.mem_per_node_mib
               ? job->req.mem_per_node_mib * nodes
               : job->req.mem_per_cpu_mib * job_num_tasks(job) * cpt;
    return job_num_tasks(job) * cpt;
}

uint32_t job_info_cpus(const struct job *job, uint32_t *gpus, uint64_t *mem)
{
    uint32_t cpus = 0;

    if (!job->alloc)
        return job_info_req_cpus(job, gpus, mem);
    *gpus = 0;
    *mem = 0;
    for (uint32_t i = 0; i < job->alloc->node_count; i++) {
        cpus += job->alloc->cpus[i];
        *mem += job->alloc->mem_mib[i];
        if (job->alloc->gpus && job->alloc->gpus[i] && !job->alloc->shards[i])
            *gpus += (uint32_t)bitmap_count(job->alloc->gpus[i]);
    }
    return cpus;
}

const char *job_info_share(const struct job *job)
{
    return job->req.share_name ? job->req.share_name : "shard";
}

uint32_t job_info_mps_percent(const struct ctld *ctld, const struct job *job,
                              uint32_t i)
{
    const struct sched_alloc *a = job->alloc;
    const struct sched_node *sn;
    uint32_t cap, pct;

    if (!a || i >= a->node_count || !a->shards[i] || !job->mps_per_node)
        return 0;
    sn = &ctld->nodes->sched[a->node_idx[i]];
    cap = sn->shards ? sn->shards[bitmap_first_set(a->gpus[i], 0)] : 0;
    pct = cap ? (uint32_t)((uint64_t)a->shards[i] * 100 / cap) : 100;
    return pct ? pct : 1;
}

uint32_t job_info_shards(const struct job *job)
{
    uint32_t n = 0;

    if (!job->alloc)
        return job->req.shards_per_node * job_node_count(job);
    for (uint32_t i = 0; i < job->alloc->node_count; i++)
        n += job->alloc->shards[i];
    return n;
}

char *job_info_exit_code(int status)
{
    if (WIFSIGNALED(status))
        return xasprintf("0:%d", WTERMSIG(status));
    return xasprintf("%d:0", WEXITSTATUS(status));
}

static void put_path(const struct jsonw_sink *o, const char *key,
                     const char *pattern, const struct jobpath_vars *v)
{
    char *path = jobpath_expand(pattern, v);

    jsonw_put_str(o, key, path ? path : pattern);
    free(path);
}

static void add_paths(const struct jsonw_sink *o, const struct job *job,
                      const char *host)
{
    struct jobpath_vars v = {
        .job_id = job->id,
        .job_name = job->name,
        .user = job->user_name,
        .node = host,
        .array_task_id = -1,
        .work_dir = job->work_dir,
    };
    const char *out = job->std_out ? job->std_out
                      : job->array ? "slurm-%A_%a.out"
                                   : "slurm-%j.out";

    if (job->array) {
        v.array_job_id = job->array->job_id;
        if (job->array->task_id != ARRAY_TASK_NONE)
            v.array_task_id = job->array->task_id;
    }

    put_path(o, "std_out", out, &v);
    put_path(o, "std_err", job->std_err ? job->std_err : out, &v);
    put_path(o, "std_in", job->std_in ? job->std_in : "/dev/null", &v);
}

/* The allocation with each node's CPU ids (ctld/cpu_ids.h); an entry
 * without (a record from before the controller chose them) shows 0..n-1,
 * the CPUs droverstepd then binds to. */
static json_t *alloc_detail(struct ctld *ctld, const struct job *job)
{
    json_t *arr = job_alloc_to_json(job->alloc, ctld->nodes->names);
    json_t *e;
    size_t i;

    if (!arr)
        return json_array();
    json_array_foreach(arr, i, e) {
        uint32_t cpus = job->alloc->cpus[i];
        char *ids;

        if (json_object_get(e, "cpu_ids"))
            continue;
        ids = cpus > 1 ? xasprintf("0-%u", cpus - 1) : xstrdup("0");
        json_object_set_new(e, "cpu_ids", json_string(ids));
        free(ids);
    }
    return arr;
}

/* Finished jobs keep showing where they ran, as Slurm's do. */
static const char *last_batch_host(const struct job *job)
{
    static char host[256];
    json_t *a;

    if (!job->last_alloc_json
        || !(a = json_loads(job->last_alloc_json, 0, NULL)))
        return NULL;
    snprintf(host, sizeof(host), "%s",
             json_string_value(json_object_get(json_array_get(a, 0), "node"))
                 ?: "");
    json_decref(a);
    return *host ? host : NULL;
}

static char *tres_per_node(const struct job *job)
{
    if (job->gpus_per_socket) /* TresPerSocket= (the GPUs are per socket) */
        return xstrdup("");
    if (job->req.shards_per_node)
        return xasprintf("gres:%s:%u", job_info_share(job),
                         job->req.shards_per_node);
    if (job->req.gpus_per_node && job->gpu_type)
        return xasprintf("gres:gpu:%s:%u", job->gpu_type,
                         job->req.gpus_per_node);
    if (job->req.gpus_per_node)
        return xasprintf("gres:gpu:%u", job->req.gpus_per_node);
    return xstrdup("");
}

/* What the derived keys of one job share, computed on first use. */
struct info_ctx {
    struct ctld *ctld;
    const struct job *job;
    bool have_host, have_cpus;
    const char *host;
    uint32_t cpus, gpus;
    uint64_t mem;
};

static const char *ctx_host(struct info_ctx *c)
{
    if (!c->have_host) {
        c->host = c->job->alloc
                      ? c->ctld->nodes->names[c->job->alloc->node_idx[0]]
                      : last_batch_host(c->job);
        c->have_host = true;
    }
    return c->host;
}

static uint32_t ctx_cpus(struct info_ctx *c)
{
    if (!c->have_cpus) {
        c->cpus = job_info_cpus(c->job, &c->gpus, &c->mem);
        c->have_cpus = true;
    }
    return c->cpus;
}

/* Each builder writes one key or a group sharing a derivation. */
typedef void (*info_build_f)(struct info_ctx *c, const struct jsonw_sink *o);

static void b_node_count(struct info_ctx *c, const struct jsonw_sink *o)
{
    jsonw_put_int(o, "node_count", job_node_count(c->job));
}

static void b_num_cpus(struct info_ctx *c, const struct jsonw_sink *o)
{
    jsonw_put_int(o, "num_cpus", ctx_cpus(c));
}

static void b_num_tasks(struct info_ctx *c, const struct jsonw_sink *o)
{
    jsonw_put_int(o, "num_tasks", job_num_tasks(c->job));
}

static void b_batch_host(struct info_ctx *c, const struct jsonw_sink *o)
{
    jsonw_put_str(o, "batch_host", ctx_host(c) ?: "");
}

static void b_exit_code(struct info_ctx *c, const struct jsonw_sink *o)
{
    char *exit_code = job_info_exit_code(c->job->exit_status);

    jsonw_put_str(o, "exit_code", exit_code);
    free(exit_code);
}

/* "tres_alloc" once allocated, "tres_req" before. */
static void b_tres(struct info_ctx *c, const struct jsonw_sink *o)
{
    uint32_t cpus = ctx_cpus(c);
    char *tres = node_table_tres(cpus, c->mem, (int)job_node_count(c->job),
                                 c->gpus, true);
    uint32_t shards = job_info_shards(c->job);

    if (shards) { /* scontrol prints gres/shard (gres/mps) last */
        char *t = xasprintf("%s%sgres/%s=%u", tres, *tres ? "," : "",
                            job_info_share(c->job), shards);
        free(tres);
        tres = t;
    }

    jsonw_put_str(o, c->job->alloc ? "tres_alloc" : "tres_req", tres);
    free(tres);
}

static void b_tres_per_node(struct info_ctx *c, const struct jsonw_sink *o)
{
    char *tpn = tres_per_node(c->job);

    jsonw_put_str(o, "tres_per_node", tpn);
    free(tpn);
}

static void b_batch_flag(struct info_ctx *c, const struct jsonw_sink *o)
{
    jsonw_put_int(o, "batch_flag", !c->job->interactive);
}

static void b_alloc(struct info_ctx *c, const struct jsonw_sink *o)
{
    jsonw_put_json(o, "alloc", alloc_detail(c->ctld, c->job));
}

/* A finished job shows the nodes it ran on. */
static void b_nodes(struct info_ctx *c, const struct jsonw_sink *o)
{
    const struct job *job = c->job;
    const char *nodes = !job->alloc && job->last_nodes ? job->last_nodes
                                                       : job->nodes;

    jsonw_put_str(o, "nodes", nodes ? nodes : "");
}

/* squeue --start: a pending job's start is the scheduler's plan. */
static void b_start_time(struct info_ctx *c, const struct jsonw_sink *o)
{
    const struct job *job = c->job;
    time_t t = job->state == JOB_PENDING && job->sched_start_time
                   ? job->sched_start_time
                   : job->start_time;

    jsonw_put_int(o, "start_time", t);
}

static void b_sched_nodes(struct info_ctx *c, const struct jsonw_sink *o)
{
    if (c->job->state == JOB_PENDING && c->job->sched_nodes)
        jsonw_put_str(o, "sched_nodes", c->job->sched_nodes);
}

/* Why a pending job waits, in words (explain.h). */
static void b_explain(struct info_ctx *c, const struct jsonw_sink *o)
{
    char *s = job_explain(c->ctld, c->job, ctld_now(c->ctld));

    if (s)
        jsonw_put_str(o, "pending_explain", s);
    free(s);
}

static void b_paths(struct info_ctx *c, const struct jsonw_sink *o)
{
    add_paths(o, c->job, ctx_host(c));
}

static void b_array(struct info_ctx *c, const struct jsonw_sink *o)
{
    json_t *m;

    if (!c->job->array) /* no object made for most jobs */
        return;
    m = json_object();
    array_to_json(c->job, m, true);
    jsonw_put_members(o, m);
}

static void b_depend(struct info_ctx *c, const struct jsonw_sink *o)
{
    json_t *m;

    if (!c->job->depend)
        return;
    m = json_object();
    depend_to_json(c->job, m);
    jsonw_put_members(o, m);
}

static void b_place(struct info_ctx *c, const struct jsonw_sink *o)
{
    job_place_put(&c->job->place, o);
}

static void b_last_alloc(struct info_ctx *c, const struct jsonw_sink *o)
{
    if (!c->job->alloc && c->job->last_alloc_json)
        jsonw_put_json(o, "last_alloc",
                       json_loads(c->job->last_alloc_json, 0, NULL));
}

static void b_steps(struct info_ctx *c, const struct jsonw_sink *o)
{
    json_t *steps = job_steps_to_json(c->job, true);

    jsonw_put_json(o, "steps", steps);
}

/* The keys job_to_json() does not write as a plain field, with their
 * builders.  The first DERIVED_COUNT rows are the derived keys, in the
 * order the full answer adds them; the rest are groups job_to_json()
 * writes itself.
 */
static const struct {
    const char *key;
    info_build_f build;
} info_keys[] = {
    {"node_count", b_node_count},
    {"num_cpus", b_num_cpus},
    {"num_tasks", b_num_tasks},
    {"batch_host", b_batch_host},
    {"exit_code", b_exit_code},
    {"tres_alloc", b_tres},
    {"tres_per_node", b_tres_per_node},
    {"batch_flag", b_batch_flag},
    {"alloc", b_alloc},
    {"nodes", b_nodes},
    {"start_time", b_start_time},
    {"sched_nodes", b_sched_nodes},
    {"pending_explain", b_explain},
    {"std_out", b_paths},
    /* aliases and groups */
    {"tres_req", b_tres},
    {"std_err", b_paths},
    {"std_in", b_paths},
    {"last_alloc", b_last_alloc},
    {"array_job_id", b_array},
    {"array_max_tasks", b_array},
    {"array_task_count", b_array},
    {"array_task_min", b_array},
    {"array_task_max", b_array},
    {"array_task_step", b_array},
    {"array_task_id", b_array},
    {"array_pending", b_array},
    {"array_task_str", b_array},
    {"kill_on_invalid_dep", b_depend},
    {"dependency", b_depend},
    {"req_nodes", b_place},
    {"exc_nodes", b_place},
    {"features", b_place},
    {"begin_time", b_place},
    {"time_min_s", b_place},
    {"signal_num", b_place},
    {"signal_secs", b_place},
    {"signal_batch_only", b_place},
    {"open_mode", b_place},
    {"steps", b_steps},
};

#define DERIVED_COUNT 14
#define NKEYS (sizeof(info_keys) / sizeof(info_keys[0]))

json_t *job_info_json(struct ctld *ctld, const struct job *job, time_t now)
{
    json_t *o = job_to_json(job, ctld->nodes->names, JOB_JSON_INFO);
    struct info_ctx c = {.ctld = ctld, .job = job};
    struct jsonw_sink out = {.obj = o};

    (void)now;
    for (size_t i = 0; o && i < DERIVED_COUNT; i++) {
        /* Keep the full answer as it always was: no "start_time" and
         * "nodes" rewrite unless they differ from the record's. */
        if (info_keys[i].build == b_start_time
            && !(job->state == JOB_PENDING && job->sched_start_time))
            continue;
        if (info_keys[i].build == b_nodes
            && !(!job->alloc && job->last_nodes))
            continue;
        info_keys[i].build(&c, &out);
    }
    return o;
}

struct job_info_plan {
    int *fields;        /* job_field_lookup() handles */
    size_t nfields;
    info_build_f *builds; /* distinct builders, in info_keys order */
    size_t nbuilds;
    const char **cols;  /* job_info_plan_columns() */
    size_t ncols;
    bool wanted[NKEYS]; /* the builders' keys asked for */
};

static void plan_add_build(struct job_info_plan *p, info_build_f b)
{
    for (size_t i = 0; i < p->nbuilds; i++)
        if (p->builds[i] == b)
            return;
    p->builds[p->nbuilds++] = b;
}

static void plan_add(struct job_info_plan *p, const char *key)
{
    int f;

    for (size_t i = 0; i < NKEYS; i++) {
        if (!strcmp(key, info_keys[i].key)) {
            plan_add_build(p, info_keys[i].build);
            p->wanted[i] = true;
            return;
        }
    }
    if ((f = job_field_lookup(key)) < 0)
        return;
    for (size_t i = 0; i < p->nfields; i++)
        if (p->fields[i] == f)
            return;
    p->fields[p->nfields++] = f;
}

/* The fields' keys, then each builder's keys that were asked for (a row
 * has no room for the others: "array_job_id" does not bring the eight
 * other array keys its builder writes, null for most jobs). */
static void plan_columns(struct job_info_plan *p)
{
    p->cols = xzalloc((p->nfields + NKEYS + 1) * sizeof(*p->cols));
    for (size_t i = 0; i < p->nfields; i++)
        p->cols[p->ncols++] = job_field_key(p->fields[i]);
    for (size_t b = 0; b < p->nbuilds; b++)
        for (size_t i = 0; i < NKEYS; i++)
            if (info_keys[i].build == p->builds[b] && p->wanted[i])
                p->cols[p->ncols++] = info_keys[i].key;
}

struct job_info_plan *job_info_plan_create(json_t *fields)
{
    struct job_info_plan *p;
    size_t i, n = json_array_size(fields);
    json_t *v;

    if (!json_is_array(fields))
        return NULL;
    p = xzalloc(sizeof(*p));
    p->fields = xzalloc((n + 1) * sizeof(*p->fields));
    p->builds = xzalloc((n + 1) * sizeof(*p->builds));
    json_array_foreach(fields, i, v) {
        if (json_is_string(v))
            plan_add(p, json_string_value(v));
    }
    plan_columns(p);
    return p;
}

size_t job_info_plan_columns(const struct job_info_plan *plan,
                             const char *const **keys)
{
    *keys = plan->cols;
    return plan->ncols;
}

void job_info_plan_destroy(struct job_info_plan *plan)
{
    if (!plan)
        return;
    free(plan->fields);
    free(plan->builds);
    free(plan->cols);
    free(plan);
}

void job_info_put_plan(struct ctld *ctld, const struct job *job,
                       const struct job_info_plan *plan,
                       const struct jsonw_sink *out)
{
    struct info_ctx c = {.ctld = ctld, .job = job};

    for (size_t i = 0; i < plan->nfields; i++)
        job_field_put(job, plan->fields[i], out);
    for (size_t i = 0; i < plan->nbuilds; i++)
        plan->builds[i](&c, out);
}

json_t *job_info_json_plan(struct ctld *ctld, const struct job *job,
                           const struct job_info_plan *plan)
{
    json_t *o = json_object();

    if (o)
        job_info_put_plan(ctld, job, plan, &(struct jsonw_sink){.obj = o});
    return o;
}
