/* SPDX-License-Identifier: Apache-2.0
 *
 * step_nodes.c - srun -w/-x/-B of a step (step_nodes.h)
 */
#include <stdbool.h>
#include <stdlib.h>

#include "common/error.h"
#include "common/hostlist.h"
#include "common/xalloc.h"
#include "ctld/step_nodes.h"
#include "ctld/step_res.h"

/* The allocation entry of node table index 'idx', or -1. */
static long entry_of(const struct sched_alloc *alloc, long idx)
{
    for (uint32_t e = 0; idx >= 0 && e < alloc->node_count; e++)
        if (alloc->node_idx[e] == (uint32_t)idx)
            return (long)e;
    return -1;
}

/* Mark each node of 'expr' found in the allocation 'value'; with 'strict'
 * a name that is not there (or a bad expression) fails.  0 or -1. */
static int mark(const struct node_table *nt, const struct sched_alloc *alloc,
                const char *expr, uint8_t value, bool strict, uint8_t *mask)
{
    hostlist_t *hl = hostlist_decode(expr, NULL);
    int rc = hl ? 0 : -1;

    for (size_t i = 0; hl && i < hostlist_count(hl) && !rc; i++) {
        long e = entry_of(alloc, node_table_index(nt, hostlist_nth(hl, i)));

        if (e < 0)
            rc = strict ? -1 : 0;
        else if (strict && mask[e] == STEP_ENT_NO)
            rc = -1; /* -w and -x both name it */
        else
            mask[e] = value;
    }
    hostlist_destroy(hl);
    return rc;
}

/* Whether the node of entry 'e' has the sockets, cores and threads of
 * 'topo' (configured, as the job's own -B is judged: src/sched). */
static bool topo_ok(const struct node_table *nt,
                    const struct sched_alloc *alloc, uint32_t e,
                    const struct step_topo *topo)
{
    const struct sched_node *nd = &nt->sched[alloc->node_idx[e]];

    return !topo
           || (nd->sockets >= topo->sockets
               && nd->cores_per_socket >= topo->cores
               && nd->threads_per_core >= topo->threads);
}

/* Entries 'topo' leaves out. */
static uint32_t topo_excluded(const struct node_table *nt,
                              const struct sched_alloc *alloc,
                              const struct step_topo *topo)
{
    uint32_t n = 0;

    for (uint32_t e = 0; e < alloc->node_count; e++)
        n += !topo_ok(nt, alloc, e, topo);
    return n;
}

int step_nodes_resolve(const struct node_table *nt,
                       const struct sched_alloc *alloc, const char *nodelist,
                       const char *exclude, const struct step_topo *topo,
                       struct step_nodes *out)
{
    uint32_t topo_out = topo_excluded(nt, alloc, topo);

    *out = (struct step_nodes){0};
    if (topo_out && topo_out == alloc->node_count)
        return EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE;
    if (!nodelist && !exclude && !topo_out)
        return 0;
    out->mask = xzalloc(alloc->node_count ? alloc->node_count : 1);
    for (uint32_t e = 0; e < alloc->node_count; e++)
        out->mask[e] = topo_ok(nt, alloc, e, topo) ? STEP_ENT_MAY
                                                    : STEP_ENT_NO;
    if ((exclude && mark(nt, alloc, exclude, STEP_ENT_NO, false, out->mask))
        || (nodelist
            && mark(nt, alloc, nodelist, STEP_ENT_MUST, true, out->mask))) {
        free(out->mask);
        *out = (struct step_nodes){0};
        return EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE;
    }
    for (uint32_t e = 0; e < alloc->node_count; e++) {
        out->must += out->mask[e] == STEP_ENT_MUST;
        out->usable += out->mask[e] != STEP_ENT_NO;
    }
    return 0;
}
