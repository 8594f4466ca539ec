/* SPDX-License-Identifier: Apache-2.0
 *
 * squeue_print.h - squeue's columns, filters and sort order
 *
 * Library code so that unit tests can feed job records (docs/protocol.md)
 * through exactly what squeue prints.
 */
#ifndef DROVER_CMD_LIB_SQUEUE_PRINT_H
#define DROVER_CMD_LIB_SQUEUE_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <jansson.h>

#include "cmd/lib/format.h"

/* squeue's default and -l formats (Slurm 22.05). */
#define SQUEUE_FORMAT_DEFAULT "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
#define SQUEUE_FORMAT_LONG "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"
#define SQUEUE_FORMAT_START "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R"
#define SQUEUE_FORMAT_STEPS "%.15i %.8j %.9P %.8u %.9M %N"

/* Passed to every printer as 'ctx'. */
struct squeue_ctx {
    time_t now;     /* the controller's clock, from the response */
    bool noconvert; /* --noconvert: memory stays in MiB ("2048M") */
};

/* The column table (ends with a row whose header is NULL). */
extern const struct fmt_field squeue_fields[];

/* Columns of squeue -s: one record per job step, a row of
 * squeue_step_rows(). */
extern const struct fmt_field squeue_step_fields[];

/* squeue -s rows of 'jobs' (sorted already): for each job, its running
 * steps in the job's order (the batch step first, as Slurm lists them),
 * each a copy of the job with "step_id", "step_name", "step_nodes" and
 * the step's "start_time".  A job record without "steps" gives one row,
 * itself: its batch step on the batch host.  Returns a new array (caller
 * decrefs); the rows are valid while it is. */
json_t *squeue_step_rows(const json_t *const *jobs, size_t n);

/* The job keys (space-separated, "" for none) the printer of 'field'
 * reads; NULL for a field of neither squeue table.
 */
const char *squeue_field_keys(const struct fmt_field *field);

/* Append to 'keys' (a JSON array of strings) each space-separated key of
 * 'list' it does not hold yet; NULL adds nothing.
 */
void squeue_keys_add(json_t *keys, const char *list);

/* The job_info "fields" squeue needs to print 'spec' sorted by 'sort'
 * (NULL: the default): the columns' keys, the sort keys and what
 * selection and array folding read.  A new JSON array.
 */
json_t *squeue_wanted_keys(const struct fmt_spec *spec, const char *sort);

/* Which jobs to show.  Empty lists select everything. */
struct squeue_filter {
    const uint32_t *job_ids;
    const long *job_tasks;  /* per job id: its "_N" task, or -1; may be NULL */
    size_t njob_ids;
    const uid_t *uids;
    size_t nuids;
    bool users_given;       /* -u given, even if no name resolved */
    const int *states;      /* job_state_t values */
    size_t nstates;
    bool all_states;        /* -t all */
    const char *const *partitions;
    size_t npartitions;
    const char *const *names;
    size_t nnames;
};

/* True when 'job' passes 'f'.  Without -t (or with -t all unset) only
 * PD, R, S and CG jobs pass, as in squeue.
 */
bool squeue_job_selected(const json_t *job, const struct squeue_filter *f);

/* Check a -S sort specification ("P,t,-p", "i", "-V").  Returns 0, or -1
 * with *bad set to the last letter squeue does not know (Slurm applies the
 * keys from the last one and stops at the first it does not know).
 */
int squeue_sort_check(const char *spec, char *bad);

/* Sort 'jobs' (an array of borrowed records) by 'spec' (NULL: squeue's
 * default "P,t,-p": partition, state code, priority descending).  The sort
 * is stable, so equal jobs keep the controller's order.
 */
void squeue_sort(const json_t **jobs, size_t n, const char *spec, time_t now);

/* Print the header (unless 'noheader') and one line per job to 'out'. */
void squeue_print(FILE *out, const struct fmt_spec *spec, const json_t **jobs,
                  size_t n, const struct squeue_ctx *ctx, bool noheader);

#endif /* !DROVER_CMD_LIB_SQUEUE_PRINT_H */
