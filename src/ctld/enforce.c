/* SPDX-License-Identifier: Apache-2.0
 *
 * enforce.c - AccountingStorageEnforce: tables from droverdbd (polled,
 * cached on disk), the submit check and the scheduling gate (enforce.h)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/enforce.h"
#include "ctld/event.h"
#include "ctld/job_info.h"
#include "ctld/priority.h"
#include "proto/client.h"
#include "sched/limits.h"

#define CACHE_NAME "assoc_cache.json"

struct enforce {
    unsigned flags;         /* enum limits_enforce */
    limits_table_t *table;  /* NULL until droverdbd or the cache gave one */
    json_t *listing;        /* the acct_assoc_list answer 'table' came
                             * from (scontrol show assoc_mgr) */
    char *cache_path;
    char *host;
    char *cluster;          /* ClusterName=, NULL: any */
    uint16_t port;
    uv_timer_t poll;
    bool in_flight;         /* an acct_assoc_list call is under way */
    bool usage_fresh;       /* usage counts the current jobs */
    bool ended_since;       /* a job ended since the usage was counted
                             * (enforce_event) */
    bool unreachable;       /* last poll failed (logged once) */
};

/* The job as the limits see it.  'alloc': its allocation's TRES when it
 * has one, else its request. */
static struct limits_job limits_job_of(const struct job *job, bool alloc)
{
    uint32_t gpus, cpus;
    uint64_t mem;

    cpus = alloc ? job_info_cpus(job, &gpus, &mem)
                 : job_info_req_cpus(job, &gpus, &mem);
    return (struct limits_job){
        .user = job->user_name ? job->user_name : "",
        .account = job->account,
        .partition = job->partition,
        .qos = job->qos ? job->qos : "normal",
        .tres = { .v = {
            [TRES_CPU] = cpus, [TRES_MEM] = (int64_t)mem,
            [TRES_NODE] = alloc && job->alloc ? job->alloc->node_count
                          : job->req.min_nodes ? job->req.min_nodes : 1,
            [TRES_GPU] = gpus } },
        .time_limit_min = job->time_limit_s == TIME_INFINITE
                              ? -1 : (job->time_limit_s + 59) / 60,
    };
}

/* Usage from the job table: one pass over the jobs. */
static void usage_recompute(struct ctld *ctld, struct enforce *e)
{
    struct job *job, *tmp;

    limits_usage_clear(e->table);
    HASH_ITER(hh, ctld->jobs, job, tmp) {
        if (job->alloc) {
            struct limits_job lj = limits_job_of(job, true);
            limits_usage_add(e->table, &lj, LIMITS_USE_RUNNING, 1);
        } else if (job->state == JOB_PENDING) {
            struct limits_job lj = limits_job_of(job, false);
            limits_usage_add(e->table, &lj, LIMITS_USE_PENDING,
                             array_jobs_of(job));
        }
    }
    e->usage_fresh = true;
    e->ended_since = false;
}

/* A new table: keep it, save it, and let pending jobs be judged again. */
static void table_replace(struct ctld *ctld, struct enforce *e,
                          limits_table_t *t, json_t *listing)
{
    limits_table_destroy(e->table);
    e->table = t;
    json_decref(e->listing);
    e->listing = json_incref(listing);
    e->usage_fresh = false;
    log_info("accounting: associations and QOS version %lld",
             (long long)limits_table_version(t));
    scheduler_request(ctld);
    priority_calc_soon(ctld); /* shares and QOS priorities may differ */
}

static void cache_save(struct enforce *e, json_t *body)
{
    char *tmp = xasprintf("%s.new", e->cache_path);

    if (json_dump_file(body, tmp, JSON_COMPACT) < 0
        || rename(tmp, e->cache_path) < 0) {
        log_err("accounting: saving %s", e->cache_path);
        unlink(tmp);
    }
    free(tmp);
}

static void cache_load(struct ctld *ctld, struct enforce *e)
{
    json_error_t jerr;
    json_t *body;
    drv_error_t error = {{0}};
    limits_table_t *t;

    if (access(e->cache_path, F_OK) < 0)
        return;
    if (!(body = json_load_file(e->cache_path, 0, &jerr))) {
        log_error("accounting: %s: %s; ignored", e->cache_path, jerr.text);
        return;
    }
    if (!(t = limits_table_parse(body, e->cluster, &error)))
        log_error("accounting: %s: %s; ignored", e->cache_path, error.text);
    else
        table_replace(ctld, e, t, body);
    json_decref(body);
}

static void poll_done(int errnum, const char *errstr, json_t *resp, void *arg)
{
    struct ctld *ctld = arg;
    struct enforce *e = ctld->enforce;
    drv_error_t error = {{0}};
    limits_table_t *t;

    e->in_flight = false;
    if (errnum) {
        if (!e->unreachable)
            log_error("accounting: acct_assoc_list: %s%s", errstr,
                      e->table ? "; enforcing the last copy" : "");
        e->unreachable = true;
        return;
    }
    if (e->unreachable)
        log_info("accounting: droverdbd answers again");
    e->unreachable = false;
    if (json_is_true(json_object_get(resp, "unchanged")))
        return;
    if (!(t = limits_table_parse(resp, e->cluster, &error))) {
        log_error("accounting: acct_assoc_list answer: %s; ignored",
                  error.text);
        return;
    }
    cache_save(e, resp);
    table_replace(ctld, e, t, resp);
}

static void poll_cb(uv_timer_t *h)
{
    struct ctld *ctld = h->data;
    struct enforce *e = ctld->enforce;
    json_t *body = json_object();

    if (e->in_flight)
        return;
    if (e->cluster) { /* and register it, as slurmctld's contact does */
        json_object_set_new(body, "cluster", json_string(e->cluster));
        json_object_set_new(body, "register", json_true());
    }
    if (e->table)
        json_object_set_new(body, "if_changed_since",
                            json_integer(limits_table_version(e->table)));
    if (proto_call_async(ctld->loop, e->host, e->port, ctld->auth,
                         "acct_assoc_list", body,
                         (int)ctld->conf->msg_timeout_s * 1000, poll_done,
                         ctld)
        < 0) {
        log_err("accounting: acct_assoc_list");
        return;
    }
    e->in_flight = true;
}

int enforce_init(struct ctld *ctld, drv_error_t *error)
{
    const struct slurm_conf *c = ctld->conf;
    unsigned flags = c->accounting_storage_enforce
                     & (CONF_ENFORCE_ASSOCS | CONF_ENFORCE_LIMITS
                        | CONF_ENFORCE_QOS);
    struct enforce *e;

    (void)error;
    /* With droverdbd, always: the cluster registers (its root
     * association, as slurmctld's first contact makes it) and jobs get
     * their user's default account and QOS, enforced or not. */
    if (!flags
        && !(c->accounting_storage_type
             && strstr(c->accounting_storage_type, "slurmdbd")))
        return 0;
    e = ctld->enforce = xzalloc(sizeof(*e));
    e->flags = flags; /* the same bits as enum limits_enforce */
    e->cache_path = xasprintf("%s/" CACHE_NAME, c->state_save_location);
    e->host = xstrdup(c->accounting_storage_host ? c->accounting_storage_host
                      : c->ctld_addr                ? c->ctld_addr
                                                    : "localhost");
    e->port = c->accounting_storage_port;
    e->cluster = c->cluster_name ? xstrdup(c->cluster_name) : NULL;
    cache_load(ctld, e);
    uv_timer_init(ctld->loop, &e->poll);
    e->poll.data = ctld;
    uv_timer_start(&e->poll, poll_cb, 0, ENFORCE_POLL_MS);
    return 0;
}

const limits_table_t *enforce_table(const struct ctld *ctld)
{
    return ctld->enforce ? ctld->enforce->table : NULL;
}

const json_t *enforce_listing(const struct ctld *ctld)
{
    return ctld->enforce && ctld->enforce->table ? ctld->enforce->listing
                                                 : NULL;
}

void enforce_fini(struct ctld *ctld)
{
    struct enforce *e = ctld->enforce;

    if (!e)
        return;
    limits_table_destroy(e->table);
    json_decref(e->listing);
    free(e->cache_path);
    free(e->host);
    free(e->cluster);
    free(e);
    ctld->enforce = NULL;
}

/* Without AccountingStorageEnforce: a job with no account gets its user's
 * default one and the association's default QOS, as Slurm's assoc_mgr
 * fills them in; a user without an association keeps what was given. */
static int defaults_only(struct enforce *e, struct job *job)
{
    struct limits_resolved r;
    drv_error_t ignored = {{0}};

    if (limits_resolve(e->table, job->user_name, job->account,
                       job->partition, job->qos, 0, &r, &ignored) < 0)
        return 0;
    if (r.account && !job->account)
        job_set_str(&job->account, r.account);
    if (r.qos && !job->qos)
        job_set_str(&job->qos, r.qos);
    return 0;
}

int enforce_submit(struct ctld *ctld, struct job *job, drv_error_t *error)
{
    struct enforce *e = ctld->enforce;
    struct limits_resolved r;
    struct limits_job lj;
    int64_t wall;
    int rc;

    if (!e || (!e->table && !e->flags))
        return 0;
    if (!e->flags) /* nothing enforced: the defaults only */
        return defaults_only(e, job);
    if (!e->table) {
        errno = EDRV_INVALID_ACCOUNT;
        return errprintf(error, "no association data from droverdbd yet");
    }
    if (limits_resolve(e->table, job->user_name, job->account, job->partition,
                       job->qos, e->flags, &r, error) < 0)
        return -1;
    if (r.account && (!job->account || strcmp(job->account, r.account))) {
        job_set_str(&job->account, r.account);
    }
    if (r.qos && (!job->qos || strcmp(job->qos, r.qos))) {
        job_set_str(&job->qos, r.qos);
    }
    lj = limits_job_of(job, false);
    if (job->time_limit_s == TIME_INFINITE
        && (wall = limits_max_wall_min(e->table, &lj, e->flags)) >= 0)
        job->time_limit_s = wall * 60; /* Slurm: the limit becomes the job's */
    if (!e->usage_fresh)
        usage_recompute(ctld, e);
    /* The usage is counted at each pass and grows with each submission;
     * jobs that ended since are taken off only when a limit would refuse
     * (a count costs a pass over the jobs). */
    rc = limits_check_submit(e->table, &lj, array_jobs_of(job), e->flags,
                             error);
    if (rc < 0 && e->ended_since) {
        usage_recompute(ctld, e);
        rc = limits_check_submit(e->table, &lj, array_jobs_of(job), e->flags,
                                 error);
    }
    if (rc < 0) {
        log_info("_job_create: exceeded association/QOS limit for user %lu: "
                 "%s", (unsigned long)job->uid, error->text);
        errno = EDRV_ACCOUNTING_POLICY;
        return -1;
    }
    return 0;
}

void enforce_event(struct ctld *ctld, const struct ctld_event *ev)
{
    struct enforce *e = ctld->enforce;

    if (e && (ev->type == CTLD_EV_JOB_ENDED
              || ev->type == CTLD_EV_JOB_CANCELLED
              || ev->type == CTLD_EV_JOB_PREEMPTED))
        e->ended_since = true;
}

void enforce_job_added(struct ctld *ctld, const struct job *job)
{
    struct enforce *e = ctld->enforce;
    struct limits_job lj;

    if (!e || !e->table || !e->usage_fresh)
        return;
    lj = limits_job_of(job, false);
    limits_usage_add(e->table, &lj, LIMITS_USE_PENDING, array_jobs_of(job));
}

bool enforce_pass_begin(struct ctld *ctld, struct enforce_pass *p,
                        struct job **pend, size_t np)
{
    struct enforce *e = ctld->enforce;

    *p = (struct enforce_pass){ .ctld = ctld, .pend = pend };
    if (!e || !e->table || !e->flags)
        return false;
    usage_recompute(ctld, e);
    p->held = xzalloc(sizeof(*p->held) * (np + 1));
    return true;
}

bool enforce_admit(void *arg, size_t i)
{
    struct enforce_pass *p = arg;
    struct enforce *e = p->ctld->enforce;
    struct limits_job lj = limits_job_of(p->pend[i], false);
    enum limits_reason r = limits_check_start(e->table, &lj, e->flags);

    if (r == LIMITS_OK)
        return true;
    p->held[i] = JOB_REASON_OF_LIMIT(r);
    return false;
}

void enforce_started(void *arg, size_t i)
{
    struct enforce_pass *p = arg;
    struct enforce *e = p->ctld->enforce;
    struct limits_job lj = limits_job_of(p->pend[i], false);

    limits_usage_add(e->table, &lj, LIMITS_USE_START, 1);
}

void enforce_pass_end(struct enforce_pass *p)
{
    free(p->held);
    p->held = NULL;
}
