/* SPDX-License-Identifier: Apache-2.0
 *
 * drover_proc.h - the processes of a local cluster: start, find, stop
 *
 * A daemon is known by its pid file, and a pid counts only if /proc says
 * the process is that daemon of that cluster: its argv[0] has the daemon's
 * base name and one of its arguments contains the cluster's directory (the
 * -f slurm.conf of droverctld and droverd, the --socket= of munged).  So a
 * stale pid file whose pid was reused never makes `drover` signal a
 * stranger.
 */
#ifndef DROVER_CMD_LIB_DROVER_PROC_H
#define DROVER_CMD_LIB_DROVER_PROC_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "common/error.h"

/* The pid in 'pidfile' if that process is running (not a zombie), its
 * argv[0]'s base name is 'name', an argument contains 'dir', and, when
 * 'arg' is not NULL, one argument equals 'arg' (the node of a droverd).
 * Returns 0 otherwise.
 */
pid_t drover_proc_find(const char *pidfile, const char *name, const char *dir,
                       const char *arg);

/* Start argv[0] (a path) with 'argv' in a new session: cwd 'dir', umask
 * 022, stdin /dev/null, stdout and stderr appended to 'log', no other
 * descriptors.  Writes the pid to 'pidfile' unless it is NULL.  Returns the
 * child's pid once it has exec'd, or -1 with errno and 'error' saying what
 * could not be run or opened.
 */
pid_t drover_proc_spawn(char *const argv[], const char *dir, const char *log,
                        const char *pidfile, drv_error_t *error);

/* drover_proc_spawn(), the child first joining network namespace 'netns'
 * (a name under /run/netns) and a UTS namespace of its own with host name
 * 'hostname' (drover_isolate_enter(); `drover up --isolate`).  'netns'
 * NULL: as drover_proc_spawn().  A namespace that cannot be entered is
 * reported as a failure to run, with its errno. */
pid_t drover_proc_spawn_in(char *const argv[], const char *dir,
                           const char *log, const char *pidfile,
                           const char *netns, const char *hostname,
                           drv_error_t *error);

/* Wait up to 'timeout_ms' for our child 'pid' to exit.  Returns its wait
 * status, or -1 with errno ETIMEDOUT (the child is left running) or from
 * waitpid.
 */
int drover_proc_wait(pid_t pid, int timeout_ms);

/* If 'pid' is our child and has exited, reap it and return true. */
bool drover_proc_exited(pid_t pid, int *status);

/* True while 'pid' exists and some thread of it is not a zombie (a
 * process whose main thread exited may still hold its descriptors). */
bool drover_proc_alive(pid_t pid);

/* SIGTERM each of 'pids' (zeros are skipped), wait up to 'timeout_ms' for
 * them to go, then SIGKILL the rest and wait for those too.  Returns the
 * number that needed SIGKILL.
 */
int drover_proc_stop(const pid_t *pids, size_t count, int timeout_ms);

/* SIGKILL the process groups of jobs left by the node daemons of the
 * cluster configured in 'conf_path': processes whose environment has
 * SLURM_CONF=conf_path and SLURMD_NODENAME (set by droverd for every job).
 * Only processes whose environment we may read are seen.  Returns the
 * number of processes found.
 */
int drover_proc_kill_jobs(const char *conf_path);

/* Print the last 'lines' lines of 'path' to 'out', each indented, after a
 * line naming the file.  Says so if the file cannot be read.
 */
void drover_print_tail(FILE *out, const char *path, int lines);

#endif /* !DROVER_CMD_LIB_DROVER_PROC_H */
