/* SPDX-License-Identifier: Apache-2.0
 *
 * affinity.h - which CPUs each task of a step may run on (task/affinity)
 *
 * The node's processing units come from hwloc (topo.c, droverstepd only):
 * the PUs droverstepd may use (its cgroup's cpuset), in hwloc's logical
 * order, which is Slurm's abstract CPU numbering (socket, then core, then
 * thread).  The controller gives a job CPU ids on each node, shown by
 * `scontrol -d show job` as CPU_IDs=: job CPU id k is the PU at
 * logical position k modulo the PUs that exist, so a node that declares
 * more CPUs= than it has (drover up) binds to the PUs it really has.
 * The ids are the controller's (ctld/cpu_ids.h): two jobs on a node get
 * different ones.
 * The step may use every CPU of its job on the node, as in Slurm.
 *
 * Binding follows Slurm 22.05's task/affinity (srun(1) --cpu-bind,
 * --hint, -m's second level): automatic types hand out whole threads,
 * cores or sockets, each task taking units until it has cpus_per_task
 * PUs; -m block fills a socket before the next, cyclic (the default)
 * puts consecutive tasks on consecutive sockets, fcyclic each unit of a
 * task on the next socket.  More tasks than units wrap around.  map_cpu
 * and mask_cpu use the node's OS CPU ids and must fall within the step's
 * CPUs; rank needs the whole node.  Pure functions: tested in
 * tests/unit/test_affinity.c.
 */
#ifndef DROVER_NODED_AFFINITY_H
#define DROVER_NODED_AFFINITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sched.h>

#include "common/cpubind.h"
#include "common/error.h"
#include "common/taskdist.h"

/* One processing unit (hardware thread). */
struct topo_pu {
    int os;       /* the kernel's CPU id (sched_setaffinity) */
    int core;     /* node-wide core index, logical */
    int socket;   /* package index, logical */
};

/* The node's usable PUs in logical order; pu is owned. */
struct topo {
    struct topo_pu *pu;
    size_t npu;
};

/* Load the PUs droverstepd may use from hwloc (topo.c).  Returns 0, or
 * -1 with 'error' (hwloc failed, or no PU). */
int topo_load(struct topo *t, drv_error_t *error);

/* Free t->pu and zero *t.  NULL is a no-op. */
void topo_free(struct topo *t);

/* The step's CPUs on this node: the PUs of the job's CPU ids (modulo
 * t->npu): 'job_cpu_ids' ("0-3,8", the controller's choice, CPU_IDs=)
 * when given, else 0..job_cpus-1; all of them when job_cpus is 0 and no
 * ids are given. */
void affinity_step_cpus(const struct topo *t, uint32_t job_cpus,
                        const char *job_cpu_ids, cpu_set_t *out);

struct affinity_req {
    const struct topo *topo;
    cpu_set_t avail;           /* affinity_step_cpus() */
    bool whole_node;           /* the job has every CPU of the node */
    uint32_t ntasks;           /* tasks of the step on this node */
    uint32_t cpus_per_task;    /* -c, >= 1 */
    enum cpubind_type type;    /* resolved: not CPUBIND_UNSET */
    const char *list;          /* map_cpu/mask_cpu list */
    bool one_thread_per_core;  /* --hint=nomultithread|memory_bound */
    enum taskdist_level socket_dist; /* -m's second level */
};

/* Slurm's auto binding, when task/affinity is on and no type was asked
 * (srun(1) --cpu-bind): 'ntasks' (here) equal to the sockets wholly in
 * 'avail' binds to sockets, else ntasks x 'cpt' equal to its whole cores
 * binds to cores, else equal to its threads to threads; else
 * CPUBIND_NONE (Slurm's "auto binding off"). */
enum cpubind_type affinity_auto_type(const struct topo *t,
                                     const cpu_set_t *avail,
                                     uint32_t ntasks, uint32_t cpt);

/* Each local task's mask: masks[0..ntasks-1] (caller's array).  For
 * CPUBIND_NONE every mask is 'avail'.  Returns 0, or -1 with 'error'
 * (the text Slurm's slurmstepd gives where it has one): "Entire node
 * must be allocated for rank", a map_cpu id or mask_cpu mask outside the
 * step's CPUs, or a bad list. */
int affinity_masks(const struct affinity_req *r, cpu_set_t *masks,
                   drv_error_t *error);

/* 'set' as Slurm prints masks: "0x" and lowercase hex without leading
 * zeros ("0x5", "0x0" for none).  'buf' of CPU_SETSIZE / 4 + 3 bytes.
 * Returns buf. */
#define AFFINITY_MASK_MAX (CPU_SETSIZE / 4 + 3)
char *affinity_mask_str(const cpu_set_t *set, char *buf);

#endif /* !DROVER_NODED_AFFINITY_H */
