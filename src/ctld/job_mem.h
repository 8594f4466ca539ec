/* SPDX-License-Identifier: Apache-2.0
 *
 * job_mem.h - a new job's memory and CPUs against its partition's
 * DefMemPerCPU/DefMemPerNode, DefMemPerGPU, DefCpuPerGPU and
 * MaxMemPerCPU/MaxMemPerNode (slurm.conf(5), Slurm 22.05)
 *
 * The one place a submission's memory request is completed: what this
 * writes into the request is the job's, shown by scontrol
 * (MinMemoryCPU=/MinMemoryNode=), scheduled, limited in the job's cgroup
 * and journaled like an explicit request.  Pure: no controller state.
 */
#ifndef DROVER_CTLD_JOB_MEM_H
#define DROVER_CTLD_JOB_MEM_H

#include <stdbool.h>

#include "conf/conf.h"
#include "sched/sched.h"

/* Which of the request's options the submission gave (a value of 0
 * included: --mem=0 is given). */
struct job_mem_given {
    bool mem;           /* --mem, --mem-per-cpu or --mem-per-gpu */
    bool cpus_per_task; /* -c */
    bool cpus_per_gpu;  /* --cpus-per-gpu */
};

enum job_mem_verdict {
    JOB_MEM_OK,
    JOB_MEM_OVER_LIMIT, /* more memory per node than MaxMemPerNode (Slurm's
                         * MaxMemPerLimit) */
};

/* Complete 'req' from partition 'cp' (its own values, else the global
 * ones: conf_partition), in Slurm's order:
 *  - a job with GPUs and neither -c nor --cpus-per-gpu gets
 *    DefCpuPerGPU as its CPUs per GPU;
 *  - a job without a memory option gets DefMemPerGPU per GPU when it has
 *    GPUs and that is set, else DefMemPerCPU or DefMemPerNode; defaults
 *    are not held to the MaxMem* limits (as Slurm);
 *  - an explicit --mem-per-cpu over MaxMemPerCPU raises -c by the
 *    factor that brings it under (ceil(mem / max)) and divides the memory
 *    per CPU by it, rounding up; an explicit --mem with MaxMemPerCPU
 *    raises --mincpus to ceil(mem / max);
 *  - an explicit --mem over MaxMemPerNode, or --mem-per-cpu times the CPUs
 *    the job asks of its busiest node over it, is JOB_MEM_OVER_LIMIT
 *    ('req' left as it is).
 */
enum job_mem_verdict job_mem_resolve(struct sched_request *req,
                                     const struct job_mem_given *given,
                                     const struct conf_partition *cp);

/* The CPUs 'req' asks of its busiest node: -c times its tasks there
 * (--ntasks-per-node, else the tasks spread over -N), at least
 * --mincpus. */
uint32_t job_mem_cpus_per_node(const struct sched_request *req);

#endif /* !DROVER_CTLD_JOB_MEM_H */
