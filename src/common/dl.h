/* SPDX-License-Identifier: Apache-2.0
 *
 * dl.h - a library's functions loaded when first needed
 *
 * A library linked into a program is loaded at every exec, whether it is
 * used or not: droverstepd runs once per job step and batch job, and
 * libpmix, libhwloc and libbpf (with libevent, libudev, libelf, zlib)
 * cost it about 0.7 ms of dynamic loading on the development VM, for
 * steps that bind CPUs, run MPI or need cgroup v2's device program only.
 * Such a library's functions go through a table of pointers instead
 * (pmix_dl.h, hwloc_dl.h, bpf_dl.h, proto/tls_dl.h), which dl_load() fills
 * with dlopen() and dlsym() when the first caller needs it.
 */
#ifndef DROVER_COMMON_DL_H
#define DROVER_COMMON_DL_H

#include <stddef.h>

#include "common/error.h"

/* One function of a table: its symbol and its member's offset. */
struct dl_symbol {
    const char *name;
    size_t off;
};

/* The entry of member 'member' of table type 'type', named 'member'
 * itself or 'name'. */
#define DL_SYMBOL(type, member) {#member, offsetof(type, member)}
#define DL_SYMBOL_AS(type, member, name) {name, offsetof(type, member)}

/* Load 'path' (dlopen() 'flags') once and fill 'table' with the 'n'
 * symbols of 'syms'.  '*lib' holds the library once loaded: 0 at once
 * then.  Returns 0, or -1 with errno ENOENT and 'error' naming the
 * library that could not be loaded (with dlerror()'s reason) or the
 * symbol it lacks; nothing stays loaded then, and a later call tries
 * again. */
int dl_load(void **lib, const char *path, int flags,
            const struct dl_symbol *syms, size_t n, void *table,
            drv_error_t *error);

#endif /* !DROVER_COMMON_DL_H */
