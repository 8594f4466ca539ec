/* SPDX-License-Identifier: Apache-2.0
 *
 * drover-sim.c - replay a Standard Workload Format trace, or Drover's own
 * accounting (--from-accounting), through the scheduling core (src/sim)
 * under one or more policies, and print the figures of each: a table, or
 * a JSON array with --json; with --jobs, each job's replayed times.
 *
 * The replay itself reads no clock; this command times it (wall_s) to
 * report simulated jobs per second.  docs/simulator.md has the model.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd/lib/opt.h"
#include "cmd/sim_plot.h"
#include "cmd/sim_sacct.h"
#include "conf/conf.h"
#include "conf/conf_sched_node.h"
#include "sim/acct_trace.h"
#include "sim/sim.h"

enum {
    OPT_USAGE = CMD_OPT_LONG, OPT_JSON, OPT_POLICY, OPT_NODES, OPT_CPN,
    OPT_PROCS, OPT_WINDOW, OPT_RESOLUTION, OPT_DEPTH, OPT_CONF, OPT_COMPARE,
    OPT_PLOT, OPT_FROM_ACCT, OPT_SJF, OPT_PREDICT, OPT_JOBS,
};

static const struct cmd_opt opts[] = {
    {"policy", OPT_POLICY, required_argument,
     "  --policy fcfs|easy|default  a policy to replay (repeat for several;\n"
     "                              default: all three)\n"},
    {"nodes", OPT_NODES, required_argument,
     "  --nodes N                   the pool as N nodes ...\n"},
    {"cpus-per-node", OPT_CPN, required_argument,
     "  --cpus-per-node C           ... of C CPUs (default: one node of\n"
     "                              the trace's MaxProcs)\n"},
    {"procs", OPT_PROCS, required_argument,
     "  --procs requested|allocated which SWF field sizes a job (default\n"
     "                              requested, allocated when -1)\n"},
    {"bf-window", OPT_WINDOW, required_argument,
     "  --bf-window S               override the policy's window (0: none)\n"},
    {"bf-resolution", OPT_RESOLUTION, required_argument,
     "  --bf-resolution S           override the policy's resolution\n"},
    {"bf-max-job-test", OPT_DEPTH, required_argument,
     "  --bf-max-job-test N         override the reservation depth (with\n"
     "                              --backfill-sjf: N jobs lead besides\n"
     "                              the first)\n"},
    {"backfill-sjf", OPT_SJF, no_argument,
     "  --backfill-sjf              backfill candidates shortest planned\n"
     "                              time first (EASY-SJBF; the default\n"
     "                              policy's)\n"},
    {"predict", OPT_PREDICT, no_argument,
     "  --predict                   plan with each user's last two run\n"
     "                              times, not the estimates (the default\n"
     "                              policy's)\n"},
    {"json", OPT_JSON, no_argument,
     "  --json                      a JSON array, one object per policy\n"},
    {"jobs", OPT_JOBS, required_argument,
     "  --jobs FILE                 each job's replayed times, one line per\n"
     "                              job and policy: POLICY JOB_ID SUBMIT\n"
     "                              START END (s from the first submission;\n"
     "                              -1: never started); '-': stdout\n"},
    {"conf", OPT_CONF, required_argument,
     "  --conf FILE                 the cluster and the default policy's\n"
     "                              knobs from a slurm.conf: its nodes as\n"
     "                              they are (CPUs, RealMemory, Gres=gpu),\n"
     "                              its partitions (jobs without one: the\n"
     "                              default); SchedulerParameters\n"
     "                              bf_max_job_test, bf_window,\n"
     "                              bf_resolution; sched/builtin;\n"
     "                              PriorityType=priority/multifactor: the\n"
     "                              queue in priority order (fair-share\n"
     "                              over the trace's groups and users)\n"},
    {"compare", OPT_COMPARE, required_argument,
     "  --compare A.conf B.conf     the policies under each configuration\n"
     "                              (as --conf), side by side\n"},
    {"plot", OPT_PLOT, required_argument,
     "  --plot FILE.svg             draw each replay's wait over time and\n"
     "                              utilization (PLplot)\n"},
    {"from-accounting", OPT_FROM_ACCT, required_argument,
     "  --from-accounting SOURCE    replay Drover's accounting instead of a\n"
     "                              TRACE (needs --conf): a file of\n"
     "                              `sacct --json` output ('-': stdin), or a\n"
     "                              month or dates, 2026-10,\n"
     "                              2026-10-01..2026-10-15 (both included),\n"
     "                              for which drover-sim runs sacct --json\n"
     "                              -a -X -S START -E END\n"},
    {"help", 'h', no_argument,
     "\nHelp options:\n  --help          show this help message\n"},
    {"usage", OPT_USAGE, no_argument,
     "  --usage         display brief usage message\n"},
    CMD_OPT_END,
};

static const char usage_text[] =
    "Usage: drover-sim [--policy fcfs|easy|default]... "
    "[--conf FILE | --compare A.conf B.conf | --nodes N --cpus-per-node C] "
    "[--json] [--jobs FILE] TRACE\n"
    "       drover-sim [--policy ...]... {--conf FILE | --compare A.conf "
    "B.conf} --from-accounting FILE|-|YYYY-MM[-DD][..YYYY-MM[-DD]] "
    "[--json] [--jobs FILE]\n";

#define MAX_POLICIES 16

/* A cluster to replay on: a slurm.conf's nodes and partitions, or nodes
 * of one size; and the default policy's knobs (from the slurm.conf, or
 * Slurm's defaults). */
struct pool {
    const char *conf;       /* its slurm.conf, or NULL */
    struct sim_cluster cluster; /* with conf: its nodes and partitions */
    uint32_t nodes, cpus_per_node; /* without: 0, one node of the trace's
                                    * MaxProcs */
    struct sched_pass_opts pass;   /* the default policy's (with conf) */
    bool builtin;           /* SchedulerType=sched/builtin */
    bool slurm_backfill;    /* SchedulerParameters drover_backfill=slurm */
    uint32_t extra_leads;   /* its bf_max_job_test under drover_backfill=
                             * predict (sim_opts.extra_leads) */
};

struct args {
    const char *prog;
    const char *trace;      /* TRACE */
    const char *acct;       /* --from-accounting SOURCE */
    const char *source;     /* what the table's first line names */
    const char *jobs_path;  /* --jobs FILE */
    bool procs_set;         /* --procs given */
    enum sim_policy policy[MAX_POLICIES];
    size_t npolicy;
    uint32_t nodes, cpus_per_node;
    enum swf_procs procs;
    int64_t window_s, resolution_s, depth; /* -1: the policy's */
    bool json;
    bool sjf;               /* --backfill-sjf */
    bool predict;           /* --predict */
    const char *conf_path;  /* --conf */
    const char *compare[2]; /* --compare A B */
    const char *plot;       /* --plot FILE.svg */
    struct pool pools[2];   /* the pool(s) replayed: one, or two to
                             * compare */
    size_t npools;
};

static void refuse(const struct args *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));

/* "drover-sim: error: ..." and the --help hint; exit 1. */
static void refuse(const struct args *a, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: error: ", a->prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry \"drover-sim --help\" for more information\n");
    exit(1);
}

/* A whole non-negative number, at most 'max'. */
static int64_t number(const struct args *a, const char *opt, const char *s,
                      int64_t max)
{
    char *end;

    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno || v < 0 || v > max) {
        fprintf(stderr, "%s: error: %s: invalid number '%s'\n", a->prog, opt,
                s);
        exit(1);
    }
    return v;
}

static void add_policy(struct args *a, const char *name)
{
    enum sim_policy p;

    if (sim_policy_parse(name, &p) < 0)
        refuse(a, "--policy: unknown policy '%s' (fcfs, easy or default)",
               name);
    if (a->npolicy == MAX_POLICIES)
        refuse(a, "--policy: at most 16 policies");
    a->policy[a->npolicy++] = p;
}

static void set_procs(struct args *a, const char *s)
{
    if (!strcmp(s, "requested"))
        a->procs = SWF_PROCS_REQUESTED;
    else if (!strcmp(s, "allocated"))
        a->procs = SWF_PROCS_ALLOCATED;
    else
        refuse(a, "--procs: '%s' is not requested or allocated", s);
}

static void take_opt(struct args *a, int c, const char *arg)
{
    switch (c) {
    case OPT_POLICY: add_policy(a, arg); break;
    case OPT_NODES: a->nodes = (uint32_t)number(a, "--nodes", arg, 1000000); break;
    case OPT_CPN:
        a->cpus_per_node = (uint32_t)number(a, "--cpus-per-node", arg, 1 << 24);
        break;
    case OPT_PROCS: set_procs(a, arg); a->procs_set = true; break;
    case OPT_WINDOW: a->window_s = number(a, "--bf-window", arg, INT32_MAX); break;
    case OPT_RESOLUTION:
        a->resolution_s = number(a, "--bf-resolution", arg, 86400);
        break;
    case OPT_DEPTH:
        a->depth = number(a, "--bf-max-job-test", arg, UINT32_MAX);
        break;
    case OPT_JSON: a->json = true; break;
    case OPT_SJF: a->sjf = true; break;
    case OPT_PREDICT: a->predict = true; break;
    case OPT_CONF: a->conf_path = arg; break;
    case OPT_COMPARE: a->compare[0] = arg; break;
    case OPT_PLOT: a->plot = arg; break;
    case OPT_FROM_ACCT: a->acct = arg; break;
    case OPT_JOBS: a->jobs_path = arg; break;
    case 'h':
        cmd_print_help(stdout, usage_text, opts, NULL);
        exit(0);
    case OPT_USAGE:
        fputs(usage_text, stdout);
        exit(0);
    default:
        fprintf(stderr, "Try \"drover-sim --help\" for more information\n");
        exit(1);
    }
}

/* A pool from slurm.conf 'path' (--conf, --compare): its nodes as they
 * are and its partitions (sim_cluster_from_conf()), and the default
 * policy's knobs from SchedulerParameters, Slurm's defaults where unset
 * (bf_max_job_test 500, bf_window one day, bf_resolution 60 s). */
static void load_conf(const struct args *a, const char *path,
                      struct pool *pool)
{
    drv_error_t error = {{0}};
    struct slurm_conf *conf = conf_load(path, &error);

    if (!conf)
        refuse(a, "--conf: %s", error.text);
    *pool = (struct pool){.conf = path};
    conf_sched_pass_opts(conf, &pool->pass); /* as the controller plans */
    pool->builtin = conf->scheduler_type
                    && !strcasecmp(conf->scheduler_type, "sched/builtin");
    pool->slurm_backfill =
        conf->sched.drover_backfill == CONF_BACKFILL_SLURM;
    pool->extra_leads = conf->sched.bf_max_job_test;
    if (sim_cluster_from_conf(&pool->cluster, conf, &error) < 0) {
        conf_destroy(conf);
        refuse(a, "--conf: %s: %s", path, error.text);
    }
}

/* The pools: --compare's two, --conf's, or --nodes/--cpus-per-node (or
 * the trace's MaxProcs). */
static void set_pools(struct args *a)
{
    if ((a->conf_path || a->compare[0]) && a->nodes)
        refuse(a, "--conf/--compare and --nodes/--cpus-per-node do not go "
                  "together");
    if (a->conf_path && a->compare[0])
        refuse(a, "--conf and --compare do not go together");
    a->npools = a->compare[0] ? 2 : 1;
    if (a->compare[0]) {
        load_conf(a, a->compare[0], &a->pools[0]);
        load_conf(a, a->compare[1], &a->pools[1]);
    } else if (a->conf_path) {
        load_conf(a, a->conf_path, &a->pools[0]);
    } else {
        a->pools[0] = (struct pool){.nodes = a->nodes,
                                    .cpus_per_node = a->cpus_per_node};
    }
}

/* --from-accounting: no TRACE, a cluster to replay on, nothing SWF's. */
static void check_acct(struct args *a, int argc, char **argv)
{
    if (optind < argc)
        refuse(a, "--from-accounting replays accounting, not a TRACE "
                  "('%s')", argv[optind]);
    if (!a->conf_path && !a->compare[0])
        refuse(a, "--from-accounting needs --conf FILE (or --compare): the "
                  "cluster to replay the jobs on");
    if (a->procs_set)
        refuse(a, "--procs is for SWF traces, not --from-accounting");
    a->source = a->acct;
}

static void parse_args(int argc, char **argv, struct args *a)
{
    int c;

    while ((c = cmd_getopt(argc, argv, opts)) != -1)
        take_opt(a, c, optarg);
    if (a->compare[0] && optind < argc)
        a->compare[1] = argv[optind++]; /* --compare A B: B */
    if (a->compare[0] && !a->compare[1])
        refuse(a, "--compare needs two configurations and a TRACE");
    if (a->acct) {
        check_acct(a, argc, argv);
    } else {
        if (optind == argc)
            refuse(a, "a TRACE (SWF file, .gz or plain) is needed");
        if (optind < argc - 1)
            refuse(a, "one TRACE only, not '%s'", argv[argc - 1]);
        a->source = a->trace = argv[optind];
    }
    if (!a->nodes != !a->cpus_per_node)
        refuse(a, "--nodes and --cpus-per-node go together");
    set_pools(a);
    if (a->npolicy == 0) {
        a->policy[a->npolicy++] = SIM_POLICY_FCFS;
        a->policy[a->npolicy++] = SIM_POLICY_EASY;
        a->policy[a->npolicy++] = SIM_POLICY_DEFAULT;
    }
}

struct row {
    enum sim_policy policy;
    const struct pool *pool;
    int64_t *start;         /* with --plot: each job's start (-1: none) */
    struct sim_result r;
    double wall_s;
};

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;

    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec)
           + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static int replay(const struct args *a, const struct swf_trace *t,
                  struct row *row)
{
    struct sim_opts o;
    struct timespec t0;
    drv_error_t error = {{0}};

    const struct pool *pool = row->pool;

    sim_opts_init(&o, row->policy == SIM_POLICY_DEFAULT && pool->builtin
                          ? SIM_POLICY_FCFS /* no backfill */
                          : row->policy);
    if (pool->conf) {
        o.cluster = &pool->cluster;
        o.prio = &pool->cluster.prio; /* multifactor: the queue's order */
    }
    o.nodes = pool->nodes;
    o.cpus_per_node = pool->cpus_per_node;
    if (pool->conf && row->policy == SIM_POLICY_DEFAULT && !pool->builtin) {
        o.pass = pool->pass;
        o.extra_leads = pool->extra_leads;
        if (pool->slurm_backfill) /* Slurm's sched/backfill as it is */
            o.backfill_sjf = o.predict = o.slip_guard = false;
    }
    o.backfill_sjf |= a->sjf;
    o.predict |= a->predict;
    if (a->window_s >= 0)
        o.pass.window_s = a->window_s;
    if (a->resolution_s >= 0)
        o.pass.resolution_s = a->resolution_s;
    if (a->depth >= 0 && row->policy != SIM_POLICY_FCFS) {
        if (o.backfill_sjf) /* the jobs that lead besides the first */
            o.extra_leads = (uint32_t)a->depth;
        else
            o.pass.reserve_depth = (uint32_t)a->depth;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (a->plot || a->jobs_path)
        row->start = calloc(t->njobs ? t->njobs : 1, sizeof(*row->start));
    if (sim_run(t, &o, &row->r, row->start, &error) < 0) {
        fprintf(stderr, "%s: error: %s: %s\n", a->prog, a->source, error.text);
        return -1;
    }
    row->wall_s = seconds_since(&t0);
    return 0;
}

static double jobs_per_s(const struct row *row)
{
    return row->wall_s > 0 ? (double)row->r.jobs / row->wall_s : 0;
}

static void print_table(const struct args *a, const struct swf_trace *t,
                        const struct row *rows, size_t n)
{
    if (a->acct)
        printf("accounting %s: %zu jobs (%zu never started or still "
               "running, %zu malformed records), pool %ju CPUs\n", a->source,
               t->njobs, t->skipped, t->malformed,
               n ? (uintmax_t)rows[0].r.pool_cpus : 0);
    else
        printf("trace %s: %zu jobs (%zu skipped, %zu malformed lines), "
               "pool %ju CPUs\n", a->trace, t->njobs, t->skipped,
               t->malformed, n ? (uintmax_t)rows[0].r.pool_cpus : 0);
    if (a->npools > 1)
        printf("%-20s ", "CONF");
    printf("%-8s %8s %11s %9s %9s %9s %9s %9s %6s %11s %8s %9s\n", "POLICY",
           "JOBS", "AVG_WAIT_S", "AVG_BSLD", "P50_WAIT", "P95_WAIT",
           "P99_WAIT", "MAX_WAIT", "UTIL", "MAKESPAN_S", "WALL_S", "JOBS/S");
    for (size_t i = 0; i < n; i++) {
        const struct sim_result *r = &rows[i].r;
        if (a->npools > 1)
            printf("%-20s ", rows[i].pool->conf);
        printf("%-8s %8zu %11.1f %9.2f %9jd %9jd %9jd %9jd %6.3f %11jd "
               "%8.2f %9.0f\n", sim_policy_name(rows[i].policy), r->jobs,
               r->avg_wait_s, r->avg_bsld, (intmax_t)r->p50_wait_s,
               (intmax_t)r->p95_wait_s, (intmax_t)r->p99_wait_s,
               (intmax_t)r->max_wait_s, r->utilization,
               (intmax_t)r->makespan_s, rows[i].wall_s, jobs_per_s(&rows[i]));
        if (r->never)
            printf("  (%zu jobs larger than the pool never ran)\n", r->never);
    }
}

static json_t *row_json(const struct row *row)
{
    const struct sim_result *r = &row->r;

    json_t *o = json_pack("{s:s, s:I, s:I, s:f, s:f, s:I, s:I, s:I, s:I, s:f,"
                     " s:I, s:I, s:f, s:f}",
                     "policy", sim_policy_name(row->policy),
                     "jobs", (json_int_t)r->jobs,
                     "never", (json_int_t)r->never,
                     "avg_wait_s", r->avg_wait_s, "avg_bsld", r->avg_bsld,
                     "p50_wait_s", (json_int_t)r->p50_wait_s,
                     "p95_wait_s", (json_int_t)r->p95_wait_s,
                     "p99_wait_s", (json_int_t)r->p99_wait_s,
                     "max_wait_s", (json_int_t)r->max_wait_s,
                     "utilization", r->utilization,
                     "makespan_s", (json_int_t)r->makespan_s,
                     "pool_cpus", (json_int_t)r->pool_cpus,
                     "wall_s", row->wall_s, "jobs_per_s", jobs_per_s(row));

    if (o && row->pool->conf)
        json_object_set_new(o, "conf", json_string(row->pool->conf));
    return o;
}

static int print_json(const struct row *rows, size_t n)
{
    json_t *arr = json_array();

    for (size_t i = 0; i < n; i++)
        if (!arr || json_array_append_new(arr, row_json(&rows[i])) < 0) {
            json_decref(arr);
            return -1;
        }
    json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    putchar('\n');
    json_decref(arr);
    return 0;
}

/* The span the plot covers: the first submission to the last end. */
static void span(const struct swf_trace *t, const struct row *rows, size_t n,
                 int64_t *t0, int64_t *t1)
{
    *t0 = t->njobs ? t->jobs[0].submit : 0;
    *t1 = *t0 + 1;
    for (size_t i = 0; i < t->njobs; i++)
        *t0 = t->jobs[i].submit < *t0 ? t->jobs[i].submit : *t0;
    for (size_t k = 0; k < n; k++)
        if (*t0 + rows[k].r.makespan_s > *t1)
            *t1 = *t0 + rows[k].r.makespan_s;
}

/* --plot: one series per row, labelled by its policy (and its conf). */
static int plot(const struct args *a, const struct swf_trace *t,
                const struct row *rows, size_t n)
{
    struct sim_plot_series *s = calloc(n ? n : 1, sizeof(*s));
    char err[256], *labels[2 * MAX_POLICIES] = {0};
    int64_t t0, t1;
    int rc;

    span(t, rows, n, &t0, &t1);
    for (size_t k = 0; k < n; k++) {
        if (rows[k].pool->conf && asprintf(&labels[k], "%s %s",
                                           sim_policy_name(rows[k].policy),
                                           rows[k].pool->conf) < 0)
            labels[k] = NULL;
        s[k].label = labels[k] ? labels[k] : sim_policy_name(rows[k].policy);
        sim_plot_series_of(t, rows[k].start, rows[k].r.pool_cpus, t0, t1,
                           &s[k]);
    }
    rc = sim_plot_svg(a->plot, s, n, t0, t1, err, sizeof(err));
    if (rc < 0)
        fprintf(stderr, "%s: error: --plot: %s\n", a->prog, err);
    for (size_t k = 0; k < n; k++)
        free(labels[k]);
    free(s);
    return rc;
}

/* --jobs: each job's submit, start and end in each replay, trace order
 * (job id order for accounting). */
static int write_jobs(const struct args *a, const struct swf_trace *t,
                      const struct row *rows, size_t n)
{
    bool out = !strcmp(a->jobs_path, "-");
    FILE *f = out ? stdout : fopen(a->jobs_path, "w");

    if (!f) {
        fprintf(stderr, "%s: error: --jobs: %s: %s\n", a->prog, a->jobs_path,
                strerror(errno));
        return -1;
    }
    fprintf(f, "# %spolicy job_id submit start end (seconds from the first "
               "submission; -1: never started)\n",
            a->npools > 1 ? "conf " : "");
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < t->njobs; i++) {
            const struct swf_job *j = &t->jobs[i];
            int64_t st = rows[k].start[i];
            int64_t en = st < 0 ? -1 : st + sim_job_duration(j);
            if (a->npools > 1)
                fprintf(f, "%s ", rows[k].pool->conf);
            fprintf(f, "%s %jd %jd %jd %jd\n",
                    sim_policy_name(rows[k].policy), (intmax_t)j->id,
                    (intmax_t)j->submit, (intmax_t)st, (intmax_t)en);
        }
    if ((out ? fflush(f) : fclose(f)) != 0 || (out && ferror(f))) {
        fprintf(stderr, "%s: error: --jobs: %s: %s\n", a->prog, a->jobs_path,
                strerror(errno));
        return -1;
    }
    return 0;
}

/* --from-accounting SOURCE: a file (or '-'), else a date range for
 * which sacct is run. */
static int read_acct(const struct args *a, struct swf_trace *t,
                     drv_error_t *error)
{
    char start[SIM_SACCT_TIME_LEN], end[SIM_SACCT_TIME_LEN], *text;
    size_t len;
    int rc;

    if (!strcmp(a->acct, "-") || access(a->acct, F_OK) == 0
        || !sim_sacct_range(a->acct, start, end, error)) {
        if (error->text[0])
            return -1; /* shaped like a range, but not a valid one */
        return acct_trace_read(a->acct, t, error);
    }
    if (!(text = sim_sacct_run(start, end, &len, error)))
        return -1;
    rc = acct_trace_parse(text, len, "sacct --json", t, error);
    free(text);
    return rc;
}

/* Partitions the jobs ask for that a replayed cluster lacks: their jobs
 * never run there; say so. */
static void warn_parts(const struct args *a, const struct swf_trace *t)
{
    for (size_t p = 0; p < a->npools; p++)
        for (size_t k = 0; a->pools[p].conf && k < t->nparts; k++)
            if (sim_cluster_part(&a->pools[p].cluster, t->parts[k]) < 0)
                fprintf(stderr, "%s: warning: %s has no partition '%s': its "
                        "jobs never run\n", a->prog, a->pools[p].conf,
                        t->parts[k]);
}

int main(int argc, char **argv)
{
    struct args a = {
        .prog = cmd_prog_name(argv[0]),
        .window_s = -1, .resolution_s = -1, .depth = -1,
    };
    struct swf_trace t = {0};
    struct row rows[2 * MAX_POLICIES];
    size_t n = 0;
    int rc;
    drv_error_t error = {{0}};

    parse_args(argc, argv, &a);
    if ((a.acct ? read_acct(&a, &t, &error)
                : swf_read(a.trace, a.procs, &t, &error)) < 0) {
        fprintf(stderr, "%s: error: %s%s\n", a.prog,
                a.acct ? "--from-accounting: " : "", error.text);
        rc = -1;
        goto out; /* t is empty */
    }
    warn_parts(&a, &t);
    for (size_t p = 0; p < a.npools; p++)
        for (size_t i = 0; i < a.npolicy; i++, n++) {
            rows[n] = (struct row){.policy = a.policy[i],
                                   .pool = &a.pools[p]};
            if (replay(&a, &t, &rows[n]) < 0) {
                free(rows[n].start);
                rc = -1;
                goto out;
            }
        }
    if (a.json) {
        if (print_json(rows, n) < 0)
            fprintf(stderr, "%s: error: out of memory\n", a.prog);
    } else {
        print_table(&a, &t, rows, n);
    }
    rc = a.plot ? plot(&a, &t, rows, n) : 0;
    if (a.jobs_path && write_jobs(&a, &t, rows, n) < 0)
        rc = -1;
out:
    for (size_t k = 0; k < n; k++)
        free(rows[k].start);
    for (size_t p = 0; p < a.npools; p++)
        sim_cluster_free(&a.pools[p].cluster);
    swf_trace_free(&t);
    return rc < 0 ? 1 : 0;
}
