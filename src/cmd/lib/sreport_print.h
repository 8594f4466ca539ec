/* SPDX-License-Identifier: Apache-2.0
 *
 * sreport_print.h - sreport's reports as Slurm 22.05 prints them
 *
 * A header block between two 80-dash rules ("Cluster Utilization START -
 * END", "Usage reported in CPU Minutes"), then print_fields columns:
 * right-justified, cut with '+', usage columns as wide as their largest
 * value needs (8 at least, 9 more for the "Per" formats); -p / -P
 * '|'-separated.  The data is acct_usage_report's answer
 * (docs/protocol.md, "Usage reports").
 */
#ifndef DROVER_CMD_LIB_SREPORT_PRINT_H
#define DROVER_CMD_LIB_SREPORT_PRINT_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "cmd/lib/format.h"
#include "common/error.h"

/* -t values (Slurm's SLURMDB_REPORT_TIME_*). */
enum sreport_time {
    SREPORT_SECS,
    SREPORT_MINS,
    SREPORT_HOURS,
    SREPORT_PERCENT,
    SREPORT_SECS_PER,
    SREPORT_MINS_PER,
    SREPORT_HOURS_PER,
};

/* Parse a -t value as Slurm does (case-insensitive prefixes: "s", "min",
 * "Hours", "SecPer", "MinPer", "HourPer", "p").  Returns 0, or -1 with
 * errno EINVAL.
 */
int sreport_time_parse(const char *s, enum sreport_time *out);

/* The words of "Usage reported in CPU <name>" ("Minutes", "Percentage of
 * Total", "Hours/Percentage of Total"...).  Static. */
const char *sreport_time_name(enum sreport_time t);

/* 'value' TRES-seconds as -t prints it, relative to 'total' for the
 * percentages (0 counts as 1): "90", "1.50%", "2(0.05%)".  Caller frees.
 */
char *sreport_time_str(enum sreport_time t, uint64_t value, uint64_t total);

struct sreport_out {
    int parsable;            /* 0; 1: -p ("a|b|"); 2: -P ("a|b") */
    bool noheader;           /* -n: no header block, no column titles */
    enum sreport_time time;  /* -t */
    bool tres_given;         /* --tres: TRES Name column, "TRES" units */
    const char *const *tres; /* TRES to show, in order */
    size_t ntres;
    int64_t top_count;       /* user topusage: TopCount (the title) */
};

/* Print acct_usage_report answer 'ans' (its "report" says which) with
 * 'format' (Slurm's format= list, "Name%W" widths; NULL: the report's
 * default) into 'out'.  Returns 0, or -1 with errno EINVAL and 'error'
 * " Unknown field 'X'" for a field the report does not have.
 */
int sreport_print(struct fmt_buf *out, json_t *ans, const char *format,
                  const struct sreport_out *o, drv_error_t *error);

#endif /* !DROVER_CMD_LIB_SREPORT_PRINT_H */
