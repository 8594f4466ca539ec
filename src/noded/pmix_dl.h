/* SPDX-License-Identifier: Apache-2.0
 *
 * pmix_dl.h - libpmix loaded when a step first needs it
 *
 * Only `srun --mpi=pmix` steps use PMIx, yet linking libpmix made every
 * droverstepd (every step and batch job) load it and its dependencies
 * (libevent, hwloc, udev): 0.4 ms of dynamic loading per step on the
 * development VM.  mpi_pmix.c includes this header after libpmix's own:
 * the PMIx calls it makes go through the pointers below, which
 * pmix_dl_load() fills with dlopen()/dlsym().
 */
#ifndef DROVER_NODED_PMIX_DL_H
#define DROVER_NODED_PMIX_DL_H

#include <pmix.h>
#include <pmix_server.h>

#include "common/error.h"

/* The libpmix functions Drover calls, with libpmix's own prototypes. */
struct pmix_dl {
    __typeof__(PMIx_Info_list_start) *Info_list_start;
    __typeof__(PMIx_Info_list_add) *Info_list_add;
    __typeof__(PMIx_Info_list_convert) *Info_list_convert;
    __typeof__(PMIx_Info_list_release) *Info_list_release;
    __typeof__(PMIx_Data_array_destruct) *Data_array_destruct;
    __typeof__(PMIx_Error_string) *Error_string;
    __typeof__(PMIx_Get_version) *Get_version;
    __typeof__(PMIx_server_init) *server_init;
    __typeof__(PMIx_server_finalize) *server_finalize;
    __typeof__(PMIx_server_register_nspace) *server_register_nspace;
    __typeof__(PMIx_server_deregister_nspace) *server_deregister_nspace;
    __typeof__(PMIx_server_register_client) *server_register_client;
    __typeof__(PMIx_server_deregister_client) *server_deregister_client;
    __typeof__(PMIx_server_setup_fork) *server_setup_fork;
};

extern struct pmix_dl pmix_dl;

/* Load libpmix (DROVER_PMIX_LIB, config.h) and its functions, once.
 * Returns 0, or -1 with 'error' naming the library or the symbol that is
 * missing (the step is refused; nothing else needs PMIx). */
int pmix_dl_load(drv_error_t *error);

#define PMIx_Info_list_start (pmix_dl.Info_list_start)
#define PMIx_Info_list_add (pmix_dl.Info_list_add)
#define PMIx_Info_list_convert (pmix_dl.Info_list_convert)
#define PMIx_Info_list_release (pmix_dl.Info_list_release)
#define PMIx_Data_array_destruct (pmix_dl.Data_array_destruct)
#define PMIx_Error_string (pmix_dl.Error_string)
#define PMIx_Get_version (pmix_dl.Get_version)
#define PMIx_server_init (pmix_dl.server_init)
#define PMIx_server_finalize (pmix_dl.server_finalize)
#define PMIx_server_register_nspace (pmix_dl.server_register_nspace)
#define PMIx_server_deregister_nspace (pmix_dl.server_deregister_nspace)
#define PMIx_server_register_client (pmix_dl.server_register_client)
#define PMIx_server_deregister_client (pmix_dl.server_deregister_client)
#define PMIx_server_setup_fork (pmix_dl.server_setup_fork)

#endif /* !DROVER_NODED_PMIX_DL_H */
