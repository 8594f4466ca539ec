/* SPDX-License-Identifier: Apache-2.0
 *
 * client.h - calling a daemon: synchronous (commands) and on a libuv loop
 *
 * Both flavours mint a MUNGE credential for each request (proto/auth.h) and
 * report failures the same way: an error response gives its EDRV_* (or
 * errno) number and the server's detail text, or drv_strerror() of the
 * number when the server sent none; local and network failures give an
 * errno and a text naming the peer, e.g.
 *   "Unable to contact localhost:6817: Connection refused" (ECONNREFUSED).
 *
 * A call's timeout covers everything: name lookup (async only), connecting,
 * sending and waiting for the answer.  timeout_ms <= 0 waits forever.
 */
#ifndef DROVER_PROTO_CLIENT_H
#define DROVER_PROTO_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <uv.h>

#include "common/error.h"
#include "proto/auth.h"
#include "proto/frame.h"

/* --- synchronous (no event loop; blocks in poll) ------------------------ */

typedef struct proto_client proto_client_t;

/* Connect to 'host' (name or address) at 'port', trying each address the
 * name resolves to, within 'timeout_ms' in all.  Returns a client (free with
 * proto_client_destroy), or NULL with errno and 'error' (may be NULL):
 *   ECONNREFUSED, ETIMEDOUT, EHOSTUNREACH (also when the name does not
 *   resolve), ENETUNREACH, ... "Unable to contact HOST:PORT: <reason>"
 *   ENOMEM
 * The timeout is remembered for each later proto_client_call.
 */
proto_client_t *proto_client_connect(const char *host, uint16_t port,
                                     int timeout_ms, drv_error_t *error);

/* Send one request of 'type' with 'body' (stolen, also on failure; NULL
 * means {}) and wait for its answer.  Calls may follow one another on the
 * same client (the server keeps the connection open; it closes it after 60 s
 * idle, so a long-lived client must be ready to reconnect).
 * On success returns 0 and, if 'resp_body' is not NULL, sets *resp_body to
 * the response body (a new reference; caller decrefs).  Returns -1 with errno:
 *   EDRV_* / errno from an error response: 'error' holds the server's text
 *              or drv_strerror(errno); the client stays usable
 *   EDRV_PROTOCOL_AUTH  no credential could be minted (munged down...)
 *   ETIMEDOUT, ECONNRESET, EPIPE...  I/O failed or the server closed the
 *              connection; the client is unusable afterwards (ENOTCONN)
 *   EDRV_PROTOCOL_MALFORMED  the answer was not a valid response; unusable
 *   EINVAL, ENOMEM
 */
int proto_client_call(proto_client_t *c, proto_auth_t *auth, const char *type,
                      json_t *body, json_t **resp_body, drv_error_t *error);

/* The timeout (ms) of each later proto_client_call on 'c', in place of the
 * connect's (as Slurm's TCPTimeout for the connect, MessageTimeout for the
 * answer). */
void proto_client_set_timeout(proto_client_t *c, int timeout_ms);

/* Read each later answer on 'c' with 'reader' (proto_frame_reader_f,
 * frame.h) instead of jansson; NULL: jansson again. */
void proto_client_set_reader(proto_client_t *c, proto_frame_reader_f reader,
                             void *arg);

/* Close the connection and free the client.  NULL is a no-op; errno is
 * preserved.
 */
void proto_client_destroy(proto_client_t *c);

/* Connect, call once and close: proto_client_connect + proto_client_call
 * with one shared 'timeout_ms'.  Ownership and errors as proto_client_call
 * ('body' is stolen also when connecting fails).
 */
int proto_call_sync(const char *host, uint16_t port, proto_auth_t *auth,
                    const char *type, json_t *body, json_t **resp_body,
                    int timeout_ms, drv_error_t *error);

/* Did a call fail without reaching a daemon that acted on it: no
 * connection (refused, timed out connecting, unreachable, reset), or a
 * controller standing by (EDRV_IN_STANDBY_MODE: a Raft follower,
 * ctld/ha.h)?  Then the next SlurmctldHost is worth a try. */
bool proto_errnum_try_next(int errnum);

/* The controller a daemon calls next, after a call to controller 'idx'
 * (of 'count' SlurmctldHost lines) ended with 'errnum': the next one,
 * wrapping around, when proto_errnum_try_next(errnum), else 'idx'. */
size_t proto_ctld_next(size_t idx, size_t count, int errnum);

/* --- asynchronous (daemons calling each other) -------------------------- */

/* Completion of proto_call_async, called exactly once on the loop thread.
 * errnum: 0 on success, else an EDRV_* number or errno (as for
 *         proto_client_call), with 'errstr' a text for people (borrowed,
 *         valid during the callback; "" on success).
 * resp_body: the response body on success (borrowed: json_incref to keep
 *         it), NULL on error.
 */
typedef void (*proto_call_f)(int errnum, const char *errstr,
                             json_t *resp_body, void *arg);

/* Call 'type' with 'body' (stolen, also on failure; NULL means {}) at
 * 'host':'port', on its own connection, from 'loop'.  Numeric addresses are
 * used directly; names are resolved with uv_getaddrinfo (each address is
 * tried in turn).  The body is serialized before returning; the
 * credential is minted afterwards on libuv's thread pool, the calls of
 * the process one at a time in the order they were made (so they also
 * connect in that order), and 'auth' is copied for it (proto_auth_clone():
 * the caller may free 'auth' once this returns).  Sets SIGPIPE to SIG_IGN
 * if it has its default action.
 * Returns 0 when the call is under way: 'cb' will be called exactly once,
 * never from inside proto_call_async, with every failure including
 * credential, lookup, connect and timeout failures.  Returns -1 with errno
 * EINVAL (loop, host, type, auth or cb NULL) or ENOMEM, and then 'cb' is
 * never called.
 * The loop must keep running until 'cb' has been called; the call's handles
 * are closed and freed right after it returns.
 */
int proto_call_async(uv_loop_t *loop, const char *host, uint16_t port,
                     proto_auth_t *auth, const char *type, json_t *body,
                     int timeout_ms, proto_call_f cb, void *arg);

/* proto_call_async() with a body already serialized: 'text' ('len'
 * bytes, borrowed: copied before returning) must be a
 * JSON object exactly as jansson's JSON_COMPACT|JSON_SORT_KEYS dump
 * writes it, which is what the credential binds (proto_auth_digest_text;
 * any other text is refused by the receiver as a credential that does
 * not match its message).  For a sender that keeps its records as text
 * (the controller's accounting spool) and so neither rebuilds nor dumps
 * them again per call.  Returns and errors as proto_call_async(); also
 * EINVAL when 'text' is NULL.
 */
int proto_call_async_text(uv_loop_t *loop, const char *host, uint16_t port,
                          proto_auth_t *auth, const char *type,
                          const char *text, size_t len, int timeout_ms,
                          proto_call_f cb, void *arg);

/* At a daemon's shutdown, before closing its loop's handles: every
 * proto_call_async still under way is finished now with ECANCELED (its
 * callback runs, so what it owns is freed); running the loop then frees
 * the calls themselves. */
void proto_call_cancel_all(void);

/* Told after each proto_call_async() callback: a name for it ("answer to
 * TYPE") and uv_hrtime() when it began (the controller's loop turn
 * parts, sdiag).  One for the process; NULL: none. */
typedef void (*proto_call_timed_f)(const char *what, uint64_t began_ns,
                                   void *arg);
void proto_call_set_timed(proto_call_timed_f fn, void *arg);

/* proto_call_async() calls under way (sdiag's "Agent queue size"). */
size_t proto_call_count(void);

/* Of those, the calls waiting for their credential: MUNGE credentials are
 * minted on libuv's thread pool, one at a time in call order, so that the
 * loop does not wait on munged (about 200 us a call on a loaded machine).
 * A sender that makes many calls at once (the controller's launches)
 * keeps this bounded, as the wait to connect grows with it. */
size_t proto_call_minting(void);

#endif /* !DROVER_PROTO_CLIENT_H */
