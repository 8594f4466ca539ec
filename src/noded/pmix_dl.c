/* SPDX-License-Identifier: Apache-2.0
 *
 * pmix_dl.c - libpmix loaded when a step first needs it (pmix_dl.h)
 */
#include "config.h"

#include <dlfcn.h>
#include <stddef.h>

#include "common/dl.h"
#include "noded/pmix_dl.h"

struct pmix_dl pmix_dl;

#define SYM(member, name) DL_SYMBOL_AS(struct pmix_dl, member, name)

static const struct dl_symbol symbols[] = {
    SYM(Info_list_start, "PMIx_Info_list_start"),
    SYM(Info_list_add, "PMIx_Info_list_add"),
    SYM(Info_list_convert, "PMIx_Info_list_convert"),
    SYM(Info_list_release, "PMIx_Info_list_release"),
    SYM(Data_array_destruct, "PMIx_Data_array_destruct"),
    SYM(Error_string, "PMIx_Error_string"),
    SYM(Get_version, "PMIx_Get_version"),
    SYM(server_init, "PMIx_server_init"),
    SYM(server_finalize, "PMIx_server_finalize"),
    SYM(server_register_nspace, "PMIx_server_register_nspace"),
    SYM(server_deregister_nspace, "PMIx_server_deregister_nspace"),
    SYM(server_register_client, "PMIx_server_register_client"),
    SYM(server_deregister_client, "PMIx_server_deregister_client"),
    SYM(server_setup_fork, "PMIx_server_setup_fork"),
};

_Static_assert(sizeof(symbols) / sizeof(symbols[0])
                   == sizeof(struct pmix_dl) / sizeof(void (*)(void)),
               "pmix_dl: a function without its symbol");

int pmix_dl_load(drv_error_t *error)
{
    static void *lib;

    /* GLOBAL: libpmix's plugins resolve its symbols */
    return dl_load(&lib, DROVER_PMIX_LIB, RTLD_NOW | RTLD_GLOBAL, symbols,
                   sizeof(symbols) / sizeof(symbols[0]), &pmix_dl, error);
}
