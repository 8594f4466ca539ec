/* SPDX-License-Identifier: Apache-2.0
 *
 * node_gpus.c - the GPUs a droverd found (gres.conf AutoDetect=nvml),
 * checked against slurm.conf's Gres= at each registration
 */
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "ctld/ctld.h"
#include "ctld/event.h"

void ctld_node_gpus_reported(struct ctld *ctld, long node, json_t *gpus)
{
    struct ctld_node *n = &ctld->nodes->info[node];
    uint32_t configured = ctld->nodes->sched[node].gpus;
    size_t reported = json_array_size(gpus);
    struct node_admin a;
    char reason[128];

    if (!json_is_array(gpus))
        return;
    if (!n->gpus || !json_equal(n->gpus, gpus)) {
        json_decref(n->gpus);
        n->gpus = json_incref(gpus);
    }
    if (reported >= configured || n->drain)
        return;
    snprintf(reason, sizeof(reason),
             "gres/gpu count reported lower than configured (%zu < %u)",
             reported, configured);
    log_error("Node %s: %s: draining it", ctld->nodes->names[node], reason);
    node_table_admin_get(ctld->nodes, (size_t)node, &a);
    a.drain = true;
    a.reason = reason;
    a.reason_user = ctld->conf->slurm_user ? ctld->conf->slurm_user : "root";
    a.reason_time = ctld_now(ctld);
    ctld_node_admin(ctld, node, &a);
}
