/* SPDX-License-Identifier: Apache-2.0
 *
 * taskdist.h - Slurm's task distribution, -m / --distribution
 *
 *     {*|block|cyclic|arbitrary|plane=<size>}[:{*|block|cyclic|fcyclic}
 *         [:{*|block|cyclic|fcyclic}]][,{Pack|NoPack}]
 *
 * The first level says which ranks go to which node; the socket and core
 * levels only bind CPUs (accepted and passed on).  The accepted forms,
 * the defaults of '*' and the SLURM_DISTRIBUTION text are Slurm 22.05's
 * (verify_dist_type() and format_task_dist_states() in its proc_args.c).
 */
#ifndef DROVER_COMMON_TASKDIST_H
#define DROVER_COMMON_TASKDIST_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Which node each rank goes to. */
enum taskdist_node {
    TASKDIST_UNSET = 0,     /* not given (or only ",Pack"): the default */
    TASKDIST_BLOCK,         /* consecutive ranks share a node */
    TASKDIST_CYCLIC,        /* consecutive ranks on consecutive nodes */
    TASKDIST_PLANE,         /* blocks of plane_size ranks, round robin */
    TASKDIST_ARBITRARY,     /* in the order of SLURM_HOSTFILE */
};

/* The socket and core levels (CPU binding only). */
enum taskdist_level {
    TASKDIST_LEVEL_NONE = 0,
    TASKDIST_LEVEL_BLOCK,
    TASKDIST_LEVEL_CYCLIC,
    TASKDIST_LEVEL_FCYCLIC,
};

enum taskdist_pack {
    TASKDIST_PACK_DEFAULT = 0,
    TASKDIST_PACK,
    TASKDIST_NOPACK,
};

struct taskdist {
    enum taskdist_node node;
    enum taskdist_level socket, core;
    enum taskdist_pack pack;
    uint32_t plane_size;    /* TASKDIST_PLANE only: >= 1 */
};

/* Longest text taskdist_format() writes, with its NUL. */
#define TASKDIST_TEXT_MAX 48

/* Parse a -m value (case-insensitive) into *d.  "plane" without "=N"
 * takes its size from 'plane_env' (SLURM_DIST_PLANESIZE; may be NULL).
 * Returns 0, or -1 with errno=EINVAL, *d unchanged and 'error' (may be
 * NULL) holding the lines Slurm prints, '\n'-separated, without the
 * "prog: error: " prefix: "Invalid --distribution specification",
 * preceded for a bad plane by "Invalid plane size or size not specified".
 */
int taskdist_parse(const char *spec, const char *plane_env,
                   struct taskdist *d, drv_error_t *error);

/* Write d's text into buf (size >= TASKDIST_TEXT_MAX): Slurm's
 * SLURM_DISTRIBUTION value ("block", "cyclic:fcyclic", "plane",
 * "block,pack"; "" when nothing is set), or with 'with_size' the same
 * with "plane=N", which taskdist_parse() reads back.  Returns buf.
 */
char *taskdist_format(const struct taskdist *d, int with_size, char *buf);

/* Write Slurm's name of the layout (slurm_step_layout_type_name(), as
 * `scontrol show step` prints it as Dist=) into buf (size >=
 * TASKDIST_TEXT_MAX): "Block", "Cyclic", "Plane", "Arbitrary", "BCyclic"
 * (block:cyclic), "CFCyclic" (cyclic:fcyclic), "BBlockCyclic", ...,
 * then ",Pack" or ",NoPack"; "Unknown" for no node level.  Returns buf.
 */
char *taskdist_layout_name(const struct taskdist *d, char *buf);

#endif /* !DROVER_COMMON_TASKDIST_H */
