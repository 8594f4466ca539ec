/* SPDX-License-Identifier: Apache-2.0
 *
 * hwloc_dl.h - libhwloc loaded when a step first binds CPUs
 *
 * Only steps that bind their tasks read the node's topology (topo.c), yet
 * linking libhwloc made every droverstepd load it with libudev: 0.16 ms
 * per step and batch job on the development VM (common/dl.h).  topo.c
 * includes this header after hwloc's own and calls only real functions
 * of the library (no inline helper of hwloc's headers that calls one),
 * through the pointers below, which hwloc_dl_load() fills.
 */
#ifndef DROVER_NODED_HWLOC_DL_H
#define DROVER_NODED_HWLOC_DL_H

#include <hwloc.h>

#include "common/error.h"

/* The libhwloc functions Drover calls, with hwloc's own prototypes. */
struct hwloc_dl {
    __typeof__(hwloc_topology_init) *topology_init;
    __typeof__(hwloc_topology_set_all_types_filter) *set_all_types_filter;
    __typeof__(hwloc_topology_set_type_filter) *set_type_filter;
    __typeof__(hwloc_topology_load) *topology_load;
    __typeof__(hwloc_topology_destroy) *topology_destroy;
    __typeof__(hwloc_get_type_depth) *get_type_depth;
    __typeof__(hwloc_get_nbobjs_by_depth) *get_nbobjs_by_depth;
    __typeof__(hwloc_get_obj_by_depth) *get_obj_by_depth;
};

extern struct hwloc_dl hwloc_dl;

/* Load libhwloc (DROVER_HWLOC_LIB, config.h) and its functions, once.
 * Returns 0, or -1 with errno ENOENT and 'error' naming the library or
 * the symbol that is missing. */
int hwloc_dl_load(drv_error_t *error);

#define hwloc_topology_init (hwloc_dl.topology_init)
#define hwloc_topology_set_all_types_filter (hwloc_dl.set_all_types_filter)
#define hwloc_topology_set_type_filter (hwloc_dl.set_type_filter)
#define hwloc_topology_load (hwloc_dl.topology_load)
#define hwloc_topology_destroy (hwloc_dl.topology_destroy)
#define hwloc_get_type_depth (hwloc_dl.get_type_depth)
#define hwloc_get_nbobjs_by_depth (hwloc_dl.get_nbobjs_by_depth)
#define hwloc_get_obj_by_depth (hwloc_dl.get_obj_by_depth)

#endif /* !DROVER_NODED_HWLOC_DL_H */
