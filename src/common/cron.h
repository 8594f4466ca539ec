/* SPDX-License-Identifier: Apache-2.0
 *
 * cron.h - crontab time specifications and their next matching time
 *
 * The five fields of crontab(5) (minute hour day-of-month month
 * day-of-week) as scrontab(1) of Slurm 22.05 takes them: numbers, ranges
 * ("1-5"), steps ("*\/15", "0-30/10", "5/10": 5 to the field's end),
 * comma lists, month names (jan..dec) and day names (sun..sat, 7 is
 * Sunday too), case-insensitive, and the shortcuts @yearly @annually
 * @monthly @weekly @daily @midnight @hourly.  Day of month and day of week
 * follow cron's rule: when both are restricted (neither starts with '*'),
 * a day matches if either does; otherwise both must.  Times are local
 * time, as cron's.  Pure: no clock is read.
 */
#ifndef DROVER_COMMON_CRON_H
#define DROVER_COMMON_CRON_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/error.h"

struct cron_spec {
    uint64_t minute;       /* bit m: minute m matches (0..59) */
    uint32_t hour;         /* bit h (0..23) */
    uint32_t mday;         /* bit d (1..31) */
    uint16_t month;        /* bit m (1..12) */
    uint8_t wday;          /* bit d (0..6, 0 Sunday) */
    bool mday_star;        /* the day-of-month field started with '*' */
    bool wday_star;        /* the day-of-week field started with '*' */
};

/* Parse the time specification at the start of crontab line 'line' into
 * *spec.  *spec_len receives the length of the specification text (the
 * five fields or the @shortcut, without the blanks after it) and *cmd the
 * offset of the command after it (the first non-blank).  An entry without
 * a command is an error.  Returns 0, or -1 with errno EINVAL and 'error'
 * naming the field and the bad text ("day of week: 'fri-mon' is not a
 * valid range").
 */
int cron_parse(const char *line, struct cron_spec *spec, size_t *spec_len,
               size_t *cmd, drv_error_t *error);

/* The first whole minute strictly after 'after' (seconds since the epoch)
 * that 'spec' matches, in local time; -1 when none does within the next
 * eight years (a day that never comes, e.g. "0 0 30 2 *").
 */
time_t cron_next(const struct cron_spec *spec, time_t after);

#endif /* !DROVER_COMMON_CRON_H */
