/* SPDX-License-Identifier: Apache-2.0
 *
 * sacct_fields.c - the value of each sacct field for a job or step row
 *
 * Job rows read the job record, step rows the step record; fields Slurm
 * leaves blank on step rows (Partition, NTasks of a job...) follow the
 * Slurm 22.05.8 goldens.  Widths are Slurm's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd/lib/jsonget.h"
#include "cmd/lib/sacct_print.h"
#include "common/sizefmt.h"
#include "common/timefmt.h"

/* The record a row's per-row values come from. */
static const json_t *own(const struct sacct_row *r)
{
    return r->step ? r->step : r->job;
}

void sacct_put_step_name(struct fmt_buf *out, int64_t id)
{
    if (id == SACCT_STEP_BATCH)
        fmt_buf_puts(out, "batch");
    else if (id == SACCT_STEP_EXTERN)
        fmt_buf_puts(out, "extern");
    else if (id == SACCT_STEP_INTERACTIVE)
        fmt_buf_puts(out, "interactive");
    else
        fmt_buf_printf(out, "%" PRId64, id);
}

void sacct_put_jobid(struct fmt_buf *out, const struct sacct_row *r)
{
    int64_t task = jint(r->job, "array_task_id", -1);
    const char *pending =
        json_string_value(json_object_get(r->job, "array_task_str"));

    if (pending && *pending) /* an array's tasks not split off yet */
        fmt_buf_printf(out, "%" PRId64 "_[%s]",
                       jint(r->job, "array_job_id", 0), pending);
    else if (task >= 0)
        fmt_buf_printf(out, "%" PRId64 "_%" PRId64,
                       jint(r->job, "array_job_id", 0), task);
    else
        fmt_buf_printf(out, "%" PRId64, jint(r->job, "job_id", 0));
    if (r->step) {
        fmt_buf_puts(out, ".");
        sacct_put_step_name(out, jint(r->step, "step_id", 0));
    }
}

void sacct_put_exit(struct fmt_buf *out, int64_t st)
{
    int sig = (int)(st & 0x7f);

    if (sig && sig != 0x7f)
        fmt_buf_printf(out, "0:%d", sig);
    else
        fmt_buf_printf(out, "%d:0", (int)((st >> 8) & 0xff));
}

int64_t sacct_suspended(const json_t *rec, time_t now)
{
    int64_t since = jint(rec, "suspend_time", 0);

    return jint(rec, "suspended_s", 0) + (since > 0 && now > since
                                               ? (int64_t)now - since : 0);
}

int64_t sacct_elapsed(const json_t *rec, time_t now)
{
    int64_t start = jint(rec, "start_time", 0);
    int64_t end = jint(rec, "end_time", 0);
    int64_t e;

    if (start <= 0)
        return 0;
    e = (end > 0 ? end : (int64_t)now) - start
        - sacct_suspended(rec, end > 0 ? end : now);
    return e > 0 ? e : 0;
}

/* Slurm's CPU time layout: "00:MM:SS", "MM:SS.mmm", "HH:MM:SS", "D-HH...". */
void sacct_put_cpu(struct fmt_buf *o, int64_t us)
{
    int64_t secs = us / 1000000, ms = us % 1000000 / 1000;
    int64_t d = secs / 86400, h = secs / 3600 % 24, m = secs / 60 % 60;
    int64_t s = secs % 60;

    if (d)
        fmt_buf_printf(o, "%" PRId64 "-%02" PRId64 ":%02" PRId64 ":%02" PRId64,
                       d, h, m, s);
    else if (h)
        fmt_buf_printf(o, "%02" PRId64 ":%02" PRId64 ":%02" PRId64, h, m, s);
    else if (ms)
        fmt_buf_printf(o, "%02" PRId64 ":%02" PRId64 ".%03" PRId64, m, s, ms);
    else
        fmt_buf_printf(o, "00:%02" PRId64 ":%02" PRId64, m, s);
}

static void put_duration(struct fmt_buf *o, int64_t secs)
{
    char buf[32];

    fmt_buf_puts(o, timefmt_duration(secs, 1, buf, sizeof(buf)));
}

static void put_date(struct fmt_buf *o, int64_t t)
{
    char buf[32];

    fmt_buf_puts(o, timefmt_stamp((time_t)t, 0, buf, sizeof(buf)));
}

/* Slurm's convert_num_unit(): 'v' in units of 'unit' (index into "
 * KMGTPE"), shown in the largest unit it is an exact multiple of, or in
 * --units with two decimals, or as stored with --noconvert.
 */
void sacct_put_size(struct fmt_buf *o, double v, int unit,
                    const struct sacct_ctx *ctx)
{
    static const char units[] = " KMGTPE";
    const char *want = ctx->units ? strchr(units + 1, ctx->units) : NULL;

    if (ctx->noconvert) {
        fmt_buf_printf(o, "%.0f%c", v, units[unit]);
        return;
    }
    if (want) {
        int target = (int)(want - units);
        for (; unit < target; unit++)
            v /= 1024;
        for (; unit > target; unit--)
            v *= 1024;
        if (v == (double)(int64_t)v)
            fmt_buf_printf(o, "%.0f%c", v, units[unit]);
        else
            fmt_buf_printf(o, "%.2f%c", v, units[unit]);
        return;
    }
    uint64_t n = (uint64_t)v;

    while (unit < 6 && n >= 1024 && n % 1024 == 0) {
        n /= 1024;
        unit++;
    }
    fmt_buf_printf(o, "%" PRIu64 "%c", n, units[unit]);
}

static void put_int(struct fmt_buf *o, const json_t *rec, const char *key)
{
    if (jhas(rec, key))
        fmt_buf_printf(o, "%" PRId64, jint(rec, key, 0));
}

/* --- printers ------------------------------------------------------------ */

#define JOB_STR(fn, key)                                                       \
    static void fn(struct fmt_buf *o, const struct sacct_row *r,               \
                   const struct sacct_ctx *c)                                  \
    {                                                                          \
        (void)c;                                                               \
        if (!r->step)                                                          \
            fmt_buf_puts(o, jstr(r->job, key));                                \
    }
#define JOB_INT(fn, key)                                                       \
    static void fn(struct fmt_buf *o, const struct sacct_row *r,               \
                   const struct sacct_ctx *c)                                  \
    {                                                                          \
        (void)c;                                                               \
        if (!r->step)                                                          \
            put_int(o, r->job, key);                                           \
    }
#define OWN_STR(fn, key)                                                       \
    static void fn(struct fmt_buf *o, const struct sacct_row *r,               \
                   const struct sacct_ctx *c)                                  \
    {                                                                          \
        (void)c;                                                               \
        fmt_buf_puts(o, jstr(own(r), key));                                    \
    }
#define OWN_INT(fn, key)                                                       \
    static void fn(struct fmt_buf *o, const struct sacct_row *r,               \
                   const struct sacct_ctx *c)                                  \
    {                                                                          \
        (void)c;                                                               \
        put_int(o, own(r), key);                                               \
    }
#define BOTH_STR(fn, key)                                                      \
    static void fn(struct fmt_buf *o, const struct sacct_row *r,               \
                   const struct sacct_ctx *c)                                  \
    {                                                                          \
        (void)c;                                                               \
        fmt_buf_puts(o, jstr(r->job, key));                                    \
    }

BOTH_STR(p_account, "account")
OWN_INT(p_ncpus, "ncpus")
OWN_STR(p_alloc_tres, "alloc_tres")
JOB_STR(p_comment, "comment")
JOB_STR(p_constraints, "constraints")
JOB_INT(p_gid, "gid")
JOB_STR(p_group, "group")
OWN_STR(p_name, "name")
OWN_INT(p_nnodes, "nnodes")
OWN_STR(p_nodes, "nodes")
JOB_STR(p_partition, "partition")
JOB_INT(p_priority, "priority")
BOTH_STR(p_qos, "qos")
JOB_STR(p_reason, "reason")
JOB_INT(p_req_cpus, "req_cpus")
JOB_STR(p_req_tres, "req_tres")
JOB_INT(p_uid, "uid")
JOB_STR(p_user, "user")
JOB_STR(p_work_dir, "work_dir")

static void p_cluster(struct fmt_buf *o, const struct sacct_row *r,
                      const struct sacct_ctx *c)
{
    fmt_buf_puts(o, jstr_or(r->job, "cluster", c->cluster ? c->cluster : ""));
}

static void p_ntasks(struct fmt_buf *o, const struct sacct_row *r,
                     const struct sacct_ctx *c)
{
    (void)c;
    if (r->step)
        put_int(o, r->step, "ntasks");
}

static void p_jobid(struct fmt_buf *o, const struct sacct_row *r,
                    const struct sacct_ctx *c)
{
    (void)c;
    sacct_put_jobid(o, r);
}

static void p_jobid_raw(struct fmt_buf *o, const struct sacct_row *r,
                        const struct sacct_ctx *c)
{
    (void)c;
    fmt_buf_printf(o, "%" PRId64, jint(r->job, "job_id", 0));
    if (r->step) {
        fmt_buf_puts(o, ".");
        sacct_put_step_name(o, jint(r->step, "step_id", 0));
    }
}

static void p_state(struct fmt_buf *o, const struct sacct_row *r,
                    const struct sacct_ctx *c)
{
    const char *st = jstr_or(own(r), "state", "UNKNOWN");

    (void)c;
    fmt_buf_puts(o, st);
    if (!r->step && !strcmp(st, "CANCELLED") && jhas(r->job, "cancelled_by"))
        fmt_buf_printf(o, " by %" PRId64, jint(r->job, "cancelled_by", 0));
}

static void p_exit(struct fmt_buf *o, const struct sacct_row *r,
                   const struct sacct_ctx *c)
{
    (void)c;
    sacct_put_exit(o, jint(own(r), "exit_status", 0));
}

static void p_derived_exit(struct fmt_buf *o, const struct sacct_row *r,
                           const struct sacct_ctx *c)
{
    (void)c;
    if (!r->step)
        sacct_put_exit(o, jint(r->job, "derived_exit_status", 0));
}

static void p_elapsed(struct fmt_buf *o, const struct sacct_row *r,
                      const struct sacct_ctx *c)
{
    put_duration(o, sacct_elapsed(own(r), c->now));
}

static void p_elapsed_raw(struct fmt_buf *o, const struct sacct_row *r,
                          const struct sacct_ctx *c)
{
    fmt_buf_printf(o, "%" PRId64, sacct_elapsed(own(r), c->now));
}

/* Time suspended (Slurm's Suspended); up to the end, or now. */
static void p_suspended(struct fmt_buf *o, const struct sacct_row *r,
                        const struct sacct_ctx *c)
{
    int64_t end = jint(own(r), "end_time", 0);

    put_duration(o, sacct_suspended(own(r), end > 0 ? (time_t)end : c->now));
}

static void p_cputime(struct fmt_buf *o, const struct sacct_row *r,
                      const struct sacct_ctx *c)
{
    put_duration(o, sacct_elapsed(own(r), c->now) * jint(own(r), "ncpus", 0));
}

static void p_cputime_raw(struct fmt_buf *o, const struct sacct_row *r,
                          const struct sacct_ctx *c)
{
    fmt_buf_printf(o, "%" PRId64,
                   sacct_elapsed(own(r), c->now) * jint(own(r), "ncpus", 0));
}

/* A job's CPU time is the sum over its steps (Slurm adds them up). */
static int64_t cpu_us(const struct sacct_row *r, bool user, bool sys)
{
    const json_t *steps = json_object_get(r->job, "steps");
    const json_t *s;
    int64_t sum = 0;
    size_t i;

    if (r->step)
        return (user ? jint(r->step, "user_cpu_us", 0) : 0)
               + (sys ? jint(r->step, "sys_cpu_us", 0) : 0);
    json_array_foreach(steps, i, s) {
        sum += (user ? jint(s, "user_cpu_us", 0) : 0)
               + (sys ? jint(s, "sys_cpu_us", 0) : 0);
    }
    return sum;
}

static void p_total_cpu(struct fmt_buf *o, const struct sacct_row *r,
                        const struct sacct_ctx *c)
{
    (void)c;
    sacct_put_cpu(o, cpu_us(r, true, true));
}

static void p_user_cpu(struct fmt_buf *o, const struct sacct_row *r,
                       const struct sacct_ctx *c)
{
    (void)c;
    sacct_put_cpu(o, cpu_us(r, true, false));
}

static void p_system_cpu(struct fmt_buf *o, const struct sacct_row *r,
                         const struct sacct_ctx *c)
{
    (void)c;
    sacct_put_cpu(o, cpu_us(r, false, true));
}

static void p_start(struct fmt_buf *o, const struct sacct_row *r,
                    const struct sacct_ctx *c)
{
    (void)c;
    put_date(o, jint(own(r), "start_time", 0));
}

static void p_end(struct fmt_buf *o, const struct sacct_row *r,
                  const struct sacct_ctx *c)
{
    (void)c;
    put_date(o, jint(own(r), "end_time", 0));
}

static void p_submit(struct fmt_buf *o, const struct sacct_row *r,
                     const struct sacct_ctx *c)
{
    (void)c;
    put_date(o, jint(r->job, "submit_time", 0));
}

static void p_eligible(struct fmt_buf *o, const struct sacct_row *r,
                       const struct sacct_ctx *c)
{
    (void)c;
    put_date(o, jint(r->job, "eligible_time", 0));
}

static void p_req_mem(struct fmt_buf *o, const struct sacct_row *r,
                      const struct sacct_ctx *c)
{
    int64_t mib = jint(r->job, "req_mem_mib", 0);

    if (mib > 0)
        sacct_put_size(o, (double)mib, 2, c);
    else
        fmt_buf_puts(o, "0");
}

static void p_max_rss(struct fmt_buf *o, const struct sacct_row *r,
                      const struct sacct_ctx *c)
{
    int64_t kib = r->step ? jint(r->step, "max_rss_kib", -1) : -1;

    if (kib >= 0)
        sacct_put_size(o, (double)kib, 1, c);
}

static void p_max_rss_node(struct fmt_buf *o, const struct sacct_row *r,
                           const struct sacct_ctx *c)
{
    (void)c;
    if (r->step)
        fmt_buf_puts(o, jstr(r->step, "max_rss_node"));
}

static void p_max_rss_task(struct fmt_buf *o, const struct sacct_row *r,
                           const struct sacct_ctx *c)
{
    (void)c;
    if (r->step && jint(r->step, "max_rss_task", -1) >= 0)
        put_int(o, r->step, "max_rss_task");
}

/* Slurm's mins2time_str(): "UNLIMITED", else as Elapsed. */
static void p_timelimit(struct fmt_buf *o, const struct sacct_row *r,
                        const struct sacct_ctx *c)
{
    int64_t min = jint(r->job, "time_limit_min", -1);

    (void)c;
    if (r->step)
        return;
    if (min < 0)
        fmt_buf_puts(o, "UNLIMITED");
    else
        put_duration(o, min * 60);
}

static void p_timelimit_raw(struct fmt_buf *o, const struct sacct_row *r,
                            const struct sacct_ctx *c)
{
    int64_t min = jint(r->job, "time_limit_min", -1);

    (void)c;
    if (r->step)
        return;
    if (min < 0)
        fmt_buf_puts(o, "UNLIMITED");
    else
        fmt_buf_printf(o, "%" PRId64, min);
}

/* Slurm's sacct -l list (22.05); fields Drover has no data for are blank. */
const char *const sacct_format_long =
    "JobID,JobIDRaw,JobName,Partition,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,"
    "AveVMSize,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MaxPages,MaxPagesNode,"
    "MaxPagesTask,AvePages,MinCPU,MinCPUNode,MinCPUTask,AveCPU,NTasks,"
    "AllocCPUS,Elapsed,State,ExitCode,AveCPUFreq,ReqCPUFreqMin,"
    "ReqCPUFreqMax,ReqCPUFreqGov,ReqMem,ConsumedEnergy,MaxDiskRead,"
    "MaxDiskReadNode,MaxDiskReadTask,AveDiskRead,MaxDiskWrite,"
    "MaxDiskWriteNode,MaxDiskWriteTask,AveDiskWrite,ReqTRES,AllocTRES,"
    "TRESUsageInAve,TRESUsageInMax,TRESUsageInMaxNode,TRESUsageInMaxTask,"
    "TRESUsageInMin,TRESUsageInMinNode,TRESUsageInMinTask,TRESUsageInTot,"
    "TRESUsageOutMax,TRESUsageOutMaxNode,TRESUsageOutMaxTask,"
    "TRESUsageOutAve,TRESUsageOutTot";

const struct sacct_field sacct_fields[] = {
    {"Account", 10, p_account, false},
    {"AllocCPUS", 10, p_ncpus, true},
    {"AllocTRES", 10, p_alloc_tres, false},
    {"AveCPU", 10, NULL, false},
    {"AveCPUFreq", 10, NULL, false},
    {"AveDiskRead", 14, NULL, false},
    {"AveDiskWrite", 14, NULL, false},
    {"AvePages", 10, NULL, false},
    {"AveRSS", 10, NULL, false},
    {"AveVMSize", 10, NULL, false},
    {"Cluster", 10, p_cluster, false},
    {"Comment", 14, p_comment, false},
    {"ConsumedEnergy", 14, NULL, false},
    {"Constraints", 20, p_constraints, false},
    {"CPUTime", 10, p_cputime, false},
    {"CPUTimeRAW", 10, p_cputime_raw, true},
    {"DerivedExitCode", 15, p_derived_exit, false},
    {"Elapsed", 10, p_elapsed, false},
    {"ElapsedRaw", 10, p_elapsed_raw, true},
    {"Eligible", 19, p_eligible, false},
    {"End", 19, p_end, false},
    {"ExitCode", 8, p_exit, false},
    {"GID", 6, p_gid, true},
    {"Group", 9, p_group, false},
    {"JobID", -12, p_jobid, false},
    {"JobIDRaw", -12, p_jobid_raw, false},
    {"JobName", 10, p_name, false},
    {"MaxDiskRead", 12, NULL, false},
    {"MaxDiskReadNode", 15, NULL, false},
    {"MaxDiskReadTask", 15, NULL, false},
    {"MaxDiskWrite", 12, NULL, false},
    {"MaxDiskWriteNode", 16, NULL, false},
    {"MaxDiskWriteTask", 16, NULL, false},
    {"MaxPages", 8, NULL, false},
    {"MaxPagesNode", 12, NULL, false},
    {"MaxPagesTask", 12, NULL, false},
    {"MaxRSS", 10, p_max_rss, false},
    {"MaxRSSNode", 10, p_max_rss_node, false},
    {"MaxRSSTask", 10, p_max_rss_task, true},
    {"MaxVMSize", 10, NULL, false},
    {"MaxVMSizeNode", 13, NULL, false},
    {"MaxVMSizeTask", 13, NULL, false},
    {"MinCPU", 10, NULL, false},
    {"MinCPUNode", 10, NULL, false},
    {"MinCPUTask", 10, NULL, false},
    {"NCPUS", 10, p_ncpus, true},
    {"NNodes", 8, p_nnodes, false},
    {"NodeList", 15, p_nodes, false},
    {"NTasks", 8, p_ntasks, false},
    {"Partition", 10, p_partition, false},
    {"Priority", 10, p_priority, true},
    {"QOS", 10, p_qos, false},
    {"Reason", 20, p_reason, false},
    {"ReqCPUFreqGov", 13, NULL, false},
    {"ReqCPUFreqMax", 13, NULL, false},
    {"ReqCPUFreqMin", 13, NULL, false},
    {"ReqCPUS", 8, p_req_cpus, true},
    {"ReqMem", 10, p_req_mem, false},
    {"ReqTRES", 10, p_req_tres, false},
    {"Start", 19, p_start, false},
    {"State", 10, p_state, false},
    {"Submit", 19, p_submit, false},
    {"Suspended", 10, p_suspended, false},
    {"SystemCPU", 10, p_system_cpu, false},
    {"Timelimit", 10, p_timelimit, false},
    {"TimelimitRaw", 12, p_timelimit_raw, false},
    {"TotalCPU", 10, p_total_cpu, false},
    {"TRESUsageInAve", 14, NULL, false},
    {"TRESUsageInMax", 14, NULL, false},
    {"TRESUsageInMaxNode", 18, NULL, false},
    {"TRESUsageInMaxTask", 18, NULL, false},
    {"TRESUsageInMin", 14, NULL, false},
    {"TRESUsageInMinNode", 18, NULL, false},
    {"TRESUsageInMinTask", 18, NULL, false},
    {"TRESUsageInTot", 14, NULL, false},
    {"TRESUsageOutAve", 15, NULL, false},
    {"TRESUsageOutMax", 15, NULL, false},
    {"TRESUsageOutMaxNode", 19, NULL, false},
    {"TRESUsageOutMaxTask", 19, NULL, false},
    {"TRESUsageOutTot", 15, NULL, false},
    {"UID", 6, p_uid, true},
    {"User", 9, p_user, false},
    {"UserCPU", 10, p_user_cpu, false},
    {"WorkDir", 20, p_work_dir, false},
    {NULL, 0, NULL, false},
};
