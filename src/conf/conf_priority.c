/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_priority.c - the Priority* keywords of slurm.conf (and
 * FairShareDampeningFactor) into struct conf_priority
 *
 * Values as slurm.conf(5) gives them: weights are numbers, times are
 * Slurm time strings (PriorityMaxAge=7-0; PriorityCalcPeriod in minutes,
 * "M:SS" kept to the second: Drover's extension, docs/compatibility.md),
 * flags a comma list.  PriorityFlags=DEPTH_OBLIVIOUS is refused: Drover
 * has Fair Tree and the classic algorithm only.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/timefmt.h"
#include "conf/conf_private.h"
#include "sched/priority.h"

static const struct flag_word prio_flag_words[] = {
    /* Slurm's print order */
    { "ACCRUE_ALWAYS", PRIO_FLAG_ACCRUE_ALWAYS, PRIO_FLAG_ACCRUE_ALWAYS },
    { "MAX_TRES", PRIO_FLAG_MAX_TRES, PRIO_FLAG_MAX_TRES },
    { "SMALL_RELATIVE_TO_TIME", PRIO_FLAG_SMALL_RELATIVE_TO_TIME,
      PRIO_FLAG_SMALL_RELATIVE_TO_TIME },
    { "CALCULATE_RUNNING", PRIO_FLAG_CALCULATE_RUNNING,
      PRIO_FLAG_CALCULATE_RUNNING },
    { "DEPTH_OBLIVIOUS", PRIO_FLAG_DEPTH_OBLIVIOUS,
      PRIO_FLAG_DEPTH_OBLIVIOUS },
    { "NO_FAIR_TREE", PRIO_FLAG_NO_FAIR_TREE, PRIO_FLAG_NO_FAIR_TREE },
    { "INCR_ONLY", PRIO_FLAG_INCR_ONLY, PRIO_FLAG_INCR_ONLY },
    { "NO_NORMAL_ASSOC", PRIO_FLAG_NO_NORMAL_ASSOC,
      PRIO_FLAG_NO_NORMAL_ASSOC },
    { "NO_NORMAL_PART", PRIO_FLAG_NO_NORMAL_PART, PRIO_FLAG_NO_NORMAL_PART },
    { "NO_NORMAL_QOS", PRIO_FLAG_NO_NORMAL_QOS, PRIO_FLAG_NO_NORMAL_QOS },
    { "NO_NORMAL_TRES", PRIO_FLAG_NO_NORMAL_TRES, PRIO_FLAG_NO_NORMAL_TRES },
    { "NO_NORMAL_ALL", 0, PRIO_FLAG_NO_NORMAL_ASSOC | PRIO_FLAG_NO_NORMAL_PART
                              | PRIO_FLAG_NO_NORMAL_QOS
                              | PRIO_FLAG_NO_NORMAL_TRES },
};
#define FLAG_WORDS (sizeof(prio_flag_words) / sizeof(prio_flag_words[0]))

static const char *const reset_words[] = {
    [CONF_RESET_NONE] = "NONE", [CONF_RESET_NOW] = "NOW",
    [CONF_RESET_DAILY] = "DAILY", [CONF_RESET_WEEKLY] = "WEEKLY",
    [CONF_RESET_MONTHLY] = "MONTHLY", [CONF_RESET_QUARTERLY] = "QUARTERLY",
    [CONF_RESET_YEARLY] = "YEARLY",
};

/* The fields the numeric keywords set. */
static uint32_t *weight_field(struct conf_priority *p, const char *key)
{
    static const struct {
        const char *key;
        size_t off;
    } w[] = {
        { "PriorityWeightAge", offsetof(struct conf_priority, weight_age) },
        { "PriorityWeightAssoc", offsetof(struct conf_priority, weight_assoc) },
        { "PriorityWeightFairshare",
          offsetof(struct conf_priority, weight_fairshare) },
        { "PriorityWeightJobSize",
          offsetof(struct conf_priority, weight_jobsize) },
        { "PriorityWeightPartition",
          offsetof(struct conf_priority, weight_partition) },
        { "PriorityWeightQOS", offsetof(struct conf_priority, weight_qos) },
        { "FairShareDampeningFactor",
          offsetof(struct conf_priority, dampening) },
    };

    for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
        if (!strcasecmp(key, w[i].key))
            return (uint32_t *)((char *)p + w[i].off);
    return NULL;
}

static const char *set_time(uint32_t *field, const char *value)
{
    int64_t secs;

    if (timefmt_parse_limit(value, &secs, NULL) < 0 || secs < 0
        || secs > UINT32_MAX)
        return "not a time (minutes, or days-hours:minutes:seconds)";
    *field = (uint32_t)secs;
    return NULL;
}

/* PriorityFlags=: the table's words; DEPTH_OBLIVIOUS is refused. */
static const char *set_flags(uint32_t *field, const char *value)
{
    uint32_t flags;
    const char *why = conf__set_flags(
        &flags, value, prio_flag_words, FLAG_WORDS,
        "expected ACCRUE_ALWAYS, CALCULATE_RUNNING, INCR_ONLY, MAX_TRES, "
        "NO_FAIR_TREE, NO_NORMAL_ALL, NO_NORMAL_ASSOC, NO_NORMAL_PART, "
        "NO_NORMAL_QOS, NO_NORMAL_TRES or SMALL_RELATIVE_TO_TIME");

    if (why)
        return why;
    if (flags & PRIO_FLAG_DEPTH_OBLIVIOUS)
        return "DEPTH_OBLIVIOUS is not supported by Drover (Fair Tree, or "
               "NO_FAIR_TREE for the classic algorithm)";
    *field = flags;
    return NULL;
}

/* PriorityWeightTRES=CPU=1000,Mem=2000,GRES/gpu=3000 */
static const char *set_tres(struct conf_priority *p, const char *value)
{
    static const char *const names[4] = { "cpu", "mem", "node", "gres/gpu" };
    uint32_t w[4] = { 0 };
    const char *s = value;
    char *copy = NULL;

    while (*s) {
        size_t n = strcspn(s, ","), eq = strcspn(s, "="), i;
        char num[16];
        if (eq >= n || n - eq - 1 == 0 || n - eq - 1 >= sizeof(num))
            return "expected TRES=weight,... (CPU=1000,Mem=2000,GRES/gpu=3000)";
        for (i = 0; i < 4; i++)
            if (strlen(names[i]) == eq && !strncasecmp(s, names[i], eq))
                break;
        if (i == 4)
            return "unknown TRES (expected CPU, Mem, Node or GRES/gpu)";
        memcpy(num, s + eq + 1, n - eq - 1);
        num[n - eq - 1] = '\0';
        if (conf__parse_u32(num, &w[i]) < 0)
            return "a TRES weight is not a number";
        s += n + (s[n] == ',');
    }
    if (*value && !(copy = strdup(value)))
        return "";
    free(p->weight_tres_text);
    p->weight_tres_text = *value ? copy : NULL;
    memcpy(p->weight_tres, w, sizeof(w));
    return NULL;
}

static const char *set_word(struct conf_priority *p, const char *key,
                            const char *value)
{
    if (!strcasecmp(key, "PriorityType")) {
        if (!strcasecmp(value, "priority/multifactor"))
            p->multifactor = true;
        else if (!strcasecmp(value, "priority/basic"))
            p->multifactor = false;
        else
            return "expected priority/basic or priority/multifactor";
        return NULL;
    }
    if (!strcasecmp(key, "PriorityFavorSmall")) {
        if (!strcasecmp(value, "YES"))
            p->favor_small = true;
        else if (!strcasecmp(value, "NO"))
            p->favor_small = false;
        else
            return "expected YES or NO";
        return NULL;
    }
    for (uint32_t i = 0; i < sizeof(reset_words) / sizeof(reset_words[0]); i++)
        if (!strcasecmp(value, reset_words[i])) {
            p->usage_reset = i;
            return NULL;
        }
    return "expected NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY";
}

const char *conf__set_priority(struct conf_priority *p, const char *key,
                               const char *value)
{
    uint32_t *w = weight_field(p, key);

    if (w)
        return conf__parse_u32(value, w) < 0 ? "not a number" : NULL;
    if (!strcasecmp(key, "PriorityMaxAge"))
        return set_time(&p->max_age_s, value);
    if (!strcasecmp(key, "PriorityDecayHalfLife"))
        return set_time(&p->decay_half_life_s, value);
    if (!strcasecmp(key, "PriorityCalcPeriod")) {
        const char *why = set_time(&p->calc_period_s, value);
        if (!why && !p->calc_period_s)
            return "must be at least 1 second";
        return why;
    }
    if (!strcasecmp(key, "PriorityFlags"))
        return set_flags(&p->flags, value);
    if (!strcasecmp(key, "PriorityWeightTRES"))
        return set_tres(p, value);
    return set_word(p, key, value);
}

void conf__priority_clear(struct conf_priority *p)
{
    free(p->weight_tres_text);
    p->weight_tres_text = NULL;
}

const char *conf_priority_reset_string(uint32_t reset)
{
    return reset < sizeof(reset_words) / sizeof(reset_words[0])
               ? reset_words[reset] : "NONE";
}

char *conf_priority_flags_string(uint32_t flags, char *buf, size_t size)
{
    return conf__flags_string(flags, prio_flag_words, FLAG_WORDS, "", buf,
                              size);
}

void conf_priority_sched(const struct conf_priority *cp,
                         struct prio_conf *out)
{
    *out = (struct prio_conf){
        .multifactor = cp->multifactor, .w_age = cp->weight_age,
        .w_assoc = cp->weight_assoc, .w_fairshare = cp->weight_fairshare,
        .w_jobsize = cp->weight_jobsize, .w_partition = cp->weight_partition,
        .w_qos = cp->weight_qos, .max_age_s = cp->max_age_s,
        .decay_half_life_s = cp->decay_half_life_s,
        .calc_period_s = cp->calc_period_s, .favor_small = cp->favor_small,
        .flags = cp->flags,
    };
    for (int t = 0; t < PRIO_TRES_COUNT; t++)
        out->w_tres[t] = cp->weight_tres[t];
}
