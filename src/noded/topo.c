/* SPDX-License-Identifier: Apache-2.0
 *
 * topo.c - the node's sockets, cores and threads from hwloc (affinity.h)
 *
 * Only the droverstepd of a step that binds its tasks loads libhwloc
 * (hwloc_dl.h), and reads the topology.
 * hwloc leaves out the PUs this process may not use (its cgroup's
 * cpuset), so a droverd started in a cpuset binds within it.
 */
#include <stdlib.h>

#include <hwloc.h>

#include "common/xalloc.h"
#include "noded/affinity.h"
#include "noded/hwloc_dl.h" /* after hwloc.h: its calls through pointers */

/* The logical index of pu's ancestor of 'type' (0 when none). */
static int ancestor_index(hwloc_topology_t topo, hwloc_obj_type_t type,
                          hwloc_obj_t pu)
{
    hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(topo, type, pu);

    return a ? (int)a->logical_index : 0;
}

int topo_load(struct topo *t, drv_error_t *error)
{
    hwloc_topology_t topo;
    int n, depth;

    t->pu = NULL;
    t->npu = 0;
    if (hwloc_dl_load(error) < 0)
        return -1;
    if (hwloc_topology_init(&topo) < 0)
        return errprintf(error, "hwloc: cannot initialise a topology");
    /* sockets, cores and threads only: no caches, NUMA details or I/O
     * (about 5 ms a step on a 2-CPU VM; less to read on large nodes) */
    hwloc_topology_set_all_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_type_filter(topo, HWLOC_OBJ_PACKAGE,
                                   HWLOC_TYPE_FILTER_KEEP_ALL);
    hwloc_topology_set_type_filter(topo, HWLOC_OBJ_CORE,
                                   HWLOC_TYPE_FILTER_KEEP_ALL);
    if (hwloc_topology_load(topo) < 0) {
        hwloc_topology_destroy(topo);
        return errprintf(error, "hwloc: cannot load the node's topology");
    }
    /* PUs are one level, as hwloc_get_nbobjs_by_type() would read it */
    depth = hwloc_get_type_depth(topo, HWLOC_OBJ_PU);
    n = depth < 0 ? 0 : (int)hwloc_get_nbobjs_by_depth(topo, (unsigned)depth);
    if (n <= 0) {
        hwloc_topology_destroy(topo);
        return errprintf(error, "hwloc: no processing unit found");
    }
    t->pu = xzalloc(sizeof(*t->pu) * (size_t)n);
    for (int i = 0; i < n; i++) {
        hwloc_obj_t pu = hwloc_get_obj_by_depth(topo, (unsigned)depth,
                                                (unsigned)i);
        hwloc_obj_t core;

        if (!pu || pu->os_index >= CPU_SETSIZE)
            continue;
        core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
        t->pu[t->npu++] = (struct topo_pu){
            .os = (int)pu->os_index,
            /* a PU without a core above it is its own core */
            .core = core ? (int)core->logical_index : 1000000 + i,
            .socket = ancestor_index(topo, HWLOC_OBJ_PACKAGE, pu),
        };
    }
    hwloc_topology_destroy(topo);
    return 0;
}

void topo_free(struct topo *t)
{
    if (!t)
        return;
    free(t->pu);
    t->pu = NULL;
    t->npu = 0;
}
