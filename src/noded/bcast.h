/* SPDX-License-Identifier: Apache-2.0
 *
 * bcast.h - sbcast's file_bcast on the node: a block of a file written as
 * the job's user
 *
 * A user sends each block of the file to every node of their job
 * (src/cmd/sbcast.c).  The node asks the controller about the job once
 * (job_info, as a daemon, cached BCAST_AUTH_TTL_S): the sender must be
 * the job's user (or root/SlurmUser), the job RUNNING, this node one of
 * its nodes; the file is then always the job's user's, as Slurm's sbcast
 * credential makes it.  Each block is written by a forked child that
 * entered the job's container (job_container/tmpfs: the job's /tmp) and
 * became the user (initgroups, setgid, setuid), so no path is opened with
 * root's rights; droverd's loop never waits for the disk.
 *
 * The first block (offset 0) creates the file, mode 0700 as Slurm's
 * slurmd does (O_EXCL unless "force", which truncates an existing file;
 * anything but a regular file is refused EINVAL, a FIFO without a reader
 * ENXIO at once, never waited on);
 * the others write at their offset; the last one applies "-p"'s mode and
 * times (mode, atime, mtime).  A refusal or a failure answers the errno
 * (EEXIST: "File exists"), which sbcast prints and exits with as Slurm's.
 */
#ifndef DROVER_NODED_BCAST_H
#define DROVER_NODED_BCAST_H

#include <stdbool.h>
#include <sys/types.h>

#include "proto/server.h"

struct noded;

/* Seconds a job's answer from the controller is reused for its blocks. */
#define BCAST_AUTH_TTL_S 30
/* Blocks at most in flight on a node (each holds a writer process or a
 * controller call); more are answered EAGAIN ("Resource temporarily
 * unavailable") and sbcast reports it. */
#define BCAST_IN_FLIGHT_MAX 64

/* The handler of "file_bcast" (PROTO_ROLE_USER; noded_handlers). */
void bcast_rpc(proto_req_t *req, void *arg);

/* main.c's SIGCHLD handler: child 'pid' ended with 'status'; true when it
 * was a block's writer (its request is answered). */
bool bcast_reaped(struct noded *nd, pid_t pid, int status);

/* At exit: bcast_stop() (before the server goes) answers every block in
 * flight with ECANCELED and empties the cache; bcast_free() (after
 * proto_call_cancel_all() ran the controller calls' callbacks) frees the
 * rest. */
void bcast_stop(struct noded *nd);
void bcast_free(struct noded *nd);

#endif /* !DROVER_NODED_BCAST_H */
