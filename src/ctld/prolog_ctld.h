/* SPDX-License-Identifier: Apache-2.0
 *
 * prolog_ctld.h - slurm.conf PrologSlurmctld= and EpilogSlurmctld=
 *
 * As Slurm 22.05's slurmctld: PrologSlurmctld runs when a job is
 * allocated, EpilogSlurmctld when a job that was allocated ends (or is
 * requeued), on the controller, as SlurmUser, with the job's SLURM_JOB_*
 * environment (prolog_ctld_env()) and SLURM_SCRIPT_CONTEXT=
 * prolog_slurmctld or epilog_slurmctld.  Both run through prog_run.h: the
 * loop never waits on them; PrologEpilogTimeout= (0: none) kills them.
 *
 * While PrologSlurmctld runs the job is RUNNING and CONFIGURING (squeue
 * CF; journaled with job_started, ended by job_configured): its batch
 * script is not launched and srun steps wait.  Exit 0: the job launches.
 * Any other end: a batch job that may requeue is requeued (its EligibleTime
 * PROLOG_CTLD_REQUEUE_DELAY_S later), any other job is cancelled (Slurm:
 * "requeued (where possible) or killed"; only batch jobs requeue).
 *
 * With PrologFlags=Alloc (and a Prolog=) every node of the allocation
 * runs its Prolog at once too (job_prolog, answered when it ended,
 * noded/prolog.h), and the job stays CONFIGURING until all passed: the
 * batch script starts only then (as Slurm with DeferBatch; its batch host
 * does not run the Prolog again), srun steps wait, salloc does not.  A
 * node's failed Prolog drains it ("Prolog error") and requeues the batch
 * job held ("launch failed requeued held"), as a launch's; a node that
 * does not answer requeues it; other jobs are cancelled.
 *
 * Only the controller that applies events runs them (the Raft leader);
 * replayed events run nothing again.  A controller that finds a job
 * CONFIGURING whose PrologSlurmctld it does not run (it restarted, or took
 * over from a leader) treats it as failed: it never runs it twice.
 */
#ifndef DROVER_CTLD_PROLOG_CTLD_H
#define DROVER_CTLD_PROLOG_CTLD_H

#include "common/error.h"
#include "ctld/ctld.h"
#include "ctld/event.h"

/* Seconds a job requeued by a failed PrologSlurmctld waits before it is
 * eligible again, so that a failing program does not start it again at
 * once (the delay of a requeued preempted job, Slurm's two minutes). */
#define PROLOG_CTLD_REQUEUE_DELAY_S 120

/* Make the runners (when PrologSlurmctld= or EpilogSlurmctld= is set) and
 * the check of CONFIGURING jobs.  Returns 0 (never fails; 'error' unused,
 * for the module shape). */
int prolog_ctld_init(struct ctld *ctld, drv_error_t *error);

/* Before daemon_close_loop(): from now on a program's end changes
 * nothing (the daemon is ending). */
void prolog_ctld_stop(struct ctld *ctld);

/* After daemon_close_loop(): free what is left.  Running programs are
 * left to finish on their own. */
void prolog_ctld_fini(struct ctld *ctld);

/* Whether a job starting now must wait, CONFIGURING (PrologSlurmctld is
 * set, or PrologFlags=Alloc with a Prolog): the job_started event's
 * 'configuring'. */
bool prolog_ctld_wanted(const struct ctld *ctld);

/* Whether the nodes of 'job' know it: it launched, or it is configuring
 * and they run (or ran) its Prolog (PrologFlags=Alloc), so its end must
 * reach them (they run its Epilog). */
bool prolog_ctld_nodes_know(const struct ctld *ctld, const struct job *job);

/* 'job' started CONFIGURING (job_started applied): run PrologSlurmctld
 * (and PrologFlags=Alloc's node prologs) for it once its start is on
 * disk (prolog_ctld_flushed()), so that a controller killed before then
 * has not run a prolog for a start it never made (its successor runs it
 * for the job's next start).  When it passes, job_configured is applied
 * and a batch job is launched (scheduler_launch()). */
void prolog_ctld_start(struct ctld *ctld, struct job *job);

/* After a journal flush that succeeded (ctld_flush_cb): run the prologs
 * prolog_ctld_start() held back, of the jobs still configuring in the same
 * run. */
void prolog_ctld_flushed(struct ctld *ctld);

/* The ctld_apply() subscriber: EpilogSlurmctld for a job_ended event, and
 * for a job_requeued one that ends a run. */
void prolog_ctld_event(struct ctld *ctld, const struct ctld_event *ev);

/* The environment of PrologSlurmctld ('epilog' false) or EpilogSlurmctld
 * for 'job': SLURM_SCRIPT_CONTEXT, SLURM_CONF, SLURM_CLUSTER_NAME,
 * SLURM_JOB_ID, SLURM_JOBID, SLURM_JOB_NAME, SLURM_JOB_USER/UID,
 * SLURM_JOB_GROUP/GID, SLURM_JOB_ACCOUNT, SLURM_JOB_PARTITION,
 * SLURM_JOB_NODELIST (with SLURM_JOB_NUM_NODES, SLURM_JOB_CPUS_PER_NODE),
 * SLURM_JOB_CONSTRAINTS (-C), SLURM_JOB_COMMENT (when set),
 * SLURM_JOB_WORK_DIR, SLURM_JOB_STDOUT/STDERR/STDIN (batch jobs),
 * SLURM_JOB_RESTART_COUNT, an array's SLURM_ARRAY_*, and for the epilog
 * SLURM_JOB_EXIT_CODE, SLURM_JOB_EXIT_CODE2 ("0:0") and
 * SLURM_JOB_DERIVED_EC (the names of slurm.conf(5) and Slurm's prolog and
 * epilog guide).  A NULL-terminated array, each string and the array
 * malloc'd (prog_run_start() takes it). */
char **prolog_ctld_env(const struct ctld *ctld, const struct job *job,
                       bool epilog);

#endif /* !DROVER_CTLD_PROLOG_CTLD_H */
