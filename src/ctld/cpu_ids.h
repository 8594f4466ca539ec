/* SPDX-License-Identifier: Apache-2.0
 *
 * cpu_ids.h - which of a node's CPUs each job holds
 *
 * The scheduling core counts CPUs; the node daemons need to know which
 * ones a job has, for its cpuset (cgroup.conf ConstrainCores=yes) and its
 * tasks' binding (task/affinity), so two jobs sharing a node are not put
 * on the same CPUs.  As a job starts, the controller gives it, on each
 * node, the lowest CPU ids no other job there holds (Slurm's select
 * plugin picks cores the same way when nothing else ranks them).  Ids
 * are Slurm's abstract CPU numbering, 0 to CPUs=-1, shown by `scontrol -d
 * show job` as CPU_IDs=; droverstepd maps id k to the node's k-th
 * hardware thread (noded/affinity.h).  The choice happens in ctld_apply()
 * and depends only on the jobs already holding the node, so replaying
 * the same events (a restart, a Raft follower) gives the same ids; they
 * are recorded with the allocation anyway (job_alloc_to_json()).
 */
#ifndef DROVER_CTLD_CPU_IDS_H
#define DROVER_CTLD_CPU_IDS_H

struct node_table;
struct sched_alloc;

/* Give each entry of 'a' that has none its CPU ids (a->cpus[i] of them:
 * the lowest ids no job holds on that node; when fewer are free, as with
 * a suspended job's CPUs lent to another, the least-held ids make up the
 * rest), then count every id of 'a' as held on its node.  Entries that
 * already have ids (restored from a record) keep them.  Out of memory
 * leaves an entry without ids (logged): its job then runs on all the
 * node's CPUs, as before ids existed. */
void cpu_ids_take(struct node_table *nt, struct sched_alloc *a);

/* The ids of 'a' are no longer held by it. */
void cpu_ids_release(struct node_table *nt, const struct sched_alloc *a);

#endif /* !DROVER_CTLD_CPU_IDS_H */
