/* SPDX-License-Identifier: Apache-2.0
 *
 * sacct_filter.h - sacct's options as droverdbd's acct_job_query filter
 *
 * The filter's keys are in docs/protocol.md ("Accounting daemon"); every
 * selection runs in droverdbd's query, none after the answer comes back.
 */
#ifndef DROVER_CMD_LIB_SACCT_FILTER_H
#define DROVER_CMD_LIB_SACCT_FILTER_H

#include <stdbool.h>
#include <time.h>

#include <jansson.h>

#include "cmd/lib/sacct_print.h"

/* The selecting options as given (borrowed strings; NULL: not given). */
struct sacct_query_opts {
    const char *jobs, *users, *groups, *accounts, *partitions, *names;
    const char *states, *start, *end, *qos, *nodelist, *nnodes, *ncpus;
    const char *timelimit_min, *timelimit_max, *assoc_ids;
    bool all_users, duplicates, truncate;
};

/* The acct_job_query filter for 'q' at time 'now' (epoch seconds), with
 * Slurm's sacct defaults: the window starts at 00:00 today ("now" with -s,
 * none with -j and no -S) and ends now; every user's jobs for root, -a,
 * -j or -N without -u, else the caller's own.  The -j specs go to *specs
 * (xzalloc'd array of *nspecs, caller frees) for the step selection.
 * Returns a new reference.  Bad input prints Slurm's message for that
 * option on stderr as 'prog' and exits 1 (sacct's behaviour): a bad job
 * id, state, user, group, time, node or cpu range, time limit or node
 * list.
 */
json_t *sacct_filter_build(const struct sacct_query_opts *q, const char *prog,
                           time_t now, struct sacct_jobspec **specs,
                           size_t *nspecs);

/* Parse sacct's -i/-I "N" or "min-max" (Slurm's get_resource_arg_range()):
 * out[0] = min, out[1] = max (max = min for "N").  Returns 0, or -1 for an
 * empty, non-numeric, negative or inverted range.
 */
int sacct_range_parse(const char *s, long long out[2]);

/* Print sacct -v's lines on stderr as 'prog' for 'filter', built from 'q'
 * (verbosity 'level', the count of -v), as Slurm's sacct logs them: from
 * 1, "sacct: Jobs eligible from <start> - <end, or Now without -E>"; from
 * 3 (debug2), the clusters ('cluster', the local one, or "all" when the
 * filter names none), users, groups, partitions and job names requested.
 */
void sacct_filter_verbose(const struct sacct_query_opts *q,
                          const json_t *filter, int level,
                          const char *cluster, const char *prog);

#endif /* !DROVER_CMD_LIB_SACCT_FILTER_H */
