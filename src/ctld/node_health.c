/* SPDX-License-Identifier: Apache-2.0
 *
 * node_health.c - what a node's HealthCheckProgram said, in its
 * registration: drain it on failure, return it to service when it passes;
 * the drains of a failed Prolog or Epilog (noded/prolog.h)
 *
 * Slurm leaves both to the program (it calls scontrol itself); Drover's
 * droverd reports the result and the controller acts, marking the drain
 * as the health check's (node_admin.health_drain, kept in the journal)
 * so that a passing run undoes only its own drain, never an
 * administrator's (docs/compatibility.md).
 */
#include <string.h>

#include "common/log.h"
#include "ctld/ctld.h"
#include "ctld/event.h"

/* Drain node 'idx' now for 'reason', by SlurmUser; 'health': the
 * health check's own drain (health_recover() may undo it). */
static void drain(struct ctld *ctld, long idx, const char *reason,
                  bool health, struct node_admin *a)
{
    a->drain = true;
    a->health_drain = health;
    a->reason = reason;
    a->reason_user = ctld->conf->slurm_user ? ctld->conf->slurm_user : "root";
    a->reason_time = ctld_now(ctld);
    ctld_node_admin(ctld, idx, a);
}

/* The failed check's drain: the reason is the program's output. */
static void health_drain(struct ctld *ctld, long idx, const char *reason)
{
    struct node_admin a;

    node_table_admin_get(ctld->nodes, (size_t)idx, &a);
    if (a.down || (a.drain && !a.health_drain))
        return; /* an administrator's, or Not responding: theirs stays */
    if (a.drain && a.reason && !strcmp(a.reason, reason))
        return; /* drained already, for the same reason */
    log_info("Node %s: HealthCheckProgram failed: draining (%s)",
             ctld->nodes->names[idx], reason);
    drain(ctld, idx, reason, true, &a);
}

/* A passing check: undrain only what health_drain() drained. */
static void health_recover(struct ctld *ctld, long idx)
{
    struct node_admin a;

    node_table_admin_get(ctld->nodes, (size_t)idx, &a);
    if (!a.drain || !a.health_drain || ctld->conf->return_to_service == 0)
        return;
    log_info("Node %s: HealthCheckProgram passed: returned to service",
             ctld->nodes->names[idx]);
    a.drain = false;
    a.health_drain = false;
    a.reason = a.reason_user = NULL;
    a.reason_time = 0;
    ctld_node_admin(ctld, idx, &a);
}

void ctld_node_drain_error(struct ctld *ctld, long node, const char *reason)
{
    struct node_admin a;

    node_table_admin_get(ctld->nodes, (size_t)node, &a);
    if (a.drain && a.reason && !strcmp(a.reason, reason))
        return;
    log_info("Node %s: %s: draining", ctld->nodes->names[node], reason);
    drain(ctld, node, reason, false, &a);
}

/* Each job whose Epilog failed on the node, in its registration. */
static void epilog_failures(struct ctld *ctld, long node, json_t *body)
{
    json_t *id;
    size_t i;

    json_array_foreach(json_object_get(body, "epilog_failed"), i, id) {
        log_error("JobId=%lld: Epilog failed on %s",
                  (long long)json_integer_value(id),
                  ctld->nodes->names[node]);
        ctld_node_drain_error(ctld, node, "Epilog error");
    }
}

void ctld_node_health(struct ctld *ctld, long node, json_t *body)
{
    json_t *ok = json_object_get(body, "health_ok");
    const char *reason =
        json_string_value(json_object_get(body, "health_reason"));

    epilog_failures(ctld, node, body);
    if (!json_is_boolean(ok))
        return;
    if (json_is_true(ok))
        health_recover(ctld, node);
    else
        health_drain(ctld, node, reason && *reason
                                     ? reason
                                     : "HealthCheckProgram failed");
}

json_t *ctld_node_health_answer(struct ctld *ctld, long node)
{
    return json_pack("{s:s s:b}", "state",
                     node_table_base_state(ctld->nodes, (size_t)node),
                     "drain", ctld->nodes->info[node].drain);
}
