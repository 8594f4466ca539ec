/* SPDX-License-Identifier: Apache-2.0
 *
 * mail_run.h - running MailProg from the controller's loop (mail.h)
 *
 * Each mail is one "MailProg -s SUBJECT RECIPIENT" started with uv_spawn
 * as the given user, stdin/stdout/stderr on /dev/null, with exactly the
 * environment given (as slurmctld: no PATH or HOME).  libuv reaps it; one
 * still running after the runner's timeout is killed (SIGKILL).  At most
 * MAIL_RUN_MAX_CHILDREN run at once; later mails wait in order.  A program
 * that cannot be started, exits non-zero or is killed is a log line
 * naming the mail, nothing more.
 */
#ifndef DROVER_CTLD_MAIL_RUN_H
#define DROVER_CTLD_MAIL_RUN_H

#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#define MAIL_RUN_MAX_CHILDREN 32 /* MailProg processes at once */

struct mail_run;

/* A runner of 'prog' (copied; an absolute path, as Slurm's MailProg) on
 * 'loop', its children as uid/gid (applied only when the controller runs
 * as root and uid is not root), each killed after 'timeout_ms'
 * milliseconds.  Never NULL (allocation failure aborts, xalloc.h). */
struct mail_run *mail_run_create(uv_loop_t *loop, const char *prog,
                                 uid_t uid, gid_t gid, uint64_t timeout_ms);

/* Send one mail: 'subject' and 'to' are copied; 'env' (a NULL-terminated
 * array of "NAME=value" strings, each and the array malloc'd) is stolen. */
void mail_run_send(struct mail_run *r, const char *subject, const char *to,
                   char **env);

/* How many mails are running or waiting (for tests and logs). */
unsigned mail_run_busy(const struct mail_run *r);

/* Free the runner and the mails still waiting.  Call after the loop closed
 * every handle (daemon_close_loop()): children still running are left to
 * finish on their own.  NULL is a no-op. */
void mail_run_destroy(struct mail_run *r);

#endif /* !DROVER_CTLD_MAIL_RUN_H */
