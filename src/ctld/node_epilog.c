/* SPDX-License-Identifier: Apache-2.0
 *
 * node_epilog.c - nodes COMPLETING while an Epilog runs (node_epilog.h)
 */
#include <stdlib.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/node_epilog.h"

/* Seconds a wait may last: PrologEpilogTimeout (60 when 0) plus twice
 * MessageTimeout (the end-of-job message out, the report back). */
static time_t wait_limit(const struct ctld *ctld)
{
    const struct slurm_conf *c = ctld->conf;

    return (time_t)(c->prolog_epilog_timeout_s ? c->prolog_epilog_timeout_s
                                                : 60)
           + 2 * (time_t)c->msg_timeout_s;
}

void node_epilog_wait(struct ctld *ctld, long node, uint32_t job_id)
{
    struct ctld_node *n = &ctld->nodes->info[node];

    if (!ctld->conf->epilog)
        return;
    for (uint32_t i = 0; i < n->nepilog; i++)
        if (n->epilog_jobs[i] == job_id)
            return;
    if (n->nepilog == n->epilog_cap) {
        n->epilog_cap = n->epilog_cap ? 2 * n->epilog_cap : 4;
        n->epilog_jobs = xrealloc(n->epilog_jobs,
                                  n->epilog_cap * sizeof(*n->epilog_jobs));
    }
    if (n->nepilog == 0)
        n->epilog_since = ctld_now(ctld);
    n->epilog_jobs[n->nepilog++] = job_id;
    node_table_update_avail(ctld->nodes, (size_t)node);
}

/* Job 'job_id' no longer holds node 'node'. */
static void done(struct ctld *ctld, long node, uint32_t job_id)
{
    struct ctld_node *n = &ctld->nodes->info[node];

    for (uint32_t i = 0; i < n->nepilog; i++) {
        if (n->epilog_jobs[i] != job_id)
            continue;
        n->epilog_jobs[i] = n->epilog_jobs[--n->nepilog];
        if (n->nepilog == 0) {
            node_table_update_avail(ctld->nodes, (size_t)node);
            scheduler_request(ctld);
        } else {
            n->epilog_since = ctld_now(ctld);
        }
        return;
    }
}

void node_epilog_reported(struct ctld *ctld, long node, json_t *body)
{
    json_t *id;
    size_t i;

    json_array_foreach(json_object_get(body, "epilog_done"), i, id)
        if (json_is_integer(id))
            done(ctld, node, (uint32_t)json_integer_value(id));
}

void node_epilog_check(struct ctld *ctld, time_t now)
{
    for (size_t i = 0; i < ctld->nodes->count; i++) {
        struct ctld_node *n = &ctld->nodes->info[i];
        if (!n->nepilog || now - n->epilog_since <= wait_limit(ctld))
            continue;
        log_error("Node %s: the Epilog of JobId=%u (and %u more) not "
                  "reported in %lld s: the node takes jobs again",
                  ctld->nodes->names[i], n->epilog_jobs[0], n->nepilog - 1,
                  (long long)wait_limit(ctld));
        n->nepilog = 0;
        node_table_update_avail(ctld->nodes, i);
    }
}
