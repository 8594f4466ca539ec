/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_health.c - HealthCheckNodeState= and JobContainerType= values
 *
 * HealthCheckProgram and HealthCheckInterval are plain rows of conf.c's
 * table; droverd runs the program (src/noded/health.c).
 */
#include <string.h>
#include <strings.h>
#include <stdio.h>

#include "conf/conf.h"
#include "conf/conf_private.h"

/* In the order Slurm's scontrol show config prints them. */
static const struct flag_word health_words[] = {
    { "CYCLE", CONF_HEALTH_CYCLE, CONF_HEALTH_CYCLE },
    { "IDLE", CONF_HEALTH_IDLE, CONF_HEALTH_IDLE },
    { "ALLOC", CONF_HEALTH_ALLOC, CONF_HEALTH_ALLOC },
    { "MIXED", CONF_HEALTH_MIXED, CONF_HEALTH_MIXED },
    { "NONDRAINED_IDLE", CONF_HEALTH_NONDRAINED_IDLE,
      CONF_HEALTH_NONDRAINED_IDLE },
    { "ANY", 0, CONF_HEALTH_ANY },
};
#define HEALTH_WORD_COUNT (sizeof(health_words) / sizeof(health_words[0]))

const char *conf__set_health_state(uint32_t *field, const char *value)
{
    uint32_t v;
    const char *why = conf__set_flags(&v, value, health_words,
                                      HEALTH_WORD_COUNT,
                                      "expected a comma list of ALLOC, ANY, "
                                      "CYCLE, IDLE, MIXED or "
                                      "NONDRAINED_IDLE");

    if (why)
        return why;
    if (!(v & ~CONF_HEALTH_CYCLE)) /* CYCLE alone: in any state */
        v |= CONF_HEALTH_ANY;
    *field = v;
    return NULL;
}

char *conf_health_state_string(uint32_t flags, char *buf, size_t size)
{
    if ((flags & CONF_HEALTH_ANY) == CONF_HEALTH_ANY) {
        snprintf(buf, size, "%sANY",
                 flags & CONF_HEALTH_CYCLE ? "CYCLE," : "");
        return buf;
    }
    return conf__flags_string(flags, health_words, HEALTH_WORD_COUNT, "ANY",
                              buf, size);
}

const char *conf__set_job_container(char **field, const char *value)
{
    if (strcasecmp(value, "job_container/none")
        && strcasecmp(value, "job_container/tmpfs"))
        return "expected job_container/none or job_container/tmpfs";
    return conf__set_string(field, value, strlen(value)) < 0 ? "" : NULL;
}

bool conf_job_container_tmpfs(const struct slurm_conf *conf)
{
    return conf->job_container_type
           && !strcasecmp(conf->job_container_type, "job_container/tmpfs");
}
