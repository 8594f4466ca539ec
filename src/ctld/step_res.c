/* SPDX-License-Identifier: Apache-2.0
 *
 * step_res.c - what a job step takes of its job's allocation
 */
#include <stdlib.h>

#include "common/bitmap.h"
#include "common/error.h"
#include "common/xalloc.h"
#include "ctld/step_res.h"

/* What running steps hold on allocation entry 'e'. */
struct used {
    uint32_t cpus;
    uint64_t mem_mib;
    bitmap_t *gpus; /* NULL when the entry has no GPU */
};

static void used_on(const struct sched_alloc *job, uint32_t e,
                    const struct step_claim *const *claims, size_t n,
                    struct used *u)
{
    *u = (struct used){0};
    if (job->gpus && job->gpus[e]) {
        u->gpus = bitmap_copy(job->gpus[e]);
        bitmap_clear_all(u->gpus);
    }
    for (size_t c = 0; c < n; c++) {
        const struct step_claim *cl = claims[c];

        for (uint32_t k = 0; !cl->overlap && k < cl->part->node_count; k++) {
            if (cl->ent[k] != e)
                continue;
            u->cpus += cl->part->cpus[k];
            u->mem_mib += cl->part->mem_mib[k];
            if (cl->gpus_owned && u->gpus && cl->part->gpus[k])
                bitmap_or(u->gpus, cl->part->gpus[k]);
        }
    }
}

/* GPUs the step asks on its i-th node (of 'nodes') with 't' tasks. */
static uint32_t gpus_wanted(const struct step_req *rq, uint32_t i,
                            uint32_t nodes, uint32_t t)
{
    if (rq->gpus_per_task)
        return t * rq->gpus_per_task;
    if (rq->gpus_per_node)
        return rq->gpus_per_node;
    if (rq->gpus)
        return rq->gpus / nodes + (i < rq->gpus % nodes ? 1 : 0);
    return 0;
}

/* Does position 'i' fit entry 'e' beside 'u'?  0, or why not.  On
 * success fills position i of 'part'. */
static int fit(const struct sched_alloc *job, const struct step_req *rq,
               uint32_t e, uint32_t i, uint32_t nodes, uint32_t t,
               const struct used *u, struct sched_alloc *part)
{
    uint32_t cpt = rq->cpus_per_task ? rq->cpus_per_task : 1;
    uint32_t cpus = rq->exact || rq->cpus_per_task ? t * cpt
                                                   : job->cpus[e];
    uint32_t ngpu = gpus_wanted(rq, i, nodes, t);
    bitmap_t *free_gpus = NULL;
    int rc = 0;

    if (t * cpt > job->cpus[e] && !rq->overcommit)
        return EDRV_TOO_MANY_REQUESTED_CPUS;
    if (rq->min_cpus > job->cpus[e]) /* --mincpus: never on this node */
        return EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE;
    if (cpus < rq->min_cpus)
        cpus = rq->min_cpus;
    if (cpus > job->cpus[e]) /* -O: all there is */
        cpus = job->cpus[e];
    if (rq->mem_mib > job->mem_mib[e] && job->mem_mib[e])
        return EDRV_INVALID_TASK_MEMORY;
    if (ngpu && (!job->gpus || !job->gpus[e]
                 || bitmap_count(job->gpus[e]) < ngpu))
        return EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE;
    if (!rq->overlap) {
        if (cpus + u->cpus > job->cpus[e]
            || (rq->mem_mib && job->mem_mib[e]
                && rq->mem_mib + u->mem_mib > job->mem_mib[e]))
            return EDRV_NODES_BUSY;
    }
    if (job->gpus && job->gpus[e]) {
        free_gpus = bitmap_copy(job->gpus[e]);
        if (ngpu && !rq->overlap)
            bitmap_and_not(free_gpus, u->gpus);
        if (ngpu && bitmap_count(free_gpus) < ngpu)
            rc = EDRV_NODES_BUSY;
        /* keep the first ngpu free GPUs (all the job's when none asked) */
        for (long b = bitmap_first_set(free_gpus, 0), kept = 0; ngpu && b >= 0;
             b = bitmap_first_set(free_gpus, (size_t)b + 1))
            if (++kept > ngpu)
                bitmap_clear(free_gpus, (size_t)b);
    }
    if (rc) {
        bitmap_destroy(free_gpus);
        return rc;
    }
    part->node_idx[i] = job->node_idx[e];
    part->tasks[i] = t;
    part->cpus[i] = rq->overlap ? 0 : cpus;
    part->mem_mib[i] = rq->overlap ? 0 : rq->mem_mib;
    part->gpus[i] = free_gpus;
    return 0;
}

/* The MUST entries of rq->ent_mask (0 without one). */
static uint32_t must_left(const struct sched_alloc *job,
                          const struct step_req *rq)
{
    uint32_t n = 0;

    for (uint32_t e = 0; rq->ent_mask && !rq->entries && e < job->node_count;
         e++)
        n += rq->ent_mask[e] == STEP_ENT_MUST;
    return n;
}

/* Greedy pick beside 'claims'; 0 or the first position's reason. */
static int pick(const struct sched_alloc *job, const struct step_req *rq,
                uint32_t nodes, const uint32_t *tasks,
                const struct step_claim *const *claims, size_t nclaims,
                struct step_claim *cl)
{
    uint32_t i = 0, end = rq->entries ? nodes : job->node_count;
    uint32_t must = must_left(job, rq);
    int why = 0;

    for (uint32_t k = 0; k < end && i < nodes; k++) {
        uint32_t e = rq->entries ? rq->entries[k] : k;
        uint8_t m = rq->ent_mask && !rq->entries ? rq->ent_mask[k]
                                                 : STEP_ENT_MAY;
        struct used u;
        int rc;

        if (e >= job->node_count)
            return EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE;
        /* a MAY entry only while room is left for the MUST ones */
        if (m == STEP_ENT_NO || (m == STEP_ENT_MAY && i + must >= nodes))
            continue;
        must -= m == STEP_ENT_MUST;
        used_on(job, e, claims, nclaims, &u);
        rc = fit(job, rq, e, i, nodes, tasks[i], &u, cl->part);
        bitmap_destroy(u.gpus);
        if (rc == 0)
            cl->ent[i++] = e;
        else if (rq->entries || m == STEP_ENT_MUST) /* must be entry e */
            return rc;
        else if (!why || why == EDRV_NODES_BUSY)
            why = rc;
    }
    return i == nodes ? 0 : why ? why : EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE;
}

static struct step_claim *claim_create(uint32_t nodes)
{
    struct step_claim *cl = xzalloc(sizeof(*cl));

    cl->part = sched_alloc_create(nodes);
    if (!cl->part)
        abort();
    cl->ent = xzalloc(sizeof(uint32_t) * (nodes ? nodes : 1));
    return cl;
}

int step_res_pick(const struct sched_alloc *job, const struct step_req *rq,
                  uint32_t nodes, const uint32_t *tasks,
                  const struct step_claim *const *claims, size_t nclaims,
                  struct step_claim **out)
{
    struct step_claim *cl = claim_create(nodes);
    int rc = pick(job, rq, nodes, tasks, NULL, 0, cl);

    step_claim_destroy(cl);
    *out = NULL;
    if (rc) /* not even in an idle allocation */
        return rc == EDRV_NODES_BUSY ? EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE
                                     : rc;
    cl = claim_create(nodes);
    if ((rc = pick(job, rq, nodes, tasks, claims, nclaims, cl))) {
        step_claim_destroy(cl);
        return EDRV_NODES_BUSY;
    }
    cl->overlap = rq->overlap;
    cl->gpus_owned = rq->gpus_per_task || rq->gpus_per_node || rq->gpus;
    *out = cl;
    return 0;
}

void step_claim_destroy(struct step_claim *c)
{
    if (!c)
        return;
    sched_alloc_destroy(c->part);
    free(c->ent);
    free(c);
}
