/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_preempt.c - PreemptType, PreemptMode (global and per partition) and
 * PreemptExemptTime
 *
 * Drover preempts by cancelling (CANCEL) or requeueing (REQUEUE) the
 * preempted job; SUSPEND and GANG (time slicing) are refused with a
 * message, so a configuration that relies on them does not start silently
 * doing something else.
 */
#include <string.h>
#include <strings.h>

#include "common/timefmt.h"
#include "conf/conf_private.h"

static const char *const mode_names[] = {
    [CONF_PREEMPT_MODE_UNSET] = "OFF", [CONF_PREEMPT_MODE_OFF] = "OFF",
    [CONF_PREEMPT_MODE_CANCEL] = "CANCEL",
    [CONF_PREEMPT_MODE_REQUEUE] = "REQUEUE",
};

static const char *const type_names[] = {
    [CONF_PREEMPT_NONE] = "preempt/none",
    [CONF_PREEMPT_PARTITION_PRIO] = "preempt/partition_prio",
    [CONF_PREEMPT_QOS] = "preempt/qos",
};

const char *conf_preempt_mode_parse(const char *value, uint32_t *mode)
{
    for (uint32_t m = CONF_PREEMPT_MODE_OFF; m <= CONF_PREEMPT_MODE_REQUEUE;
         m++)
        if (!strcasecmp(value, mode_names[m])) {
            *mode = m;
            return NULL;
        }
    if (strcasestr(value, "SUSPEND") || strcasestr(value, "GANG"))
        return "SUSPEND and GANG are not supported by Drover (use REQUEUE "
               "or CANCEL)";
    return "expected OFF, CANCEL or REQUEUE";
}

const char *conf_preempt_mode_string(uint32_t mode)
{
    return mode <= CONF_PREEMPT_MODE_REQUEUE ? mode_names[mode] : "OFF";
}

const char *conf_preempt_type_string(uint32_t type)
{
    return type <= CONF_PREEMPT_QOS ? type_names[type] : "preempt/none";
}

const char *conf__set_preempt(struct slurm_conf *conf, const char *key,
                              const char *value)
{
    if (!strcasecmp(key, "PreemptMode"))
        return conf_preempt_mode_parse(value, &conf->preempt_mode);
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
