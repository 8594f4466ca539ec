/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_changes.c - what differs between two loads of slurm.conf
 *
 * `scontrol reconfigure` reads slurm.conf again and must know every
 * setting that changed, to apply it or to refuse it by name: a setting
 * passed over would be a change silently ignored.  So the comparison is
 * of the settings as read (slurm_conf.settings: each keyword and value,
 * each record line's, each file beside slurm.conf), not of the parsed
 * fields, which some keywords share and others lack.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>
#include <uthash.h>

#include "conf/conf.h"

/* The record line keywords (conf.c's line kinds). */
static const char *const record_keys[] = {"NodeName", "PartitionName",
                                          "DownNodes", "NodeSet",
                                          "FrontendName", "SwitchName"};

struct entry {
    char *id;           /* what is compared: kind, record and keyword */
    char *record, *key; /* as conf_change has them (borrowed copies) */
    const char *value;  /* borrowed from the setting */
    size_t order;       /* first seen */
    UT_hash_handle hh;
};

static bool is_record_key(const char *key, size_t len)
{
    for (size_t i = 0; i < sizeof(record_keys) / sizeof(record_keys[0]); i++)
        if (strlen(record_keys[i]) == len
            && !strncasecmp(key, record_keys[i], len))
            return true;
    return false;
}

static char *lower_dup(const char *s, size_t len)
{
    char *d = strndup(s, len);

    for (char *p = d; p && *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return d;
}

/* Split one setting (conf.h's forms) into a new entry; NULL on ENOMEM. */
static struct entry *entry_of(const char *setting)
{
    struct entry *e = calloc(1, sizeof(*e));
    const char *sep = strchr(setting, '\x1f');
    const char *eq = strchr(setting, '=');
    char *low = NULL;

    if (!e)
        return NULL;
    if (sep && (!eq || eq > sep)) { /* "gres.conf\x1f<text>" */
        e->record = strndup(setting, (size_t)(sep - setting));
        e->value = sep + 1;
        if (e->record && asprintf(&e->id, "F\x1f%s", e->record) < 0)
            e->id = NULL;
    } else if (sep) { /* "PartitionName=p\x1fKey=value" */
        const char *keq = strchr(sep + 1, '=');
        size_t klen = keq ? (size_t)(keq - sep - 1) : strlen(sep + 1);

        e->record = strndup(setting, (size_t)(sep - setting));
        e->key = strndup(sep + 1, klen);
        e->value = keq ? keq + 1 : "";
        low = lower_dup(sep + 1, klen);
        if (e->record && low
            && asprintf(&e->id, "R\x1f%s\x1f%s", e->record, low) < 0)
            e->id = NULL;
    } else if (eq && is_record_key(setting, (size_t)(eq - setting))) {
        /* the record itself: "PartitionName=p" */
        e->record = strdup(setting);
        e->key = strndup(setting, (size_t)(eq - setting));
        e->value = "";
        if (e->record && asprintf(&e->id, "R\x1f%s", e->record) < 0)
            e->id = NULL;
    } else { /* "Key=value" */
        size_t klen = eq ? (size_t)(eq - setting) : strlen(setting);

        e->key = strndup(setting, klen);
        e->value = eq ? eq + 1 : "";
        low = lower_dup(setting, klen);
        if (low && asprintf(&e->id, "G\x1f%s", low) < 0)
            e->id = NULL;
    }
    free(low);
    if (!e->id) {
        free(e->record);
        free(e->key);
        free(e);
        return NULL;
    }
    return e;
}

static void entries_free(struct entry **set)
{
    struct entry *e, *tmp;

    HASH_ITER(hh, *set, e, tmp) {
        HASH_DEL(*set, e);
        free(e->id);
        free(e->record);
        free(e->key);
        free(e);
    }
}

/* The settings of 'conf' by id, a later one replacing an earlier. */
static int entries_of(const struct slurm_conf *conf, struct entry **set)
{
    for (size_t i = 0; i < conf->setting_count; i++) {
        struct entry *e = entry_of(conf->settings[i]), *old;

        if (!e) {
            entries_free(set);
            errno = ENOMEM;
            return -1;
        }
        HASH_FIND_STR(*set, e->id, old);
        if (old) {
            old->value = e->value;
            free(e->id);
            free(e->record);
            free(e->key);
            free(e);
            continue;
        }
        e->order = i;
        HASH_ADD_KEYPTR(hh, *set, e->id, strlen(e->id), e);
    }
    return 0;
}

static int add_change(struct conf_change **out, size_t *n,
                      const struct entry *e)
{
    struct conf_change *grown = realloc(*out, (*n + 1) * sizeof(*grown));

    if (!grown)
        return -1;
    *out = grown;
    grown[*n].record = e->record ? strdup(e->record) : NULL;
    grown[*n].key = e->key ? strdup(e->key) : NULL;
    (*n)++;
    if ((e->record && !grown[*n - 1].record) || (e->key && !grown[*n - 1].key))
        return -1;
    return 0;
}

static int by_order(struct entry *a, struct entry *b)
{
    return (a->order > b->order) - (a->order < b->order);
}

int conf_changes(const struct slurm_conf *old, const struct slurm_conf *new,
                 struct conf_change **out, size_t *n)
{
    struct entry *was = NULL, *now = NULL, *e, *tmp, *match;
    int rc = 0;

    *out = NULL;
    *n = 0;
    if (entries_of(old, &was) < 0)
        return -1;
    if (entries_of(new, &now) < 0) {
        entries_free(&was);
        return -1;
    }
    HASH_SORT(now, by_order);
    HASH_SORT(was, by_order);
    HASH_ITER(hh, now, e, tmp) {
        HASH_FIND_STR(was, e->id, match);
        if ((!match || strcmp(match->value, e->value))
            && add_change(out, n, e) < 0)
            rc = -1;
    }
    HASH_ITER(hh, was, e, tmp) {
        HASH_FIND_STR(now, e->id, match);
        if (!match && add_change(out, n, e) < 0)
            rc = -1;
    }
    entries_free(&was);
    entries_free(&now);
    if (rc < 0) {
        conf_changes_free(*out, *n);
        *out = NULL;
        *n = 0;
        errno = ENOMEM;
    }
    return rc;
}

void conf_changes_free(struct conf_change *changes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(changes[i].record);
        free(changes[i].key);
    }
    free(changes);
}

/* The keywords a reconfigure applies (conf_live_key()); each read where it
 * is used by the daemons marked, so the new value holds from then on. */
static const struct {
    const char *key;
    unsigned who;
} live_keys[] = {
    {"AccountingStorageEnforce", CONF_LIVE_CTLD},
    {"CompleteWait", CONF_LIVE_CTLD},
    {"EnforcePartLimits", CONF_LIVE_CTLD},
    {"Epilog", CONF_LIVE_CTLD | CONF_LIVE_NODES},
    {"EpilogSlurmctld", CONF_LIVE_CTLD},
    {"InactiveLimit", CONF_LIVE_CTLD},
    {"JobFileAppend", CONF_LIVE_CTLD},
    {"JobRequeue", CONF_LIVE_CTLD},
    {"KillWait", CONF_LIVE_CTLD},
    {"MailDomain", CONF_LIVE_CTLD},
    {"MailProg", CONF_LIVE_CTLD},
    {"MaxArraySize", CONF_LIVE_CTLD},
    {"MaxJobCount", CONF_LIVE_CTLD},
    {"MaxStepCount", CONF_LIVE_CTLD},
    {"MaxTasksPerNode", CONF_LIVE_CTLD},
    {"MinJobAge", CONF_LIVE_CTLD},
    {"MpiDefault", CONF_LIVE_COMMANDS},
    {"PreemptExemptTime", CONF_LIVE_CTLD},
    {"PriorityCalcPeriod", CONF_LIVE_PRIORITY},
    {"PriorityDecayHalfLife", CONF_LIVE_PRIORITY},
    {"PriorityFavorSmall", CONF_LIVE_PRIORITY},
    {"PriorityFlags", CONF_LIVE_PRIORITY},
    {"PriorityMaxAge", CONF_LIVE_PRIORITY},
    {"PriorityUsageResetPeriod", CONF_LIVE_PRIORITY},
    {"PriorityWeightAge", CONF_LIVE_PRIORITY},
    {"PriorityWeightAssoc", CONF_LIVE_PRIORITY},
    {"PriorityWeightFairShare", CONF_LIVE_PRIORITY},
    {"PriorityWeightJobSize", CONF_LIVE_PRIORITY},
    {"PriorityWeightPartition", CONF_LIVE_PRIORITY},
    {"PriorityWeightQOS", CONF_LIVE_PRIORITY},
    {"PriorityWeightTRES", CONF_LIVE_PRIORITY},
    {"PrivateData", CONF_LIVE_CTLD},
    {"Prolog", CONF_LIVE_CTLD | CONF_LIVE_NODES},
    {"PrologEpilogTimeout", CONF_LIVE_CTLD | CONF_LIVE_NODES},
    {"PrologSlurmctld", CONF_LIVE_CTLD},
    {"RequeueExit", CONF_LIVE_CTLD},
    {"RequeueExitHold", CONF_LIVE_CTLD},
    {"ReturnToService", CONF_LIVE_CTLD},
    {"SlurmctldDebug", CONF_LIVE_CTLD},
    {"SlurmdDebug", CONF_LIVE_NODES},
    {"SlurmdTimeout", CONF_LIVE_CTLD},
    {"SrunEpilog", CONF_LIVE_COMMANDS},
    {"SrunProlog", CONF_LIVE_COMMANDS},
    {"TaskEpilog", CONF_LIVE_NODES},
    {"TaskProlog", CONF_LIVE_NODES},
    {"WaitTime", CONF_LIVE_COMMANDS},
};

unsigned conf_live_key(const char *key)
{
    for (size_t i = 0; key && i < sizeof(live_keys) / sizeof(live_keys[0]);
         i++)
        if (!strcasecmp(key, live_keys[i].key))
            return live_keys[i].who;
    return 0;
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
    if (!conf_live_key(c->key))
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

json_t *conf_changes_refused(const struct conf_change *ch, size_t n)
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
