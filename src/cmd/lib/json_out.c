/* SPDX-License-Identifier: Apache-2.0
 *
 * json_out.c - --json output in Slurm 22.05's v0.0.38 shapes
 *
 * Each converter sets Slurm's keys in Slurm's order (jansson keeps
 * insertion order), from the controller's records (docs/protocol.md).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/lib/json_out.h"
#include "cmd/lib/jobview.h"
#include "cmd/lib/jsonget.h"
#include "cmd/lib/states.h"
#include "common/timefmt.h"
#include "common/xalloc.h"

#include "config.h"

/* ClusterName for "cluster" (json_out_set_cluster()). */
static const char *cluster_name = "";

void json_out_set_cluster(const char *name)
{
    cluster_name = name ? name : "";
}

/* Slurm's JSON gives a node's used GRES without the indexes sinfo and
 * scontrol show: "gpu:2", not "gpu:2(IDX:0-1)" (golden sinfo-json). */
static void s_gres_used(json_t *o, const char *used)
{
    char buf[512];
    size_t k = 0;

    for (const char *p = used ? used : ""; *p && k + 1 < sizeof(buf); p++) {
        if (*p == '(') {
            p = strchr(p, ')');
            if (!p)
                break;
            continue;
        }
        buf[k++] = *p;
    }
    buf[k] = '\0';
    json_object_set_new(o, "gres_used", json_string(buf));
}

static void s(json_t *o, const char *key, const char *v)
{
    json_object_set_new(o, key, json_string(v ? v : ""));
}

static void i(json_t *o, const char *key, int64_t v)
{
    json_object_set_new(o, key, json_integer(v));
}

static void b(json_t *o, const char *key, int v)
{
    json_object_set_new(o, key, json_boolean(v));
}

static void nul(json_t *o, const char *key)
{
    json_object_set_new(o, key, json_null());
}

static void empty(json_t *o, const char *key)
{
    json_object_set_new(o, key, json_array());
}

/* Keys whose value Drover does not model: Slurm's "not set". */
static void set_each(json_t *o, void (*f)(json_t *, const char *),
                     const char *const *keys)
{
    for (; *keys; keys++)
        f(o, *keys);
}

/* A -B part of the record under the same key: the number, or null when
 * not asked for (Slurm's NO_VAL16). */
static void topo(json_t *o, const json_t *job, const char *key)
{
    if (jint(job, key, 0) > 0)
        i(o, key, jint(job, key, 0));
    else
        nul(o, key);
}

/* --gpus-per-socket as Slurm's tres_per_socket ("gres:gpu:1"), or "". */
static void tres_per_socket(json_t *o, const json_t *job)
{
    const char *type = jstr_or(job, "gpu_type", NULL);
    int64_t n = jint(job, "gpus_per_socket", 0);
    char buf[96] = "";

    if (n > 0)
        snprintf(buf, sizeof(buf), "gres:gpu:%s%s%lld", type ? type : "",
                 type ? ":" : "", (long long)n);
    s(o, "tres_per_socket", buf);
}

/* True once the job has left the queue for good (COMPLETED, CANCELLED, ...). */
static bool job_ended(const json_t *job)
{
    const char *st = job_state_name(job_base_state_of(job));

    return strcmp(st, "PENDING") && strcmp(st, "RUNNING")
           && strcmp(st, "SUSPENDED");
}

/* Slurm's job flags Drover can know: accrual is over once the job left
 * PENDING (Slurm sets JOB_ACCRUE_OVER when a job starts or ends). */
static json_t *job_flags(const json_t *job)
{
    json_t *flags = json_array();

    if (strcmp(job_state_name(job_base_state_of(job)), "PENDING"))
        json_array_append_new(flags, json_string("JOB_ACCRUE_OVER"));
    return flags;
}

/* Slurm 22.05 prints "nice" and "cpus" as null for a job that ended
 * without ever getting nodes (golden squeue-json: an srun cancelled while
 * pending). */
static bool job_never_ran(const json_t *job)
{
    return job_ended(job) && !*jstr_or(job, "nodes", "");
}

static void job_head(json_t *o, const json_t *job)
{
    const char *tasks = jstr(job, "array_task_str");

    s(o, "account", jstr(job, "account"));
    i(o, "accrue_time", jint(job, "eligible_time", 0));
    s(o, "admin_comment", "");
    i(o, "array_job_id", jint(job, "array_job_id", 0));
    if (jhas(job, "array_task_id"))
        i(o, "array_task_id", jint(job, "array_task_id", 0));
    else
        nul(o, "array_task_id");
    i(o, "array_max_tasks", jint(job, "array_max_tasks", 0));
    s(o, "array_task_string", tasks);
    i(o, "association_id", 0);
    s(o, "batch_features", "");
    b(o, "batch_flag", jint(job, "batch_flag", 1) != 0);
    s(o, "batch_host", jstr(job, "batch_host"));
    json_object_set_new(o, "flags", job_flags(job));
    s(o, "burst_buffer", "");
    s(o, "burst_buffer_state", "");
    s(o, "cluster", jstr_or(job, "cluster_name", cluster_name));
    s(o, "cluster_features", "");
    s(o, "command", jstr(job, "command"));
    s(o, "comment", jstr(job, "comment"));
    s(o, "container", "");
    b(o, "contiguous", 0);
    set_each(o, nul, (const char *const[]){"core_spec", "thread_spec",
                                            NULL});
    topo(o, job, "cores_per_socket");
    nul(o, "billable_tres");
    if (jint(job, "cpus_per_task", 0) > 0)
        i(o, "cpus_per_task", jint(job, "cpus_per_task", 0));
    else
        nul(o, "cpus_per_task");
    set_each(o, nul, (const char *const[]){"cpu_frequency_minimum",
                                            "cpu_frequency_maximum",
                                            "cpu_frequency_governor", NULL});
    s(o, "cpus_per_tres", "");
}

static void job_times(json_t *o, const json_t *job)
{
    int status = (int)jint(job, "exit_status", 0);

    i(o, "deadline", 0);
    i(o, "delay_boot", 0);
    s(o, "dependency", jstr(job, "dependency"));
    i(o, "derived_exit_code", 0);
    i(o, "eligible_time", jint(job, "eligible_time", 0));
    i(o, "end_time", (int64_t)job_view_end_time(job));
    s(o, "excluded_nodes", jstr(job, "exc_nodes"));
    i(o, "exit_code", (status >> 8) & 0xff);
    s(o, "features", jstr(job, "features"));
    s(o, "federation_origin", "");
    s(o, "federation_siblings_active", "");
    s(o, "federation_siblings_viable", "");
    empty(o, "gres_detail");
}

static void job_ids(json_t *o, const json_t *job)
{
    i(o, "group_id", jint(job, "group_id", 0));
    s(o, "group_name", job_view_group(job));
    i(o, "job_id", job_view_job_id(job));
    s(o, "job_state", job_state_name(job_base_state_of(job)));
    i(o, "last_sched_evaluation", jint(job, "last_sched_eval", 0));
    s(o, "licenses", "");
    i(o, "max_cpus", 0);
    i(o, "max_nodes", jint(job, "nodes_max", 0));
    s(o, "mcs_label", "");
    s(o, "memory_per_tres", "");
    s(o, "name", jstr(job, "name"));
    s(o, "nodes", jstr(job, "nodes"));
    if (job_never_ran(job))
        nul(o, "nice");
    else
        i(o, "nice", jint(job, "nice", 0));
    nul(o, "tasks_per_core");
    i(o, "tasks_per_node", jint(job, "ntasks_per_node", 0));
    nul(o, "tasks_per_socket");
    i(o, "tasks_per_board", 0);
    if (job_never_ran(job))
        nul(o, "cpus");
    else
        i(o, "cpus", job_view_cpus(job));
    i(o, "node_count", job_view_node_count(job));
    i(o, "tasks", jint(job, "num_tasks", 1));
    nul(o, "het_job_id");
    nul(o, "het_job_id_set");
    nul(o, "het_job_offset");
    s(o, "partition", jstr(job, "partition"));
}

static void job_resources(json_t *o, const json_t *job)
{
    int64_t limit = job_view_time_limit(job);

    if (jint(job, "mem_per_node_mib", 0) > 0)
        i(o, "memory_per_node", jint(job, "mem_per_node_mib", 0));
    else
        nul(o, "memory_per_node");
    if (jint(job, "mem_per_cpu_mib", 0) > 0)
        i(o, "memory_per_cpu", jint(job, "mem_per_cpu_mib", 0));
    else
        nul(o, "memory_per_cpu");
    i(o, "minimum_cpus_per_node", job_view_min_cpus(job));
    i(o, "minimum_tmp_disk_per_node", jint(job, "min_tmp_mib", 0));
    i(o, "preempt_time", 0);
    i(o, "pre_sus_time", 0);
    i(o, "priority", jint(job, "priority", 0));
    nul(o, "profile");
    s(o, "qos", jstr_or(job, "qos", "normal"));
    b(o, "reboot", 0);
    s(o, "required_nodes", jstr(job, "req_nodes"));
    b(o, "requeue", jbool(job, "requeue", true));
    i(o, "resize_time", 0);
    i(o, "restart_cnt", jint(job, "restarts", 0));
    s(o, "resv_name", "");
    nul(o, "shared");
    empty(o, "show_flags");
    i(o, "sockets_per_board", 0);
    topo(o, job, "sockets_per_node");
    i(o, "start_time", jint(job, "start_time", 0));
    s(o, "state_description", "");
    s(o, "state_reason", job_view_reason(job));
    s(o, "standard_error", jstr(job, "std_err"));
    s(o, "standard_input", jstr(job, "std_in"));
    s(o, "standard_output", jstr(job, "std_out"));
    i(o, "submit_time", jint(job, "submit_time", 0));
    i(o, "suspend_time", 0);
    s(o, "system_comment", "");
    if (limit == TIME_INFINITE)
        nul(o, "time_limit");
    else
        i(o, "time_limit", limit / 60);
    i(o, "time_minimum", jint(job, "time_min_s", 0) / 60);
    topo(o, job, "threads_per_core");
}

json_t *json_out_job(const json_t *job)
{
    json_t *o = json_object();

    job_head(o, job);
    job_times(o, job);
    job_ids(o, job);
    job_resources(o, job);
    s(o, "tres_bind", "");
    s(o, "tres_freq", "");
    s(o, "tres_per_job", "");
    s(o, "tres_per_node", jstr(job, "tres_per_node"));
    tres_per_socket(o, job);
    s(o, "tres_per_task", "");
    s(o, "tres_req_str", jstr(job, "tres_req"));
    s(o, "tres_alloc_str", jstr(job, "tres_alloc"));
    i(o, "user_id", jint(job, "user_id", 0));
    s(o, "user_name", job_view_user(job));
    s(o, "wckey", "");
    s(o, "current_working_directory", jstr(job, "work_dir"));
    return o;
}

/* "MIXED" -> "mixed"; Slurm's v0.0.38 node state is the base state. */
static json_t *lower(const char *state)
{
    char buf[64];
    size_t n;

    for (n = 0; state && state[n] && n + 1 < sizeof(buf); n++)
        buf[n] = (char)(state[n] >= 'A' && state[n] <= 'Z' ? state[n] + 32
                                                           : state[n]);
    buf[n] = '\0';
    return json_string(buf);
}

static json_t *node_flags(const json_t *node)
{
    json_t *a = json_array();

    if (jbool(node, "drain", false))
        json_array_append_new(a, json_string("DRAIN"));
    if (jbool(node, "not_responding", false))
        json_array_append_new(a, json_string("NOT_RESPONDING"));
    return a;
}

static void node_head(json_t *o, const json_t *node)
{
    int64_t sockets = jint(node, "sockets", 1);

    s(o, "architecture", "x86_64");
    s(o, "burstbuffer_network_address", "");
    i(o, "boards", 1);
    i(o, "boot_time", jint(node, "boot_time", 0));
    s(o, "comment", "");
    i(o, "cores", jint(node, "cores_per_socket", 1));
    i(o, "cpu_binding", 0);
    i(o, "cpu_load", 0);
    s(o, "extra", "");
    i(o, "free_memory", 0);
    i(o, "cpus", jint(node, "cpus", 0));
    i(o, "last_busy", jint(node, "last_busy_time", 0));
    s(o, "features", jstr(node, "features"));
    s(o, "active_features", jstr(node, "features"));
    s(o, "gres", jstr(node, "gres"));
    s(o, "gres_drained", "N/A");
    s_gres_used(o, jstr(node, "gres_used"));
    s(o, "mcs_label", "");
    s(o, "name", jstr(node, "name"));
    s(o, "next_state_after_reboot", "invalid");
    s(o, "address", jstr(node, "addr"));
    s(o, "hostname", jstr(node, "hostname"));
    json_object_set_new(o, "state", lower(jstr_or(node, "state", "UNKNOWN")));
    json_object_set_new(o, "state_flags", node_flags(node));
    empty(o, "next_state_after_reboot_flags");
    s(o, "operating_system", jstr(node, "os"));
    nul(o, "owner");
    {
        json_t *parts = json_object_get(node, "partitions");
        json_object_set_new(o, "partitions", json_is_array(parts)
                                                 ? json_incref(parts)
                                                 : json_array());
    }
    i(o, "port", jint(node, "port", 0));
    i(o, "real_memory", jint(node, "real_memory_mib", 0));
    s(o, "reason", jstr(node, "reason"));
    i(o, "reason_changed_at", jint(node, "reason_time", 0));
    if (*jstr_or(node, "reason_user", ""))
        s(o, "reason_set_by_user", jstr(node, "reason_user"));
    else
        nul(o, "reason_set_by_user");
    i(o, "slurmd_start_time", jint(node, "slurmd_start_time", 0));
    i(o, "sockets", sockets);
    i(o, "threads", jint(node, "threads_per_core", 1));
}

json_t *json_out_node(const json_t *node)
{
    json_t *o = json_object();
    int64_t cpus = jint(node, "cpus", 0), alloc = jint(node, "alloc_cpus", 0);

    node_head(o, node);
    i(o, "temporary_disk", 0);
    i(o, "weight", jint(node, "weight", 1));
    s(o, "tres", jstr(node, "cfg_tres"));
    s(o, "slurmd_version", jstr_or(node, "version", DROVER_SLURM_VERSION));
    i(o, "alloc_memory", jint(node, "alloc_mem_mib", 0));
    i(o, "alloc_cpus", alloc);
    i(o, "idle_cpus", cpus - alloc);
    s(o, "tres_used", jstr(node, "alloc_tres"));
    json_object_set_new(o, "tres_weighted", json_real((double)alloc));
    return o;
}

json_t *json_out_partition(const json_t *p)
{
    json_t *o = json_object();
    int64_t max_time = jint(p, "max_time_s", -1);
    int64_t def_time = jint(p, "default_time_s", -1);

    json_object_set_new(o, "flags", json_array());
    if (jbool(p, "default", false))
        json_array_append_new(json_object_get(o, "flags"),
                              json_string("default"));
    s(o, "preemption_mode", "disabled");
    s(o, "allowed_allocation_nodes", "");
    s(o, "allowed_accounts", "");
    s(o, "allowed_groups", "");
    s(o, "allowed_qos", "");
    s(o, "alternative", "");
    s(o, "billing_weights", "");
    i(o, "default_memory_per_cpu", 0);
    if (def_time < 0)
        nul(o, "default_time_limit");
    else
        i(o, "default_time_limit", def_time / 60);
    s(o, "denied_accounts", "");
    s(o, "denied_qos", "");
    i(o, "preemption_grace_time", 0);
    i(o, "maximum_cpus_per_node", -1);
    i(o, "maximum_memory_per_node", 0);
    i(o, "maximum_nodes_per_job", jint(p, "max_nodes", -1));
    if (max_time < 0)
        nul(o, "max_time_limit");
    else
        i(o, "max_time_limit", max_time / 60);
    i(o, "minimum_nodes_per_job", 0);
    s(o, "name", jstr(p, "name"));
    s(o, "nodes", jstr(p, "nodes"));
    nul(o, "over_time_limit");
    i(o, "priority_job_factor", jint(p, "priority_job_factor", 1));
    i(o, "priority_tier", jint(p, "priority_tier", 1));
    s(o, "qos", "");
    s(o, "state", jstr_or(p, "state", "UP"));
    i(o, "total_cpus", jint(p, "total_cpus", 0));
    i(o, "total_nodes", jint(p, "total_nodes", 0));
    s(o, "tres", jstr(p, "tres"));
    return o;
}

json_t *json_out_reservation(const json_t *r)
{
    json_t *o = json_object(), *flags = json_array(), *f;
    json_int_t cores = jint(r, "core_cnt", 0);
    char tres[64];
    size_t k;

    json_array_foreach(json_object_get(r, "flags"), k, f)
        if (json_is_string(f))
            json_array_append(flags, f);
    snprintf(tres, sizeof(tres), "cpu=%lld", (long long)cores);
    s(o, "accounts", jstr(r, "accounts"));
    s(o, "burst_buffer", "");
    i(o, "core_count", cores);
    i(o, "core_spec_cnt", 0);
    i(o, "end_time", jint(r, "end_time", 0));
    s(o, "features", "");
    json_object_set_new(o, "flags", flags);
    s(o, "groups", "");
    s(o, "licenses", "");
    i(o, "max_start_delay", 0);
    s(o, "name", jstr(r, "name"));
    i(o, "node_count", jint(r, "node_cnt", 0));
    s(o, "node_list", jstr(r, "nodes"));
    s(o, "partition", jstr(r, "partition"));
    json_object_set_new(o, "purge_completed",
                        json_pack("{s:I}", "time", jint(r, "purge_s", 0)));
    i(o, "start_time", jint(r, "start_time", 0));
    i(o, "watts", 0);
    s(o, "tres", tres);
    s(o, "users", jstr(r, "users"));
    return o;
}

json_t *json_out_doc(void)
{
    json_t *doc = json_object();

    json_object_set_new(
        doc, "meta",
        json_pack("{s:{s:s s:s} s:{s:{s:i s:i s:i} s:s}}", "plugin", "type",
                  "openapi/v0.0.38", "name", "Slurm OpenAPI v0.0.38", "Slurm",
                  "version", "major", 22, "micro", 8, "minor", 5, "release",
                  DROVER_SLURM_VERSION));
    json_object_set_new(doc, "errors", json_array());
    return doc;
}

void json_out_add(json_t *doc, const char *key, const json_t **records,
                  size_t n, json_t *(*convert)(const json_t *))
{
    json_t *arr = json_array();

    for (size_t k = 0; k < n; k++)
        json_array_append_new(arr, convert(records[k]));
    json_object_set_new(doc, key, arr);
}

/* Walk 'text' as json_out_text() rewrites it: each "[]" outside a string
 * becomes "[", a newline, its line's indent and "]".  With 'out' NULL only
 * counts; returns the rewritten length (without the NUL).
 */
static size_t expand_empty_lists(const char *text, char *out)
{
    const char *line = text;
    bool in_str = false;
    size_t n = 0;

    for (const char *p = text; *p; p++) {
        if (in_str) {
            if (*p == '\\' && p[1]) {
                if (out)
                    out[n] = *p;
                n++, p++;
            } else if (*p == '"')
                in_str = false;
        } else if (*p == '"') {
            in_str = true;
        } else if (*p == '\n') {
            line = p + 1;
        } else if (*p == '[' && p[1] == ']') {
            size_t indent = strspn(line, " ");

            if (out) {
                out[n] = '[';
                out[n + 1] = '\n';
                memset(out + n + 2, ' ', indent);
            }
            n += 2 + indent;
            continue;
        }
        if (out)
            out[n] = *p;
        n++;
    }
    return n;
}

char *json_out_text(const json_t *doc)
{
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER
                                     | JSON_ESCAPE_SLASH);
    size_t len;
    char *out;

    if (!text)
        return NULL;
    len = expand_empty_lists(text, NULL);
    out = xzalloc(len + 1);
    expand_empty_lists(text, out);
    free(text);
    return out;
}

void json_out_dump(FILE *out, json_t *doc)
{
    char *text = json_out_text(doc);

    if (text) {
        fputs(text, out);
        fputc('\n', out);
    }
    free(text);
    json_decref(doc);
}

void json_out_print(FILE *out, const char *key, const json_t **records,
                    size_t n, json_t *(*convert)(const json_t *))
{
    json_t *doc = json_out_doc();

    json_out_add(doc, key, records, n, convert);
    json_out_dump(out, doc);
}
