/* SPDX-License-Identifier: Apache-2.0
 *
 * srun_verbose.h - srun's -v and -vv lines, as Slurm 22.05's srun prints
 * them (tools read the job id from "jobid N:" and "StepId=N.S")
 *
 * Each function prints its lines when 'level' (the -v count) is at least
 * the level Slurm prints them at (1: verbose, 2: "debug:  ") and nothing
 * otherwise.  The order of calls is the order of Slurm's lines, as in
 * shared/slurm-golden/srun-vv-N2-n2-hostname.  Lines that name Slurm's
 * internals (its threads, plugins, message types) are printed as Slurm
 * prints them, with Drover's own values where one exists (the I/O port,
 * srun's pid for a thread id); docs/compatibility.md lists them.
 */
#ifndef DROVER_CMD_LIB_SRUN_VERBOSE_H
#define DROVER_CMD_LIB_SRUN_VERBOSE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

/* -vv: "propagating RLIMIT_X=N" for each limit in 'rlimit_mask'
 * (rlimits.h rows; srun's own soft limits), then SLURM_PRIO_PROCESS and
 * UMASK (srun's nice value and umask, octal). */
void srun_verbose_propagate(FILE *f, int level, unsigned rlimit_mask);

/* -vv, srun making its own allocation: its message thread's lines, with
 * 'port' (any port of srun's) as the listening port. */
void srun_verbose_alloc_thread(FILE *f, int level, int port);

/* -vv: the authentication and hash plugin lines. */
void srun_verbose_plugins(FILE *f, int level);

/* -v: "jobid N: nodes(K):`LIST', cpu counts: C" for the allocation in
 * SLURM_JOB_NODELIST and SLURM_JOB_CPUS_PER_NODE (set by alloc.c or the
 * job's environment). */
void srun_verbose_job(FILE *f, int level, long job_id);

/* What srun knows of a step once step_create answered. */
struct srun_vstep {
    long job_id, step_id;
    uid_t uid;
    const char *nodelist;  /* -w as given, or NULL */
    long cpus, ntasks;     /* the step's CPUs and tasks */
    const char *name;      /* the step's name (the command's base name) */
    const char *cpu_bind;  /* --cpu-bind as given, or NULL */
    const char *mpi;       /* --mpi type, or NULL for none */
    int io_port;           /* srun's I/O port */
    json_t *node_names;    /* step_create's answer: names in step order */
    json_t *task_map;      /* and each node's ranks */
};

/* The lines from the step request to the launch: -vv "requesting job",
 * -v CpuBindType, -vv the launch internals, -v "launching StepId=J.S on
 * host NODE, N tasks: RANKS" per node, the route plugin line, -vv
 * "launch returned" per node. */
void srun_verbose_launch(FILE *f, int level, const struct srun_vstep *st);

/* -v: a node's tasks started (its first frame arrived). */
void srun_verbose_node_started(FILE *f, int level, const char *node,
                               size_t ntasks);

/* -v: task 'rank' on 'node' exited with wait status 'status':
 * "Received task exit notification ... (status=0x%04x).", and for
 * status 0 "NODE: task R: Completed" (others get srun's error line at the
 * end); -vv "task R done". */
void srun_verbose_task_exit(FILE *f, int level, long job_id, long step_id,
                            const char *node, int rank, int status);

/* -vv, the step over: the I/O thread's line and, with 'own_alloc', the
 * message thread's. */
void srun_verbose_end(FILE *f, int level, bool own_alloc);

#endif /* !DROVER_CMD_LIB_SRUN_VERBOSE_H */
