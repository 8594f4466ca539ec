/* SPDX-License-Identifier: Apache-2.0
 *
 * timefmt.h - Slurm's time limit and timestamp formats
 *
 * Time limits are whole minutes on the command line ("MM", "MM:SS",
 * "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS", "UNLIMITED"/"INFINITE"),
 * held as seconds here.
 */
#ifndef DROVER_COMMON_TIMEFMT_H
#define DROVER_COMMON_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/error.h"

/* "No limit" in seconds, as Slurm's INFINITE. */
#define TIME_INFINITE ((int64_t)-1)

/* Parse a time limit as Slurm's time_str2mins(): "MM" and "MM:SS" are
 * minutes[:seconds], "HH:MM:SS", "D-HH", "D-HH:MM", "D-HH:MM:SS";
 * "UNLIMITED", "INFINITE" and "-1" give TIME_INFINITE.
 * Stores seconds in *secs.  Returns 0, or -1 with errno=EINVAL and 'error'
 * naming the bad text.  Sub-minute values are kept in seconds (Slurm rounds
 * up to the minute when it stores minutes; callers may round).
 */
int timefmt_parse_limit(const char *s, int64_t *secs, drv_error_t *error);

/* Format seconds as squeue/scontrol do: "M:SS", "H:MM:SS", "D-HH:MM:SS"
 * (scontrol's zero-padded "HH:MM:SS" when 'padded'), "UNLIMITED" for
 * TIME_INFINITE and "INVALID" for other negative values.  Writes into buf
 * (size bytes, 32 is always enough) and returns buf.
 *   squeue TIME column:   0:05, 1:02:03, 1-00:00:00  (padded=0)
 *   scontrol RunTime:     00:00:05, 1-00:00:00        (padded=1)
 */
char *timefmt_duration(int64_t secs, int padded, char *buf, size_t size);

/* Format a time limit for squeue/sinfo TIME_LIMIT columns: like
 * timefmt_duration(padded=0) but "UNLIMITED" for TIME_INFINITE; sinfo uses
 * "infinite" (pass lower=1).
 */
char *timefmt_limit(int64_t secs, int lower, char *buf, size_t size);

/* Format an epoch time as Slurm's "YYYY-MM-DDTHH:MM:SS" in local time;
 * 0 gives "Unknown" (or "None" when none_for_zero).  Returns buf.
 */
char *timefmt_stamp(time_t t, int none_for_zero, char *buf, size_t size);

#endif /* !DROVER_COMMON_TIMEFMT_H */
