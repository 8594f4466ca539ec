/* SPDX-License-Identifier: Apache-2.0
 *
 * pass.c - one scheduling pass with backfill, as Slurm's sched/backfill
 *
 * Pending jobs are taken in priority order.  A job that cannot start now is
 * given a reservation: the earliest time its resources will be free for its
 * whole time limit, found by projecting node usage forward through the end
 * times of running jobs.  Later jobs may start now only on resources that
 * no reservation needs while they run.  Usage is projected per CPU count,
 * memory and GPU index, not per whole node as Slurm does, so a small job
 * can share a node with a reservation when there is room for both.
 *
 * With opts.resolution_s (Slurm's bf_resolution) every time at which the
 * plan counts resources free again is rounded up to a multiple of it
 * (held_until), so start times, which are such ends, fall on its steps and
 * fewer distinct times are tried; a resource is never planned free before
 * it is.  Slurm rounds reservations down instead.
 *
 * How it stays fast on a deep queue (bench/sched; the decisions are the
 * same as replaying every event for every window, which this replaced):
 *  - the running jobs' releases are put on each node's timeline in one
 *    sweep in time order (release_all()), not one at a time;
 *  - each node keeps its own timeline, its usage relative to now from each
 *    time it changes on, so its most used instant in a window costs a
 *    binary search and the steps inside the window;
 *  - the times at which anything changes are kept in order (blocks of
 *    slots listing the items), and a job's search for a start time moves
 *    its window from one end time to the next, looking again only at the
 *    nodes with a step in what the window left, or with a reservation
 *    beginning in what it took in (where something only ends, usage
 *    falls).  The view of the last window is kept for the next job: only
 *    the nodes changed since, or with a step between the two windows, are
 *    looked at again;
 *  - a node with no free CPU in the window is of use to no request: it is
 *    not judged, and a step joining the end of the window cannot free it;
 *  - a request for GPUs computes the view of the nodes with GPUs only,
 *    and an exclusive request leaves out the nodes busy in a half hour
 *    within its window (each node keeps which half hours it is busy in);
 *    the others are left stale, and computed when a request that can use
 *    them looks at the view again; so are the nodes after the first in
 *    Slurm's order when that one holds the whole request (most often a
 *    one-task job's), the choice then;
 *  - each slot keeps which nodes are closed (no free CPU) from its time to
 *    the next slot's, and each block of slots their union, so a whole view
 *    computes only the nodes open throughout its window (in bench/sched's
 *    deep queues a few percent of them: the plan fills the future); a
 *    step of the window's start past a reservation's beginning looks at
 *    nothing again (usage rises there), nor past an end at a node closed
 *    from there on that was of no use already;
 *  - the nodes' capacities for the job are summed (and counted by value),
 *    and sched_select()'s choice runs only when they add up to enough;
 *    its candidates are gathered tier by tier of Weight=, so they come in
 *    Slurm's node order without a sort, and when it must take the largest
 *    nodes it finds them by counting capacities (select.c);
 *  - usage only grows during a pass, so a job whose request and time limit
 *    equal those of a job before it, or are larger in every size (CPUs
 *    per task, memory, GPUs per node, the limit; pass_keys.c), cannot
 *    start earlier than that one could: its search begins at that one's
 *    reservation, and what that one found busy (now, for its whole limit
 *    from now, or within the window) is busy for it too (struct key); one
 *    that can never run is still told apart (busy_or_never).
 *    Requests with gpus_total are left out: their choice of nodes is not
 *    exact, so more usage might, rarely, let them fit.  So is everything
 *    about windows once a job started with a time limit of 0 (see
 *    ended_now).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched.h"
#include "sched/pass_keys.h"
#include "sched/sched_private.h"

#define NEVER_ENDS INT64_MAX
#define SLOTS_PER_BLOCK 64
#define NIL UINT32_MAX
#define HIST_MAX 4095
/* A view kept from one window to the next marks the nodes of at most this
 * many slots between them; beyond, a whole view (which computes only the
 * nodes open throughout the window) costs less (bench/sched). */
#define MARK_SLOTS_MAX 64
/* Each node keeps in which spans of BUSY_SPAN_S seconds from now on it is
 * busy at some instant (busy_with()): BUSY_WORDS words of bits, span k
 * [now + k * BUSY_SPAN_S, now + (k + 1) * BUSY_SPAN_S) in bit k.  A busy
 * span lying within a window leaves the node out of an exclusive
 * request's view (in bench/sched's deep plan, such views had computed
 * 1,750 nodes for 10 candidates). */
#define BUSY_SPAN_S 1800
#define BUSY_WORDS 2
#define BUSY_SPANS (64 * BUSY_WORDS)

/* Something that holds resources over [start, end): a running job, a job
 * started by this pass, or a reservation ('planned', not in node usage).
 */
struct item {
    int64_t start;
    int64_t end; /* NEVER_ENDS: no time limit */
    const struct sched_alloc *alloc;
    bool planned;
};

/* Node indexes, a vector. */
struct nodevec {
    uint32_t *v;
    uint32_t n, cap;
};

/* The items whose usage changes at one time: ends, and reservations that
 * begin.  'head' lists them through struct evrec.next; 'begins' and 'ends'
 * hold their nodes, so that mark_slot() reads one array, not each item's
 * allocation (a deep queue's plan marks slots 700,000 times). */
struct slot {
    int64_t time;
    uint32_t nends;
    uint32_t nbegins; /* planned items starting here (mark_slot) */
    uint32_t head;
    struct nodevec begins; /* the nodes of the planned items starting */
    struct nodevec ends;   /* the nodes of the items ending */
    uint64_t *closed; /* bit i: node i has no free CPU over [time, the next
                       * slot's time) (closed_init() on) */
};

struct block {
    uint32_t count;
    uint64_t *closed; /* the OR of its slots' */
    struct slot s[SLOTS_PER_BLOCK];
};

struct evrec {
    uint32_t item;
    uint32_t next;
};

/* Position in the slots: block b, slot s; b == nblk is the end. */
struct cursor {
    size_t b;
    uint32_t s;
};

/* Usage of a node from a step's time on, relative to its usage now. */
struct step {
    int64_t cpus;
    int64_t mem;
    int32_t running;
    int32_t excl;
};

/* One node's timeline: step j begins at time[j], in time order, time[0]
 * at INT64_MIN (no change), with usage st[j]; the times are an array of
 * their own, so that a search reads one or two cache lines.  gpu[j * w +
 * g] is GPU g's count of whole holders at step j, and on a node with
 * shards gpu[j * w + gpus + g] its shards in use (w is tl_width()).
 * k == 0: no steps.
 */
struct tline {
    uint32_t k;
    uint32_t cap;
    uint32_t hint; /* the step step_find() found last (a guess only) */
    int64_t *time;
    struct step *st;
    int32_t *gpu;
};

struct pass {
    struct sched_node *nodes;
    size_t n;
    int64_t now;
    struct sched_pass_opts opts;
    struct item *items;
    size_t nitems;
    struct block **blk;
    size_t nblk, blkcap;
    struct evrec *ev;
    uint32_t nev;
    uint32_t oversub;   /* the largest OverSubscribe factor of the queue:
                         * a node is open (of use) while its CPUs in use
                         * are fewer than its CPUs times this */
    int64_t first_plan; /* earliest reservation start; NEVER_ENDS: none */
    int64_t first_job_plan; /* the same, of jobs' reservations only (not
                             * opts.holds) */
    bool ended_now;     /* a job started with a limit of 0 ends now: a
                         * window from now already counts it gone while
                         * the nodes hold it (its GPUs may be given
                         * twice), so usage no longer only grows and what
                         * struct key learnt of windows does not hold */
    uint32_t tried;     /* blocked jobs a reservation was sought for */
    struct tline *tl;
    /* The view: each node's most used instant of a window, and how the
     * request being placed judges it (judge[i].cap == 0: not a candidate). */
    struct sched_node *view; /* in view_mem, aligned to a cache line */
    void *view_mem;
    struct cand *judge;
    uint64_t *open;    /* bit i: view[i] has a free CPU (else no request
                        * can use it, and judge[i].cap == 0) */
    uint64_t *open_now; /* bit i: nodes[i] has a free CPU now */
    /* The nodes by Weight=, lowest first: tier[t] a bitmap of those of
     * the t-th weight (NULL: all nodes, the one weight); ntiers 0 when
     * there are more than WEIGHT_TIERS weights. */
    uint64_t *tier[WEIGHT_TIERS];
    size_t ntiers;
    struct cand *cand; /* scratch, n candidates */
    int32_t *gmax;     /* scratch, a node's GPU counts */
    bool vvalid;       /* view[i] holds [vt, ve) for every node not in chg
                        * and not stale (or, if it is not open, less than
                        * that, and [vt, ve) has no free CPU on it
                        * either) */
    uint64_t *gpu_nodes; /* bit i: node i has GPUs, the only nodes a
                          * request for GPUs can use */
    uint64_t *stale;   /* bit i: view[i] was not computed for [vt, ve),
                        * where node i may have a free CPU: it was of no
                        * use to the request of the view (not among the
                        * nodes its kind can use, use_word()); not open */
    int64_t vt, ve;
    uint8_t *chg;      /* node's timeline or usage changed since */
    uint32_t *chglist;
    size_t nchg;
    uint32_t *stamp;   /* == gen: node already in 'dirty' */
    uint32_t gen;
    uint32_t *dirty;
    uint32_t *todo;    /* scratch: the nodes a whole view computes */
    /* sched__node_allowed() of node i for the requests of one static
     * class (sched__same_static() with 'aclass'): aok[i] when astamp[i]
     * == agen.  The queue's requests share a few classes, and the
     * features expression was parsed again for each node judged. */
    struct sel_req aclass;
    uint32_t agen;     /* 0: no class yet */
    uint32_t *astamp;
    uint8_t *aok;
    size_t ndirty;
    size_t nc, nreqc; /* candidates, required ones among them */
    uint64_t sumcap, sumgpu;
    /* The candidates' capacities (tasks) counted by value, for the largest
     * max_nodes of them: hist[v] for v < hsize, with a bit per non-zero
     * count in hbits; larger ones only counted and summed. */
    uint32_t *hist;
    uint64_t *hbits;
    size_t hsize;
    size_t hbig;
    uint64_t hbig_sum;
    struct keytab keys; /* requests and limits seen */
    /* Which nodes are closed (no free CPU) when: slot.closed, block.closed,
     * kept from closed_init() on, so that a whole view computes only the
     * nodes with a free CPU throughout the window (a deep queue's plan
     * fills the future: 5% of the nodes were open in a whole view of
     * bench/sched's 10,000 x 100,000). */
    bool cl_on;
    size_t words;      /* of a bitmap of the n nodes */
    uint64_t *mask;    /* scratch: the nodes closed somewhere in a window */
    uint64_t *busy;    /* node i's busy spans: busy[i * BUSY_WORDS ...]
                        * (closed_init() on) */
    uint64_t *bmask;   /* scratch: nodes busy in a span within a window */
};

const char *sched_reason_string(enum sched_reason reason)
{
    static const char *const names[] = {
        [SCHED_REASON_NONE] = "None",
        [SCHED_REASON_RESOURCES] = "Resources",
        [SCHED_REASON_PRIORITY] = "Priority",
        [SCHED_REASON_LIMIT] = "AccountingPolicy",
    };

    if ((size_t)reason < sizeof(names) / sizeof(names[0]))
        return names[reason];
    return "None";
}

void sched_decisions_clear(struct sched_decision *out, size_t count)
{
    for (size_t i = 0; out && i < count; i++) {
        sched_alloc_destroy(out[i].alloc);
        out[i].alloc = NULL;
    }
}

/* End of something starting at 't' that runs 'limit_s' seconds (-1: no
 * limit); NEVER_ENDS rather than overflow.
 */
static int64_t end_of(int64_t t, int64_t limit_s)
{
    if (limit_s < 0 || limit_s > NEVER_ENDS - t)
        return NEVER_ENDS;
    return t + limit_s;
}

/* 't' rounded up to the pass's resolution (Slurm's bf_resolution): the
 * time at which the pass counts resources held until 't' as free.
 */
static int64_t held_until(const struct pass *p, int64_t t)
{
    int64_t res = p->opts.resolution_s, rem;

    if (res <= 1 || t == NEVER_ENDS)
        return t;
    rem = t % res;
    if (rem < 0)
        rem += res;
    if (rem == 0)
        return t;
    return t - rem > NEVER_ENDS - res ? NEVER_ENDS : t - rem + res;
}

/* Entries per step in a node's timeline: one per GPU, two with shards. */
static uint32_t tl_width(const struct sched_node *nd)
{
    return nd->shards ? 2 * nd->gpus : nd->gpus;
}

/* Entry j of 'a' in a timeline step's GPU counts 'use', 'sign' times:
 * its whole GPUs, or its shards of one GPU. */
static void use_add(int32_t *use, const struct sched_node *nd,
                    const struct sched_alloc *a, uint32_t j, int sign)
{
    for (long g = a->gpus[j] ? bitmap_first_set(a->gpus[j], 0) : -1; g >= 0;
         g = bitmap_first_set(a->gpus[j], (size_t)g + 1)) {
        if (a->shards[j])
            use[nd->gpus + (uint32_t)g] += sign * (int32_t)a->shards[j];
        else
            use[g] += sign;
    }
}

static void pass_destroy(struct pass *p)
{
    int saved_errno = errno;

    if (p->view) {
        for (size_t i = 0; i < p->n; i++)
            sched_node_free_usage(&p->view[i]);
    }
    if (p->tl) {
        for (size_t i = 0; i < p->n; i++) {
            free(p->tl[i].time);
            free(p->tl[i].st);
            free(p->tl[i].gpu);
        }
    }
    for (size_t b = 0; b < p->nblk; b++) {
        for (uint32_t k = 0; k < p->blk[b]->count; k++) {
            free(p->blk[b]->s[k].closed);
            free(p->blk[b]->s[k].begins.v);
            free(p->blk[b]->s[k].ends.v);
        }
        free(p->blk[b]->closed);
        free(p->blk[b]);
    }
    for (size_t t = 0; t < WEIGHT_TIERS; t++)
        free(p->tier[t]);
    free(p->mask);
    free(p->bmask);
    free(p->busy);
    free(p->gpu_nodes);
    free(p->stale);
    free(p->blk);
    free(p->tl);
    free(p->view_mem);
    free(p->judge);
    free(p->open);
    free(p->open_now);
    free(p->cand);
    free(p->gmax);
    free(p->stamp);
    free(p->dirty);
    free(p->todo);
    free(p->astamp);
    free(p->aok);
    free(p->chg);
    free(p->chglist);
    free(p->hist);
    free(p->hbits);
    free(p->items);
    free(p->ev);
    keytab_destroy(&p->keys);
    errno = saved_errno;
}

/* Every node with GPUs must have a usage bitmap of the right size, and
 * one with shards their usage. */
static bool nodes_valid(const struct sched_node *nodes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (nodes[i].gpus
            && (!nodes[i].alloc_gpus
                || bitmap_size(nodes[i].alloc_gpus) != nodes[i].gpus))
            return false;
        if (nodes[i].shards && !nodes[i].alloc_shards)
            return false;
    }
    return true;
}

/* The view: copies of the nodes' configuration, each with its own GPU
 * bitmap.  Returns 0 or -1 with errno=ENOMEM.
 */
static int view_create(struct pass *p)
{
    uint32_t maxgpus = 0, maxcpus = 0;

    /* aligned by hand in a calloc()ed block: glibc's aligned_alloc() of
     * it on every pass grew the controller's heap during a launch storm
     * (bench/storm: 150-340 MiB against 47 MiB) */
    if (!(p->view_mem = calloc(1, (p->n ? p->n : 1) * sizeof(*p->view) + 64)))
        return -1;
    p->view = (struct sched_node *)(((uintptr_t)p->view_mem + 63)
                                    & ~(uintptr_t)63);
    for (size_t i = 0; i < p->n; i++) {
        p->view[i] = p->nodes[i];
        p->view[i].alloc_gpus = NULL;
        p->view[i].alloc_shards = NULL;
        if (tl_width(&p->nodes[i]) > maxgpus)
            maxgpus = tl_width(&p->nodes[i]);
        if (p->nodes[i].cpus > maxcpus)
            maxcpus = p->nodes[i].cpus;
        if (p->nodes[i].gpus
            && !(p->view[i].alloc_gpus = bitmap_create(p->nodes[i].gpus)))
            return -1;
        if (p->nodes[i].shards
            && !(p->view[i].alloc_shards =
                     calloc(p->nodes[i].gpus, sizeof(uint32_t))))
            return -1;
    }
    if (!(p->gmax = calloc(maxgpus ? maxgpus : 1, sizeof(*p->gmax))))
        return -1;
    /* a capacity is at most the node's CPUs (one per task at least) */
    p->hsize = (maxcpus < HIST_MAX ? maxcpus : HIST_MAX) + 1;
    if (!(p->hist = calloc(p->hsize, sizeof(*p->hist)))
        || !(p->hbits = calloc((p->hsize + 63) / 64, sizeof(*p->hbits))))
        return -1;
    return 0;
}

/* Bit i of 'bits' := whether 'nd' has a free CPU (else no request can use
 * it: a task takes one CPU at least).
 */
static void set_open(uint64_t *bits, size_t i, const struct sched_node *nd,
                     uint32_t oversub)
{
    if (nd->available && !nd->exclusive_alloc
        && nd->alloc_cpus < (uint64_t)nd->cpus * oversub)
        bits[i / 64] |= UINT64_C(1) << (i % 64);
    else
        bits[i / 64] &= ~(UINT64_C(1) << (i % 64));
}

/* p->tier and p->ntiers from the nodes' weights.  Returns 0 or -1 with
 * errno=ENOMEM. */
static int tiers_init(struct pass *p)
{
    uint32_t w[WEIGHT_TIERS];
    size_t nw = 0;

    for (size_t i = 0; i < p->n; i++) {
        size_t t = 0;

        while (t < nw && w[t] != p->nodes[i].weight)
            t++;
        if (t < nw)
            continue;
        if (nw == WEIGHT_TIERS)
            return 0; /* too many: p->ntiers stays 0 */
        for (t = nw++; t > 0 && w[t - 1] > p->nodes[i].weight; t--)
            w[t] = w[t - 1]; /* kept in order */
        w[t] = p->nodes[i].weight;
    }
    p->ntiers = nw ? nw : 1;
    if (nw <= 1)
        return 0; /* tier[0] NULL: all of them */
    for (size_t t = 0; t < nw; t++) {
        if (!(p->tier[t] = calloc(p->words, sizeof(*p->tier[t]))))
            return -1;
        for (size_t i = 0; i < p->n; i++) {
            if (p->nodes[i].weight == w[t])
                p->tier[t][i / 64] |= UINT64_C(1) << (i % 64);
        }
    }
    return 0;
}

/* Returns 0 or -1 with errno=ENOMEM; pass_destroy() cleans up either way. */
static int pass_init(struct pass *p,
                     struct sched_node *nodes,
                     size_t n,
                     size_t max_items,
                     size_t max_keys,
                     int64_t now,
                     const struct sched_pass_opts *opts,
                     uint32_t oversub)
{
    size_t k = n ? n : 1;

    *p = (struct pass){
        .oversub = oversub,
        .nodes = nodes,
        .n = n,
        .now = now,
        .opts = opts ? *opts : SCHED_PASS_OPTS_DEFAULT,
        .first_plan = NEVER_ENDS,
        .first_job_plan = NEVER_ENDS,
        .gen = 1,
    };
    max_items = max_items ? max_items : 1;
    if (keytab_init(&p->keys, max_keys) < 0
        || !(p->items = calloc(max_items, sizeof(*p->items)))
        || !(p->ev = calloc(2 * max_items, sizeof(*p->ev)))
        || !(p->tl = calloc(k, sizeof(*p->tl)))
        || !(p->judge = calloc(k, sizeof(*p->judge)))
        || !(p->open = calloc((k + 63) / 64, sizeof(*p->open)))
        || !(p->open_now = calloc((k + 63) / 64, sizeof(*p->open_now)))
        || !(p->cand = calloc(k, sizeof(*p->cand)))
        || !(p->stamp = calloc(k, sizeof(*p->stamp)))
        || !(p->chg = calloc(k, sizeof(*p->chg)))
        || !(p->chglist = calloc(k, sizeof(*p->chglist)))
        || !(p->dirty = calloc(k, sizeof(*p->dirty)))
        || !(p->todo = calloc(k, sizeof(*p->todo)))
        || !(p->astamp = calloc(k, sizeof(*p->astamp)))
        || !(p->aok = calloc(k, sizeof(*p->aok)))
        || !(p->mask = calloc((k + 63) / 64, sizeof(*p->mask)))
        || !(p->gpu_nodes = calloc((k + 63) / 64, sizeof(*p->gpu_nodes)))
        || !(p->stale = calloc((k + 63) / 64, sizeof(*p->stale))))
        return -1;
    p->words = (n + 63) / 64;
    for (size_t i = 0; i < n; i++) {
        set_open(p->open_now, i, &nodes[i], p->oversub);
        if (nodes[i].gpus)
            p->gpu_nodes[i / 64] |= UINT64_C(1) << (i % 64);
    }
    return tiers_init(p) < 0 ? -1 : view_create(p);
}

/* ---- the times at which usage changes, in order ---- */

static const struct slot *slot_at(const struct pass *p, struct cursor c)
{
    return &p->blk[c.b]->s[c.s];
}

static void cursor_next(const struct pass *p, struct cursor *c)
{
    if (++c->s >= p->blk[c->b]->count) {
        c->b++;
        c->s = 0;
    }
}

/* The first slot at or after 'time'. */
static struct cursor slot_lower_bound(const struct pass *p, int64_t time)
{
    size_t lo = 0, hi = p->nblk;
    uint32_t slo, shi;
    const struct block *bk;

    while (lo < hi) { /* first block whose last slot is >= time */
        size_t mid = lo + (hi - lo) / 2;
        bk = p->blk[mid];
        if (bk->s[bk->count - 1].time < time)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == p->nblk)
        return (struct cursor){ p->nblk, 0 };
    bk = p->blk[lo];
    slo = 0;
    shi = bk->count;
    while (slo < shi) {
        uint32_t mid = slo + (shi - slo) / 2;
        if (bk->s[mid].time < time)
            slo = mid + 1;
        else
            shi = mid;
    }
    return (struct cursor){ lo, slo };
}

/* ---- which nodes are closed when (struct slot.closed) ---- */

static void words_or(uint64_t *dst, const uint64_t *src, size_t words)
{
    for (size_t w = 0; w < words; w++)
        dst[w] |= src[w];
}

/* Word w of a bitmap of the n nodes: the bits that stand for nodes. */
static uint64_t word_valid(const struct pass *p, size_t w)
{
    return w == p->words - 1 && p->n % 64
               ? (UINT64_C(1) << (p->n % 64)) - 1
               : ~UINT64_C(0);
}

/* 'out' := the nodes closed now, before the first slot. */
static void closed_now(const struct pass *p, uint64_t *out)
{
    for (size_t w = 0; w < p->words; w++)
        out[w] = ~p->open_now[w] & word_valid(p, w);
}

/* A block's OR of its slots' closed nodes, from scratch. */
static void block_closed(const struct pass *p, struct block *bk)
{
    if (!p->cl_on)
        return;
    memset(bk->closed, 0, p->words * sizeof(*bk->closed));
    for (uint32_t k = 0; k < bk->count; k++)
        words_or(bk->closed, bk->s[k].closed, p->words);
}

/* A new slot's closed nodes: those of the slot before it, 'prev' (NULL:
 * none, the nodes closed now), since nothing changes at a new time until
 * an item is added there.  *out NULL until closed_init().  Returns 0, or
 * -1 with errno=ENOMEM. */
static int slot_closed_new(const struct pass *p, const uint64_t *prev,
                           uint64_t **out)
{
    uint64_t *b;

    *out = NULL;
    if (!p->cl_on)
        return 0;
    if (!(b = malloc((p->words ? p->words : 1) * sizeof(*b))))
        return -1;
    if (prev)
        memcpy(b, prev, p->words * sizeof(*b));
    else
        closed_now(p, b);
    *out = b;
    return 0;
}

static struct block *block_new(const struct pass *p)
{
    struct block *bk = calloc(1, sizeof(*bk));

    if (bk && p->cl_on
        && !(bk->closed =
                 calloc(p->words ? p->words : 1, sizeof(*bk->closed)))) {
        free(bk);
        return NULL;
    }
    return bk;
}

/* The slot for 'time', made if there is none.  NULL with errno=ENOMEM. */
static struct slot *slot_get(struct pass *p, int64_t time)
{
    struct cursor c;
    struct block *bk;
    uint64_t *closed;

    if (p->nblk == 0) {
        if (!p->blk && !(p->blk = calloc(p->blkcap = 16, sizeof(*p->blk))))
            return NULL;
        if (!(p->blk[0] = block_new(p)))
            return NULL;
        if (slot_closed_new(p, NULL, &closed) < 0)
            return NULL;
        p->nblk = 1; /* the only block ever empty, and only here */
        p->blk[0]->s[0] =
            (struct slot){ .time = time, .head = NIL, .closed = closed };
        p->blk[0]->count = 1;
        block_closed(p, p->blk[0]);
        return &p->blk[0]->s[0];
    }
    c = slot_lower_bound(p, time);
    if (c.b == p->nblk) { /* after every slot: the end of the last block */
        c.b = p->nblk - 1;
        c.s = p->blk[c.b]->count;
    } else if (slot_at(p, c)->time == time) {
        return &p->blk[c.b]->s[c.s];
    }
    bk = p->blk[c.b];
    if (slot_closed_new(p, c.s ? bk->s[c.s - 1].closed
                           : c.b ? p->blk[c.b - 1]->s[p->blk[c.b - 1]->count - 1].closed
                                 : NULL, &closed) < 0)
        return NULL;
    if (bk->count == SLOTS_PER_BLOCK) { /* split it in two */
        struct block *nb;
        uint32_t half = SLOTS_PER_BLOCK / 2;

        if (p->nblk == p->blkcap) {
            struct block **grown =
                realloc(p->blk, 2 * p->blkcap * sizeof(*p->blk));
            if (!grown) {
                free(closed);
                return NULL;
            }
            p->blk = grown;
            p->blkcap *= 2;
        }
        if (!(nb = block_new(p))) {
            free(closed);
            return NULL;
        }
        memcpy(nb->s, &bk->s[half], (SLOTS_PER_BLOCK - half) * sizeof(*nb->s));
        nb->count = SLOTS_PER_BLOCK - half;
        bk->count = half;
        block_closed(p, bk);
        block_closed(p, nb);
        memmove(&p->blk[c.b + 2], &p->blk[c.b + 1],
                (p->nblk - c.b - 1) * sizeof(*p->blk));
        p->blk[c.b + 1] = nb;
        p->nblk++;
        if (c.s > half) {
            c.b++;
            c.s -= half;
            bk = nb;
        }
    }
    memmove(&bk->s[c.s + 1], &bk->s[c.s], (bk->count - c.s) * sizeof(*bk->s));
    bk->s[c.s] = (struct slot){ .time = time, .head = NIL, .closed = closed };
    bk->count++;
    if (closed)
        words_or(bk->closed, closed, p->words);
    return &bk->s[c.s];
}

/* ---- each node's usage over time ---- */

/* The last step at or before 't' (there is one: st[0] is at INT64_MIN).
 * A job's search moves its window forward, so the search gallops from the
 * step found last (tl->hint: 1, 2, 4... steps on) before it bisects: a
 * node's view then reads one or two cache lines of its steps, not the
 * log2(k) a bisection from the start reads (bench/README.md).  A 't'
 * before the hint (the next job's search, which begins near now) gallops
 * from the first step the same way.
 */
static uint32_t step_find(const struct tline *ctl, int64_t t)
{
    struct tline *tl = (struct tline *)ctl; /* the hint only */
    uint32_t lo = 0, hi, step = 1;

    /* from the hint, or when t lies before it from the start (a new job's
     * search begins near now: its step is among the first) */
    if (tl->hint < tl->k && tl->time[tl->hint] <= t)
        lo = tl->hint;
    while (lo + step < tl->k && tl->time[lo + step] <= t) {
        lo += step;
        step *= 2;
    }
    hi = lo + step < tl->k ? lo + step : tl->k;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (tl->time[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    tl->hint = lo;
    return lo;
}

/* The step at exactly 't', made as a copy of the one before if needed.
 * Returns its index, or -1 with errno=ENOMEM.
 */
static long step_split(struct tline *tl, uint32_t gpus, int64_t t)
{
    uint32_t j = step_find(tl, t);

    if (tl->time[j] == t)
        return j;
    if (tl->k == tl->cap) {
        uint32_t cap = tl->cap * 2;
        int64_t *time = realloc(tl->time, cap * sizeof(*time));
        struct step *st;

        if (!time)
            return -1;
        tl->time = time;
        if (!(st = realloc(tl->st, cap * sizeof(*st))))
            return -1;
        tl->st = st;
        if (gpus) {
            int32_t *g = realloc(tl->gpu, (size_t)cap * gpus * sizeof(*g));
            if (!g)
                return -1;
            tl->gpu = g;
        }
        tl->cap = cap;
    }
    memmove(&tl->time[j + 2], &tl->time[j + 1],
            (tl->k - j - 1) * sizeof(*tl->time));
    memmove(&tl->st[j + 2], &tl->st[j + 1], (tl->k - j - 1) * sizeof(*tl->st));
    tl->time[j + 1] = t;
    tl->st[j + 1] = tl->st[j];
    if (gpus) {
        memmove(&tl->gpu[(size_t)(j + 2) * gpus],
                &tl->gpu[(size_t)(j + 1) * gpus],
                (size_t)(tl->k - j - 1) * gpus * sizeof(*tl->gpu));
        memcpy(&tl->gpu[(size_t)(j + 1) * gpus], &tl->gpu[(size_t)j * gpus],
               gpus * sizeof(*tl->gpu));
    }
    tl->k++;
    return j + 1;
}

/* Add entry j of 'a' (sign +1) or take it away (-1) on its node over
 * [s, e).  Returns 0 or -1 with errno=ENOMEM.
 */
/* An empty timeline gets its first step (INT64_MIN: no change).  Returns
 * 0 or -1 with errno=ENOMEM. */
static int tline_init(struct tline *tl, uint32_t gpus)
{
    if (tl->k)
        return 0;
    if (!(tl->time = calloc(4, sizeof(*tl->time)))
        || !(tl->st = calloc(4, sizeof(*tl->st)))
        || (gpus && !(tl->gpu = calloc(4 * (size_t)gpus, sizeof(*tl->gpu)))))
        return -1;
    tl->cap = 4;
    tl->k = 1;
    tl->time[0] = INT64_MIN;
    return 0;
}

static int tline_add(struct pass *p,
                     const struct sched_alloc *a,
                     uint32_t j,
                     int64_t s,
                     int64_t e,
                     int sign)
{
    uint32_t idx = a->node_idx[j], gpus = tl_width(&p->nodes[idx]);
    struct tline *tl = &p->tl[idx];
    long js, je;

    if (tline_init(tl, gpus) < 0 || (js = step_split(tl, gpus, s)) < 0)
        return -1;
    je = tl->k;
    if (e != NEVER_ENDS && (je = step_split(tl, gpus, e)) < 0)
        return -1;
    for (long k = js; k < je; k++) {
        struct step *st = &tl->st[k];
        int32_t *use = gpus ? &tl->gpu[(size_t)k * gpus] : NULL;

        st->cpus += sign * (int64_t)a->cpus[j];
        st->mem += sign * (int64_t)a->mem_mib[j];
        st->running += sign;
        st->excl += a->exclusive ? sign : 0;
        if (use)
            use_add(use, &p->nodes[idx], a, j, sign);
    }
    return 0;
}

/* Would node i be busy with 'cpus' CPUs, 'running' holders and 'excl'
 * exclusive ones more than it has now: of no use to an exclusive job
 * (select.c's node_room() refuses it)? */
static bool busy_with(const struct pass *p, size_t i, int64_t cpus,
                      int32_t running, int32_t excl)
{
    const struct sched_node *nd = &p->nodes[i];

    return !nd->available || (int32_t)nd->exclusive_alloc + excl > 0
           || (int64_t)nd->running_jobs + running > 0
           || (int64_t)nd->alloc_cpus + cpus > 0;
}

/* Span index of time t (> now), rounded up ('up') or down. */
static int64_t span_of(const struct pass *p, int64_t t, bool up)
{
    int64_t k;

    if (t <= p->now)
        return 0;
    if (t == NEVER_ENDS)
        return BUSY_SPANS;
    k = (t - p->now) / BUSY_SPAN_S;
    if (up && (t - p->now) % BUSY_SPAN_S)
        k++;
    return k < BUSY_SPANS ? k : BUSY_SPANS;
}

/* bits[w] := the spans [ka, kb) of word w (0 <= ka, kb <= BUSY_SPANS). */
static void span_bits(int64_t ka, int64_t kb, uint64_t *bits)
{
    for (int64_t w = 0; w < BUSY_WORDS; w++) {
        int64_t lo = ka > w * 64 ? ka : w * 64;
        int64_t hi = kb < (w + 1) * 64 ? kb : (w + 1) * 64;

        bits[w] = lo >= hi ? 0
                  : (hi - lo == 64 ? ~UINT64_C(0)
                                   : ((UINT64_C(1) << (hi - lo)) - 1))
                        << (lo - w * 64);
    }
}

/* Node i is busy at some instant of [a, b): every span meeting it says
 * so. */
static void busy_mark(struct pass *p, size_t i, int64_t a, int64_t b)
{
    uint64_t bits[BUSY_WORDS];

    if (b <= p->now)
        return;
    span_bits(span_of(p, a, false), span_of(p, b, true), bits);
    for (size_t w = 0; w < BUSY_WORDS; w++)
        p->busy[i * BUSY_WORDS + w] |= bits[w];
}

/* p->bmask := the nodes busy in some span lying within [t, e) (not all
 * those busy in it: a span only partly in the window does not count). */
static void busy_window(struct pass *p, int64_t t, int64_t e)
{
    uint64_t q[BUSY_WORDS], any = 0;

    span_bits(span_of(p, t, true), span_of(p, e, false), q);
    for (size_t w = 0; w < BUSY_WORDS; w++)
        any |= q[w];
    memset(p->bmask, 0, p->words * sizeof(*p->bmask));
    for (size_t i = 0; any && i < p->n; i++) {
        uint64_t hit = 0;

        for (size_t w = 0; w < BUSY_WORDS; w++)
            hit |= p->busy[i * BUSY_WORDS + w] & q[w];
        if (hit)
            p->bmask[i / 64] |= UINT64_C(1) << (i % 64);
    }
}

/* Would node i be closed (no free CPU, as set_open()) with 'cpus' CPUs and
 * 'excl' exclusive holders more than it has in use now? */
static bool closed_with(const struct pass *p, size_t i, int64_t cpus,
                        int32_t excl)
{
    const struct sched_node *nd = &p->nodes[i];

    return !nd->available || (int32_t)nd->exclusive_alloc + excl > 0
           || (int64_t)nd->alloc_cpus + cpus
                  >= (int64_t)nd->cpus * (int64_t)p->oversub;
}

/* Node i closed in every slot that begins in [a, b). */
static void slots_close(struct pass *p, uint32_t i, int64_t a, int64_t b)
{
    uint64_t bit = UINT64_C(1) << (i % 64);
    size_t w = i / 64;

    for (struct cursor c = slot_lower_bound(p, a);
         c.b < p->nblk && slot_at(p, c)->time < b; cursor_next(p, &c)) {
        p->blk[c.b]->s[c.s].closed[w] |= bit;
        p->blk[c.b]->closed[w] |= bit;
    }
}

/* Node i's usage grew over [s, e) (its timeline, or now): the slots there
 * in which it is closed say so.  Every step of a timeline begins at a slot
 * (items make both at their start and end), so a slot lies within one
 * step.  Usage only grows during a pass, so bits are only ever set. */
static void closed_mark(struct pass *p, uint32_t i, int64_t s, int64_t e)
{
    const struct tline *tl = &p->tl[i];

    if (!p->cl_on)
        return;
    if (tl->k == 0) {
        if (closed_with(p, i, 0, 0))
            slots_close(p, i, s, e);
        if (busy_with(p, i, 0, 0, 0))
            busy_mark(p, i, s, e);
        return;
    }
    for (uint32_t j = step_find(tl, s); j < tl->k && tl->time[j] < e; j++) {
        int64_t a = tl->time[j] > s ? tl->time[j] : s;
        int64_t b = j + 1 < tl->k && tl->time[j + 1] < e ? tl->time[j + 1]
                                                         : e;

        if (closed_with(p, i, tl->st[j].cpus, tl->st[j].excl))
            slots_close(p, i, a, b);
        if (busy_with(p, i, tl->st[j].cpus, tl->st[j].running,
                      tl->st[j].excl))
            busy_mark(p, i, a, b);
    }
}

/* From the first whole view on, the slots keep which nodes are closed
 * (a pass that needs none, every job starting, pays nothing for them):
 * made from the timelines and the usage now.  Returns 0, or -1 with
 * errno=ENOMEM. */
static int closed_init(struct pass *p)
{
    size_t words = p->words ? p->words : 1;

    /* so do the nodes' busy spans (busy_mark()) */
    if (!(p->busy = calloc(p->n ? p->n * BUSY_WORDS : 1, sizeof(*p->busy)))
        || !(p->bmask = calloc(words, sizeof(*p->bmask))))
        return -1;
    for (size_t b = 0; b < p->nblk; b++) {
        struct block *bk = p->blk[b];

        if (!(bk->closed = calloc(words, sizeof(*bk->closed))))
            return -1;
        for (uint32_t k = 0; k < bk->count; k++)
            if (!(bk->s[k].closed = calloc(words, sizeof(*bk->closed))))
                return -1;
    }
    p->cl_on = true;
    for (uint32_t i = 0; i < p->n; i++)
        closed_mark(p, i, INT64_MIN, NEVER_ENDS);
    return 0;
}

/* p->mask := the nodes closed at some instant of [t, e): those of the
 * slot at or before t (or now's, before the first slot) and of every
 * slot after it that begins before e. */
static void closed_window(struct pass *p, int64_t t, int64_t e)
{
    struct cursor c = slot_lower_bound(p, t);

    memset(p->mask, 0, p->words * sizeof(*p->mask));
    if (c.b == p->nblk || slot_at(p, c)->time != t) {
        if (c.s) {
            c.s--;
        } else if (c.b) {
            c.b--;
            c.s = p->blk[c.b]->count - 1;
        } else {
            closed_now(p, p->mask);
        }
    }
    while (c.b < p->nblk) {
        const struct block *bk = p->blk[c.b];

        if (c.s == 0 && bk->s[bk->count - 1].time < e) {
            words_or(p->mask, bk->closed, p->words);
            c.b++;
            continue;
        }
        if (bk->s[c.s].time >= e)
            break;
        words_or(p->mask, bk->s[c.s].closed, p->words);
        cursor_next(p, &c);
    }
}

/* Record an item: a planned one takes its resources over [start, end),
 * anything else gives them back at its end.  Returns 0 or -1 with
 * errno=ENOMEM.
 */
/* Append the nodes of 'a' to 'nv'.  Returns 0 or -1 with errno=ENOMEM. */
static int nodevec_add(struct nodevec *nv, const struct sched_alloc *a)
{
    if (nv->n + a->node_count > nv->cap) {
        uint32_t cap = nv->cap ? nv->cap : 8;
        uint32_t *v;

        while (cap < nv->n + a->node_count)
            cap *= 2;
        if (!(v = realloc(nv->v, cap * sizeof(*v))))
            return -1;
        nv->v = v;
        nv->cap = cap;
    }
    memcpy(&nv->v[nv->n], a->node_idx, a->node_count * sizeof(*nv->v));
    nv->n += a->node_count;
    return 0;
}

/* Register item 'id' in the slots: where a planned one begins, and where
 * it ends.  Returns 0 or -1 with errno=ENOMEM. */
static int item_slots(struct pass *p, uint32_t id)
{
    const struct item *it = &p->items[id];
    struct slot *sl;

    if (it->planned) {
        if (!(sl = slot_get(p, it->start))
            || nodevec_add(&sl->begins, it->alloc) < 0)
            return -1;
        p->ev[p->nev] = (struct evrec){ id, sl->head };
        sl->head = p->nev++;
        sl->nbegins++;
        if (it->start < p->first_plan)
            p->first_plan = it->start;
    }
    if (it->end <= p->now)
        p->ended_now = true;
    if (it->end != NEVER_ENDS) {
        if (!(sl = slot_get(p, it->end)) || nodevec_add(&sl->ends, it->alloc) < 0)
            return -1;
        p->ev[p->nev] = (struct evrec){ id, sl->head };
        sl->head = p->nev++;
        sl->nends++;
    }
    return 0;
}

/* Node 'idx' changed: its view is to be looked at again. */
static void node_changed(struct pass *p, uint32_t idx)
{
    if (!p->chg[idx]) {
        p->chg[idx] = 1;
        p->chglist[p->nchg++] = idx;
    }
}

static int item_add(struct pass *p,
                    int64_t start,
                    int64_t end,
                    const struct sched_alloc *alloc,
                    bool planned)
{
    uint32_t id = (uint32_t)p->nitems++;

    p->items[id] = (struct item){ start, end, alloc, planned };
    if (item_slots(p, id) < 0)
        return -1;
    for (uint32_t j = 0; j < alloc->node_count; j++) {
        int rc = planned ? tline_add(p, alloc, j, start, end, +1)
                         : end == NEVER_ENDS
                               ? 0
                               : tline_add(p, alloc, j, end, NEVER_ENDS, -1);
        if (rc < 0)
            return -1;
        if (planned)
            closed_mark(p, alloc->node_idx[j], start, end);
        node_changed(p, alloc->node_idx[j]);
    }
    return 0;
}

/* ---- the view of a window, and how a request judges it ---- */

static uint64_t clamp_u(int64_t v, uint64_t max)
{
    return v < 0 ? 0 : (uint64_t)v > max ? max : (uint64_t)v;
}

/* view[i] usage := the most node i has in use at any instant of [t, e):
 * its usage now, changed by its timeline's step at t and every step after
 * it before e, each resource (and GPU index) on its own.
 */
static void view_node(struct pass *p, size_t i, int64_t t, int64_t e)
{
    const struct sched_node *nd = &p->nodes[i];
    const struct tline *tl = &p->tl[i];
    struct sched_node *v = &p->view[i];
    uint32_t gpus = tl_width(nd);
    int64_t cpus = 0, mem = 0;
    int32_t running = 0, excl = 0;
    int32_t *gmax = p->gmax;

    if (tl->k) {
        uint32_t j = step_find(tl, t);
        const struct step *st = &tl->st[j];

        cpus = st->cpus;
        mem = st->mem;
        running = st->running;
        excl = st->excl;
        if (gpus)
            memcpy(gmax, &tl->gpu[(size_t)j * gpus], gpus * sizeof(*gmax));
        for (j++; j < tl->k && tl->time[j] < e; j++) {
            st = &tl->st[j];
            cpus = st->cpus > cpus ? st->cpus : cpus;
            mem = st->mem > mem ? st->mem : mem;
            running = st->running > running ? st->running : running;
            excl = st->excl > excl ? st->excl : excl;
            for (uint32_t g = 0; g < gpus; g++) {
                int32_t u = tl->gpu[(size_t)j * gpus + g];
                gmax[g] = u > gmax[g] ? u : gmax[g];
            }
        }
    } else if (gpus) {
        memset(gmax, 0, gpus * sizeof(*gmax));
    }
    v->alloc_cpus = (uint32_t)clamp_u((int64_t)nd->alloc_cpus + cpus,
                                      UINT32_MAX);
    v->alloc_mem_mib = clamp_u((int64_t)nd->alloc_mem_mib + mem, UINT64_MAX);
    v->running_jobs = (uint32_t)clamp_u((int64_t)nd->running_jobs + running,
                                        UINT32_MAX);
    v->exclusive_alloc = (int32_t)nd->exclusive_alloc + excl > 0;
    set_open(p->open, i, v, p->oversub);
    gpus = nd->gpus;
    for (uint32_t g = 0; nd->shards && g < gpus; g++)
        v->alloc_shards[g] = (uint32_t)clamp_u(
            (int64_t)nd->alloc_shards[g] + gmax[gpus + g], UINT32_MAX);
    if (gpus) {
        bitmap_clear_all(v->alloc_gpus);
        bitmap_or(v->alloc_gpus, nd->alloc_gpus);
        for (uint32_t g = 0; g < gpus; g++) {
            if (gmax[g] == 0)
                continue;
            if ((int32_t)bitmap_test(nd->alloc_gpus, g) + gmax[g] > 0)
                bitmap_set(v->alloc_gpus, g);
            else
                bitmap_clear(v->alloc_gpus, g);
        }
    }
}

/* Count a candidate's capacity in (sign +1) or out (-1) of the sums. */
static void judge_count(struct pass *p, const struct cand *c, int sign)
{
    p->nc += sign;
    p->nreqc += sign * (int)c->required;
    p->sumcap += sign * (int64_t)c->cap;
    p->sumgpu += sign * (int64_t)c->gfree;
    if (c->cap < p->hsize) {
        if ((p->hist[c->cap] += sign) > 0)
            p->hbits[c->cap / 64] |= UINT64_C(1) << (c->cap % 64);
        else
            p->hbits[c->cap / 64] &= ~(UINT64_C(1) << (c->cap % 64));
    } else {
        p->hbig += sign;
        p->hbig_sum += sign * (int64_t)c->cap;
    }
}

static bool is_open(const struct pass *p, size_t i)
{
    return p->open[i / 64] >> (i % 64) & 1;
}

/* The nodes' sched__node_allowed() answers to be those for 'r': kept
 * when 'r' is of the class they were found for. */
static void allow_class(struct pass *p, const struct sel_req *r)
{
    if (p->agen && sched__same_static(&p->aclass, r))
        return;
    p->aclass = *r;
    if (++p->agen == 0) { /* wrapped: no stamp may look current */
        memset(p->astamp, 0, p->n * sizeof(*p->astamp));
        p->agen = 1;
    }
}

/* sched__node_allowed() for node i and the class allow_class() set. */
static bool allowed(struct pass *p, size_t i)
{
    if (p->astamp[i] != p->agen) {
        p->aok[i] = sched__node_allowed(&p->aclass, p->nodes, i);
        p->astamp[i] = p->agen;
    }
    return p->aok[i];
}

/* Judge view[i] for 'r' (of the class allow_class() set) again, keeping
 * the sums in step. */
static void judge_node(struct pass *p, const struct sel_req *r, size_t i)
{
    struct cand *c = &p->judge[i];

    if (c->cap)
        judge_count(p, c, -1);
    /* no free CPU: no request can use it (a task takes one at least) */
    if (!is_open(p, i) || !allowed(p, i)
        || !sched__node_eval_allowed(p->view, i, r, c))
        c->cap = 0;
    if (c->cap)
        judge_count(p, c, +1);
}

static void mark_node(struct pass *p, uint32_t idx)
{
    if (p->stamp[idx] != p->gen) {
        p->stamp[idx] = p->gen;
        p->dirty[p->ndirty++] = idx;
    }
}

/* Which nodes of the items changing at a slot mark_slot() marks. */
enum mark {
    MARK_ALL,  /* all of them */
    MARK_JOIN, /* the slot joins the end of a window moving on, nothing
                * leaves it: only where a reservation begins (usage falls
                * where something ends, and the instant before is in the
                * window), and only nodes with a free CPU: on the others
                * the most used instant can only rise, and they stay of
                * no use (their view is left as it is, full) */
    MARK_LEAVE, /* the window's start moves on to this slot, and its end
                 * does not go back: only where something ends (where a
                 * reservation begins, usage rises, so what leaves the
                 * window was used no more than what follows in it), and
                 * not nodes closed from the slot on and not open in the
                 * view (they stay of no use) */
};

/* Nodes of the items changing at slot 'sl' join the dirty list, as 'how'
 * says.
 */
static void mark_slot(struct pass *p, const struct slot *sl, enum mark how)
{
    if (how != MARK_LEAVE) { /* where reservations begin */
        for (uint32_t k = 0; k < sl->begins.n; k++) {
            uint32_t idx = sl->begins.v[k];

            if (how == MARK_ALL || is_open(p, idx))
                mark_node(p, idx);
        }
    }
    if (how != MARK_JOIN) { /* where something ends */
        for (uint32_t k = 0; k < sl->ends.n; k++) {
            uint32_t idx = sl->ends.v[k];

            if (how == MARK_ALL || is_open(p, idx)
                || !(sl->closed[idx / 64] >> (idx % 64) & 1))
                mark_node(p, idx);
        }
    }
}

/* Slots in [from, to), counted by block. */
static size_t slots_between(const struct pass *p, int64_t from, int64_t to)
{
    struct cursor a = slot_lower_bound(p, from), b = slot_lower_bound(p, to);
    size_t count = 0;

    for (size_t k = a.b; k < b.b; k++)
        count += p->blk[k]->count;
    return count - a.s + (b.b < p->nblk ? b.s : 0);
}

/* Mark the nodes of every slot in [from, to); false (and stopped, or not
 * begun when there are more than MARK_SLOTS_MAX slots) once more than
 * 'most' nodes would be marked.
 */
static bool mark_times(struct pass *p, int64_t from, int64_t to, size_t most)
{
    if (slots_between(p, from, to) > MARK_SLOTS_MAX)
        return false;
    for (struct cursor c = slot_lower_bound(p, from);
         c.b < p->nblk && slot_at(p, c)->time < to; cursor_next(p, &c)) {
        mark_slot(p, slot_at(p, c), MARK_ALL);
        if (p->ndirty > most)
            return false;
    }
    return true;
}

/* Empty the dirty list. */
static void dirty_reset(struct pass *p)
{
    p->ndirty = 0;
    if (++p->gen == 0) { /* wrapped: no stamp may look current */
        memset(p->stamp, 0, p->n * sizeof(*p->stamp));
        p->gen = 1;
    }
}

/* Word w of the bitmap of the nodes a request of r's kind can use at
 * all: those with GPUs for a request of GPUs (a quarter of bench/sched's
 * nodes, whose views the GPU jobs' plans no longer compute), else all.
 */
static uint64_t use_word(const struct pass *p, const struct sel_req *r,
                         size_t w)
{
    return r->gpn || r->gpt || r->gtot || r->spn ? p->gpu_nodes[w]
                                                 : word_valid(p, w);
}

/* Word w of the nodes a view of [t, e) for 'r' computes (after
 * closed_window(), and busy_window() for an exclusive request): those
 * open throughout that it can use (use_word()), and for an exclusive
 * request not busy in a span within the window either. */
static uint64_t want_word(const struct pass *p, const struct sel_req *r,
                          size_t w)
{
    uint64_t want = ~p->mask[w] & use_word(p, r, w);

    return r->exclusive ? want & ~p->bmask[w] : want;
}

static bool of_use(const struct pass *p, const struct sel_req *r, size_t i)
{
    return use_word(p, r, i / 64) >> (i % 64) & 1;
}

/* view_node() of node i, which is then no longer stale. */
static void view_fresh(struct pass *p, size_t i, int64_t t, int64_t e)
{
    view_node(p, i, t, e);
    p->stale[i / 64] &= ~(UINT64_C(1) << (i % 64));
}

/* Node i, of no use to the view's request, is left stale, not open. */
static void leave_stale(struct pass *p, size_t i)
{
    struct cand *c = &p->judge[i];

    if (c->cap)
        judge_count(p, c, -1);
    c->cap = 0;
    p->open[i / 64] &= ~(UINT64_C(1) << (i % 64));
    p->stale[i / 64] |= UINT64_C(1) << (i % 64);
}

/* The view of the dirty nodes for [t, e), judged again. */
static void view_dirty(struct pass *p,
                       const struct sel_req *r,
                       int64_t t,
                       int64_t e)
{
    allow_class(p, r);
    for (size_t k = 0; k < p->ndirty; k++) {
        uint32_t i = p->dirty[k];

        if (!of_use(p, r, i)) {
            leave_stale(p, i);
            continue;
        }
        view_fresh(p, i, t, e);
        judge_node(p, r, i);
    }
    dirty_reset(p);
    p->vt = t;
    p->ve = e;
}

#ifdef PASS_CHECK_CLOSED
#include <stdio.h>
/* tests/unit (test_sched_pass_closed): every node is closed in [t, e),
 * as view_node() finds, exactly when p->mask says so, or abort(). */
static void closed_check(struct pass *p, int64_t t, int64_t e)
{
    for (size_t i = 0; i < p->n; i++) {
        bool masked = p->mask[i / 64] >> (i % 64) & 1;
        uint64_t save = p->open[i / 64];

        view_node(p, i, t, e);
        if (masked == is_open(p, i)) {
            fprintf(stderr, "pass.c: node %zu %s in [%lld, %lld)\n", i,
                    masked ? "masked but open" : "closed but not masked",
                    (long long)t, (long long)e);
            abort();
        }
        p->open[i / 64] = save;
    }
}
#else
#define closed_check(p, t, e) ((void)0)
#endif

/* How many times select_view() and select_now() walk the nodes: once per
 * tier of Weight= (once for all, with too many tiers). */
static size_t tiers(const struct pass *p)
{
    return p->ntiers ? p->ntiers : 1;
}

/* Word w of the bitmap of tier t's nodes. */
static uint64_t tier_word(const struct pass *p, size_t t, size_t w)
{
    return p->tier[t] ? p->tier[t][w] : ~UINT64_C(0);
}

/* Do the candidates of 'r', gathered tier by tier, come in Slurm's node
 * order (sched__select_cands()'s in_pref)?  Not when there are too many
 * weights, or required nodes, which come first. */
static bool in_pref(const struct pass *p, const struct sel_req *r)
{
    return p->ntiers && r->nreq == 0;
}

/* Node list[k + 1..n) fetched ahead of view_node() on list[k]. */
static void view_prefetch(const struct pass *p, const uint32_t *list,
                          size_t n, size_t k)
{
    if (k + 8 < n)
        __builtin_prefetch(&p->tl[list[k + 8]]);
    if (k + 4 < n) {
        const struct tline *ahead = &p->tl[list[k + 4]];
        if (ahead->k) {
            __builtin_prefetch(&ahead->time[ahead->hint]);
            __builtin_prefetch(&ahead->st[ahead->hint]);
        }
        __builtin_prefetch(&p->nodes[list[k + 4]]);
    }
}

/* view_all() computing every node anew: those want_word() gives, tier by
 * tier of Weight= (Slurm's node order), judged as they are computed; the
 * others are left, stale where they may be open.  When the first
 * candidate in that order holds all of the request, it is the choice
 * (sched__select_cands()), and the nodes after it are left stale too: a
 * one-task job's view in a deep plan computed hundreds of nodes for its
 * first. */
static void view_whole(struct pass *p,
                       const struct sel_req *r,
                       int64_t t,
                       int64_t e)
{
    bool first_fit = in_pref(p, r);
    size_t nt = 0;

    for (size_t w = 0; w < p->words; w++) {
        for (uint64_t bits = p->open[w]; bits; bits &= bits - 1)
            p->judge[w * 64 + (size_t)__builtin_ctzll(bits)].cap = 0;
        p->open[w] = 0;
        p->stale[w] = ~p->mask[w] & ~want_word(p, r, w) & word_valid(p, w);
    }
    for (size_t tr = 0; tr < tiers(p); tr++) {
        for (size_t w = 0; w < p->words; w++) {
            for (uint64_t todo = want_word(p, r, w) & tier_word(p, tr, w);
                 todo; todo &= todo - 1)
                p->todo[nt++] =
                    (uint32_t)(w * 64 + (size_t)__builtin_ctzll(todo));
        }
    }
    for (size_t k = 0; k < nt; k++) {
        uint32_t i = p->todo[k];

        view_prefetch(p, p->todo, nt, k);
        view_node(p, i, t, e);
        p->judge[i].cap = 0;
        if (!is_open(p, i))
            continue;
        judge_node(p, r, i); /* while it is at hand */
        if (first_fit && p->nc == 1 && p->judge[i].cap
            && sched__cand_holds_all(&p->judge[i], r)) {
            while (++k < nt)
                p->stale[p->todo[k] / 64] |= UINT64_C(1) << (p->todo[k] % 64);
            break;
        }
    }
    closed_check(p, t, e);
}

/* The whole view for [t, e), judged for 'r'.  What the view held is kept
 * for the nodes with no change since and no step between the two windows'
 * starts or between their ends, unless more would be computed again than
 * there are nodes open throughout [t, e).  Nodes closed somewhere in it
 * (p->mask) are not computed: their view is left, not open.  Returns 0,
 * or -1 with errno=ENOMEM.
 */
static int view_all(struct pass *p,
                    const struct sel_req *r,
                    int64_t t,
                    int64_t e)
{
    bool whole = !p->vvalid;
    size_t unmasked = 0;

    allow_class(p, r);
    if (!p->cl_on && closed_init(p) < 0)
        return -1;
    closed_window(p, t, e);
    if (r->exclusive)
        busy_window(p, t, e);
    if (!whole) {
        for (size_t w = 0; w < p->words; w++)
            unmasked += (size_t)__builtin_popcountll(want_word(p, r, w));
        for (size_t k = 0; k < p->nchg; k++)
            mark_node(p, p->chglist[k]);
        if (p->vt != t)
            whole = !mark_times(p, (p->vt < t ? p->vt : t) + 1,
                                (p->vt < t ? t : p->vt) + 1, unmasked);
        if (!whole && p->ve != e)
            whole = !mark_times(p, p->ve < e ? p->ve : e,
                                p->ve < e ? e : p->ve, unmasked);
        /* the stale nodes this request can use, open throughout */
        for (size_t w = 0; !whole && w < p->words; w++) {
            for (uint64_t bits = p->stale[w] & want_word(p, r, w); bits;
                 bits &= bits - 1)
                mark_node(p, (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits)));
        }
    }
    for (size_t k = 0; k < p->nchg; k++)
        p->chg[p->chglist[k]] = 0;
    p->nchg = 0;
    p->nc = p->nreqc = p->hbig = 0; /* every open node is judged below */
    p->sumcap = p->sumgpu = p->hbig_sum = 0;
    memset(p->hist, 0, p->hsize * sizeof(*p->hist));
    memset(p->hbits, 0, (p->hsize + 63) / 64 * sizeof(*p->hbits));
    if (whole) {
        view_whole(p, r, t, e);
    } else {
        for (size_t k = 0; k < p->ndirty; k++) {
            uint32_t i = p->dirty[k];

            p->judge[i].cap = 0;
            if (p->mask[i / 64] >> (i % 64) & 1) {
                p->open[i / 64] &= ~(UINT64_C(1) << (i % 64));
                p->stale[i / 64] &= ~(UINT64_C(1) << (i % 64));
            } else if (!(want_word(p, r, i / 64) >> (i % 64) & 1)) {
                leave_stale(p, i);
            } else {
                view_fresh(p, i, t, e);
            }
        }
        for (size_t w = 0; w < p->words; w++) {
            for (uint64_t bits = p->open[w]; bits; bits &= bits - 1) {
                size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
                p->judge[i].cap = 0;
                judge_node(p, r, i);
            }
        }
    }
    dirty_reset(p);
    p->vvalid = true;
    p->vt = t;
    p->ve = e;
    return 0;
}

/* Could the m largest capacities hold 'need' tasks?  (An upper bound for
 * the ones counted only in hbig.)
 */
static bool top_holds(const struct pass *p, uint64_t m, uint64_t need)
{
    uint64_t sum = p->hbig_sum;

    m -= m < p->hbig ? m : p->hbig;
    for (size_t w = (p->hsize + 63) / 64; w-- > 0 && m > 0 && sum < need;) {
        for (uint64_t bits = p->hbits[w]; bits && m > 0 && sum < need;) {
            unsigned b = 63 - (unsigned)__builtin_clzll(bits);
            uint64_t v = w * 64 + b, take = p->hist[v] < m ? p->hist[v] : m;

            sum += take * v;
            m -= take;
            bits &= ~(UINT64_C(1) << b);
        }
    }
    return sum >= need;
}

/* Could the judged candidates satisfy 'r'?  False only when the choice
 * would certainly fail: too few nodes, tasks or GPUs in all, or (with no
 * required nodes and no GPUs per job, where sched_select() takes the
 * largest when it must) too few tasks on the max_nodes largest.
 */
static bool may_fit(const struct pass *p, const struct sel_req *r)
{
    if (p->nreqc < r->nreq || p->nc < r->min_nodes
        || (r->ntasks && p->sumcap < r->ntasks)
        || (r->gtot && p->sumgpu < r->gtot))
        return false;
    if (r->ntasks && r->nreq == 0 && r->gtot == 0 && r->max_nodes < p->nc)
        return top_holds(p, r->max_nodes, r->ntasks);
    return true;
}

/* sched_select() on the judged view (which must be whole): SCHED_OK with
 * *alloc, SCHED_BUSY, or -1 with errno=ENOMEM.
 */
static int select_view(struct pass *p,
                       const struct sel_req *r,
                       struct sched_alloc **alloc)
{
    size_t nc = 0;

    *alloc = NULL;
    if (!may_fit(p, r))
        return SCHED_BUSY;
    for (size_t t = 0; t < tiers(p); t++) {
        for (size_t w = 0; w < p->words; w++) {
            for (uint64_t bits = p->open[w] & tier_word(p, t, w); bits;
                 bits &= bits - 1) {
                size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
                if (p->judge[i].cap)
                    p->cand[nc++] = p->judge[i];
            }
        }
    }
    return sched__select_cands(p->view, r, p->cand, nc, in_pref(p, r), alloc);
}

/* ---- the pass ---- */

/* Start 'a' now until 'end': it joins the nodes' usage.  Returns 0 or -1
 * with errno=ENOMEM ('a' freed).
 */
static int start_job(struct pass *p,
                     struct sched_alloc *a,
                     int64_t end,
                     struct sched_decision *d)
{
    if (item_add(p, p->now, end, a, false) < 0) {
        sched_alloc_destroy(a);
        return -1;
    }
    (void)sched_alloc_apply(p->nodes, p->n, a); /* valid: chosen on them */
    for (uint32_t j = 0; j < a->node_count; j++) {
        set_open(p->open_now, a->node_idx[j], &p->nodes[a->node_idx[j]],
                 p->oversub);
        closed_mark(p, a->node_idx[j], INT64_MIN, end);
    }
    d->action = SCHED_ACT_START;
    d->reason = SCHED_REASON_NONE;
    d->start_time = p->now;
    d->alloc = a;
    return 0;
}

/* sched_select() on the nodes as they are now (only those with a free CPU
 * can take part): SCHED_OK with *alloc, SCHED_BUSY, or -1 with
 * errno=ENOMEM.
 */
/* 'r' on the nodes as they are now.  For a request with no required node
 * on nodes of one weight, choose()'s order is the nodes' index order and
 * take_prefix() takes the first candidate alone when it holds all of the
 * request, so that candidate is the choice and the scan stops there (a
 * storm of one-task jobs on 10,000 nodes judged every node for each
 * start: bench/storm; a job that gave no node count has no most, so this
 * may not ask for max_nodes 1); otherwise every node with a free CPU is
 * judged. */
static int select_now(struct pass *p,
                      const struct sel_req *r,
                      struct sched_alloc **alloc)
{
    bool first_fit = in_pref(p, r);
    size_t nc = 0;

    *alloc = NULL;
    allow_class(p, r);
    for (size_t t = 0; t < tiers(p); t++) {
        for (size_t w = 0; w < p->words; w++) {
            for (uint64_t bits = p->open_now[w] & tier_word(p, t, w); bits;
                 bits &= bits - 1) {
                size_t i = w * 64 + (size_t)__builtin_ctzll(bits);
                if (!allowed(p, i)
                    || !sched__node_eval_allowed(p->nodes, i, r,
                                                 &p->cand[nc]))
                    continue;
                if (first_fit && nc == 0
                    && sched__cand_holds_all(&p->cand[0], r))
                    return sched__select_cands(p->nodes, r, p->cand, 1,
                                               true, alloc);
                nc++;
            }
        }
    }
    return sched__select_cands(p->nodes, r, p->cand, nc, first_fit, alloc);
}

/* What is known of 'key' (NULL: nothing): KEY_* learnt of it or of a
 * smaller key of its class.
 */
static uint32_t known(const struct key *key)
{
    return key ? key->flags | key->inh : 0;
}

/* For a request that does not fit now: SCHED_BUSY, or SCHED_NEVER if it
 * would not fit on the empty cluster either (as sched_select()), or -1
 * with errno=ENOMEM.
 */
static int busy_or_never(struct pass *p, const struct sel_req *r)
{
    int rc = sched__select_run(p->nodes, p->n, r, true, p->cand, NULL);

    return rc < 0 ? -1 : rc == SCHED_OK ? SCHED_BUSY : SCHED_NEVER;
}

/* 'job' on the nodes as they are now, its request normalized into 'r':
 * SCHED_OK with *a, SCHED_BUSY, SCHED_NEVER, or -1 with errno=ENOMEM.
 */
static int fit_now(struct pass *p,
                   const struct sched_job *job,
                   const struct key *key,
                   struct sel_req *r,
                   struct sched_alloc **a)
{
    int rc;

    *a = NULL;
    if (sched__normalize(job->req, r) < 0)
        return SCHED_NEVER;
    if (key && key->inh & KEY_BUSY) /* a smaller request does not fit */
        return busy_or_never(p, r);
    rc = select_now(p, r, a);
    return rc == SCHED_BUSY ? busy_or_never(p, r) : rc;
}

/* Start 'job' now if it fits and delays no reservation; else say why it
 * waits.  Returns 0, or -1 with errno=ENOMEM.
 */
static int try_start(struct pass *p,
                     const struct sched_job *job,
                     struct key *key,
                     struct sched_decision *d)
{
    int64_t end = held_until(p, end_of(p->now, job->time_limit_s));
    struct sched_alloc *a = NULL;
    struct sel_req r;
    int rc;

    if (key && key->flags & KEY_NEVER) {
        d->action = SCHED_ACT_NEVER;
        return 0;
    }
    d->reason = SCHED_REASON_RESOURCES;
    if (key && key->flags & KEY_BUSY)
        return 0;
    if ((rc = fit_now(p, job, key, &r, &a)) < 0)
        return -1;
    if (rc != SCHED_OK) {
        if (rc == SCHED_NEVER)
            d->action = SCHED_ACT_NEVER;
        if (key)
            keytab_learn(&p->keys, key,
                         rc == SCHED_NEVER ? KEY_NEVER : KEY_BUSY);
        return 0;
    }
    if (p->first_plan < end) {
        /* Place it, if it can be, where no reservation needs to be. */
        sched_alloc_destroy(a);
        a = NULL;
        if (!(known(key) & KEY_WINDOW && !p->ended_now)) {
            if (view_all(p, &r, p->now, end) < 0
                || (rc = select_view(p, &r, &a)) < 0)
                return -1;
        }
        if (!a) {
            /* held back by a job's reservation, or only by opts.holds
             * (an advance reservation: Resources, as Slurm) */
            d->reason = p->first_job_plan < end ? SCHED_REASON_PRIORITY
                                                : SCHED_REASON_RESOURCES;
            if (key)
                keytab_learn(&p->keys, key, KEY_WINDOW);
            return 0;
        }
    }
    return start_job(p, a, end, d);
}

/* Reserve for a waiting job: try each time something ends, earliest first,
 * until it fits for its whole time limit.  No such time within the window
 * means no reservation, and nobody is held back for it.
 * Returns 0, or -1 with errno=ENOMEM.
 */
static int plan_job(struct pass *p,
                    const struct sched_job *job,
                    struct key *key,
                    struct sched_decision *d)
{
    int64_t limit = end_of(p->now, p->opts.window_s ? p->opts.window_s : -1);
    int64_t from = end_of(p->now, 1);
    struct cursor c, right = { 0, 0 };
    bool first = true;
    struct sel_req r;

    if (p->tried >= p->opts.reserve_depth)
        return 0;
    p->tried++;
    if (p->ended_now)
        key = NULL;
    if (known(key) & KEY_NOPLAN || sched__normalize(job->req, &r) < 0)
        return 0;
    if (key && key->hint > from)
        from = key->hint;
    for (c = slot_lower_bound(p, from); c.b < p->nblk; cursor_next(p, &c)) {
        const struct slot *sl = slot_at(p, c);
        int64_t t = sl->time, end;
        struct sched_alloc *a;

        if (!first)
            mark_slot(p, sl, MARK_LEAVE); /* between the last start and t */
        if (sl->nends == 0)
            continue;
        if (t > limit)
            break;
        end = held_until(p, end_of(t, job->time_limit_s));
        if (first) {
            if (view_all(p, &r, t, end) < 0)
                return -1;
            right = slot_lower_bound(p, end);
            first = false;
        } else {
            for (; right.b < p->nblk && slot_at(p, right)->time < end;
                 cursor_next(p, &right))
                mark_slot(p, slot_at(p, right), MARK_JOIN);
            view_dirty(p, &r, t, end);
        }
        if (select_view(p, &r, &a) < 0)
            return -1;
        if (a) {
            if (item_add(p, t, end, a, true) < 0) {
                sched_alloc_destroy(a);
                return -1;
            }
            d->start_time = t;
            d->alloc = a;
            if (t < p->first_job_plan)
                p->first_job_plan = t;
            if (key)
                keytab_hint(&p->keys, key, t);
            return 0;
        }
    }
    dirty_reset(p);
    if (key)
        keytab_learn(&p->keys, key, KEY_NOPLAN);
    return 0;
}

/* One release of running item 'id' at time 't' on entry j of its
 * allocation, appended to its node's timeline: the releases come in time
 * order (release_all()), so a step is added at the end or the last one
 * changed, never one moved.  Returns 0 or -1 with errno=ENOMEM. */
static int tline_release(struct pass *p, uint32_t id, uint32_t j, int64_t t)
{
    const struct sched_alloc *a = p->items[id].alloc;
    uint32_t idx = a->node_idx[j], gpus = tl_width(&p->nodes[idx]);
    struct tline *tl = &p->tl[idx];
    struct step *st;
    int32_t *use;

    if (tline_init(tl, gpus) < 0
        || (tl->time[tl->k - 1] != t && step_split(tl, gpus, t) < 0))
        return -1;
    st = &tl->st[tl->k - 1];
    use = gpus ? &tl->gpu[(size_t)(tl->k - 1) * gpus] : NULL;
    st->cpus -= (int64_t)a->cpus[j];
    st->mem -= (int64_t)a->mem_mib[j];
    st->running--;
    st->excl -= a->exclusive ? 1 : 0;
    if (use)
        use_add(use, &p->nodes[idx], a, j, -1);
    return 0;
}

/* Every running item's release, slot by slot in time order (only running
 * items are in the slots yet). */
static int release_all(struct pass *p)
{
    for (struct cursor c = {0, 0}; c.b < p->nblk; cursor_next(p, &c)) {
        const struct slot *sl = slot_at(p, c);
        for (uint32_t k = sl->head; k != NIL; k = p->ev[k].next) {
            uint32_t id = p->ev[k].item;
            for (uint32_t j = 0; j < p->items[id].alloc->node_count; j++)
                if (tline_release(p, id, j, sl->time) < 0)
                    return -1;
        }
    }
    return 0;
}

/* Running jobs free their resources at their end time; one past its limit
 * (still being killed) is taken to end in the next second.  They are
 * registered first, then each node's timeline is built in time order
 * (release_all()): adding releases one by one moved every later step for
 * each, quadratic in the jobs of a node.
 */
static int add_running(struct pass *p,
                       const struct sched_job *running,
                       size_t nrunning)
{
    for (size_t i = 0; i < nrunning; i++) {
        const struct sched_job *job = &running[i];
        int64_t end = end_of(job->start_time, job->time_limit_s);
        uint32_t id;

        /* the allocations lie all over the heap: fetch a few ahead (the
         * record and its per-node arrays after it, sched_alloc_create()) */
        if (i + 8 < nrunning && running[i + 8].alloc) {
            __builtin_prefetch(running[i + 8].alloc);
            __builtin_prefetch((const char *)running[i + 8].alloc + 64);
        }

        end = held_until(p, end > p->now ? end : p->now + 1);
        if (!job->alloc)
            continue;
        if (!sched__alloc_valid(p->nodes, p->n, job->alloc)) {
            errno = EINVAL;
            return -1;
        }
        id = (uint32_t)p->nitems++;
        p->items[id] = (struct item){ job->start_time, end, job->alloc, false };
        if (item_slots(p, id) < 0)
            return -1;
        for (uint32_t j = 0; j < job->alloc->node_count; j++)
            node_changed(p, job->alloc->node_idx[j]);
    }
    return release_all(p);
}

/* Advance reservations hold their resources from their start (now, if it
 * has come) to their end, like reservations made before any job's.
 */
static int add_holds(struct pass *p)
{
    for (size_t i = 0; i < p->opts.nholds; i++) {
        const struct sched_hold *h = &p->opts.holds[i];
        int64_t start = h->start > p->now ? h->start : p->now;

        if (h->end <= p->now || !h->alloc)
            continue;
        if (!sched__alloc_valid(p->nodes, p->n, h->alloc)) {
            errno = EINVAL;
            return -1;
        }
        if (item_add(p, start, held_until(p, h->end), h->alloc, true) < 0)
            return -1;
    }
    return 0;
}

/* The largest OverSubscribe factor among the pending requests (1: none). */
static uint32_t oversub_max(const struct sched_job *pending, size_t n)
{
    uint32_t m = 1;

    for (size_t i = 0; i < n; i++)
        if (pending[i].req && pending[i].req->oversubscribe > m)
            m = pending[i].req->oversubscribe;
    return m;
}

/* Undo the jobs this pass started and free every allocation in 'out'. */
static void pass_undo(struct pass *p, struct sched_decision *out, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (out[i].action == SCHED_ACT_START && out[i].alloc)
            (void)sched_alloc_release(p->nodes, p->n, out[i].alloc);
    }
    sched_decisions_clear(out, count);
}

int sched_pass(struct sched_node *nodes,
               size_t n,
               const struct sched_job *running,
               size_t nrunning,
               const struct sched_job *pending,
               size_t npending,
               int64_t now,
               const struct sched_pass_opts *opts,
               struct sched_decision *out)
{
    struct pass p;
    uint32_t starts = 0;
    size_t i;

    if ((!nodes && n) || (!running && nrunning) || (!pending && npending)
        || (!out && npending) || !nodes_valid(nodes, n)) {
        errno = EINVAL;
        return -1;
    }
    for (i = 0; i < npending; i++)
        out[i] = (struct sched_decision){ .job_id = pending[i].id,
                                          .action = SCHED_ACT_WAIT,
                                          .start_time = -1 };
    if (pass_init(&p, nodes, n,
                  nrunning + npending + (opts ? opts->nholds : 0), npending,
                  now, opts, oversub_max(pending, npending)) < 0
        || add_running(&p, running, nrunning) < 0 || add_holds(&p) < 0)
        goto error;
    for (i = 0; i < npending; i++) {
        struct key *key;

        if (p.opts.admit && !p.opts.admit(p.opts.gate_arg, i)) {
            out[i].reason = SCHED_REASON_LIMIT;
            continue;
        }
        key = keytab_get(&p.keys, &pending[i]);
        if (try_start(&p, &pending[i], key, &out[i]) < 0)
            goto error;
        if (out[i].action == SCHED_ACT_START && p.opts.started)
            p.opts.started(p.opts.gate_arg, i);
        if (out[i].action == SCHED_ACT_START && p.opts.max_starts
            && ++starts == p.opts.max_starts) {
            while (++i < npending)
                out[i].action = SCHED_ACT_LATER;
            break;
        }
        if (out[i].action == SCHED_ACT_WAIT
            && (!p.opts.reserve_prefix || i < p.opts.reserve_depth)
            && plan_job(&p, &pending[i], key, &out[i]) < 0)
            goto error;
    }
    pass_destroy(&p);
    return 0;
error:
    pass_undo(&p, out, npending);
    pass_destroy(&p);
    return -1;
}
