/* SPDX-License-Identifier: Apache-2.0
 *
 * sreport_window.h - an sreport report window, as Slurm's
 * slurmdb_report_set_start_end_time() makes it
 *
 * Shared by sreport and droverrestd's /drover/v1/utilization, so both
 * ask droverdbd for the same window given the same start= and end=.
 */
#ifndef DROVER_CMD_LIB_SREPORT_WINDOW_H
#define DROVER_CMD_LIB_SREPORT_WINDOW_H

#include <time.h>

/* 't' (epoch s) rounded to the nearest local hour, as Slurm's sreport:
 * 30 s and 30 min round up. */
time_t sreport_round_hour(time_t t);

/* Make [*start, *end) (epoch s, both set by the caller: its defaults or
 * parsed start=/end=) a report window at 'now': both rounded to the
 * nearest hour, at least one hour long, and an end after the hour in
 * progress brought back to that hour's end.  Slurm clamps the end to now
 * before rounding, which drops the hour in progress; Drover keeps it
 * (docs/compatibility.md).
 */
void sreport_window(time_t *start, time_t *end, time_t now);

#endif /* !DROVER_CMD_LIB_SREPORT_WINDOW_H */
