/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_preempt.c - PreemptType, PreemptMode (global and per partition) and
 * PreemptExemptTime
 *
 * Drover preempts by cancelling (CANCEL), requeueing (REQUEUE) or
 * suspending (SUSPEND, which needs GANG in the global PreemptMode as in
 * Slurm) the preempted job.  GANG also time-slices the jobs that share
 * CPUs of OverSubscribe=FORCE or YES partitions (ctld/gang.c).
 */
#include <string.h>
#include <strings.h>

#include "common/timefmt.h"
#include "conf/conf_private.h"

static const char *const mode_names[] = {
    [CONF_PREEMPT_MODE_UNSET] = "OFF", [CONF_PREEMPT_MODE_OFF] = "OFF",
    [CONF_PREEMPT_MODE_CANCEL] = "CANCEL",
    [CONF_PREEMPT_MODE_REQUEUE] = "REQUEUE",
    [CONF_PREEMPT_MODE_SUSPEND] = "SUSPEND",
};

static const char *const type_names[] = {
    [CONF_PREEMPT_NONE] = "preempt/none",
    [CONF_PREEMPT_PARTITION_PRIO] = "preempt/partition_prio",
    [CONF_PREEMPT_QOS] = "preempt/qos",
};

static bool mode_word(const char *word, uint32_t *mode)
{
    for (uint32_t m = CONF_PREEMPT_MODE_OFF; m <= CONF_PREEMPT_MODE_SUSPEND;
         m++)
        if (!strcasecmp(word, mode_names[m])) {
            *mode = m;
            return true;
        }
    return false;
}

const char *conf_preempt_mode_parse(const char *value, uint32_t *mode,
                                    bool *gang)
{
    char word[16];
    const char *p = value;
    bool have_mode = false, have_gang = false;
    uint32_t m = CONF_PREEMPT_MODE_OFF;

    while (*p) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof(word))
            return "expected OFF, CANCEL, REQUEUE or SUSPEND, with GANG";
        memcpy(word, p, len);
        word[len] = '\0';
        if (!strcasecmp(word, "GANG") && !have_gang)
            have_gang = true;
        else if (!have_mode && mode_word(word, &m))
            have_mode = true;
        else
            return "expected OFF, CANCEL, REQUEUE or SUSPEND, with GANG";
        p += len + (p[len] == ',');
    }
    if (!have_mode && !have_gang)
        return "expected OFF, CANCEL, REQUEUE or SUSPEND, with GANG";
    *mode = m;
    if (gang)
        *gang = have_gang;
    return NULL;
}

const char *conf_preempt_mode_string(uint32_t mode)
{
    return mode <= CONF_PREEMPT_MODE_SUSPEND ? mode_names[mode] : "OFF";
}

const char *conf_preempt_type_string(uint32_t type)
{
    return type <= CONF_PREEMPT_QOS ? type_names[type] : "preempt/none";
}

const char *conf__set_preempt(struct slurm_conf *conf, const char *key,
                              const char *value)
{
    if (!strcasecmp(key, "PreemptMode"))
        return conf_preempt_mode_parse(value, &conf->preempt_mode,
                                       &conf->preempt_gang);
    if (!strcasecmp(key, "PreemptExemptTime")) {
        int64_t secs;
        if (timefmt_parse_limit(value, &secs, NULL) < 0 || secs < 0
            || secs > UINT32_MAX)
            return "not a time (minutes, or days-hours:minutes:seconds)";
        conf->preempt_exempt_s = (uint32_t)secs;
        return NULL;
    }
    for (uint32_t t = 0; t <= CONF_PREEMPT_QOS; t++)
        if (!strcasecmp(value, type_names[t])) {
            conf->preempt_type = t;
            return NULL;
        }
    return "expected preempt/none, preempt/partition_prio or preempt/qos";
}

int conf__preempt_check(const struct slurm_conf *conf, drv_error_t *error)
{
    bool suspend = conf->preempt_mode == CONF_PREEMPT_MODE_SUSPEND;

    for (size_t i = 0; i < conf->partition_count; i++)
        suspend |= conf->partitions[i].preempt_mode
                   == CONF_PREEMPT_MODE_SUSPEND;
    if (suspend && !conf->preempt_gang)
        return conf__einval(error, "%s: PreemptMode=SUSPEND requires GANG too"
                            " (PreemptMode=SUSPEND,GANG)", conf->path);
    return 0;
}
