/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_sched.c - SchedulerParameters= (slurm.conf(5)): a table of the
 * options Drover knows
 *
 * max_script_size, bf_max_job_test, bf_max_job_user, bf_max_job_part,
 * bf_max_job_start, bf_window (minutes), bf_resolution (seconds), enable_user_top and
 * Drover's own drover_backfill=predict|slurm take effect;
 * bf_interval, default_queue_depth, bf_continue and defer are accepted and
 * change nothing (one Drover pass plans the whole queue, and never per
 * submission).  Other options of Slurm's are logged as ignored, naming
 * them; a bad number is an error.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "conf/conf_private.h"

static const struct {
    const char *name;
    size_t off;      /* uint32_t field; bools below */
    uint32_t scale;  /* value times this (minutes to seconds) */
    uint32_t max;    /* 0: UINT32_MAX */
} opts[] = {
    { "max_script_size", offsetof(struct conf_sched, max_script_size), 1,
      CONF_MAX_SCRIPT_SIZE_MAX },
    { "bf_max_job_test", offsetof(struct conf_sched, bf_max_job_test), 1, 0 },
    { "bf_max_job_user", offsetof(struct conf_sched, bf_max_job_user), 1, 0 },
    { "bf_max_job_part", offsetof(struct conf_sched, bf_max_job_part), 1, 0 },
    { "bf_window", offsetof(struct conf_sched, bf_window_s), 60, 43200 },
    { "bf_resolution", offsetof(struct conf_sched, bf_resolution_s), 1, 3600 },
    { "bf_interval", offsetof(struct conf_sched, bf_interval_s), 1, 10800 },
    { "bf_max_job_start", offsetof(struct conf_sched, bf_max_job_start), 1,
      10000 },
    { "default_queue_depth",
      offsetof(struct conf_sched, default_queue_depth), 1, 0 },
};

/* drover_backfill=VALUE (n bytes of it).  Returns 0, or -1 when VALUE is
 * neither "predict" nor "slurm". */
static int set_backfill(struct conf_sched *s, const char *value, size_t n)
{
    if (n == 7 && !strncasecmp(value, "predict", 7))
        s->drover_backfill = CONF_BACKFILL_PREDICT;
    else if (n == 5 && !strncasecmp(value, "slurm", 5))
        s->drover_backfill = CONF_BACKFILL_SLURM;
    else
        return -1;
    return 0;
}

const char *conf__set_sched_params(struct conf_sched *s, const char *value)
{
    struct conf_sched out = { .max_script_size = CONF_MAX_SCRIPT_SIZE_DEFAULT,
                              .bf_interval_s = 30 };
    static char why[128];

    while (*value) {
        size_t n = strcspn(value, ","), k = strcspn(value, "=");
        size_t i;
        bool *flag = NULL;
        if (k > n)
            k = n;
        if (k == 11 && !strncasecmp(value, "bf_continue", 11))
            flag = &out.bf_continue;
        else if (k == 5 && !strncasecmp(value, "defer", 5))
            flag = &out.defer;
        else if (k == 15 && !strncasecmp(value, "enable_user_top", 15))
            flag = &out.enable_user_top;
        for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
            if (strlen(opts[i].name) == k
                && !strncasecmp(value, opts[i].name, k))
                break;
        if (k == 15 && !strncasecmp(value, "drover_backfill", 15)) {
            if (k >= n || set_backfill(&out, value + k + 1, n - k - 1) < 0) {
                snprintf(why, sizeof(why),
                         "drover_backfill: not predict or slurm");
                return why;
            }
        } else if (i < sizeof(opts) / sizeof(opts[0])) {
            char num[16] = "";
            uint32_t v;
            if (k >= n || n - k - 1 >= sizeof(num)) {
                snprintf(why, sizeof(why), "%s: not a number", opts[i].name);
                return why;
            }
            memcpy(num, value + k + 1, n - k - 1);
            if (conf__parse_u32(num, &v) < 0
                || (opts[i].max && v > opts[i].max)) {
                snprintf(why, sizeof(why), "%s: not a number%s",
                         opts[i].name, opts[i].max ? " in range" : "");
                return why;
            }
            *(uint32_t *)((char *)&out + opts[i].off) = v * opts[i].scale;
        } else if (flag) {
            *flag = true;
        } else {
            log_error("SchedulerParameters: option '%.*s' is not supported "
                      "by Drover; ignored", (int)k, value);
        }
        value += n + (value[n] == ',');
    }
    *s = out;
    return NULL;
}
