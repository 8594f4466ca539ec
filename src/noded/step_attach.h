/* SPDX-License-Identifier: Apache-2.0
 *
 * step_attach.h - sattach's connections to a step (in droverstepd)
 *
 * As Slurm's slurmstepd, droverstepd keeps the step's recent output so
 * that someone attaching later (sattach) first sees what was printed
 * before: the last STEP_ATTACH_CACHE_FRAMES output frames (one per read
 * of a task's pipe: a line, or up to 64 KiB of a burst), at most
 * STEP_ATTACH_CACHE_BYTES of them (encoded, base64 in JSON), the oldest
 * dropped first; and every task's exit frame.  An attacher is one more TCP connection
 * the step opens (to the address and port sattach listens on): its hello,
 * the cached frames, the exits so far, then every new output and exit
 * frame, as srun gets them.  What it sends back is stdin for the tasks
 * (handed to the step through the input callback).  An attacher that
 * goes away, or falls more than STEP_ATTACH_QUEUE_MAX bytes behind, is
 * dropped; the step and srun never wait for one.
 */
#ifndef DROVER_NODED_STEP_ATTACH_H
#define DROVER_NODED_STEP_ATTACH_H

#include <jansson.h>
#include <uv.h>

#include "common/error.h"
#include "proto/tls.h"

#define STEP_ATTACH_CACHE_FRAMES 128
#define STEP_ATTACH_CACHE_BYTES (1024 * 1024)
#define STEP_ATTACH_QUEUE_MAX (1024 * 1024)
/* Attachers of one step at once; more are refused (EAGAIN). */
#define STEP_ATTACH_MAX 16
/* At the step's end, attachers get this long to take what is queued. */
#define STEP_ATTACH_LINGER_MS 5000

struct step_attach;

/* A frame an attacher sent ('m' borrowed, for the call only). */
typedef void (*step_attach_input_f)(json_t *m, void *arg);

/* The cache and attacher list of one step, on 'loop'; 'in' (with 'arg')
 * gets the attachers' frames.  With 'tls' (borrowed, must outlive 'a';
 * drover_tls_rpc) every attacher's connection runs over TLS, this side
 * the server (stepd_link.h); NULL: plain.  Never NULL (xalloc).  Holds
 * no handle until step_attach_add(). */
struct step_attach *step_attach_create(uv_loop_t *loop, proto_tls_ctx_t *tls,
                                       step_attach_input_f in, void *arg);

/* An output frame ({"task","stream","data"}) or exit frame ({"task",
 * "exit",...}) of the step: kept (output in the bounded cache, exits all)
 * and sent to every attacher.  'msg' is borrowed. */
void step_attach_frame(struct step_attach *a, json_t *msg);

/* Connect to 'host' (numeric IPv4 or IPv6) 'port' and queue 'hello'
 * (stolen, also on failure), the cached output and the exits so far.
 * Returns 0, or -1 with errno and 'error' set: EINVAL (a bad address,
 * or the step is ending), EAGAIN (STEP_ATTACH_MAX attached already), or
 * libuv's refusal to connect; a connection that fails later is dropped
 * and logged. */
int step_attach_add(struct step_attach *a, const char *host, int port,
                    json_t *hello, drv_error_t *error);

/* The step is over: each attacher gets what is queued (at most
 * STEP_ATTACH_LINGER_MS), then is closed; 'done' (with 'arg') is called
 * once every handle is closed, at once when there is none. */
void step_attach_close(struct step_attach *a, void (*done)(void *arg),
                       void *arg);

/* Free 'a' once step_attach_close() called 'done' (or when no attacher
 * was ever added).  NULL is a no-op. */
void step_attach_destroy(struct step_attach *a);

#endif /* !DROVER_NODED_STEP_ATTACH_H */
