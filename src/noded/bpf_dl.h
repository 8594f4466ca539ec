/* SPDX-License-Identifier: Apache-2.0
 *
 * bpf_dl.h - libbpf loaded when cgroup v2's device program is first needed
 *
 * Only cgroup v2 with ConstrainDevices=yes loads an eBPF program
 * (cgroup_bpf.c), yet linking libbpf made every droverstepd load it with
 * libelf and zlib: 0.13 ms per step and batch job on the development VM
 * (common/dl.h).  cgroup_bpf.c includes this header after libbpf's own;
 * its calls go through the pointers below, which bpf_dl_load() fills.
 */
#ifndef DROVER_NODED_BPF_DL_H
#define DROVER_NODED_BPF_DL_H

#include <bpf/bpf.h>

#include "common/error.h"

/* The libbpf functions Drover calls, with libbpf's own prototypes. */
struct bpf_dl {
    __typeof__(bpf_prog_load) *prog_load;
    __typeof__(bpf_prog_attach) *prog_attach;
    __typeof__(bpf_prog_query) *prog_query;
};

extern struct bpf_dl bpf_dl;

/* Load libbpf (DROVER_BPF_LIB, config.h) and its functions, once.
 * Returns 0, or -1 with errno ENOENT and 'error' naming the library or
 * the symbol that is missing. */
int bpf_dl_load(drv_error_t *error);

#define bpf_prog_load (bpf_dl.prog_load)
#define bpf_prog_attach (bpf_dl.prog_attach)
#define bpf_prog_query (bpf_dl.prog_query)

#endif /* !DROVER_NODED_BPF_DL_H */
