/* SPDX-License-Identifier: Apache-2.0
 *
 * sstat.c - what running job steps use now (Slurm's sstat)
 *
 * One job_stat request per job to the controller, which asks the job's
 * nodes (step_stat: each step cgroup's processes, read from /proc as
 * Slurm's jobacct_gather/linux does).  A step's figures are folded over
 * its nodes: totals and averages over its processes, the largest (or
 * smallest CPU) process with its node.  Where Slurm 22.05 without a
 * jobacct_gather plugin prints empty or overflowing values (golden
 * sstat-*), Drover prints the real ones (docs/compatibility.md).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/lib/format.h"
#include "cmd/lib/opt.h"
#include "cmd/lib/print_fields.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/sacct_print.h"
#include "common/xalloc.h"

#define STEP_BATCH (-5)  /* 4294967291 in the protocol */
#define STEP_EXTERN (-4)
#define STEP_NONE (-1)

enum { OPT_USAGE = CMD_OPT_LONG, OPT_NOCONVERT };

static const struct cmd_opt opts[] = {
    {"allsteps", 'a', no_argument,
     "      -a, --allsteps:                                                       \n"
     "                   Print all steps for the given job(s) when no step is     \n"
     "                   specified.                                               \n"},
    {"helpformat", 'e', no_argument,
     "      -e, --helpformat:                                                     \n"
     "\t           Print a list of fields that can be specified with the    \n"
     "\t           '--format' option                                        \n"},
    {"help", 'h', no_argument,
     "     -h, --help:   Print this description of use.                           \n"},
    {"pidformat", 'i', no_argument,
     "     -i, --pidformat:                                                       \n"
     "                   Predefined format to list the pids running for each      \n"
     "                   job step.  (JobId,Nodes,Pids)                            \n"},
    {"jobs", 'j', required_argument,
     "     -j, --jobs:                                                            \n"
     "\t           Format is <job(.step)>. Stat this job step               \n"
     "                   or comma-separated list of job steps. This option is     \n"
     "                   required.  The step portion will default to the lowest   \n"
     "                   numbered (not batch, extern, etc) step running if not    \n"
     "                   specified, unless the --allsteps flag is set where not   \n"
     "                   specifying a step will result in all running steps       \n"
     "                   to be displayed. A step id of 'batch' will display the   \n"
     "                   information about the batch step. A step id of 'extern'  \n"
     "                   will display the information about the extern step       \n"
     "                   when using PrologFlags=contain.                          \n"},
    {"noheader", 'n', no_argument,
     "     -n, --noheader:                                                        \n"
     "\t           No header will be added to the beginning of output.      \n"
     "                   The default is to print a header.                        \n"},
    {"noconvert", OPT_NOCONVERT, no_argument,
     "     --noconvert:  Don't convert units from their original type             \n"
     "\t\t   (e.g. 2048M won't be converted to 2G).                   \n"},
    {"format", 'o', required_argument,
     "     -o, --format:                                                          \n"
     "\t           Comma separated list of fields. (use \"--helpformat\"    \n"
     "                   for a list of available fields).                         \n"},
    {"fields", 'o', required_argument, NULL},
    {"parsable", 'p', no_argument,
     "     -p, --parsable: output will be '|' delimited with a '|' at the end     \n"},
    {"parsable2", 'P', no_argument,
     "     -P, --parsable2: output will be '|' delimited without a '|' at the end \n"},
    {"usage", OPT_USAGE, no_argument,
     "     --usage:      Display brief usage message.                             \n"},
    {"verbose", 'v', no_argument,
     "     -v, --verbose:                                                         \n"
     "\t           Primarily for debugging purposes, report the state of    \n"
     "                   various variables during processing.                     \n"},
    {"version", 'V', no_argument,
     "     -V, --version: Print version.                                          \n\n"},
    CMD_OPT_END,
};

static const char help_head[] =
    "sstat [<OPTION>] -j <job(.stepid)>                                          \n"
    "    Valid <OPTION> values are:                                              \n";
static const char usage_text[] =
    "Usage: sstat [options] -j <job(.stepid)>\n\tUse --help for help\n";

/* Slurm's default field list (golden sstat-batch-default). */
static const char default_fields[] =
    "JobID,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,AveVMSize,MaxRSS,"
    "MaxRSSNode,MaxRSSTask,AveRSS,MaxPages,MaxPagesNode,MaxPagesTask,"
    "AvePages,MinCPU,MinCPUNode,MinCPUTask,AveCPU,NTasks,AveCPUFreq,"
    "ReqCPUFreqMin,ReqCPUFreqMax,ReqCPUFreqGov,ConsumedEnergy,MaxDiskRead,"
    "MaxDiskReadNode,MaxDiskReadTask,AveDiskRead,MaxDiskWrite,"
    "MaxDiskWriteNode,MaxDiskWriteTask,AveDiskWrite,TRESUsageInAve,"
    "TRESUsageInMax,TRESUsageInMaxNode,TRESUsageInMaxTask,TRESUsageInMin,"
    "TRESUsageInMinNode,TRESUsageInMinTask,TRESUsageInTot,TRESUsageOutAve,"
    "TRESUsageOutMax,TRESUsageOutMaxNode,TRESUsageOutMaxTask,"
    "TRESUsageOutMin,TRESUsageOutMinNode,TRESUsageOutMinTask,"
    "TRESUsageOutTot";
static const char pid_fields[] = "JobID,Nodelist,Pids";

/* One step folded over its nodes. */
struct step_use {
    uint32_t job_id;
    int64_t step;               /* >= 0, STEP_BATCH, STEP_EXTERN */
    int64_t tasks;              /* the controller's task count, 0: unknown */
    int64_t ntasks, cpu_us, rss_kib, vm_kib, rd, wr; /* ntasks: processes */
    int64_t min_cpu_us, max_rss_kib, max_vm_kib, max_rd, max_wr;
    const char *min_cpu_node, *max_rss_node, *max_vm_node, *max_rd_node,
        *max_wr_node;
    char nodes[1024];           /* comma list of the step's nodes */
};

struct field {
    const char *name;
    int width;
    void (*print)(struct fmt_buf *o, const struct step_use *s,
                  const struct sacct_ctx *c);
};

static int64_t ave(int64_t total, int64_t n)
{
    return n > 0 ? total / n : 0;
}

#define SIZE_FIELD(fn, expr, unit)                                             \
    static void fn(struct fmt_buf *o, const struct step_use *s,                \
                   const struct sacct_ctx *c)                                  \
    {                                                                          \
        sacct_put_size(o, (double)(expr), unit, c);                            \
    }
#define TEXT_FIELD(fn, expr)                                                   \
    static void fn(struct fmt_buf *o, const struct step_use *s,                \
                   const struct sacct_ctx *c)                                  \
    {                                                                          \
        (void)c;                                                               \
        fmt_buf_puts(o, (expr) ? (expr) : "");                                 \
    }
#define CPU_FIELD(fn, expr)                                                    \
    static void fn(struct fmt_buf *o, const struct step_use *s,                \
                   const struct sacct_ctx *c)                                  \
    {                                                                          \
        (void)c;                                                               \
        sacct_put_cpu(o, (expr));                                              \
    }

SIZE_FIELD(p_max_vm, s->max_vm_kib, 1)
SIZE_FIELD(p_ave_vm, ave(s->vm_kib, s->ntasks), 1)
SIZE_FIELD(p_max_rss, s->max_rss_kib, 1)
SIZE_FIELD(p_ave_rss, ave(s->rss_kib, s->ntasks), 1)
SIZE_FIELD(p_max_rd, s->max_rd, 0)
SIZE_FIELD(p_ave_rd, ave(s->rd, s->ntasks), 0)
SIZE_FIELD(p_max_wr, s->max_wr, 0)
SIZE_FIELD(p_ave_wr, ave(s->wr, s->ntasks), 0)
TEXT_FIELD(p_max_vm_node, s->max_vm_node)
TEXT_FIELD(p_max_rss_node, s->max_rss_node)
TEXT_FIELD(p_min_cpu_node, s->min_cpu_node)
TEXT_FIELD(p_max_rd_node, s->max_rd_node)
TEXT_FIELD(p_max_wr_node, s->max_wr_node)
TEXT_FIELD(p_nodelist, s->nodes)
CPU_FIELD(p_min_cpu, s->min_cpu_us)
CPU_FIELD(p_ave_cpu, ave(s->cpu_us, s->ntasks))

static void p_jobid(struct fmt_buf *o, const struct step_use *s,
                    const struct sacct_ctx *c)
{
    (void)c;
    fmt_buf_printf(o, "%u.", s->job_id);
    sacct_put_step_name(o, s->step == STEP_BATCH    ? 4294967291LL
                           : s->step == STEP_EXTERN ? 4294967292LL
                                                    : s->step);
}

static void p_zero(struct fmt_buf *o, const struct step_use *s,
                   const struct sacct_ctx *c)
{
    (void)s, (void)c;
    fmt_buf_puts(o, "0");
}

/* The step's tasks (srun -n), as the controller counts them; the
 * processes found when it does not know the step. */
static void p_ntasks(struct fmt_buf *o, const struct step_use *s,
                     const struct sacct_ctx *c)
{
    (void)c;
    fmt_buf_printf(o, "%" PRId64, s->tasks ? s->tasks : s->ntasks);
}

/* TRESUsageIn*: cpu, fs/disk (bytes read), mem (RSS), vmem. */
static void tres_in(struct fmt_buf *o, const struct step_use *s,
                    int64_t cpu_us, int64_t disk, int64_t mem_kib,
                    int64_t vm_kib)
{
    (void)s;
    fmt_buf_puts(o, "cpu=");
    sacct_put_cpu(o, cpu_us);
    fmt_buf_printf(o, ",fs/disk=%" PRId64 ",mem=%" PRId64 "K,vmem=%" PRId64
                      "K",
                   disk, mem_kib, vm_kib);
}

static void p_tin_ave(struct fmt_buf *o, const struct step_use *s,
                      const struct sacct_ctx *c)
{
    (void)c;
    tres_in(o, s, ave(s->cpu_us, s->ntasks), ave(s->rd, s->ntasks),
            ave(s->rss_kib, s->ntasks), ave(s->vm_kib, s->ntasks));
}

static void p_tin_max(struct fmt_buf *o, const struct step_use *s,
                      const struct sacct_ctx *c)
{
    (void)c;
    tres_in(o, s, s->cpu_us, s->max_rd, s->max_rss_kib, s->max_vm_kib);
}

static void p_tin_min(struct fmt_buf *o, const struct step_use *s,
                      const struct sacct_ctx *c)
{
    (void)c;
    tres_in(o, s, s->min_cpu_us, 0, 0, 0);
}

static void p_tin_tot(struct fmt_buf *o, const struct step_use *s,
                      const struct sacct_ctx *c)
{
    (void)c;
    tres_in(o, s, s->cpu_us, s->rd, s->rss_kib, s->vm_kib);
}

static void p_tin_node(struct fmt_buf *o, const struct step_use *s,
                       const struct sacct_ctx *c)
{
    (void)c;
    fmt_buf_printf(o, "cpu=%s,fs/disk=%s,mem=%s,vmem=%s",
                   s->min_cpu_node ?: "", s->max_rd_node ?: "",
                   s->max_rss_node ?: "", s->max_vm_node ?: "");
}

static void p_tin_task(struct fmt_buf *o, const struct step_use *s,
                       const struct sacct_ctx *c)
{
    (void)s, (void)c;
    fmt_buf_puts(o, "cpu=0,fs/disk=0,mem=0,vmem=0");
}

static void p_tout(struct fmt_buf *o, const struct step_use *s,
                   const struct sacct_ctx *c)
{
    (void)c;
    fmt_buf_printf(o, "fs/disk=%" PRId64, s->wr);
}

static void p_tout_ave(struct fmt_buf *o, const struct step_use *s,
                       const struct sacct_ctx *c)
{
    (void)c;
    fmt_buf_printf(o, "fs/disk=%" PRId64, ave(s->wr, s->ntasks));
}

static void p_tout_max(struct fmt_buf *o, const struct step_use *s,
                       const struct sacct_ctx *c)
{
    (void)c;
    fmt_buf_printf(o, "fs/disk=%" PRId64, s->max_wr);
}

static void p_tout_node(struct fmt_buf *o, const struct step_use *s,
                        const struct sacct_ctx *c)
{
    (void)c;
    fmt_buf_printf(o, "fs/disk=%s", s->max_wr_node ?: "");
}

static void p_tout_task(struct fmt_buf *o, const struct step_use *s,
                        const struct sacct_ctx *c)
{
    (void)s, (void)c;
    fmt_buf_puts(o, "fs/disk=0");
}

/* Widths as Slurm's sstat prints them (golden sstat-batch-default). */
static const struct field fields[] = {
    {"AveCPU", 10, p_ave_cpu}, {"AveCPUFreq", 10, p_zero},
    {"AveDiskRead", 12, p_ave_rd}, {"AveDiskWrite", 12, p_ave_wr},
    {"AvePages", 10, p_zero}, {"AveRSS", 10, p_ave_rss},
    {"AveVMSize", 10, p_ave_vm}, {"ConsumedEnergy", 14, p_zero},
    {"JobID", -12, p_jobid}, {"MaxDiskRead", 12, p_max_rd},
    {"MaxDiskReadNode", 15, p_max_rd_node}, {"MaxDiskReadTask", 15, p_zero},
    {"MaxDiskWrite", 12, p_max_wr}, {"MaxDiskWriteNode", 16, p_max_wr_node},
    {"MaxDiskWriteTask", 16, p_zero}, {"MaxPages", 8, p_zero},
    {"MaxPagesNode", 12, p_max_rss_node}, {"MaxPagesTask", 14, p_zero},
    {"MaxRSS", 10, p_max_rss}, {"MaxRSSNode", 10, p_max_rss_node},
    {"MaxRSSTask", 10, p_zero}, {"MaxVMSize", 10, p_max_vm},
    {"MaxVMSizeNode", 14, p_max_vm_node}, {"MaxVMSizeTask", 14, p_zero},
    {"MinCPU", 10, p_min_cpu}, {"MinCPUNode", 10, p_min_cpu_node},
    {"MinCPUTask", 10, p_zero}, {"Nodelist", 20, p_nodelist},
    {"NTasks", 8, p_ntasks}, {"ReqCPUFreqMin", 13, p_zero},
    {"ReqCPUFreqMax", 13, p_zero}, {"ReqCPUFreqGov", 13, p_zero},
    {"TRESUsageInAve", 14, p_tin_ave}, {"TRESUsageInMax", 14, p_tin_max},
    {"TRESUsageInMaxNode", 18, p_tin_node},
    {"TRESUsageInMaxTask", 18, p_tin_task},
    {"TRESUsageInMin", 14, p_tin_min},
    {"TRESUsageInMinNode", 18, p_tin_node},
    {"TRESUsageInMinTask", 18, p_tin_task},
    {"TRESUsageInTot", 14, p_tin_tot}, {"TRESUsageOutAve", 15, p_tout_ave},
    {"TRESUsageOutMax", 15, p_tout_max},
    {"TRESUsageOutMaxNode", 19, p_tout_node},
    {"TRESUsageOutMaxTask", 19, p_tout_task},
    {"TRESUsageOutMin", 15, p_tout_max},
    {"TRESUsageOutMinNode", 19, p_tout_node},
    {"TRESUsageOutMinTask", 19, p_tout_task},
    {"TRESUsageOutTot", 15, p_tout},
    {NULL, 0, NULL},
};

struct args {
    const char *prog;
    const char *jobs, *format;
    bool all, noheader, pidformat;
    enum pf_layout layout;
    struct sacct_ctx ctx;
};

/* Pids of the step's processes, "node:pid,pid node2:..." (-i). */
static char pid_text[64 * 1024];

static void p_pids(struct fmt_buf *o, const struct step_use *s,
                   const struct sacct_ctx *c)
{
    (void)s, (void)c;
    fmt_buf_puts(o, pid_text);
}

static const struct field pid_field = {"Pids", 20, p_pids};

static const struct field *field_find(const char *name, size_t len)
{
    if (len == 4 && !strncasecmp(name, "Pids", 4))
        return &pid_field;
    for (const struct field *f = fields; f->name; f++)
        if (strlen(f->name) == len && !strncasecmp(f->name, name, len))
            return f;
    return NULL;
}

static void print_helpformat(void)
{
    int n = 0;

    for (const struct field *f = fields; f->name; f++)
        printf("%-20s%s", f->name, ++n % 4 ? "" : "\n");
    if (n % 4)
        putchar('\n');
}

static void parse_args(int argc, char **argv, struct args *a)
{
    int c;

    while ((c = cmd_getopt(argc, argv, opts)) != -1) {
        switch (c) {
        case 'a': a->all = true; break;
        case 'e': print_helpformat(); exit(0);
        case 'i': a->pidformat = true; break;
        case 'j': a->jobs = optarg; break;
        case 'n': a->noheader = true; break;
        case OPT_NOCONVERT: a->ctx.noconvert = true; break;
        case 'o': a->format = optarg; break;
        case 'p': a->layout = PF_PARSABLE; break;
        case 'P': a->layout = PF_PARSABLE2; break;
        case 'v': break;
        case 'V': cmd_print_version(); exit(0);
        case 'h': cmd_print_help(stdout, help_head, opts, NULL); exit(0);
        case OPT_USAGE: fputs(usage_text, stdout); exit(0);
        default: fputs(usage_text, stderr); exit(1);
        }
    }
    if (optind < argc && !a->jobs)
        a->jobs = argv[optind++];
    if (!a->jobs) {
        cmd_error(a->prog, "You didn't give me any jobs to stat.");
        exit(1);
    }
}

/* "12", "12.3", "12.batch", "12.extern" into *job and *step
 * (STEP_NONE without a step).  False when malformed. */
static bool parse_spec(const char *s, size_t len, uint32_t *job,
                       int64_t *step)
{
    char buf[64], *end, *dot;
    unsigned long v;

    if (len == 0 || len >= sizeof(buf))
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    dot = strchr(buf, '.');
    if (dot)
        *dot++ = '\0';
    errno = 0;
    v = strtoul(buf, &end, 10);
    if (errno || *end || end == buf || v == 0 || v > UINT32_MAX)
        return false;
    *job = (uint32_t)v;
    *step = STEP_NONE;
    if (!dot)
        return true;
    if (!strcasecmp(dot, "batch"))
        *step = STEP_BATCH;
    else if (!strcasecmp(dot, "extern"))
        *step = STEP_EXTERN;
    else {
        v = strtoul(dot, &end, 10);
        if (*end || end == dot || v >= 4294967040UL)
            return false;
        *step = (int64_t)v;
    }
    return true;
}

static int64_t step_of(const char *name)
{
    if (!strcmp(name, "batch"))
        return STEP_BATCH;
    if (!strcmp(name, "extern"))
        return STEP_EXTERN;
    return strtoll(name, NULL, 10);
}

/* The step 'id' of 'steps' (n of them), added when new. */
static struct step_use *step_slot(struct step_use **steps, size_t *n,
                                  uint32_t job, int64_t id)
{
    for (size_t i = 0; i < *n; i++)
        if ((*steps)[i].step == id)
            return &(*steps)[i];
    *steps = xrealloc(*steps, (*n + 1) * sizeof(**steps));
    (*steps)[*n] = (struct step_use){.job_id = job, .step = id,
                                     .min_cpu_us = -1};
    return &(*steps)[(*n)++];
}

#define TAKE_MAX(field, node_field, value)                                     \
    do {                                                                       \
        if ((value) > s->field || !s->node_field) {                            \
            s->field = (value);                                                \
            s->node_field = node;                                              \
        }                                                                      \
    } while (0)

/* Fold one node's record of one step into 's'. */
static void fold(struct step_use *s, const char *node, const json_t *st)
{
    int64_t procs = json_integer_value(json_object_get(st, "processes"));
    int64_t min_cpu = json_integer_value(json_object_get(st, "min_cpu_us"));
    size_t len = strlen(s->nodes);

    if (procs <= 0)
        return;
    snprintf(s->nodes + len, sizeof(s->nodes) - len, "%s%s", len ? "," : "",
             node);
    s->ntasks += procs;
    s->cpu_us += json_integer_value(json_object_get(st, "cpu_us"));
    s->rss_kib += json_integer_value(json_object_get(st, "rss_kib"));
    s->vm_kib += json_integer_value(json_object_get(st, "vm_kib"));
    s->rd += json_integer_value(json_object_get(st, "read_bytes"));
    s->wr += json_integer_value(json_object_get(st, "write_bytes"));
    if (s->min_cpu_us < 0 || min_cpu < s->min_cpu_us) {
        s->min_cpu_us = min_cpu;
        s->min_cpu_node = node;
    }
    TAKE_MAX(max_rss_kib, max_rss_node,
             json_integer_value(json_object_get(st, "max_rss_kib")));
    TAKE_MAX(max_vm_kib, max_vm_node,
             json_integer_value(json_object_get(st, "max_vm_kib")));
    TAKE_MAX(max_rd, max_rd_node,
             json_integer_value(json_object_get(st, "max_read_bytes")));
    TAKE_MAX(max_wr, max_wr_node,
             json_integer_value(json_object_get(st, "max_write_bytes")));
}

/* Every step of the job_stat answer 'resp', folded over its nodes. */
static struct step_use *fold_steps(const json_t *resp, uint32_t job,
                                   size_t *n)
{
    struct step_use *steps = NULL;
    json_t *node, *st;
    size_t i, k;

    *n = 0;
    json_array_foreach(json_object_get(resp, "nodes"), i, node) {
        const char *name = json_string_value(json_object_get(node, "node"));
        json_array_foreach(json_object_get(node, "steps"), k, st) {
            const char *id = json_string_value(json_object_get(st, "step"));
            if (name && id)
                fold(step_slot(&steps, n, job, step_of(id)), name, st);
        }
    }
    return steps;
}

static void pids_of(const json_t *resp, int64_t step)
{
    size_t len = 0, i, k;
    json_t *node, *st, *pid;

    pid_text[0] = '\0';
    json_array_foreach(json_object_get(resp, "nodes"), i, node) {
        json_array_foreach(json_object_get(node, "steps"), k, st) {
            size_t p;
            if (step_of(json_string_value(json_object_get(st, "step")) ?: "")
                != step)
                continue;
            json_array_foreach(json_object_get(st, "pids"), p, pid)
                len += (size_t)snprintf(pid_text + len,
                                        len < sizeof(pid_text)
                                            ? sizeof(pid_text) - len : 0,
                                        "%s%lld", len ? "," : "",
                                        (long long)json_integer_value(pid));
        }
    }
}

/* Which steps a spec selects: its own; without one, all (-a) or the
 * lowest numbered srun step (not batch or extern), as Slurm's sstat. */
static bool selected(const struct step_use *s, const struct step_use *all,
                     size_t n, int64_t want, bool every)
{
    int64_t lowest = -1;

    if (s->ntasks == 0)
        return false;
    if (want != STEP_NONE)
        return s->step == want;
    if (every)
        return true;
    for (size_t i = 0; i < n; i++)
        if (all[i].step >= 0 && all[i].ntasks
            && (lowest < 0 || all[i].step < lowest))
            lowest = all[i].step;
    return s->step == lowest;
}

struct columns {
    const struct field *f[64];
    size_t n;
};

/* The -o list into columns; exits on an unknown field, as sstat does. */
static void parse_format(const struct args *a, const char *list,
                         struct columns *cols)
{
    cols->n = 0;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        const struct field *f;
        if (len) {
            if (!(f = field_find(p, len))) {
                fprintf(stderr, "%s: error: Invalid field requested: "
                                "\"%.*s\"\n", a->prog, (int)len, p);
                exit(1);
            }
            if (cols->n < sizeof(cols->f) / sizeof(cols->f[0]))
                cols->f[cols->n++] = f;
        }
        p += len + (p[len] == ',');
    }
}

static void print_header(const struct args *a, const struct columns *cols)
{
    const char *titles[64];
    int widths[64];
    struct fmt_buf out = {0};

    for (size_t i = 0; i < cols->n; i++) {
        titles[i] = cols->f[i]->name;
        widths[i] = cols->f[i]->width;
    }
    pf_titles(&out, a->layout, NULL, titles, widths, cols->n);
    fputs(fmt_buf_str(&out), stdout);
    free(out.s);
}

static void print_row(const struct args *a, const struct columns *cols,
                      const struct step_use *s)
{
    struct fmt_buf out = {0}, cell = {0};

    for (size_t i = 0; i < cols->n; i++) {
        fmt_buf_reset(&cell);
        cols->f[i]->print(&cell, s, &a->ctx);
        pf_cell(&out, a->layout, NULL, fmt_buf_str(&cell), cols->f[i]->width,
                false, i + 1 == cols->n);
    }
    fputs(fmt_buf_str(&out), stdout);
    putchar('\n');
    free(out.s);
    free(cell.s);
}

/* Stat one -j element; false after printing why it could not. */
static bool stat_one(const struct args *a, const struct columns *cols,
                     const char *spec, size_t len)
{
    drv_error_t error = {{0}};
    json_t *resp = NULL;
    struct step_use *steps;
    uint32_t job;
    int64_t want;
    size_t n;

    if (!parse_spec(spec, len, &job, &want)) {
        fprintf(stderr, "%s: error: Invalid job id: %.*s\n", a->prog,
                (int)len, spec);
        return false;
    }
    if (cmd_rpc(a->prog, "job_stat", json_pack("{s:I}", "job_id",
                                               (json_int_t)job),
                &resp, &error)
        < 0) {
        fprintf(stderr, "%s: error: couldn't get steps for job %u: %s\n",
                a->prog, job, error.text);
        return false;
    }
    steps = fold_steps(resp, job, &n);
    for (size_t i = 0; i < n; i++) {
        char name[24];
        if (steps[i].step == STEP_BATCH)
            snprintf(name, sizeof(name), "batch");
        else if (steps[i].step == STEP_EXTERN)
            snprintf(name, sizeof(name), "extern");
        else
            snprintf(name, sizeof(name), "%" PRId64, steps[i].step);
        steps[i].tasks = json_integer_value(
            json_object_get(json_object_get(resp, "tasks"), name));
    }
    for (size_t i = 0; i < n; i++) {
        if (!selected(&steps[i], steps, n, want, a->all))
            continue;
        pids_of(resp, steps[i].step);
        print_row(a, cols, &steps[i]);
    }
    free(steps);
    json_decref(resp);
    return true;
}

int main(int argc, char **argv)
{
    struct args a = {.prog = cmd_prog_name(argv[0])};
    struct columns cols;
    int rc = 0;

    parse_args(argc, argv, &a);
    parse_format(&a, a.pidformat ? pid_fields
                                 : a.format ? a.format : default_fields,
                 &cols);
    if (!a.noheader)
        print_header(&a, &cols);
    for (const char *p = a.jobs; *p;) {
        size_t len = strcspn(p, ",");
        if (len && !stat_one(&a, &cols, p, len))
            rc = 1;
        p += len + (p[len] == ',');
    }
    return rc;
}
