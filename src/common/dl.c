/* SPDX-License-Identifier: Apache-2.0
 *
 * dl.c - a library's functions loaded when first needed (dl.h)
 */
#include <dlfcn.h>
#include <errno.h>

#include "common/dl.h"

int dl_load(void **lib, const char *path, int flags,
            const struct dl_symbol *syms, size_t n, void *table,
            drv_error_t *error)
{
    void *sym;

    if (*lib)
        return 0;
    if (!(*lib = dlopen(path, flags))) {
        errno = ENOENT;
        return errprintf(error, "cannot load %s: %s", path, dlerror());
    }
    for (size_t i = 0; i < n; i++) {
        if (!(sym = dlsym(*lib, syms[i].name))) {
            dlclose(*lib);
            *lib = NULL;
            errno = ENOENT;
            return errprintf(error, "%s: no symbol %s", path, syms[i].name);
        }
        *(void **)((char *)table + syms[i].off) = sym;
    }
    return 0;
}
