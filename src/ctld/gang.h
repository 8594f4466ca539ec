/* SPDX-License-Identifier: Apache-2.0
 *
 * gang.h - gang scheduling: time slicing of jobs that share CPUs
 * (PreemptMode=GANG with OverSubscribe=YES/FORCE partitions), as Slurm's
 * gang scheduler
 *
 * Jobs of an oversubscribed partition may be allocated the same CPUs (up
 * to OverSubscribe's N per CPU, sched.h: sched_request.oversubscribe).
 * The gang scheduler keeps at most a node's CPUs running at once: after
 * each scheduling run, a job that started on CPUs already running others
 * is suspended (Slurm: "the plugin will suspend the new job until the
 * configured SchedulerTimeslice interval has elapsed"); every
 * SchedulerTimeSlice seconds the jobs take turns: those suspended longest
 * resume first, as many as fit, and the ones they displace are suspended
 * (SIGSTOP/SIGCONT through the job_suspended event with 'gang': they keep
 * their CPUs, memory and GPUs, and their time suspended counts neither in
 * RunTime nor against their limit).  Jobs of other partitions on the same
 * nodes are never suspended; their CPUs count as taken.
 */
#ifndef DROVER_CTLD_GANG_H
#define DROVER_CTLD_GANG_H

#include <stdbool.h>
#include <time.h>

struct ctld;

/* After a scheduling run ('rotate' false: the jobs running keep running,
 * the newest that do not fit are suspended) or at the end of a time slice
 * ('rotate' true: suspended jobs first, longest waiting first).  No-op
 * unless PreemptMode has GANG and a partition is oversubscribed. */
void gang_check(struct ctld *ctld, time_t now, bool rotate);

/* Periodic: a rotation once SchedulerTimeSlice seconds have passed since
 * the last one. */
void gang_periodic(struct ctld *ctld, time_t now);

#endif /* !DROVER_CTLD_GANG_H */
