/* SPDX-License-Identifier: Apache-2.0
 *
 * stepio.h - the client end of a step's I/O connections (srun, sattach)
 *
 * srun and sattach both listen on an ephemeral TCP port that the step's
 * nodes connect back to; each node's first frame is a hello carrying a
 * secret the client chose (docs/protocol.md, "Step I/O"), then the tasks'
 * output and exits follow as frames.  This is the part both share: the
 * socket, the secret, its check, and the printing of output with srun's
 * -l labels ("R: " at each line start).
 */
#ifndef DROVER_CMD_LIB_STEPIO_H
#define DROVER_CMD_LIB_STEPIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "proto/frame.h"

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

/* Read what arrived on a node's I/O connection 'fd' into 'dec'.  Until
 * its hello is accepted ('authed' false) at most STEPIO_PREAUTH_MAX bytes
 * are taken, counted in *preauth_in.  Returns 1 when bytes were fed (take
 * the frames with proto_decoder_next()), 0 when the read was interrupted
 * (nothing to do), -1 at the connection's end or on a read error,
 * garbage, or too much before the hello (drop the connection). */
int stepio_conn_feed(int fd, proto_decoder_t *dec, bool authed,
                     size_t *preauth_in);

/* Write 'len' bytes of a task's output to 'f' and flush; with 'label',
 * "<rank>: " before each line's first byte.  *mid_line (per task and
 * stream, false at first) remembers whether the last write ended a line,
 * so a line split over frames gets one label (Slurm's srun -l). */
void stepio_print(FILE *f, int rank, bool label, bool *mid_line,
                  const char *data, size_t len);

#endif /* !DROVER_CMD_LIB_STEPIO_H */
