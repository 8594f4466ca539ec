/* SPDX-License-Identifier: Apache-2.0
 *
 * cpubind.h - Slurm's --cpu-bind, --gpu-bind and --hint values
 *
 *     --cpu-bind=[{quiet,verbose},]{none|rank|map_cpu:<list>|
 *                 mask_cpu:<list>|sockets|cores|threads|ldoms}
 *     --gpu-bind=[verbose,]{none|closest|single:<n>|map_gpu:<list>|
 *                 mask_gpu:<list>}
 *     --hint={compute_bound|memory_bound|multithread|nomultithread}
 *
 * The words, their short forms (q, v, no, socket, core, thread, ldom) and
 * the lists (map: decimal ids or 0x-prefixed hex; mask: hex with an
 * optional 0x, any length) are Slurm 22.05's (srun(1)).  srun checks the
 * values with these functions before it sends them in step_create;
 * droverstepd reads them again to bind each task (noded/affinity.h).
 * Slurm's NUMA forms (rank_ldom, map_ldom, mask_ldom) and boards are
 * refused; "ldoms" binds to sockets (docs/compatibility.md).
 */
#ifndef DROVER_COMMON_CPUBIND_H
#define DROVER_COMMON_CPUBIND_H

#include <stdbool.h>
#include <stddef.h>
#include <sched.h>

#include "common/error.h"

enum cpubind_type {
    CPUBIND_UNSET = 0, /* nothing asked: the TaskPlugin's default */
    CPUBIND_NONE,
    CPUBIND_RANK,      /* local task N on CPU N (whole node only) */
    CPUBIND_MAP_CPU,   /* local task N on the Nth CPU id of the list */
    CPUBIND_MASK_CPU,  /* local task N on the Nth mask of the list */
    CPUBIND_SOCKETS,
    CPUBIND_CORES,
    CPUBIND_THREADS,
    CPUBIND_LDOMS,     /* as sockets */
};

struct cpubind {
    enum cpubind_type type;
    bool verbose;
    bool quiet;        /* "quiet" asked: no report even where
                        * TaskPluginParam=Verbose */
    char *list;        /* map_cpu/mask_cpu list as given; owned, or NULL */
};

/* Parse a --cpu-bind value (SLURM_CPU_BIND takes the same) into *b
 * (cleared first; release with cpubind_clear()).  Words are
 * case-insensitive; a later type replaces an earlier one, as in Slurm.
 * Returns 0, or -1 with 'error' (may be NULL) holding Slurm's text
 * without the "srun: error: " prefix:
 *   unrecognized --cpu-bind argument "WORD"
 *   missing list for "--cpu-bind=<map_cpu|mask_cpu>:<list>"
 * or Drover's for a bad list member or an unsupported NUMA form. */
int cpubind_parse(const char *spec, struct cpubind *b, drv_error_t *error);

/* Free b->list and zero *b.  NULL is a no-op. */
void cpubind_clear(struct cpubind *b);

/* "none", "rank", "map_cpu", "mask_cpu", "sockets", "cores", "threads",
 * "ldoms"; "" for CPUBIND_UNSET.  Static string. */
const char *cpubind_type_name(enum cpubind_type type);

/* The members of a map or mask list ("0,2", "0x3,c"): *sets gets one
 * cpu_set_t per member (caller frees), *n their count.  With 'mask' each
 * member is a hex mask (optional 0x; bits beyond CPU_SETSIZE refused),
 * else one id, decimal or 0x-hex, below CPU_SETSIZE.  Returns 0, or -1
 * with 'error' naming the bad member (nothing allocated). */
int cpubind_list(const char *list, bool mask, cpu_set_t **sets, size_t *n,
                 drv_error_t *error);

/* --hint: the binding it implies when --cpu-bind gives no type (threads
 * for multithread and nomultithread, cores for compute_bound and
 * memory_bound) and whether only one thread of each core is used
 * (nomultithread, memory_bound), as Slurm 22.05 maps them.  Returns 0,
 * or -1 with 'error': "Invalid --hint argument: WORD" (Drover's text). */
int cpubind_hint(const char *hint, enum cpubind_type *type,
                 bool *one_thread_per_core, drv_error_t *error);

enum gpubind_type {
    GPUBIND_UNSET = 0,
    GPUBIND_NONE,      /* every GPU of the step */
    GPUBIND_CLOSEST,   /* no GPU affinity known: every GPU of the step */
    GPUBIND_SINGLE,    /* 'single' tasks per GPU, in order */
    GPUBIND_MAP_GPU,
    GPUBIND_MASK_GPU,
};

struct gpubind {
    enum gpubind_type type;
    bool verbose;
    unsigned single;   /* GPUBIND_SINGLE: tasks per GPU, >= 1 */
    char *list;        /* map_gpu/mask_gpu list; owned, or NULL */
};

/* Parse a --gpu-bind value into *b (release with gpubind_clear()).
 * Returns 0, or -1 with 'error': "Invalid --gpu-bind argument: VALUE". */
int gpubind_parse(const char *spec, struct gpubind *b, drv_error_t *error);

/* Free b->list and zero *b.  NULL is a no-op. */
void gpubind_clear(struct gpubind *b);

#endif /* !DROVER_COMMON_CPUBIND_H */
