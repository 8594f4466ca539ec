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

/* One GPU as NVML reports it, in NVML's order (PCI bus order); a GPU in
 * MIG mode is followed by its MIG instances (Slurm's gpu/nvml plugin
 * gives the instances to jobs, never the GPU itself). */
struct gpu_nvml_dev {
    unsigned index;  /* NVML's index (a MIG instance: its GPU's) */
    int mig;         /* a MIG instance: its index under its GPU
                      * (nvmlDeviceGetMigDeviceHandleByIndex); -1 for a
                      * GPU */
    int mig_count;   /* a GPU in MIG mode: how many of its instances follow
                      * it (0: none usable); -1 for a GPU not in MIG mode
                      * (and for an instance) */
    unsigned gi, ci; /* a MIG instance: its GPU and compute instance ids */
    char name[96];   /* "NVIDIA H100 80GB HBM3"; an instance: "NVIDIA
                      * A100-SXM4-40GB MIG 1g.5gb" */
    char type[96];   /* gpu_nvml_type_name(name): "nvidia_h100_80gb_hbm3";
                      * an instance: gpu_nvml_mig_type_name() */
    char uuid[96];   /* "GPU-9f2e..."; an instance: "MIG-..." */
    char file[32];   /* "/dev/nvidia<minor>"; an instance: its GPU's */
    char caps[2][48]; /* a MIG instance: the access files of its GPU
                       * instance and compute instance,
                       * "/dev/nvidia-caps/nvidia-cap<N>" (N from
                       * mig-minors); "" for a GPU */
    char bus_id[32]; /* "00000000:1B:00.0" (an instance: its GPU's) */
    char cores[256]; /* CPU affinity as a CPU list, "0-15,32-47"; "" when
                      * NVML gives none (an instance: its GPU's) */
    char links[128]; /* Slurm's Links=: per GPU of the node, in index
                      * order, the NVLinks to it, -1 for itself
                      * ("-1,18"); "" without NVLink (and for an
                      * instance: MIG has no NVLink) */
};

/* Where the NVIDIA driver lists the MIG capability minors. */
#define GPU_NVML_MIG_MINORS "/proc/driver/nvidia-caps/mig-minors"

/* The GRES type Slurm's gpu/nvml plugin derives from an NVML device name
 * (gpu_common_underscorify_tolower in Slurm's src/plugins/gpu/common):
 * lower case, each space an underscore.  "NVIDIA H100 80GB HBM3" ->
 * "nvidia_h100_80gb_hbm3", "Tesla V100-SXM2-16GB" ->
 * "tesla_v100-sxm2-16gb".  The configured type ("h100", "a100") is then
 * matched as a substring of it: gpu_nvml_merge().  Writes at most 'len'
 * bytes (NUL included) to 'out'. */
void gpu_nvml_type_name(const char *name, char *out, size_t len);

/* The GRES type of a MIG instance, as Slurm's gpu/nvml plugin makes it:
 * its GPU's name up to the first '-', '_', the instance's profile, then
 * gpu_nvml_type_name().  The profile is what follows " MIG " in the
 * instance's NVML name (the whole name when there is none).
 * ("NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB MIG 1g.5gb") ->
 * "nvidia_a100_1g.5gb"; a configured type ("1g.5gb") is then matched as
 * a substring of it.  Writes at most 'len' bytes (NUL included). */
void gpu_nvml_mig_type_name(const char *gpu_name, const char *mig_name,
                            char *out, size_t len);

/* The capability minors of MIG compute instance 'ci' of GPU instance 'gi'
 * on GPU 'gpu' (NVML's index, as Slurm), from the driver's mig-minors
 * file 'path' (GPU_NVML_MIG_MINORS; lines "gpu0/gi1/access 21" and
 * "gpu0/gi1/ci0/access 22", other lines skipped).  Returns 0 with
 * *gi_minor and *ci_minor set, or -1 with 'why' set ("cannot open
 * <path>: <strerror>", "<path>: no gpu0/gi1/ci0/access"). */
int gpu_nvml_mig_minors(const char *path, unsigned gpu, unsigned gi,
                        unsigned ci, unsigned *gi_minor, unsigned *ci_minor,
                        char *why, size_t whylen);

/* Find the GPUs: load 'lib' (NULL: "libnvidia-ml.so.1", found as dlopen
 * does), nvmlInit_v2, one gpu_nvml_dev per device, nvmlShutdown, unload.
 * A GPU whose current MIG mode is enabled (nvmlDeviceGetMigMode) is
 * followed by one entry per existing MIG instance
 * (nvmlDeviceGetMaxMigDeviceCount, nvmlDeviceGetMigDeviceHandleByIndex;
 * UUID, name, GPU and compute instance ids of each), whose capability
 * files come from 'mig_minors' (NULL: GPU_NVML_MIG_MINORS).  The MIG
 * functions are optional: a driver without them has no MIG.  An instance
 * whose ids or minors cannot be read is left out with an error logged,
 * as Slurm does.  Returns the count of entries (0 is a node without
 * GPUs) and *devs (caller frees; NULL when none), or -1 with 'why' set
 * (e.g. "cannot load libnvidia-ml.so.1: libnvidia-ml.so.1: cannot open
 * shared object file: No such file or directory", or NVML's error
 * text). */
int gpu_nvml_discover(const char *lib, const char *mig_minors,
                      struct gpu_nvml_dev **devs, char *why, size_t whylen);

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
 * renumbered from 0, types, files and UUIDs from NVML.  A GPU in MIG
 * mode is never matched: its MIG instances are, as GPUs whose files are
 * the GPU's /dev/nvidiaN then the instance's two capability files (as
 * gres.conf MultipleFiles=); a configured GPU with File= matches only a
 * GPU not in MIG mode, one with MultipleFiles= only an instance with the
 * same files (kept as configured when none has them).  Other GRES are
 * kept as they are.  Returns the number of GPUs the node now has. */
size_t gpu_nvml_merge(struct conf_node *node, const struct gpu_nvml_dev *devs,
                      size_t count);

/* gres.conf AutoDetect=nvml at droverd's start: discover, log each GPU
 * found ("AutoDetect=nvml: GPU 0: NVIDIA H100 80GB HBM3 /dev/nvidia0
 * GPU-... Cores=0-15 Links=-1,18"; a GPU in MIG mode then "AutoDetect=nvml:
 * GPU 0 is in MIG mode: its 3 MIG instance(s) are used, not the GPU", or
 * an error when it has none, and each instance "AutoDetect=nvml: GPU 0
 * MIG 1: NVIDIA A100-SXM4-40GB MIG 1g.5gb /dev/nvidia0,/dev/nvidia-caps/
 * nvidia-cap21,/dev/nvidia-caps/nvidia-cap22 MIG-... GI=1 CI=0") and
 * merge (gpu_nvml_merge).  MIG capability minors are read from
 * GPU_NVML_MIG_MINORS, or from the file $DROVER_NVML_MIG_MINORS names
 * when set (for the tests, with tests/fake_nvml; droverd's environment
 * is root's).  Without
 * NVML, one line ("AutoDetect=nvml: cannot load libnvidia-ml.so.1: ...")
 * and the configured GPUs stay. */
void gpu_nvml_autodetect(struct conf_node *node);

#endif
