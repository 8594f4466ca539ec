/* SPDX-License-Identifier: Apache-2.0
 *
 * swf.c - Standard Workload Format reader (see swf.h)
 *
 * Field numbers follow the SWF definition (Feitelson's Parallel Workloads
 * Archive): 1 job, 2 submit, 3 wait, 4 run time, 5 allocated procs, 8
 * requested procs, 9 requested time, 11 status, 12 user, 13 group.
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <zlib.h>

#include "sim/swf.h"

#define SWF_FIELDS 18
#define LINE_MAX_LEN 4096
#define SWF_NAMED_MAX 20 /* malformed lines named on stderr */

/* Read 18 numbers; anything else on the line (but blanks) is malformed.
 * SWF allows fractions (field 6, average CPU time: "552.21" in HPC2N);
 * the fields used here are whole seconds and counts, and are truncated.
 */
static int parse_fields(const char *line, int64_t f[SWF_FIELDS])
{
    const char *p = line;

    for (int i = 0; i < SWF_FIELDS; i++) {
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || errno == ERANGE)
            return -1;
        if (*end == '.') {
            double d = strtod(p, &end);
            if (d < (double)INT64_MIN || d > (double)INT64_MAX)
                return -1;
            v = (long long)d;
        }
        f[i] = v;
        p = end;
    }
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    return *p == '\0' ? 0 : -1;
}

int swf_parse_line(const char *line, enum swf_procs procs,
                   struct swf_job *job)
{
    int64_t f[SWF_FIELDS];

    if (parse_fields(line, f) < 0)
        return -1;
    memset(job, 0, sizeof(*job));
    job->id = f[0];
    job->submit = f[1];
    job->wait = f[2];
    job->run = f[3];
    job->alloc_procs = f[4];
    job->req_procs = f[7];
    job->estimate = f[8] >= 0 ? f[8] : f[3];
    job->status = f[10];
    job->user = f[11];
    job->group = f[12];
    int64_t p = procs == SWF_PROCS_REQUESTED ? f[7] : f[4];
    if (p == -1)
        p = procs == SWF_PROCS_REQUESTED ? f[4] : f[7];
    if (job->run < 0 || p <= 0 || p > UINT32_MAX)
        return 1;
    job->procs = (uint32_t)p;
    return 0;
}

/* "; MaxProcs: 100" and "; MaxNodes: 100" set the limits. */
static void parse_header(const char *line, struct swf_trace *t)
{
    const char *p = line + 1;
    unsigned long v;

    while (*p == ' ' || *p == '\t')
        p++;
    if (!strncasecmp(p, "MaxProcs:", 9) && sscanf(p + 9, "%lu", &v) == 1)
        t->max_procs = (uint32_t)v;
    else if (!strncasecmp(p, "MaxNodes:", 9) && sscanf(p + 9, "%lu", &v) == 1)
        t->max_nodes = (uint32_t)v;
}

static int push_job(struct swf_trace *t, size_t *cap, const struct swf_job *j)
{
    if (t->njobs == *cap) {
        size_t ncap = *cap ? *cap * 2 : 1024;
        struct swf_job *nj = realloc(t->jobs, ncap * sizeof(*nj));
        if (!nj)
            return -1;
        t->jobs = nj;
        *cap = ncap;
    }
    t->jobs[t->njobs++] = *j;
    return 0;
}

static bool blank(const char *s)
{
    return s[strspn(s, " \t\r\n")] == '\0';
}

/* One line read into 'line': header, job, or neither. */
static int take_line(const char *path, unsigned long lineno, const char *line,
                     enum swf_procs procs, struct swf_trace *t, size_t *cap,
                     uint32_t *largest)
{
    struct swf_job job;

    if (line[0] == ';') {
        parse_header(line, t);
        return 0;
    }
    if (blank(line))
        return 0;
    int rc = swf_parse_line(line, procs, &job);
    if (rc < 0) {
        /* Name the first few; a broken file should not flood stderr. */
        if (t->malformed < SWF_NAMED_MAX)
            fprintf(stderr, "%s:%lu: malformed SWF job line (want %d"
                    " numbers), skipped\n", path, lineno, SWF_FIELDS);
        else if (t->malformed == SWF_NAMED_MAX)
            fprintf(stderr, "%s: more malformed lines, not named\n", path);
        t->malformed++;
        return 0;
    }
    if (rc > 0 || (t->max_procs && job.procs > t->max_procs)) {
        t->skipped++;
        return 0;
    }
    if (job.procs > *largest)
        *largest = job.procs;
    return push_job(t, cap, &job);
}

/* Skip the rest of a line too long for the buffer; false at end of file. */
static bool skip_rest(gzFile gz)
{
    int c;

    while ((c = gzgetc(gz)) != -1)
        if (c == '\n')
            return true;
    return false;
}

static int read_lines(gzFile gz, const char *path, enum swf_procs procs,
                      struct swf_trace *t, drv_error_t *error)
{
    char line[LINE_MAX_LEN];
    unsigned long lineno = 0;
    size_t cap = 0;
    uint32_t largest = 0;

    while (gzgets(gz, line, sizeof(line))) {
        lineno++;
        size_t len = strlen(line);
        if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
            skip_rest(gz);
            fprintf(stderr, "%s:%lu: line too long, skipped\n", path, lineno);
            t->malformed++;
            continue;
        }
        if (take_line(path, lineno, line, procs, t, &cap, &largest) < 0) {
            errno = ENOMEM;
            return errprintf(error, "%s: out of memory", path);
        }
    }
    int zerr;
    const char *msg = gzerror(gz, &zerr);
    if (zerr != Z_OK && zerr != Z_STREAM_END) {
        errno = zerr == Z_ERRNO ? errno : EIO;
        return errprintf(error, "%s:%lu: %s", path, lineno + 1,
                         zerr == Z_ERRNO ? strerror(errno) : msg);
    }
    if (!t->max_procs)
        t->max_procs = largest;
    return 0;
}

int swf_read(const char *path, enum swf_procs procs, struct swf_trace *out,
             drv_error_t *error)
{
    memset(out, 0, sizeof(*out));
    gzFile gz = gzopen(path, "rb");
    if (!gz) {
        if (!errno)
            errno = ENOMEM;
        return errprintf(error, "%s: %s", path, strerror(errno));
    }
    gzbuffer(gz, 1 << 17);
    int rc = read_lines(gz, path, procs, out, error);
    int saved = errno;
    gzclose(gz);
    if (rc < 0) {
        swf_trace_free(out);
        errno = saved;
    }
    return rc;
}

void swf_trace_free(struct swf_trace *t)
{
    if (t) {
        int saved_errno = errno;
        for (size_t i = 0; i < t->nparts; i++)
            free(t->parts[i]);
        free(t->parts);
        for (size_t i = 0; i < t->nusers; i++)
            free(t->users[i]);
        free(t->users);
        for (size_t i = 0; i < t->naccounts; i++)
            free(t->accounts[i]);
        free(t->accounts);
        free(t->jobs);
        memset(t, 0, sizeof(*t));
        errno = saved_errno;
    }
}
