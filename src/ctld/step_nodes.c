/* SPDX-License-Identifier: Apache-2.0
 *
 * step_nodes.c - srun -w/-x of a step (step_nodes.h)
 */
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

int step_nodes_resolve(const struct node_table *nt,
                       const struct sched_alloc *alloc, const char *nodelist,
                       const char *exclude, struct step_nodes *out)
{
    *out = (struct step_nodes){0};
    if (!nodelist && !exclude)
        return 0;
    out->mask = xzalloc(alloc->node_count ? alloc->node_count : 1);
    for (uint32_t e = 0; e < alloc->node_count; e++)
        out->mask[e] = STEP_ENT_MAY;
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
