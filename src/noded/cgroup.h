/* SPDX-License-Identifier: Apache-2.0
 *
 * cgroup.h - the cgroups a node's jobs and steps run in (v1 and v2)
 *
 * As Slurm's proctrack/cgroup and task/cgroup: each job gets a cgroup on
 * the node and each of its steps one below it, named as Slurm names them:
 *
 *   <base>/job_<job id>/step_batch      the batch script
 *   <base>/job_<job id>/step_<step id>  an srun step ("0", "1", ...)
 *
 * where <base> is, per controller, the mount point (cgroup.conf
 * CgroupMountpoint=, default /sys/fs/cgroup; v1: plus the controller's
 * directory), then the cgroup droverd itself was started in (from
 * /proc/self/cgroup, so a droverd inside a container or a delegated
 * subtree stays inside it; the mount point itself when that directory is
 * not there; v2: the nearest ancestor that holds no process when
 * droverd's own holds some, since such a cgroup cannot enable
 * controllers for children), then "drover_<node name>_<node port>" so
 * several droverd on one host never share a tree, even those of two
 * clusters with the same
 * node names (two `drover up` clusters, test runs side by side).  Every
 * process that opens the root (droverd, a step process) must do it from
 * the same cgroup: before it moves itself anywhere.
 *
 * v1 uses the memory, pids, devices, cpuset and freezer hierarchies that
 * are mounted; v2 the unified tree with the memory, cpu, cpuset and pids
 * controllers, each written into the cgroup.subtree_control of every
 * level from the mount root down to the job (the ones that cannot be
 * are logged once), and devices through an eBPF program
 * (cgroup_bpf.h; needs no controller).  Which one: cgroup.conf
 * CgroupPlugin= (autodetect: v2 when <mountpoint>/cgroup.controllers
 * exists, else v1).  CgroupPlugin=cgroup/v2 with CgroupMountpoint= a
 * cgroup2 mount works on a host whose controllers are on v1 (the
 * "unified" hierarchy of a hybrid host): jobs are tracked and their
 * devices isolated there, without v2 limits.
 *
 * Limits, as task/cgroup's (cgroup.conf): ConstrainRAMSpace=yes puts the
 * job's memory on the node (times AllowedRAMSpace=%, default 100) on the
 * job cgroup and a step's own --mem on its step cgroup (v1
 * memory.limit_in_bytes, v2 memory.max); ConstrainSwapSpace=yes also
 * limits memory+swap (v1 memory.memsw.limit_in_bytes, v2 memory.swap.max,
 * AllowedSwapSpace=%, default 0); ConstrainDevices=yes denies the node's
 * GRES device files (gres.conf File=) that the job or step was not given
 * (cgroup_dev.h: v1 devices.deny "c MAJ:MIN rwm", v2 an eBPF device
 * program); ConstrainCores=yes writes cpuset.cpus when a CPU list is
 * given (the job's real CPUs: step_bind_job_cpus()).
 *
 * Every function that can fail returns -1 (or NULL) with 'error' set to a
 * message naming the file and the errno text; none of them exits.
 */
#ifndef DROVER_NODED_CGROUP_H
#define DROVER_NODED_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"

struct slurm_conf;
struct cgroup_root;   /* the node's tree: one per process that uses it */
struct cgroup_step;   /* one step's cgroup (with its job's above it) */
struct cgroup_dev_rule; /* cgroup_dev.h */

/* Deny the devices of 'rules' (n > 0 of them) to the processes of the
 * cgroup directory 'dir' (v2); 0, or -1 with 'error'.  cgroup_bpf.h's
 * cgroup_bpf_attach() is the one. */
typedef int cgroup_dev_attach_fn(const char *dir,
                                 const struct cgroup_dev_rule *rules,
                                 size_t n, drv_error_t *error);

/* What a job or step cgroup is limited to; zero/NULL fields: no limit. */
struct cgroup_limits {
    uint64_t mem_mib;             /* MiB; before AllowedRAMSpace= */
    const char *cpus;             /* cpuset list "0-3,6", or NULL */
    /* Device files to deny ("/dev/nvidia1"), NULL-terminated, or NULL. */
    const char *const *deny_devices;
};

/* Open the node's cgroup tree under 'conf' (its cgroup.conf settings)
 * for node 'node_name'; creates <base> in each controller used.
 * Returns NULL when cgroups are not in use (ProctrackType is not
 * proctrack/cgroup and TaskPlugin has no task/cgroup): 'error' stays
 * empty.  Returns NULL with 'error' set when they are configured but
 * cannot be used (no hierarchy, no permission).  Free with
 * cgroup_root_destroy().
 */
struct cgroup_root *cgroup_root_open(const struct slurm_conf *conf,
                                     const char *node_name,
                                     drv_error_t *error);

/* cgroup_root_open() with the text of /proc/self/cgroup given instead of
 * read ('self_cgroup', "4:memory:/a\n0::/\n"; NULL: "/" everywhere): for
 * tests on a fake tree, or a process that opens the tree of a daemon in
 * another cgroup (with that daemon's /proc/PID/cgroup). */
struct cgroup_root *cgroup_root_open_as(const struct slurm_conf *conf,
                                        const char *node_name,
                                        const char *self_cgroup,
                                        drv_error_t *error);

/* "v1" or "v2": the hierarchy in use (for logs). */
const char *cgroup_root_version(const struct cgroup_root *root);

/* The controllers in use, "freezer,pids,memory,cpuset,devices" (v1: the
 * mounted ones; v2: those enabled for the jobs), for logs.  Borrowed. */
const char *cgroup_root_controllers(const struct cgroup_root *root);

/* True when a job's cgroup denies the device files it was not given
 * (task/cgroup with ConstrainDevices=yes, on v1 with the devices
 * hierarchy, on v2 once cgroup_root_set_dev_attach() gave the eBPF
 * attach); false for a NULL root. */
bool cgroup_root_isolates_devices(const struct cgroup_root *root);

/* True on v2 with ConstrainDevices=yes (and task/cgroup): devices are
 * isolated only once cgroup_root_set_dev_attach() is called. */
bool cgroup_root_needs_dev_program(const struct cgroup_root *root);

/* Where cgroup_root_needs_dev_program(): the function that attaches the
 * device program to job and step directories ('attach' borrowed; NULL
 * takes it back); adds "devices" to cgroup_root_controllers().  The
 * daemons call it through cgroup_bpf_enable(); `drover down` never does
 * and links no libbpf.  Otherwise a no-op. */
void cgroup_root_set_dev_attach(struct cgroup_root *root,
                                cgroup_dev_attach_fn *attach);

/* True when ConstrainCores=yes (with task/cgroup) is applied: a cpuset
 * hierarchy (v1) or controller (v2) is there.  Callers give
 * cgroup_limits.cpus only then (finding the CPUs loads the topology). */
bool cgroup_root_constrains_cores(const struct cgroup_root *root);

/* <base> of the first controller (v1: the one whose cgroup.procs lists a
 * step's processes), for logs.  Borrowed; NULL for a NULL root. */
const char *cgroup_root_base(const struct cgroup_root *root);

/* Remove the empty job_* directories a previous run left behind (jobs
 * that ended while no droverd ran).  Non-empty ones stay.  Returns how
 * many were removed (counted in the first controller). */
int cgroup_root_sweep(struct cgroup_root *root);

/* Sweep, then remove <base> itself where it is empty: droverd at a clean
 * stop, `drover down` once the jobs are gone.  Returns 0 when every
 * <base> is gone, else -1 (jobs still there). */
int cgroup_root_prune(struct cgroup_root *root);

/* cgroup_root_prune() of node 'node_name''s tree as cgroup_root_open_as()
 * with 'self_cgroup' names it, making nothing (`drover down`, once the
 * jobs of a stopped droverd are gone, with that droverd's
 * /proc/PID/cgroup).  Returns 0 when nothing is left or cgroups are not
 * in use, else -1. */
int cgroup_node_prune(const struct slurm_conf *conf, const char *node_name,
                      const char *self_cgroup);

/* NULL is a no-op.  Leaves the directories (jobs keep running). */
void cgroup_root_destroy(struct cgroup_root *root);

/* Create (or reuse: a second step of a job finds its job cgroup there)
 * job_<job_id> with 'job' limits and its step_<step> with 'step' limits
 * ('step' is "batch" or the step id in decimal; 'step' limits may be
 * NULL).  Job limits are written each time (the same values).  Returns
 * the step's handle, or NULL with 'error' set.  Free with
 * cgroup_step_destroy().
 */
struct cgroup_step *cgroup_step_create(struct cgroup_root *root,
                                       uint32_t job_id, const char *step,
                                       const struct cgroup_limits *job,
                                       const struct cgroup_limits *step_lim,
                                       drv_error_t *error);

/* Move process 'pid' (0: the caller) into the step's cgroups.  Safe in a
 * forked child before exec: it only open()s, write()s and close()s paths
 * built in cgroup_step_create().  Returns 0, or -1 with errno. */
int cgroup_step_attach(const struct cgroup_step *s, pid_t pid);

/* Send 'signo' to every process in the step's cgroup (however it
 * detached: setsid, double fork), never to the caller.  SIGKILL is sent
 * again to what is still there (a process that forked meanwhile) until
 * none is left, for 1 s at most; on v2 it is the kernel's cgroup.kill.
 * Returns how many processes were signalled. */
int cgroup_step_signal(const struct cgroup_step *s, int signo);

/* True when no process is left in the step's cgroup. */
bool cgroup_step_empty(const struct cgroup_step *s);

/* How many times the kernel's OOM killer killed a process of the step
 * (v1 memory.oom_control oom_kill, v2 memory.events oom_kill); 0 when
 * not known. */
uint64_t cgroup_step_oom_kills(const struct cgroup_step *s);

/* Largest memory use of the step's cgroup in KiB (v1
 * memory.max_usage_in_bytes, v2 memory.peak), 0 when not known. */
uint64_t cgroup_step_max_rss_kib(const struct cgroup_step *s);

/* SIGKILL what is left, remove the step's directories (waiting up to
 * 0.5 s for exiting processes), then its job's when no other step
 * remains; free.  What cannot be removed is logged and left to
 * cgroup_root_sweep().  NULL is a no-op. */
void cgroup_step_destroy(struct cgroup_step *s);

/* The processes of one step cgroup (cgroup_job_procs). */
struct cgroup_step_procs {
    char *step;       /* "batch", "0", "1", ... */
    pid_t *pids;      /* from the proctrack hierarchy's cgroup.procs */
    size_t npids;
};

/* Every step cgroup of job 'job_id' on this node (job_<id>/step_*) with
 * its processes, as sstat's jobacct_gather finds them: *out (free with
 * cgroup_step_procs_free) and *n; none when the job has no cgroup here
 * (or 'root' is NULL).  Reads a few small files: cheap enough for the
 * loop.  Returns 0. */
int cgroup_job_procs(const struct cgroup_root *root, uint32_t job_id,
                     struct cgroup_step_procs **out, size_t *n);

/* What a job's or step's cgroup uses now (cgroup_usage_read). */
struct cgroup_usage {
    bool mem;                 /* the memory figures are known */
    uint64_t mem_bytes;       /* v1 memory.usage_in_bytes, v2
                               * memory.current */
    uint64_t mem_peak_bytes;  /* v1 memory.max_usage_in_bytes, v2
                               * memory.peak; 0: not known (v2 before
                               * Linux 5.19) */
    uint64_t mem_limit_bytes; /* v1 memory.limit_in_bytes, v2 memory.max;
                               * 0: no limit */
    bool cpu;                 /* cpu_us is known: v2 only (v1 jobs have
                               * no cpuacct cgroup; jobstat.h sums /proc) */
    uint64_t cpu_us;          /* v2 cpu.stat usage_usec: CPU time of every
                               * process that ran there, exited ones too */
};

/* The figures of job_<job_id> ('step' NULL) or of its step_<step>
 * ("batch", "0", ...) into *u, read from the memory hierarchy (v1) or
 * the unified tree (v2): a few small files, cheap enough for the loop.
 * Returns 0, or -1 when that cgroup is not there (or 'root' is NULL, or
 * 'step' is no step name); fields not read stay 0/false. */
int cgroup_usage_read(const struct cgroup_root *root, uint32_t job_id,
                      const char *step, struct cgroup_usage *u);

/* Free what cgroup_job_procs() gave.  NULL is a no-op. */
void cgroup_step_procs_free(struct cgroup_step_procs *p, size_t n);

/* Free the handle only: the cgroup and its processes stay (a daemon that
 * stops while its jobs keep running).  NULL is a no-op. */
void cgroup_step_release(struct cgroup_step *s);

#endif /* !DROVER_NODED_CGROUP_H */
