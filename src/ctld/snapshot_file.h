/* SPDX-License-Identifier: Apache-2.0
 *
 * snapshot_file.h - the on-disk form of a journal snapshot
 *
 * A snapshot is a JSON object (the controller's state_to_json(), the
 * accounting spool's pending events).  On disk it is JSON lines, so that
 * a restart parses one small record at a time and can apply each before
 * reading the next (a 100,000-job snapshot parsed as one object took
 * 2.7 s and its tree 1 GB of malloc churn: bench/README.md):
 *
 *   {"drover_snapshot":2,"arrays":[["jobs",N],["nodes",M],...]}
 *   N lines: the elements of "jobs", in order
 *   M lines: the elements of "nodes", in order
 *   ...
 *   one line: the object's other members
 *
 * Every member whose value is an array is written that way, in the
 * object's order.  A file of the earlier form (the whole object on one
 * line) is still read.
 */
#ifndef DROVER_CTLD_SNAPSHOT_FILE_H
#define DROVER_CTLD_SNAPSHOT_FILE_H

#include <jansson.h>

#include "common/error.h"

/* What reading a snapshot calls, in the file's order.  'arg' is passed to
 * both. */
struct snapshot_file_cb {
    /* Each element 'item' (borrowed) of the array member 'key'.  Returns
     * 0 when it took the element, 1 to leave it in the array that
     * 'rest' receives, -1 with 'e' set to stop.  NULL: every element is
     * left. */
    int (*item)(const char *key, json_t *item, void *arg, drv_error_t *e);
    /* Once, last: the object (borrowed) with its other members, and each
     * array holding the elements 'item' left.  Returns 0, or -1 with 'e'
     * set. */
    int (*rest)(json_t *snap, void *arg, drv_error_t *e);
    void *arg;
};

/* Write 'state' (a JSON object; borrowed) to the open descriptor 'fd'
 * (left open, not synced) in the form above.  Returns 0, or -1 with
 * errno (a write's, or ENOMEM). */
int snapshot_file_write(int fd, json_t *state);

/* Read the snapshot at 'path' through 'cb'.  Returns 0, or -1 with
 * 'error' set: "PATH:LINE: what" for a file that does not parse or ends
 * early, or the callback's error. */
int snapshot_file_read(const char *path, const struct snapshot_file_cb *cb,
                       drv_error_t *error);

#endif /* !DROVER_CTLD_SNAPSHOT_FILE_H */
