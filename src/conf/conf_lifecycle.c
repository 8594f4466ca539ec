/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_lifecycle.c - the values of the job-lifecycle keywords that are no
 * plain numbers: OverTimeLimit= (global and on PartitionName= lines),
 * RequeueExit= and RequeueExitHold= (exit code lists), and the check that
 * FirstJobId= lies below MaxJobId=
 *
 * The keywords themselves are rows of conf_keys[] (conf.c) and
 * part_keys[] (conf_part.c); the controller applies them (docs/config.md).
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/conf.h"
#include "conf/conf_private.h"

const char *conf__parse_overtime(const char *value, uint32_t *minutes)
{
    uint32_t v;

    if (!strcasecmp(value, "UNLIMITED") || !strcasecmp(value, "INFINITE")) {
        *minutes = CONF_OVERTIME_UNLIMITED;
        return NULL;
    }
    if (conf__parse_u32(value, &v) < 0)
        return "expected minutes or UNLIMITED";
    if (v > CONF_OVERTIME_MAX)
        return "more than 65533 minutes";
    *minutes = v;
    return NULL;
}

/* One number of an exit code list at *s, 0..255; moves *s past it. */
static int exit_code_at(const char **s, unsigned *code)
{
    unsigned v = 0;
    int digits = 0;

    while (isdigit((unsigned char)**s) && digits < 4) {
        v = v * 10 + (unsigned)(**s - '0');
        (*s)++;
        digits++;
    }
    if (!digits || isdigit((unsigned char)**s) || v > 255)
        return -1;
    *code = v;
    return 0;
}

/* Walk list 'value' ("1-9,18"): each code goes into 'set' (256 bits) when
 * not NULL.  Returns 0, or -1 when the list is malformed. */
static int exit_codes_walk(const char *value, uint8_t *set)
{
    const char *s = value;

    if (!*s)
        return -1;
    for (;;) {
        unsigned lo, hi;

        if (exit_code_at(&s, &lo) < 0)
            return -1;
        hi = lo;
        if (*s == '-') {
            s++;
            if (exit_code_at(&s, &hi) < 0 || hi < lo)
                return -1;
        }
        for (unsigned c = lo; set && c <= hi; c++)
            set[c / 8] |= (uint8_t)(1u << (c % 8));
        if (!*s)
            return 0;
        if (*s++ != ',' || !*s)
            return -1;
    }
}

const char *conf__set_exit_codes(char **field, const char *value)
{
    if (exit_codes_walk(value, NULL) < 0)
        return "expected exit codes 0-255, comma-separated, with ranges "
               "such as 1-9,18";
    return conf__set_string(field, value, strlen(value)) < 0 ? "" : NULL;
}

bool conf_exit_code_listed(const char *list, int code)
{
    uint8_t set[32] = {0};

    if (!list || code < 0 || code > 255 || exit_codes_walk(list, set) < 0)
        return false;
    return set[code / 8] & (1u << (code % 8));
}

int conf__lifecycle_check(const struct slurm_conf *conf, drv_error_t *error)
{
    if (conf->first_job_id >= conf->max_job_id)
        return conf__einval(error, "%s: FirstJobId=%u is not below MaxJobId=%u",
                            conf->path, conf->first_job_id,
                            conf->max_job_id);
    return 0;
}

uint32_t conf_over_time_min(const struct slurm_conf *conf,
                            const struct conf_partition *part)
{
    if (part && part->over_time_min != CONF_OVERTIME_UNSET)
        return part->over_time_min;
    return conf->over_time_min;
}
