/* SPDX-License-Identifier: Apache-2.0
 *
 * sim_sacct.h - drover-sim --from-accounting with a date range: the range
 * as sacct's -S/-E, and running our sacct to get the jobs as JSON
 */
#ifndef DROVER_CMD_SIM_SACCT_H
#define DROVER_CMD_SIM_SACCT_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

/* Room for "YYYY-MM-DDTHH:MM:SS" and its NUL. */
#define SIM_SACCT_TIME_LEN 20

/* Whether 'source' is a month or a date, or a range of them: "2026-10"
 * (that month), "2026-10-01" (that day), "2026-10-01..2026-10-15" or
 * "2026-09..2026-10" (from the start of the first to the end of the
 * last, both included).  If so, fills 'start' and 'end' with sacct -S
 * and -E times ("2026-10-01T00:00:00", "2026-11-01T00:00:00": the end is
 * the start of the day or month after the last) and returns true.  Pure:
 * no clock, no time zone.  A string shaped like a range but not a valid
 * one (month 13, the end before the start) returns false with the reason
 * in 'error'; anything else returns false with error->text empty.
 */
bool sim_sacct_range(const char *source, char start[SIM_SACCT_TIME_LEN],
                     char end[SIM_SACCT_TIME_LEN], drv_error_t *error);

/* Run `sacct --json -a -X -S start -E end`: the sacct beside this
 * program (/proc/self/exe's directory), else the one on PATH.  It reads
 * the accounting of the cluster its environment names (DROVER_CONF), and
 * its stderr goes to ours.  Returns its standard output (caller frees;
 * *len bytes, NUL-terminated), or NULL with the reason in 'error' (it
 * could not be started, or exited non-zero or on a signal).
 */
char *sim_sacct_run(const char *start, const char *end, size_t *len,
                    drv_error_t *error);

#endif /* !DROVER_CMD_SIM_SACCT_H */
