/* SPDX-License-Identifier: Apache-2.0
 *
 * hwloc_dl.c - libhwloc loaded when first needed (hwloc_dl.h)
 */
#include "config.h"

#include <dlfcn.h>

#include "common/dl.h"
#include "noded/hwloc_dl.h"

struct hwloc_dl hwloc_dl;

static const struct dl_symbol symbols[] = {
    DL_SYMBOL_AS(struct hwloc_dl, topology_init, "hwloc_topology_init"),
    DL_SYMBOL_AS(struct hwloc_dl, set_all_types_filter,
                 "hwloc_topology_set_all_types_filter"),
    DL_SYMBOL_AS(struct hwloc_dl, set_type_filter,
                 "hwloc_topology_set_type_filter"),
    DL_SYMBOL_AS(struct hwloc_dl, topology_load, "hwloc_topology_load"),
    DL_SYMBOL_AS(struct hwloc_dl, topology_destroy, "hwloc_topology_destroy"),
    DL_SYMBOL_AS(struct hwloc_dl, get_type_depth, "hwloc_get_type_depth"),
    DL_SYMBOL_AS(struct hwloc_dl, get_nbobjs_by_depth,
                 "hwloc_get_nbobjs_by_depth"),
    DL_SYMBOL_AS(struct hwloc_dl, get_obj_by_depth, "hwloc_get_obj_by_depth"),
};

_Static_assert(sizeof(symbols) / sizeof(symbols[0])
                   == sizeof(struct hwloc_dl) / sizeof(void (*)(void)),
               "hwloc_dl: a function without its symbol");

int hwloc_dl_load(drv_error_t *error)
{
    static void *lib;

    return dl_load(&lib, DROVER_HWLOC_LIB, RTLD_NOW | RTLD_LOCAL, symbols,
                   sizeof(symbols) / sizeof(symbols[0]), &hwloc_dl, error);
}
