/* SPDX-License-Identifier: Apache-2.0
 *
 * sacct_print.h - sacct's fields, job ids and output layouts
 *
 * Records are droverdbd's accounting job records (docs/protocol.md,
 * "Accounting job record"), each with its steps.  One job becomes a row for
 * the job and a row per step (unless -X); each field prints a value for
 * either kind of row.  The layout is Slurm 22.05's print_fields: columns
 * of a fixed width each followed by a space, text longer than its column
 * cut with a '+' in the last place, numbers never cut; -p/-P are
 * '|'-separated with (-p) or without (-P) a trailing delimiter.
 */
#ifndef DROVER_CMD_LIB_SACCT_PRINT_H
#define DROVER_CMD_LIB_SACCT_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "cmd/lib/format.h"

/* Slurm's special step ids (step records' "step_id"). */
#define SACCT_STEP_BATCH 4294967291LL       /* 0xfffffffb */
#define SACCT_STEP_EXTERN 4294967292LL      /* 0xfffffffc */
#define SACCT_STEP_INTERACTIVE 4294967290LL /* 0xfffffffa */
#define SACCT_STEP_NONE (-1LL)              /* a job id without a step */

/* The default columns, -b and -l (Slurm 22.05's lists). */
#define SACCT_FORMAT_DEFAULT \
    "JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode"
#define SACCT_FORMAT_BRIEF "JobID,State,ExitCode"
extern const char *const sacct_format_long;

/* What printing needs besides the records. */
struct sacct_ctx {
    time_t now;          /* the dbd's "now": Elapsed of running jobs */
    const char *cluster; /* for Cluster when a record has none; may be NULL */
    char units;          /* --units: 'K','M','G','T','P', 0: sacct's own */
    bool noconvert;      /* --noconvert: sizes as stored */
};

/* One output row: a job, or one of its steps. */
struct sacct_row {
    const json_t *job;  /* borrowed accounting job record */
    const json_t *step; /* borrowed step record, NULL for the job's row */
};

typedef void (*sacct_print_f)(struct fmt_buf *out, const struct sacct_row *row,
                              const struct sacct_ctx *ctx);

struct sacct_field {
    const char *name;    /* Slurm's field name, also the header */
    int width;           /* default width; negative: left-justified */
    sacct_print_f print; /* NULL: a field Drover has no data for (blank) */
    bool number;         /* numbers are never cut to the width */
};

/* The field table, in Slurm's (alphabetical) order; ends with name NULL. */
extern const struct sacct_field sacct_fields[];

struct sacct_col {
    const struct sacct_field *field;
    int width; /* as in struct sacct_field */
};

struct sacct_format {
    struct sacct_col *cols;
    size_t count;
};

/* Parse an -o list "JobID,State%20,AllocTRES%40".  A name matches the
 * first field of the table it is a case-insensitive prefix of (Slurm's
 * rule: "jobid" is JobID, "Elap" Elapsed); "%N" sets the width (its sign
 * sets the justification, as Slurm's assignment does).  Returns 0 and
 * fills 'fmt' (free with sacct_format_free()), or -1 and sets *bad to a
 * new copy of the first unknown name (caller frees).
 */
int sacct_format_parse(const char *list, struct sacct_format *fmt, char **bad);

void sacct_format_free(struct sacct_format *fmt);

enum sacct_layout {
    SACCT_COLUMNS = 0,   /* fixed-width columns under a dashed rule */
    SACCT_PARSABLE = 1,  /* -p: "a|b|" (print_fields.h's values) */
    SACCT_PARSABLE2 = 2, /* -P: "a|b" */
};

struct sacct_output {
    enum sacct_layout layout;
    bool header;       /* false with -n */
    const char *delim; /* --delimiter, default "|" */
};

/* A job id of -j: "N", "N_K", "N.S", "N_K.S" (S a number, "batch",
 * "extern" or "interactive").
 */
struct sacct_jobspec {
    uint32_t job_id;
    int64_t task; /* array task index, -1 none */
    int64_t step; /* step id, SACCT_STEP_NONE when none */
};

/* Parse one -j element.  Returns 0, or -1 with errno=EINVAL. */
int sacct_jobspec_parse(const char *s, struct sacct_jobspec *spec);

/* The rows to print from 'jobs' (a JSON array of job records, borrowed):
 * each job then its steps; no step rows when 'allocations' (-X).  When
 * 'specs' name steps of a job, only those steps of it are listed (Slurm's
 * `sacct -j 12.batch`).  Returns a new array (free()) and sets *count.
 */
struct sacct_row *sacct_rows(const json_t *jobs, bool allocations,
                             const struct sacct_jobspec *specs, size_t nspecs,
                             size_t *count);

/* The whole output: header (when asked) and one line per row, each ending
 * in a newline.  Caller frees.
 */
char *sacct_render(const struct sacct_format *fmt,
                   const struct sacct_output *out,
                   const struct sacct_row *rows, size_t count,
                   const struct sacct_ctx *ctx);

/* --helpformat: the field names, four to a line in 20 columns. */
char *sacct_helpformat(void);

/* The JobID of a row: "12", "12_3", "12.batch", "12_3.0".  Writes into
 * 'out'.
 */
void sacct_put_jobid(struct fmt_buf *out, const struct sacct_row *row);

/* A raw wait status as Slurm's ExitCode "code:signal". */
void sacct_put_exit(struct fmt_buf *out, int64_t status);

/* The name of a step id: "batch", "extern", "interactive" or the number. */
void sacct_put_step_name(struct fmt_buf *out, int64_t step_id);

/* Elapsed seconds of a job or step record: end - start, now - start while
 * running, less the time suspended (sacct_suspended(); as Slurm's
 * Elapsed), 0 before the start.
 */
int64_t sacct_elapsed(const json_t *rec, time_t now);

/* Slurm's CPU time layout of 'us' microseconds: "00:MM:SS", "MM:SS.mmm",
 * "HH:MM:SS", "D-HH:MM:SS" (sacct's TotalCPU, sstat's AveCPU). */
void sacct_put_cpu(struct fmt_buf *out, int64_t us);

/* A size 'v' in the unit 'unit' (0 bytes, 1 KiB, 2 MiB...) as Slurm
 * prints it: "1234K", "2M" (exact multiples converted up), honouring
 * --units and --noconvert of 'ctx'. */
void sacct_put_size(struct fmt_buf *out, double v, int unit,
                    const struct sacct_ctx *ctx);

/* Seconds the job of record 'rec' was suspended up to 'now' (its
 * "suspended_s", plus the suspension under way since "suspend_time"). */
int64_t sacct_suspended(const json_t *rec, time_t now);

#endif /* !DROVER_CMD_LIB_SACCT_PRINT_H */
