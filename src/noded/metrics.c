/* SPDX-License-Identifier: Apache-2.0
 *
 * metrics.c - the text of droverd's /metrics (metrics.h)
 *
 * Per job with a step here: its cgroup's memory (cgroup_usage_read(),
 * job_<id>) and CPU time (v2 cpu.stat; on v1, where jobs have no cpuacct
 * cgroup, the sum over its live processes from jobstat.h), its processes
 * (jobstat.h) and its GPUs; the same per step cgroup; the node's
 * configured CPUs, memory and GPUs and its running jobs.  Families are
 * written whole, one after the other, as the text format requires.
 */
#include <stdlib.h>
#include <string.h>

#include "common/bitmap.h"
#include "common/promtext.h"
#include "common/xalloc.h"
#include "noded/cgroup.h"
#include "noded/jobstat.h"
#include "noded/metrics.h"
#include "noded/noded.h"
#include "noded/stepd.h"

#define GPU_BITS 4096 /* GPU indexes read from launches: at most */

/* The figures of a job or step: which are known, and their values. */
enum fig { F_CPU_S, F_MEM, F_MEM_MAX, F_MEM_LIMIT, F_PROCS, F_COUNT };

struct figs {
    double v[F_COUNT];
    bool has[F_COUNT];
};

/* One series family per figure, for jobs and for steps. */
static const struct family {
    enum fig fig;
    const char *suffix, *type, *help;
} families[] = {
    { F_CPU_S, "cpu_seconds_total", "counter",
      "CPU time used (cgroup v2 cpu.stat; v1: its live processes')." },
    { F_MEM, "memory_bytes", "gauge",
      "Memory in use (cgroup memory.current / memory.usage_in_bytes)." },
    { F_MEM_MAX, "memory_max_bytes", "gauge",
      "Largest memory use (memory.peak / memory.max_usage_in_bytes)." },
    { F_MEM_LIMIT, "memory_limit_bytes", "gauge",
      "Memory limit of the cgroup (task/cgroup ConstrainRAMSpace)." },
    { F_PROCS, "processes", "gauge", "Processes in the cgroup." },
};

#define FAMILY_COUNT (sizeof(families) / sizeof(families[0]))

struct step_rec {
    char step[32];          /* "batch", "0", ... */
    struct figs f;
};

struct job_rec {
    uint32_t id;
    const char *user;       /* borrowed from the stepmgr list */
    bitmap_t *gpus;         /* its steps' GPUs here */
    struct figs f;
    struct step_rec *steps;
    size_t nsteps;
};

static void set(struct figs *f, enum fig k, double v)
{
    f->v[k] = v;
    f->has[k] = true;
}

/* Cgroup figures of job 'id' (step NULL) or one of its steps into 'f';
 * 'cpu_us', 'rss_kib' and 'procs' from /proc stand in where the cgroup
 * has no CPU or memory figures. */
static void read_figs(struct noded *nd, uint32_t id, const char *step,
                      uint64_t cpu_us, uint64_t rss_kib, uint64_t procs,
                      struct figs *f)
{
    struct cgroup_usage u;

    cgroup_usage_read(nd->cgroup, id, step, &u);
    set(f, F_CPU_S, (double)(u.cpu ? u.cpu_us : cpu_us) / 1e6);
    set(f, F_MEM, u.mem ? (double)u.mem_bytes : (double)rss_kib * 1024.0);
    if (u.mem && u.mem_peak_bytes)
        set(f, F_MEM_MAX, (double)u.mem_peak_bytes);
    if (u.mem && u.mem_limit_bytes)
        set(f, F_MEM_LIMIT, (double)u.mem_limit_bytes);
    set(f, F_PROCS, (double)procs);
}

static uint64_t jget(const json_t *o, const char *key)
{
    return (uint64_t)json_integer_value(json_object_get(o, key));
}

/* The job's steps as jobstat finds them in its cgroups, and its own
 * figures. */
static void read_job(struct noded *nd, struct job_rec *j)
{
    json_t *steps = jobstat_steps(nd, j->id), *s;
    uint64_t cpu = 0, rss = 0, procs = 0;
    size_t i;

    j->steps = xzalloc((json_array_size(steps) + 1) * sizeof(*j->steps));
    json_array_foreach(steps, i, s) {
        struct step_rec *r = &j->steps[j->nsteps++];
        snprintf(r->step, sizeof(r->step), "%s",
                 json_string_value(json_object_get(s, "step")));
        read_figs(nd, j->id, r->step, jget(s, "cpu_us"), jget(s, "rss_kib"),
                  jget(s, "processes"), &r->f);
        cpu += jget(s, "cpu_us");
        rss += jget(s, "rss_kib");
        procs += jget(s, "processes");
    }
    read_figs(nd, j->id, NULL, cpu, rss, procs, &j->f);
    json_decref(steps);
}

/* The job of 'e' (stepmgr_running_info()) in 'jobs', added if new. */
static struct job_rec *job_of(struct job_rec **jobs, size_t *n,
                              const json_t *e)
{
    uint32_t id = (uint32_t)jget(e, "job_id");
    const char *user = json_string_value(json_object_get(e, "user"));
    const char *gpus = json_string_value(json_object_get(e, "gpus"));
    struct job_rec *j = NULL;
    bitmap_t *b;

    for (size_t i = 0; i < *n && !j; i++)
        if ((*jobs)[i].id == id)
            j = &(*jobs)[i];
    if (!j) {
        *jobs = xrealloc(*jobs, (*n + 1) * sizeof(**jobs));
        j = &(*jobs)[(*n)++];
        *j = (struct job_rec){.id = id, .user = "",
                              .gpus = bitmap_create(GPU_BITS)};
    }
    if (user && *user)
        j->user = user;
    if (gpus && *gpus && j->gpus && (b = bitmap_parse(gpus, GPU_BITS, NULL))) {
        bitmap_or(j->gpus, b);
        bitmap_destroy(b);
    }
    return j;
}

/* The UUID of this node's GPU 'index' (gres.conf AutoDetect=nvml), or
 * "". */
static const char *gpu_uuid(const struct conf_node *node, long index)
{
    for (size_t i = 0; i < node->gres_dev_count; i++)
        if (!strcmp(node->gres_devs[i].name, "gpu")
            && node->gres_devs[i].index == index && node->gres_devs[i].uuid)
            return node->gres_devs[i].uuid;
    return "";
}

static void node_series(struct promtext *t, const struct conf_node *node,
                        const char *nl, size_t njobs)
{
    uint64_t gpus = 0;

    for (size_t i = 0; i < node->gres_count; i++)
        if (!strcmp(node->gres[i].name, "gpu"))
            gpus += node->gres[i].count;
    promtext_header(t, "drover_node_cpus", "gauge",
                    "CPUs of this node (slurm.conf CPUs=).");
    promtext_put(t, "drover_node_cpus{%s} %u\n", nl, node->cpus);
    promtext_header(t, "drover_node_memory_bytes", "gauge",
                    "Memory of this node (slurm.conf RealMemory=).");
    promtext_put(t, "drover_node_memory_bytes{%s} %llu\n", nl,
                 (unsigned long long)node->real_memory_mib << 20);
    promtext_header(t, "drover_node_gpus", "gauge",
                    "GPUs of this node (slurm.conf Gres=gpu).");
    promtext_put(t, "drover_node_gpus{%s} %llu\n", nl,
                 (unsigned long long)gpus);
    promtext_header(t, "drover_node_jobs_running", "gauge",
                    "Jobs with a step running on this node.");
    promtext_put(t, "drover_node_jobs_running{%s} %zu\n", nl, njobs);
}

static void job_series(struct promtext *t, const struct job_rec *jobs,
                       size_t n, const char *node)
{
    char name[96], u[512];

    for (size_t k = 0; k < FAMILY_COUNT; k++) {
        const struct family *fam = &families[k];
        snprintf(name, sizeof(name), "drover_node_job_%s", fam->suffix);
        promtext_header(t, name, fam->type, fam->help);
        for (size_t i = 0; i < n; i++)
            if (jobs[i].f.has[fam->fig])
                promtext_put(t, "%s{job_id=\"%u\",user=\"%s\",node=\"%s\"} "
                             "%.17g\n", name, jobs[i].id,
                             promtext_esc(jobs[i].user, u), node,
                             jobs[i].f.v[fam->fig]);
    }
    for (size_t k = 0; k < FAMILY_COUNT; k++) {
        const struct family *fam = &families[k];
        snprintf(name, sizeof(name), "drover_node_step_%s", fam->suffix);
        promtext_header(t, name, fam->type, fam->help);
        for (size_t i = 0; i < n; i++)
            for (size_t s = 0; s < jobs[i].nsteps; s++)
                if (jobs[i].steps[s].f.has[fam->fig])
                    promtext_put(t, "%s{job_id=\"%u\",step_id=\"%s\","
                                 "user=\"%s\",node=\"%s\"} %.17g\n", name,
                                 jobs[i].id, jobs[i].steps[s].step,
                                 promtext_esc(jobs[i].user, u), node,
                                 jobs[i].steps[s].f.v[fam->fig]);
    }
}

/* drover_node_job_gpu_info: as the controller's drover_job_gpu_info, so
 * DCGM's per-GPU series join on node and gpu_index (or uuid). */
static void gpu_series(struct promtext *t, const struct conf_node *node,
                       const struct job_rec *jobs, size_t n, const char *nl)
{
    char u[512], id[512];

    promtext_header(t, "drover_node_job_gpu_info", "gauge",
                    "1 for each GPU of this node a running job holds.");
    for (size_t i = 0; i < n; i++)
        for (long g = jobs[i].gpus ? bitmap_first_set(jobs[i].gpus, 0) : -1;
             g >= 0; g = bitmap_first_set(jobs[i].gpus, (size_t)g + 1))
            promtext_put(t, "drover_node_job_gpu_info{job_id=\"%u\","
                         "user=\"%s\",%s,gpu_index=\"%ld\",uuid=\"%s\"} 1\n",
                         jobs[i].id, promtext_esc(jobs[i].user, u), nl, g,
                         promtext_esc(gpu_uuid(node, g), id));
}

char *metrics_render(struct noded *nd, size_t *len)
{
    json_t *steps = stepmgr_running_info(nd), *e;
    struct promtext t = {0};
    struct job_rec *jobs = NULL;
    char node[512], nl[600];
    size_t n = 0, i;

    json_array_foreach(steps, i, e)
        job_of(&jobs, &n, e);
    for (i = 0; i < n; i++)
        read_job(nd, &jobs[i]);
    promtext_esc(nd->node->name, node);
    snprintf(nl, sizeof(nl), "node=\"%s\"", node);
    node_series(&t, nd->node, nl, n);
    job_series(&t, jobs, n, node);
    gpu_series(&t, nd->node, jobs, n, nl);
    for (i = 0; i < n; i++) {
        bitmap_destroy(jobs[i].gpus);
        free(jobs[i].steps);
    }
    free(jobs);
    json_decref(steps);
    if (t.oom || !t.buf) {
        free(t.buf);
        return NULL;
    }
    *len = t.len;
    return t.buf;
}
