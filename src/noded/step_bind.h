/* SPDX-License-Identifier: Apache-2.0
 *
 * step_bind.h - binding a step's tasks on this node (in droverstepd)
 *
 * From step_launch's "cpu_bind", "hint", "cpus_per_task", "job_cpus"
 * and "gpu_bind", and the env's SLURM_DISTRIBUTION (-m's second level):
 *
 *   CPUs   only with TaskPlugin=task/affinity (alone or with task/cgroup),
 *          as in Slurm 22.05, where task/none and task/cgroup bind
 *          nothing whatever --cpu-bind says.  Each task's mask comes
 *          from affinity.h (topology from hwloc) and is set with
 *          sched_setaffinity() in the task before exec; with "verbose"
 *          the task writes Slurm's line on its stderr:
 *            cpu-bind=MASK - node01, task  0  0 [4242]: mask 0x1 set
 *          (MAP for map_cpu, RANK for rank, NONE with no " set" when not
 *          bound), and gets SLURM_CPU_BIND, SLURM_CPU_BIND_TYPE,
 *          SLURM_CPU_BIND_LIST and SLURM_CPU_BIND_VERBOSE.  With no
 *          --cpu-bind and no --hint, Slurm's auto binding decides.
 *   GPUs   --gpu-bind (any TaskPlugin, as Slurm's gres plugin does it):
 *          each task's CUDA_VISIBLE_DEVICES among the step's GPUs.
 */
#ifndef DROVER_NODED_STEP_BIND_H
#define DROVER_NODED_STEP_BIND_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "common/error.h"
#include "conf/conf.h"

struct step_bind;

/* The binding of the 'ntasks' tasks of step_launch 'body' (borrowed) on
 * 'node' under 'conf' (both borrowed for the result's life).  *out gets
 * NULL when there is nothing to bind (no task/affinity, no --gpu-bind).
 * Returns 0, or -1 with 'error' (a bad value, hwloc failing, a map or
 * mask outside the step's CPUs, rank without the whole node): the step
 * is refused with it. */
int step_bind_create(const struct slurm_conf *conf,
                     const struct conf_node *node, json_t *body,
                     size_t ntasks, struct step_bind **out,
                     drv_error_t *error);

/* NULL is a no-op. */
void step_bind_destroy(struct step_bind *sb);

/* The node's real CPUs of a job given CPU ids 'job_cpu_ids' here (the
 * controller's, "0-3,8"; NULL: 0..job_cpus-1; neither: all of them) as
 * a cpuset list, "0-1": the PUs its tasks are bound within
 * (affinity_step_cpus(), topology from hwloc; job CPU ids wrap around
 * the PUs that exist).  For cgroup.conf ConstrainCores=yes, as Slurm's
 * task/cgroup confines a job to its allocated cores.  Returns a new
 * string, or NULL with 'error' (hwloc failed). */
char *step_bind_job_cpus(uint32_t job_cpus, const char *job_cpu_ids,
                         drv_error_t *error);

/* step_bind_job_cpus()'s CPUs as a set, in *out: 0, or -1 with 'error'
 * (hwloc failed). */
int step_bind_job_cpuset(uint32_t job_cpus, const char *job_cpu_ids,
                         cpu_set_t *out, drv_error_t *error);

/* The cpuset list form of 'set' ("0-1,4"); NULL on ENOMEM.  Caller
 * frees. */
char *step_bind_cpuset_list(const cpu_set_t *set);

/* True for the step env's entries that the binding replaces
 * (SLURM_CPU_BIND* when CPUs are bound).  'sb' may be NULL. */
bool step_bind_replaces(const struct step_bind *sb, const char *kv);

/* Add local task 'local''s SLURM_CPU_BIND* entries to e[n...]
 * (xasprintf'd; at most 4).  Returns the new count. */
size_t step_bind_env(const struct step_bind *sb, size_t local, char **e,
                     size_t n);

/* Local task 'local''s GPUs: positions in the step's "gpus" list
 * 'gpus' (node indexes) as a new array, or NULL when --gpu-bind does not
 * choose: none, and closest (no GPU affinity is known: every GPU of the
 * step), leave each task what it had (all, or its --gpus-per-task
 * share).  single:N gives N tasks each GPU in turn; map_gpu/mask_gpu
 * name node GPU indexes, and one naming none of the step's GPUs leaves
 * the task all of them (logged). */
json_t *step_bind_gpus(const struct step_bind *sb, json_t *gpus,
                       size_t local);

/* In the forked task, before exec: set its CPU mask and, verbose, write
 * the cpu-bind line for rank 'rank' on 'err_fd'.  Errors go to 'err_fd'
 * too (the task still runs, as Slurm's do). */
void step_bind_apply(const struct step_bind *sb, size_t local, int rank,
                     const char *node_name, int err_fd);

#endif /* !DROVER_NODED_STEP_BIND_H */
