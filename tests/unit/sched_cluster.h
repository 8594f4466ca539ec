/* SPDX-License-Identifier: Apache-2.0
 *
 * sched_cluster.h - constructed clusters for the scheduler's unit tests
 *
 * Static inline functions in a header: each test file includes it once.
 */
#ifndef DROVER_TESTS_SCHED_CLUSTER_H
#define DROVER_TESTS_SCHED_CLUSTER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched.h"

#define CLUSTER_MAX 64

struct cluster {
    size_t n;
    struct sched_node nodes[CLUSTER_MAX];
    char names[CLUSTER_MAX][24];
};

/* n identical nodes n0..n{n-1}, all up and idle. */
static inline struct cluster *cluster_create(size_t n,
                                      uint32_t cpus,
                                      uint64_t mem_mib,
                                      uint32_t gpus,
                                      const char *gpu_type)
{
    struct cluster *c = calloc(1, sizeof(*c));

    if (!c || n > CLUSTER_MAX)
        abort();
    c->n = n;
    for (size_t i = 0; i < n; i++) {
        struct sched_node *nd = &c->nodes[i];
        snprintf(c->names[i], sizeof(c->names[i]), "n%zu", i);
        nd->name = c->names[i];
        nd->cpus = cpus;
        nd->mem_mib = mem_mib;
        nd->gpus = gpus;
        nd->gpu_type = gpu_type;
        nd->available = true;
        nd->weight = 1;
        if (gpus && !(nd->alloc_gpus = bitmap_create(gpus)))
            abort();
    }
    return c;
}

/* Give node i 'gpus' GPUs of 'type' (replacing what it had). */
static inline void cluster_set_gpus(struct cluster *c,
                             size_t i,
                             uint32_t gpus,
                             const char *type)
{
    struct sched_node *nd = &c->nodes[i];

    bitmap_destroy(nd->alloc_gpus);
    nd->alloc_gpus = gpus ? bitmap_create(gpus) : NULL;
    if (gpus && !nd->alloc_gpus)
        abort();
    nd->gpus = gpus;
    nd->gpu_type = type;
}

static inline void cluster_destroy(struct cluster *c)
{
    if (c) {
        for (size_t i = 0; i < c->n; i++)
            bitmap_destroy(c->nodes[i].alloc_gpus);
        free(c);
    }
}

/* Select and apply; the allocation must exist.  Caller frees it. */
static inline struct sched_alloc *cluster_take(struct cluster *c,
                                        const struct sched_request *req)
{
    struct sched_alloc *a = NULL;

    if (sched_select(c->nodes, c->n, req, &a) != SCHED_OK
        || sched_alloc_apply(c->nodes, c->n, a) < 0)
        abort();
    return a;
}

/* The GPU indexes of allocation entry i, in a static buffer. */
static inline const char *gpu_str(const struct sched_alloc *a, uint32_t i)
{
    static char buf[64];
    char *s = sched_alloc_gpu_fmt(a, i);

    if (!s)
        abort();
    snprintf(buf, sizeof(buf), "%s", s);
    free(s);
    return buf;
}

#endif /* !DROVER_TESTS_SCHED_CLUSTER_H */
