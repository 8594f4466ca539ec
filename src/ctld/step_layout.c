/* SPDX-License-Identifier: Apache-2.0
 *
 * step_layout.c - rank numbering of a step over its nodes (step_layout.h)
 *
 * Every numbering fills node i's slots in order, so each node's ranks
 * come out ascending and SLURM_LOCALID is the position among them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "ctld/step_layout.h"

void step_layout_plane_counts(uint32_t nodes, uint32_t ntasks,
                              uint32_t plane, const uint32_t *cap,
                              uint32_t *tasks)
{
    uint32_t placed = 0;
    bool over = false;

    for (uint32_t i = 0; i < nodes; i++)
        tasks[i] = placed < ntasks ? (placed++, 1) : 0;
    for (bool first = true; placed < ntasks; first = false) {
        bool room = false;

        for (uint32_t i = 0; i < nodes && placed < ntasks; i++) {
            for (uint32_t k = first ? 1 : 0; k < plane && placed < ntasks;
                 k++) {
                if (!over && cap && tasks[i] >= cap[i])
                    break;
                tasks[i]++;
                placed++;
                if (!cap || tasks[i] < cap[i])
                    room = true;
            }
        }
        /* Slurm oversubscribes only once no node has room left. */
        if (!room)
            over = true;
    }
}

void step_layout_destroy(struct step_layout *l)
{
    if (l) {
        int saved = errno;

        free(l->tasks);
        free(l->start);
        free(l->rank);
        free(l);
        errno = saved;
    }
}

static struct step_layout *layout_alloc(uint32_t nodes, uint32_t ntasks)
{
    struct step_layout *l = calloc(1, sizeof(*l));

    if (!l)
        return NULL;
    l->nodes = nodes;
    l->ntasks = ntasks;
    l->tasks = calloc(nodes, sizeof(*l->tasks));
    l->start = calloc(nodes, sizeof(*l->start));
    l->rank = calloc(ntasks ? ntasks : 1, sizeof(*l->rank));
    if (!l->tasks || !l->start || !l->rank) {
        step_layout_destroy(l);
        errno = ENOMEM;
        return NULL;
    }
    return l;
}

/* Where each node's ranks begin in rank[]. */
static void set_starts(struct step_layout *l)
{
    for (uint32_t i = 0, pos = 0; i < l->nodes; i++) {
        l->start[i] = pos;
        pos += l->tasks[i];
    }
}

/* Deal ranks in rounds: each round, each node with slots left takes up
 * to 'chunk' consecutive ranks (block: chunk = the whole step).  'used'
 * is scratch, nodes long and zeroed. */
static void deal(struct step_layout *l, uint32_t chunk, uint32_t *used)
{
    uint32_t next = 0;

    set_starts(l);
    while (next < l->ntasks)
        for (uint32_t i = 0; i < l->nodes; i++)
            for (uint32_t k = 0; k < chunk && used[i] < l->tasks[i]; k++)
                l->rank[l->start[i] + used[i]++] = next++;
}

struct step_layout *step_layout_create(uint32_t nodes, const uint32_t *tasks,
                                       enum taskdist_node node,
                                       uint32_t plane_size)
{
    struct step_layout *l;
    uint32_t total = 0, chunk, *used;

    if (!nodes || (node == TASKDIST_PLANE && !plane_size)) {
        errno = EINVAL;
        return NULL;
    }
    for (uint32_t i = 0; i < nodes; i++) {
        if (!tasks[i] || total + tasks[i] < total) {
            errno = EINVAL;
            return NULL;
        }
        total += tasks[i];
    }
    if (!(l = layout_alloc(nodes, total)))
        return NULL;
    if (!(used = calloc(nodes, sizeof(*used)))) {
        step_layout_destroy(l);
        errno = ENOMEM;
        return NULL;
    }
    for (uint32_t i = 0; i < nodes; i++)
        l->tasks[i] = tasks[i];
    chunk = node == TASKDIST_CYCLIC ? 1
            : node == TASKDIST_PLANE ? plane_size
                                     : total;
    deal(l, chunk, used);
    free(used);
    return l;
}

struct step_layout *step_layout_from_map(uint32_t nodes, uint32_t ntasks,
                                         const uint32_t *task_node)
{
    struct step_layout *l;
    uint32_t *used;

    if (!nodes) {
        errno = EINVAL;
        return NULL;
    }
    if (!(l = layout_alloc(nodes, ntasks)))
        return NULL;
    for (uint32_t r = 0; r < ntasks; r++) {
        if (task_node[r] >= nodes) {
            step_layout_destroy(l);
            errno = EINVAL;
            return NULL;
        }
        l->tasks[task_node[r]]++;
    }
    for (uint32_t i = 0; i < nodes; i++) {
        if (!l->tasks[i]) {
            step_layout_destroy(l);
            errno = EINVAL;
            return NULL;
        }
    }
    set_starts(l);
    if (!(used = calloc(nodes, sizeof(*used)))) {
        step_layout_destroy(l);
        errno = ENOMEM;
        return NULL;
    }
    for (uint32_t r = 0; r < ntasks; r++) {
        uint32_t i = task_node[r];

        l->rank[l->start[i] + used[i]++] = r;
    }
    free(used);
    return l;
}
