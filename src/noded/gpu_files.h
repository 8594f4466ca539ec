/* SPDX-License-Identifier: Apache-2.0
 *
 * gpu_files.h - the GPU device files a job or step is given on its node,
 * and those its cgroup denies
 *
 * A node's GPUs are its gres.conf devices of name gpu: each has a File=
 * (/dev/nvidia0) or a MultipleFiles= list (a MIG instance: its parent
 * GPU's /dev/nvidiaN and its /dev/nvidia-caps/nvidia-capN files).  Files
 * can be shared: every MIG instance of one GPU needs that GPU's
 * /dev/nvidiaN.  As Slurm, a file is denied only when no GPU the job or
 * step was given uses it.
 */
#ifndef DROVER_NODED_GPU_FILES_H
#define DROVER_NODED_GPU_FILES_H

#include "common/bitmap.h"
#include "conf/conf.h"

struct gpu_files {
    const char **allowed; /* files of the given GPUs, each once,
                           * NULL-terminated (for a container's devices) */
    const char **denied;  /* files of the node's other GPUs that no given
                           * GPU uses, each once, NULL-terminated (the
                           * cgroup's deny list) */
};

/* Split the GPU device files of 'node' by 'given' (bit i set: GPU index i
 * is given; NULL: none is).  The strings are the conf's (valid while it
 * lives); free the arrays with gpu_files_free().  Never fails (allocation
 * failure aborts, as xmalloc). */
void gpu_files_split(const struct conf_node *node, const bitmap_t *given,
                     struct gpu_files *out);

/* A bitmap of the GPU indexes in ranges 'list' ("0-1,3"), at least as
 * wide as the node's GPU devices; NULL for NULL or "" (none given) or a
 * malformed list (logged).  Caller frees with bitmap_destroy(). */
bitmap_t *gpu_files_given(const struct conf_node *node, const char *list);

/* Free the two arrays of 'f' (not the strings) and set them to NULL. */
void gpu_files_free(struct gpu_files *f);

#endif /* !DROVER_NODED_GPU_FILES_H */
