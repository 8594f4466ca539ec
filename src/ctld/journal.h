/* SPDX-License-Identifier: Apache-2.0
 *
 * journal.h - the controller's durable state: snapshot + append-only log
 *
 * Every state change is a JSON record appended to StateSaveLocation/journal
 * (one per line).  Records are buffered and written with one fdatasync per
 * batch (journal_flush); a caller that must not answer before its record
 * is on disk waits for the flush.  journal_snapshot() writes the whole
 * state to StateSaveLocation/snapshot.json atomically and empties the log.
 * Records are ordered, deterministic commands, so the same log could be
 * replicated (design.md: Raft later).
 */
#ifndef DROVER_CTLD_JOURNAL_H
#define DROVER_CTLD_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "common/error.h"

struct journal;

/* Open (creating 'dir' and the log if needed).  Returns a journal (free with
 * journal_close()), or NULL with errno and 'error' naming the path.
 */
struct journal *journal_open(const char *dir, drv_error_t *error);

/* What journal_replay() calls, in order; any may be NULL.  'arg' is
 * passed to each. */
struct journal_replay_cb {
    /* Each element of each array member of the snapshot, as it is read
     * (snapshot_file.h): 0 when taken, 1 to leave it in the object
     * 'snapshot' gets, -1 with 'e' set to stop. */
    int (*item)(const char *key, json_t *item, void *arg, drv_error_t *e);
    /* The snapshot object, with the elements 'item' left. */
    int (*snapshot)(json_t *snap, void *arg, drv_error_t *e);
    /* Each log record, in order. */
    int (*record)(json_t *rec, void *arg, drv_error_t *e);
    void *arg;
};

/* Replay: the snapshot (if one exists) through cb->item and
 * cb->snapshot, then each log record through cb->record.  A torn last
 * line (crash in the middle of a write) is ignored with a log message; a
 * bad line in the middle is an error.  Returns 0, or -1 with 'error' set
 * (the callback's error, "snapshot.json:LINE: ..." or "journal:LINE: ...").
 */
int journal_replay(struct journal *j, const struct journal_replay_cb *cb,
                   drv_error_t *error);

/* Queue a record (a reference is taken).  It reaches the disk at the next
 * journal_flush().  Returns 0, or -1 with errno=ENOMEM.
 */
int journal_append(struct journal *j, json_t *rec);

/* journal_append() of a record already serialized: 'text' ('n' bytes,
 * copied) is one JSON object on one line (no newline), as
 * json_dumps(rec, JSON_COMPACT) writes it.  Returns 0, or -1 with
 * errno=ENOMEM. */
int journal_append_text(struct journal *j, const char *text, size_t n);

/* True when records are queued and not yet flushed. */
int journal_dirty(const struct journal *j);

/* Write queued records and fdatasync.  Returns 0, or -1 with errno (the
 * records stay queued and the next flush tries again).
 */
int journal_flush(struct journal *j);

/* Flush the 'n' journals of 'js' (NULL entries are skipped) together:
 * each one's queued records are written, then their fdatasyncs run at
 * the same time (on short-lived threads), so the caller waits for the
 * slowest disk sync, not for their sum.  err[i] is 0, or the errno of
 * journal i's failed write or sync (its records stay queued and the next
 * flush tries again). */
void journal_flush_together(struct journal *const *js, size_t n, int *err);

/* The errno of the last flush when it failed and its records still wait
 * (a full disk), else 0.  The controller refuses new submissions while
 * it is not 0, so that their records do not pile up behind the ones that
 * wait (bench/abuse, fulldisk). */
int journal_failing(const struct journal *j);

/* Records in the log since the last snapshot. */
size_t journal_length(const struct journal *j);

/* Write 'state' as the new snapshot (temp file, fsync, rename, fsync dir),
 * then truncate the log and remove journal.old (journal_snapshot_async);
 * a snapshot child still running is waited for first.  Queued records are
 * flushed first.  Returns 0, or -1 with errno.
 */
int journal_snapshot(struct journal *j, json_t *state);

/* Write the snapshot in a forked child, so that the loop does not stop
 * for it (seconds at 100,000 jobs: bench/scale).  The log is flushed and
 * renamed journal.old, records go on to a fresh log, and the child writes
 * build(arg), the state as it was at the fork, as the snapshot (temp
 * file, fsync, rename, fsync dir; it dies with the controller).
 * journal_snapshot_poll() reaps it and removes journal.old.  Until then a
 * restart replays snapshot, journal.old, log; a snapshot that landed names
 * the journal.old it holds (its inode), which is then skipped: records are
 * not all upserts (a requeue counts), so none may be applied twice.
 * Returns 0, or -1 with errno: EBUSY while a child runs or a failed one's journal.old is
 * still there (write a synchronous journal_snapshot(), which removes
 * it), or the flush's, rename's or fork's error.
 */
int journal_snapshot_async(struct journal *j, json_t *(*build)(void *arg),
                           void *arg);

/* The snapshot child of journal_snapshot_async(), waited for ('wait') or
 * not.  Returns 1 when its snapshot is in place (journal.old removed), 0
 * when there is none or it still runs, -1 when it failed (journal.old
 * stays until a synchronous journal_snapshot()).
 */
int journal_snapshot_poll(struct journal *j, bool wait);

/* True while a snapshot child runs. */
bool journal_snapshotting(const struct journal *j);

/* Flush and close.  NULL is a no-op. */
void journal_close(struct journal *j);

#endif /* !DROVER_CTLD_JOURNAL_H */
