/* SPDX-License-Identifier: Apache-2.0
 *
 * ha_transport.h - the connections of the controllers' Raft group
 *
 * libraft's own TCP transport (raft_uv_tcp) takes any peer at its word:
 * whoever reaches drover_raft_port could claim to be a controller and send
 * AppendEntries, that is, state changes.  This transport, which libraft
 * drives through struct raft_uv_transport like its own, lets libraft have
 * a connection only after both ends proved they are controllers:
 *
 *   connector -> raft_hello   {id, to, address, nonce} + MUNGE credential
 *   acceptor  -> raft_welcome {id, nonce}              + MUNGE credential
 *
 * Each side requires a MUNGE credential (not a bearer token) of root or
 * SlurmUser bound to exactly that body (auth.h), so neither another user
 * on the hosts nor a replayed credential passes.  The acceptor also checks
 * that 'to' is itself and that 'id' and 'address' are a SlurmctldHost
 * line's; the connector that the welcome comes from the id it dialled and
 * echoes its nonce.  Message schemas: raft_hello, raft_welcome
 * (docs/protocol-messages.md).
 *
 * With CommunicationParameters=drover_tls_rpc the connection is TLS first
 * (the acceptor presents drover_tls_cert, the connector checks it against
 * drover_tls_ca and the address it dialled, as every RPC client does) and
 * the handshake and libraft's bytes travel inside it: libraft is given
 * one end of a socketpair and the transport moves bytes between the other
 * end and the TLS session.  Plain, libraft is given the TCP handle itself.
 *
 * Unauthenticated incoming connections are bounded: HA_TRANSPORT_PENDING_MAX
 * at once, frames of HA_TRANSPORT_HELLO_MAX bytes, MessageTimeout to
 * finish.  Refusals are logged at most every 10 s, with a count.
 */
#ifndef DROVER_CTLD_HA_TRANSPORT_H
#define DROVER_CTLD_HA_TRANSPORT_H

#include <raft.h>
#include <raft/uv.h>

#include "common/error.h"

struct ctld;

/* Largest hello or welcome frame, in bytes (JSON text). */
#define HA_TRANSPORT_HELLO_MAX 4096

/* Most incoming connections still in their handshake at once; one more
 * is closed at accept. */
#define HA_TRANSPORT_PENDING_MAX 64

/* Fill 't' (zeroed by the caller) for raft_uv_init(): connections from
 * and to the SlurmctldHost addresses of ctld->conf at drover_raft_port,
 * authenticated with ctld->auth (read when a connection is made, so it
 * may be created after this call), over TLS when ctld->conf->tls.rpc
 * (the certificate, key and CA are read now).  Returns 0, or -1 with errno
 * (ENOMEM; ENOENT/EINVAL for TLS files, as proto_tls_server_ctx()) and
 * 'error' naming what failed.  Free with ha_transport_free() once libraft
 * has closed it (raft_uv_close() and the loop run).
 */
int ha_transport_init(struct raft_uv_transport *t, struct ctld *ctld,
                      drv_error_t *error);

/* Free what ha_transport_init() allocated.  Call after libraft closed the
 * transport (its close callback ran), or when raft_uv_init() was never
 * called; a 't' never initialised (impl NULL) is a no-op. */
void ha_transport_free(struct raft_uv_transport *t);

#endif /* !DROVER_CTLD_HA_TRANSPORT_H */
