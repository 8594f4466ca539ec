/* SPDX-License-Identifier: Apache-2.0
 *
 * daemon.h - start-up and shutdown chores shared by the daemons
 */
#ifndef DROVER_COMMON_DAEMON_H
#define DROVER_COMMON_DAEMON_H

#include <stdbool.h>

#include <uv.h>

/* Write the current pid to 'path' (NULL: nothing), whole under a fresh name
 * renamed over it, so a reader never finds it empty.  Failure is logged,
 * not fatal: the daemon runs without a pid file.
 */
void daemon_write_pidfile(const char *path);

/* Close every handle still open on 'loop' and run the loop until their
 * close callbacks are done (orderly shutdown after uv_stop()).
 */
void daemon_close_loop(uv_loop_t *loop);

/* Raise the soft RLIMIT_NOFILE to the hard limit, so that connections do
 * not run the daemon out of descriptors before its own limits do, and
 * remember the soft limit found for daemon_restore_nofile().  Call once,
 * early in main() (after log_init; before proto_server_create, which sizes
 * its connection limits by it).  A failure is logged; the daemon goes on
 * with the limit it has.
 */
void daemon_raise_nofile(void);

/* In a child between fork() and exec(): put back the soft RLIMIT_NOFILE
 * that daemon_raise_nofile() found, so that jobs get the limit the daemon
 * was started with.  Async-signal-safe; does nothing when nothing was
 * raised.
 */
void daemon_restore_nofile(void);

/* The command line every daemon takes (as slurmctld, slurmd, slurmdbd). */
struct daemon_opts {
    const char *conf_path; /* -f FILE; NULL: the daemon's default */
    const char *node_name; /* -N NAME (droverd only); NULL: the hostname */
    bool foreground;       /* -D: stay attached, log to stderr */
    int verbose;           /* how many -v */
};

/* Parse -D, -f FILE, -v (repeatable), -V and -h, and -N NAME when
 * 'node_opt', into 'o' (zeroed first; strings point into argv).  -V prints
 * the version line and exits 0; -h prints 'usage' (the daemon's help text)
 * to stdout and exits 0; an unknown option prints it to stderr and exits 1.
 */
void daemon_parse_opts(int argc, char **argv, const char *usage,
                       bool node_opt, struct daemon_opts *o);

/* Print a daemon's -V line, "drover 0.1.0 (slurm 22.05.8)", on stdout. */
void daemon_print_version(void);

/* Tell the service manager the daemon's state, as sd_notify(3) does
 * without libsystemd: one datagram holding 'state' (e.g. "READY=1" once
 * the daemon serves, "STOPPING=1" when it starts shutting down) to the
 * unix socket named by $NOTIFY_SOCKET ("@NAME": the abstract socket NAME).
 * The environment is left as it is.
 *
 * Returns 1 when the message was sent, 0 when $NOTIFY_SOCKET is unset or
 * empty (not started by systemd with Type=notify: nothing to do), -1 with
 * errno set when it is not an absolute path or "@NAME" (EINVAL), too long
 * for a socket address (ENAMETOOLONG) or the send failed.  Failures are
 * logged at debug level only: the daemon goes on either way.
 */
int daemon_notify(const char *state);

#endif /* !DROVER_COMMON_DAEMON_H */
