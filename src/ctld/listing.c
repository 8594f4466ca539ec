/* SPDX-License-Identifier: Apache-2.0
 *
 * listing.c - answers written over several loop turns (listing.h)
 */
#include <stdlib.h>

#include "ctld/ctld.h"
#include "ctld/listing.h"
#include "ctld/stats.h"

/* LISTING_SLICE_NS, or DROVER_LISTING_SLICE_US (µs). */
static uint64_t slice_ns(void)
{
    static uint64_t ns;

    if (!ns)
        ns = ctld_env_count("DROVER_LISTING_SLICE_US",
                            LISTING_SLICE_NS / 1000) * 1000;
    return ns;
}

static void idle_cb(uv_idle_t *h)
{
    struct ctld *ctld = h->data;
    uint64_t began = uv_hrtime(), deadline = began + slice_ns();
    struct listing **pp = &ctld->listings;

    while (*pp && uv_hrtime() < deadline) {
        struct listing *l = *pp;

        if (l->write(ctld, l, deadline)) {
            *pp = l->next;
            l->finish(ctld, l);
        } else {
            pp = &l->next;
        }
    }
    if (!ctld->listings)
        uv_idle_stop(h);
    stats_turn_part(ctld, "listings", began);
}

void listing_queue(struct ctld *ctld, struct listing *l)
{
    struct listing **pp;

    l->next = NULL;
    for (pp = &ctld->listings; *pp; pp = &(*pp)->next)
        ;
    *pp = l;
    if (!ctld->listing_idle.data) {
        uv_idle_init(ctld->loop, &ctld->listing_idle);
        ctld->listing_idle.data = ctld;
    }
    uv_idle_start(&ctld->listing_idle, idle_cb);
}

void listing_fini(struct ctld *ctld)
{
    struct listing *l;

    while ((l = ctld->listings)) {
        ctld->listings = l->next;
        l->write(ctld, l, UINT64_MAX);
        l->finish(ctld, l);
    }
    if (ctld->listing_idle.data)
        uv_idle_stop(&ctld->listing_idle);
}
