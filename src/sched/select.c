/* SPDX-License-Identifier: Apache-2.0
 *
 * select.c - node selection: which nodes, CPUs, memory and GPUs a job gets
 *
 * The rules are Slurm select/cons_tres with CPUs counted one by one.  Nodes
 * are judged one at a time into candidates (how many tasks and GPUs each
 * could take), then the fewest candidates that satisfy the request are
 * chosen, preferring low weight and low index as Slurm's node ordering does.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/feature_expr.h"
#include "sched/sched.h"
#include "sched/sched_private.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* Free resources of one node, as seen by one request. */
struct node_room {
    uint64_t cpus;
    uint64_t mem;
    uint64_t gpus; /* of the requested type */
    long shard_gpu; /* the GPU to lend the request's shards, or -1 */
};

/* One block: the record, then each per-node array (pointers first, so
 * every array is aligned), so that a pass reading 40,000 running jobs'
 * allocations misses one or two cache lines of each, not eight
 * (bench/scale). */
struct sched_alloc *sched_alloc_create(uint32_t node_count)
{
    struct sched_alloc *a;
    size_t k = node_count ? node_count : 1;
    size_t size = sizeof(*a)
                  + k * (sizeof(*a->gpus) + sizeof(*a->cpu_ids)
                         + sizeof(*a->mem_mib) + sizeof(*a->node_idx)
                         + sizeof(*a->tasks) + sizeof(*a->cpus)
                         + sizeof(*a->shards));
    char *p;

    if (!(a = calloc(1, size))) {
        errno = ENOMEM;
        return NULL;
    }
    p = (char *)(a + 1);
    a->node_count = node_count;
    a->gpus = (bitmap_t **)p;
    p += k * sizeof(*a->gpus);
    a->cpu_ids = (bitmap_t **)p;
    p += k * sizeof(*a->cpu_ids);
    a->mem_mib = (uint64_t *)p;
    p += k * sizeof(*a->mem_mib);
    a->node_idx = (uint32_t *)p;
    p += k * sizeof(*a->node_idx);
    a->tasks = (uint32_t *)p;
    p += k * sizeof(*a->tasks);
    a->cpus = (uint32_t *)p;
    p += k * sizeof(*a->cpus);
    a->shards = (uint32_t *)p;
    return a;
}

void sched_alloc_destroy(struct sched_alloc *a)
{
    if (a) {
        int saved_errno = errno;
        for (uint32_t i = 0; i < a->node_count; i++) {
            bitmap_destroy(a->gpus[i]);
            bitmap_destroy(a->cpu_ids[i]);
        }
        free(a);
        errno = saved_errno;
    }
}

int sched_alloc_drop(struct sched_alloc *a, uint32_t i)
{
    if (!a || i >= a->node_count || a->node_count < 2) {
        errno = EINVAL;
        return -1;
    }
    bitmap_destroy(a->gpus[i]);
    bitmap_destroy(a->cpu_ids[i]);
    for (uint32_t k = i; k + 1 < a->node_count; k++) {
        a->node_idx[k] = a->node_idx[k + 1];
        a->tasks[k] = a->tasks[k + 1];
        a->cpus[k] = a->cpus[k + 1];
        a->mem_mib[k] = a->mem_mib[k + 1];
        a->gpus[k] = a->gpus[k + 1];
        a->shards[k] = a->shards[k + 1];
        a->cpu_ids[k] = a->cpu_ids[k + 1];
    }
    a->node_count--;
    a->gpus[a->node_count] = NULL;
    a->cpu_ids[a->node_count] = NULL;
    return 0;
}

char *sched_alloc_gpu_fmt(const struct sched_alloc *a, uint32_t i)
{
    char *s;

    if (!a || i >= a->node_count) {
        errno = EINVAL;
        return NULL;
    }
    if (a->gpus[i])
        return bitmap_fmt(a->gpus[i]);
    if (!(s = strdup("")))
        errno = ENOMEM;
    return s;
}

bool sched__alloc_valid(const struct sched_node *nodes,
                        size_t n,
                        const struct sched_alloc *a)
{
    if (!a || (!nodes && n))
        return false;
    for (uint32_t i = 0; i < a->node_count; i++) {
        uint32_t idx = a->node_idx[i];
        if (idx >= n)
            return false;
        if (a->gpus[i]
            && (bitmap_size(a->gpus[i]) != nodes[idx].gpus
                || !nodes[idx].alloc_gpus
                || bitmap_size(nodes[idx].alloc_gpus) != nodes[idx].gpus))
            return false;
        if (a->shards[i]
            && (!a->gpus[i] || bitmap_count(a->gpus[i]) != 1
                || !nodes[idx].alloc_shards))
            return false;
    }
    return true;
}

/* Add 'sign' (+1 or -1) times entry i's shards to its GPU's count, or its
 * GPUs whole to (from) the node's bitmap. */
static void gpus_use(struct sched_node *nd, const struct sched_alloc *a,
                     uint32_t i, int sign)
{
    if (!a->gpus[i])
        return;
    if (a->shards[i]) {
        uint32_t *u = &nd->alloc_shards[bitmap_first_set(a->gpus[i], 0)];
        *u = sign > 0 ? *u + a->shards[i] : *u - MIN(*u, a->shards[i]);
    } else if (sign > 0) {
        bitmap_or(nd->alloc_gpus, a->gpus[i]);
    } else {
        bitmap_and_not(nd->alloc_gpus, a->gpus[i]);
    }
}

void sched_node_free_usage(struct sched_node *nd)
{
    int saved_errno = errno;

    bitmap_destroy(nd->alloc_gpus);
    free(nd->alloc_shards);
    nd->alloc_gpus = NULL;
    nd->alloc_shards = NULL;
    errno = saved_errno;
}

void sched_nodes_free(struct sched_node *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++)
        sched_node_free_usage(&c[i]);
    free(c);
}

_Static_assert(sizeof(struct sched_node) == 128,
               "struct sched_node: two cache lines");

struct sched_node *sched_nodes_alloc(size_t n)
{
    size_t size = (n ? n : 1) * sizeof(struct sched_node);
    struct sched_node *c;

    if (n > SIZE_MAX / sizeof(*c)) {
        errno = ENOMEM;
        return NULL;
    }
    if ((c = aligned_alloc(64, size)))
        memset(c, 0, size);
    return c;
}

struct sched_node *sched_nodes_copy(const struct sched_node *nodes, size_t n)
{
    struct sched_node *c = calloc(n ? n : 1, sizeof(*c)); /* short-lived */

    if (!c)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t sz = nodes[i].gpus * sizeof(uint32_t);
        c[i] = nodes[i];
        c[i].alloc_gpus = NULL;
        c[i].alloc_shards = NULL;
        if ((nodes[i].alloc_gpus
             && !(c[i].alloc_gpus = bitmap_copy(nodes[i].alloc_gpus)))
            || (nodes[i].alloc_shards
                && !(c[i].alloc_shards = malloc(sz ? sz : 1)))) {
            sched_nodes_free(c, i + 1);
            return NULL;
        }
        if (c[i].alloc_shards)
            memcpy(c[i].alloc_shards, nodes[i].alloc_shards, sz);
    }
    return c;
}

bool sched_gpu_busy(const struct sched_node *nd, size_t g)
{
    return (nd->alloc_gpus && bitmap_test(nd->alloc_gpus, g))
           || (nd->alloc_shards && nd->alloc_shards[g]);
}

int sched_alloc_apply(struct sched_node *nodes,
                      size_t n,
                      const struct sched_alloc *a)
{
    if (!sched__alloc_valid(nodes, n, a)) {
        errno = EINVAL;
        return -1;
    }
    for (uint32_t i = 0; i < a->node_count; i++) {
        struct sched_node *nd = &nodes[a->node_idx[i]];
        nd->alloc_cpus += a->cpus[i];
        nd->alloc_mem_mib += a->mem_mib[i];
        gpus_use(nd, a, i, 1);
        if (a->exclusive)
            nd->exclusive_alloc = true;
        nd->running_jobs++;
    }
    return 0;
}

int sched_alloc_release(struct sched_node *nodes,
                        size_t n,
                        const struct sched_alloc *a)
{
    if (!sched__alloc_valid(nodes, n, a)) {
        errno = EINVAL;
        return -1;
    }
    for (uint32_t i = 0; i < a->node_count; i++) {
        struct sched_node *nd = &nodes[a->node_idx[i]];
        nd->alloc_cpus -= MIN(nd->alloc_cpus, a->cpus[i]);
        nd->alloc_mem_mib -= MIN(nd->alloc_mem_mib, a->mem_mib[i]);
        gpus_use(nd, a, i, -1);
        if (a->exclusive)
            nd->exclusive_alloc = false;
        if (nd->running_jobs > 0)
            nd->running_jobs--;
    }
    return 0;
}

/* Set errno=EINVAL, format the reason into 'error'; returns -1. */
static int invalid(drv_error_t *error, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int invalid(drv_error_t *error, const char *fmt, ...)
{
    if (error) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(error->text, sizeof(error->text), fmt, ap);
        va_end(ap);
    }
    errno = EINVAL;
    return -1;
}

/* CPUs one task holds: its own, or those of its GPUs (--gpus-per-task
 * with --cpus-per-gpu), whichever is more.
 */
static uint64_t task_cpus(const struct sel_req *r)
{
    uint64_t by_gpu = (uint64_t)r->gpt * r->cpg;

    return by_gpu > r->cpt ? by_gpu : r->cpt;
}

/* Fill in defaults and reject combinations Slurm rejects.
 * Returns 0, or -1 with errno=EINVAL and the reason in 'error'.
 */
static int normalize(const struct sched_request *req,
                     struct sel_req *r,
                     drv_error_t *error)
{
    if (!req)
        return invalid(error, "no request");
    *r = (struct sel_req){
        .min_nodes = req->min_nodes ? req->min_nodes : 1,
        .max_nodes = req->max_nodes,
        .ntasks = req->ntasks,
        .per_node = req->ntasks_per_node ? req->ntasks_per_node : 1,
        .cpt = req->cpus_per_task ? req->cpus_per_task : 1,
        .tpn = req->ntasks_per_node,
        .mincpn = req->min_cpus_per_node,
        .maxcpn = req->max_cpus_per_node,
        .min_tmp = req->min_tmp_mib,
        .sockets = req->sockets_per_node,
        .cores = req->cores_per_socket,
        .threads = req->threads_per_core,
        .mem_node = req->mem_per_node_mib,
        .mem_cpu = req->mem_per_cpu_mib,
        .gpn = req->gpus_per_node,
        .gtot = req->gpus_total,
        .gpt = req->gpus_per_task,
        .cpg = req->cpus_per_gpu,
        .mpg = req->mem_per_gpu_mib,
        .gtype = req->gpu_type,
        .spn = req->shards_per_node,
        .sname = req->share_name ? req->share_name : "shard",
        .exclusive = req->exclusive,
        .oversub = req->oversubscribe > 1 ? req->oversubscribe : 1,
        .allowed = req->allowed_nodes,
        .required = req->required_nodes,
        .excluded = req->excluded_nodes,
        .features = req->features,
        .nreq = req->required_nodes ? (uint32_t)bitmap_count(req->required_nodes)
                                    : 0,
    };
    /* Slurm: a node list raises the node count to its size. */
    if (r->nreq > r->min_nodes) {
        r->min_nodes = r->nreq;
        if (req->max_nodes && req->max_nodes < r->nreq)
            return invalid(error, "%" PRIu32 " nodes listed, at most %" PRIu32
                           " requested", r->nreq, req->max_nodes);
    }
    /* Slurm: -N n means exactly n; -n alone spreads over what it needs. */
    if (r->max_nodes == 0)
        r->max_nodes = req->min_nodes || r->nreq ? r->min_nodes : UINT32_MAX;
    if (r->max_nodes < r->min_nodes)
        return invalid(error, "node count range %" PRIu32 "-%" PRIu32
                       " is empty", r->min_nodes, r->max_nodes);
    if (r->ntasks && r->ntasks < r->min_nodes)
        return invalid(error, "%" PRIu32 " tasks cannot cover %" PRIu32
                       " nodes", r->ntasks, r->min_nodes);
    if (r->mem_node && r->mem_cpu)
        return invalid(error, "--mem and --mem-per-cpu are exclusive");
    if (r->gpn && r->gtot)
        return invalid(error, "GPUs per node and GPUs per job together");
    if (r->gtot && r->gtot < r->min_nodes)
        return invalid(error, "%" PRIu32 " GPUs cannot cover %" PRIu32
                       " nodes", r->gtot, r->min_nodes);
    if (r->gpt && (r->gpn || r->gtot))
        return invalid(error, "GPUs per task with GPUs per node or per job");
    if (r->mpg && (r->mem_node || r->mem_cpu))
        return invalid(error, "--mem-per-gpu with --mem or --mem-per-cpu");
    if (r->gtype && !r->gpn && !r->gtot && !r->gpt)
        return invalid(error, "GPU type '%s' without a GPU count", r->gtype);
    if (r->spn && (r->gpn || r->gtot || r->gpt || r->gtype))
        return invalid(error, "shards with GPUs");
    r->tcpus = task_cpus(r);
    if (__builtin_mul_overflow(r->mem_cpu, (uint64_t)r->cpt, &r->mem_task))
        r->mem_task = 0; /* more than any node has */
    return 0;
}

int sched__normalize(const struct sched_request *req, struct sel_req *r)
{
    return normalize(req, r, NULL);
}

static bool in_bitmap(const bitmap_t *b, size_t idx)
{
    return idx < bitmap_size(b) && bitmap_test(b, idx);
}

/* Configured with at least the sockets, cores per socket and threads
 * per core of -B (Slurm compares the node's configured values). */
static bool topo_ok(const struct sel_req *r, const struct sched_node *nd)
{
    return nd->sockets >= r->sockets && nd->cores_per_socket >= r->cores
           && nd->threads_per_core >= r->threads;
}

/* In the partition, not excluded, with the features, the TmpDisk (--tmp)
 * and the sockets, cores and threads (-B) asked for. */
static bool node_allowed(const struct sel_req *r,
                         const struct sched_node *nodes,
                         size_t idx)
{
    if (r->allowed && !in_bitmap(r->allowed, idx))
        return false;
    if (r->excluded && in_bitmap(r->excluded, idx))
        return false;
    if (nodes[idx].tmp_disk_mib < r->min_tmp)
        return false;
    if (!topo_ok(r, &nodes[idx]))
        return false;
    return feature_expr_match(r->features, nodes[idx].features);
}

static bool node_required(const struct sel_req *r, size_t idx)
{
    return r->required && in_bitmap(r->required, idx);
}

/* Whether GPU 'g' of 'nd' is of the request's type (any GPU is, for an
 * untyped request). */
static bool gpu_of_type(const struct sel_req *r, const struct sched_node *nd,
                        size_t g)
{
    const char *t = nd->gpu_types ? nd->gpu_types[g] : nd->gpu_type;

    return !r->gtype || (t && strcmp(t, r->gtype) == 0);
}

/* GPUs of 'nd' of the request's type: free ones, or all of them when
 * 'empty'. */
static uint32_t gpus_of_type(const struct sel_req *r,
                             const struct sched_node *nd, bool empty)
{
    uint32_t n = 0;

    for (size_t g = 0; g < nd->gpus; g++)
        n += gpu_of_type(r, nd, g) && (empty || !sched_gpu_busy(nd, g));
    return n;
}

static bool gpu_type_ok(const struct sel_req *r, const struct sched_node *nd)
{
    if (r->gtype && nd->gpu_types)
        return gpus_of_type(r, nd, true) > 0;
    return !r->gtype || (nd->gpu_type && strcmp(nd->gpu_type, r->gtype) == 0);
}

/* What the node has free for 'r': all of it when 'empty' (the never-check),
 * else what its usage leaves.  False if the node may take no job now.
 */
/* Whether the node's shares are of the request's kind. */
static bool share_ok(const struct sel_req *r, const struct sched_node *nd)
{
    return nd->share_name && !strcmp(nd->share_name, r->sname);
}

/* The GPU of 'nd' to lend 'n' shards: not held whole, with n shards left
 * (all of them when 'empty'), the fewest left among those, the lowest
 * index on a tie; -1 when none has them. */
static long shard_gpu(const struct sched_node *nd, uint32_t n, bool empty)
{
    long best = -1;
    uint32_t best_left = 0;

    for (size_t g = 0; nd->shards && g < nd->gpus; g++) {
        uint32_t used = empty ? 0 : nd->alloc_shards[g], cap = nd->shards[g];
        uint32_t left = cap - MIN(cap, used);
        if ((!empty && nd->alloc_gpus && bitmap_test(nd->alloc_gpus, g))
            || left < n)
            continue;
        if (best < 0 || left < best_left) {
            best = (long)g;
            best_left = left;
        }
    }
    return best;
}

static bool node_room(const struct sched_node *nd,
                      const struct sel_req *r,
                      bool empty,
                      struct node_room *room)
{
    uint64_t used_gpus = 0;

    if (!empty) {
        if (!nd->available || nd->exclusive_alloc)
            return false;
        if (!nd->shards) /* the common case, one count */
            used_gpus = nd->alloc_gpus ? bitmap_count(nd->alloc_gpus) : 0;
        for (size_t g = 0; nd->shards && g < nd->gpus; g++)
            used_gpus += sched_gpu_busy(nd, g);
        /* Exclusive jobs need a node with nothing on it. */
        if (r->exclusive
            && (nd->running_jobs || nd->alloc_cpus || nd->alloc_mem_mib
                || used_gpus))
            return false;
    }
    /* OverSubscribe: the node's CPUs count r->oversub times, a job
     * itself still gets at most all of them */
    room->cpus = empty ? nd->cpus
                       : MIN(nd->cpus, (uint64_t)nd->cpus * r->oversub
                                           - MIN((uint64_t)nd->cpus * r->oversub,
                                                 nd->alloc_cpus));
    if (r->maxcpn && room->cpus > r->maxcpn) /* MaxCPUsPerNode */
        room->cpus = r->maxcpn;
    room->mem =
        nd->mem_mib - (empty ? 0 : MIN(nd->mem_mib, nd->alloc_mem_mib));
    if (r->gtype && nd->gpu_types) /* several types: count this one's */
        room->gpus = gpus_of_type(r, nd, empty);
    else
        room->gpus = gpu_type_ok(r, nd) ? nd->gpus - MIN(nd->gpus, used_gpus)
                                        : 0;
    room->shard_gpu = r->spn && share_ok(r, nd)
                          ? shard_gpu(nd, r->spn, empty) : -1;
    return true;
}

/* A node's CPUs for 'tasks' tasks and 'gpus' GPUs (Slurm cons_tres:
 * --cpus-per-gpu raises the CPU count to cover the GPUs, --mincpus to
 * its minimum). */
static uint64_t node_cpus(const struct sel_req *r, uint64_t tasks,
                          uint64_t gpus)
{
    uint64_t by_task = tasks * r->cpt, by_gpu = gpus * r->cpg;
    uint64_t n = by_gpu > by_task ? by_gpu : by_task;

    return n > r->mincpn ? n : r->mincpn;
}

/* GPUs a node can take for a --gpus request: free ones of the type, as
 * far as its free CPUs and memory cover their --cpus/--mem-per-gpu. */
static uint64_t room_gpus(const struct sel_req *r, const struct node_room *room)
{
    uint64_t g = room->gpus;

    if (r->cpg)
        g = MIN(g, room->cpus / r->cpg);
    if (r->mpg)
        g = MIN(g, room->mem / r->mpg);
    return g;
}

/* Tasks of 'r' that fit in 'room', or 0 if the node cannot be used.
 * The refusals come first, then the divisions, mem / mem_cpu / cpt as
 * one. */
static uint64_t room_task_cap(const struct sel_req *r,
                              const struct node_room *room)
{
    uint64_t cap;

    if ((r->mem_node && room->mem < r->mem_node) || room->cpus < r->mincpn)
        return 0;
    if (room->gpus < r->gpn || (r->gtot && room_gpus(r, room) == 0))
        return 0;
    if (r->spn && room->shard_gpu < 0)
        return 0;
    if (r->gpn && (room->cpus < (uint64_t)r->gpn * r->cpg
                   || room->mem < r->gpn * r->mpg))
        return 0;
    cap = r->tcpus == 1 ? room->cpus : room->cpus / r->tcpus;
    if (r->mem_cpu)
        cap = MIN(cap, r->mem_task ? room->mem / r->mem_task : 0);
    if (r->gpt) {
        cap = MIN(cap, room->gpus / r->gpt);
        if (r->mpg)
            cap = MIN(cap, room->mem / (r->mpg * r->gpt));
    }
    if (r->tpn)
        cap = MIN(cap, r->tpn);
    if (r->ntasks == 0)
        return cap >= r->per_node ? r->per_node : 0;
    return cap;
}

/* Judge node 'idx' into 'c'.  False if it cannot take part. */
bool sched__node_allowed(const struct sel_req *r,
                         const struct sched_node *nodes, size_t idx)
{
    return node_allowed(r, nodes, idx);
}

bool sched__same_static(const struct sel_req *a, const struct sel_req *b)
{
    return a->allowed == b->allowed && a->excluded == b->excluded
           && a->min_tmp == b->min_tmp && a->sockets == b->sockets
           && a->cores == b->cores && a->threads == b->threads
           && (a->features == b->features
               || (a->features && b->features
                   && strcmp(a->features, b->features) == 0));
}

/* node_eval() after node_allowed(). */
static bool node_eval_room(const struct sched_node *nodes,
                           size_t idx,
                           const struct sel_req *r,
                           bool empty,
                           struct cand *c)
{
    struct node_room room;

    if (!node_room(&nodes[idx], r, empty, &room))
        return false;
    c->cap = room_task_cap(r, &room);
    if (c->cap == 0)
        return false;
    c->idx = (uint32_t)idx;
    c->weight = nodes[idx].weight;
    c->required = node_required(r, idx);
    c->gfree = r->gtot ? room_gpus(r, &room) : room.gpus;
    return true;
}

static bool node_eval(const struct sched_node *nodes,
                      size_t idx,
                      const struct sel_req *r,
                      bool empty,
                      struct cand *c)
{
    return node_allowed(r, nodes, idx)
           && node_eval_room(nodes, idx, r, empty, c);
}

bool sched__node_eval_allowed(const struct sched_node *nodes, size_t idx,
                              const struct sel_req *r, struct cand *c)
{
    return node_eval_room(nodes, idx, r, false, c);
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
    return a > b ? -1 : a < b ? 1 : 0;
}

/* Slurm's node order: weight, then position in the node table. */
static int cmp_pref(const void *pa, const void *pb)
{
    const struct cand *a = pa, *b = pb;

    if (a->required != b->required)
        return a->required ? -1 : 1;
    if (a->weight != b->weight)
        return a->weight < b->weight ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx ? 1 : 0;
}

static int cmp_idx(const void *pa, const void *pb)
{
    const struct cand *a = pa, *b = pb;

    return a->idx < b->idx ? -1 : a->idx > b->idx ? 1 : 0;
}

static int cmp_by_tasks(const void *pa, const void *pb)
{
    const struct cand *a = pa, *b = pb;
    int c = a->required != b->required ? (a->required ? -1 : 1)
                                       : cmp_u64_desc(a->cap, b->cap);

    return c ? c : cmp_pref(pa, pb);
}

static int cmp_by_gpus(const void *pa, const void *pb)
{
    const struct cand *a = pa, *b = pb;
    int c = a->required != b->required ? (a->required ? -1 : 1)
                                       : cmp_u64_desc(a->gfree, b->gfree);

    return c ? c : cmp_by_tasks(pa, pb);
}

/* Sort 'c' by cmp_pref.  The candidates come in node index order, so with
 * no required node and few distinct weights this is a stable counting sort
 * by weight, O(nc) instead of qsort's O(nc log nc) (which dominated a
 * backfill pass on 10,000 nodes: bench/sched).
 */
static void sort_pref(struct cand *c, size_t nc)
{
    uint32_t w[WEIGHT_TIERS];
    size_t count[WEIGHT_TIERS] = { 0 }, at[WEIGHT_TIERS];
    size_t tiers = 0;
    struct cand *tmp;

    for (size_t i = 0; i < nc; i++) {
        size_t t = 0;

        if (c[i].required || (i > 0 && c[i].idx <= c[i - 1].idx))
            goto general;
        while (t < tiers && w[t] != c[i].weight)
            t++;
        if (t == tiers) {
            if (tiers == WEIGHT_TIERS)
                goto general;
            w[tiers++] = c[i].weight;
        }
        count[t]++;
    }
    if (tiers <= 1)
        return; /* already in index order */
    if (!(tmp = malloc(nc * sizeof(*tmp))))
        goto general;
    for (size_t t = 0; t < tiers; t++) { /* where each tier begins */
        at[t] = 0;
        for (size_t u = 0; u < tiers; u++)
            at[t] += w[u] < w[t] ? count[u] : 0;
    }
    for (size_t i = 0; i < nc; i++) {
        size_t t = 0;
        while (w[t] != c[i].weight)
            t++;
        tmp[at[t]++] = c[i];
    }
    memcpy(c, tmp, nc * sizeof(*c));
    free(tmp);
    return;
general:
    qsort(c, nc, sizeof(*c), cmp_pref);
}

static void cand_swap(struct cand *a, struct cand *b)
{
    struct cand t = *a;

    *a = *b;
    *b = t;
}

/* Put the first m candidates in 'cmp' order at the front of 'c', sorted
 * (the rest in no order): a quickselect, then a sort of those m.
 * take_prefix() reads no further than max_nodes.
 */
static void sort_front(struct cand *c,
                       size_t nc,
                       size_t m,
                       int (*cmp)(const void *, const void *))
{
    size_t lo = 0, hi = nc; /* c[..lo) <= c[lo..hi) <= c[hi..) */

    if (m >= nc) {
        qsort(c, nc, sizeof(*c), cmp);
        return;
    }
    while (hi - lo > 16) {
        size_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
        struct cand pivot;

        /* the median of three as the pivot, at lo */
        if (cmp(&c[mid], &c[lo]) < 0)
            cand_swap(&c[mid], &c[lo]);
        if (cmp(&c[hi - 1], &c[lo]) < 0)
            cand_swap(&c[hi - 1], &c[lo]);
        if (cmp(&c[hi - 1], &c[mid]) < 0)
            cand_swap(&c[hi - 1], &c[mid]);
        cand_swap(&c[lo], &c[mid]);
        pivot = c[lo];
        for (;;) { /* Hoare's partition (Sedgewick's form) */
            while (cmp(&c[++i], &pivot) < 0)
                if (i == hi - 1)
                    break;
            while (cmp(&pivot, &c[--j]) < 0)
                if (j == lo)
                    break;
            if (i >= j)
                break;
            cand_swap(&c[i], &c[j]);
        }
        cand_swap(&c[lo], &c[j]); /* the pivot in its place */
        if (j == m) {
            lo = hi = m;
            break;
        }
        if (j < m)
            lo = j + 1;
        else
            hi = j;
    }
    qsort(&c[lo], hi - lo, sizeof(*c), cmp);
    qsort(c, m, sizeof(*c), cmp);
}

/* Task capacities below this are counted by value in front_by_tasks(). */
#define CAP_COUNTED 1024

/* sort_front() by cmp_by_tasks for candidates in cmp_pref order, none of
 * them required, without comparing: the m-th largest capacity is found by
 * counting, and the candidates above it, then those equal to it in their
 * (preference) order, are moved to the front, keeping their order, and
 * sorted.  False (and 'c' untouched) when a capacity is too large to
 * count.  A deep queue's plan chose among thousands of candidates for
 * each multi-node job this way (bench/sched).
 */
static bool front_by_tasks(struct cand *c, size_t nc, size_t m)
{
    uint32_t count[CAP_COUNTED];
    uint64_t top = 0, above = 0, level, quota;
    size_t w = 0;

    for (size_t i = 0; i < nc; i++)
        top = c[i].cap > top ? c[i].cap : top;
    if (top >= CAP_COUNTED)
        return false;
    memset(count, 0, (top + 1) * sizeof(*count));
    for (size_t i = 0; i < nc; i++)
        count[c[i].cap]++;
    for (level = top; above + count[level] < m; level--)
        above += count[level];
    quota = m - above; /* of those at 'level' */
    /* c[..w) are taken; c[w..i) were passed over, in any order */
    for (size_t i = 0; i < nc && w < m; i++) {
        if (c[i].cap > level || (c[i].cap == level && quota && quota--))
            cand_swap(&c[w++], &c[i]);
    }
    qsort(c, m, sizeof(*c), cmp_by_tasks);
    return true;
}

/* Take candidates from the front until 'r' is satisfied.  Returns the node
 * count, or 0 if max_nodes or the candidates run out first.
 */
/* Do 'k' nodes holding 'tasks' tasks and 'gpus' GPUs in all satisfy
 * 'r'? */
static bool prefix_done(size_t k, uint64_t tasks, uint64_t gpus,
                        const struct sel_req *r)
{
    return k >= r->min_nodes && (r->ntasks == 0 || tasks >= r->ntasks)
           && (r->gtot == 0 || gpus >= r->gtot);
}

static uint32_t take_prefix(const struct cand *c,
                            size_t nc,
                            const struct sel_req *r)
{
    uint64_t tasks = 0, gpus = 0;

    for (size_t i = 0; i < nc && i < r->max_nodes; i++) {
        tasks += c[i].cap;
        gpus += c[i].gfree;
        if (prefix_done(i + 1, tasks, gpus, r))
            return (uint32_t)(i + 1);
    }
    return 0;
}

bool sched__cand_holds_all(const struct cand *c, const struct sel_req *r)
{
    return prefix_done(1, c->cap, c->gfree, r);
}

/* Order 'c' so its first k entries, k returned, are the chosen nodes;
 * 0 if none will do.  Preferred nodes first; when they run into max_nodes,
 * the biggest nodes, which finds a set whenever one exists (for the task
 * or GPU count, one at a time).
 */
static uint32_t choose(struct cand *c, size_t nc, const struct sel_req *r,
                       bool in_pref)
{
    uint32_t k, nreq = 0;
    uint64_t tasks = 0, gpus = 0;

    /* Every required node must be a candidate; sorted first, the
     * min_nodes they raised makes take_prefix() keep them all. */
    for (size_t i = 0; i < nc; i++) {
        nreq += c[i].required;
        tasks += c[i].cap;
        gpus += c[i].gfree;
    }
    if (nreq < r->nreq)
        return 0;
    /* Not enough in all: no prefix will do (the common answer on a busy
     * cluster, without sorting). */
    if (nc < r->min_nodes || (r->ntasks && tasks < r->ntasks)
        || (r->gtot && gpus < r->gtot))
        return 0;

    if (!in_pref)
        sort_pref(c, nc);
    if ((k = take_prefix(c, nc, r)) || nc <= r->max_nodes)
        return k;
    if (r->gtot || nreq || !front_by_tasks(c, nc, r->max_nodes))
        sort_front(c, nc, r->max_nodes, r->gtot ? cmp_by_gpus : cmp_by_tasks);
    return take_prefix(c, nc, r);
}

/* Tasks on the first k candidates if the largest per-node share is 'level':
 * each node takes min(cap, level).
 */
static uint64_t tasks_at_level(const struct cand *c, uint32_t k, uint64_t level)
{
    uint64_t sum = 0;

    for (uint32_t i = 0; i < k; i++)
        sum += MIN(c[i].cap, level);
    return sum;
}

/* Deal r->ntasks round robin over c[0..k) as far as each has room, the
 * way cons_tres lays out block-distributed tasks: -N2 -n5 gives 3+2.
 * The caller made sure the capacities add up to enough.
 */
static void deal_tasks(const struct cand *c,
                       uint32_t k,
                       const struct sel_req *r,
                       uint32_t *tasks)
{
    uint64_t lo = 1, hi = r->ntasks, rest;

    if (r->ntasks == 0) {
        for (uint32_t i = 0; i < k; i++)
            tasks[i] = r->per_node;
        return;
    }
    /* Full rounds: the highest level whose total stays within ntasks. */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (tasks_at_level(c, k, mid) <= r->ntasks)
            lo = mid;
        else
            hi = mid - 1;
    }
    rest = r->ntasks - tasks_at_level(c, k, lo);
    for (uint32_t i = 0; i < k; i++) {
        tasks[i] = (uint32_t)MIN(c[i].cap, lo);
        if (rest && c[i].cap > lo) {
            tasks[i]++;
            rest--;
        }
    }
}

/* GPUs node i of k takes: the per-node count, or for gpus_total as many as
 * it has while leaving one for each node after it.  '*left' counts down.
 */
static uint32_t gpu_share(const struct sel_req *r,
                          const struct cand *c,
                          uint32_t i,
                          uint32_t k,
                          uint64_t *left)
{
    uint64_t give;

    if (r->gpt)
        return 0; /* build_alloc: tasks * gpus_per_task */
    if (!r->gtot)
        return r->gpn;
    give = MIN(c[i].gfree, *left - (k - 1 - i));
    *left -= give;
    return (uint32_t)give;
}

/* A bitmap of 'count' free GPUs of 'nd' of the request's type, lowest
 * index first, or all of them for an exclusive job.  *out = NULL when
 * there are none to give.  Returns 0 or -1 with errno=ENOMEM.
 */
static int pick_gpus(const struct sched_node *nd,
                     const struct sel_req *r,
                     uint32_t count,
                     bitmap_t **out)
{
    bool exclusive = r->exclusive;
    bitmap_t *b;
    long bit = 0;

    *out = NULL;
    if (exclusive)
        count = nd->gpus;
    if (count == 0 || nd->gpus == 0)
        return 0;
    if (!(b = bitmap_create(nd->gpus)))
        return -1;
    for (uint32_t got = 0; got < count; got++, bit++) {
        while (!exclusive && (size_t)bit < nd->gpus
               && (sched_gpu_busy(nd, (size_t)bit)
                   || !gpu_of_type(r, nd, (size_t)bit)))
            bit++;
        if ((size_t)bit >= nd->gpus)
            break; /* cannot happen: the node was judged to have them */
        bitmap_set(b, (size_t)bit);
    }
    *out = b;
    return 0;
}

/* 'n' shards of the GPU shard_gpu() picks: *gpu its one bit, *shards n.
 * Returns 0 or -1 with errno=ENOMEM. */
static int pick_shards(const struct sched_node *nd, uint32_t n,
                       bitmap_t **gpu, uint32_t *shards)
{
    long g = shard_gpu(nd, n, false);

    if (g < 0) /* cannot happen: the node was judged to have them */
        return 0;
    if (!(*gpu = bitmap_create(nd->gpus)))
        return -1;
    bitmap_set(*gpu, (size_t)g);
    *shards = n;
    return 0;
}

/* Build the allocation of the first k candidates (sorted by index here).
 * Returns 0 with *out set, or -1 with errno=ENOMEM.
 */
static int build_alloc(const struct sched_node *nodes,
                       const struct sel_req *r,
                       struct cand *c,
                       uint32_t k,
                       struct sched_alloc **out)
{
    struct sched_alloc *a;
    uint64_t gpus_left = r->gtot;

    qsort(c, k, sizeof(*c), cmp_idx);
    if (!(a = sched_alloc_create(k)))
        return -1;
    a->exclusive = r->exclusive;
    deal_tasks(c, k, r, a->tasks);
    for (uint32_t i = 0; i < k; i++) {
        const struct sched_node *nd = &nodes[c[i].idx];
        uint32_t ngpus = r->gpt ? a->tasks[i] * r->gpt
                                : gpu_share(r, c, i, k, &gpus_left);

        a->node_idx[i] = c[i].idx;
        a->cpus[i] = r->exclusive ? nd->cpus
                                  : (uint32_t)node_cpus(r, a->tasks[i], ngpus);
        if (r->exclusive)
            a->mem_mib[i] = nd->mem_mib;
        else if (r->mpg)
            a->mem_mib[i] = r->mpg * ngpus;
        else
            a->mem_mib[i] = r->mem_node ? r->mem_node : r->mem_cpu * a->cpus[i];
        if ((r->spn ? pick_shards(nd, r->spn, &a->gpus[i], &a->shards[i])
                    : pick_gpus(nd, r, ngpus, &a->gpus[i])) < 0) {
            sched_alloc_destroy(a);
            return -1;
        }
    }
    *out = a;
    return 0;
}

int sched__select_cands(const struct sched_node *nodes,
                        const struct sel_req *r,
                        struct cand *c,
                        size_t nc,
                        bool in_pref,
                        struct sched_alloc **alloc_out)
{
    uint32_t k = choose(c, nc, r, in_pref);

    if (k == 0)
        return SCHED_BUSY;
    if (alloc_out && build_alloc(nodes, r, c, k, alloc_out) < 0)
        return -1;
    return SCHED_OK;
}

int sched__select_run(const struct sched_node *nodes,
                      size_t n,
                      const struct sel_req *r,
                      bool empty,
                      struct cand *scratch,
                      struct sched_alloc **alloc_out)
{
    /* Only whether a set exists: with no required node and no --gpus
     * total, one candidate that holds all of the request means choose()
     * finds a set (in preference order, or else the biggest node first,
     * which holds as much), so the scan stops there. */
    bool exists_only = !alloc_out && r->nreq == 0 && r->gtot == 0;
    size_t nc = 0;

    for (size_t i = 0; i < n; i++) {
        if (!node_eval(nodes, i, r, empty, &scratch[nc]))
            continue;
        if (exists_only && sched__cand_holds_all(&scratch[nc], r))
            return SCHED_OK;
        nc++;
    }
    return sched__select_cands(nodes, r, scratch, nc, false, alloc_out);
}

/* Judge every node and choose.  Returns SCHED_OK (with *alloc_out set if
 * alloc_out is not NULL), SCHED_BUSY when no set of nodes will do, or -1
 * with errno=ENOMEM.  With 'empty', nodes are judged as if idle and up.
 */
static int select_run(const struct sched_node *nodes,
                      size_t n,
                      const struct sel_req *r,
                      bool empty,
                      struct sched_alloc **alloc_out)
{
    struct cand *c;
    int rc;

    if (!(c = malloc((n ? n : 1) * sizeof(*c))))
        return -1;
    rc = sched__select_run(nodes, n, r, empty, c, alloc_out);
    free(c);
    return rc;
}

int sched_select(const struct sched_node *nodes,
                 size_t n,
                 const struct sched_request *req,
                 struct sched_alloc **alloc_out)
{
    struct sel_req r;
    struct cand *c;
    int rc;

    if (!alloc_out || (!nodes && n)) {
        errno = EINVAL;
        return -1;
    }
    *alloc_out = NULL;
    if (normalize(req, &r, NULL) < 0)
        return -1;
    if (!(c = malloc((n ? n : 1) * sizeof(*c))))
        return -1;
    rc = sched__select_run(nodes, n, &r, false, c, alloc_out);
    if (rc == SCHED_BUSY) {
        rc = sched__select_run(nodes, n, &r, true, c, NULL);
        if (rc >= 0)
            rc = rc == SCHED_OK ? SCHED_BUSY : SCHED_NEVER;
    }
    free(c);
    return rc;
}

/* The largest node sizes among the nodes 'r' may use. */
struct biggest {
    size_t nodes;  /* allowed nodes */
    size_t typed;  /* of those, with the requested GPU type */
    uint64_t cpus;
    uint64_t mem;
    uint64_t gpus; /* of the requested type */
    uint32_t shards; /* of one GPU */
};

static void find_biggest(const struct sched_node *nodes,
                         size_t n,
                         const struct sel_req *r,
                         struct biggest *b)
{
    *b = (struct biggest){ 0 };
    for (size_t i = 0; i < n; i++) {
        const struct sched_node *nd = &nodes[i];
        if (!node_allowed(r, nodes, i))
            continue;
        b->nodes++;
        if (nd->cpus > b->cpus)
            b->cpus = nd->cpus;
        if (nd->mem_mib > b->mem)
            b->mem = nd->mem_mib;
        for (size_t g = 0; nd->shards && share_ok(r, nd) && g < nd->gpus; g++)
            if (nd->shards[g] > b->shards)
                b->shards = nd->shards[g];
        if (gpu_type_ok(r, nd)) {
            uint32_t typed = gpus_of_type(r, nd, true);
            b->typed += typed > 0;
            if (typed > b->gpus)
                b->gpus = typed;
        }
    }
}

/* "-B 4:*:*: no node has that many sockets, cores per socket and
 * threads per core" ('*' where -B asks nothing). */
static void explain_topo(const struct sel_req *r, drv_error_t *error)
{
    char part[3][8];
    const uint16_t v[3] = {r->sockets, r->cores, r->threads};

    for (int i = 0; i < 3; i++)
        snprintf(part[i], sizeof(part[i]), v[i] ? "%u" : "*", v[i]);
    errprintf(error, "-B %s:%s:%s: no node has that many sockets, cores per "
              "socket and threads per core", part[0], part[1], part[2]);
}

/* Say why 'r' can never run, in 'error'.  Always returns SCHED_NEVER. */
static int explain_never(const struct sched_node *nodes,
                         size_t n,
                         const struct sel_req *r,
                         drv_error_t *error)
{
    struct biggest b;

    find_biggest(nodes, n, r, &b);
    if (b.nodes == 0 && r->min_tmp)
        errprintf(error, "--tmp=%" PRIu64 "M: no node has that much TmpDisk",
                  r->min_tmp);
    else if (b.nodes == 0 && (r->sockets || r->cores || r->threads))
        explain_topo(r, error);
    else if (b.nodes == 0)
        errprintf(error, "no nodes to run on");
    else if (r->gtype && (r->gpn || r->gtot) && b.typed == 0)
        errprintf(error, "no node has GPUs of type %s", r->gtype);
    else if (r->gpn > b.gpus)
        errprintf(error, "%" PRIu32 " GPUs per node requested, nodes have"
                  " at most %" PRIu64, r->gpn, b.gpus);
    else if (r->spn > b.shards)
        errprintf(error, "gres/%s:%" PRIu32 " per node requested, a GPU"
                  " has at most %" PRIu32, r->sname, r->spn, b.shards);
    else if (r->cpt > b.cpus)
        errprintf(error, "%" PRIu32 " CPUs per task requested, nodes have"
                  " at most %" PRIu64, r->cpt, b.cpus);
    else if (r->mincpn > b.cpus)
        errprintf(error, "--mincpus=%" PRIu32 ", nodes have at most %" PRIu64
                  " CPUs", r->mincpn, b.cpus);
    else if (r->mem_node > b.mem || (r->mem_cpu && r->mem_cpu > b.mem / r->cpt))
        errprintf(error, "more memory requested than a node has (at most"
                  " %" PRIu64 " MiB)", b.mem);
    else if (r->min_nodes > b.nodes)
        errprintf(error, "%" PRIu32 " nodes requested, %zu available",
                  r->min_nodes, b.nodes);
    else
        errprintf(error, "the request does not fit on %" PRIu32 " nodes",
                  MIN(r->max_nodes, (uint32_t)MIN(b.nodes, UINT32_MAX)));
    return SCHED_NEVER;
}

int sched_check_never(const struct sched_node *nodes,
                      size_t n,
                      const struct sched_request *req,
                      drv_error_t *error)
{
    struct sel_req r;
    int rc;

    if (!nodes && n)
        return invalid(error, "no node table");
    if (normalize(req, &r, error) < 0)
        return -1;
    if ((rc = select_run(nodes, n, &r, true, NULL)) != SCHED_BUSY)
        return rc;
    return explain_never(nodes, n, &r, error);
}
