/* SPDX-License-Identifier: Apache-2.0
 *
 * ha_disk.h - stop a controller at the first failed write of its Raft log
 *
 * libraft 0.15's disk back end (raft_uv) does not recover from a failed
 * append (StateSaveLocation full, I/O error): later entries can land on
 * disk under the wrong indexes, and a follower then holds a log that
 * differs from the leader's under the same term, which Raft's consistency
 * check cannot see (found by tests/e2e/test_ha_partition.py with a full
 * tmpfs).  The guard wraps the raft_io's append so that the first failure
 * goes to the controller (which re-executes and starts again from what is
 * on disk) before libraft sees it.  One guard per process (the
 * controller has one Raft instance).
 */
#ifndef DROVER_CTLD_HA_DISK_H
#define DROVER_CTLD_HA_DISK_H

#include <raft.h>

/* Called with the libraft error code (RAFT_NOSPACE, RAFT_IOERR...) of the
 * first append that failed; it is not expected to return. */
typedef void (*ha_disk_failed_fn)(void *arg, int status);

/* Wrap io->append (after raft_uv_init(), before raft_init()) so that a
 * failed append calls 'failed'('arg', status) instead of libraft's
 * callback.  'io' must outlive every append. */
void ha_disk_guard(struct raft_io *io, ha_disk_failed_fn failed, void *arg);

#endif
