/* SPDX-License-Identifier: Apache-2.0
 *
 * server.h - RPC server on the daemon's libuv loop
 *
 * A server listens on TCP, reads frames, authenticates each request with
 * MUNGE, authorizes it against the role mask in the handler table (denied by
 * default) and calls the handler.  A connection may carry many requests one
 * after another; the client decides when to close.  While a request on a
 * connection is outstanding (or its unsent answers pass 4 MiB) the server
 * reads nothing more from it, so responses always leave in request order
 * and a client that never reads cannot make the server buffer without end.
 *
 * Every request is answered exactly once, with proto_respond() or
 * proto_respond_error(), either inside the handler or later (after a journal
 * fsync, a call to another daemon...).  The answer frees the request.
 *
 *     static void rpc_ping(proto_req_t *req, void *arg)
 *     {
 *         if (proto_respond(req, json_pack("{s:s}", "pong", "ok")) < 0)
 *             log_err("ping: responding");
 *     }
 *     static const struct proto_handler handlers[] = {
 *         { "ping", rpc_ping, PROTO_ROLE_USER | PROTO_ROLE_DAEMON },
 *         PROTO_HANDLER_END,
 *     };
 */
#ifndef DROVER_PROTO_SERVER_H
#define DROVER_PROTO_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <jansson.h>
#include <uv.h>

#include "common/error.h"
#include "proto/auth.h"
#include "proto/rpc_stats.h"
#include "proto/tls.h"

/* Who may call a handler.  A caller's mask comes from the server's roles_of
 * callback; a handler runs only if (caller's mask & handler.roles) != 0.
 */
enum proto_role {
    PROTO_ROLE_USER = 1,     /* any authenticated user */
    PROTO_ROLE_OPERATOR = 2, /* slurm.conf / sacctmgr operator */
    PROTO_ROLE_ADMIN = 4,    /* admin */
    PROTO_ROLE_DAEMON = 8,   /* SlurmUser/root: controller and node daemons */
};

/* Idle connections are closed after this long (ms) without a request.
 * New connections are accepted at most 64 per loop turn: a burst waiting
 * in the listen backlog is taken over several turns, with the requests
 * of the connections already open read in between. */
#define PROTO_SERVER_IDLE_MS 60000

/* Limits on connections that have not yet had a request authenticated
 * ("unauthenticated"), so that peers without a credential cannot use up the
 * daemon's file descriptors or memory.  A connection leaves these limits
 * for good once one of its requests carried a valid credential.
 *
 * When max_conns is reached, a new connection makes the server close an
 * unauthenticated connection of the peer address that holds the most of
 * them (of any address when none holds more than one): its oldest that
 * has sent nothing (not a byte read or waiting), or if none of its oldest
 * few is silent, its oldest.  A flood of idle connections is pushed out
 * by real clients, who send their request at once, instead of locking
 * them out, and a flood from one host pushes out its own connections, not
 * other hosts'.  Connections of any kind
 * are also held to all but an eighth of RLIMIT_NOFILE's soft limit at
 * proto_server_create, so the daemon keeps descriptors for its files and
 * calls; past that a new one closes an unauthenticated one the same way,
 * or is refused if there is none.  Dropped connections are logged, at most
 * once per 10 s with a count.
 */
struct proto_unauth_limits {
    unsigned max_conns;  /* at most this many at once; >= 1 */
    unsigned timeout_ms; /* closed this long (ms) after accept if still
                          * unauthenticated; 0 = never */
    uint32_t frame_max;  /* largest frame taken before authentication,
                          * bytes; 1..PROTO_FRAME_MAX */
    size_t budget;       /* bytes all unauthenticated connections together
                          * may hold buffered beyond PROTO_UNAUTH_FREE_BYTES
                          * each; a read over it drops its connection */
};

/* Defaults.  max_conns is also at most a quarter of RLIMIT_NOFILE's soft
 * limit at proto_server_create.  frame_max must let sbatch's first frame
 * through: a 4 MiB script (max_script_size), JSON-escaped, plus the
 * environment.  timeout_ms is Slurm's MessageTimeout default; the daemons
 * set their MessageTimeout.
 */
#define PROTO_UNAUTH_MAX_CONNS 1024
#define PROTO_UNAUTH_TIMEOUT_MS 10000
#define PROTO_UNAUTH_FRAME_MAX (16u * 1024 * 1024)
#define PROTO_UNAUTH_BUDGET ((size_t)64 * 1024 * 1024)
/* Bytes of each unauthenticated connection not counted in the budget: a
 * small request always gets through.
 */
#define PROTO_UNAUTH_FREE_BYTES (64u * 1024)

/* Loop time one turn gives to requests (ns).  Past it, connections
 * with requests waiting are handled in the next turns, oldest first, so
 * a storm of requests (10,000 nodes registering at once) does not make
 * one turn of hundreds of milliseconds that holds back every timer and
 * answer (issue 18: the loop's longest turn).  At least one request is
 * handled each turn. */
#define PROTO_TURN_BUDGET_NS (10u * 1000 * 1000)

typedef struct proto_server proto_server_t;
typedef struct proto_req proto_req_t;

/* A request handler.  'req' belongs to the handler until it is answered with
 * proto_respond() or proto_respond_error() (now or later); 'arg' is the one
 * given with the table to proto_server_register().
 */
typedef void (*proto_handler_f)(proto_req_t *req, void *arg);

/* Role mask of a caller, from the uid and gid in its credential.  Return 0
 * for "no roles": such a caller can run nothing.
 */
typedef unsigned (*proto_roles_f)(uid_t uid, gid_t gid, void *arg);

struct proto_handler {
    const char *type;   /* message type, e.g. "job_submit" */
    proto_handler_f fn;
    unsigned roles;     /* enum proto_role bits allowed to call it */
};

#define PROTO_HANDLER_END { NULL, NULL, 0 }

/* Create a server on 'loop' (borrowed; must outlive the server).
 * 'auth' (borrowed; must outlive the server) decodes credentials.
 * 'roles_of' (required) maps a caller to its role mask; 'roles_arg' is passed
 * to it.  The server listens nowhere until proto_server_listen().
 * If SIGPIPE still has its default action it is set to SIG_IGN (libuv writes
 * with write(2): a vanished client must not kill the daemon).
 * Returns NULL with errno EINVAL (loop, auth or roles_of NULL), ENOMEM, or a
 * libuv failure as an errno; 'error' (may be NULL) says why.
 */
proto_server_t *proto_server_create(uv_loop_t *loop, proto_auth_t *auth,
                                    proto_roles_f roles_of, void *roles_arg,
                                    drv_error_t *error);

/* Add a handler table (borrowed; must outlive the server or be removed with
 * proto_server_unregister), terminated by PROTO_HANDLER_END.  'arg' goes to
 * its handlers.  Several tables may be registered (one per subsystem).
 * Returns 0, or -1 with errno EEXIST (a type is already handled; 'error'
 * names it), EINVAL (an entry without fn) or ENOMEM.
 */
int proto_server_register(proto_server_t *s,
                          const struct proto_handler *table, void *arg,
                          drv_error_t *error);

/* Remove a table added by proto_server_register.  Requests already handed
 * to its handlers stay theirs to answer.  Returns 0, or -1 with errno=ENOENT.
 */
int proto_server_unregister(proto_server_t *s,
                            const struct proto_handler *table);

/* Listen on 'host' (name or address; NULL = all IPv4 addresses) and 'port'
 * (0 = an ephemeral port; see proto_server_port).  May be called more than
 * once to listen on several addresses.  Name lookup is blocking (start-up).
 * Returns 0, or -1 with errno (EADDRINUSE, EACCES, EHOSTUNREACH when the
 * name does not resolve, ENOMEM...) and 'error' (may be NULL) naming the
 * address.
 *
 * Debug aid: with DROVER_DEBUG_HANDLERS=DIR in the environment, a listening
 * server writes its handler tables (each message type and the roles it
 * admits) to DIR/PORT.json; tests/e2e/test_security_authz.py builds the
 * authorization matrix from them.
 */
int proto_server_listen(proto_server_t *s, const char *host, uint16_t port,
                        drv_error_t *error);

/* Serve TLS with 'ctx' (a server context, proto_tls_server_ctx(); taken:
 * freed with the server) on every connection accepted from now on; NULL:
 * plain (the default).  A peer that does not complete the handshake (a
 * plain client, garbage, a client that refuses the certificate) gets the
 * alert OpenSSL makes, if any, and is closed; until a request of it
 * authenticates, a TLS connection is held to the limits on
 * unauthenticated connections like any other.  MUNGE authenticates each
 * request as without TLS.
 */
void proto_server_set_tls(proto_server_t *s, proto_tls_ctx_t *ctx);

/* A daemon's TLS as slurm.conf's CommunicationParameters say: with 'rpc'
 * (drover_tls_rpc) false, nothing; else 's' serves TLS with certificate
 * 'cert' and key 'key' (proto_server_set_tls) and this process's RPC
 * clients verify servers against the CA bundle 'ca'
 * (proto_tls_client_setup).  Returns 0, or -1 with errno and 'error' as
 * proto_tls_server_ctx().
 */
int proto_server_tls_setup(proto_server_t *s, bool rpc, const char *cert,
                           const char *key, const char *ca,
                           drv_error_t *error);

/* The port the first listener is bound to (useful after listening on port
 * 0), or 0 when not listening.
 */
uint16_t proto_server_port(const proto_server_t *s);

/* Close connections idle for 'ms' milliseconds (no request outstanding and
 * nothing received); default PROTO_SERVER_IDLE_MS.  0 disables the timeout.
 */
void proto_server_set_idle_timeout(proto_server_t *s, unsigned ms);

/* The limits on unauthenticated connections in force (see above). */
void proto_server_get_unauth_limits(const proto_server_t *s,
                                    struct proto_unauth_limits *lim);

/* Replace the limits on unauthenticated connections ('lim' is copied).
 * Connections already open keep the frame limit they were accepted with;
 * the rest applies at once.  Returns 0, or -1 with errno EINVAL (max_conns
 * 0, frame_max 0 or over PROTO_FRAME_MAX; nothing changed).
 */
int proto_server_set_unauth_limits(proto_server_t *s,
                                   const struct proto_unauth_limits *lim);

/* Set only the timeout_ms of the limits above (a daemon's MessageTimeout,
 * in ms; 0 = never).
 */
void proto_server_set_unauth_timeout(proto_server_t *s, unsigned ms);

/* A batch script travels in the first frame of its connection (sbatch's
 * job_submit to the controller, the controller's batch_launch to a node):
 * JSON escaping makes a script of control bytes up to 6 times longer
 * (\u00XX), and its environment comes with it.  Raise the first-frame
 * limit (and the byte budget, if smaller) so that a script of
 * 'script_max' bytes (SchedulerParameters=max_script_size) fits, up to
 * PROTO_FRAME_MAX; never lowers them.  A script over max_script_size
 * then reaches the controller's check and gets Slurm's error instead of
 * a dropped connection.
 */
#define PROTO_SCRIPT_ESCAPE_FACTOR 6
#define PROTO_SCRIPT_ENV_ALLOWANCE (4u * 1024 * 1024)
void proto_server_fit_script(proto_server_t *s, uint32_t script_max);

/* When the server last dropped a connection it could not take: accept()
 * failed (EMFILE, ENFILE...), or it refused or closed an unauthenticated
 * one for the limits above (the idle timeouts do not count).  Returns
 * uv_now() of the loop in ms, or 0 when it never did.  A daemon uses it to
 * tell a silent peer from one the server could not hear.
 */
uint64_t proto_server_last_drop(const proto_server_t *s);

/* A gate every authenticated request of a known type passes before its
 * handler: 'gate' gets the message type, its body (borrowed; may be
 * NULL) and the uid of the credential, and returns 0 to let it through, or an EDRV_* number (and may fill
 * 'error' with a text) to answer that error instead.  A controller
 * standing by for another (ctld/ha.h) answers EDRV_IN_STANDBY_MODE this
 * way, and one with SlurmctldParameters=rl_enable answers a user over
 * the rate limit EDRV_CTLD_COMMUNICATIONS_BACKOFF (ctld/rate_limit.h).
 * NULL removes it.
 */
typedef int (*proto_gate_f)(const char *type, json_t *body, uid_t uid,
                            void *arg, drv_error_t *error);
void proto_server_set_gate(proto_server_t *s, proto_gate_f gate, void *arg);

/* Longest message type name proto_timed_f is given (longer ones cut). */
#define PROTO_TYPE_NAME_MAX 32

/* Told after each request's handling on the loop (its credential's
 * decode, checks and handler): its type, and uv_hrtime() when it began.
 * The controller keeps the longest part of each loop turn (sdiag). */
typedef void (*proto_timed_f)(const char *type, uint64_t began_ns,
                              void *arg);
void proto_server_set_timed(proto_server_t *s, proto_timed_f timed,
                            void *arg);

/* Stop listening, close every connection and free the server.  The memory
 * is released in uv_close callbacks, so run the loop afterwards (uv_run)
 * before uv_loop_close().  Requests still outstanding stay valid: answering
 * them later just frees them.  NULL is a no-op; errno is preserved.
 */
void proto_server_destroy(proto_server_t *s);

/* Request accessors.  Strings and the body are borrowed from the request
 * and valid until it is answered; json_incref(body) to keep it longer.
 */
const char *proto_req_type(const proto_req_t *req);
json_t *proto_req_body(const proto_req_t *req); /* always an object */
uid_t proto_req_uid(const proto_req_t *req);    /* from the credential */
gid_t proto_req_gid(const proto_req_t *req);
unsigned proto_req_roles(const proto_req_t *req); /* roles_of's answer */
/* The peer's numeric address and port, "10.0.0.7:41234" ("[::1]:41234"). */
const char *proto_req_peer(const proto_req_t *req);
/* The peer's socket address (sockaddr_in or sockaddr_in6). */
const struct sockaddr *proto_req_peer_addr(const proto_req_t *req);

/* Answer 'req' with success and free it ('req' is invalid afterwards, also
 * on failure).  'body' (a JSON object) is stolen, also on failure; NULL
 * sends {}.  Returns 0 when the response was queued, or when the connection
 * has meanwhile gone away (nothing to answer; the request is just freed).
 * Returns -1 with errno:
 *   EINVAL    body is not an object (the client gets an EINVAL error instead)
 *   EMSGSIZE  the response exceeds PROTO_FRAME_MAX (the client gets an error)
 *   ENOMEM    (the connection is closed; the client sees it drop)
 */
int proto_respond(proto_req_t *req, json_t *body);

/* Bytes a body writer leaves in front for proto_respond_jsonw():
 * jsonw_init(&w, PROTO_RESPOND_RESERVE). */
#define PROTO_RESPOND_RESERVE 96

/* As proto_respond() with a body 'w' already written as JSON text (one
 * object; see jsonw.h), for listings streamed from the tables instead of
 * built as jansson objects.  'w' must have been initialized with
 * jsonw_init(w, PROTO_RESPOND_RESERVE); its buffer is taken (also on
 * failure) and the writer left empty.  The body is sent as written: the
 * peer's decoder is what checks it.  Returns as proto_respond() (EMSGSIZE,
 * ENOMEM; a writer that ran out of memory is ENOMEM).
 */
struct jsonw;
int proto_respond_jsonw(proto_req_t *req, struct jsonw *w);

/* Send the body written in 'w' (as proto_respond_jsonw()) as one part of
 * the answer to 'req', which stays open: a frame marked "more":true
 * (docs/protocol.md, "Answers in parts"), whose arrays the client puts
 * before those of the parts after it.  Only for a request that asked for
 * parts; the answer ends with proto_respond_jsonw() (or an error).  The
 * frame is written to the socket at once when it has room, so the client
 * reads a long listing while the rest is written.  'w' is left empty:
 * jsonw_init() it again for the next part.  Returns 0 (also when the
 * connection has gone away: the final answer finds out), or -1 with errno
 * EINVAL (nothing written), ENOMEM or EMSGSIZE, or the write's errno (the
 * connection is then closed); the request stays for its final answer
 * either way. */
int proto_respond_part_jsonw(proto_req_t *req, struct jsonw *w);

/* Answer 'req' with an error and free it.  errnum: EDRV_* or errno (0 is
 * sent as EDRV_ERROR); errstr (copied; NULL for none) is detail a person can
 * act on, e.g. "job 77 not found"; the client falls back to
 * drv_strerror(errnum).  Returns as proto_respond (only ENOMEM can fail).
 */
int proto_respond_error(proto_req_t *req, int errnum, const char *errstr);

/* The counts and times of the requests 's' handled (rpc_stats.h: sdiag's
 * RPC statistics), owned by 's'. */
struct rpc_stats *proto_server_stats(proto_server_t *s);

#endif /* !DROVER_PROTO_SERVER_H */
