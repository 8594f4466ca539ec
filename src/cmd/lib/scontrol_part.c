/* SPDX-License-Identifier: Apache-2.0
 *
 * scontrol_part.c - the words of scontrol create|update partition: Slurm
 * 22.05 scontrol's keys (update_part.c's abbreviations, in its order) to
 * slurm.conf's keywords, its value prefixes to the values slurm.conf
 * takes, then the values checked by conf_partition_update(), which the
 * controller applies them with
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/lib/opt.h"
#include "cmd/lib/scontrol_part.h"
#include "conf/conf.h"

enum value_kind {
    V_TEXT,    /* as given */
    V_YESNO,   /* a prefix of YES or NO */
    V_STATE,   /* a prefix of INACTIVE, DOWN, UP or DRAIN (Slurm's order) */
    V_OVERSUB, /* a prefix of NO, EXCLUSIVE, YES or FORCE, then :N */
    V_TIME,    /* MaxTime, DefaultTime: Slurm's "Invalid input K=V" */
};

/* A key of Slurm's scontrol update partition: the shortest abbreviation
 * it takes, and slurm.conf's keyword (NULL: PartitionName). */
static const struct part_word {
    const char *name;
    size_t min;
    const char *keyword;
    enum value_kind kind;
} words[] = {
    {"PartitionName", 2, NULL, V_TEXT},
    {"MaxTime", 4, "MaxTime", V_TIME},
    {"CpuBind", 7, "CpuBind", V_TEXT},
    {"DefaultTime", 8, "DefaultTime", V_TIME},
    {"MaxCPUsPerNode", 4, "MaxCPUsPerNode", V_TEXT},
    {"MaxNodes", 4, "MaxNodes", V_TEXT},
    {"MinNodes", 2, "MinNodes", V_TEXT},
    {"Default", 7, "Default", V_YESNO},
    {"DisableRootJobs", 1, "DisableRootJobs", V_YESNO},
    {"ExclusiveUser", 1, "ExclusiveUser", V_YESNO},
    {"Hidden", 1, "Hidden", V_YESNO},
    {"LLN", 1, "LLN", V_YESNO},
    {"RootOnly", 3, "RootOnly", V_YESNO},
    {"ReqResv", 3, "ReqResv", V_YESNO},
    {"OverSubscribe", 5, "OverSubscribe", V_OVERSUB},
    {"Shared", 2, "OverSubscribe", V_OVERSUB},
    {"OverTimeLimit", 5, "OverTimeLimit", V_TEXT},
    {"PreemptMode", 3, "PreemptMode", V_TEXT},
    {"Priority", 3, "PriorityTier", V_TEXT}, /* and PriorityJobFactor */
    {"PriorityJobFactor", 3, "PriorityJobFactor", V_TEXT},
    {"PriorityTier", 3, "PriorityTier", V_TEXT},
    {"State", 2, "State", V_STATE},
    {"Nodes", 1, "Nodes", V_TEXT},
    {"AllowGroups", 6, "AllowGroups", V_TEXT},
    {"AllowAccounts", 6, "AllowAccounts", V_TEXT},
    {"AllowQos", 6, "AllowQos", V_TEXT},
    {"DenyAccounts", 5, "DenyAccounts", V_TEXT},
    {"DenyQos", 5, "DenyQos", V_TEXT},
    {"AllocNodes", 6, "AllocNodes", V_TEXT},
    {"Alternate", 3, "Alternate", V_TEXT},
    {"GraceTime", 5, "GraceTime", V_TEXT},
    {"DefMemPerCPU", 10, "DefMemPerCPU", V_TEXT},
    {"DefMemPerNode", 10, "DefMemPerNode", V_TEXT},
    {"MaxMemPerCPU", 10, "MaxMemPerCPU", V_TEXT},
    {"MaxMemPerNode", 10, "MaxMemPerNode", V_TEXT},
    {"QoS", 3, "QOS", V_TEXT},
    {"JobDefaults", 4, "JobDefaults", V_TEXT},
    {"TresBillingWeights", 1, "TRESBillingWeights", V_TEXT},
    /* slurm.conf's, which Slurm's scontrol sets through JobDefaults= */
    {"DefCpuPerGPU", 12, "DefCpuPerGPU", V_TEXT},
    {"DefMemPerGPU", 12, "DefMemPerGPU", V_TEXT},
};

/* Slurm's xstrncasecmp(tag, name, MAX(taglen, min)) == 0. */
static bool abbrev(const char *word, size_t len, const char *full,
                   size_t min)
{
    return len >= min && len <= strlen(full)
           && !strncasecmp(word, full, len);
}

static const struct part_word *word_find(const char *key, size_t len)
{
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
        if (abbrev(key, len, words[i].name, words[i].min))
            return &words[i];
    return NULL;
}

/* The first of 'names' that 'val' (its first 'len' bytes) is a prefix
 * of, Slurm's MAX(vallen, 1). */
static const char *prefix_of(const char *val, size_t len,
                             const char *const names[])
{
    for (size_t i = 0; names[i]; i++)
        if (abbrev(val, len, names[i], 1))
            return names[i];
    return NULL;
}

static int invalid(const char *prog, const char *arg, const char *accept)
{
    cmd_error(prog, "Invalid input: %s", arg);
    cmd_error(prog, "%s", accept);
    return -1;
}

/* The value slurm.conf takes for 'val' of a word of kind 'kind' into
 * 'out' (Slurm's messages for one it refuses). */
static int value_of(const char *prog, const struct part_word *w,
                    const char *arg, const char *val, char *out, size_t size)
{
    static const char *const yesno[] = {"NO", "YES", NULL};
    static const char *const states[] = {"INACTIVE", "DOWN", "UP", "DRAIN",
                                         NULL};
    static const char *const shares[] = {"NO", "EXCLUSIVE", "YES", "FORCE",
                                         NULL};
    char what[96];
    const char *v;
    size_t len;

    switch (w->kind) {
    case V_YESNO:
        if (!(v = prefix_of(val, strlen(val), yesno))) {
            snprintf(what, sizeof(what), "Acceptable %s values are YES and "
                     "NO", w->name);
            return invalid(prog, arg, what);
        }
        snprintf(out, size, "%s", v);
        return 0;
    case V_STATE:
        if (!(v = prefix_of(val, strlen(val), states)))
            return invalid(prog, arg, "Acceptable State values are UP, "
                                      "DOWN, DRAIN and INACTIVE");
        snprintf(out, size, "%s", v);
        return 0;
    case V_OVERSUB:
        len = strcspn(val, ":");
        if (!(v = prefix_of(val, len, shares)))
            return invalid(prog, arg, "Acceptable OverSubscribe values are "
                                      "NO, EXCLUSIVE, YES:#, and FORCE:#");
        /* NO and EXCLUSIVE take no count (Slurm ignores one) */
        snprintf(out, size, "%s%s", v,
                 v[0] == 'Y' || v[0] == 'F' ? val + len : "");
        return 0;
    default:
        snprintf(out, size, "%s", val);
        return 0;
    }
}

/* The settings checked as the controller will read them. */
static int check(const char *prog, json_t *set,
                 const char *const args[])
{
    const char *keys[64], *values[64], *k;
    struct conf_partition scratch;
    drv_error_t error = {{0}};
    json_t *v;
    size_t n = 0;
    int rc;

    json_object_foreach(set, k, v) {
        if (n == 64)
            break;
        keys[n] = k;
        values[n++] = json_string_value(v);
    }
    if (conf_partition_init(NULL, &scratch, "scontrol", &error) < 0) {
        cmd_error(prog, "%s", error.text);
        return -1;
    }
    rc = conf_partition_update(NULL, &scratch, n, keys, values, &error);
    conf_partition_clear(&scratch);
    if (rc == 0)
        return 0;
    if (errno == ENOTSUP) {
        cmd_error(prog, "Update of this parameter is not supported by "
                  "Drover: %s", error.text);
        cmd_error(prog, "Request aborted");
    } else if (errno == EINVAL && !strncmp(error.text, "MaxTime=", 8)) {
        cmd_error(prog, "Invalid input %s", args[0]);
    } else if (errno == EINVAL && !strncmp(error.text, "DefaultTime=", 12)) {
        cmd_error(prog, "Invalid input %s", args[1]);
    } else {
        cmd_error(prog, "Invalid input: %s", error.text);
    }
    return -1;
}

int scontrol_part_parse(const char *prog, int argc, char **argv, bool create,
                        json_t **body)
{
    json_t *set = json_object();
    const char *name = NULL, *args[2] = {"", ""};
    char value[1024];
    int count = 0;

    *body = NULL;
    for (int i = 0; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        const struct part_word *w;
        if (!eq) {
            cmd_error(prog, "Invalid input: %s  Request aborted", argv[i]);
            goto fail;
        }
        if (!(w = word_find(argv[i], (size_t)(eq - argv[i])))) {
            /* Slurm's text, its newline and all */
            cmd_error(prog, "Update of this parameter is not supported: "
                      "%s\n", argv[i]);
            cmd_error(prog, "Request aborted");
            goto fail;
        }
        count++;
        if (!w->keyword) {
            name = eq + 1;
            continue;
        }
        if (value_of(prog, w, argv[i], eq + 1, value, sizeof(value)) < 0)
            goto fail;
        if (w->kind == V_TIME)
            args[strcmp(w->keyword, "MaxTime") ? 1 : 0] = argv[i];
        json_object_set_new(set, w->keyword, json_string(value));
        if (!strcmp(w->name, "Priority"))
            json_object_set_new(set, "PriorityJobFactor", json_string(value));
    }
    if (!name) {
        cmd_error(prog, "PartitionName must be given.");
        goto fail;
    }
    if (create && !strcasecmp(name, "default")) {
        cmd_error(prog, "PartitionName cannot be \"DEFAULT\".");
        goto fail;
    }
    if (!create && count <= 1) {
        cmd_error(prog, "No changes specified");
        goto fail;
    }
    if (check(prog, set, args) < 0)
        goto fail;
    *body = json_pack("{s:s s:o}", "name", name, "set", set);
    return 0;
fail:
    json_decref(set);
    return -1;
}
