/* SPDX-License-Identifier: Apache-2.0
 *
 * sinfo_print.h - sinfo's rows: nodes grouped by what the format shows
 *
 * sinfo prints one row per group of nodes that look the same in the chosen
 * format: nodes of one partition (when the format shows partition fields)
 * whose per-node columns print identically.  Aggregate columns (%N node
 * list, %D count, %F and %C state counts) are computed over the group.  The
 * grouping key is therefore the printed text of the per-node columns, which
 * is what Slurm's field-by-field matching amounts to.
 */
#ifndef DROVER_CMD_LIB_SINFO_PRINT_H
#define DROVER_CMD_LIB_SINFO_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include <jansson.h>

#include "cmd/lib/format.h"

/* sinfo's formats (Slurm 22.05). */
#define SINFO_FORMAT_DEFAULT "%9P %.5a %.10l %.6D %.6t %N"
#define SINFO_FORMAT_LONG "%9P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N"
#define SINFO_FORMAT_NODE "%N %.6D %.9P %6t"
#define SINFO_FORMAT_NODE_LONG                                                 \
    "%N %.6D %.9P %.11T %4c %.8z %.6m %.8d %.6w %.8f %20E"
#define SINFO_FORMAT_SUMMARIZE "%9P %.5a %.10l %.16F %N"
#define SINFO_FORMAT_REASONS "%20E %9u %19H %N"
#define SINFO_FORMAT_REASONS_LONG "%20E %12U %19H %6t %N"

/* The column table (ends with a row whose header is NULL). */
extern const struct fmt_field sinfo_fields[];

/* One printed row. */
struct sinfo_row {
    const json_t *part;    /* the partition, NULL when the format has none */
    size_t part_index;     /* its position in the partition list */
    const json_t **nodes;  /* member nodes, in node-list order; borrowed */
    size_t nnodes;
    char *key;             /* grouping key (private) */
    size_t seq;            /* creation order (private) */
};

/* How to build rows. */
struct sinfo_opts {
    bool node_view;      /* -N: one row per node (and partition) */
    bool summarize;      /* -s: one row per partition */
    bool reasons;        /* -R: only down/drained nodes */
    const char *const *states; /* -t names; NULL-free array */
    size_t nstates;
    bool responding;     /* -r */
    bool dead;           /* -d */
    const char *sort;    /* -S: "[+|-|#]letter,..." (Slurm's sort keys;
                          * letters of the -o format), NULL: the default */
};

/* Build the rows for 'spec' from the partition_info and node_info
 * responses' arrays ('partitions' may already be filtered by -p), sorted as
 * sinfo sorts them: by opts->sort's keys, the first one first, or by
 * default by partition order, then state, busiest first (Slurm's "#P,-t"),
 * or by node name with -N ("N").  Returns the rows (free with
 * sinfo_rows_destroy()) and sets *nrows.
 */
struct sinfo_row *sinfo_rows_build(const struct fmt_spec *spec,
                                   const json_t *partitions,
                                   const json_t *nodes,
                                   const struct sinfo_opts *opts,
                                   size_t *nrows);

void sinfo_rows_destroy(struct sinfo_row *rows, size_t nrows);

/* Widen %N and %P columns to fit, as sinfo does for its built-in formats
 * (at least 9 columns).
 */
void sinfo_fit_widths(struct fmt_spec *spec, const struct sinfo_row *rows,
                      size_t nrows, bool node_field, bool part_field);

/* Print header (unless 'noheader') and rows. */
void sinfo_print(FILE *out, const struct fmt_spec *spec,
                 const struct sinfo_row *rows, size_t nrows, bool noheader);

#endif /* !DROVER_CMD_LIB_SINFO_PRINT_H */
