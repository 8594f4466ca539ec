/* SPDX-License-Identifier: Apache-2.0
 *
 * trigger_private.h - what trigger.c (the table) and trigger_fire.c (the
 * periodic check) share
 */
#ifndef DROVER_CTLD_TRIGGER_PRIVATE_H
#define DROVER_CTLD_TRIGGER_PRIVATE_H

#include <stdint.h>
#include <time.h>

#include "ctld/prog_run.h"
#include "ctld/trigger.h"

/* Bits of a node's state at the last check (struct triggers' seen). */
enum {
    SEEN_DOWN = 1 << 0,
    SEEN_DRAINED = 1 << 1,
    SEEN_IDLE = 1 << 2,
};

struct triggers {
    struct trigger *head;    /* by id */
    uint32_t next_id;
    unsigned char *seen;     /* per node, SEEN_* at the last check; NULL
                              * before the first (memory only) */
    time_t *idle_since;      /* per node: idle since (epoch s); 0: not */
    bool reconfigured;       /* a reconfigure since the last check */
    bool stale;              /* no trigger was there to watch the nodes:
                              * 'seen' is old, the next check only looks */
    struct prog_run *run;    /* the programs' runner; NULL until one */
};

/* The controller's table, made on first use (replay may come first). */
struct triggers *triggers_of(struct ctld *ctld);

#endif /* !DROVER_CTLD_TRIGGER_PRIVATE_H */
