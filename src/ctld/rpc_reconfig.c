/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_reconfig.c - reconfigure: slurm.conf read again, what may change live
 * applied
 *
 * `scontrol reconfigure` (an administrator's) makes droverctld read
 * slurm.conf and the files beside it again and compare every setting with
 * the running ones (conf_changes()).  A change is either one this
 * controller reads where it uses it (the keywords of live_keys[] below:
 * it then takes effect for what comes next, as in Slurm) or is refused by
 * name with the reason, and then nothing changes at all: a reconfigure
 * applies whole or not at all, never half, and never silently leaves a
 * change out.  The refused ones are those copied at start (ports, paths,
 * the node and partition tables, the Raft group) and those droverd reads
 * at its own start (Prolog, cgroup.conf...): a restart of the daemon
 * applies them.  Partitions change at run time through `scontrol update
 * PartitionName=`.
 *
 * A reconfigure accepted (changes or none: slurm.conf was read again) is
 * the event of strigger's RECONFIG triggers (trigger.h); a refused one
 * changed nothing and is not.
 *
 * The replaced configuration stays allocated until exit: tables built at
 * start borrow strings from it.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/priority.h"
#include "ctld/trigger.h"
#include "proto/client.h"

static void node_answered(int errnum, const char *errstr, json_t *resp,
                          void *arg)
{
    char *node = arg;
    const json_t *r;
    size_t i;

    if (errnum)
        log_error("reconfigure: node %s: %s", node,
                  errstr ? errstr : drv_strerror(errnum));
    json_array_foreach(json_object_get(resp, "refused"), i, r)
        log_error("reconfigure: node %s kept its configuration: %s", node,
                  json_string_value(r));
    free(node);
}

/* Every droverd reads its slurm.conf again (noded/reconfig.c); what each
 * answers is logged. */
static void reconfigure_nodes(struct ctld *ctld)
{
    for (size_t i = 0; i < ctld->nodes->count; i++) {
        const struct conf_node *cn = ctld->nodes->info[i].conf;
        char *name = xstrdup(cn->name);

        if (proto_call_async(ctld->loop, cn->addr, cn->port, ctld->auth,
                             "node_reconfigure", json_object(),
                             (int)ctld->conf->msg_timeout_s * 1000,
                             node_answered, name) < 0) {
            log_err("reconfigure: node %s", name);
            free(name);
        }
    }
}

/* The new configuration in place: the old one kept (borrowed from). */
static void apply(struct ctld *ctld, struct slurm_conf *conf,
                  const struct conf_change *ch, size_t n)
{
    bool priority = false, nodes = false;

    ctld->retired_confs = xrealloc(ctld->retired_confs,
                                   (ctld->retired_conf_count + 1)
                                       * sizeof(*ctld->retired_confs));
    ctld->retired_confs[ctld->retired_conf_count++] = ctld->conf;
    ctld->conf = conf;
    for (size_t i = 0; i < n; i++) {
        unsigned who = conf_live_key(ch[i].key);

        priority = priority || (who & CONF_LIVE_PRIORITY);
        nodes = nodes || (who & CONF_LIVE_NODES);
        log_info("reconfigure: %s changed", ch[i].key);
    }
    if (priority)
        priority_reconfigure(ctld);
    if (nodes)
        reconfigure_nodes(ctld);
    ctld_log_level_set(ctld);
    for (size_t i = 0; i < conf->notice_count; i++)
        log_info("%s", conf->notices[i]);
}

static void respond_error(proto_req_t *req, int errnum, const char *text)
{
    if (proto_respond_error(req, errnum, text) < 0)
        log_err("reconfigure: responding");
}

static void rpc_reconfigure(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    drv_error_t error = {{0}};
    struct slurm_conf *conf;
    struct conf_change *ch;
    size_t n;
    json_t *refused;

    if (!(proto_req_roles(req) & PROTO_ROLE_ADMIN))
        return respond_error(req, EDRV_USER_ID_MISSING, NULL);
    if (ctld->ha)
        return respond_error(req, EDRV_NOT_SUPPORTED,
                             "reconfigure: not in a Raft group of "
                             "controllers; restart each one");
    if (!(conf = conf_load(ctld->conf->path, &error))) {
        log_error("reconfigure: %s", error.text);
        return respond_error(req, EDRV_ERROR, error.text);
    }
    if (conf_changes(ctld->conf, conf, &ch, &n) < 0) {
        conf_destroy(conf);
        return respond_error(req, EDRV_ERROR, "reconfigure: out of memory");
    }
    if ((refused = conf_changes_refused(ch, n))) {
        size_t i;
        json_t *r;

        json_array_foreach(refused, i, r)
            log_error("reconfigure: nothing changed: %s",
                      json_string_value(r));
        conf_changes_free(ch, n);
        conf_destroy(conf);
        if (proto_respond(req, json_pack("{s:o}", "refused", refused)) < 0)
            log_err("reconfigure: responding");
        return;
    }
    if (n)
        apply(ctld, conf, ch, n);
    else
        conf_destroy(conf);
    log_info("reconfigure: %s read again, %zu change%s applied",
             ctld->conf->path, n, n == 1 ? "" : "s");
    conf_changes_free(ch, n);
    trigger_reconfigured(ctld); /* strigger --reconfig: read again */
    if (proto_respond(req, json_object()) < 0)
        log_err("reconfigure: responding");
}

const struct proto_handler rpc_reconfig_handlers[] = {
    {"reconfigure", rpc_reconfigure, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
