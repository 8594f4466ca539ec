/* SPDX-License-Identifier: Apache-2.0
 *
 * listing.h - answers written over several loop turns
 *
 * A listing of the whole job table (100,000 jobs: about 100 ms) or node
 * table (10,000 nodes: about 40 ms) written in one turn holds back every
 * other request, heartbeat and timer for that long.  A listing is instead
 * queued here and written a slice at a time: each loop turn gives the
 * queued listings LISTING_SLICE_NS between them, oldest first
 * (job_listing.h and rpc_node.c say what each shows of a table that
 * changes between its slices).
 */
#ifndef DROVER_CTLD_LISTING_H
#define DROVER_CTLD_LISTING_H

#include <stdbool.h>
#include <stdint.h>

struct ctld;

/* Loop time one turn gives to the listings being written (ns);
 * DROVER_LISTING_SLICE_US in droverctld's environment sets another
 * (tests make listings span many turns with it). */
#define LISTING_SLICE_NS (5u * 1000 * 1000)

/* A listing being written: the first member of its writer's state. */
struct listing {
    struct listing *next; /* ctld->listings */
    /* Write until done (true) or uv_hrtime() passes 'deadline_ns'
     * (false).  UINT64_MAX: to the end. */
    bool (*write)(struct ctld *ctld, struct listing *l, uint64_t deadline_ns);
    /* Send the answer and free the listing. */
    void (*finish)(struct ctld *ctld, struct listing *l);
};

/* Queue 'l' (its write and finish set) behind the listings being
 * written; its first slice is written in the next loop turn. */
void listing_queue(struct ctld *ctld, struct listing *l);

/* At shutdown, before the server goes: every queued listing is written
 * to its end and answered now. */
void listing_fini(struct ctld *ctld);

#endif /* !DROVER_CTLD_LISTING_H */
