/* SPDX-License-Identifier: Apache-2.0
 *
 * pmix_dl.c - libpmix loaded when a step first needs it (pmix_dl.h)
 */
#include "config.h"

#include <dlfcn.h>
#include <stddef.h>

#include "noded/pmix_dl.h"

struct pmix_dl pmix_dl;

static const struct {
    const char *name;
    size_t off;
} symbols[] = {
    {"PMIx_Info_list_start", offsetof(struct pmix_dl, Info_list_start)},
    {"PMIx_Info_list_add", offsetof(struct pmix_dl, Info_list_add)},
    {"PMIx_Info_list_convert", offsetof(struct pmix_dl, Info_list_convert)},
    {"PMIx_Info_list_release", offsetof(struct pmix_dl, Info_list_release)},
    {"PMIx_Data_array_destruct",
     offsetof(struct pmix_dl, Data_array_destruct)},
    {"PMIx_Error_string", offsetof(struct pmix_dl, Error_string)},
    {"PMIx_Get_version", offsetof(struct pmix_dl, Get_version)},
    {"PMIx_server_init", offsetof(struct pmix_dl, server_init)},
    {"PMIx_server_finalize", offsetof(struct pmix_dl, server_finalize)},
    {"PMIx_server_register_nspace",
     offsetof(struct pmix_dl, server_register_nspace)},
    {"PMIx_server_deregister_nspace",
     offsetof(struct pmix_dl, server_deregister_nspace)},
    {"PMIx_server_register_client",
     offsetof(struct pmix_dl, server_register_client)},
    {"PMIx_server_deregister_client",
     offsetof(struct pmix_dl, server_deregister_client)},
    {"PMIx_server_setup_fork", offsetof(struct pmix_dl, server_setup_fork)},
};

int pmix_dl_load(drv_error_t *error)
{
    static void *lib;
    void *sym;

    if (lib)
        return 0;
    /* GLOBAL: libpmix's plugins resolve its symbols */
    if (!(lib = dlopen(DROVER_PMIX_LIB, RTLD_NOW | RTLD_GLOBAL)))
        return errprintf(error, "cannot load %s: %s", DROVER_PMIX_LIB,
                         dlerror());
    for (size_t i = 0; i < sizeof(symbols) / sizeof(symbols[0]); i++) {
        if (!(sym = dlsym(lib, symbols[i].name))) {
            errprintf(error, "%s: no %s", DROVER_PMIX_LIB, symbols[i].name);
            dlclose(lib);
            lib = NULL;
            return -1;
        }
        *(void **)((char *)&pmix_dl + symbols[i].off) = sym;
    }
    return 0;
}
