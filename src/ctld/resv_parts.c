/* SPDX-License-Identifier: Apache-2.0
 *
 * resv_parts.c - reservations of part of their nodes (resv_parts.h)
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/resv.h"
#include "ctld/resv_parts.h"

/* 'total' spread over 'n' nodes: the k-th node's share. */
static uint32_t share(uint64_t total, size_t n, size_t k)
{
    return (uint32_t)(total / n + (k < total % n ? 1 : 0));
}

/* CPUs of the k-th node from "core_cnts" (one total, or one per node);
 * -1 when the list matches neither. */
static int64_t cpus_of(json_t *cnts, size_t n, size_t k)
{
    size_t m = json_array_size(cnts);

    if (m == 1)
        return share((uint64_t)json_integer_value(json_array_get(cnts, 0)),
                     n, k);
    return m == n ? json_integer_value(json_array_get(cnts, k)) : -1;
}

/* 'want' GPU indexes of node 'nd', those free now first, lowest first. */
static bitmap_t *pick_gpus(const struct sched_node *nd, uint32_t want)
{
    bitmap_t *b = bitmap_create(nd->gpus);
    uint32_t got = 0;

    for (int pass = 0; pass < 2 && got < want; pass++)
        for (uint32_t g = 0; g < nd->gpus && got < want; g++) {
            bool busy = sched_gpu_busy(nd, g); /* whole or lending shares */
            if (bitmap_test(b, g) || (pass == 0 && busy))
                continue;
            bitmap_set(b, g);
            got++;
        }
    return b;
}

/* One node's part, or NULL with *errnum and *why. */
static json_t *node_part(struct ctld *ctld, size_t idx, int64_t cpus,
                         uint32_t gpus, int *errnum, const char **why)
{
    const struct sched_node *nd = &ctld->nodes->sched[idx];
    json_t *o;
    bitmap_t *b;
    char *s;

    if (cpus < 0 || cpus > nd->cpus) {
        *errnum = EDRV_INVALID_CPU_COUNT;
        *why = "more CPUs than a node has, or a CoreCnt list that is not "
               "one count per node";
        return NULL;
    }
    if (gpus > nd->gpus) {
        *errnum = EDRV_INVALID_GRES;
        *why = "more GPUs than a node has";
        return NULL;
    }
    b = pick_gpus(nd, gpus);
    s = bitmap_fmt(b);
    o = json_pack("{s:s s:I s:s}", "node", ctld->nodes->names[idx], "cpus",
                  (json_int_t)cpus, "gpus", s ? s : "");
    free(s);
    bitmap_destroy(b);
    return o;
}

json_t *resv_parts_build(struct ctld *ctld, json_t *body,
                         const bitmap_t *nodes, int *errnum,
                         const char **why)
{
    json_t *cnts = json_object_get(body, "core_cnts");
    json_int_t gpus = json_integer_value(json_object_get(body, "gpu_cnt"));
    size_t n = bitmap_count(nodes), k = 0;
    json_t *parts;

    *errnum = 0;
    if (!json_array_size(cnts) && !gpus)
        return NULL;
    parts = json_array();
    for (size_t i = 0; i < ctld->nodes->count; i++) {
        json_t *o;
        if (!bitmap_test(nodes, i))
            continue;
        o = node_part(ctld, i,
                      json_array_size(cnts) ? cpus_of(cnts, n, k) : 0,
                      share((uint64_t)gpus, n, k), errnum, why);
        if (!o) {
            json_decref(parts);
            return NULL;
        }
        json_array_append_new(parts, o);
        k++;
    }
    return parts;
}

struct sched_alloc *resv_parts_alloc(struct ctld *ctld, json_t *parts)
{
    struct sched_alloc *a = sched_alloc_create((uint32_t)json_array_size(parts));
    json_t *o;
    size_t k;

    if (!a)
        return NULL;
    json_array_foreach(parts, k, o) {
        long idx = node_table_index(
            ctld->nodes, json_string_value(json_object_get(o, "node")));
        const char *g = json_string_value(json_object_get(o, "gpus"));
        if (idx < 0) {
            log_error("reservation part on unknown node ignored");
            sched_alloc_destroy(a);
            return NULL;
        }
        a->node_idx[k] = (uint32_t)idx;
        a->tasks[k] = 1;
        a->cpus[k] = (uint32_t)json_integer_value(json_object_get(o, "cpus"));
        if (g && *g && ctld->nodes->sched[idx].gpus
            && !(a->gpus[k] = bitmap_parse(g, ctld->nodes->sched[idx].gpus,
                                           NULL))) {
            log_error("reservation part: GPUs %s of %s unknown", g,
                      ctld->nodes->names[idx]);
            sched_alloc_destroy(a);
            return NULL;
        }
    }
    return a;
}

json_t *resv_parts_json(struct ctld *ctld, const struct sched_alloc *part)
{
    json_t *parts = json_array();

    for (uint32_t k = 0; k < part->node_count; k++) {
        char *g = sched_alloc_gpu_fmt(part, k);
        json_array_append_new(
            parts, json_pack("{s:s s:I s:s}", "node",
                             ctld->nodes->names[part->node_idx[k]], "cpus",
                             (json_int_t)part->cpus[k], "gpus", g ? g : ""));
        free(g);
    }
    return parts;
}

/* The part 'a' less the usage of every job naming 'r' on its nodes. */
static void less_its_jobs(struct ctld *ctld, const struct resv *r,
                          struct sched_alloc *a)
{
    struct job *job, *tmp;

    HASH_ITER(hh, ctld->jobs, job, tmp) {
        if (!job->alloc || !job->reservation
            || strcmp(job->reservation, r->name))
            continue;
        for (uint32_t j = 0; j < job->alloc->node_count; j++)
            for (uint32_t k = 0; k < a->node_count; k++) {
                if (a->node_idx[k] != job->alloc->node_idx[j])
                    continue;
                a->cpus[k] -= a->cpus[k] < job->alloc->cpus[j]
                                  ? a->cpus[k] : job->alloc->cpus[j];
                if (a->gpus[k] && job->alloc->gpus[j])
                    bitmap_and_not(a->gpus[k], job->alloc->gpus[j]);
            }
    }
}

struct sched_alloc *resv_parts_hold(struct ctld *ctld, const struct resv *r,
                                    time_t now)
{
    struct sched_alloc *a = sched_alloc_create(r->part->node_count);

    if (!a)
        return NULL;
    for (uint32_t k = 0; k < r->part->node_count; k++) {
        a->node_idx[k] = r->part->node_idx[k];
        a->tasks[k] = 1;
        a->cpus[k] = r->part->cpus[k];
        if (r->part->gpus[k] && !(a->gpus[k] = bitmap_copy(r->part->gpus[k]))) {
            sched_alloc_destroy(a);
            return NULL;
        }
    }
    if (resv_active(r, now))
        less_its_jobs(ctld, r, a);
    return a;
}

void resv_parts_totals(const struct sched_alloc *part, uint32_t *cpus,
                       uint32_t *gpus)
{
    *cpus = *gpus = 0;
    for (uint32_t k = 0; part && k < part->node_count; k++) {
        *cpus += part->cpus[k];
        *gpus += part->gpus[k] ? (uint32_t)bitmap_count(part->gpus[k]) : 0;
    }
}
