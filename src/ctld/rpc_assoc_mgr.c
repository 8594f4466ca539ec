/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_assoc_mgr.c - assoc_mgr_info (scontrol show assoc_mgr): the
 * associations, QOS and users the controller holds (enforce.h), each
 * with what its jobs use now (counted from the job table) and have used
 * (the decayed usage of priority.h), chosen as Slurm's
 * assoc_mgr_info_get_pack_msg() chooses them: users= keeps the named
 * users' associations and every account's, accounts= the named accounts',
 * qos= the named QOS; PrivateData=usage shows others only their own user
 * associations, PrivateData=users only their own user record.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uthash.h>

#include "common/ident.h"
#include "common/log.h"
#include "common/sizefmt.h"
#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/enforce.h"
#include "ctld/job_info.h"
#include "ctld/priority_private.h"

/* Slurm's ASSOC_MGR_INFO_FLAG_*: what the request wants. */
enum { AM_ASSOC = 1, AM_USERS = 2, AM_QOS = 4 };

/* Slurm's INFINITE minutes, the time left of a job without a limit (as
 * sshare's TRESRunMins). */
#define INFINITE_MIN 4294967295.0

/* The TRES Slurm's controller always tracks, in its order (ids 1-8); the
 * AccountingStorageTRES= ones follow.  'use': the index of
 * enum prio_use_tres a TRES is counted with, -1 none (billing is the
 * CPUs, as without TRESBillingWeights). */
static const struct {
    const char *name;
    int use;
} base_tres[] = {
    {"cpu", PRIO_USE_CPU}, {"mem", PRIO_USE_MEM},  {"energy", -1},
    {"node", PRIO_USE_NODE}, {"billing", PRIO_USE_CPU}, {"fs/disk", -1},
    {"vmem", -1},          {"pages", -1},
};
#define BASE_TRES (sizeof(base_tres) / sizeof(base_tres[0]))

struct am_tres {
    size_t n;
    char **names;
    int *use;
};

/* What jobs use now. */
struct am_use {
    uint64_t jobs;   /* running (Slurm's used_jobs) */
    uint64_t accrue; /* pending and accruing age (accrue_cnt) */
    uint64_t submit; /* pending and running (used_submit_jobs) */
    double tres[PRIO_USE_TRES];     /* running jobs' TRES */
    double run_secs[PRIO_USE_TRES]; /* their TRES times time left */
};

/* What was used, decayed (priority.h's usage). */
struct am_hist {
    double raw, tres[PRIO_USE_TRES], wall;
};

struct am_assoc {
    json_t *row; /* the listing's, borrowed */
    const char *account, *user, *partition;
    char *key;                 /* user \x1f account \x1f partition */
    char *ukey;                /* user \x1f account: the first such */
    struct am_assoc *parent;   /* the parent account's association */
    uint32_t child_shares;     /* its children's raw shares */
    uint32_t size;             /* associations in its subtree */
    uint32_t lft, next_lft;    /* Slurm's nested-set left; its next child's */
    bool is_def;
    struct am_use use;
    struct am_hist hist;
    UT_hash_handle hh, hh_u;
};

/* One user's or account's jobs under a QOS (Slurm's used limits). */
struct am_lim {
    char *name;
    int64_t uid;
    struct am_use use;
    UT_hash_handle hh;
};

struct am_qos {
    json_t *row;
    const char *name;
    struct am_use use;
    struct am_hist hist;
    struct am_lim *users, *accounts;
    UT_hash_handle hh;
};

/* A user of the listing, by name (its uid for UserName=NAME(UID)). */
struct am_user {
    const char *name;
    int64_t uid;
    UT_hash_handle hh;
};

struct am {
    struct ctld *ctld;
    time_t now;
    struct am_tres tres;
    struct am_assoc *assocs; /* listing order */
    size_t nassoc;
    struct am_assoc *by_key, *by_ukey;
    struct am_qos *qos;      /* listing order */
    size_t nqos;
    struct am_qos *qos_by_name;
    struct am_user *user_rows; /* listing order */
    struct am_user *users;     /* by name */
    size_t nusers;
};

/* --- TRES ---------------------------------------------------------------- */

static void tres_add(struct am_tres *t, const char *name, int use)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcasecmp(t->names[i], name))
            return;
    t->names = xrealloc(t->names, (t->n + 1) * sizeof(*t->names));
    t->use = xrealloc(t->use, (t->n + 1) * sizeof(*t->use));
    t->names[t->n] = xstrdup(name);
    t->use[t->n++] = use;
}

static void tres_init(struct am_tres *t, const char *storage_tres)
{
    char *copy = xstrdup(storage_tres ? storage_tres : ""), *tok, *save;

    for (size_t i = 0; i < BASE_TRES; i++)
        tres_add(t, base_tres[i].name, base_tres[i].use);
    for (tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save))
        tres_add(t, tok, !strcasecmp(tok, "gres/gpu") ? PRIO_USE_GPU : -1);
    free(copy);
}

static void tres_fini(struct am_tres *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->names[i]);
    free(t->names);
    free(t->use);
}

/* A limit string of the listing ("cpu=8,mem=16G,gres/gpu=2"; "" none) as
 * one number per TRES, -1 where none is set: Slurm's *_tres_ctld arrays
 * (memory in MiB).  An entry naming no TRES here is left out. */
static json_t *tres_limits(const struct am_tres *t, const char *spec)
{
    json_t *out = json_array();
    int64_t *v = xzalloc((t->n + 1) * sizeof(*v));
    char *copy = xstrdup(spec ? spec : ""), *tok, *save;

    for (size_t i = 0; i < t->n; i++)
        v[i] = -1;
    for (tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        uint64_t mib;
        if (!eq)
            continue;
        *eq = '\0';
        for (size_t i = 0; i < t->n; i++) {
            if (strcasecmp(t->names[i], tok))
                continue;
            if (!strcmp(t->names[i], "mem"))
                v[i] = sizefmt_parse_mib(eq + 1, &mib, NULL) < 0
                           ? -1 : (int64_t)mib;
            else
                v[i] = strtoll(eq + 1, NULL, 10);
        }
    }
    for (size_t i = 0; i < t->n; i++)
        json_array_append_new(out, json_integer(v[i]));
    free(copy);
    free(v);
    return out;
}

/* One number per TRES from the four counted ones (0 for the others). */
static json_t *tres_values(const struct am_tres *t,
                           const double v[PRIO_USE_TRES])
{
    json_t *out = json_array();

    for (size_t i = 0; i < t->n; i++)
        json_array_append_new(out,
                              json_integer(t->use[i] < 0
                                               ? 0
                                               : (json_int_t)v[t->use[i]]));
    return out;
}

/* --- the tables ---------------------------------------------------------- */

static const char *jstr(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s ? s : "";
}

static int64_t jint(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    return json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
}

static char *assoc_key(const char *user, const char *account,
                       const char *partition)
{
    return partition ? xasprintf("%s\x1f%s\x1f%s", user, account, partition)
                     : xasprintf("%s\x1f%s", user, account);
}

/* The association a job of (user, account, partition) counts in: the one
 * naming the partition, else the one with none. */
static struct am_assoc *assoc_of(struct am *am, const char *user,
                                 const char *account, const char *partition)
{
    struct am_assoc *a = NULL;
    char *key;

    if (!account)
        return NULL;
    key = assoc_key(user ? user : "", account, partition ? partition : "");
    HASH_FIND_STR(am->by_key, key, a);
    free(key);
    if (!a && partition && *partition)
        return assoc_of(am, user, account, "");
    return a;
}

/* The associations in listing order (sacctmgr's: an account, its users,
 * its sub-accounts, depth first), their parents, Lft as Slurm's nested
 * sets number them, level shares and default flags. */
static void assocs_build(struct am *am, json_t *listing)
{
    json_t *rows = json_object_get(listing, "assocs"), *users, *row;
    uint32_t next_root_lft = 1;
    size_t i;

    am->assocs = xzalloc((json_array_size(rows) + 1) * sizeof(*am->assocs));
    json_array_foreach(rows, i, row) {
        struct am_assoc *a = &am->assocs[am->nassoc], *dup = NULL;
        a->row = row;
        a->account = jstr(row, "account");
        a->user = jstr(row, "user");
        a->partition = jstr(row, "partition");
        a->key = assoc_key(a->user, a->account, a->partition);
        HASH_FIND_STR(am->by_key, a->key, dup);
        if (dup || !*a->account) {
            free(a->key);
            *a = (struct am_assoc){0};
            continue;
        }
        a->size = 1;
        HASH_ADD_KEYPTR(hh, am->by_key, a->key, strlen(a->key), a);
        a->ukey = assoc_key(a->user, a->account, NULL);
        HASH_FIND(hh_u, am->by_ukey, a->ukey, strlen(a->ukey), dup);
        if (!dup)
            HASH_ADD_KEYPTR(hh_u, am->by_ukey, a->ukey, strlen(a->ukey), a);
        am->nassoc++;
    }
    for (i = 0; i < am->nassoc; i++) {
        struct am_assoc *a = &am->assocs[i];
        const char *parent = *a->user ? a->account
                                      : jstr(a->row, "parent_account");
        a->parent = *parent ? assoc_of(am, "", parent, "") : NULL;
        if (a->parent == a)
            a->parent = NULL;
        if (a->parent) /* Slurm's default fairshare is 1 */
            a->parent->child_shares += jint(a->row, "shares") < 0
                                           ? 1
                                           : (uint32_t)jint(a->row, "shares");
    }
    /* Preorder: children follow their parent, so sizes add up backwards
     * and each child's Lft comes from its parent's next free number. */
    for (i = am->nassoc; i-- > 0;)
        if (am->assocs[i].parent)
            am->assocs[i].parent->size += am->assocs[i].size;
    for (i = 0; i < am->nassoc; i++) {
        struct am_assoc *a = &am->assocs[i];
        if (a->parent) {
            a->lft = a->parent->next_lft;
            a->parent->next_lft += 2 * a->size;
        } else {
            a->lft = next_root_lft;
            next_root_lft += 2 * a->size;
        }
        a->next_lft = a->lft + 1;
    }
    /* DefAssoc: the user's first association under the default account */
    users = json_object_get(listing, "users");
    am->user_rows = xzalloc((json_array_size(users) + 1)
                            * sizeof(*am->user_rows));
    json_array_foreach(users, i, row) {
        struct am_assoc *a = NULL;
        struct am_user *u = &am->user_rows[am->nusers], *dup = NULL;
        u->name = jstr(row, "name");
        u->uid = jint(row, "uid");
        HASH_FIND_STR(am->users, u->name, dup);
        if (!dup) {
            HASH_ADD_KEYPTR(hh, am->users, u->name, strlen(u->name), u);
            am->nusers++;
        }
        char *key = assoc_key(jstr(row, "name"), jstr(row, "default_account"),
                              NULL);
        HASH_FIND(hh_u, am->by_ukey, key, strlen(key), a);
        free(key);
        if (a && *a->user)
            a->is_def = true;
    }
}

static void qos_build(struct am *am, json_t *listing)
{
    json_t *rows = json_object_get(listing, "qos"), *row;
    size_t i;

    am->qos = xzalloc((json_array_size(rows) + 1) * sizeof(*am->qos));
    json_array_foreach(rows, i, row) {
        struct am_qos *q = &am->qos[am->nqos], *dup = NULL;
        q->row = row;
        q->name = jstr(row, "name");
        HASH_FIND_STR(am->qos_by_name, q->name, dup);
        if (dup || !*q->name) {
            *q = (struct am_qos){0};
            continue;
        }
        HASH_ADD_KEYPTR(hh, am->qos_by_name, q->name, strlen(q->name), q);
        am->nqos++;
    }
}

static struct am_lim *lim_get(struct am_lim **hash, const char *name,
                              int64_t uid)
{
    struct am_lim *l = NULL;

    HASH_FIND_STR(*hash, name, l);
    if (!l) {
        l = xzalloc(sizeof(*l));
        l->name = xstrdup(name);
        l->uid = uid;
        HASH_ADD_KEYPTR(hh, *hash, l->name, strlen(l->name), l);
    }
    return l;
}

static void lim_free(struct am_lim **hash)
{
    struct am_lim *l, *tmp;

    HASH_ITER(hh, *hash, l, tmp) {
        HASH_DEL(*hash, l);
        free(l->name);
        free(l);
    }
}

static void am_fini(struct am *am)
{
    for (size_t i = 0; i < am->nassoc; i++) {
        free(am->assocs[i].key);
        free(am->assocs[i].ukey);
    }
    HASH_CLEAR(hh, am->by_key);
    HASH_CLEAR(hh_u, am->by_ukey);
    free(am->assocs);
    for (size_t i = 0; i < am->nqos; i++) {
        lim_free(&am->qos[i].users);
        lim_free(&am->qos[i].accounts);
    }
    HASH_CLEAR(hh, am->qos_by_name);
    free(am->qos);
    HASH_CLEAR(hh, am->users);
    free(am->user_rows);
    tres_fini(&am->tres);
}

/* --- what jobs use ------------------------------------------------------- */

/* Does pending 'job' accrue age (Slurm's accrue_cnt): not held, not
 * waiting for its begin time or a dependency. */
static bool accrues(const struct job *job)
{
    return job->priority != 0 && job->reason != JOB_REASON_HELD_USER
           && job->reason != JOB_REASON_HELD_ADMIN
           && job->reason != JOB_REASON_BEGIN_TIME
           && job->reason != JOB_REASON_DEPENDENCY
           && job->reason != JOB_REASON_DEP_NEVER;
}

/* What one job adds: 'n' pending jobs, or one running one. */
static void job_use(const struct job *job, time_t now, struct am_use *u)
{
    uint64_t mem = 0;
    uint32_t gpus = 0, cpus;
    double left;

    *u = (struct am_use){0};
    if (!job->alloc) {
        u->submit = array_jobs_of(job);
        u->accrue = accrues(job) ? u->submit : 0;
        return;
    }
    cpus = job_info_cpus(job, &gpus, &mem);
    u->jobs = u->submit = 1;
    u->tres[PRIO_USE_CPU] = cpus;
    u->tres[PRIO_USE_MEM] = (double)mem;
    u->tres[PRIO_USE_NODE] = job->alloc->node_count;
    u->tres[PRIO_USE_GPU] = gpus;
    if (job->time_limit_s == TIME_INFINITE) {
        left = INFINITE_MIN * 60;
    } else {
        int64_t s = job->start_time + job->time_limit_s - now;
        left = s > 0 ? (double)s : 0;
    }
    for (int k = 0; k < PRIO_USE_TRES; k++)
        u->run_secs[k] = u->tres[k] * left;
}

static void use_add(struct am_use *to, const struct am_use *u)
{
    to->jobs += u->jobs;
    to->accrue += u->accrue;
    to->submit += u->submit;
    for (int k = 0; k < PRIO_USE_TRES; k++) {
        to->tres[k] += u->tres[k];
        to->run_secs[k] += u->run_secs[k];
    }
}

static void hist_add(struct am_hist *to, const struct prio_usage *u)
{
    to->raw += u->raw;
    to->wall += u->wall;
    for (int k = 0; k < PRIO_USE_TRES; k++)
        to->tres[k] += u->tres[k];
}

/* Every job into its association and the parents up to the root (as
 * Slurm's acct_policy counts them), into its QOS and the QOS's user and
 * account lists; every usage record likewise. */
static void count(struct am *am)
{
    const struct ctld_priority *p = am->ctld->priority;
    struct prio_usage *pu, *ptmp;
    struct job *job, *tmp;

    HASH_ITER(hh, am->ctld->jobs, job, tmp) {
        struct am_assoc *a;
        struct am_qos *q = NULL;
        struct am_use u;
        const char *qos = job->qos ? job->qos : "normal";
        if (!job->alloc && job->state != JOB_PENDING)
            continue;
        job_use(job, am->now, &u);
        for (a = assoc_of(am, job->user_name, job->account, job->partition);
             a; a = a->parent)
            use_add(&a->use, &u);
        HASH_FIND_STR(am->qos_by_name, qos, q);
        if (!q)
            continue;
        use_add(&q->use, &u);
        use_add(&lim_get(&q->users, job->user_name ? job->user_name : "",
                         job->uid)->use, &u);
        if (job->account)
            use_add(&lim_get(&q->accounts, job->account, -1)->use, &u);
    }
    HASH_ITER(hh, p->usage, pu, ptmp) {
        struct am_assoc *a = NULL;
        char *key = assoc_key(pu->user, pu->account, NULL);
        HASH_FIND(hh_u, am->by_ukey, key, strlen(key), a);
        free(key);
        for (; a; a = a->parent)
            hist_add(&a->hist, pu);
    }
    HASH_ITER(hh, p->qos_usage, pu, ptmp) {
        struct am_qos *q = NULL;
        HASH_FIND_STR(am->qos_by_name, pu->account, q);
        if (q)
            hist_add(&q->hist, pu);
    }
}

/* --- the answer ---------------------------------------------------------- */

static json_t *use_json(const struct am *am, const struct am_use *u)
{
    return json_pack("{s:I s:I s:I s:o s:o}", "jobs", (json_int_t)u->jobs,
                     "accrue", (json_int_t)u->accrue, "submit_jobs",
                     (json_int_t)u->submit, "tres",
                     tres_values(&am->tres, u->tres), "tres_run_secs",
                     tres_values(&am->tres, u->run_secs));
}

static json_t *hist_json(const struct am *am, const struct am_hist *h)
{
    return json_pack("{s:f s:f s:o}", "raw", h->raw, "wall_s", h->wall,
                     "tres_secs", tres_values(&am->tres, h->tres));
}

static json_t *assoc_json(struct am *am, const struct am_assoc *a,
                          const fs_tree_t *tree)
{
    json_t *r = a->row, *o;
    const struct fs_row *fr = fs_tree_find(tree, a->account, a->user);
    uint32_t level = a->parent ? a->parent->child_shares : 0;
    struct am_user *u = NULL;
    bool root = !a->parent;

    HASH_FIND_STR(am->users, a->user, u);
    o = json_pack("{s:s s:s s:s s:I s:s s:I s:I s:I s:I s:b}", "cluster",
                  jstr(r, "cluster"), "account", a->account, "user",
                  a->user, "uid", (json_int_t)(u ? u->uid : -1), "partition", a->partition,
                  "id", (json_int_t)jint(r, "id"), "priority",
                  (json_int_t)jint(r, "priority"), "shares",
                  (json_int_t)jint(r, "shares"), "lft", (json_int_t)a->lft,
                  "is_def", a->is_def);
    json_object_set_new(o, "level_shares", json_integer(level));
    json_object_set_new(o, "shares_norm",
                        json_real(fr && !root ? fr->norm_shares : 0));
    json_object_set_new(o, "fs_factor",
                        json_real(fr && fr->fairshare >= 0 ? fr->fairshare
                                                           : 0));
    json_object_set_new(o, "usage_norm",
                        json_real(fr && !root ? fr->norm_usage : 1));
    json_object_set_new(o, "usage_efctv",
                        json_real(fr && !root ? fr->effective_usage : 1));
    if (!*a->user && a->parent) {
        json_object_set_new(o, "parent_account",
                            json_string(a->parent->account));
        json_object_set_new(o, "parent_id",
                            json_integer(jint(a->parent->row, "id")));
    }
    json_object_set_new(o, "grp_jobs", json_integer(jint(r, "grp_jobs")));
    json_object_set_new(o, "grp_submit_jobs",
                        json_integer(jint(r, "grp_submit_jobs")));
    json_object_set_new(o, "max_jobs", json_integer(jint(r, "max_jobs")));
    json_object_set_new(o, "max_submit_jobs",
                        json_integer(jint(r, "max_submit_jobs")));
    json_object_set_new(o, "max_wall_pj",
                        json_integer(jint(r, "max_wall_min")));
    json_object_set_new(o, "grp_tres",
                        tres_limits(&am->tres, jstr(r, "grp_tres")));
    json_object_set_new(o, "max_tres_pj",
                        tres_limits(&am->tres, jstr(r, "max_tres_per_job")));
    json_object_set_new(o, "used", use_json(am, &a->use));
    json_object_set_new(o, "usage", hist_json(am, &a->hist));
    return o;
}

static json_t *lims_json(const struct am *am, struct am_lim *hash)
{
    json_t *out = json_array();
    struct am_lim *l, *tmp;

    HASH_ITER(hh, hash, l, tmp) {
        json_t *o = use_json(am, &l->use);
        json_object_set_new(o, "name", json_string(l->name));
        if (l->uid >= 0)
            json_object_set_new(o, "uid", json_integer(l->uid));
        json_array_append_new(out, o);
    }
    return out;
}

static json_t *qos_json(const struct am *am, const struct am_qos *q)
{
    json_t *r = q->row;

    return json_pack(
        "{s:s s:I s:I s:s s:I s:I s:I s:I s:I s:o s:o s:o s:o s:o s:o s:o}",
        "name", q->name, "id", (json_int_t)jint(r, "id"), "priority",
        (json_int_t)jint(r, "priority"), "preempt_mode",
        jstr(r, "preempt_mode"), "grp_jobs", (json_int_t)jint(r, "grp_jobs"),
        "grp_submit_jobs", (json_int_t)jint(r, "grp_submit_jobs"),
        "max_jobs_pu", (json_int_t)jint(r, "max_jobs_per_user"),
        "max_submit_jobs_pu", (json_int_t)jint(r, "max_submit_jobs_per_user"),
        "max_wall_pj", (json_int_t)jint(r, "max_wall_min"), "grp_tres",
        tres_limits(&am->tres, jstr(r, "grp_tres")), "max_tres_pj",
        tres_limits(&am->tres, jstr(r, "max_tres_per_job")), "max_tres_pu",
        tres_limits(&am->tres, jstr(r, "max_tres_per_user")), "used",
        use_json(am, &q->use), "usage", hist_json(am, &q->hist),
        "user_limits", lims_json(am, q->users), "account_limits",
        lims_json(am, q->accounts));
}

/* Is 's' in the request's list 'list' (absent or empty: no filter)?
 * Slurm compares names without case. */
static bool listed(json_t *list, const char *s)
{
    json_t *v;
    size_t i;

    if (!json_array_size(list))
        return true;
    json_array_foreach(list, i, v)
        if (json_is_string(v) && !strcasecmp(json_string_value(v), s))
            return true;
    return false;
}

static json_t *user_json(json_t *u)
{
    return json_pack("{s:s s:I s:s s:s}", "name", jstr(u, "name"), "uid",
                     (json_int_t)jint(u, "uid"), "default_account",
                     jstr(u, "default_account"), "admin_level",
                     *jstr(u, "admin_level") ? jstr(u, "admin_level")
                                             : "None");
}

/* The caller's user record in the listing, or NULL. */
static json_t *caller_record(json_t *listing, const char *name)
{
    json_t *u;
    size_t i;

    json_array_foreach(json_object_get(listing, "users"), i, u)
        if (*name && !strcmp(jstr(u, "name"), name))
            return u;
    return NULL;
}

static void rpc_assoc_mgr_info(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *body = proto_req_body(req);
    json_t *users = json_object_get(body, "users");
    json_t *accounts = json_object_get(body, "accounts");
    json_t *qos_names = json_object_get(body, "qos");
    json_t *listing = (json_t *)enforce_listing(ctld);
    json_t *out_assocs = json_array(), *out_qos = json_array();
    json_t *out_users = json_array(), *tres = json_array(), *me, *v;
    int64_t flags = jint(body, "flags");
    uint32_t priv = ctld->conf->private_data
                    & (CONF_PRIVATE_USAGE | CONF_PRIVATE_USERS);
    const struct ident_user *who;
    const char *name;
    struct am am = {.ctld = ctld, .now = ctld_now(ctld)};
    bool admin;
    size_t i;

    if (flags <= 0)
        flags = AM_ASSOC | AM_USERS | AM_QOS;
    who = ident_user(ctld->ident, proto_req_uid(req), am.now);
    name = who->known && who->name ? who->name : "";
    me = listing ? caller_record(listing, name) : NULL;
    /* Slurm: root, SlurmUser and accounting Operators or Administrators
     * see everything; with PrivateData=usage|users others must be known
     * to the association manager. */
    admin = (proto_req_roles(req) & (PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN))
            || (me && (!strcmp(jstr(me, "admin_level"), "Operator")
                       || !strcmp(jstr(me, "admin_level"),
                                  "Administrator")));
    tres_init(&am.tres, ctld->conf->accounting_storage_tres);
    for (i = 0; i < am.tres.n; i++)
        json_array_append_new(tres, json_string(am.tres.names[i]));
    if (!listing || (priv && !admin && !me))
        goto answer;
    assocs_build(&am, listing);
    qos_build(&am, listing);
    count(&am);
    if (flags & AM_ASSOC) {
        const fs_tree_t *tree = priority_tree(ctld);
        for (i = 0; i < am.nassoc; i++) {
            const struct am_assoc *a = &am.assocs[i];
            if ((*a->user && !listed(users, a->user))
                || !listed(accounts, a->account))
                continue;
            if ((priv & CONF_PRIVATE_USAGE) && !admin
                && strcmp(a->user, name))
                continue;
            json_array_append_new(out_assocs, assoc_json(&am, a, tree));
        }
    }
    if ((flags & AM_QOS) && json_array_size(qos_names)) {
        json_array_foreach(qos_names, i, v) {
            for (size_t k = 0; k < am.nqos; k++)
                if (json_is_string(v)
                    && !strcasecmp(am.qos[k].name, json_string_value(v)))
                    json_array_append_new(out_qos, qos_json(&am, &am.qos[k]));
        }
    } else if (flags & AM_QOS) {
        for (i = 0; i < am.nqos; i++)
            json_array_append_new(out_qos, qos_json(&am, &am.qos[i]));
    }
    if (flags & AM_USERS) {
        json_array_foreach(json_object_get(listing, "users"), i, v) {
            if (((priv & CONF_PRIVATE_USERS) && !admin
                 && strcasecmp(jstr(v, "name"), name))
                || !listed(users, jstr(v, "name")))
                continue;
            json_array_append_new(out_users, user_json(v));
        }
    }
answer:
    am_fini(&am);
    if (proto_respond(req, json_pack("{s:o s:o s:o s:o}", "tres", tres,
                                     "assocs", out_assocs, "qos", out_qos,
                                     "users", out_users))
        < 0)
        log_err("assoc_mgr_info: responding");
}

const struct proto_handler rpc_assoc_mgr_handlers[] = {
    {"assoc_mgr_info", rpc_assoc_mgr_info, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
