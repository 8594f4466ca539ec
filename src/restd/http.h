/* SPDX-License-Identifier: Apache-2.0
 *
 * http.h - droverrestd's HTTP server (libmicrohttpd)
 */
#ifndef DROVER_RESTD_HTTP_H
#define DROVER_RESTD_HTTP_H

#include <sys/socket.h>

#include "common/error.h"
#include "restd/rest.h"

/* Connections served at once (each on its own thread); more wait in the
 * kernel's backlog. */
#define HTTP_CONNECTION_LIMIT 512
/* An idle keep-alive connection is closed after this (seconds). */
#define HTTP_IDLE_TIMEOUT_S 60

struct MHD_Daemon;

/* Listen on 'addr' (IPv4 or IPv6, copied), or when it is NULL on the
 * bound and listening socket 'listen_fd' (a unix socket), and serve
 * requests through rest_dispatch(), each connection on its own thread,
 * until MHD_stop_daemon().  'rd' is borrowed for the server's lifetime.
 * Returns the server, or NULL with 'error' set (address in use...). */
struct MHD_Daemon *http_start(const struct restd *rd,
                              const struct sockaddr *addr, int listen_fd,
                              drv_error_t *error);

#endif /* !DROVER_RESTD_HTTP_H */
