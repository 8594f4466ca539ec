/* SPDX-License-Identifier: Apache-2.0
 *
 * job_mem.c - memory defaults and limits of a new job (job_mem.h)
 *
 * Slurm applies them in its controller's job_submit (DefMemPerCPU
 * into pn_min_memory when the job gave no memory, MaxMemPerCPU by
 * raising cpus_per_task); DefMemPerGPU and DefCpuPerGPU are its
 * partitions' JobDefaults, used by cons_tres for GPU jobs.
 */
#include "ctld/job_mem.h"

static uint64_t div_up(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

static bool has_gpus(const struct sched_request *req)
{
    return req->gpus_per_node || req->gpus_total || req->gpus_per_task;
}

uint32_t job_mem_cpus_per_node(const struct sched_request *req)
{
    uint32_t cpt = req->cpus_per_task ? req->cpus_per_task : 1;
    uint32_t nodes = req->min_nodes ? req->min_nodes : 1;
    uint32_t tasks = req->ntasks_per_node;
    uint64_t cpus;

    if (!tasks)
        tasks = req->ntasks > nodes ? (uint32_t)div_up(req->ntasks, nodes)
                                    : 1;
    cpus = (uint64_t)cpt * tasks;
    if (cpus < req->min_cpus_per_node)
        cpus = req->min_cpus_per_node;
    return cpus > UINT32_MAX ? UINT32_MAX : (uint32_t)cpus;
}

static void apply_defaults(struct sched_request *req,
                           const struct job_mem_given *given,
                           const struct conf_partition *cp)
{
    bool gpus = has_gpus(req);

    if (gpus && cp->def_cpu_per_gpu && !given->cpus_per_task
        && !given->cpus_per_gpu)
        req->cpus_per_gpu = cp->def_cpu_per_gpu;
    if (given->mem)
        return;
    if (gpus && cp->def_mem_per_gpu_mib)
        req->mem_per_gpu_mib = cp->def_mem_per_gpu_mib;
    else if (cp->def_mem.per_cpu)
        req->mem_per_cpu_mib = cp->def_mem.mib;
    else
        req->mem_per_node_mib = cp->def_mem.mib;
}

/* MaxMemPerCPU: Slurm gives the job more CPUs rather than refuse it
 * (slurm.conf(5): "that job's count of CPUs per task will try to
 * automatically increase"); whether the larger job fits any node is the
 * submit's "could it ever run" check, after this. */
static void per_cpu_limit(struct sched_request *req, uint64_t max)
{
    if (req->mem_per_cpu_mib > max) {
        uint64_t ratio = div_up(req->mem_per_cpu_mib, max);
        uint64_t cpt = (uint64_t)(req->cpus_per_task ? req->cpus_per_task
                                                     : 1) * ratio;

        req->cpus_per_task = cpt > UINT32_MAX ? UINT32_MAX : (uint32_t)cpt;
        req->mem_per_cpu_mib = div_up(req->mem_per_cpu_mib, ratio);
    } else if (req->mem_per_node_mib) {
        uint64_t cpus = div_up(req->mem_per_node_mib, max);

        if (cpus > req->min_cpus_per_node)
            req->min_cpus_per_node = cpus > UINT32_MAX ? UINT32_MAX
                                                       : (uint32_t)cpus;
    }
}

enum job_mem_verdict job_mem_resolve(struct sched_request *req,
                                     const struct job_mem_given *given,
                                     const struct conf_partition *cp)
{
    uint64_t max = cp->max_mem.mib;

    apply_defaults(req, given, cp);
    if (!given->mem || !max)
        return JOB_MEM_OK;
    if (cp->max_mem.per_cpu) {
        per_cpu_limit(req, max);
        return JOB_MEM_OK;
    }
    if (req->mem_per_node_mib)
        return req->mem_per_node_mib > max ? JOB_MEM_OVER_LIMIT : JOB_MEM_OK;
    if (req->mem_per_cpu_mib
        && req->mem_per_cpu_mib * job_mem_cpus_per_node(req) > max)
        return JOB_MEM_OVER_LIMIT;
    return JOB_MEM_OK;
}
