/* SPDX-License-Identifier: Apache-2.0
 *
 * squeue_print.c - squeue's columns, filters and sort order
 *
 * Each printer writes one value the way Slurm 22.05's squeue/print.c does;
 * fields Drover does not model print Slurm's value for "not set" (Account
 * "(null)", QOS "normal", S:C:T "*:*:*").
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/lib/jobview.h"
#include "cmd/lib/jsonget.h"
#include "cmd/lib/squeue_print.h"
#include "cmd/lib/states.h"
#include "common/sizefmt.h"
#include "common/timefmt.h"
#include "common/xalloc.h"

#define JOB(rec) ((const json_t *)(rec))

static void p_step_id(struct fmt_buf *out, const void *rec, const void *ctx);
static void p_step_name(struct fmt_buf *out, const void *rec,
                        const void *ctx);
static void p_step_nodes(struct fmt_buf *out, const void *rec,
                         const void *ctx);
#define NOW(ctx) (((const struct squeue_ctx *)(ctx))->now)

static void put_time(struct fmt_buf *out, int64_t secs)
{
    char buf[32];

    fmt_buf_puts(out, timefmt_duration(secs, 0, buf, sizeof(buf)));
}

static void put_stamp(struct fmt_buf *out, int64_t t)
{
    char buf[32];

    fmt_buf_puts(out, t ? timefmt_stamp((time_t)t, 0, buf, sizeof(buf))
                        : "N/A");
}

static void p_job_id(struct fmt_buf *out, const void *rec, const void *ctx)
{
    char buf[64];

    fmt_buf_puts(out, job_view_id(JOB(rec), buf, sizeof(buf)));
}

static void p_job_id2(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_putu(out, job_view_job_id(JOB(rec)));
}

static void p_array_job_id(struct fmt_buf *out, const void *rec,
                           const void *ctx)
{
    int64_t id = jint(JOB(rec), "array_job_id", 0);

    fmt_buf_printf(out, "%lld",
                   (long long)(id > 0 ? id : job_view_job_id(JOB(rec))));
}

static void p_array_task_id(struct fmt_buf *out, const void *rec,
                            const void *ctx)
{
    const char *tasks = jstr(JOB(rec), "array_task_str");

    if (tasks && tasks[0])
        fmt_buf_puts(out, tasks);
    else if (job_view_is_array(JOB(rec)) && jhas(JOB(rec), "array_task_id"))
        fmt_buf_printf(out, "%lld",
                       (long long)jint(JOB(rec), "array_task_id", 0));
    else
        fmt_buf_puts(out, "N/A");
}

static void p_partition(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, jstr_or(JOB(rec), "partition", "(null)"));
}

static void p_name(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, jstr_or(JOB(rec), "name", "(null)"));
}

static void p_user(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, job_view_user(JOB(rec)));
}

static void p_uid(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puti(out, jint(JOB(rec), "user_id", 0));
}

static void p_group(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, job_view_group(JOB(rec)));
}

static void p_gid(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puti(out, jint(JOB(rec), "group_id", 0));
}

static void p_state_compact(struct fmt_buf *out, const void *rec,
                            const void *ctx)
{
    fmt_buf_puts(out, job_state_code(job_state_of(JOB(rec))));
}

static void p_state(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, job_state_name(job_state_of(JOB(rec))));
}

static void p_time_used(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_time(out, job_view_time_used(JOB(rec), NOW(ctx)));
}

static void p_time_limit(struct fmt_buf *out, const void *rec,
                         const void *ctx)
{
    put_time(out, job_view_time_limit(JOB(rec)));
}

static void p_time_left(struct fmt_buf *out, const void *rec, const void *ctx)
{
    int64_t limit = job_view_time_limit(JOB(rec));

    if (limit == TIME_INFINITE)
        fmt_buf_puts(out, "UNLIMITED");
    else
        put_time(out, limit - job_view_time_used(JOB(rec), NOW(ctx)));
}

static void p_num_nodes(struct fmt_buf *out, const void *rec,
                        const void *ctx)
{
    fmt_buf_putu(out, job_view_node_count(JOB(rec)));
}

static void p_num_cpus(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_putu(out, job_view_cpus(JOB(rec)));
}

static void p_nodes(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, job_view_nodes(JOB(rec)));
}

/* Slurm shows "(Reason)" for pending, failed and timed-out jobs that are no
 * longer completing, and the node list otherwise.
 */
static void p_reason_list(struct fmt_buf *out, const void *rec,
                          const void *ctx)
{
    job_state_t s = job_state_of(JOB(rec));
    const char *name = job_state_name(s);

    if (job_state_is_pending(s) || strcmp(name, "FAILED") == 0
        || strcmp(name, "TIMEOUT") == 0) {
        fmt_buf_putn(out, "(", 1);
        fmt_buf_puts(out, job_view_reason(JOB(rec)));
        fmt_buf_putn(out, ")", 1);
    } else
        fmt_buf_puts(out, job_view_nodes(JOB(rec)));
}

static void p_reason(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, job_view_reason(JOB(rec)));
}

static void p_tres_per_node(struct fmt_buf *out, const void *rec,
                            const void *ctx)
{
    fmt_buf_puts(out, jstr_or(JOB(rec), "tres_per_node", "N/A"));
}

static void p_min_memory(struct fmt_buf *out, const void *rec,
                         const void *ctx)
{
    char buf[32];
    int per_cpu;
    uint64_t mib = job_view_min_memory(JOB(rec), &per_cpu);
    const struct squeue_ctx *c = ctx;

    if (mib && c && c->noconvert)
        fmt_buf_printf(out, "%lluM", (unsigned long long)mib);
    else
        fmt_buf_puts(out, mib ? sizefmt_mib(mib, buf, sizeof(buf)) : "0");
}

static void p_min_cpus(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_putu(out, job_view_min_cpus(JOB(rec)));
}

/* %d: --tmp, MiB with Slurm's unit suffix ("100M", "2G"), "0" when none */
static void p_min_tmp(struct fmt_buf *out, const void *rec, const void *ctx)
{
    char buf[32];
    uint64_t mib = (uint64_t)jint(JOB(rec), "min_tmp_mib", 0);

    (void)ctx;
    fmt_buf_puts(out, mib ? sizefmt_mib(mib, buf, sizeof(buf)) : "0");
}

static void p_priority(struct fmt_buf *out, const void *rec, const void *ctx)
{
    double prio = (double)jint(JOB(rec), "priority", 0) / 4294967295.0;

    fmt_buf_printf(out, "%16.14f", prio);
}

static void p_priority_long(struct fmt_buf *out, const void *rec,
                            const void *ctx)
{
    fmt_buf_puti(out, jint(JOB(rec), "priority", 0));
}

static void p_submit(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_stamp(out, jint(JOB(rec), "submit_time", 0));
}

static void p_start(struct fmt_buf *out, const void *rec, const void *ctx)
{
    put_stamp(out, jint(JOB(rec), "start_time", 0));
}

static void p_end(struct fmt_buf *out, const void *rec, const void *ctx)
{
    time_t end = job_view_end_time(JOB(rec));

    if (job_view_time_limit(JOB(rec)) == TIME_INFINITE && end > NOW(ctx))
        fmt_buf_puts(out, "NONE");
    else
        put_stamp(out, end);
}

static void p_account(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, jstr_or(JOB(rec), "account", "(null)"));
}

static void p_qos(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, jstr_or(JOB(rec), "qos", "normal"));
}

static void p_work_dir(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, jstr_or(JOB(rec), "work_dir", "(null)"));
}

static void p_command(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, jstr_or(JOB(rec), "command", "(null)"));
}

static void p_comment(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, jstr_or(JOB(rec), "comment", "(null)"));
}

static void p_oversubscribe(struct fmt_buf *out, const void *rec,
                            const void *ctx)
{
    fmt_buf_puts(out, jbool(JOB(rec), "exclusive", false) ? "NO" : "OK");
}

static void p_nice(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puti(out, jint(JOB(rec), "nice", 0));
}

static void p_batch_host(struct fmt_buf *out, const void *rec,
                         const void *ctx)
{
    fmt_buf_puts(out, jstr_or(JOB(rec), "batch_host", "n/a"));
}

/* The nodes the scheduler plans a pending job on (squeue --start). */
static void p_sched_nodes(struct fmt_buf *out, const void *rec,
                          const void *ctx)
{
    fmt_buf_puts(out, jstr_or(JOB(rec), "sched_nodes", "(null)"));
}

static void p_empty(struct fmt_buf *out, const void *rec, const void *ctx)
{
}

static void p_null(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, "(null)");
}

static void p_zero(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, "0");
}

/* A -B part: the number asked for, or "*" when none was (Slurm's
 * NO_VAL16). */
static void put_topo(struct fmt_buf *out, const void *rec, const char *key)
{
    int64_t v = jint(JOB(rec), key, 0);

    if (v > 0)
        fmt_buf_puti(out, v);
    else
        fmt_buf_puts(out, "*");
}

/* %H: --sockets-per-node */
static void p_sockets(struct fmt_buf *out, const void *rec, const void *ctx)
{
    (void)ctx;
    put_topo(out, rec, "sockets_per_node");
}

/* %I: --cores-per-socket */
static void p_cores(struct fmt_buf *out, const void *rec, const void *ctx)
{
    (void)ctx;
    put_topo(out, rec, "cores_per_socket");
}

/* %J: --threads-per-core */
static void p_threads(struct fmt_buf *out, const void *rec, const void *ctx)
{
    (void)ctx;
    put_topo(out, rec, "threads_per_core");
}

/* %z: S:C:T, "*" for each part not asked for */
static void p_sct(struct fmt_buf *out, const void *rec, const void *ctx)
{
    (void)ctx;
    put_topo(out, rec, "sockets_per_node");
    fmt_buf_puts(out, ":");
    put_topo(out, rec, "cores_per_socket");
    fmt_buf_puts(out, ":");
    put_topo(out, rec, "threads_per_core");
}

static void p_na(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, "N/A");
}

static void p_reservation(struct fmt_buf *out, const void *rec,
                          const void *ctx)
{
    fmt_buf_puts(out, jstr_or(JOB(rec), "reservation", "(null)"));
}

static void p_dependency(struct fmt_buf *out, const void *rec,
                         const void *ctx)
{
    fmt_buf_puts(out, jstr_or(JOB(rec), "dependency", "(null)"));
}

static void p_explain(struct fmt_buf *out, const void *rec, const void *ctx)
{
    fmt_buf_puts(out, jstr_or(JOB(rec), "pending_explain", ""));
}

#define NC (FMT_NOCUT | FMT_HEADER_NOCUT)

const struct fmt_field squeue_fields[] = {
    {'A', "JobID", "JOBID", p_job_id2, 0},
    {'a', "Account", "ACCOUNT", p_account, 0},
    {'B', "BatchHost", "EXEC_HOST", p_batch_host, 0},
    {'b', "tres-per-node", "TRES_PER_NODE", p_tres_per_node, 0},
    {'C', "NumCPUs", "CPUS", p_num_cpus, 0},
    {'c', "MinCpus", "MIN_CPUS", p_min_cpus, 0},
    {'D', "NumNodes", "NODES", p_num_nodes, 0},
    {'d', "MinTmpDisk", "MIN_TMP_DISK", p_min_tmp, 0},
    {'E', "Dependency", "DEPENDENCY", p_dependency, 0},
    {'e', "EndTime", "END_TIME", p_end, 0},
    {'F', "ArrayJobID", "ARRAY_JOB_ID", p_array_job_id, 0},
    {'f', "Feature", "FEATURES", p_null, 0},
    {'G', "GroupID", "GROUP", p_gid, 0},
    {'g', "GroupName", "GROUP", p_group, 0},
    {'H', "SocketsPerNode", "SOCKETS_PER_NODE", p_sockets, 0},
    {'h', "OverSubscribe", "OVER_SUBSCRIBE", p_oversubscribe, 0},
    {'I', "CoresPerSocket", "CORES_PER_SOCKET", p_cores, 0},
    {'i', "JobArrayID", "JOBID", p_job_id, 0},
    {'J', "ThreadsPerCore", "THREADS_PER_CORE", p_threads, 0},
    {'j', "Name", "NAME", p_name, 0},
    {'K', "ArrayTaskID", "ARRAY_TASK_ID", p_array_task_id, 0},
    {'k', "Comment", "COMMENT", p_comment, 0},
    {'L', "TimeLeft", "TIME_LEFT", p_time_left, FMT_NOCUT},
    {'l', "TimeLimit", "TIME_LIMIT", p_time_limit, FMT_NOCUT},
    {'M', "TimeUsed", "TIME", p_time_used, FMT_NOCUT},
    {'m', "MinMemory", "MIN_MEMORY", p_min_memory, 0},
    {'N', "NodeList", "NODELIST", p_nodes, NC},
    {'n', "ReqNodes", "REQ_NODES", p_empty, 0},
    {'O', "Contiguous", "CONTIGUOUS", p_zero, 0},
    {'o', "Command", "COMMAND", p_command, 0},
    {'P', "Partition", "PARTITION", p_partition, 0},
    {'p', "Priority", "PRIORITY", p_priority, 0},
    {'Q', "PriorityLong", "PRIORITY", p_priority_long, 0},
    {'q', "QOS", "QOS", p_qos, 0},
    {'R', "ReasonList", "NODELIST(REASON)", p_reason_list, NC},
    {'r', "Reason", "REASON", p_reason, 0},
    {'S', "StartTime", "START_TIME", p_start, 0},
    {'T', "State", "STATE", p_state, 0},
    {'t', "StateCompact", "ST", p_state_compact, 0},
    {'U', "UserID", "USER", p_uid, 0},
    {'u', "UserName", "USER", p_user, 0},
    {'V', "SubmitTime", "SUBMIT_TIME", p_submit, 0},
    {'v', "Reservation", "RESERVATION", p_reservation, 0},
    {'W', "Licenses", "LICENSES", p_null, 0},
    {'w', "WCKey", "WCKEY", p_null, 0},
    {'X', "CoreSpec", "CORE_SPEC", p_na, 0},
    {'x', "ExcNodes", "EXC_NODES", p_empty, 0},
    {'Y', "SchedNodes", "SCHEDNODES", p_sched_nodes, NC},
    {'y', "Nice", "NICE", p_nice, 0},
    {'Z', "WorkDir", "WORK_DIR", p_work_dir, 0},
    {'z', "SCT", "S:C:T", p_sct, 0},
    /* Drover's: why a pending job waits, in words (-O only) */
    {0, "PendingExplain", "EXPLAIN", p_explain, NC},
    {0, NULL, NULL, NULL, 0},
};

/* --- the job keys each printer reads (job_info "fields") --------------- */

#define K_ID "job_id array_job_id array_task_id array_task_str"
#define K_STATE "job_state completing configuring"
#define K_NODES "nodes last_nodes job_state"
#define K_USED "job_state start_time end_time suspend_time pre_sus_s"

/* Every printer of squeue_fields and squeue_step_fields, with the keys it
 * reads, the jobview.c helpers it calls included.  A key missing here
 * would print differently once the controller sends only these; the unit
 * test test_squeue_fields checks each row against the full record.
 */
static const struct {
    fmt_print_f print;
    const char *keys;
} printer_keys[] = {
    {p_job_id, K_ID},
    {p_job_id2, "job_id"},
    {p_array_job_id, "array_job_id job_id"},
    {p_array_task_id, "array_task_str array_job_id array_task_id"},
    {p_partition, "partition"},
    {p_name, "name"},
    {p_user, "user_name user_id"},
    {p_uid, "user_id"},
    {p_group, "group_name group_id"},
    {p_gid, "group_id"},
    {p_state_compact, K_STATE},
    {p_state, K_STATE},
    {p_time_used, K_USED},
    {p_time_limit, "time_limit_s"},
    {p_time_left, "time_limit_s " K_USED},
    {p_num_nodes, K_NODES " node_count nodes_min"},
    {p_num_cpus, "num_cpus num_tasks cpus_per_task"},
    {p_nodes, K_NODES},
    {p_reason_list, K_STATE " state_reason nodes last_nodes"},
    {p_reason, "state_reason"},
    {p_tres_per_node, "tres_per_node"},
    {p_min_memory, "mem_per_node_mib mem_per_cpu_mib"},
    {p_min_cpus, "cpus_per_task ntasks_per_node"},
    {p_priority, "priority"},
    {p_priority_long, "priority"},
    {p_submit, "submit_time"},
    {p_start, "start_time"},
    {p_end, "time_limit_s " K_USED},
    {p_account, "account"},
    {p_qos, "qos"},
    {p_work_dir, "work_dir"},
    {p_command, "command"},
    {p_comment, "comment"},
    {p_oversubscribe, "exclusive"},
    {p_nice, "nice"},
    {p_min_tmp, "min_tmp_mib"},
    {p_batch_host, "batch_host"},
    {p_sched_nodes, "sched_nodes"},
    {p_reservation, "reservation"},
    {p_dependency, "dependency"},
    {p_explain, "pending_explain"},
    {p_empty, ""},
    {p_null, ""},
    {p_zero, ""},
    {p_sockets, "sockets_per_node"},
    {p_cores, "cores_per_socket"},
    {p_threads, "threads_per_core"},
    {p_sct, "sockets_per_node cores_per_socket threads_per_core"},
    {p_na, ""},
    {p_step_id, K_ID},
    {p_step_name, ""},
    {p_step_nodes, "batch_host " K_NODES},
};

/* What selection (squeue_job_selected(), -j checks) and array folding
 * (-r, job_view_expand_arrays()) read, and the start-time sort. */
#define K_BASE                                                                 \
    K_ID " array_pending array_task_max user_id " K_STATE                      \
         " partition name start_time"

const char *squeue_field_keys(const struct fmt_field *field)
{
    for (size_t i = 0; i < sizeof(printer_keys) / sizeof(printer_keys[0]);
         i++) {
        if (printer_keys[i].print == field->print)
            return printer_keys[i].keys;
    }
    return NULL;
}

/* Append each space-separated key of 'list' not yet in 'keys'. */
void squeue_keys_add(json_t *keys, const char *list)
{
    const char *p = list, *end;
    size_t i;
    json_t *v;

    while (p && *p) {
        bool seen = false;

        end = strchr(p, ' ');
        if (!end)
            end = p + strlen(p);
        json_array_foreach(keys, i, v) {
            const char *k = json_string_value(v);
            if (strlen(k) == (size_t)(end - p) && !strncmp(k, p, end - p))
                seen = true;
        }
        if (end > p && !seen)
            json_array_append_new(keys, json_stringn(p, end - p));
        p = *end ? end + 1 : end;
    }
}

json_t *squeue_wanted_keys(const struct fmt_spec *spec, const char *sort)
{
    json_t *keys = json_array();
    const struct fmt_field *f;

    squeue_keys_add(keys, K_BASE);
    for (size_t i = 0; spec && i < spec->count; i++)
        squeue_keys_add(keys, squeue_field_keys(spec->items[i].field));
    for (const char *p = sort ? sort : "P,t,-p"; *p; p++) {
        if ((f = fmt_field_by_letter(squeue_fields, *p)))
            squeue_keys_add(keys, squeue_field_keys(f));
    }
    return keys;
}

static bool has_str(const char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; s && i < n; i++) {
        if (strcmp(v[i], s) == 0)
            return true;
    }
    return false;
}

static bool state_selected(const json_t *job, const struct squeue_filter *f)
{
    job_state_t shown = job_state_of(job);
    job_state_t base = job_base_state_of(job);

    if (f->all_states)
        return true;
    if (f->nstates == 0)
        return job_state_is_active(shown);
    for (size_t i = 0; i < f->nstates; i++) {
        /* COMPLETING is a flag in Slurm: -t CG matches any completing job,
         * and a base state matches a job that is not completing. */
        if (f->states[i] == shown) /* -t CF: a configuring job */
            return true;
        if (job_state_is_completing(f->states[i])
                ? job_state_is_completing(shown)
                : (f->states[i] == base && !job_state_is_completing(shown)))
            return true;
    }
    return false;
}

static bool user_selected(const json_t *job, const struct squeue_filter *f)
{
    uid_t uid = (uid_t)jint(job, "user_id", -1);

    if (!f->users_given)
        return true;
    for (size_t i = 0; i < f->nuids; i++) {
        if (f->uids[i] == uid)
            return true;
    }
    return false;
}

/* "-j 12" selects job 12 and every record of array 12; "-j 12_3" only
 * task 3 of array 12: its own record, or the array's pending record
 * while task 3 is among its pending tasks (Slurm's squeue filter). */
static bool id_selected(const json_t *job, const struct squeue_filter *f)
{
    uint32_t array_id = (uint32_t)jint(job, "array_job_id", 0);

    for (size_t i = 0; i < f->njob_ids; i++) {
        long task = f->job_tasks ? f->job_tasks[i] : -1;

        if (task < 0 && (f->job_ids[i] == job_view_job_id(job)
                         || (array_id && f->job_ids[i] == array_id)))
            return true;
        if (task < 0 || !array_id || f->job_ids[i] != array_id)
            continue;
        if (jhas(job, "array_task_id") ? jint(job, "array_task_id", -1) == task
                                       : job_view_task_pending(job, task))
            return true;
    }
    return false;
}

bool squeue_job_selected(const json_t *job, const struct squeue_filter *f)
{
    if (f->njob_ids && !id_selected(job, f))
        return false;
    if (!user_selected(job, f) || !state_selected(job, f))
        return false;
    if (f->npartitions
        && !has_str(f->partitions, f->npartitions, jstr(job, "partition")))
        return false;
    if (f->nnames && !has_str(f->names, f->nnames, jstr(job, "name")))
        return false;
    return true;
}

/* Sorting: Slurm first orders jobs by start time, latest first (pending
 * jobs without one count as starting just after now), then applies the -S
 * keys from last to first with a stable sort.  One comparison chain does
 * the same: the -S keys in order, then start time, then the controller's
 * order.
 */
struct sort_key {
    char key;
    bool reverse;
    bool text;     /* compared as text (key_is_text()) */
    uint8_t slot;  /* its first value in a job's values */
};

/* A job's value for one sort key, or one of the two numbers of 'i': a
 * string (borrowed from the record, a static text or the names cache, all
 * of which outlive the sort) or a number. */
union sort_val {
    const char *str;
    int64_t num;
};

/* The jobs' sort values, by the jobs' positions in the controller's
 * order; the sort orders positions (4 bytes each), not records.  A job's
 * values: one per key ('i' two: the array's id, then the task's), then
 * its start_key(), the last tie-breaker. */
struct sort_ctx {
    struct sort_key keys[32];
    size_t nkeys;
    size_t nslots;         /* values per job */
    time_t now;
    union sort_val *vals;  /* nslots per job */
};

static const char sort_letters[] = "CDGMNPQSTUVegijlLmNpStuV";

int squeue_sort_check(const char *spec, char *bad)
{
    for (size_t i = spec ? strlen(spec) : 0; i > 0; i--) {
        char c = spec[i - 1];

        if (c == ',' || c == '+' || c == '-')
            continue;
        if (!strchr(sort_letters, c)) {
            *bad = c;
            return -1;
        }
    }
    return 0;
}

static int cmp_num(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

static int64_t start_key(const json_t *job, time_t now)
{
    int64_t start = jint(job, "start_time", 0);

    if (start == 0)
        return (int64_t)now + 100;
    if (job_state_is_pending(job_base_state_of(job)) && start < now)
        return (int64_t)now;
    return start;
}

/* The keys whose values are texts (key_value()). */
static bool key_is_text(char key)
{
    return key && strchr("jPtTugN", key);
}

/* Slurm sorts array tasks under their array's id; the pending remainder of
 * an array (no task id) sorts after its tasks: v[0] and v[1].
 */
static void job_id_value(const json_t *job, union sort_val *v)
{
    int64_t id = jint(job, "array_job_id", 0);

    v[0].num = id > 0 ? id : job_view_job_id(job);
    v[1].num = jhas(job, "array_task_id") ? jint(job, "array_task_id", 0)
                                          : INT64_MAX;
}

static int64_t time_value(char key, const json_t *job, time_t now)
{
    switch (key) {
    case 'M':
        return job_view_time_used(job, now);
    case 'l':
        return (int64_t)job_view_time_limit(job);
    case 'L':
        return job_view_time_limit(job) - job_view_time_used(job, now);
    case 'V':
        return jint(job, "submit_time", 0);
    case 'S':
        return start_key(job, now);
    case 'e':
        return job_view_end_time(job);
    default:
        return 0;
    }
}

/* The value of 'key' for 'job' in v[0] (and v[1] for 'i'). */
static void key_value(char key, const json_t *job, time_t now,
                      union sort_val *v)
{
    const char *str = NULL;

    switch (key) {
    case 'i':
        job_id_value(job, v);
        return;
    case 'j':
        str = jstr(job, "name");
        break;
    case 'P':
        str = jstr(job, "partition");
        break;
    case 't':
        str = job_state_code(job_state_of(job));
        break;
    case 'T':
        str = job_state_name(job_state_of(job));
        break;
    case 'u':
        str = job_view_user(job);
        break;
    case 'g':
        str = job_view_group(job);
        break;
    case 'N':
        str = job_view_nodes(job);
        break;
    case 'p':
    case 'Q':
        v->num = jint(job, "priority", 0);
        return;
    case 'U':
        v->num = jint(job, "user_id", 0);
        return;
    case 'G':
        v->num = jint(job, "group_id", 0);
        return;
    case 'D':
        v->num = job_view_node_count(job);
        return;
    case 'C':
        v->num = job_view_cpus(job);
        return;
    default:
        v->num = time_value(key, job, now);
        return;
    }
    v->str = str ? str : "";
}

static int cmp_key(const struct sort_key *k, const union sort_val *a,
                   const union sort_val *b)
{
    int d;

    if (k->text) /* one text is often shared (rowtable.h, static names) */
        d = a->str == b->str ? 0 : strcmp(a->str, b->str);
    else if (!(d = cmp_num(a->num, b->num)) && k->key == 'i')
        d = cmp_num(a[1].num, b[1].num);
    return k->reverse ? -d : d;
}

/* Each job's sort values are computed once, not at every comparison. */
static int sort_cmp(const void *pa, const void *pb, void *arg)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const struct sort_ctx *sc = arg;
    const union sort_val *va = sc->vals + (size_t)a * sc->nslots;
    const union sort_val *vb = sc->vals + (size_t)b * sc->nslots;
    int d;

    for (size_t i = 0; i < sc->nkeys; i++) {
        const struct sort_key *k = &sc->keys[i];

        if ((d = cmp_key(k, va + k->slot, vb + k->slot)))
            return d;
    }
    d = cmp_num(va[sc->nslots - 1].num, vb[sc->nslots - 1].num);
    if (d)
        return -d;
    return cmp_num(a, b);
}

static void sort_keys_parse(struct sort_ctx *sc, const char *spec)
{
    bool reverse = false;

    for (const char *p = spec; *p && sc->nkeys < 32; p++) {
        if (*p == ',' || *p == '+') {
            reverse = false;
            continue;
        }
        if (*p == '-') {
            reverse = true;
            continue;
        }
        sc->keys[sc->nkeys++] = (struct sort_key){
            .key = *p, .reverse = reverse, .text = key_is_text(*p),
            .slot = (uint8_t)sc->nslots};
        sc->nslots += *p == 'i' ? 2 : 1;
        reverse = false;
    }
    sc->nslots++; /* start_key() */
}

void squeue_sort(const json_t **jobs, size_t n, const char *spec, time_t now)
{
    struct sort_ctx sc = {.nkeys = 0, .now = now};
    const json_t **by_pos;
    uint32_t *order;

    if (n < 2)
        return;
    sort_keys_parse(&sc, spec ? spec : "P,t,-p");
    /* every value is written below: no memory cleared first */
    sc.vals = xmalloc(n * sc.nslots * sizeof(*sc.vals));
    order = xmalloc(n * sizeof(*order));
    by_pos = xmalloc(n * sizeof(*by_pos));
    for (size_t i = 0; i < n; i++) {
        union sort_val *v = sc.vals + i * sc.nslots;

        order[i] = (uint32_t)i;
        by_pos[i] = jobs[i];
        for (size_t k = 0; k < sc.nkeys; k++)
            key_value(sc.keys[k].key, jobs[i], now, v + sc.keys[k].slot);
        v[sc.nslots - 1].num = start_key(jobs[i], now);
    }
    qsort_r(order, n, sizeof(*order), sort_cmp, &sc);
    for (size_t i = 0; i < n; i++)
        jobs[i] = by_pos[order[i]];
    free(by_pos);
    free(order);
    free(sc.vals);
}

/* Lines are written to the stream in blocks of about this many bytes. */
#define PRINT_CHUNK (64 * 1024)

void squeue_print(FILE *out, const struct fmt_spec *spec, const json_t **jobs,
                  size_t n, const struct squeue_ctx *ctx, bool noheader)
{
    struct fmt_buf text = {0}, scratch = {0};
    char *line;

    if (!noheader) {
        line = fmt_header(spec);
        fprintf(out, "%s\n", line);
        free(line);
    }
    for (size_t i = 0; i < n; i++) {
        fmt_row_append(spec, jobs[i], ctx, &text, &scratch);
        if (text.len >= PRINT_CHUNK || i + 1 == n) {
            fwrite(text.s, 1, text.len, out);
            fmt_buf_reset(&text);
        }
    }
    free(text.s);
    free(scratch.s);
}

/* --- squeue -s: steps ----------------------------------------------------- */

#define STEP_ID_BATCH 0xfffffffbu

static void p_step_id(struct fmt_buf *out, const void *rec, const void *ctx)
{
    int64_t id = jint(JOB(rec), "step_id", STEP_ID_BATCH);
    char buf[64];

    (void)ctx;
    job_view_id(JOB(rec), buf, sizeof(buf));
    if (id == STEP_ID_BATCH)
        fmt_buf_printf(out, "%s.batch", buf);
    else
        fmt_buf_printf(out, "%s.%lld", buf, (long long)id);
}

static void p_step_name(struct fmt_buf *out, const void *rec,
                        const void *ctx)
{
    (void)ctx;
    fmt_buf_puts(out, jstr_or(JOB(rec), "step_name", "batch"));
}

/* A step row's own nodes; a job without step records: the batch host. */
static void p_step_nodes(struct fmt_buf *out, const void *rec,
                         const void *ctx)
{
    const char *nodes = jstr_or(JOB(rec), "step_nodes", NULL);
    char *host;

    (void)ctx;
    if (nodes) {
        fmt_buf_puts(out, nodes);
        return;
    }
    host = job_view_batch_host(JOB(rec));
    fmt_buf_puts(out, host ? host : "");
    free(host);
}

/* One row: the job's keys with the step's id, name, nodes and start. */
static json_t *step_row(const json_t *job, const json_t *step)
{
    json_t *row = json_copy((json_t *)job);

    json_object_del(row, "steps");
    json_object_set(row, "step_id", json_object_get(step, "step_id"));
    json_object_set_new(row, "step_name",
                        json_string(jstr_or(step, "name", "")));
    json_object_set_new(row, "step_nodes",
                        json_string(jstr_or(step, "nodes", "")));
    json_object_set(row, "start_time", json_object_get(step, "start_time"));
    return row;
}

json_t *squeue_step_rows(const json_t *const *jobs, size_t n)
{
    json_t *rows = json_array();

    for (size_t i = 0; i < n; i++) {
        const json_t *steps = json_object_get(jobs[i], "steps"), *st;
        size_t k;

        if (!json_is_array(steps)) {
            json_array_append(rows, (json_t *)jobs[i]);
            continue;
        }
        json_array_foreach(steps, k, st) {
            if (!strcmp(jstr_or(st, "state", ""), "RUNNING"))
                json_array_append_new(rows, step_row(jobs[i], st));
        }
    }
    return rows;
}

const struct fmt_field squeue_step_fields[] = {
    {'i', "StepID", "STEPID", p_step_id, 0},
    {'j', "StepName", "NAME", p_step_name, 0},
    {'M', "TimeUsed", "TIME", p_time_used, FMT_NOCUT},
    {'N', "NodeList", "NODELIST", p_step_nodes, NC},
    {'P', "Partition", "PARTITION", p_partition, 0},
    {'U', "UserID", "USER", p_uid, 0},
    {'u', "UserName", "USER", p_user, 0},
    {0, NULL, NULL, NULL, 0},
};
