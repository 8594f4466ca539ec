/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_priority.c - priority_info (sprio) and share_info (sshare): the
 * factors and the fair-share tree the scheduler uses, as it uses them;
 * job_top (scontrol top)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/job_info.h"
#include "ctld/job_update.h"
#include "ctld/priority_private.h"

/* Does 'v' appear in the JSON array 'list' (absent or empty: yes)? */
static bool listed_id(json_t *list, uint32_t v)
{
    json_t *x;
    size_t i;

    if (!json_array_size(list))
        return true;
    json_array_foreach(list, i, x)
        if (json_is_integer(x) && json_integer_value(x) == (json_int_t)v)
            return true;
    return false;
}

static bool listed_name(json_t *list, const char *s)
{
    json_t *x;
    size_t i;

    if (!json_array_size(list))
        return true;
    json_array_foreach(list, i, x)
        if (s && json_is_string(x) && !strcmp(json_string_value(x), s))
            return true;
    return false;
}

/* The jobs sprio lists, as Slurm's: pending with a priority (not held),
 * not waiting on a dependency or an array's task limit. */
static bool sprio_lists(const struct job *job)
{
    return job->state == JOB_PENDING && job->priority > 0
           && job->reason != JOB_REASON_DEPENDENCY
           && job->reason != JOB_REASON_DEP_NEVER
           && job->reason != JOB_REASON_ARRAY_TASK_LIMIT;
}

static int by_id(const void *a, const void *b)
{
    const struct job *x = *(struct job *const *)a;
    const struct job *y = *(struct job *const *)b;

    return x->id < y->id ? -1 : x->id > y->id;
}

static json_t *weights_json(const struct ctld *ctld)
{
    const struct prio_conf *c = &ctld->priority->conf;
    const char *text = ctld->conf->priority.weight_tres_text;
    json_t *tres = json_object(), *o;

    for (int t = 0; t < PRIO_TRES_COUNT; t++)
        if (c->w_tres[t])
            json_object_set_new(tres, prio_tres_name(t),
                                json_integer(c->w_tres[t]));
    o = json_pack("{s:I s:I s:I s:I s:I s:I s:o}", "age",
                     (json_int_t)c->w_age, "assoc", (json_int_t)c->w_assoc,
                     "fairshare", (json_int_t)c->w_fairshare, "jobsize",
                     (json_int_t)c->w_jobsize, "partition",
                     (json_int_t)c->w_partition, "qos", (json_int_t)c->w_qos,
                     "tres", tres);
    if (text)
        json_object_set_new(o, "tres_text", json_string(text));
    return o;
}

static json_t *factors_json(struct ctld *ctld, const struct job *job)
{
    const struct prio_conf *c = &ctld->priority->conf;
    struct prio_factors f;
    json_t *tres = json_object();

    priority_factors(ctld, job, priority_time(ctld, job->submit_time), &f);
    for (int t = 0; t < PRIO_TRES_COUNT; t++)
        if (c->w_tres[t])
            json_object_set_new(tres, prio_tres_name(t),
                                json_real(f.tres[t]));
    return json_pack(
        "{s:I s:s s:s s:s s:I s:I s:f s:f s:f s:f s:f s:f s:i s:o}", "job_id",
        (json_int_t)job->id, "partition", job->partition ? job->partition : "",
        "user", job->user_name ? job->user_name : "", "qos_name",
        job->qos ? job->qos : "normal", "priority",
        (json_int_t)job->priority, "site", (json_int_t)f.site, "age", f.age,
        "assoc", f.assoc, "fairshare", f.fairshare, "jobsize", f.jobsize,
        "partition_factor", f.partition, "qos", f.qos, "nice", f.nice,
        "tres", tres);
}

static void rpc_priority_info(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *body = proto_req_body(req), *list = json_array();
    json_t *ids = json_object_get(body, "jobs");
    json_t *users = json_object_get(body, "users");
    json_t *parts = json_object_get(body, "partitions");
    bool private = ctld_private(ctld, req, CONF_PRIVATE_JOBS);
    size_t n = 0, cap = HASH_COUNT(ctld->jobs);
    struct job **pick = xzalloc((cap + 1) * sizeof(*pick));
    struct job *job, *tmp;

    if (ctld->priority->conf.multifactor)
        HASH_ITER(hh, ctld->jobs, job, tmp) {
            if (!sprio_lists(job) || !listed_id(ids, job->id)
                || !listed_name(users, job->user_name)
                || !listed_name(parts, job->partition)
                || (private && job->uid != proto_req_uid(req)))
                continue;
            pick[n++] = job;
        }
    qsort(pick, n, sizeof(*pick), by_id);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, factors_json(ctld, pick[i]));
    free(pick);
    if (proto_respond(
            req, json_pack("{s:s s:o s:o}", "type",
                           ctld->priority->conf.multifactor
                               ? "priority/multifactor" : "priority/basic",
                           "weights", weights_json(ctld),
                           "jobs", list))
        < 0)
        log_err("priority_info: responding");
}

/* --- share_info ---------------------------------------------------------- */

/* TRES-minutes the running jobs of each association still hold (sshare
 * TRESRunMins): cpu, mem, node, gpu. */
struct run_mins {
    double v[4];
};

static double remaining_min(const struct job *job, time_t now)
{
    int64_t left;

    if (job->time_limit_s == TIME_INFINITE)
        return 4294967295.0; /* Slurm's INFINITE minutes */
    left = job->start_time + job->time_limit_s - now;
    return left > 0 ? (double)(left / 60) : 0;
}

static void run_mins_of(const struct job *job, time_t now, struct run_mins *m)
{
    uint64_t mem = 0;
    uint32_t gpus = 0, cpus = job_info_cpus(job, &gpus, &mem);
    double left = remaining_min(job, now);

    m->v[0] = cpus * left;
    m->v[1] = (double)mem * left;
    m->v[2] = (job->alloc ? job->alloc->node_count : 1) * left;
    m->v[3] = gpus * left;
}

static char *run_mins_string(const struct run_mins *m)
{
    return xasprintf("cpu=%.0f,mem=%.0f,energy=0,node=%.0f,billing=%.0f,"
                     "fs/disk=0,vmem=0,pages=0,gres/gpu=%.0f",
                     m->v[0], m->v[1], m->v[2], m->v[0], m->v[3]);
}

/* Run minutes per row (n rows, tree order): each running job's in its
 * user row, then every account row sums the rows of its subtree (those
 * after it, deeper than it).  Caller frees. */
static struct run_mins *rows_run_mins(struct ctld *ctld, const fs_tree_t *tree,
                                      const struct fs_row *rows, size_t n,
                                      time_t now)
{
    struct run_mins *m = xzalloc((n + 1) * sizeof(*m));
    struct job *job, *tmp;

    HASH_ITER(hh, ctld->jobs, job, tmp) {
        struct run_mins jm;
        const struct fs_row *jr;
        if (!job->alloc || job->state != JOB_RUNNING
            || !(jr = fs_tree_find(tree, job->account ? job->account : "",
                                   job->user_name ? job->user_name : ""))
            || !*jr->user)
            continue;
        run_mins_of(job, now, &jm);
        for (int k = 0; k < 4; k++)
            m[jr - rows].v[k] += jm.v[k];
    }
    for (size_t i = n; i-- > 0;) {
        if (*rows[i].user)
            continue;
        for (size_t j = i + 1; j < n && rows[j].depth > rows[i].depth; j++)
            if (*rows[j].user)
                for (int k = 0; k < 4; k++)
                    m[i].v[k] += m[j].v[k];
    }
    return m;
}

static json_t *num_or_null(double v, bool none)
{
    return none ? json_null() : json_real(v);
}

static json_t *row_json(const struct fs_row *r, bool root,
                        const struct run_mins *m)
{
    char *run = run_mins_string(m);
    json_t *o;

    o = json_pack("{s:s s:s s:i s:I s:f s:f s:o s:f s:o s:o s:s s:s s:s}",
                  "account", r->account, "user", r->user, "depth",
                  (int)r->depth, "raw_shares", (json_int_t)r->raw_shares,
                  "norm_shares", r->norm_shares, "raw_usage", r->raw_usage,
                  "norm_usage", num_or_null(r->norm_usage, root),
                  "effective_usage", r->effective_usage, "fairshare",
                  num_or_null(r->fairshare, r->fairshare < 0), "level_fs",
                  isinf(r->level_fs) ? json_string("inf")
                                     : num_or_null(r->level_fs,
                                                   r->level_fs < 0),
                  "grp_tres_mins", "", "tres_run_mins", run, "partition", "");
    free(run);
    return o;
}

static void rpc_share_info(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    const fs_tree_t *tree = priority_tree(ctld);
    const struct fs_row *rows;
    size_t n = fs_tree_rows(tree, &rows);
    json_t *list = json_array();
    struct run_mins *m = rows_run_mins(ctld, tree, rows, n, ctld_now(ctld));

    for (size_t i = 0; i < n; i++)
        json_array_append_new(list, row_json(&rows[i], i == 0, &m[i]));
    free(m);
    if (proto_respond(req,
                      json_pack("{s:b s:o}", "fair_tree",
                                !(ctld->priority->conf.flags
                                  & PRIO_FLAG_NO_FAIR_TREE),
                                "rows", list))
        < 0)
        log_err("share_info: responding");
}

/* --- job_top ------------------------------------------------------------- */

static bool same_str(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

/* Is 'j' in the set scontrol top reorders around 'top': pending, not held,
 * same user, partition, account and QOS (Slurm's _top_job). */
static bool top_peer(const struct job *j, const struct job *top)
{
    return j->state == JOB_PENDING && j->priority > 0 && j->uid == top->uid
           && same_str(j->partition, top->partition)
           && same_str(j->account, top->account)
           && same_str(j->qos, top->qos);
}

static int by_priority_desc(const void *a, const void *b)
{
    const struct job *x = *(struct job *const *)a;
    const struct job *y = *(struct job *const *)b;

    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int desc_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x > y ? -1 : x < y;
}

/* The set's priorities, highest first, go to the listed jobs in their
 * order, then to the others in their order; each change is a
 * job_updated event with Priority= (kept from then on). */
static void top_reorder(struct ctld *ctld, struct job **set, size_t n,
                        size_t nlisted, time_t now)
{
    uint32_t *prio = xzalloc((n + 1) * sizeof(*prio));

    for (size_t i = 0; i < n; i++)
        prio[i] = set[i]->priority;
    qsort(prio, n, sizeof(*prio), desc_u32);
    qsort(set + nlisted, n - nlisted, sizeof(*set), by_priority_desc);
    for (size_t i = 0; i < n; i++) {
        struct job_update u = {.any = true, .has_priority = true,
                               .priority = prio[i]};
        struct ctld_event ev = {.type = CTLD_EV_JOB_UPDATED, .t = now,
                                .job_id = set[i]->id, .update = &u};
        if (set[i]->priority != prio[i] || !set[i]->priority_set)
            ctld_apply(ctld, &ev);
    }
    free(prio);
}

static void rpc_job_top(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *ids = json_object_get(proto_req_body(req), "job_ids"), *v;
    size_t cap = HASH_COUNT(ctld->jobs) + 1, n = 0, nlisted = 0, i;
    struct job **set, *top = NULL, *job, *tmp;
    int errnum = 0;

    bool privileged = proto_req_roles(req)
                      & (PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN);

    /* Slurm: operators, or with SchedulerParameters=enable_user_top the
     * jobs' owner. */
    if (!privileged && !ctld->conf->sched.enable_user_top) {
        if (proto_respond_error(req, EDRV_ACCESS_DENIED, NULL) < 0)
            log_err("job_top: responding");
        return;
    }
    set = xzalloc(cap * sizeof(*set));
    json_array_foreach(ids, i, v) {
        job = ctld_job_find(ctld, (uint32_t)json_integer_value(v));
        if (!job)
            errnum = EDRV_INVALID_JOB_ID;
        else if (!privileged && job->uid != proto_req_uid(req))
            errnum = EDRV_ACCESS_DENIED;
        else if (job->state != JOB_PENDING || !job->priority)
            errnum = EDRV_JOB_NOT_PENDING;
        else if (top && !top_peer(job, top))
            errnum = EDRV_ACCESS_DENIED; /* one user's jobs of one set */
        if (errnum)
            break;
        if (!top)
            top = job;
        bool seen = false;
        for (size_t k = 0; k < nlisted; k++)
            seen = seen || set[k] == job;
        if (!seen)
            set[nlisted++] = job;
    }
    if (errnum) {
        free(set);
        if (proto_respond_error(req, errnum, NULL) < 0)
            log_err("job_top: responding");
        return;
    }
    n = nlisted;
    HASH_ITER(hh, ctld->jobs, job, tmp) {
        bool listed = false;
        for (size_t k = 0; k < nlisted; k++)
            listed = listed || set[k] == job;
        if (!listed && top_peer(job, top))
            set[n++] = job;
    }
    top_reorder(ctld, set, n, nlisted, ctld_now(ctld));
    free(set);
    ctld_respond_durable(ctld, req, NULL);
    scheduler_request(ctld);
}

const struct proto_handler rpc_priority_handlers[] = {
    {"job_top", rpc_job_top, PROTO_ROLE_USER},
    {"priority_info", rpc_priority_info, PROTO_ROLE_USER},
    {"share_info", rpc_share_info, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
