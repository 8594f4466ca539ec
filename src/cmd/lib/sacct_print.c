/* SPDX-License-Identifier: Apache-2.0
 *
 * sacct_print.c - sacct's -o lists, -j ids, rows and layouts
 *
 * The layout is Slurm's print_fields (not squeue's): every column is
 * followed by one space, over-long text is cut with '+' in its last place,
 * and the header is cut without one.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/lib/jsonget.h"
#include "cmd/lib/print_fields.h"
#include "cmd/lib/sacct_print.h"
#include "common/xalloc.h"

/* Slurm's rule: the first field in table order that 'name' prefixes. */
static const struct sacct_field *field_find(const char *name, size_t len)
{
    if (len == 0)
        return NULL;
    for (const struct sacct_field *f = sacct_fields; f->name; f++) {
        if (strlen(f->name) >= len && !strncasecmp(f->name, name, len))
            return f;
    }
    return NULL;
}

int sacct_format_parse(const char *list, struct sacct_format *fmt, char **bad)
{
    char *copy = xstrdup(list), *save = NULL;

    memset(fmt, 0, sizeof(*fmt));
    *bad = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *pct = strchr(tok, '%');
        int width = pct ? atoi(pct + 1) : 0;
        size_t len = pct ? (size_t)(pct - tok) : strlen(tok);
        const struct sacct_field *f = field_find(tok, len);

        if (!f) {
            *bad = xrealloc(NULL, len + 1);
            memcpy(*bad, tok, len);
            (*bad)[len] = '\0';
            free(copy);
            sacct_format_free(fmt);
            return -1;
        }
        fmt->cols = xrealloc(fmt->cols, (fmt->count + 1) * sizeof(*fmt->cols));
        fmt->cols[fmt->count++] = (struct sacct_col){f, width ? width : f->width};
    }
    free(copy);
    return 0;
}

void sacct_format_free(struct sacct_format *fmt)
{
    if (!fmt)
        return;
    free(fmt->cols);
    fmt->cols = NULL;
    fmt->count = 0;
}

static int parse_step(const char *s, int64_t *step)
{
    char *end;

    if (!strcasecmp(s, "batch"))
        *step = SACCT_STEP_BATCH;
    else if (!strcasecmp(s, "extern"))
        *step = SACCT_STEP_EXTERN;
    else if (!strcasecmp(s, "interactive"))
        *step = SACCT_STEP_INTERACTIVE;
    else {
        if (!isdigit((unsigned char)*s))
            return -1;
        errno = 0;
        *step = strtoll(s, &end, 10);
        if (*end || errno || *step > 0xfffffff0LL)
            return -1;
    }
    return 0;
}

int sacct_jobspec_parse(const char *s, struct sacct_jobspec *spec)
{
    char *end;
    unsigned long long id;

    spec->task = -1;
    spec->step = SACCT_STEP_NONE;
    if (!isdigit((unsigned char)*s))
        return errno = EINVAL, -1;
    errno = 0;
    id = strtoull(s, &end, 10);
    if (errno || id == 0 || id > 0xfffffff0ULL)
        return errno = EINVAL, -1;
    spec->job_id = (uint32_t)id;
    if (*end == '_') {
        if (!isdigit((unsigned char)end[1]))
            return errno = EINVAL, -1;
        spec->task = strtoll(end + 1, &end, 10);
    }
    if (*end == '.' && parse_step(end + 1, &spec->step) == 0)
        return 0;
    return *end ? (errno = EINVAL, -1) : 0;
}

static bool spec_matches(const struct sacct_jobspec *sp, const json_t *job)
{
    int64_t task = jint(job, "array_task_id", -1);

    if (sp->task < 0 && jint(job, "job_id", 0) == sp->job_id)
        return true;
    return jint(job, "array_job_id", 0) == sp->job_id && task >= 0
           && (sp->task < 0 || sp->task == task);
}

/* Whether the job's own row and each of its steps are listed: a job named
 * with a step id shows only the steps named.
 */
static bool job_row_wanted(const json_t *job, const struct sacct_jobspec *sp,
                           size_t n)
{
    bool any = false;

    for (size_t i = 0; i < n; i++) {
        if (!spec_matches(&sp[i], job))
            continue;
        if (sp[i].step == SACCT_STEP_NONE)
            return true;
        any = true;
    }
    return !any;
}

static bool step_wanted(const json_t *job, const json_t *step,
                        const struct sacct_jobspec *sp, size_t n)
{
    bool named = false;

    for (size_t i = 0; i < n; i++) {
        if (!spec_matches(&sp[i], job))
            continue;
        if (sp[i].step == SACCT_STEP_NONE
            || sp[i].step == jint(step, "step_id", -2))
            return true;
        named = true;
    }
    return !named;
}

struct sacct_row *sacct_rows(const json_t *jobs, bool allocations,
                             const struct sacct_jobspec *specs, size_t nspecs,
                             size_t *count)
{
    struct sacct_row *rows = NULL;
    size_t n = 0, cap = 0, i, k;
    const json_t *job, *step;

    json_array_foreach(jobs, i, job) {
        const json_t *steps = json_object_get(job, "steps");
        size_t need = n + 1 + (allocations ? 0 : json_array_size(steps));

        if (need > cap) {
            cap = need * 2;
            rows = xrealloc(rows, cap * sizeof(*rows));
        }
        if (allocations || job_row_wanted(job, specs, nspecs))
            rows[n++] = (struct sacct_row){job, NULL};
        if (allocations)
            continue;
        json_array_foreach(steps, k, step) {
            if (step_wanted(job, step, specs, nspecs))
                rows[n++] = (struct sacct_row){job, step};
        }
    }
    *count = n;
    return rows;
}

static void render_header(struct fmt_buf *o, const struct sacct_format *fmt,
                          const struct sacct_output *out)
{
    const char **titles = xrealloc(NULL, (fmt->count + 1) * sizeof(*titles));
    int *widths = xrealloc(NULL, (fmt->count + 1) * sizeof(*widths));

    for (size_t i = 0; i < fmt->count; i++) {
        titles[i] = fmt->cols[i].field->name;
        widths[i] = fmt->cols[i].width;
    }
    pf_titles(o, (enum pf_layout)out->layout, out->delim, titles, widths,
              fmt->count);
    free(titles);
    free(widths);
}

char *sacct_render(const struct sacct_format *fmt,
                   const struct sacct_output *out,
                   const struct sacct_row *rows, size_t count,
                   const struct sacct_ctx *ctx)
{
    struct fmt_buf o = {0}, v = {0};

    fmt_buf_puts(&o, "");
    if (out->header)
        render_header(&o, fmt, out);
    for (size_t r = 0; r < count; r++) {
        for (size_t i = 0; i < fmt->count; i++) {
            const struct sacct_col *c = &fmt->cols[i];

            fmt_buf_reset(&v);
            if (c->field->print)
                c->field->print(&v, &rows[r], ctx);
            pf_cell(&o, (enum pf_layout)out->layout, out->delim,
                    fmt_buf_str(&v), c->width, c->field->number,
                    i + 1 == fmt->count);
        }
        fmt_buf_puts(&o, "\n");
    }
    free(v.s);
    return o.s;
}

char *sacct_helpformat(void)
{
    struct fmt_buf o = {0};
    size_t i = 0;

    for (const struct sacct_field *f = sacct_fields; f->name; f++, i++) {
        if (i & 3)
            fmt_buf_puts(&o, " ");
        else if (i)
            fmt_buf_puts(&o, "\n");
        fmt_buf_printf(&o, "%-19s", f->name);
    }
    fmt_buf_puts(&o, "\n");
    return o.s;
}
