/* SPDX-License-Identifier: Apache-2.0
 *
 * sim_prio.c - the replay's job priorities under priority/multifactor
 * (sim_opts.prio), with the controller's formulas and calculation
 * (src/sched/priority.h, fairshare.h; src/ctld/priority.c feeds them
 * the same way)
 *
 * The associations are made from the trace: each (group, user) of an SWF
 * job, each (account, user) of an accounting record, is a user
 * association under an account of that name, a child of "root", with
 * Slurm's default shares (1) everywhere; all of them exist from the
 * start, as a site's sacctmgr tree does.  Usage is the CPU-seconds each
 * association's jobs ran (QOS UsageFactor 1), charged when a job ends and
 * at each calculation, decayed by PriorityDecayHalfLife at each.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf/conf.h"
#include "sim/sim_private.h"

/* prio_factors() takes age_start 0 as "accrues no age yet"; the replay's
 * time 0 is the first submission, so its times go to the formulas one
 * second later. */
#define PRIO_EPOCH 1

struct sim_prio {
    const struct prio_conf *conf;
    fs_tree_t *tree;
    const struct fs_row *rows; /* the tree's rows (fs_tree_rows()) */
    uint32_t *assoc;  /* per job: its association */
    size_t nassoc;
    size_t *row;      /* per association: its row in the tree */
    double *usage;    /* per association: raw usage, decayed */
    double *factor;   /* per association: fair-share factor, as of the
                       * last refresh() */
    bool dirty;       /* usage changed since then */
    uint32_t *prio;   /* per job: its priority as last computed */
    int64_t last_calc;  /* the last calculation (0: none yet) */
    int64_t next_calc;
    uint32_t *part_prio; /* per swf_job.part: its PriorityJobFactor */
    uint32_t part_prio_max;
    uint32_t cluster_nodes, cluster_gpus;
    uint64_t cluster_cpus, cluster_mem_mib;
};

/* --- associations -------------------------------------------------------- */

static int by_assoc(const void *a, const void *b, void *arg)
{
    const struct swf_trace *t = arg;
    const struct swf_job *x = &t->jobs[*(const uint32_t *)a];
    const struct swf_job *y = &t->jobs[*(const uint32_t *)b];

    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->user < y->user ? -1 : x->user > y->user;
}

/* The association names of job 'job': accounting's names, else the SWF
 * numbers in decimal.  Returns 0, or -1 (ENOMEM). */
static int names_of(const struct swf_trace *t, const struct swf_job *job,
                    char **account, char **user)
{
    if (t->accounts && job->group >= 0 && (size_t)job->group < t->naccounts)
        *account = strdup(t->accounts[job->group]);
    else if (asprintf(account, "%" PRId64, job->group) < 0)
        *account = NULL;
    if (t->users && job->user >= 0 && (size_t)job->user < t->nusers)
        *user = strdup(t->users[job->user]);
    else if (asprintf(user, "%" PRId64, job->user) < 0)
        *user = NULL;
    return *account && *user ? 0 : -1;
}

/* The association list fs_tree_build() takes: an account of each
 * group, a user association of each (group, user); the strings owned
 * but 'no_user'. */
static const char no_user[] = "";

struct assoc_list {
    struct fs_assoc *in;
    size_t n, cap;
};

static void assoc_list_free(struct assoc_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free((char *)l->in[i].account);
        if (l->in[i].user != no_user)
            free((char *)l->in[i].user);
    }
    free(l->in);
}

/* Add an account ('user' NULL) or a user association (taking the
 * strings either way).  Returns 0, or -1 (ENOMEM; the strings freed). */
static int assoc_list_add(struct assoc_list *l, char *account, char *user)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        struct fs_assoc *in = realloc(l->in, cap * sizeof(*in));
        if (!in) {
            free(account);
            free(user);
            return -1;
        }
        l->in = in;
        l->cap = cap;
    }
    l->in[l->n++] = (struct fs_assoc){
        .account = account, .user = user ? user : no_user,
        .parent_account = "root", .shares = 1,
    };
    return 0;
}

/* p->assoc of each job, and the list.  Returns 0, or -1 (ENOMEM). */
static int list_assocs(const struct swf_trace *t, struct sim_prio *p,
                       struct assoc_list *l)
{
    uint32_t *ord = malloc((t->njobs + 1) * sizeof(*ord));
    int rc = -1;

    if (!ord)
        return -1;
    for (size_t j = 0; j < t->njobs; j++)
        ord[j] = (uint32_t)j;
    qsort_r(ord, t->njobs, sizeof(*ord), by_assoc, (void *)t);
    for (size_t k = 0; k < t->njobs; k++) {
        const struct swf_job *job = &t->jobs[ord[k]];
        char *account, *user;
        if (k == 0 || by_assoc(&ord[k - 1], &ord[k], (void *)t)) {
            if (names_of(t, job, &account, &user) < 0) {
                free(account);
                free(user);
                goto out;
            }
            if (k == 0 || t->jobs[ord[k - 1]].group != job->group) {
                char *a = strdup(account);
                if (!a || assoc_list_add(l, a, NULL) < 0) {
                    free(account);
                    free(user);
                    goto out;
                }
            }
            if (assoc_list_add(l, account, user) < 0)
                goto out;
            p->nassoc++;
        }
        p->assoc[ord[k]] = (uint32_t)(p->nassoc - 1);
    }
    rc = 0;
out:
    free(ord);
    return rc;
}

/* --- the calculation ----------------------------------------------------- */

/* PriorityCalcPeriod, at least a second. */
static int64_t period(const struct prio_conf *c)
{
    return c->calc_period_s > 0 ? c->calc_period_s : 1;
}

/* The fair-share factors from the usage, when it changed (the controller
 * builds its tree again then: priority_tree()). */
static void refresh(struct sim_prio *p)
{
    if (!p->dirty)
        return;
    for (size_t a = 0; a < p->nassoc; a++)
        (void)fs_tree_set_usage(p->tree, p->row[a], p->usage[a]);
    fs_tree_update(p->tree);
    for (size_t a = 0; a < p->nassoc; a++)
        p->factor[a] = p->row[a] == SIZE_MAX
                           ? 0 : fs_row_factor(&p->rows[p->row[a]]);
    p->dirty = false;
}

/* Job j's priority at 'now' (the controller's priority_of(): factors
 * from what a replayed job has; no QOS, association priority or nice). */
static uint32_t priority_at(const struct sim *s, uint32_t j, int64_t now)
{
    const struct sim_prio *p = s->prio;
    const struct swf_job *job = &s->t->jobs[j];
    const struct sched_request *r = &s->reqs[j];
    struct prio_factors f;
    struct prio_job pj = {
        .age_start = job->submit + PRIO_EPOCH,
        .nodes = r->min_nodes,
        .cpus = job->procs,
        .mem_mib = job->mem_per_cpu_mib * job->procs,
        .gpus = job->gpus,
        .time_limit_s = job->estimate,
        .fairshare = p->factor[p->assoc[j]],
        .part_prio = job->part <= s->t->nparts ? p->part_prio[job->part] : 0,
        .part_prio_max = p->part_prio_max,
        .cluster_nodes = p->cluster_nodes,
        .cluster_cpus = (uint32_t)p->cluster_cpus,
        .cluster_mem_mib = p->cluster_mem_mib,
        .cluster_gpus = p->cluster_gpus,
    };

    prio_factors(p->conf, &pj, now + PRIO_EPOCH, &f);
    return prio_total(p->conf, &f);
}

/* Queue order: priority, highest first, then trace order (the job id
 * order of accounting, as the controller breaks ties). */
static int by_priority(const void *a, const void *b, void *arg)
{
    const struct sim_prio *p = arg;
    uint32_t x = ((const struct sched_job *)a)->id;
    uint32_t y = ((const struct sched_job *)b)->id;

    if (p->prio[x] != p->prio[y])
        return p->prio[x] > p->prio[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

uint32_t sim_prio_of(const struct sim *s, uint32_t j)
{
    return s->prio->prio[j];
}

void sim_prio_sort(struct sim *s)
{
    qsort_r(s->pend + s->head, s->tail - s->head, sizeof(*s->pend),
            by_priority, s->prio);
}

void sim_prio_submit(struct sim *s, uint32_t j, int64_t now)
{
    struct sim_prio *p = s->prio;
    size_t i = s->tail - 1; /* j was just queued there */
    struct sched_job job = s->pend[i];

    refresh(p);
    p->prio[j] = priority_at(s, j, now);
    while (i > s->head && by_priority(&job, &s->pend[i - 1], p) < 0) {
        s->pend[i] = s->pend[i - 1];
        i--;
    }
    s->pend[i] = job;
}

void sim_prio_leave(struct sim *s, uint32_t j, int64_t now)
{
    struct sim_prio *p = s->prio;
    int64_t from = prio_charged_from(s->start[j], p->last_calc, 0);

    if (now <= from)
        return;
    p->usage[p->assoc[j]] += prio_charge((uint32_t)sim_alloc_cpus(s->alloc[j]),
                                         from, now, 1.0);
    p->dirty = true;
}

int64_t sim_prio_next_calc(const struct sim *s)
{
    return s->prio ? s->prio->next_calc : INT64_MAX;
}

void sim_prio_calc(struct sim *s, int64_t now)
{
    struct sim_prio *p = s->prio;
    double f = prio_calc_decay(p->conf, p->last_calc, now);
    bool incr = p->conf->flags & PRIO_FLAG_INCR_ONLY;

    for (size_t a = 0; a < p->nassoc; a++)
        p->usage[a] *= f;
    for (size_t r = 0; r < s->nrun; r++) {
        uint32_t j = s->run[r].id;
        int64_t from = prio_charged_from(s->start[j], p->last_calc, 0);
        if (now > from)
            p->usage[p->assoc[j]] += prio_charge(
                (uint32_t)sim_alloc_cpus(s->alloc[j]), from, now, 1.0);
    }
    p->last_calc = now;
    p->dirty = true;
    p->next_calc = now + period(p->conf);
    if (s->head == s->tail)
        return; /* no priority to compute; the usage waits for one */
    refresh(p);
    for (size_t i = s->head; i < s->tail; i++) {
        uint32_t j = s->pend[i].id, prio = priority_at(s, j, now);
        if (!incr || prio > p->prio[j])
            p->prio[j] = prio;
    }
    sim_prio_sort(s);
}

/* --- setup --------------------------------------------------------------- */

/* The partitions' PriorityJobFactor per swf_job.part (0: the default
 * partition; a partition the cluster lacks: 0), and the largest. */
static int part_factors(const struct sim *s, struct sim_prio *p)
{
    const struct sim_cluster *c = s->o->cluster;
    const struct swf_trace *t = s->t;

    if (!(p->part_prio = calloc(t->nparts + 1, sizeof(*p->part_prio))))
        return -1;
    if (!c || !c->nparts)
        return 0;
    for (size_t k = 0; k < c->nparts; k++)
        if (c->conf->partitions[k].priority_job_factor > p->part_prio_max)
            p->part_prio_max = c->conf->partitions[k].priority_job_factor;
    p->part_prio[0] = c->conf->partitions[c->default_part].priority_job_factor;
    for (size_t k = 0; k < t->nparts; k++) {
        long i = sim_cluster_part(c, t->parts[k]);
        p->part_prio[k + 1] =
            i < 0 ? 0 : c->conf->partitions[i].priority_job_factor;
    }
    return 0;
}

int sim_prio_init(struct sim *s)
{
    const struct swf_trace *t = s->t;
    size_t n = t->njobs ? t->njobs : 1;
    struct assoc_list l = {0};
    struct sim_prio *p;

    if (!s->o->prio || !s->o->prio->multifactor)
        return 0;
    if (!(p = s->prio = calloc(1, sizeof(*p)))
        || !(p->assoc = calloc(n, sizeof(*p->assoc)))
        || !(p->prio = calloc(n, sizeof(*p->prio)))
        || list_assocs(t, p, &l) < 0
        || !(p->row = calloc(p->nassoc + 1, sizeof(*p->row)))
        || !(p->usage = calloc(p->nassoc + 1, sizeof(*p->usage)))
        || !(p->factor = calloc(p->nassoc + 1, sizeof(*p->factor)))
        || part_factors(s, p) < 0) {
        assoc_list_free(&l);
        return -1;
    }
    p->conf = s->o->prio;
    p->tree = fs_tree_build(l.in, l.n, p->conf->flags & PRIO_FLAG_NO_FAIR_TREE
                                           ? FS_CLASSIC : FS_FAIR_TREE);
    fs_tree_rows(p->tree, &p->rows);
    for (size_t i = 0, a = 0; i < l.n; i++) {
        const struct fs_row *r;
        if (l.in[i].user == no_user)
            continue;
        /* A user named "" (an accounting record without one) has no
         * row of its own: factor 0, as the controller gives it. */
        r = *l.in[i].user ? fs_tree_find(p->tree, l.in[i].account,
                                          l.in[i].user)
                          : NULL;
        p->row[a++] = r ? (size_t)(r - p->rows) : SIZE_MAX;
    }
    assoc_list_free(&l);
    p->dirty = true;
    p->next_calc = period(p->conf);
    for (size_t i = 0; i < s->nnodes; i++) {
        p->cluster_cpus += s->nodes[i].cpus;
        p->cluster_mem_mib += s->nodes[i].mem_mib;
        p->cluster_gpus += s->nodes[i].gpus;
    }
    p->cluster_nodes = (uint32_t)s->nnodes;
    return 0;
}

void sim_prio_free(struct sim_prio *p)
{
    if (!p)
        return;
    fs_tree_destroy(p->tree);
    free(p->assoc);
    free(p->row);
    free(p->usage);
    free(p->factor);
    free(p->prio);
    free(p->part_prio);
    free(p);
}
