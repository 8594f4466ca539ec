/* SPDX-License-Identifier: Apache-2.0
 *
 * ha_disk.c - stop at the first failed Raft log write (ha_disk.h)
 *
 * raft_uv keeps the callback of each append in the request it was given;
 * the guard passes its own and remembers libraft's in a list of the
 * appends in flight (a few at a time).
 */
#include <stdlib.h>

#include "common/xalloc.h"
#include "ctld/ha_disk.h"

struct pending {
    struct raft_io_append *req;
    raft_io_append_cb cb;
    struct pending *next;
};

static int (*real_append)(struct raft_io *, struct raft_io_append *,
                          const struct raft_entry[], unsigned,
                          raft_io_append_cb);
static ha_disk_failed_fn on_failure;
static void *failure_arg;
static struct pending *in_flight;

static raft_io_append_cb take(struct raft_io_append *req)
{
    for (struct pending **p = &in_flight; *p; p = &(*p)->next) {
        if ((*p)->req == req) {
            struct pending *found = *p;
            raft_io_append_cb cb = found->cb;
            *p = found->next;
            free(found);
            return cb;
        }
    }
    return NULL;
}

static void append_done(struct raft_io_append *req, int status)
{
    raft_io_append_cb cb = take(req);

    if (status && status != RAFT_CANCELED) /* canceled: closing down */
        on_failure(failure_arg, status);
    if (cb)
        cb(req, status);
}

static int guarded_append(struct raft_io *io, struct raft_io_append *req,
                          const struct raft_entry entries[], unsigned n,
                          raft_io_append_cb cb)
{
    struct pending *p = xzalloc(sizeof(*p));
    int rv;

    p->req = req;
    p->cb = cb;
    p->next = in_flight;
    in_flight = p;
    if ((rv = real_append(io, req, entries, n, append_done)) != 0)
        (void)take(req); /* refused at once: libraft sees rv */
    return rv;
}

void ha_disk_guard(struct raft_io *io, ha_disk_failed_fn failed, void *arg)
{
    real_append = io->append;
    on_failure = failed;
    failure_arg = arg;
    io->append = guarded_append;
}
