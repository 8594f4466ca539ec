/* SPDX-License-Identifier: Apache-2.0
 *
 * bench/sched.c - one backfill pass of the pure scheduling core
 *
 * Builds synthetic, seeded clusters and queues and times sched_pass()
 * (src/sched/sched.h) on them, each run on a fresh copy of the nodes' usage.
 * Not a test: it prints figures.
 *
 * Workload "mixed" (the default):
 * Cluster: NODES nodes of 64 CPUs and 256 GiB; every fourth has 8 GPUs
 * (type "a100", Weight=10, so CPU jobs go elsewhere first); features
 * "intel,ib" or "amd,ib", alternating in blocks of 16 nodes.
 * Running jobs: drawn from the same mix as the queue and placed with
 * sched_select() until half of the CPUs are in use; each started some time
 * within its limit before now.
 * Queue: PENDING jobs, highest priority first as the pass expects:
 *   45% one node, 1-64 CPUs (one task, -c), --mem-per-cpu 2 or 4 GiB
 *   5%  the same with -C amd or -C intel
 *   20% -N 2-64, 8-64 tasks per node, --mem-per-cpu 1 GiB
 *   15% --gres=gpu:1-8, --cpus-per-gpu 8, --mem-per-gpu 32 GiB
 *   15% --exclusive -N 1-16
 * Time limits from 5 minutes to 2 days.
 * Workload "backlog": shared/slurm-reference's `bench.sh backlog` (where
 * Slurm 22.05 took 338 ms for a backfill cycle that tested 500 of 10,000
 * jobs): nodes of 32 CPUs and 8 GPUs, every GPU busy, every job
 * --gres=gpu:1; limits of one hour here (none there), so that the pass
 * has reservations to find.
 *
 * Usage: sched [--json] [-m mixed|backlog] [-r RUNS] [-s SEED]
 *              [-d DEPTH|all] [-w WINDOW_S] [-R RESOLUTION_S]
 *              [NODESxPENDING ...]
 * DEPTH is the pass's reserve_depth (Slurm bf_max_job_test), by default
 * the whole queue ("all"); WINDOW_S its window_s (default 86400, bf_window);
 * RESOLUTION_S its resolution_s (default 60, Slurm's bf_resolution and the
 * controller's; 1 for exact end times).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sched/sched.h"

#define NOW 1700000000
#define GIB 1024ULL
#define MAX_CASES 32

struct rng {
    uint64_t s;
};

/* splitmix64: small, seeded, the same sequence everywhere. */
static uint64_t rng_next(struct rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static uint32_t rng_range(struct rng *r, uint32_t lo, uint32_t hi)
{
    return lo + (uint32_t)(rng_next(r) % ((uint64_t)hi - lo + 1));
}

static uint32_t rng_pick(struct rng *r, const uint32_t *v, size_t n)
{
    return v[rng_next(r) % n];
}

struct cluster {
    size_t n;
    struct sched_node *nodes;
    char (*names)[16];
    /* usage after the running jobs, restored before every run */
    uint32_t *cpus;
    uint64_t *mem;
    bitmap_t **gpus;
    bool *excl;
    uint32_t *running;
};

struct queue {
    size_t count;
    struct sched_request *req;
    struct sched_job *jobs;
};

struct result {
    size_t nodes, pending, nrunning;
    uint32_t depth;
    int64_t window_s;
    int64_t resolution_s;
    unsigned runs;
    double median_ms, max_ms, min_ms;
    size_t started, reserved, unplanned, limit, never;
    bool whole_queue;
    uint64_t digest; /* of every decision (decisions_digest()) */
};

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);

    if (!p) {
        perror("calloc");
        exit(1);
    }
    return p;
}

/* The two workloads: the mixed one described above, and the backlog of
 * shared/slurm-reference (bench.sh backlog): nodes of 32 CPUs and 8 GPUs,
 * all GPUs busy, every job --gres=gpu:1 (there without a time limit, here
 * -t 60 so that reservations have something to find).
 */
enum mix { MIX_MIXED, MIX_BACKLOG };

static void cluster_create(struct cluster *c, size_t n, enum mix mix)
{
    *c = (struct cluster){ .n = n };
    if (!(c->nodes = sched_nodes_alloc(n))) {
        perror("sched_nodes_alloc");
        exit(1);
    }
    c->names = xcalloc(n, sizeof(*c->names));
    for (size_t i = 0; i < n; i++) {
        struct sched_node *nd = &c->nodes[i];
        bool gpu = i % 4 == 3;

        snprintf(c->names[i], sizeof(c->names[i]), "n%05zu", i);
        *nd = (struct sched_node){
            .name = c->names[i],
            .cpus = 64,
            .mem_mib = 256 * GIB,
            .gpus = gpu ? 8 : 0,
            .gpu_type = gpu ? "a100" : NULL,
            .features = (i / 16) % 2 ? "amd,ib" : "intel,ib",
            .available = true,
            .weight = gpu ? 10 : 1,
        };
        if (mix == MIX_BACKLOG) {
            gpu = true;
            nd->cpus = 32;
            nd->gpus = 8;
            nd->gpu_type = NULL;
            nd->features = NULL;
            nd->weight = 1;
        }
        if (gpu && !(nd->alloc_gpus = bitmap_create(8))) {
            perror("bitmap_create");
            exit(1);
        }
    }
}

static void cluster_save(struct cluster *c)
{
    c->cpus = xcalloc(c->n, sizeof(*c->cpus));
    c->mem = xcalloc(c->n, sizeof(*c->mem));
    c->gpus = xcalloc(c->n, sizeof(*c->gpus));
    c->excl = xcalloc(c->n, sizeof(*c->excl));
    c->running = xcalloc(c->n, sizeof(*c->running));
    for (size_t i = 0; i < c->n; i++) {
        const struct sched_node *nd = &c->nodes[i];
        c->cpus[i] = nd->alloc_cpus;
        c->mem[i] = nd->alloc_mem_mib;
        c->excl[i] = nd->exclusive_alloc;
        c->running[i] = nd->running_jobs;
        if (nd->alloc_gpus && !(c->gpus[i] = bitmap_copy(nd->alloc_gpus))) {
            perror("bitmap_copy");
            exit(1);
        }
    }
}

/* Usage := as saved after the running jobs were placed. */
static void cluster_restore(struct cluster *c)
{
    for (size_t i = 0; i < c->n; i++) {
        struct sched_node *nd = &c->nodes[i];
        nd->alloc_cpus = c->cpus[i];
        nd->alloc_mem_mib = c->mem[i];
        nd->exclusive_alloc = c->excl[i];
        nd->running_jobs = c->running[i];
        if (nd->alloc_gpus) {
            bitmap_clear_all(nd->alloc_gpus);
            bitmap_or(nd->alloc_gpus, c->gpus[i]);
        }
    }
}

static void cluster_destroy(struct cluster *c)
{
    for (size_t i = 0; i < c->n; i++) {
        bitmap_destroy(c->nodes[i].alloc_gpus);
        if (c->gpus)
            bitmap_destroy(c->gpus[i]);
    }
    free(c->nodes);
    free(c->names);
    free(c->cpus);
    free(c->mem);
    free(c->gpus);
    free(c->excl);
    free(c->running);
}

static const uint32_t limits_s[] = {
    300, 900, 1800, 3600, 2 * 3600, 4 * 3600, 8 * 3600, 12 * 3600,
    86400, 2 * 86400,
};

/* One request of the mix, and its time limit. */
static int64_t draw_job(struct rng *r, enum mix mix, struct sched_request *q)
{
    static const uint32_t cpus[] = { 1, 1, 2, 4, 4, 8, 8, 16, 32, 64 };
    static const uint32_t nnodes[] = { 2, 2, 2, 4, 4, 4, 8, 8, 16, 32, 64 };
    static const uint32_t tpn[] = { 8, 16, 32, 64 };
    uint32_t kind = rng_range(r, 0, 99);

    *q = (struct sched_request){ 0 };
    if (mix == MIX_BACKLOG) {
        q->gpus_per_node = 1;
        return 3600;
    }
    if (kind < 50) {
        q->ntasks = 1;
        q->cpus_per_task = rng_pick(r, cpus, sizeof(cpus) / sizeof(cpus[0]));
        q->mem_per_cpu_mib = rng_range(r, 1, 2) * 2 * GIB;
        if (kind >= 45)
            q->features = kind % 2 ? "amd" : "intel";
    } else if (kind < 70) {
        q->min_nodes = q->max_nodes =
            rng_pick(r, nnodes, sizeof(nnodes) / sizeof(nnodes[0]));
        q->ntasks = q->min_nodes * rng_pick(r, tpn, 4);
        q->mem_per_cpu_mib = GIB;
    } else if (kind < 85) {
        q->ntasks = 1;
        q->gpus_per_node = rng_range(r, 1, 8);
        q->cpus_per_gpu = 8;
        q->mem_per_gpu_mib = 32 * GIB;
    } else {
        q->exclusive = true;
        q->min_nodes = q->max_nodes = rng_range(r, 1, 16);
    }
    return rng_pick(r, limits_s, sizeof(limits_s) / sizeof(limits_s[0]));
}

/* Place running jobs until half of the CPUs are in use (backlog: until
 * every GPU is), or placing keeps failing.  The allocations go to
 * *allocs_out.
 */
static size_t fill_running(struct cluster *c,
                           struct rng *r,
                           enum mix mix,
                           struct sched_job **jobs_out,
                           struct sched_alloc ***allocs_out)
{
    uint64_t total = (uint64_t)c->n * c->nodes[0].cpus, used = 0;
    size_t cap = c->n * 2 + 16, count = 0;
    struct sched_job *jobs = xcalloc(cap, sizeof(*jobs));
    struct sched_alloc **allocs = xcalloc(cap, sizeof(*allocs));
    unsigned misses = 0;

    while ((mix == MIX_BACKLOG || used * 2 < total) && misses < 1000) {
        struct sched_request q;
        int64_t limit = draw_job(r, mix, &q);
        struct sched_alloc *a = NULL;

        if (sched_select(c->nodes, c->n, &q, &a) != SCHED_OK) {
            misses++;
            continue;
        }
        if (sched_alloc_apply(c->nodes, c->n, a) < 0) {
            perror("sched_alloc_apply");
            exit(1);
        }
        for (uint32_t j = 0; j < a->node_count; j++)
            used += a->cpus[j];
        if (count == cap) {
            cap *= 2;
            if (!(jobs = realloc(jobs, cap * sizeof(*jobs)))
                || !(allocs = realloc(allocs, cap * sizeof(*allocs)))) {
                perror("realloc");
                exit(1);
            }
        }
        allocs[count] = a;
        jobs[count] = (struct sched_job){
            .id = (uint32_t)(1000000 + count),
            .time_limit_s = limit,
            /* started somewhere within its limit: it ends after now */
            .start_time = NOW - (int64_t)(rng_next(r) % (uint64_t)limit),
            .alloc = a,
        };
        count++;
    }
    *jobs_out = jobs;
    *allocs_out = allocs;
    return count;
}

static void queue_create(struct queue *q,
                         size_t count,
                         enum mix mix,
                         struct rng *r)
{
    q->count = count;
    q->req = xcalloc(count, sizeof(*q->req));
    q->jobs = xcalloc(count, sizeof(*q->jobs));
    for (size_t i = 0; i < count; i++) {
        int64_t limit = draw_job(r, mix, &q->req[i]);
        q->jobs[i] = (struct sched_job){
            .id = (uint32_t)(i + 1),
            .req = &q->req[i],
            .time_limit_s = limit,
        };
    }
}

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;

    return a < b ? -1 : a > b;
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++, v >>= 8)
        h = (h ^ (v & 0xff)) * 1099511628211ULL;
    return h;
}

/* FNV-1a over each decision: action, reason, start and the resources
 * (nodes, tasks, CPUs, shards, MiB, GPU indexes): two builds of the pass that
 * print the same digest decided the same. */
static uint64_t decisions_digest(const struct sched_decision *out,
                                 size_t count)
{
    uint64_t h = 14695981039346656037ULL;

    for (size_t i = 0; i < count; i++) {
        const struct sched_alloc *a = out[i].alloc;

        h = fnv(h, (uint64_t)out[i].action << 32 | (uint64_t)out[i].reason);
        h = fnv(h, (uint64_t)out[i].start_time);
        for (uint32_t j = 0; a && j < a->node_count; j++) {
            h = fnv(h, (uint64_t)a->node_idx[j] << 32 | a->tasks[j]);
            h = fnv(h, (uint64_t)a->cpus[j] << 32 | (a->shards ? a->shards[j] : 0));
            h = fnv(h, a->mem_mib[j]);
            for (long g = a->gpus && a->gpus[j] ? bitmap_first_set(a->gpus[j], 0) : -1;
                 g >= 0; g = bitmap_first_set(a->gpus[j], (size_t)g + 1))
                h = fnv(h, (uint64_t)g);
        }
    }
    return h;
}

static void count_decisions(const struct sched_decision *out,
                            size_t count,
                            struct result *res)
{
    size_t waiting = 0;

    res->started = res->reserved = res->unplanned = res->limit = 0;
    res->never = 0;
    for (size_t i = 0; i < count; i++) {
        const struct sched_decision *d = &out[i];
        if (d->action == SCHED_ACT_START)
            res->started++;
        else if (d->action == SCHED_ACT_NEVER)
            res->never++;
        else if (d->reason == SCHED_REASON_LIMIT)
            res->limit++;
        else {
            waiting++;
            if (d->start_time >= 0)
                res->reserved++;
            else
                res->unplanned++;
        }
    }
    /* Every waiting job was tried for a reservation: the pass tries the
     * first reserve_depth of them in queue order. */
    res->whole_queue = waiting <= res->depth;
}

static int run_case(size_t nnodes,
                    size_t npending,
                    enum mix mix,
                    unsigned runs,
                    uint64_t seed,
                    uint32_t depth,
                    int64_t window_s,
                    int64_t resolution_s,
                    struct result *res)
{
    struct rng r = { seed ^ ((uint64_t)nnodes << 32) ^ npending };
    struct cluster c;
    struct queue q;
    struct sched_job *running;
    struct sched_alloc **allocs;
    size_t nrunning;
    struct sched_decision *out = xcalloc(npending, sizeof(*out));
    double *ms = xcalloc(runs, sizeof(*ms));
    struct sched_pass_opts opts = {
        .reserve_depth = depth ? depth : (uint32_t)npending,
        .window_s = window_s,
        .resolution_s = resolution_s,
    };

    cluster_create(&c, nnodes, mix);
    nrunning = fill_running(&c, &r, mix, &running, &allocs);
    cluster_save(&c);
    queue_create(&q, npending, mix, &r);
    *res = (struct result){
        .nodes = nnodes,
        .pending = npending,
        .nrunning = nrunning,
        .depth = opts.reserve_depth,
        .window_s = window_s,
        .resolution_s = resolution_s,
        .runs = runs,
    };
    for (unsigned k = 0; k < runs; k++) {
        double t0;

        cluster_restore(&c);
        t0 = now_ms();
        if (sched_pass(c.nodes, c.n, running, nrunning, q.jobs, q.count, NOW,
                       &opts, out)
            < 0) {
            fprintf(stderr, "sched_pass: %s\n", strerror(errno));
            return -1;
        }
        ms[k] = now_ms() - t0;
        count_decisions(out, q.count, res);
        res->digest = decisions_digest(out, q.count);
        sched_decisions_clear(out, q.count);
    }
    qsort(ms, runs, sizeof(*ms), cmp_double);
    res->min_ms = ms[0];
    res->max_ms = ms[runs - 1];
    res->median_ms = runs % 2 ? ms[runs / 2]
                              : (ms[runs / 2 - 1] + ms[runs / 2]) / 2;
    for (size_t i = 0; i < nrunning; i++)
        sched_alloc_destroy(allocs[i]);
    free(allocs);
    free(running);
    free(q.req);
    free(q.jobs);
    free(out);
    free(ms);
    cluster_destroy(&c);
    return 0;
}

static void print_header(void)
{
    printf("%7s %7s %8s %6s %11s %11s %8s %9s %9s %6s %6s %16s\n", "nodes",
           "running", "pending", "depth", "median_ms", "max_ms", "started",
           "reserved", "unplanned", "never", "whole", "digest");
}

static void print_row(const struct result *x)
{
    printf("%7zu %7zu %8zu %6" PRIu32 " %11.2f %11.2f %8zu %9zu %9zu %6zu"
           " %6s %016" PRIx64 "\n",
           x->nodes, x->nrunning, x->pending, x->depth, x->median_ms,
           x->max_ms, x->started, x->reserved, x->unplanned, x->never,
           x->whole_queue ? "yes" : "no", x->digest);
}

static void print_json(const struct result *res,
                       size_t count,
                       enum mix mix,
                       uint64_t seed)
{
    printf("{\"workload\":\"%s\",\"seed\":%" PRIu64 ",\"cases\":[",
           mix == MIX_BACKLOG ? "backlog" : "mixed", seed);
    for (size_t i = 0; i < count; i++) {
        const struct result *x = &res[i];
        printf("%s{\"nodes\":%zu,\"running\":%zu,\"pending\":%zu,"
               "\"reserve_depth\":%" PRIu32 ",\"window_s\":%" PRId64 ","
               "\"resolution_s\":%" PRId64 ","
               "\"runs\":%u,\"median_ms\":%.3f,\"min_ms\":%.3f,"
               "\"max_ms\":%.3f,\"started\":%zu,\"reserved\":%zu,"
               "\"unplanned\":%zu,\"never\":%zu,\"whole_queue\":%s,"
               "\"digest\":\"%016" PRIx64 "\"}",
               i ? "," : "", x->nodes, x->nrunning, x->pending, x->depth,
               x->window_s, x->resolution_s, x->runs, x->median_ms, x->min_ms, x->max_ms,
               x->started, x->reserved, x->unplanned, x->never,
               x->whole_queue ? "true" : "false", x->digest);
    }
    printf("]}\n");
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: sched [--json] [-m mixed|backlog] [-r RUNS] [-s SEED]"
            " [-d DEPTH|all]\n             [-w WINDOW_S] [-R RESOLUTION_S]"
            " [NODESxPENDING ...]\n"
            "Times one sched_pass() per run over a seeded cluster (half"
            " busy) and queue.\n"
            "Default cases: 100x1000 1000x10000 10000x10000 10000x100000;"
            " RUNS 5,\nSEED 1, DEPTH all (the whole queue), WINDOW_S"
            " 86400, RESOLUTION_S 60\n(Slurm's bf_resolution; 1: exact"
            " end times).\n");
}

static bool parse_u64(const char *s, uint64_t *v)
{
    char *end;

    errno = 0;
    *v = strtoull(s, &end, 10);
    return errno == 0 && end != s && *end == '\0';
}

int main(int argc, char **argv)
{
    static const char *const defaults[] = { "100x1000", "1000x10000",
                                            "10000x10000", "10000x100000" };
    const char *cases[MAX_CASES];
    struct result res[MAX_CASES];
    size_t ncases = 0;
    bool json = false;
    uint64_t runs = 5, seed = 1, depth = 0, window = 86400, resolution = 60;
    enum mix mix = MIX_MIXED;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;

        if (strcmp(a, "--json") == 0)
            json = true;
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "-r") == 0 && v && parse_u64(v, &runs)
                   && runs > 0 && runs < 1000)
            i++;
        else if (strcmp(a, "-s") == 0 && v && parse_u64(v, &seed))
            i++;
        else if (strcmp(a, "-m") == 0 && v
                 && (strcmp(v, "mixed") == 0 || strcmp(v, "backlog") == 0)) {
            mix = strcmp(v, "backlog") == 0 ? MIX_BACKLOG : MIX_MIXED;
            i++;
        }
        else if (strcmp(a, "-d") == 0 && v
                 && (strcmp(v, "all") == 0
                     || (parse_u64(v, &depth) && depth > 0
                         && depth <= UINT32_MAX))) {
            if (strcmp(v, "all") == 0)
                depth = 0;
            i++;
        } else if (strcmp(a, "-w") == 0 && v && parse_u64(v, &window)
                   && window <= INT64_MAX)
            i++;
        else if (strcmp(a, "-R") == 0 && v && parse_u64(v, &resolution)
                 && resolution <= 86400)
            i++;
        else if (a[0] != '-' && strchr(a, 'x') && ncases < MAX_CASES)
            cases[ncases++] = a;
        else {
            usage(stderr);
            return 2;
        }
    }
    if (ncases == 0) {
        for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
            cases[ncases++] = defaults[i];
    }
    for (size_t i = 0; i < ncases; i++) {
        char buf[64];
        char *x;
        uint64_t nodes, pending;

        snprintf(buf, sizeof(buf), "%s", cases[i]);
        if (!(x = strchr(buf, 'x'))) {
            usage(stderr);
            return 2;
        }
        *x = '\0';
        if (!parse_u64(buf, &nodes) || !parse_u64(x + 1, &pending)
            || nodes == 0 || nodes > 1000000 || pending > 10000000) {
            fprintf(stderr, "sched: bad case '%s' (NODESxPENDING)\n",
                    cases[i]);
            return 2;
        }
        if (run_case(nodes, pending, mix, (unsigned)runs, seed, (uint32_t)depth,
                     (int64_t)window, (int64_t)resolution, &res[i])
            < 0)
            return 1;
        if (!json) { /* one row at a time: big cases take a while */
            if (i == 0) {
                printf("%s workload, seed %" PRIu64 ", %" PRIu64 " runs per"
                       " case, window %" PRIu64 " s, resolution %" PRIu64
                       " s\n",
                       mix == MIX_BACKLOG ? "backlog" : "mixed", seed, runs,
                       window, resolution);
                print_header();
            }
            print_row(&res[i]);
            fflush(stdout);
        }
    }
    if (json)
        print_json(res, ncases, mix, seed);
    return 0;
}
