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

/* Global keywords a reconfigure applies, and who reads them. */
static const struct {
    const char *key;
    bool priority; /* re-read into the priority calculation */
} live_keys[] = {
    /* the controller, where it uses them */
    {"AccountingStorageEnforce", false}, {"CompleteWait", false},
    {"EnforcePartLimits", false}, {"EpilogSlurmctld", false},
    {"InactiveLimit", false}, {"JobFileAppend", false},
    {"JobRequeue", false}, {"KillWait", false}, {"MailDomain", false},
    {"MailProg", false}, {"MaxArraySize", false}, {"MaxJobCount", false},
    {"MaxStepCount", false}, {"MaxTasksPerNode", false},
    {"MinJobAge", false}, {"PreemptExemptTime", false},
    {"PrivateData", false}, {"PrologSlurmctld", false},
    {"RequeueExit", false}, {"RequeueExitHold", false},
    {"ReturnToService", false}, {"SlurmctldDebug", false},
    {"SlurmdTimeout", false},
    /* the priority calculation, recomputed at once */
    {"PriorityCalcPeriod", true}, {"PriorityDecayHalfLife", true},
    {"PriorityFavorSmall", true}, {"PriorityFlags", true},
    {"PriorityMaxAge", true}, {"PriorityUsageResetPeriod", true},
    {"PriorityWeightAge", true}, {"PriorityWeightAssoc", true},
    {"PriorityWeightFairShare", true}, {"PriorityWeightJobSize", true},
    {"PriorityWeightPartition", true}, {"PriorityWeightQOS", true},
    {"PriorityWeightTRES", true},
    /* the commands, which read slurm.conf at each start */
    {"MpiDefault", false}, {"SrunEpilog", false}, {"SrunProlog", false},
    {"WaitTime", false},
};

#define LIVE_KEY_COUNT (sizeof(live_keys) / sizeof(live_keys[0]))

static int live_key(const char *key)
{
    for (size_t i = 0; i < LIVE_KEY_COUNT; i++)
        if (!strcasecmp(key, live_keys[i].key))
            return (int)i;
    return -1;
}

/* Why change 'c' cannot be applied by a reconfigure, or NULL. */
static const char *refusal(const struct conf_change *c)
{
    if (!c->key)
        return "read by the daemons at start: restart them";
    if (c->record && !strncasecmp(c->record, "PartitionName=", 14))
        return "use scontrol update/create/delete partition, or restart "
               "droverctld";
    if (c->record)
        return "the node table is built at start: restart droverctld and "
               "droverd";
    if (live_key(c->key) < 0)
        return "read at start: restart the daemons that use it";
    return NULL;
}

/* Whether change 'c' is a record line added or removed ("PartitionName"
 * of "PartitionName=p"), not one of its keywords. */
static bool whole_record(const struct conf_change *c)
{
    size_t len = c->key ? strlen(c->key) : 0;

    return c->record && len && !strncasecmp(c->record, c->key, len)
           && c->record[len] == '=';
}

/* Whether the record of 'c' was added or removed whole in 'ch'. */
static bool in_whole_record(const struct conf_change *c,
                            const struct conf_change *ch, size_t n)
{
    for (size_t i = 0; c->record && i < n; i++)
        if (whole_record(&ch[i]) && !strcmp(ch[i].record, c->record))
            return true;
    return false;
}

/* ["Key: why", "PartitionName=p MaxTime: why", "PartitionName=q: why"...]
 * for the refused changes (a record added or removed once, not each of
 * its keywords), or NULL when every change may be applied.  A new
 * reference. */
static json_t *refusals(const struct conf_change *ch, size_t n)
{
    json_t *list = json_array();

    for (size_t i = 0; i < n; i++) {
        const struct conf_change *c = &ch[i];
        const char *why = refusal(c);
        bool whole = whole_record(c);

        if (!why || (!whole && in_whole_record(c, ch, n)))
            continue;
        json_array_append_new(
            list, json_sprintf("%s%s%s: %s", c->record ? c->record : "",
                               c->record && c->key && !whole ? " " : "",
                               c->key && !whole ? c->key : "", why));
    }
    if (!json_array_size(list)) {
        json_decref(list);
        return NULL;
    }
    return list;
}

/* The new configuration in place: the old one kept (borrowed from). */
static void apply(struct ctld *ctld, struct slurm_conf *conf,
                  const struct conf_change *ch, size_t n)
{
    bool priority = false;

    ctld->retired_confs = xrealloc(ctld->retired_confs,
                                   (ctld->retired_conf_count + 1)
                                       * sizeof(*ctld->retired_confs));
    ctld->retired_confs[ctld->retired_conf_count++] = ctld->conf;
    ctld->conf = conf;
    for (size_t i = 0; i < n; i++) {
        int k = live_key(ch[i].key);

        priority = priority || live_keys[k].priority;
        log_info("reconfigure: %s changed", live_keys[k].key);
    }
    if (priority)
        priority_reconfigure(ctld);
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
    if ((refused = refusals(ch, n))) {
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
    if (proto_respond(req, json_object()) < 0)
        log_err("reconfigure: responding");
}

const struct proto_handler rpc_reconfig_handlers[] = {
    {"reconfigure", rpc_reconfigure, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
