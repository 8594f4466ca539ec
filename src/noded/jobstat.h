/* SPDX-License-Identifier: Apache-2.0
 *
 * jobstat.h - what a running job's steps use on this node now (sstat)
 *
 * As Slurm's jobacct_gather/linux: the processes of each step cgroup
 * (cgroup.h) are read from /proc: CPU time (utime + stime), resident and
 * virtual size, and bytes read from and written to storage
 * (/proc/PID/io).  Summed per step, with the largest single process's
 * resident size.  Without cgroups (an unprivileged droverd) no step is
 * found.
 */
#ifndef DROVER_NODED_JOBSTAT_H
#define DROVER_NODED_JOBSTAT_H

#include <stdint.h>

#include <jansson.h>

struct noded;

/* The steps of job 'job_id' here: [{"step","processes","cpu_us",
 * "min_cpu_us","rss_kib","max_rss_kib","vm_kib","max_vm_kib",
 * "read_bytes","max_read_bytes","write_bytes","max_write_bytes",
 * "pids":[pid]}]: sums
 * over the step's processes, and the largest (smallest CPU) of one
 * process; CPU in microseconds, sizes in KiB, I/O in bytes (new
 * reference; [] when none).  Processes that exit while being read are
 * skipped. */
json_t *jobstat_steps(const struct noded *nd, uint32_t job_id);

#endif /* !DROVER_NODED_JOBSTAT_H */
