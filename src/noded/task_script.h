/* SPDX-License-Identifier: Apache-2.0
 *
 * task_script.h - task prologs and epilogs of step tasks (droverstepd)
 *
 * As Slurm 22.05's slurmstepd: slurm.conf TaskProlog, then srun
 * --task-prolog, run as the user in the task's own process just before
 * its program (SLURM_TASK_PID is the task's pid, SLURM_SCRIPT_CONTEXT
 * "prolog_task"); each stdout line "export NAME=value" sets NAME in the
 * task's environment, "unset NAME" removes it, "print TEXT" writes TEXT
 * to the task's stdout; a prolog exiting non-zero ends the task with that
 * exit code before its program runs.  After each task: srun
 * --task-epilog (killed after 5 s), then slurm.conf TaskEpilog (no
 * limit), run as the user with the task's environment
 * (SLURM_SCRIPT_CONTEXT "epilog_task"), output discarded, exit status
 * logged only.
 */
#ifndef DROVER_NODED_TASK_SCRIPT_H
#define DROVER_NODED_TASK_SCRIPT_H

#include <sys/types.h>

/* Set NAME=value in the NULL-terminated, malloc'd *envp (replacing a
 * NAME already there; *envp may be reallocated). */
void task_env_set(char ***envp, const char *name, const char *value);

/* In the task's process (as the user, its stdio in place): run the
 * prolog 'path' with *envp and apply its output to *envp and stdout.
 * Returns 0, or the exit code the task must end with (the prolog's, 1
 * for a signal, 127 when it could not run).
 */
int task_prolog_run(const char *path, char ***envp);

/* In droverstepd: run the epilog 'path' as 'user' (uid, gid; in the
 * job's mount namespace, child.c) in 'cwd' with 'envp', killing it
 * (and its session) after 'timeout_s' seconds (< 0: no limit).  Blocks
 * until it ended.  Returns its exit code, or -1 (logged) when it could
 * not be run or was killed.
 */
int task_epilog_run(const char *path, const char *user, uid_t uid, gid_t gid,
                    const char *cwd, char **envp, int timeout_s);

#endif /* !DROVER_NODED_TASK_SCRIPT_H */
