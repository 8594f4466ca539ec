/* SPDX-License-Identifier: Apache-2.0
 *
 * preempt.h - preemption (PreemptType=preempt/partition_prio or
 * preempt/qos; PreemptMode=CANCEL, REQUEUE or SUSPEND)
 *
 * After each scheduling pass, the first pending job (in the queue's
 * order) that waits for resources and may preempt running jobs has the
 * fewest of them chosen (src/sched: sched_preempt_choose(); lowest
 * priority, then youngest, first) and preempted: the job_preempted event,
 * then their nodes end them.  A requeued one pends again 120 s later
 * (BeginTime), as Slurm 22.05 does; a cancelled one ends PREEMPTED.  Jobs
 * already ending for a preemption count as free, so a preemptor waits for
 * them rather than preempting more.
 *
 * A job preempted with SUSPEND (which needs GANG in the global
 * PreemptMode, as in Slurm) is suspended at once: SIGSTOP to its
 * processes, its CPUs given back while it keeps its memory and GPUs (so
 * it makes room for CPUs only, as Slurm's cons_tres).  Before each pass it
 * resumes, highest tier and priority first, as soon as its CPUs are free
 * again and its preemptor no longer waits to start (Slurm's gang
 * scheduler resumes it when the preemptor ends).
 *
 * Who may preempt whom: partition_prio, a job of a partition with a
 * higher PriorityTier preempts jobs of lower tiers; qos, a job whose
 * QOS's Preempt= lists the running job's QOS.  The preempted job's mode is
 * its partition's PreemptMode (partition_prio) or its QOS's (qos;
 * "cluster": the global one); OFF exempts it, as does having run less
 * than PreemptExemptTime.
 */
#ifndef DROVER_CTLD_PREEMPT_H
#define DROVER_CTLD_PREEMPT_H

#include <stddef.h>
#include <time.h>

#include "sched/sched.h"

struct ctld;
struct job;

/* Seconds a requeued preempted job waits before it is eligible again
 * (Slurm 22.05: EligibleTime two minutes after the preemption). */
#define PREEMPT_REQUEUE_DELAY_S 120

/* scheduler.c, after applying a pass's decisions: preempt for the first
 * job of 'pend' (np entries, the pass's order) whose decision 'dec' is to
 * wait for resources, if it may preempt.  No-op under preempt/none. */
void preempt_pass(struct ctld *ctld, struct job **pend,
                  const struct sched_decision *dec, size_t np, time_t now);

/* scheduler.c, before a pass: resume the jobs suspended by preemption
 * whose CPUs are free again (see above). */
void preempt_resume(struct ctld *ctld, time_t now);

/* Periodic: preempted jobs whose GraceTime (partition or QOS GraceTime=:
 * SIGTERM at the preemption) is over are ended (SIGTERM, then SIGKILL
 * after KillWait).  A restart sends it again, which is harmless. */
void preempt_grace_check(struct ctld *ctld, time_t now);

#endif /* !DROVER_CTLD_PREEMPT_H */
