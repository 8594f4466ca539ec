/* SPDX-License-Identifier: Apache-2.0
 *
 * prog_run.h - running a site program from the controller's loop:
 * MailProg (mail.h), PrologSlurmctld and EpilogSlurmctld (prolog_ctld.h),
 * strigger's programs (trigger.h)
 *
 * Each run is "PROG [ARGS...]" started with uv_spawn as the given user,
 * stdin/stdout/stderr on /dev/null, with exactly the environment given
 * (as slurmctld: no PATH or HOME).  libuv reaps it; one still running
 * after the runner's timeout is killed (SIGKILL).  At most the runner's
 * cap run at once; later runs wait in order.  The loop never waits on a
 * child.  A program that cannot be started, exits non-zero or is killed
 * is a log line naming the run ("MailProg /x: exited 3: mail to bob
 * \"...\""), and its completion callback, when it has one, hears it.
 */
#ifndef DROVER_CTLD_PROG_RUN_H
#define DROVER_CTLD_PROG_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#define MAIL_RUN_MAX_CHILDREN 32 /* MailProg processes at once */

struct prog_run;

/* A run ended: 'ok' when the program exited 0; otherwise it could not
 * start, exited non-zero, was killed by a signal or at the timeout
 * (already logged).  'arg' is prog_run_start()'s. */
typedef void (*prog_run_done_f)(void *arg, bool ok);

/* A runner of 'prog' (copied; an absolute path, as Slurm's MailProg and
 * PrologSlurmctld) on 'loop', called 'what' in logs (copied: the
 * slurm.conf key, "MailProg"), its children as uid/gid (applied only when
 * the controller runs as root and uid is not root), each killed after
 * 'timeout_ms' milliseconds (0: never, as Slurm's PrologEpilogTimeout=0),
 * at most 'max_children' (at least 1) at once.  Never NULL (allocation
 * failure aborts, xalloc.h). */
struct prog_run *prog_run_create(uv_loop_t *loop, const char *what,
                                 const char *prog, uid_t uid, gid_t gid,
                                 uint64_t timeout_ms, unsigned max_children);

/* Run the program once: 'args' (the arguments after the program's name,
 * a NULL-terminated array, each and the array malloc'd, or NULL for none)
 * and 'env' ("NAME=value" strings, likewise) are stolen; 'label' (copied)
 * names the run in log lines.  'done' (NULL: none) is called from the
 * loop with 'arg' when it ended (a loop turn later; never from inside
 * this call); it is not called for runs still waiting or running when the
 * runner is destroyed. */
void prog_run_start(struct prog_run *r, const char *label, char **args,
                    char **env, prog_run_done_f done, void *arg);

/* As prog_run_start() without a completion callback, running 'prog'
 * (copied; an absolute path) instead of the runner's, as uid/gid instead
 * of the runner's (applied when the controller runs as root and uid is
 * not root): strigger's programs, each its own and run as the user who
 * set the trigger (trigger.h).  The runner's timeout and cap hold. */
void prog_run_start_as(struct prog_run *r, const char *prog, uid_t uid,
                       gid_t gid, const char *label, char **args, char **env);

/* How many runs are running or waiting (for tests and logs). */
unsigned prog_run_busy(const struct prog_run *r);

/* Free the runner and the runs still waiting.  Call after the loop closed
 * every handle (daemon_close_loop()): children still running are left to
 * finish on their own.  NULL is a no-op. */
void prog_run_destroy(struct prog_run *r);

#endif /* !DROVER_CTLD_PROG_RUN_H */
