/* SPDX-License-Identifier: Apache-2.0
 *
 * sprio_print.c - sprio's table (sprio_print.h)
 *
 * One field per -o letter (Slurm's sprio letters); each printer writes a
 * job's value, or on the weights line (-w) the factor's weight.  Widths,
 * justification and cuts are squeue's (format.c), which are sprio's too.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/lib/jsonget.h"
#include "cmd/lib/sprio_print.h"
#include "common/xalloc.h"

#define TAB "                                  "

const struct cmd_opt sprio_options[] = {
    {"federation", SPRIO_OPT_FEDERATION, no_argument,
     "      --federation                display jobs in federation if a "
     "member of one\n"},
    {"noheader", 'h', no_argument,
     "  -h, --noheader                  no headers on output\n"},
    {"jobs", 'j', optional_argument,
     "  -j, --jobs                      comma separated list of jobs\n"
     TAB "to view, default is all\n"},
    {"local", SPRIO_OPT_LOCAL, no_argument,
     "      --local                     display jobs on local cluster "
     "only\n"},
    {"long", 'l', no_argument,
     "  -l, --long                      long report\n"},
    {"cluster", 'M', required_argument,
     "  -M, --cluster=cluster_name      cluster to issue commands to.  "
     "Default is\n"
     TAB "current cluster.  cluster with no name will\n"
     TAB "reset to default.\n"
     TAB "NOTE: SlurmDBD must be up.\n"},
    {"clusters", 'M', required_argument, NULL},
    {"norm", 'n', no_argument,
     "  -n, --norm                      display normalized values\n"},
    {"format", 'o', required_argument,
     "  -o, --format=format             format specification\n"},
    {"sibling", SPRIO_OPT_SIBLING, no_argument,
     "      --sibling                   display job records separately for "
     "each federation cluster\n"},
    {"sib", SPRIO_OPT_SIBLING, no_argument, NULL},
    {"partition", 'p', required_argument,
     "  -p, --partition=partition_name  comma separated list of "
     "partitions\n"},
    {"user", 'u', required_argument,
     "  -u, --user=user_name            comma separated list of users to "
     "view\n"},
    {"users", 'u', required_argument, NULL},
    {"verbose", 'v', no_argument,
     "  -v, --verbose                   verbosity level\n"},
    {"version", 'V', no_argument,
     "  -V, --version                   output version information and "
     "exit\n"},
    {"weights", 'w', no_argument,
     "  -w, --weights                   show the weights for each priority "
     "factor\n"},
    {"help", SPRIO_OPT_HELP, no_argument,
     "\nHelp options:\n"
     "  --help                          show this help message\n"},
    {"usage", SPRIO_OPT_USAGE, no_argument,
     "  --usage                         display a brief summary of sprio "
     "options\n"},
    CMD_OPT_END,
};

void sprio_print_help(FILE *out)
{
    cmd_print_help(out, "Usage: sprio [OPTIONS]\n", sprio_options, NULL);
}

void sprio_print_usage(FILE *out)
{
    fputs("Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] "
          "[-p partitions]\n"
          "   [--federation] [--local] [--sibling] [--usage] [-hlnvVw]\n",
          out);
}

/* What every printer sees: the weights, and whether this is the weights
 * line (rec is NULL then). */
struct ctx {
    const json_t *weights;
    const char *cluster;
    bool weights_row;
};

static double num(const json_t *o, const char *key)
{
    json_t *v = o ? json_object_get(o, key) : NULL;

    return json_is_number(v) ? json_number_value(v) : 0.0;
}

static void weighted(struct fmt_buf *out, const void *rec, const void *cv,
                     const char *wkey, const char *fkey)
{
    const struct ctx *c = cv;
    double w = num(c->weights, wkey);

    if (c->weights_row)
        fmt_buf_printf(out, "%.0f", w);
    else
        fmt_buf_printf(out, "%.0f", num(rec, fkey) * w);
}

/* Slurm divides the weighted value by the weight: a factor without a
 * weight reads 0. */
static void normalized(struct fmt_buf *out, const void *rec, const void *cv,
                       const char *wkey, const char *fkey)
{
    const struct ctx *c = cv;
    double w = num(c->weights, wkey);

    if (c->weights_row)
        fmt_buf_printf(out, "%.0f", w);
    else
        fmt_buf_printf(out, "%.7f", w != 0.0 ? num(rec, fkey) : 0.0);
}

#define FACTOR(name, wkey, fkey)                                               \
    static void name##_w(struct fmt_buf *out, const void *rec,                 \
                         const void *c)                                        \
    {                                                                          \
        weighted(out, rec, c, wkey, fkey);                                     \
    }                                                                          \
    static void name##_n(struct fmt_buf *out, const void *rec,                 \
                         const void *c)                                        \
    {                                                                          \
        normalized(out, rec, c, wkey, fkey);                                   \
    }

FACTOR(age, "age", "age")
FACTOR(assoc, "assoc", "assoc")
FACTOR(fs, "fairshare", "fairshare")
FACTOR(js, "jobsize", "jobsize")
FACTOR(part, "partition", "partition_factor")
FACTOR(qos, "qos", "qos")

static bool wrow(const void *c)
{
    return ((const struct ctx *)c)->weights_row;
}

static void p_job_id(struct fmt_buf *out, const void *rec, const void *c)
{
    if (wrow(c))
        fmt_buf_puts(out, "Weights");
    else
        fmt_buf_printf(out, "%lld", (long long)jint(rec, "job_id", 0));
}

static void p_str(struct fmt_buf *out, const void *rec, const void *c,
                  const char *key)
{
    if (!wrow(c))
        fmt_buf_puts(out, jstr_or(rec, key, ""));
}

static void p_partition(struct fmt_buf *out, const void *rec, const void *c)
{
    p_str(out, rec, c, "partition");
}

static void p_user(struct fmt_buf *out, const void *rec, const void *c)
{
    p_str(out, rec, c, "user");
}

static void p_qos_name(struct fmt_buf *out, const void *rec, const void *c)
{
    p_str(out, rec, c, "qos_name");
}

static void p_cluster(struct fmt_buf *out, const void *rec, const void *c)
{
    const struct ctx *x = c;

    /* Slurm's sprio has no weights-line case here (it crashes). */
    if (!x->weights_row)
        fmt_buf_puts(out, jstr_or(rec, "cluster", x->cluster ? x->cluster
                                                             : ""));
}

static void p_nice(struct fmt_buf *out, const void *rec, const void *c)
{
    if (!wrow(c))
        fmt_buf_printf(out, "%.0f", num(rec, "nice"));
}

/* The site factor is absolute; its weight is shown as 1. */
static void p_site(struct fmt_buf *out, const void *rec, const void *c)
{
    if (wrow(c))
        fmt_buf_puts(out, "1");
    else
        fmt_buf_printf(out, "%.0f", num(rec, "site"));
}

static void p_prio_w(struct fmt_buf *out, const void *rec, const void *c)
{
    if (!wrow(c))
        fmt_buf_printf(out, "%lld", (long long)jint(rec, "priority", 0));
}

/* Slurm prints the fraction of the highest priority with "%16.14f" and
 * lets the column cut it (0.00000178 in 10 columns). */
static void p_prio_n(struct fmt_buf *out, const void *rec, const void *c)
{
    if (!wrow(c))
        fmt_buf_printf(out, "%16.14f",
                       (double)jint(rec, "priority", 0) / 4294967295.0);
}

/* "cpu=250,gres/gpu=1000": each TRES with a weighted value, in the order
 * of the weights; "%.2f" of the factor when normalized. */
static void tres(struct fmt_buf *out, const void *rec, const void *cv,
                 bool norm)
{
    const struct ctx *c = cv;
    json_t *wt = c->weights ? json_object_get(c->weights, "tres") : NULL;
    json_t *ft = rec ? json_object_get(rec, "tres") : NULL;
    const char *key;
    json_t *w;
    bool first = true;

    if (c->weights_row && !norm && jstr(c->weights, "tres_text")) {
        /* PriorityWeightTRES as written, which is what Slurm shows. */
        fmt_buf_puts(out, jstr(c->weights, "tres_text"));
        return;
    }
    if (!json_is_object(wt))
        return;
    json_object_foreach(wt, key, w) {
        double weight = json_number_value(w), v;

        if (c->weights_row) {
            if (norm || weight == 0.0)
                continue;
            fmt_buf_printf(out, "%s%s=%.0f", first ? "" : ",", key, weight);
            first = false;
            continue;
        }
        v = num(ft, key) * weight;
        if (v == 0.0)
            continue;
        if (norm)
            fmt_buf_printf(out, "%s%s=%.2f", first ? "" : ",", key,
                           v / weight);
        else
            fmt_buf_printf(out, "%s%s=%.0f", first ? "" : ",", key, v);
        first = false;
    }
}

static void p_tres_w(struct fmt_buf *out, const void *rec, const void *c)
{
    tres(out, rec, c, false);
}

static void p_tres_n(struct fmt_buf *out, const void *rec, const void *c)
{
    tres(out, rec, c, true);
}

/* Slurm's fmt_data[] of sprio 22.05, letter by letter. */
static const struct fmt_field sprio_fields[] = {
    {'a', NULL, "AGE", age_n, 0},
    {'A', NULL, "AGE", age_w, 0},
    {'b', NULL, "ASSOC", assoc_n, 0},
    {'B', NULL, "ASSOC", assoc_w, 0},
    {'c', NULL, "CLUSTER", p_cluster, 0},
    {'f', NULL, "FAIRSHARE", fs_n, 0},
    {'F', NULL, "FAIRSHARE", fs_w, 0},
    {'i', NULL, "JOBID", p_job_id, 0},
    {'j', NULL, "JOBSIZE", js_n, 0},
    {'J', NULL, "JOBSIZE", js_w, 0},
    {'n', NULL, "QOSNAME", p_qos_name, 0},
    {'N', NULL, "NICE", p_nice, 0},
    {'p', NULL, "PARTITION", part_n, 0},
    {'P', NULL, "PARTITION", part_w, 0},
    {'r', NULL, "PARTITION", p_partition, 0},
    {'S', NULL, "SITE", p_site, 0},
    {'q', NULL, "QOS", qos_n, 0},
    {'Q', NULL, "QOS", qos_w, 0},
    {'u', NULL, "USER", p_user, 0},
    {'y', NULL, "PRIORITY", p_prio_n, 0},
    {'Y', NULL, "PRIORITY", p_prio_w, 0},
    {'t', NULL, "TRES", p_tres_n, 0},
    {'T', NULL, "TRES", p_tres_w, 0},
    {0, NULL, NULL, NULL, 0},
};

static bool has_weight(const json_t *weights, const char *key)
{
    return num(weights, key) != 0.0;
}

/* PriorityWeightTRES is set: some TRES has a weight. */
static bool has_tres_weight(const json_t *weights)
{
    json_t *wt = weights ? json_object_get(weights, "tres") : NULL;
    const char *key;
    json_t *w;

    if (jstr_or(weights, "tres_text", NULL))
        return true;
    if (!json_is_object(wt))
        return false;
    json_object_foreach(wt, key, w)
        if (json_number_value(w) != 0.0)
            return true;
    return false;
}

char *sprio_default_format(const json_t *resp, const struct sprio_out *o)
{
    const json_t *w = resp ? json_object_get(resp, "weights") : NULL;
    static const char *const factors[][3] = {
        /* weight key, weighted, normalized */
        {"age", " %.10A", " %10a"},       {"assoc", " %.10B", " %10b"},
        {"fairshare", " %.10F", " %10f"}, {"jobsize", " %.10J", " %10j"},
        {"partition", " %.10P", " %10p"}, {"qos", " %.10Q", " %10q"},
    };
    struct fmt_buf b = {0};

    if (o->long_list) {
        fmt_buf_puts(&b, o->normalized
                             ? "%.15i %9r %.8u %10y %10a %10b %10f %10j "
                               "%10p %10q %20t"
                             : "%.15i %9r %.8u %.10Y %.10S %.10A %.10B "
                               "%.10F %.10J %.10P %.10Q %.11N %.20T");
        return b.s;
    }
    fmt_buf_puts(&b, "%.15i %9r");
    if (o->sibling)
        fmt_buf_puts(&b, " %.8c");
    if (o->users_given)
        fmt_buf_puts(&b, " %.8u");
    fmt_buf_puts(&b, o->normalized ? " %10y" : " %.10Y %.10S");
    for (size_t i = 0; i < sizeof(factors) / sizeof(factors[0]); i++)
        if (has_weight(w, factors[i][0]))
            fmt_buf_puts(&b, factors[i][o->normalized ? 2 : 1]);
    if (has_tres_weight(w))
        fmt_buf_puts(&b, o->normalized ? " %20t" : " %.20T");
    return b.s;
}

size_t sprio_bad_letters(const char *format, char *bad, size_t max)
{
    const char *p = format ? strchr(format, '%') : NULL;
    size_t n = 0;

    /* Slurm splits at every '%' and skips empty tokens ("%%" is nothing);
     * a token is ['.'] [digits] letter suffix. */
    while (p) {
        const char *t = p + 1;

        if (*t == '.')
            t++;
        while (*t >= '0' && *t <= '9')
            t++;
        if (*t && *t != '%' && !fmt_field_by_letter(sprio_fields, *t)) {
            if (n + 1 < max)
                bad[n] = *t;
            n++;
        }
        p = strchr(*t && *t != '%' ? t + 1 : t, '%');
    }
    if (max)
        bad[n + 1 < max ? n : max - 1] = '\0';
    return n;
}

int sprio_check_type(const json_t *resp, struct fmt_buf *msg)
{
    const char *type = jstr_or(resp, "type", "priority/basic");

    if (!strcasecmp(type, "priority/multifactor"))
        return 0;
    fmt_buf_printf(msg,
                   "You are not running a supported priority plugin\n"
                   "(%s).\n"
                   "Only 'priority/multifactor' is supported.\n",
                   type);
    return -1;
}


struct job_ref {
    const json_t *job;
    size_t pos;
};

/* By job id; a job pending in several partitions keeps the controller's
 * order of its lines. */
static int by_id(const void *a, const void *b)
{
    const struct job_ref *x = a, *y = b;
    long long i = jint(x->job, "job_id", 0), j = jint(y->job, "job_id", 0);

    if (i != j)
        return i < j ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void put_line(struct fmt_buf *out, const struct fmt_spec *spec,
                     const json_t *job, const struct ctx *c)
{
    char *line = fmt_row(spec, job, c);

    fmt_buf_puts(out, line);
    fmt_buf_puts(out, "\n");
    free(line);
}

void sprio_print(struct fmt_buf *out, const json_t *resp,
                 const struct sprio_out *o)
{
    json_t *jobs = json_object_get(resp, "jobs");
    struct ctx c = {.weights = json_object_get(resp, "weights"),
                    .cluster = o->cluster};
    char *dflt = o->format ? NULL : sprio_default_format(resp, o);
    struct fmt_spec *spec = fmt_parse(o->format ? o->format : dflt,
                                      sprio_fields);
    struct job_ref *refs = xzalloc((json_array_size(jobs) + 1)
                                   * sizeof(*refs));
    size_t n = 0, i;
    json_t *job;

    json_array_foreach(jobs, i, job)
        if (json_is_object(job))
            refs[n++] = (struct job_ref){job, i};
    if (o->jobs_given && n == 0) {
        fmt_buf_puts(out, "Unable to find jobs matching user/id(s) "
                          "specified\n");
        goto done;
    }
    if (!o->noheader) {
        char *h = fmt_header(spec);

        fmt_buf_puts(out, h);
        fmt_buf_puts(out, "\n");
        free(h);
    }
    if (o->weights) {
        c.weights_row = true;
        put_line(out, spec, NULL, &c);
        goto done;
    }
    qsort(refs, n, sizeof(*refs), by_id);
    for (i = 0; i < n; i++)
        put_line(out, spec, refs[i].job, &c);
done:
    free(refs);
    fmt_spec_destroy(spec);
    free(dflt);
}
