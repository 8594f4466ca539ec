/* SPDX-License-Identifier: Apache-2.0
 *
 * listpids.h - scontrol listpids: the processes of job steps on one node
 */
#ifndef DROVER_CMD_LIB_LISTPIDS_H
#define DROVER_CMD_LIB_LISTPIDS_H

/* "scontrol listpids [JOBID[.STEPID]] [NODENAME]": ask the droverd of
 * NODENAME (else $SLURMD_NODENAME's, else the node of this host: several
 * nodes may share one host) for the steps' processes (step_pids,
 * src/noded/listpids.h) and print them in Slurm 22.05's table; 'job_arg'
 * NULL or "*": every job's.  Slurm's messages for a job or step not on
 * the node.  Returns the exit status (0, or 1 after a message on
 * stderr). */
int listpids_run(const char *prog, const char *job_arg, const char *node);

#endif /* !DROVER_CMD_LIB_LISTPIDS_H */
