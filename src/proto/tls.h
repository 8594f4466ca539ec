/* SPDX-License-Identifier: Apache-2.0
 *
 * tls.h - TLS for the RPC protocol, on memory buffers
 *
 * CommunicationParameters=drover_tls_rpc (docs/config.md) wraps every RPC
 * connection in TLS (1.2 at least; 1.3 preferred).  MUNGE still
 * authenticates each message as before: TLS adds confidentiality and
 * authenticates the server to the client (its certificate chain against
 * drover_tls_ca=, its name or address against the one the client dialled).
 *
 * OpenSSL 3 (libssl.so.3) is loaded with dlopen() on first use, so a
 * process with TLS off neither links nor loads it (bench/README.md,
 * "Credential hashing": each linked library costs every command's start).
 *
 * One engine, three users: the libuv server (server.c), the libuv client
 * (client_async.c) and the blocking client (client_sync.c) each own the
 * socket and move bytes; the engine never touches a descriptor:
 *
 *     ciphertext read from the socket -> proto_tls_feed()
 *     plaintext for the frame decoder <- proto_tls_read()   (until 0)
 *     plaintext frame to send         -> proto_tls_write()
 *     ciphertext to write             <- proto_tls_output() (after each of
 *                                        the calls above; may hold
 *                                        handshake records too)
 *
 * Plaintext written before the handshake completes is kept and encrypted
 * once it does.  All functions run on one thread per connection.
 */
#ifndef DROVER_PROTO_TLS_H
#define DROVER_PROTO_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"

/* The shared object loaded when TLS is first used. */
#define PROTO_TLS_LIB "libssl.so.3"

typedef struct proto_tls_ctx proto_tls_ctx_t;
typedef struct proto_tls proto_tls_t;

/* Load PROTO_TLS_LIB and resolve what the engine calls (once per process;
 * later calls return at once).  Returns 0, or -1 with errno ENOENT and
 * 'error' naming the library or the missing symbol.  The functions below
 * that create things call it themselves.
 */
int proto_tls_load(drv_error_t *error);

/* A server's context: it presents the PEM certificate chain 'cert' and
 * the PEM private key 'key' (both read now).  Returns a context (free with
 * proto_tls_ctx_destroy), or NULL with errno (ENOENT: no libssl; EINVAL: a
 * file unreadable, not PEM, or key and certificate do not match; ENOMEM)
 * and 'error' naming the file and OpenSSL's reason.
 */
proto_tls_ctx_t *proto_tls_server_ctx(const char *cert, const char *key,
                                      drv_error_t *error);

/* A client's context: servers must present a chain that ends at a
 * certificate in the PEM bundle 'ca' (read now).  Returns and errors as
 * proto_tls_server_ctx().
 */
proto_tls_ctx_t *proto_tls_client_ctx(const char *ca, drv_error_t *error);

/* Free a context.  Connections made from it keep it alive until they are
 * destroyed.  NULL is a no-op; errno is preserved.
 */
void proto_tls_ctx_destroy(proto_tls_ctx_t *ctx);

/* The client context the RPC clients (client.h) use for every connection
 * from now on: 'ctx' (borrowed; must stay alive while set), or NULL for
 * plain connections (the default).  One for the process.
 */
void proto_tls_client_use(proto_tls_ctx_t *ctx);

/* The context set by proto_tls_client_use(), or NULL. */
proto_tls_ctx_t *proto_tls_client_ctx_get(void);

/* Set up this process's RPC client side from slurm.conf's
 * CommunicationParameters: with 'rpc' false, nothing (libssl is not
 * loaded); with 'rpc' true, a client context for the CA bundle 'ca',
 * set with proto_tls_client_use() for the life of the process.  Returns
 * 0, or -1 with errno and 'error' as proto_tls_client_ctx().
 */
int proto_tls_client_setup(bool rpc, const char *ca, drv_error_t *error);

/* A connection from 'ctx'.  A client's 'peer' is the host name or numeric
 * address it dialled: the server's certificate must name it (subjectAltName
 * DNS or IP entry; a name is matched as a DNS name, an address as an IP
 * address).  A server's 'peer' is NULL.  The client's first records
 * (ClientHello) are ready in proto_tls_output() at once.  Returns a
 * connection (free with proto_tls_destroy), or NULL with errno (EINVAL,
 * ENOMEM) and 'error'.
 */
proto_tls_t *proto_tls_create(proto_tls_ctx_t *ctx, const char *peer,
                              drv_error_t *error);

/* Free a connection (sends nothing).  NULL is a no-op; errno is preserved. */
void proto_tls_destroy(proto_tls_t *t);

/* Take 'len' bytes of ciphertext from the peer (copied), move the
 * handshake on and, once it is done, encrypt plaintext waiting from
 * proto_tls_write().  Returns 0, or -1 with errno and 'error':
 *   EPROTO      the handshake or a record failed: not TLS, a certificate
 *               the CA does not vouch for or that names another host, no
 *               common protocol version...; 'error' gives OpenSSL's reason
 *               (and the verification's).  Records to send the peer (an
 *               alert) may wait in proto_tls_output().  The connection is
 *               unusable afterwards.
 *   ENOMEM
 */
int proto_tls_feed(proto_tls_t *t, const void *buf, size_t len,
                   drv_error_t *error);

/* Decrypted bytes: copies up to 'cap' into 'buf'.  Returns how many, 0
 * when none are ready now (more ciphertext is needed), or -1 with errno
 * ECONNRESET (the peer closed the TLS session), EPROTO or ENOMEM and
 * 'error'.  Call until it returns 0 after each proto_tls_feed().
 */
ssize_t proto_tls_read(proto_tls_t *t, void *buf, size_t cap,
                       drv_error_t *error);

/* Send 'len' bytes of plaintext (copied): encrypted now, or when the
 * handshake completes.  Returns 0, or -1 with errno (EPROTO after a
 * failure, ENOMEM) and 'error'.
 */
int proto_tls_write(proto_tls_t *t, const void *buf, size_t len,
                    drv_error_t *error);

/* Ciphertext waiting to go to the peer: returns its length and sets *buf
 * to a malloc'd copy of it (the caller frees), or returns 0 with *buf NULL
 * when there is none, or -1 with errno ENOMEM (the bytes stay).
 */
ssize_t proto_tls_output(proto_tls_t *t, char **buf);

/* Whether the handshake has completed. */
bool proto_tls_established(const proto_tls_t *t);

/* What a client adds to its error, given the server's first byte
 * 'first' (0-255; -1: none yet), when the two disagree about TLS:
 * proto_tls_hint_plain() for a TLS client whose server's bytes are not
 * TLS records (which start 0x16, a handshake, or 0x15, an alert),
 * proto_tls_hint_tls() for a plain client whose server's are.  A static
 * string, "" when nothing is to be said. */
const char *proto_tls_hint_plain(int first);
const char *proto_tls_hint_tls(int first);

#endif /* !DROVER_PROTO_TLS_H */
