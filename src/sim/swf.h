/* SPDX-License-Identifier: Apache-2.0
 *
 * swf.h - a reader for the Standard Workload Format (SWF) of the Parallel
 * Workloads Archive: ';' header lines, then one job per line, 18
 * whitespace-separated fields.  Plain and gzip files alike (zlib's gzread
 * reads both).
 */
#ifndef DROVER_SIM_SWF_H
#define DROVER_SIM_SWF_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Which SWF field gives a job's processor count. */
enum swf_procs {
    SWF_PROCS_REQUESTED, /* field 8, or field 5 (allocated) when it is -1 */
    SWF_PROCS_ALLOCATED, /* field 5, or field 8 when it is -1 */
};

/* One job of a trace.  Times in seconds, relative to the trace's start. */
struct swf_job {
    int64_t id;        /* field 1 */
    int64_t submit;    /* field 2 */
    int64_t wait;      /* field 3: as recorded by the real scheduler */
    int64_t run;       /* field 4: actual run time, >= 0 */
    int64_t estimate;  /* field 9 (requested time), or 'run' when -1 */
    uint32_t procs;    /* per enum swf_procs; 1 .. max_procs */
    int64_t alloc_procs; /* field 5, as in the file */
    int64_t req_procs;   /* field 8, as in the file */
    int64_t user;      /* field 12; accounting: index into
                        * swf_trace.users */
    int64_t group;     /* field 13; accounting: its account, an index
                        * into swf_trace.accounts */
    int64_t status;    /* field 11 */
    /* The request beyond 'procs', used on a cluster (sim_opts.cluster):
     * set by the accounting reader (acct_trace.h), zero for an SWF job,
     * which asks for 'procs' CPUs anywhere in the default partition. */
    uint32_t nodes;           /* nodes asked for (min = max); 0: as many
                               * as its CPUs need */
    uint64_t mem_per_cpu_mib; /* memory per CPU, MiB; 0: none asked */
    uint32_t gpus;            /* GPUs over the whole job; 0: none */
    uint32_t part;            /* 0: the default partition; k > 0: the
                               * partition named swf_trace.parts[k - 1] */
};

/* A trace read into memory.  Free with swf_trace_free(). */
struct swf_trace {
    struct swf_job *jobs; /* file order */
    size_t njobs;
    uint32_t max_procs;  /* header MaxProcs; else the largest job's procs */
    uint32_t max_nodes;  /* header MaxNodes; 0 if absent */
    size_t skipped;      /* well-formed jobs left out: run time < 0, procs
                          * <= 0 or > MaxProcs */
    size_t malformed;    /* job lines that could not be parsed */
    char **parts;        /* names of the partitions jobs ask for
                          * (swf_job.part), owned; NULL for SWF */
    size_t nparts;
    char **users;        /* accounting: user names (swf_job.user), owned;
                          * NULL for SWF (users are numbers) */
    size_t nusers;
    char **accounts;     /* accounting: account names (swf_job.group),
                          * owned; NULL for SWF */
    size_t naccounts;
};

/* Read the SWF file at 'path' (gzip or plain) with processor counts taken
 * as 'procs' says.  Jobs with run time < 0, or procs <= 0 or > MaxProcs,
 * are counted in 'skipped'; a line that is not 18 numbers is named by its
 * line number on stderr ("PATH:LINE: ...", the first 20 of them) and
 * counted in 'malformed'.
 * Fills *out (caller frees with swf_trace_free()).  Returns 0, or -1 with
 * errno (from gzopen/gzread: ENOENT, EACCES ...; EIO for a corrupt gzip
 * stream; ENOMEM) and the reason in 'error' (may be NULL); *out is then
 * empty.
 */
int swf_read(const char *path, enum swf_procs procs, struct swf_trace *out,
             drv_error_t *error);

/* Parse one job line (18 fields) into *job, with procs per 'procs' (not
 * checked against a maximum).  Returns 0, 1 if the job is to be skipped
 * (run time < 0 or procs <= 0), or -1 if the line is malformed.
 */
int swf_parse_line(const char *line, enum swf_procs procs,
                   struct swf_job *job);

/* Free the jobs and the names of 't' and zero it.  NULL is a no-op; errno is kept. */
void swf_trace_free(struct swf_trace *t);

#endif /* !DROVER_SIM_SWF_H */
