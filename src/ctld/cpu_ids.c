/* SPDX-License-Identifier: Apache-2.0
 *
 * cpu_ids.c - which of a node's CPUs each job holds (cpu_ids.h)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/bitmap.h"
#include "common/log.h"
#include "ctld/cpu_ids.h"
#include "ctld/node_table.h"
#include "sched/sched.h"

/* Node 'idx''s hold counts, one per CPU id, grown to its CPUs=; NULL out
 * of memory. */
static uint16_t *holds_of(struct node_table *nt, uint32_t idx)
{
    struct ctld_node *n = &nt->info[idx];
    uint32_t cpus = nt->sched[idx].cpus;
    uint16_t *h;

    if (n->ncpu_holds < cpus) {
        if (!(h = realloc(n->cpu_holds, cpus * sizeof(*h))))
            return NULL;
        memset(h + n->ncpu_holds, 0,
               (cpus - n->ncpu_holds) * sizeof(*h));
        n->cpu_holds = h;
        n->ncpu_holds = cpus;
    }
    return n->cpu_holds;
}

/* 'want' ids of a node with 'ncpu' CPUs and hold counts 'holds': the
 * lowest free ones, then the least held.  NULL out of memory. */
static bitmap_t *choose(const uint16_t *holds, uint32_t ncpu, uint32_t want)
{
    bitmap_t *ids = bitmap_create(ncpu);
    uint32_t got = 0;

    if (!ids)
        return NULL;
    if (want > ncpu)
        want = ncpu;
    for (uint32_t level = 0; got < want; level++)
        for (uint32_t c = 0; c < ncpu && got < want; c++)
            if (holds[c] == level && !bitmap_test(ids, c)) {
                bitmap_set(ids, c);
                got++;
            }
    return ids;
}

void cpu_ids_take(struct node_table *nt, struct sched_alloc *a)
{
    for (uint32_t i = 0; i < a->node_count; i++) {
        uint32_t idx = a->node_idx[i], ncpu = nt->sched[idx].cpus;
        uint16_t *holds = holds_of(nt, idx);

        if (!holds) {
            log_error("cpu ids: out of memory for node %s", nt->names[idx]);
            continue;
        }
        if (!a->cpu_ids[i] && !(a->cpu_ids[i] = choose(holds, ncpu,
                                                       a->cpus[i]))) {
            log_error("cpu ids: out of memory for node %s", nt->names[idx]);
            continue;
        }
        for (long c = bitmap_first_set(a->cpu_ids[i], 0);
             c >= 0 && (uint32_t)c < ncpu;
             c = bitmap_first_set(a->cpu_ids[i], (size_t)c + 1))
            if (holds[c] < UINT16_MAX)
                holds[c]++;
    }
}

void cpu_ids_release(struct node_table *nt, const struct sched_alloc *a)
{
    for (uint32_t i = 0; i < a->node_count; i++) {
        struct ctld_node *n = &nt->info[a->node_idx[i]];

        if (!a->cpu_ids[i])
            continue;
        for (long c = bitmap_first_set(a->cpu_ids[i], 0);
             c >= 0 && (uint32_t)c < n->ncpu_holds;
             c = bitmap_first_set(a->cpu_ids[i], (size_t)c + 1))
            if (n->cpu_holds[c] > 0)
                n->cpu_holds[c]--;
    }
}
