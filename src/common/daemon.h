/* SPDX-License-Identifier: Apache-2.0
 *
 * daemon.h - start-up and shutdown chores shared by the daemons
 */
#ifndef DROVER_COMMON_DAEMON_H
#define DROVER_COMMON_DAEMON_H

#include <uv.h>

/* Write the current pid to 'path' (NULL: nothing).  Failure is logged,
 * not fatal: the daemon runs without a pid file.
 */
void daemon_write_pidfile(const char *path);

/* Close every handle still open on 'loop' and run the loop until their
 * close callbacks are done (orderly shutdown after uv_stop()).
 */
void daemon_close_loop(uv_loop_t *loop);

#endif /* !DROVER_COMMON_DAEMON_H */
