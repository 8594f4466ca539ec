/* SPDX-License-Identifier: Apache-2.0
 *
 * prolog.h - slurm.conf Prolog= and Epilog= on this node (droverd)
 *
 * As Slurm 22.05's slurmd: Prolog runs as root on each node of a job
 * before the job's first launch there (its batch script, or the first
 * srun step to reach the node), Epilog at the job's end on each of its
 * nodes.  A pattern with glob characters (a prolog.d directory and a
 * star) runs every match, in order, until one fails.  Their output is discarded.
 * The environment is what the controller sends with the launch or the
 * end (ctld/prolog_env.h: SLURM_JOB_ID, SLURM_JOB_USER, ...,
 * CUDA_VISIBLE_DEVICES) plus SLURMD_NODENAME, SLURM_CONF,
 * SLURM_SCRIPT_CONTEXT=prolog_slurmd|epilog_slurmd and PATH.
 * PrologEpilogTimeout= kills a script's process group and counts as a
 * failure.  With PrologFlags=Serial one Prolog or Epilog runs at a time
 * on the node: the others wait, in order, for the one running.
 *
 * A failed Prolog fails the launch with EDRV_PROLOG_FAILED ("Job prolog
 * failed"): the controller drains the node ("Prolog error") and requeues
 * the batch job held, or srun reports the step's launch failure.  A
 * finished Epilog is reported in the next registration, sent at once
 * ("epilog_done", and "epilog_failed": the controller drains the node,
 * "Epilog error").  The scripts are
 * forked and reaped by main.c's SIGCHLD handler (prolog_reaped()); the
 * loop never waits for them.
 */
#ifndef DROVER_NODED_PROLOG_H
#define DROVER_NODED_PROLOG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

struct noded;

/* Called once per prolog_before_launch() with whether Prolog passed. */
typedef void prolog_done_fn(bool ok, void *arg);

/* Before a launch of job 'job_id' here: run Prolog= unless it passed for
 * the job already ('done' at once; a launch that comes while it runs
 * waits for its result; after a failure the next launch, of the job
 * requeued, runs it again).  'env' (a JSON array of "NAME=value", borrowed,
 * may be NULL) is kept for the job's Epilog.  Without Prolog= 'done' is
 * called at once with true. */
void prolog_before_launch(struct noded *nd, uint32_t job_id, json_t *env,
                          prolog_done_fn *done, void *arg);

/* Job 'job_id' ended here: run Epilog= once for it (with 'env' when
 * given, else the environment its launch brought, else SLURM_JOB_ID
 * alone), then forget the job.  No-op without Epilog= (the job is still
 * forgotten). */
void prolog_job_ended(struct noded *nd, uint32_t job_id, json_t *env);

/* A child ended: true when it was a Prolog or Epilog script. */
bool prolog_reaped(struct noded *nd, pid_t pid, int status);

/* Into a registration body: "epilog_done", the ids of the jobs whose
 * Epilog ended (the controller keeps the node COMPLETING until then,
 * ctld/node_epilog.h), and "epilog_failed", those of them that failed,
 * not yet told to the controller (copies).  prolog_registered(): the
 * controller answered registration 'body' (borrowed; NULL: none): what
 * it carried is told. */
void prolog_to_json(struct noded *nd, json_t *body);
void prolog_registered(struct noded *nd, json_t *body);

/* Free every record, after the loop's handles were closed (droverd's
 * exit; running scripts are left alone). */
void prolog_free(struct noded *nd);

#endif /* !DROVER_NODED_PROLOG_H */
