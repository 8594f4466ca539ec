/* SPDX-License-Identifier: Apache-2.0
 *
 * bpf_dl.c - libbpf loaded when first needed (bpf_dl.h)
 */
#include "config.h"

#include <dlfcn.h>

#include "common/dl.h"
#include "noded/bpf_dl.h"

struct bpf_dl bpf_dl;

static const struct dl_symbol symbols[] = {
    DL_SYMBOL_AS(struct bpf_dl, prog_load, "bpf_prog_load"),
    DL_SYMBOL_AS(struct bpf_dl, prog_attach, "bpf_prog_attach"),
    DL_SYMBOL_AS(struct bpf_dl, prog_query, "bpf_prog_query"),
};

_Static_assert(sizeof(symbols) / sizeof(symbols[0])
                   == sizeof(struct bpf_dl) / sizeof(void (*)(void)),
               "bpf_dl: a function without its symbol");

int bpf_dl_load(drv_error_t *error)
{
    static void *lib;

    return dl_load(&lib, DROVER_BPF_LIB, RTLD_NOW | RTLD_LOCAL, symbols,
                   sizeof(symbols) / sizeof(symbols[0]), &bpf_dl, error);
}
