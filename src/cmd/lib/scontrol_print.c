/* SPDX-License-Identifier: Apache-2.0
 *
 * scontrol_print.c - scontrol's Key=Value records for jobs, nodes and
 * partitions
 *
 * Values Drover's controller does not send fall back as follows:
 * AccrueTime is the eligible time, LastSchedEval the start (or submit)
 * time, AllocNode the submit host, and DerivedExitCode 0:0 (there are no
 * job steps yet).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cmd/lib/format.h"
#include "cmd/lib/jobview.h"
#include "cmd/lib/jsonget.h"
#include "cmd/lib/names.h"
#include "cmd/lib/scontrol_print.h"
#include "cmd/lib/states.h"
#include "common/mailtype.h"
#include "common/bitmap.h"
#include "common/hostlist.h"
#include "common/sizefmt.h"
#include "common/timefmt.h"
#include "common/xalloc.h"

/* Shared by the three printers: the output and the line separator. */
struct rec {
    struct fmt_buf out;
    const char *le; /* "\n   ", or " " with -o */
    const struct scontrol_ctx *ctx;
};

static void rec_init(struct rec *r, const struct scontrol_ctx *ctx)
{
    memset(&r->out, 0, sizeof(r->out));
    r->le = ctx->one_liner ? " " : "\n   ";
    r->ctx = ctx;
}

static void rec_eol(struct rec *r)
{
    fmt_buf_puts(&r->out, r->le);
}

/* True for an array's pending record once some of its tasks have been
 * split off: Slurm shows that record with EligibleTime=Unknown (golden
 * scontrol-show-job-array), its tasks with their own. */
static bool tasks_split_off(const json_t *job)
{
    const char *pending = jstr(job, "array_pending");
    int64_t max = jint(job, "array_task_max", 0);
    bitmap_t *set;
    bool split;

    if (!pending || !*pending || max < 0 || jhas(job, "array_task_id"))
        return false;
    if (!(set = bitmap_parse(pending, (size_t)max + 1, NULL)))
        return false;
    split = (int64_t)bitmap_count(set) < jint(job, "array_task_count", 0);
    bitmap_destroy(set);
    return split;
}

static const char *stamp(time_t t, char *buf, size_t size)
{
    return timefmt_stamp(t, 0, buf, size);
}

/* ExitCode=status:signal from a raw wait status. */
static void put_exit(struct rec *r, const char *key, const json_t *job,
                     const char *field)
{
    const char *text = jstr(job, "exit_code");
    int st;

    if (jhas(job, field)) {
        st = (int)jint(job, field, 0);
        fmt_buf_printf(&r->out, "%s=%d:%d", key,
                       WIFEXITED(st) ? WEXITSTATUS(st) : 0,
                       WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    } else {
        fmt_buf_printf(&r->out, "%s=%s", key,
                       text && strcmp(field, "exit_status") == 0 ? text
                                                                 : "0:0");
    }
}

static void job_line_ids(struct rec *r, const json_t *job)
{
    const char *tasks = jstr(job, "array_task_str");
    int64_t throttle = jint(job, "array_max_tasks", 0);

    fmt_buf_printf(&r->out, "JobId=%u ", job_view_job_id(job));
    if (job_view_is_array(job)) {
        fmt_buf_printf(&r->out, "ArrayJobId=%lld ",
                       (long long)jint(job, "array_job_id", 0));
        if (tasks && tasks[0])
            fmt_buf_printf(&r->out, "ArrayTaskId=%s ", tasks);
        else
            fmt_buf_printf(&r->out, "ArrayTaskId=%lld ",
                           (long long)jint(job, "array_task_id", 0));
        if (throttle > 0)
            fmt_buf_printf(&r->out, "ArrayTaskThrottle=%lld ",
                           (long long)throttle);
    }
    fmt_buf_printf(&r->out, "JobName=%s", jstr_or(job, "name", "(null)"));
    rec_eol(r);
    fmt_buf_printf(&r->out, "UserId=%s(%lld) GroupId=%s(%lld) MCS_label=N/A",
                   job_view_user(job), (long long)jint(job, "user_id", 0),
                   job_view_group(job), (long long)jint(job, "group_id", 0));
    rec_eol(r);
    fmt_buf_printf(&r->out, "Priority=%lld Nice=%lld Account=%s QOS=%s",
                   (long long)jint(job, "priority", 0),
                   (long long)jint(job, "nice", 0),
                   jstr_or(job, "account", "(null)"),
                   jstr_or(job, "qos", "normal"));
    rec_eol(r);
}

static void job_line_state(struct rec *r, const json_t *job)
{
    char reason[128];

    /* Slurm's scontrol writes a reason's spaces as underscores */
    snprintf(reason, sizeof(reason), "%s", job_view_reason(job));
    for (char *p = reason; *p; p++)
        if (*p == ' ')
            *p = '_';
    fmt_buf_printf(&r->out, "JobState=%s Reason=%s Dependency=%s",
                   job_state_name(job_state_of(job)), reason,
                   jstr_or(job, "dependency", "(null)"));
    rec_eol(r);
    if (r->ctx->detail && jstr(job, "pending_explain")) {
        /* Drover's: why it waits, in words */
        fmt_buf_printf(&r->out, "Explain=%s", jstr(job, "pending_explain"));
        rec_eol(r);
    }
    fmt_buf_printf(&r->out, "Requeue=%d Restarts=%lld BatchFlag=%lld Reboot=0 ",
                   jbool(job, "requeue", true) ? 1 : 0,
                   (long long)jint(job, "restarts", 0),
                   (long long)jint(job, "batch_flag", 1));
    put_exit(r, "ExitCode", job, "exit_status");
    rec_eol(r);
    if (r->ctx->detail) {
        put_exit(r, "DerivedExitCode", job, "derived_exit_status");
        rec_eol(r);
    }
}

static void job_line_times(struct rec *r, const json_t *job)
{
    char b1[32], b2[32];
    int64_t limit = job_view_time_limit(job);
    int64_t tmin = jint(job, "time_min_s", 0);

    fmt_buf_printf(&r->out, "RunTime=%s ",
                   timefmt_duration(job_view_time_used(job, r->ctx->now), 1,
                                    b1, sizeof(b1)));
    fmt_buf_printf(&r->out, "TimeLimit=%s TimeMin=%s",
                   timefmt_duration(limit, 1, b1, sizeof(b1)),
                   tmin > 0 ? timefmt_duration(tmin, 1, b2, sizeof(b2))
                            : "N/A");
    rec_eol(r);
    fmt_buf_printf(&r->out, "SubmitTime=%s EligibleTime=%s",
                   stamp((time_t)jint(job, "submit_time", 0), b1, sizeof(b1)),
                   stamp(tasks_split_off(job)
                             ? 0
                             : (time_t)jint(job, "eligible_time", 0),
                         b2, sizeof(b2)));
    rec_eol(r);
    fmt_buf_printf(&r->out, "AccrueTime=%s",
                   stamp((time_t)jint(job, "accrue_time",
                                      jint(job, "eligible_time", 0)),
                         b1, sizeof(b1)));
    rec_eol(r);
}

static void job_line_start_end(struct rec *r, const json_t *job)
{
    char b1[32], b2[32];
    time_t end = job_view_end_time(job);
    int64_t start = jint(job, "start_time", 0);
    int64_t eval = jint(job, "last_sched_eval",
                        start ? start : jint(job, "submit_time", 0));

    fmt_buf_printf(&r->out, "StartTime=%s ",
                   stamp((time_t)start, b1, sizeof(b1)));
    if (job_view_time_limit(job) == TIME_INFINITE && end > r->ctx->now)
        fmt_buf_puts(&r->out, "EndTime=Unknown ");
    else
        fmt_buf_printf(&r->out, "EndTime=%s ", stamp(end, b1, sizeof(b1)));
    fmt_buf_puts(&r->out, "Deadline=N/A");
    rec_eol(r);
    if (jstr_or(job, "cron_spec", NULL)) { /* scrontab's, as Slurm */
        fmt_buf_printf(&r->out, "CronJob=Yes CrontabSpec=\"%s\"",
                       jstr_or(job, "cron_spec", ""));
        rec_eol(r);
    }
    int64_t susp = jint(job, "suspend_time", 0);
    fmt_buf_printf(&r->out, "SuspendTime=%s SecsPreSuspend=%lld ",
                   susp ? stamp((time_t)susp, b2, sizeof(b2)) : "None",
                   (long long)jint(job, "pre_sus_s", 0));
    fmt_buf_printf(&r->out, "LastSchedEval=%s Scheduler=%s",
                   stamp((time_t)eval, b1, sizeof(b1)),
                   jstr_or(job, "scheduler", "Main"));
    rec_eol(r);
}

static void job_line_nodes(struct rec *r, const json_t *job)
{
    const char *sched = jstr_or(job, "sched_nodes", NULL);
    char *host = job_view_batch_host(job);

    fmt_buf_printf(&r->out, "Partition=%s AllocNode:Sid=%s:%lld",
                   jstr_or(job, "partition", "(null)"),
                   jstr_or(job, "alloc_node",
                           jstr_or(job, "submit_host", "(null)")),
                   (long long)jint(job, "alloc_sid", 0));
    rec_eol(r);
    fmt_buf_puts(&r->out, "ReqNodeList=(null) ExcNodeList=(null)");
    rec_eol(r);
    fmt_buf_printf(&r->out, "NodeList=%s", job_view_nodes(job));
    if (sched)
        fmt_buf_printf(&r->out, " SchedNodeList=%s", sched);
    rec_eol(r);
    if (host) {
        fmt_buf_printf(&r->out, "BatchHost=%s", host);
        rec_eol(r);
    }
    free(host);
}

/* A -B part of the record ("sockets_per_node"...): the number, or "*"
 * when not asked. */
static const char *topo_part(const json_t *job, const char *key, char *buf,
                             size_t size)
{
    int64_t v = jint(job, key, 0);

    if (v <= 0)
        return "*";
    snprintf(buf, size, "%lld", (long long)v);
    return buf;
}

/* Slurm shows "min-max" nodes for a pending job that set a maximum.
 * ReqB:S:C:T is Slurm's boards per node, sockets per board (neither is
 * asked for by its commands: 0), cores per socket and threads per core;
 * Socks/Node is --sockets-per-node. */
static void job_line_counts(struct rec *r, const json_t *job)
{
    int64_t max = jint(job, "nodes_max", 0);
    const char *tres = jstr_or(job, "tres_alloc", NULL);
    char sock[24], core[24], thread[24];

    if (job_state_is_pending(job_base_state_of(job)) && max > 0)
        fmt_buf_printf(&r->out, "NumNodes=%u-%lld ",
                       job_view_node_count(job), (long long)max);
    else
        fmt_buf_printf(&r->out, "NumNodes=%u ", job_view_node_count(job));
    fmt_buf_printf(&r->out,
                   "NumCPUs=%u NumTasks=%lld CPUs/Task=%lld "
                   "ReqB:S:C:T=0:0:%s:%s",
                   job_view_cpus(job), (long long)jint(job, "num_tasks", 1),
                   (long long)jint(job, "cpus_per_task", 1),
                   topo_part(job, "cores_per_socket", core, sizeof(core)),
                   topo_part(job, "threads_per_core", thread,
                             sizeof(thread)));
    rec_eol(r);
    fmt_buf_printf(&r->out, "TRES=%s",
                   tres ? tres : jstr_or(job, "tres_req", ""));
    rec_eol(r);
    fmt_buf_printf(&r->out,
                   "Socks/Node=%s NtasksPerN:B:S:C=%lld:0:*:* CoreSpec=*",
                   topo_part(job, "sockets_per_node", sock, sizeof(sock)),
                   (long long)jint(job, "ntasks_per_node", 0));
    rec_eol(r);
}

/* Number of indices in "0-1,4". */
static unsigned index_count(const char *s)
{
    unsigned n = 0;
    char *end;

    while (s && *s) {
        unsigned long lo = strtoul(s, &end, 10), hi = lo;

        if (end == s)
            break;
        if (*end == '-')
            hi = strtoul(end + 1, &end, 10);
        n += hi >= lo ? (unsigned)(hi - lo + 1) : 1;
        s = *end == ',' ? end + 1 : end;
        if (*end != ',')
            break;
    }
    return n;
}

static const json_t *job_alloc(const json_t *job)
{
    const json_t *a = json_object_get(job, "alloc");

    if (json_is_array(a) && json_array_size(a) > 0)
        return a;
    a = json_object_get(job, "last_alloc");
    return (json_is_array(a) && json_array_size(a) > 0) ? a : NULL;
}

/* What a job's shares are: "mps" for --gres=mps:N, else "shard". */
static const char *share_of(const json_t *job)
{
    return json_integer_value(json_object_get(job, "mps_per_node")) > 0
               ? "mps" : "shard";
}

/* "gpu:2(IDX:0-1)" for one node's GPUs, "shard:2(IDX:0)" (or mps) for its
 * shares (of the GPU in IDX), "" when none. */
static void put_node_gres(struct fmt_buf *b, const json_t *job,
                          const json_t *e)
{
    const char *type = jstr_or(job, "gpu_type", NULL);
    const char *gpus = jstr(e, "gpus");
    json_int_t shards = json_integer_value(json_object_get(e, "shards"));

    if (!gpus || !gpus[0])
        return;
    if (shards > 0) {
        fmt_buf_printf(b, "%s:%lld(IDX:%s)", share_of(job), (long long)shards,
                       gpus);
        return;
    }
    fmt_buf_printf(b, "gpu:%s%s%u(IDX:%s)", type ? type : "", type ? ":" : "",
                   index_count(gpus), gpus);
}

static void put_job_gres(struct rec *r, const json_t *job, const json_t *a)
{
    const char *type = jstr_or(job, "gpu_type", NULL);
    const char *total = jstr_or(job, "gres_total", NULL);
    unsigned n = 0, shards = 0;
    size_t i;
    json_t *e;

    json_array_foreach(a, i, e) {
        json_int_t s = json_integer_value(json_object_get(e, "shards"));
        if (s > 0)
            shards += (unsigned)s;
        else
            n += index_count(jstr(e, "gpus"));
    }
    if (total)
        fmt_buf_printf(&r->out, "JOB_GRES=%s", total);
    else if (shards)
        fmt_buf_printf(&r->out, "JOB_GRES=%s:%u", share_of(job), shards);
    else if (n)
        fmt_buf_printf(&r->out, "JOB_GRES=gpu:%s%s%u", type ? type : "",
                       type ? ":" : "", n);
    else
        fmt_buf_puts(&r->out, "JOB_GRES=(null)");
    rec_eol(r);
}

/* One "  Nodes=... CPU_IDs=... Mem=... GRES=..." line per run of nodes with
 * the same allocation, as Slurm groups them.
 */
static void job_line_detail(struct rec *r, const json_t *job)
{
    const json_t *a = job_alloc(job);
    struct fmt_buf prev = {0}, cur = {0};
    hostlist_t *hl = hostlist_create();
    size_t i;
    json_t *e;

    if (!a || !hl) {
        hostlist_destroy(hl);
        return;
    }
    put_job_gres(r, job, a);
    json_array_foreach(a, i, e) {
        fmt_buf_reset(&cur);
        fmt_buf_printf(&cur, "CPU_IDs=%s Mem=%lld GRES=",
                       jstr_or(e, "cpu_ids", ""),
                       (long long)jint(e, "mem_mib", 0));
        put_node_gres(&cur, job, e);
        if (hostlist_count(hl) && strcmp(fmt_buf_str(&prev), cur.s) != 0) {
            char *nodes = hostlist_encode(hl);

            fmt_buf_printf(&r->out, "  Nodes=%s %s", nodes, prev.s);
            rec_eol(r);
            free(nodes);
            hostlist_destroy(hl);
            hl = hostlist_create();
        }
        fmt_buf_reset(&prev);
        fmt_buf_puts(&prev, cur.s);
        hostlist_append(hl, jstr_or(e, "node", ""));
    }
    if (hl && hostlist_count(hl)) {
        char *nodes = hostlist_encode(hl);

        fmt_buf_printf(&r->out, "  Nodes=%s %s", nodes, fmt_buf_str(&prev));
        rec_eol(r);
        free(nodes);
    }
    hostlist_destroy(hl);
    free(prev.s);
    free(cur.s);
}

static void job_line_request(struct rec *r, const json_t *job)
{
    char buf[32], tmp[32], *esc;
    int per_cpu;
    uint64_t mib = job_view_min_memory(job, &per_cpu);
    uint64_t tmp_mib = (uint64_t)jint(job, "min_tmp_mib", 0);

    fmt_buf_printf(&r->out,
                   "MinCPUsNode=%u MinMemory%s=%s MinTmpDiskNode=%s",
                   job_view_min_cpus(job), per_cpu ? "CPU" : "Node",
                   mib ? sizefmt_mib(mib, buf, sizeof(buf)) : "0",
                   tmp_mib ? sizefmt_mib(tmp_mib, tmp, sizeof(tmp)) : "0");
    rec_eol(r);
    fmt_buf_puts(&r->out, "Features=(null) DelayBoot=00:00:00");
    rec_eol(r);
    fmt_buf_printf(&r->out,
                   "OverSubscribe=%s Contiguous=0 Licenses=(null) "
                   "Network=(null)",
                   jbool(job, "exclusive", false) ? "NO" : "OK");
    rec_eol(r);
    /* The one value the controller takes with control characters. */
    esc = fmt_escape(jstr(job, "command"));
    fmt_buf_printf(&r->out, "Command=%s",
                   esc ? esc : jstr_or(job, "command", "(null)"));
    free(esc);
    rec_eol(r);
    fmt_buf_printf(&r->out, "WorkDir=%s", jstr_or(job, "work_dir", "(null)"));
}

/* Expand %A %a %j %u %x (and %%) in an output path as scontrol does, and
 * make it absolute under the working directory.  A pending array's tasks
 * have no task id yet; Slurm prints its NO_VAL there.
 */
static void put_path(struct fmt_buf *b, const json_t *job, const char *pat)
{
    int64_t array_id = jint(job, "array_job_id", 0);
    int64_t task = jint(job, "array_task_id", 4294967294LL);
    const char *wd = jstr_or(job, "work_dir", "");

    if (pat[0] != '/')
        fmt_buf_printf(b, "%s/", wd);
    for (const char *p = pat; *p; p++) {
        if (p[0] != '%' || !p[1]) {
            fmt_buf_printf(b, "%c", *p);
            continue;
        }
        switch (*++p) {
        case 'A':
            fmt_buf_printf(b, "%lld", (long long)(array_id > 0
                                                      ? array_id
                                                      : job_view_job_id(job)));
            break;
        case 'a':
            fmt_buf_printf(b, "%lld", (long long)task);
            break;
        case 'j':
            fmt_buf_printf(b, "%u", job_view_job_id(job));
            break;
        case 'u':
            fmt_buf_puts(b, job_view_user(job));
            break;
        case 'x':
            fmt_buf_puts(b, jstr_or(job, "name", ""));
            break;
        default:
            fmt_buf_printf(b, "%%%c", *p);
        }
    }
}

static void job_line_stdio(struct rec *r, const json_t *job)
{
    const char *out = jstr_or(job, "std_out", NULL);
    const char *err = jstr_or(job, "std_err", NULL);
    const char *dflt = job_view_is_array(job) ? "slurm-%A_%a.out"
                                              : "slurm-%j.out";

    if (!out)
        out = dflt;
    rec_eol(r);
    fmt_buf_puts(&r->out, "StdErr=");
    put_path(&r->out, job, err ? err : out);
    rec_eol(r);
    fmt_buf_puts(&r->out, "StdIn=");
    put_path(&r->out, job, jstr_or(job, "std_in", "/dev/null"));
    rec_eol(r);
    fmt_buf_puts(&r->out, "StdOut=");
    put_path(&r->out, job, out);
}

/* Slurm 22.05: "MailUser=U MailType=T" after Power=, for a job with a
 * mail type. */
static void job_line_mail(struct rec *r, const json_t *job)
{
    uint32_t bits = (uint32_t)jint(job, "mail_type", 0);
    char types[160];

    if (!bits)
        return;
    rec_eol(r);
    fmt_buf_printf(&r->out, "MailUser=%s MailType=%s",
                   jstr_or(job, "mail_user", "(null)"),
                   mailtype_string(bits, types, sizeof(types)));
}

char *scontrol_sprint_job(const json_t *job, const struct scontrol_ctx *ctx)
{
    struct rec r;
    const char *comment = jstr_or(job, "comment", NULL);
    const char *tpn = jstr_or(job, "tres_per_node", NULL);
    const char *gtype = jstr_or(job, "gpu_type", NULL);
    int64_t gps = jint(job, "gpus_per_socket", 0);

    rec_init(&r, ctx);
    job_line_ids(&r, job);
    job_line_state(&r, job);
    job_line_times(&r, job);
    job_line_start_end(&r, job);
    job_line_nodes(&r, job);
    job_line_counts(&r, job);
    if (ctx->detail)
        job_line_detail(&r, job);
    job_line_request(&r, job);
    if (comment) {
        rec_eol(&r);
        fmt_buf_printf(&r.out, "Comment=%s ", comment);
    }
    if (jint(job, "batch_flag", 1))
        job_line_stdio(&r, job);
    rec_eol(&r);
    fmt_buf_puts(&r.out, "Power=");
    job_line_mail(&r, job);
    if (tpn) {
        rec_eol(&r);
        fmt_buf_printf(&r.out, "TresPerNode=%s", tpn);
    }
    if (gps > 0) { /* Slurm's line after TresPerNode= */
        rec_eol(&r);
        fmt_buf_printf(&r.out, "TresPerSocket=gres:gpu:%s%s%lld",
                       gtype ? gtype : "", gtype ? ":" : "", (long long)gps);
    }
    rec_eol(&r);
    fmt_buf_puts(&r.out, ctx->one_liner ? "\n" : "\n\n");
    return r.out.s;
}

/* --- nodes --------------------------------------------------------------- */

static void node_lines_head(struct rec *r, const json_t *n)
{
    const char *arch = jstr_or(n, "arch", NULL);
    int64_t cpus = jint(n, "cpus", 0);

    fmt_buf_printf(&r->out, "NodeName=%s ", jstr_or(n, "name", ""));
    if (arch)
        fmt_buf_printf(&r->out, "Arch=%s ", arch);
    fmt_buf_printf(&r->out, "CoresPerSocket=%lld ",
                   (long long)jint(n, "cores_per_socket", 1));
    rec_eol(r);
    fmt_buf_printf(&r->out, "CPUAlloc=%lld CPUEfctv=%lld CPUTot=%lld ",
                   (long long)jint(n, "alloc_cpus", 0),
                   (long long)jint(n, "cpus_effective", cpus),
                   (long long)cpus);
    if (jhas(n, "cpu_load"))
        fmt_buf_printf(&r->out, "CPULoad=%.2f",
                       (double)jint(n, "cpu_load", 0) / 100.0);
    else
        fmt_buf_puts(&r->out, "CPULoad=N/A");
    rec_eol(r);
    fmt_buf_printf(&r->out, "AvailableFeatures=%s",
                   jstr_or(n, "features", "(null)"));
    rec_eol(r);
    fmt_buf_printf(&r->out, "ActiveFeatures=%s",
                   jstr_or(n, "features_active",
                           jstr_or(n, "features", "(null)")));
    rec_eol(r);
    fmt_buf_printf(&r->out, "Gres=%s", jstr_or(n, "gres", "(null)"));
    rec_eol(r);
}

static void node_lines_addr(struct rec *r, const json_t *n)
{
    const char *name = jstr_or(n, "name", "");
    const char *version = jstr_or(n, "version", NULL);
    const char *os = jstr_or(n, "os", NULL);
    int64_t port = jint(n, "port", 0);

    fmt_buf_printf(&r->out, "NodeAddr=%s NodeHostName=%s ",
                   jstr_or(n, "addr", name), jstr_or(n, "hostname", name));
    if (port > 0 && port != r->ctx->slurmd_port)
        fmt_buf_printf(&r->out, "Port=%lld ", (long long)port);
    if (version)
        fmt_buf_printf(&r->out, "Version=%s", version);
    rec_eol(r);
    if (os) {
        fmt_buf_printf(&r->out, "OS=%s ", os);
        rec_eol(r);
    }
    fmt_buf_printf(&r->out, "RealMemory=%lld AllocMem=%lld ",
                   (long long)jint(n, "real_memory_mib", 0),
                   (long long)jint(n, "alloc_mem_mib", 0));
    if (jhas(n, "free_mem_mib"))
        fmt_buf_printf(&r->out, "FreeMem=%lld ",
                       (long long)jint(n, "free_mem_mib", 0));
    else
        fmt_buf_puts(&r->out, "FreeMem=N/A ");
    fmt_buf_printf(&r->out, "Sockets=%lld Boards=1",
                   (long long)jint(n, "sockets", 1));
    rec_eol(r);
}

static void node_lines_state(struct rec *r, const json_t *n)
{
    const char *str = jstr_or(n, "state_str", NULL);
    char *state = str ? xstrdup(str) : node_state_complete(node_state_of(n));
    json_t *parts = json_object_get(n, "partitions");
    size_t i;
    json_t *p;

    fmt_buf_printf(&r->out,
                   "State=%s ThreadsPerCore=%lld TmpDisk=%lld Weight=%lld "
                   "Owner=N/A MCS_label=N/A",
                   state, (long long)jint(n, "threads_per_core", 1),
                   (long long)jint(n, "tmp_disk_mib", 0),
                   (long long)jint(n, "weight", 1));
    rec_eol(r);
    free(state);
    if (json_is_array(parts) && json_array_size(parts) > 0) {
        fmt_buf_puts(&r->out, "Partitions=");
        json_array_foreach(parts, i, p)
            fmt_buf_printf(&r->out, "%s%s", i ? "," : "",
                           json_is_string(p) ? json_string_value(p) : "");
        fmt_buf_puts(&r->out, " ");
        rec_eol(r);
    }
}

static void node_lines_times(struct rec *r, const json_t *n)
{
    char b1[32];
    int64_t boot = jint(n, "boot_time", 0);
    int64_t start = jint(n, "slurmd_start_time", 0);

    fmt_buf_printf(&r->out, "BootTime=%s ",
                   timefmt_stamp((time_t)boot, 1, b1, sizeof(b1)));
    fmt_buf_printf(&r->out, "SlurmdStartTime=%s",
                   timefmt_stamp((time_t)start, 1, b1, sizeof(b1)));
    rec_eol(r);
    fmt_buf_printf(&r->out, "LastBusyTime=%s",
                   stamp((time_t)jint(n, "last_busy_time", 0), b1,
                         sizeof(b1)));
    rec_eol(r);
    fmt_buf_printf(&r->out, "CfgTRES=%s", jstr_or(n, "cfg_tres", ""));
    rec_eol(r);
    fmt_buf_printf(&r->out, "AllocTRES=%s", jstr_or(n, "alloc_tres", ""));
    rec_eol(r);
    fmt_buf_puts(&r->out, "CapWatts=n/a");
    rec_eol(r);
    fmt_buf_puts(&r->out, "CurrentWatts=0 AveWatts=0");
    rec_eol(r);
    fmt_buf_puts(&r->out,
                 "ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s");
}

char *scontrol_sprint_node(const json_t *node, const struct scontrol_ctx *ctx)
{
    struct rec r;
    const char *reason = jstr_or(node, "reason", NULL);
    char b1[32];

    rec_init(&r, ctx);
    node_lines_head(&r, node);
    node_lines_addr(&r, node);
    node_lines_state(&r, node);
    node_lines_times(&r, node);
    if (reason) {
        rec_eol(&r);
        fmt_buf_printf(&r.out, "Reason=%s [%s@%s]", reason,
                       jstr_or(node, "reason_user", "Unknown"),
                       stamp((time_t)jint(node, "reason_time", 0), b1,
                             sizeof(b1)));
    }
    fmt_buf_puts(&r.out, ctx->one_liner ? "\n" : "\n\n");
    return r.out.s;
}

/* --- partitions ---------------------------------------------------------- */

static const char *part_time(const json_t *p, const char *key,
                             const char *none, char *buf, size_t size)
{
    int64_t secs = jint(p, key, TIME_INFINITE);

    return secs < 0 ? none : timefmt_duration(secs, 1, buf, size);
}

static void part_lines_limits(struct rec *r, const json_t *p)
{
    char b1[32], b2[32];
    int64_t max_nodes = jint(p, "max_nodes", -1);

    fmt_buf_printf(&r->out,
                   "DefaultTime=%s DisableRootJobs=%s ExclusiveUser=NO "
                   "GraceTime=%lld Hidden=%s",
                   part_time(p, "default_time_s", "NONE", b1, sizeof(b1)),
                   jbool(p, "disable_root_jobs", false) ? "YES" : "NO",
                   (long long)jint(p, "grace_time_s", 0),
                   jbool(p, "hidden", false) ? "YES" : "NO");
    rec_eol(r);
    if (max_nodes < 0)
        fmt_buf_puts(&r->out, "MaxNodes=UNLIMITED ");
    else
        fmt_buf_printf(&r->out, "MaxNodes=%lld ", (long long)max_nodes);
    fmt_buf_printf(&r->out, "MaxTime=%s MinNodes=%lld LLN=NO ",
                   part_time(p, "max_time_s", "UNLIMITED", b2, sizeof(b2)),
                   (long long)jint(p, "min_nodes", 0));
    if (jint(p, "max_cpus_per_node", -1) < 0)
        fmt_buf_puts(&r->out, "MaxCPUsPerNode=UNLIMITED");
    else
        fmt_buf_printf(&r->out, "MaxCPUsPerNode=%lld",
                       (long long)jint(p, "max_cpus_per_node", -1));
    rec_eol(r);
    fmt_buf_printf(&r->out, "Nodes=%s", jstr_or(p, "nodes", "(null)"));
    rec_eol(r);
    fmt_buf_printf(&r->out,
                   "PriorityJobFactor=%lld PriorityTier=%lld RootOnly=%s "
                   "ReqResv=NO OverSubscribe=%s",
                   (long long)jint(p, "priority_job_factor", 1),
                   (long long)jint(p, "priority_tier", 1),
                   jbool(p, "root_only", false) ? "YES" : "NO",
                   jstr_or(p, "oversubscribe", "NO"));
    rec_eol(r);
}

/* AllowGroups= AllowAccounts= (or DenyAccounts=) AllowQos= (or DenyQos=),
 * as Slurm prints them: a Deny list only when there is no Allow list. */
static void part_line_access(struct rec *r, const json_t *p)
{
    const char *deny_acct = jstr_or(p, "deny_accounts", NULL);
    const char *deny_qos = jstr_or(p, "deny_qos", NULL);

    fmt_buf_printf(&r->out, "AllowGroups=%s",
                   jstr_or(p, "allow_groups", "ALL"));
    if (jstr_or(p, "allow_accounts", NULL) || !deny_acct)
        fmt_buf_printf(&r->out, " AllowAccounts=%s",
                       jstr_or(p, "allow_accounts", "ALL"));
    else
        fmt_buf_printf(&r->out, " DenyAccounts=%s", deny_acct);
    if (jstr_or(p, "allow_qos", NULL) || !deny_qos)
        fmt_buf_printf(&r->out, " AllowQos=%s", jstr_or(p, "allow_qos", "ALL"));
    else
        fmt_buf_printf(&r->out, " DenyQos=%s", deny_qos);
}

/* One of Slurm's memory pairs: "DefMemPerCPU=100" or "DefMemPerNode=..."
 * (UNLIMITED when neither is set). */
static void part_mem_pair(struct rec *r, const json_t *p, const char *what)
{
    char cpu[32], node[32];
    int64_t v;

    snprintf(cpu, sizeof(cpu), "%s_mem_per_cpu_mib", what);
    snprintf(node, sizeof(node), "%s_mem_per_node_mib", what);
    if ((v = jint(p, cpu, 0)) > 0)
        fmt_buf_printf(&r->out, "%sMemPerCPU=%lld", what[0] == 'd' ? "Def"
                                                                   : "Max",
                       (long long)v);
    else if ((v = jint(p, node, 0)) > 0)
        fmt_buf_printf(&r->out, "%sMemPerNode=%lld", what[0] == 'd' ? "Def"
                                                                    : "Max",
                       (long long)v);
    else
        fmt_buf_printf(&r->out, "%sMemPerNode=UNLIMITED",
                       what[0] == 'd' ? "Def" : "Max");
}

static void part_line_mem(struct rec *r, const json_t *p)
{
    part_mem_pair(r, p, "def");
    fmt_buf_puts(&r->out, " ");
    part_mem_pair(r, p, "max");
}

char *scontrol_sprint_partition(const json_t *part,
                                const struct scontrol_ctx *ctx)
{
    struct rec r;
    const char *tres = jstr_or(part, "tres", NULL);

    rec_init(&r, ctx);
    fmt_buf_printf(&r.out, "PartitionName=%s", jstr_or(part, "name", ""));
    rec_eol(&r);
    part_line_access(&r, part);
    rec_eol(&r);
    fmt_buf_printf(&r.out, "AllocNodes=ALL Default=%s QoS=N/A",
                   jbool(part, "default", false) ? "YES" : "NO");
    rec_eol(&r);
    part_lines_limits(&r, part);
    /* OverTimeLimit: NONE when the partition sets none (the global one
     * applies), UNLIMITED, or minutes */
    if (!json_is_integer(json_object_get(part, "over_time_min")))
        fmt_buf_puts(&r.out, "OverTimeLimit=NONE");
    else if (jint(part, "over_time_min", 0) < 0)
        fmt_buf_puts(&r.out, "OverTimeLimit=UNLIMITED");
    else
        fmt_buf_printf(&r.out, "OverTimeLimit=%lld",
                       (long long)jint(part, "over_time_min", 0));
    fmt_buf_printf(&r.out, " PreemptMode=%s",
                   jstr_or(part, "preempt_mode", "OFF"));
    rec_eol(&r);
    fmt_buf_printf(&r.out,
                   "State=%s TotalCPUs=%lld TotalNodes=%lld "
                   "SelectTypeParameters=NONE",
                   jstr_or(part, "state", "UP"),
                   (long long)jint(part, "total_cpus", 0),
                   (long long)jint(part, "total_nodes", 0));
    rec_eol(&r);
    fmt_buf_printf(&r.out, "JobDefaults=%s",
                   jstr_or(part, "job_defaults", "(null)"));
    rec_eol(&r);
    part_line_mem(&r, part);
    if (tres) {
        rec_eol(&r);
        fmt_buf_printf(&r.out, "TRES=%s", tres);
    }
    fmt_buf_puts(&r.out, ctx->one_liner ? "\n" : "\n\n");
    return r.out.s;
}

/* --- show step ------------------------------------------------------------ */

#define STEP_ID_BATCH 0xfffffffbu

/* Slurm prints the batch step with no CPU count, TRES or srun, and srun's
 * steps with their distribution (Block for records without one). */
char *scontrol_sprint_step(const json_t *step, const struct scontrol_ctx *ctx)
{
    bool batch = jint(step, "step_id", 0) == STEP_ID_BATCH;
    const char *host = jstr_or(step, "srun_host", NULL);
    char when[32], id[16];
    struct rec r;

    rec_init(&r, ctx);
    if (batch)
        snprintf(id, sizeof(id), "batch");
    else
        snprintf(id, sizeof(id), "%lld", (long long)jint(step, "step_id", 0));
    fmt_buf_printf(&r.out, "StepId=%lld.%s UserId=%lld StartTime=%s "
                           "TimeLimit=UNLIMITED",
                   (long long)jint(step, "job_id", 0), id,
                   (long long)jint(step, "user_id", 0),
                   stamp((time_t)jint(step, "start_time", 0), when,
                         sizeof(when)));
    rec_eol(&r);
    fmt_buf_printf(&r.out, "State=%s Partition=%s NodeList=%s",
                   jstr_or(step, "state", "RUNNING"),
                   jstr_or(step, "partition", "(null)"),
                   jstr_or(step, "nodes", "(null)"));
    rec_eol(&r);
    fmt_buf_printf(&r.out, "Nodes=%lld CPUs=%lld Tasks=%lld Name=%s "
                           "Network=(null)",
                   (long long)jint(step, "nnodes", 0),
                   batch ? 0LL : (long long)jint(step, "ncpus", 0),
                   (long long)jint(step, "ntasks", 0),
                   jstr_or(step, "name", "(null)"));
    rec_eol(&r);
    fmt_buf_printf(&r.out, "TRES=%s",
                   batch ? "(null)" : jstr_or(step, "alloc_tres", "(null)"));
    rec_eol(&r);
    fmt_buf_puts(&r.out, "ResvPorts=(null)");
    rec_eol(&r);
    if (batch)
        fmt_buf_puts(&r.out, "CPUFreqReq=Default");
    else
        fmt_buf_printf(&r.out, "CPUFreqReq=Default Dist=%s",
                       jstr_or(step, "dist", "Block"));
    rec_eol(&r);
    fmt_buf_printf(&r.out, "SrunHost:Pid=%s:%lld",
                   batch || !host ? "(null)" : host,
                   batch ? 0LL : (long long)jint(step, "srun_pid", 0));
    fmt_buf_puts(&r.out, ctx->one_liner ? "\n" : "\n\n");
    return r.out.s;
}
