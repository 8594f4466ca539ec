/* SPDX-License-Identifier: Apache-2.0
 *
 * reconfig.c - node_reconfigure: droverd reads its slurm.conf again
 *
 * After `scontrol reconfigure` applied a change droverd reads
 * (conf_live_key()'s CONF_LIVE_NODES: Prolog, Epilog, PrologEpilogTimeout,
 * TaskProlog, TaskEpilog, SlurmdDebug), the controller asks each node to
 * read its own copy of slurm.conf, as each slurmd reads its own.  The node
 * takes those keywords' new values into its configuration, and into what
 * it sends with each launch from now on; jobs running keep what they
 * started with.  A change it cannot apply (its file differs from the
 * controller's) is answered by name and nothing changes.  Replaced
 * strings stay allocated until exit: a Prolog being run may use one.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "noded/noded.h"

/* The string keywords a node takes, by their field. */
static const size_t node_strings[] = {
    offsetof(struct slurm_conf, prolog),
    offsetof(struct slurm_conf, epilog),
    offsetof(struct slurm_conf, task_prolog),
    offsetof(struct slurm_conf, task_epilog),
    offsetof(struct slurm_conf, slurmd_debug),
};

static void retire(struct noded *nd, char *s)
{
    if (!s)
        return;
    nd->retired = xrealloc(nd->retired,
                           (nd->retired_count + 1) * sizeof(*nd->retired));
    nd->retired[nd->retired_count++] = s;
}

/* What each launch sends, made again from the configuration; keys added
 * after it was first made (job_container) kept. */
static int remake_step_conf(struct noded *nd)
{
    json_t *fresh = conf_step_to_json(nd->conf, nd->node), *v;
    const char *k;

    if (!fresh)
        return -1;
    json_object_foreach(nd->step_conf, k, v)
        if (!json_object_get(fresh, k))
            json_object_set(fresh, k, v);
    json_decref(nd->step_conf);
    nd->step_conf = fresh;
    return 0;
}

/* 'new''s node keywords into nd->conf, and its settings (what the next
 * reconfigure compares with). */
static void take(struct noded *nd, struct slurm_conf *new)
{
    char **settings = nd->conf->settings;
    size_t count = nd->conf->setting_count;

    for (size_t i = 0; i < sizeof(node_strings) / sizeof(node_strings[0]);
         i++) {
        char **mine = (char **)((char *)nd->conf + node_strings[i]);
        char **theirs = (char **)((char *)new + node_strings[i]);

        if ((*mine && *theirs && !strcmp(*mine, *theirs))
            || (!*mine && !*theirs))
            continue;
        retire(nd, *mine);
        *mine = *theirs;
        *theirs = NULL;
    }
    nd->conf->prolog_epilog_timeout_s = new->prolog_epilog_timeout_s;
    nd->conf->settings = new->settings;
    nd->conf->setting_count = new->setting_count;
    new->settings = settings;
    new->setting_count = count;
    noded_log_level_set(nd);
}

static void respond(proto_req_t *req, json_t *body)
{
    if (proto_respond(req, body) < 0)
        log_err("node_reconfigure: responding");
}

static void rpc_node_reconfigure(proto_req_t *req, void *arg)
{
    struct noded *nd = arg;
    drv_error_t error = {{0}};
    struct slurm_conf *new;
    struct conf_change *ch;
    json_t *refused;
    size_t n;

    if (!(new = conf_load(nd->conf->path, &error))) {
        log_error("reconfigure: %s", error.text);
        proto_respond_error(req, EDRV_ERROR, error.text);
        return;
    }
    if (conf_changes(nd->conf, new, &ch, &n) < 0) {
        conf_destroy(new);
        proto_respond_error(req, EDRV_ERROR, "out of memory");
        return;
    }
    if ((refused = conf_changes_refused(ch, n))) {
        size_t i;
        json_t *r;

        json_array_foreach(refused, i, r)
            log_error("reconfigure: nothing changed: %s",
                      json_string_value(r));
        respond(req, json_pack("{s:o}", "refused", refused));
    } else {
        for (size_t i = 0; i < n; i++)
            if (conf_live_key(ch[i].key) & CONF_LIVE_NODES)
                log_info("reconfigure: %s changed", ch[i].key);
        take(nd, new);
        if (remake_step_conf(nd) < 0)
            log_error("reconfigure: out of memory; launches keep the "
                      "configuration they had");
        respond(req, json_object());
    }
    conf_changes_free(ch, n);
    conf_destroy(new);
}

const struct proto_handler noded_reconfig_handlers[] = {
    {"node_reconfigure", rpc_node_reconfigure, PROTO_ROLE_DAEMON},
    PROTO_HANDLER_END,
};
