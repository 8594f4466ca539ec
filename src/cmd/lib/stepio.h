/* SPDX-License-Identifier: Apache-2.0
 *
 * stepio.h - the client end of a step's I/O connections (srun, sattach)
 *
 * srun and sattach both listen on an ephemeral TCP port that the step's
 * nodes connect back to; each node's first frame is a hello carrying a
 * secret the client chose (docs/protocol.md, "Step I/O"), then the tasks'
 * output and exits follow as frames.  This is the part both share: the
 * socket, the secret, its check, the connections (plain, or TLS with
 * CommunicationParameters=drover_tls_rpc: docs/security.md, "TLS"), and
 * the printing of output with srun's -l labels ("R: " at each line
 * start).
 */
#ifndef DROVER_CMD_LIB_STEPIO_H
#define DROVER_CMD_LIB_STEPIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "proto/frame.h"
#include "proto/tls.h"

/* Bytes of the I/O secret; its text form is twice as long (hex). */
#define STEPIO_KEY_BYTES 32

/* Bytes a connection may send before its hello is accepted. */
#define STEPIO_PREAUTH_MAX (64 * 1024)

/* Listen on an ephemeral TCP port of our address on the way to the
 * controller (the one the daemons see our requests come from; INADDR_ANY
 * when it cannot be told), backlog 128, close-on-exec.  Sets *port (host
 * order) and returns the socket; on failure prints "<prog>: error: I/O
 * socket: <reason>" and exits 1 (commands only). */
int stepio_listen(const char *prog, int *port);

/* Fill 'key' (2 * STEPIO_KEY_BYTES + 1 bytes) with a fresh random secret
 * in hex, NUL-terminated.  On failure prints "<prog>: error: getrandom:
 * ..." and exits 1. */
void stepio_make_key(const char *prog, char *key);

/* Does the hello frame 'm' carry "io_key" equal to 'key' (hex text)?
 * Compared in constant time.  False for a missing or wrong-length key. */
bool stepio_key_ok(const char *key, json_t *m);

/* One node's I/O connection, as srun and sattach hold it. */
struct stepio_conn {
    int fd;                /* -1 once closed */
    proto_decoder_t *dec;  /* its frames (plaintext) */
    proto_tls_t *tls;      /* CommunicationParameters=drover_tls_rpc: the
                            * TLS session over 'fd'; NULL: plain */
    bool authed;           /* its hello carried the step's secret */
    size_t preauth_in;     /* bytes read before that (STEPIO_PREAUTH_MAX) */
    char addr[48];         /* the node's numeric address, for messages */
};

/* Accept a node's connection on the listening socket 'lfd' into *c.
 * With TLS on (proto_tls_client_ctx_get(), which cmd_conf() set up from
 * slurm.conf), we are the TLS client of the node that dialled us: its
 * droverstepd holds drover_tls_key, we only drover_tls_ca; our
 * ClientHello is sent at once.  Returns 0, or -1 with errno when there
 * was nothing to accept or no session could be made (then "<prog>:
 * error: I/O connection from ADDR: <reason>" was printed). */
int stepio_accept(const char *prog, int lfd, struct stepio_conn *c);

/* Read what arrived on 'c' into c->dec (through TLS when on, sending
 * what the handshake answers).  Until its hello is accepted (c->authed
 * false) at most STEPIO_PREAUTH_MAX bytes are taken.  Returns 1 when
 * bytes were fed (take the frames with proto_decoder_next()), 0 when
 * there was nothing to do (interrupted, or only TLS records), -1 at the
 * connection's end or on a read error, garbage, too much before the
 * hello, or a failed TLS session (the last printed as "<prog>: error: I/O
 * connection from ADDR: TLS: <reason>"): drop the connection. */
int stepio_conn_feed(const char *prog, struct stepio_conn *c);

/* Send the frame 'msg' (borrowed) to the node (blocking; through TLS
 * when on, kept by the engine until its handshake is done).  Returns 0,
 * or -1 with errno (a node gone: its connection's end says so). */
int stepio_conn_send(struct stepio_conn *c, json_t *msg);

/* Close 'c' and free what it holds (fd -1 after).  Closed twice: no-op. */
void stepio_conn_close(struct stepio_conn *c);

/* Write 'len' bytes of a task's output to 'f' and flush; with 'label',
 * "<rank>: " before each line's first byte.  *mid_line (per task and
 * stream, false at first) remembers whether the last write ended a line,
 * so a line split over frames gets one label (Slurm's srun -l). */
void stepio_print(FILE *f, int rank, bool label, bool *mid_line,
                  const char *data, size_t len);

#endif /* !DROVER_CMD_LIB_STEPIO_H */
