/* SPDX-License-Identifier: Apache-2.0
 *
 * priority.c - job priorities, fair-share usage and its calculation
 * (priority.h)
 */
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/enforce.h"
#include "ctld/event.h"
#include "ctld/job_info.h"
#include "ctld/priority.h"
#include "ctld/stats.h"
#include "ctld/priority_private.h"

/* The calculation after the accounting tables changed waits this long,
 * so a burst of sacctmgr changes costs one. */
#define CALC_SOON_MS 1000

static struct prio_usage *usage_find_in(struct prio_usage *hash,
                                        const char *account, const char *user)
{
    char *key = xasprintf("%s\x1f%s", account, user);
    struct prio_usage *u = NULL;

    HASH_FIND_STR(hash, key, u);
    free(key);
    return u;
}

static struct prio_usage *usage_find(const struct ctld_priority *p,
                                     const char *account, const char *user)
{
    return usage_find_in(p->usage, account, user);
}

static struct prio_usage *usage_get_in(struct prio_usage **hash,
                                       const char *account, const char *user)
{
    struct prio_usage *u = usage_find_in(*hash, account, user);

    if (u)
        return u;
    u = xzalloc(sizeof(*u));
    u->key = xasprintf("%s\x1f%s", account, user);
    u->account = xstrdup(account);
    u->user = xstrdup(user);
    HASH_ADD_KEYPTR(hh, *hash, u->key, strlen(u->key), u);
    return u;
}

static struct prio_usage *usage_get(struct ctld_priority *p,
                                    const char *account, const char *user)
{
    return usage_get_in(&p->usage, account, user);
}

static void usage_clear_in(struct prio_usage **hash)
{
    struct prio_usage *u, *tmp;

    HASH_ITER(hh, *hash, u, tmp) {
        HASH_DEL(*hash, u);
        free(u->key);
        free(u->account);
        free(u->user);
        free(u);
    }
}

static void usage_clear(struct ctld_priority *p)
{
    usage_clear_in(&p->usage);
    usage_clear_in(&p->qos_usage);
}

static void usage_decay(struct prio_usage *hash, double f)
{
    struct prio_usage *u, *tmp;

    HASH_ITER(hh, hash, u, tmp) {
        u->raw *= f;
        u->wall *= f;
        for (int k = 0; k < PRIO_USE_TRES; k++)
            u->tres[k] *= f;
    }
}

static void calc_timer_cb(uv_timer_t *h);

void priority_init(struct ctld *ctld)
{
    struct ctld_priority *p = ctld->priority = xzalloc(sizeof(*p));
    const struct node_table *nt = ctld->nodes;

    conf_priority_sched(&ctld->conf->priority, &p->conf);
    for (size_t i = 0; i < nt->count; i++) {
        p->cluster_cpus += nt->sched[i].cpus;
        p->cluster_mem_mib += nt->sched[i].mem_mib;
        p->cluster_gpus += nt->sched[i].gpus;
    }
    p->cluster_nodes = (uint32_t)nt->count;
    priority_parts_changed(ctld);
    p->table_version = -1;
}

void priority_parts_changed(struct ctld *ctld)
{
    struct ctld_priority *p = ctld->priority;
    const struct node_table *nt = ctld->nodes;

    if (!p)
        return;
    p->part_prio_max = 0;
    for (size_t i = 0; i < nt->part_count; i++)
        if (nt->parts[i].conf->priority_job_factor > p->part_prio_max)
            p->part_prio_max = nt->parts[i].conf->priority_job_factor;
}

void priority_fini(struct ctld *ctld)
{
    struct ctld_priority *p = ctld ? ctld->priority : NULL;

    if (!p)
        return;
    usage_clear(p);
    fs_tree_destroy(p->tree);
    free(p); /* its timer was closed with the loop's handles */
    ctld->priority = NULL;
}

/* --- the calculation event ---------------------------------------------- */

/* Is a PriorityUsageResetPeriod boundary in (from, to]?  Local time, as
 * Slurm: days at midnight, weeks on Sunday, months, quarters and years on
 * their first day. */
static bool reset_due(uint32_t period, time_t from, time_t to)
{
    struct tm tm;
    time_t boundary;

    if (period <= CONF_RESET_NOW || from <= 0 || to <= from)
        return false;
    localtime_r(&to, &tm);
    tm.tm_sec = tm.tm_min = tm.tm_hour = 0;
    tm.tm_isdst = -1;
    if (period == CONF_RESET_WEEKLY)
        tm.tm_mday -= tm.tm_wday;
    if (period >= CONF_RESET_MONTHLY)
        tm.tm_mday = 1;
    if (period == CONF_RESET_QUARTERLY)
        tm.tm_mon -= tm.tm_mon % 3;
    if (period == CONF_RESET_YEARLY)
        tm.tm_mon = 0;
    boundary = mktime(&tm);
    return boundary > from && boundary <= to;
}

static void calc_now(struct ctld *ctld, bool reset)
{
    struct ctld_event ev = { .type = CTLD_EV_PRIORITY_CALC,
                             .t = ctld_now(ctld) };
    struct ctld_priority *p = ctld->priority;

    ev.reset = reset
               || reset_due(ctld->conf->priority.usage_reset, p->last_calc,
                            ev.t);
    ctld_apply(ctld, &ev);
}

static void calc_timer_cb(uv_timer_t *h)
{
    uint64_t began = uv_hrtime();

    calc_now(h->data, false);
    stats_turn_part(h->data, "priority calculation", began);
}

void priority_start(struct ctld *ctld)
{
    struct ctld_priority *p = ctld->priority;
    uint64_t period_ms = (uint64_t)p->conf.calc_period_s * 1000;

    if (!p->conf.multifactor)
        return;
    uv_timer_init(ctld->loop, &p->timer);
    p->timer.data = ctld;
    p->timer_on = true;
    if (ctld->conf->priority.usage_reset == CONF_RESET_NOW)
        calc_now(ctld, true);
    uv_timer_start(&p->timer, calc_timer_cb, period_ms, period_ms);
}

void priority_calc_soon(struct ctld *ctld)
{
    struct ctld_priority *p = ctld->priority;
    uint64_t period_ms;

    if (!p || !p->timer_on || ctld->replaying)
        return;
    period_ms = (uint64_t)p->conf.calc_period_s * 1000;
    uv_timer_start(&p->timer, calc_timer_cb,
                   period_ms < CALC_SOON_MS ? period_ms : CALC_SOON_MS,
                   period_ms);
}

/* Add a run of 'secs' seconds times 'factor' to 'u'. */
static void usage_add(struct prio_usage *u, uint32_t cpus, uint64_t mem,
                      uint32_t nodes, uint32_t gpus, time_t from, time_t to,
                      double factor)
{
    u->raw += prio_charge(cpus, from, to, factor);
    u->tres[PRIO_USE_CPU] += prio_charge(cpus, from, to, factor);
    u->tres[PRIO_USE_MEM] += (double)mem * (double)(to - from) * factor;
    u->tres[PRIO_USE_NODE] += prio_charge(nodes, from, to, factor);
    u->tres[PRIO_USE_GPU] += prio_charge(gpus, from, to, factor);
    u->wall += prio_charge(1, from, to, factor);
}

/* Charge 'job''s association and QOS for its run in [from, to). */
static void charge(struct ctld *ctld, const struct job *job, time_t from,
                   time_t to)
{
    struct ctld_priority *p = ctld->priority;
    const limits_table_t *t = enforce_table(ctld);
    const char *qos = job->qos ? job->qos : "normal";
    double factor = t ? limits_qos_usage_factor(t, qos) : 1.0;
    uint64_t mem;
    uint32_t gpus, cpus, nodes;

    if (!job->alloc || to <= from)
        return;
    cpus = job_info_cpus(job, &gpus, &mem);
    nodes = job->alloc->node_count;
    usage_add(usage_get(p, job->account ? job->account : "",
                        job->user_name ? job->user_name : ""),
              cpus, mem, nodes, gpus, from, to, factor);
    usage_add(usage_get_in(&p->qos_usage, qos, ""), cpus, mem, nodes, gpus,
              from, to, factor);
    p->tree_dirty = true;
}

/* Where 'job''s uncharged run began: its start, the last calculation or
 * its resumption, the latest. */
static time_t charged_until(const struct ctld_priority *p,
                            const struct job *job)
{
    return (time_t)prio_charged_from(job->start_time, p->last_calc,
                                     job->suspend_time);
}

void priority_job_leaves(struct ctld *ctld, const struct job *job, time_t t)
{
    struct ctld_priority *p = ctld->priority;

    /* a suspended job ran nothing since its suspension was charged */
    if (!p->conf.multifactor || !job->start_time
        || job->state == JOB_SUSPENDED)
        return;
    charge(ctld, job, charged_until(p, job), t);
}

static void recompute(struct ctld *ctld, time_t t)
{
    bool running = ctld->priority->conf.flags & PRIO_FLAG_CALCULATE_RUNNING;
    bool incr = ctld->priority->conf.flags & PRIO_FLAG_INCR_ONLY;
    struct job *job, *tmp;

    HASH_ITER(hh, ctld->jobs, job, tmp) {
        uint32_t prio;
        if (job->priority == 0 || job->priority_set
            || !(job->state == JOB_PENDING
                 || (running && job->state == JOB_RUNNING)))
            continue;
        prio = priority_of(ctld, job, t);
        if (!incr || prio > job->priority)
            job->priority = prio;
    }
}

void priority_calc_apply(struct ctld *ctld, time_t t, bool reset)
{
    struct ctld_priority *p = ctld->priority;
    struct job *job, *jtmp;

    if (p->last_calc && t > p->last_calc) {
        double f = prio_calc_decay(&p->conf, p->last_calc, t);
        usage_decay(p->usage, f);
        usage_decay(p->qos_usage, f);
    }
    if (reset) {
        usage_clear(p);
        log_info("priority: usage cleared (PriorityUsageResetPeriod)");
    }
    HASH_ITER(hh, ctld->jobs, job, jtmp) {
        if (job->alloc && job->start_time && job->state == JOB_RUNNING)
            charge(ctld, job, charged_until(p, job), t);
    }
    p->last_calc = t;
    p->tree_dirty = true;
    recompute(ctld, t);
}

/* --- factors ------------------------------------------------------------- */

static void add_assoc(void *arg, const struct limits_assoc_info *a)
{
    struct ctld_priority *p = arg;
    struct prio_usage *u = *a->user ? usage_find(p, a->account, a->user)
                                    : NULL;

    if (p->nin == p->in_cap) {
        p->in_cap = p->in_cap ? 2 * p->in_cap : 32;
        p->in = xrealloc(p->in, p->in_cap * sizeof(*p->in));
    }
    p->in[p->nin++] = (struct fs_assoc){
        .account = a->account, .user = a->user,
        .parent_account = a->parent_account, .shares = a->shares,
        .usage = u ? u->raw : 0,
    };
}

const fs_tree_t *priority_tree(struct ctld *ctld)
{
    struct ctld_priority *p = ctld->priority;
    const limits_table_t *t = enforce_table(ctld);
    int64_t version = t ? limits_table_version(t) : -1;

    if (p->tree && !p->tree_dirty && version == p->table_version)
        return p->tree;
    fs_tree_destroy(p->tree);
    p->nin = 0;
    if (t)
        limits_assoc_each(t, add_assoc, p);
    p->tree = fs_tree_build(p->in, p->nin,
                            p->conf.flags & PRIO_FLAG_NO_FAIR_TREE
                                ? FS_CLASSIC : FS_FAIR_TREE);
    free(p->in);
    p->in = NULL;
    p->nin = p->in_cap = 0;
    p->tree_dirty = false;
    p->table_version = version;
    p->qos_prio_max = t ? limits_qos_priority_max(t) : 0;
    p->assoc_prio_max = t ? limits_assoc_priority_max(t) : 0;
    return p->tree;
}

/* When 'job' began to accrue age (0: not yet): eligible, not held, no
 * dependency waiting; from submission with ACCRUE_ALWAYS. */
static time_t age_start(const struct ctld_priority *p, const struct job *job)
{
    if (p->conf.flags & PRIO_FLAG_ACCRUE_ALWAYS)
        return job->submit_time;
    if (job->hold || job->reason == JOB_REASON_DEPENDENCY
        || job->reason == JOB_REASON_DEP_NEVER)
        return 0;
    return job->eligible_time > job->submit_time ? job->eligible_time
                                                 : job->submit_time;
}

void priority_factors(struct ctld *ctld, const struct job *job, time_t now,
                      struct prio_factors *out)
{
    struct ctld_priority *p = ctld->priority;
    const limits_table_t *t = enforce_table(ctld);
    struct ctld_partition *part = node_table_partition(ctld->nodes,
                                                       job->partition);
    const char *qos = job->qos ? job->qos : "normal";
    const fs_tree_t *tree = priority_tree(ctld); /* also the maxima */
    uint64_t mem = 0;
    uint32_t gpus = 0, cpus = job_info_req_cpus(job, &gpus, &mem);
    struct prio_job pj = {
        .age_start = age_start(p, job), .nice = job->nice,
        .nodes = job->req.min_nodes, .cpus = cpus, .mem_mib = mem,
        .gpus = gpus, .time_limit_s = job->time_limit_s == TIME_INFINITE
                                          ? -1 : job->time_limit_s,
        .fairshare = fs_tree_factor(tree, job->account, job->user_name),
        .part_prio = part ? part->conf->priority_job_factor : 0,
        .part_prio_max = p->part_prio_max,
        .qos_prio = t ? limits_qos_priority(t, qos) : 0,
        .qos_prio_max = p->qos_prio_max,
        .assoc_prio = t ? limits_assoc_priority(t, job->user_name,
                                                job->account, job->partition)
                        : 0,
        .assoc_prio_max = p->assoc_prio_max,
        .cluster_nodes = p->cluster_nodes, .cluster_cpus = p->cluster_cpus,
        .cluster_mem_mib = p->cluster_mem_mib,
        .cluster_gpus = p->cluster_gpus,
    };

    prio_factors(&p->conf, &pj, now, out);
}

uint32_t priority_of(struct ctld *ctld, const struct job *job, time_t now)
{
    struct prio_factors f;

    if (!ctld->priority->conf.multifactor)
        return ctld_job_base_priority(job);
    priority_factors(ctld, job, now, &f);
    return prio_total(&ctld->priority->conf, &f);
}

uint64_t priority_class(struct ctld *ctld, const struct job *job)
{
    uint64_t tier = ctld->nodes->part_count > 1 ? ctld_job_tier(ctld, job)
                                                : 0;
    uint64_t prio = job->priority;

    if (!ctld->priority->conf.multifactor)
        prio += job->id; /* the submission order taken out */
    return tier << 34 | prio;
}

time_t priority_time(const struct ctld *ctld, time_t submit)
{
    time_t calc = ctld->priority->last_calc;

    return calc > submit ? calc : submit;
}

/* --- snapshot ------------------------------------------------------------ */

/* One usage record; "tres" and "wall" were added with scontrol show
 * assoc_mgr (older snapshots lack them: zero). */
static json_t *usage_json(const struct prio_usage *u)
{
    return json_pack("{s:s s:s s:f s:[f f f f] s:f}", "account", u->account,
                     "user", u->user, "raw", u->raw, "tres",
                     u->tres[PRIO_USE_CPU], u->tres[PRIO_USE_MEM],
                     u->tres[PRIO_USE_NODE], u->tres[PRIO_USE_GPU], "wall",
                     u->wall);
}

static void usage_from_json(struct prio_usage **hash, json_t *v)
{
    const char *a = json_string_value(json_object_get(v, "account"));
    const char *name = json_string_value(json_object_get(v, "user"));
    json_t *raw = json_object_get(v, "raw");
    json_t *tres = json_object_get(v, "tres");
    struct prio_usage *u;

    if (!a || !name || !json_is_number(raw))
        return;
    u = usage_get_in(hash, a, name);
    u->raw = json_number_value(raw);
    u->wall = json_number_value(json_object_get(v, "wall"));
    for (int k = 0; k < PRIO_USE_TRES; k++)
        u->tres[k] = json_number_value(json_array_get(tres, (size_t)k));
}

json_t *priority_snapshot(const struct ctld *ctld)
{
    const struct ctld_priority *p = ctld->priority;
    json_t *list = json_array(), *qos = json_array();
    struct prio_usage *u, *tmp;

    HASH_ITER(hh, p->usage, u, tmp)
        json_array_append_new(list, usage_json(u));
    HASH_ITER(hh, p->qos_usage, u, tmp)
        json_array_append_new(qos, usage_json(u));
    return json_pack("{s:I s:o s:o}", "last_calc", (json_int_t)p->last_calc,
                     "usage", list, "qos_usage", qos);
}

void priority_restore(struct ctld *ctld, json_t *o)
{
    struct ctld_priority *p = ctld->priority;
    json_t *v;
    size_t i;

    if (!json_is_object(o))
        return;
    usage_clear(p);
    p->last_calc = (time_t)json_integer_value(json_object_get(o, "last_calc"));
    json_array_foreach(json_object_get(o, "usage"), i, v)
        usage_from_json(&p->usage, v);
    json_array_foreach(json_object_get(o, "qos_usage"), i, v)
        usage_from_json(&p->qos_usage, v);
    p->tree_dirty = true;
}

void priority_reconfigure(struct ctld *ctld)
{
    struct ctld_priority *p = ctld->priority;

    if (!p)
        return;
    conf_priority_sched(&ctld->conf->priority, &p->conf);
    priority_calc_soon(ctld);
}
