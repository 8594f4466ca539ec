/* SPDX-License-Identifier: Apache-2.0
 *
 * gpu_nvml.h - the node's NVIDIA GPUs, found through NVML (gres.conf
 * AutoDetect=nvml), and merged with the GPUs slurm.conf/gres.conf give
 *
 * NVML is loaded at run time with dlopen("libnvidia-ml.so.1"); nothing of
 * CUDA or NVML is needed to build Drover.  Only the versioned entry points
 * are used (nvmlInit_v2, nvmlDeviceGetCount_v2,
 * nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetPciInfo_v3, ...), with the
 * few types they take declared in gpu_nvml.c.  tests/fake_nvml builds a
 * library of that name that reads its GPUs from $DROVER_FAKE_NVML, so the
 * same code runs in the tests without hardware.
 */
#ifndef DROVER_NODED_GPU_NVML_H
#define DROVER_NODED_GPU_NVML_H

#include <stddef.h>

#include "conf/conf.h"

/* One GPU as NVML reports it, in NVML's order (PCI bus order). */
struct gpu_nvml_dev {
    unsigned index;  /* NVML's index */
    char name[96];   /* "NVIDIA H100 80GB HBM3" */
    char type[96];   /* gpu_nvml_type_name(name): "nvidia_h100_80gb_hbm3" */
    char uuid[96];   /* "GPU-9f2e..." */
    char file[32];   /* "/dev/nvidia<minor>" */
    char bus_id[32]; /* "00000000:1B:00.0" */
    char cores[256]; /* CPU affinity as a CPU list, "0-15,32-47"; "" when
                      * NVML gives none */
    char links[128]; /* Slurm's Links=: per GPU of the node, in index
                      * order, the NVLinks to it, -1 for itself
                      * ("-1,18"); "" without NVLink */
};

/* The GRES type Slurm's gpu/nvml plugin derives from an NVML device name
 * (gpu_common_underscorify_tolower in Slurm's src/plugins/gpu/common):
 * lower case, each space an underscore.  "NVIDIA H100 80GB HBM3" ->
 * "nvidia_h100_80gb_hbm3", "Tesla V100-SXM2-16GB" ->
 * "tesla_v100-sxm2-16gb".  The configured type ("h100", "a100") is then
 * matched as a substring of it: gpu_nvml_merge().  Writes at most 'len'
 * bytes (NUL included) to 'out'. */
void gpu_nvml_type_name(const char *name, char *out, size_t len);

/* Find the GPUs: load 'lib' (NULL: "libnvidia-ml.so.1", found as dlopen
 * does), nvmlInit_v2, one gpu_nvml_dev per device, nvmlShutdown, unload.
 * Returns the count (0 is a node without GPUs) and *devs (caller frees;
 * NULL when none), or -1 with 'why' set (e.g. "cannot load
 * libnvidia-ml.so.1: libnvidia-ml.so.1: cannot open shared object file:
 * No such file or directory", or NVML's error text). */
int gpu_nvml_discover(const char *lib, struct gpu_nvml_dev **devs,
                      char *why, size_t whylen);

/* Merge the found GPUs into node->gres_devs as Slurm merges the system's
 * GPUs with [slurm|gres].conf (_merge_system_gres_conf in Slurm 22.05's
 * src/common/gres.c, read for the rules):
 *  - each found GPU's type is cut down to a configured type that is a
 *    case-insensitive substring of it (longest configured types first,
 *    each configured GPU used once), or dropped when no configured GPU
 *    has a type;
 *  - each configured GPU takes the first unused found GPU of its type
 *    (any type when untyped) and of its File= (any when none given);
 *  - a configured GPU that no found GPU matches stays if it has a File=,
 *    and is dropped (with a log line) otherwise;
 *  - found GPUs that no configured GPU takes are ignored (a log line).
 * The node's GPUs are then in the configured order (the controller's
 * GPU indexes, which must agree on each index's type where the node has
 * several), each the found GPU it matched or, kept, itself; indexes
 * renumbered from 0, types, files and UUIDs from NVML.  Other GRES are kept as they are.  Returns the number of
 * GPUs the node now has. */
size_t gpu_nvml_merge(struct conf_node *node, const struct gpu_nvml_dev *devs,
                      size_t count);

/* gres.conf AutoDetect=nvml at droverd's start: discover, log each GPU
 * found ("AutoDetect=nvml: GPU 0: NVIDIA H100 80GB HBM3 /dev/nvidia0
 * GPU-... Cores=0-15 Links=-1,18") and merge (gpu_nvml_merge).  Without
 * NVML, one line ("AutoDetect=nvml: cannot load libnvidia-ml.so.1: ...")
 * and the configured GPUs stay. */
void gpu_nvml_autodetect(struct conf_node *node);

#endif
