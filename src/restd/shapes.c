/* SPDX-License-Identifier: Apache-2.0
 *
 * shapes.c - records in slurmrestd's v0.0.39 (Slurm 23.02) and v0.0.40
 * (Slurm 23.11) shapes, made from the v0.0.38 ones (cmd/lib/json_out.c)
 *
 * One function per difference between versions: v0.0.39 turns numbers
 * that may be unset or infinite into {"set","infinite","number"} objects,
 * a node's state into an array of flags and nests a partition's fields;
 * v0.0.40 does the same to times (uint64_no_val) and a job's state, and
 * gives exit codes their verbose object.  What v0.0.40 shares with
 * v0.0.39 is made by the v0.0.39 function.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/lib/json_out.h"
#include "cmd/lib/jsonget.h"
#include "restd/api.h"

json_t *shape_no_val(int set, int infinite, json_int_t number)
{
    return json_pack("{s:b s:b s:I}", "set", set, "infinite", infinite,
                     "number", number);
}

int shape_no_val_read(const json_t *v, json_int_t *number, int *infinite)
{
    const json_t *n;

    *infinite = 0;
    if (json_is_integer(v)) {
        *number = json_integer_value(v);
        return 1;
    }
    if (!json_is_object(v))
        return -1;
    n = json_object_get(v, "number");
    if (json_object_get(v, "number") && !json_is_integer(n))
        return -1;
    if (json_is_true(json_object_get(v, "infinite"))) {
        *infinite = 1;
        *number = 0;
        return 1;
    }
    if (json_is_false(json_object_get(v, "set")))
        return 0;
    if (!n)
        return -1;
    *number = json_integer_value(n);
    return 1;
}

json_t *shape_no_val_of(const json_t *v, int null_infinite)
{
    if (json_is_real(v))
        return json_pack("{s:b s:b s:f}", "set", 1, "infinite", 0,
                         "number", json_real_value(v));
    if (json_is_integer(v))
        return shape_no_val(1, 0, json_integer_value(v));
    return shape_no_val(null_infinite, null_infinite, 0);
}

/* o[key], a number or null (v0.0.38's "not set"), as a no_val object;
 * null is infinite when 'null_infinite'. */
static void no_val_key(json_t *o, const char *key, int null_infinite)
{
    json_object_set_new(o, key, shape_no_val_of(json_object_get(o, key),
                                                null_infinite));
}

json_t *shape_get(const json_t *o, const char *path)
{
    char key[64];

    while (o && *path) {
        size_t n = strcspn(path, ".");
        snprintf(key, sizeof(key), "%.*s", (int)n, path);
        o = json_object_get(o, key);
        path += n + (path[n] == '.');
    }
    return (json_t *)o;
}

void shape_put(json_t *o, json_t *v, const char *path)
{
    char key[64];

    for (;;) {
        size_t n = strcspn(path, ".");
        snprintf(key, sizeof(key), "%.*s", (int)n, path);
        if (!path[n]) {
            json_object_set_new(o, key, v);
            return;
        }
        json_t *next = json_object_get(o, key);
        if (!json_is_object(next)) {
            next = json_object();
            json_object_set_new(o, key, next);
        }
        o = next;
        path += n + 1;
    }
}

static void no_val_keys(json_t *o, const char *const *keys)
{
    for (; *keys; keys++)
        no_val_key(o, *keys, 0);
}

/* Set keys v0.0.38 lacks, to 'make()' each. */
static void add_keys(json_t *o, json_t *(*make)(void),
                     const char *const *keys)
{
    for (; *keys; keys++)
        json_object_set_new(o, *keys, make());
}

static json_t *empty_string(void) { return json_string(""); }
static json_t *zero(void) { return json_integer(0); }
static json_t *unset(void) { return shape_no_val(0, 0, 0); }

/* A null of v0.0.38 where v0.0.39 has a plain integer or an array. */
static void null_to(json_t *o, const char *key, json_t *(*make)(void))
{
    if (json_is_null(json_object_get(o, key)))
        json_object_set_new(o, key, make());
}

/* "a,b" -> ["a","b"] ("" -> []). */
static json_t *split(const char *s)
{
    json_t *arr = json_array();

    for (const char *p = s ? s : ""; *p;) {
        size_t n = strcspn(p, ",");
        if (n)
            json_array_append_new(arr, json_stringn(p, n));
        p += n + (p[n] == ',');
    }
    return arr;
}

static void split_key(json_t *o, const char *key)
{
    json_object_set_new(o, key,
                        split(json_string_value(json_object_get(o, key))));
}

/* v0.0.40: every time is a uint64_no_val. */
static void times_no_val(json_t *o, const char *const *keys)
{
    for (; *keys; keys++)
        if (json_object_get(o, *keys))
            no_val_key(o, *keys, 0);
}

/* ---- jobs ---- */

json_t *shape_job_v39(const json_t *rec)
{
    json_t *o = json_out_job(rec);

    no_val_keys(o, (const char *const[]){
        "array_job_id", "array_task_id", "array_max_tasks",
        "cpu_frequency_minimum", "cpu_frequency_maximum",
        "cpu_frequency_governor", "delay_boot", "het_job_id",
        "het_job_offset", "max_cpus", "max_nodes", "cpus", "node_count",
        "tasks", "minimum_tmp_disk_per_node", "priority", "time_minimum",
        "cores_per_socket", "cpus_per_task", "tasks_per_core",
        "tasks_per_node", "tasks_per_socket", "tasks_per_board",
        "minimum_cpus_per_node", "sockets_per_node", "threads_per_core",
        "memory_per_cpu", "memory_per_node", "billable_tres", NULL});
    /* v0.0.38's null time limit is UNLIMITED. */
    no_val_key(o, "time_limit", 1);
    null_to(o, "core_spec", zero);
    null_to(o, "thread_spec", zero);
    null_to(o, "nice", zero);
    null_to(o, "profile", json_array);
    null_to(o, "shared", json_array);
    null_to(o, "het_job_id_set", empty_string);
    add_keys(o, empty_string, (const char *const[]){
        "allocating_node", "container_id", "cron", "extra", "failed_node",
        "mail_user", "network", "prefer", "scheduled_nodes",
        "selinux_context", NULL});
    add_keys(o, json_array, (const char *const[]){"exclusive", "job_size_str",
                                                   "mail_type", NULL});
    add_keys(o, zero, (const char *const[]){"minimum_switches",
                                             "maximum_switch_wait_time",
                                             "preemptable_time", NULL});
    json_object_set_new(o, "tasks_per_tres", unset());
    return o;
}

/* Slurm 23.11's process_exit_code_verbose: {"status": [status],
 * "return_code", "signal": {"id", "name": "SIGKILL"}} ('signaled':
 * whether 'sig' is set; 'has_code': whether return_code is). */
static json_t *exit_verbose_of(const char *status, bool has_code, int code,
                               bool signaled, int sig)
{
    char name[32] = "";

    if (signaled && sigabbrev_np(sig))
        snprintf(name, sizeof(name), "SIG%s", sigabbrev_np(sig));
    return json_pack("{s:[s] s:o s:{s:o s:s}}", "status", status,
                     "return_code", shape_no_val(has_code, 0, code),
                     "signal", "id", shape_no_val(signaled, 0,
                                                  signaled ? sig : 0),
                     "name", name);
}

/* The same of a raw wait status. */
static json_t *exit_verbose(int64_t st, int pending)
{
    int sig = (int)(st & 0x7f), code = (int)((st >> 8) & 0xff);
    int signaled = !pending && sig && sig != 0x7f;
    const char *status = pending ? "PENDING"
                         : signaled ? "SIGNALED"
                         : code ? "ERROR" : "SUCCESS";

    return exit_verbose_of(status, !pending, code, signaled, sig);
}

json_t *shape_job_v40(const json_t *rec)
{
    json_t *o = shape_job_v39(rec);
    const char *state = json_string_value(json_object_get(o, "job_state"));
    const char *reason = json_string_value(json_object_get(o,
                                                           "state_reason"));
    int pending = state && !strcmp(state, "PENDING");

    times_no_val(o, (const char *const[]){
        "accrue_time", "deadline", "eligible_time", "end_time",
        "last_sched_evaluation", "preempt_time", "preemptable_time",
        "pre_sus_time", "resize_time", "start_time", "submit_time",
        "suspend_time", NULL});
    json_object_set_new(o, "job_state", json_pack("[s]", state ? state
                                                               : "UNKNOWN"));
    json_object_set_new(o, "exit_code",
                        exit_verbose(jint(rec, "exit_status", 0), pending));
    json_object_set_new(o, "derived_exit_code",
                        exit_verbose(jint(rec, "derived_exit_status", 0),
                                     pending));
    json_object_set_new(o, "hold", json_boolean(
                                       reason && !strncmp(reason, "JobHeld",
                                                          7)));
    json_object_set_new(o, "oversubscribe", json_false());
    return o;
}

/* ---- nodes ---- */

/* v0.0.38's "state" ("mixed") and "state_flags" (["DRAIN"]) as
 * v0.0.39's one array of flags (["MIXED","DRAIN"]). */
static void node_state_flags(json_t *o)
{
    const char *base = json_string_value(json_object_get(o, "state"));
    json_t *arr = json_array(), *f;
    char up[64];
    size_t n, i;

    for (n = 0; base && base[n] && n + 1 < sizeof(up); n++)
        up[n] = (char)(base[n] >= 'a' && base[n] <= 'z' ? base[n] - 32
                                                        : base[n]);
    up[n] = '\0';
    json_array_append_new(arr, json_string(n ? up : "UNKNOWN"));
    json_array_foreach(json_object_get(o, "state_flags"), i, f)
        json_array_append(arr, f);
    json_object_set_new(o, "state", arr);
    json_object_del(o, "state_flags");
    json_object_set_new(o, "next_state_after_reboot", json_pack("[s]",
                                                                "INVALID"));
    json_object_del(o, "next_state_after_reboot_flags");
}

/* A key v0.0.39 renamed: o[from] moved to o[to]. */
static void rename_key(json_t *o, const char *from, const char *to)
{
    json_t *v = json_object_get(o, from);

    if (v) {
        json_object_set(o, to, v);
        json_object_del(o, from);
    }
}

json_t *shape_node_v39(const json_t *rec)
{
    json_t *o = json_out_node(rec);

    node_state_flags(o);
    split_key(o, "features");
    split_key(o, "active_features");
    rename_key(o, "idle_cpus", "alloc_idle_cpus");
    rename_key(o, "slurmd_version", "version");
    json_object_del(o, "free_memory");
    json_object_set_new(o, "free_mem", unset());
    no_val_key(o, "cpu_load", 0);
    null_to(o, "owner", empty_string);
    null_to(o, "reason_set_by_user", empty_string);
    json_object_set_new(o, "cluster_name", json_string(""));
    json_object_set(o, "effective_cpus", json_object_get(o, "cpus"));
    add_keys(o, zero, (const char *const[]){"specialized_cores",
                                             "specialized_memory", NULL});
    add_keys(o, empty_string, (const char *const[]){"specialized_cpus",
                                                     "reservation", NULL});
    json_object_set_new(o, "resume_after", unset());
    return o;
}

json_t *shape_node_v40(const json_t *rec)
{
    json_t *o = shape_node_v39(rec);
    json_t *load = json_object_get(json_object_get(o, "cpu_load"), "number");

    json_object_set_new(o, "cpu_load",
                        json_integer(json_integer_value(load)));
    times_no_val(o, (const char *const[]){"boot_time", "last_busy",
                                           "reason_changed_at",
                                           "slurmd_start_time", NULL});
    return o;
}

/* ---- partitions ---- */

/* Seconds (negative: unlimited) as minutes in a no_val object. */
static json_t *minutes_no_val(int64_t s)
{
    return s < 0 ? shape_no_val(1, 1, 0) : shape_no_val(1, 0, s / 60);
}

json_t *shape_partition_v39(const json_t *p)
{
    int64_t max_nodes = jint(p, "max_nodes", -1);

    return json_pack(
        "{s:{s:s s:s s:I} s:{s:s s:s} s:{s:s} s:{s:s s:s s:s} s:s"
        " s:{s:s s:s} s:s s:{s:i s:I} s:{s:I s:o s:o s:o s:s}"
        " s:i s:{s:o s:o s:o s:o s:o s:o s:o s:{s:i s:[]} s:o s:o}"
        " s:{s:i} s:s s:s s:{s:I s:I} s:{s:o s:o} s:o}",
        "nodes", "allowed_allocation", "", "configured",
        jstr_or(p, "nodes", ""), "total", (json_int_t)jint(p, "total_nodes", 0),
        "accounts", "allowed", "", "deny", "",
        "groups", "allowed", "",
        "qos", "allowed", "", "deny", "", "assigned", "",
        "alternate", "",
        "tres", "billing_weights", "", "configured", jstr_or(p, "tres", ""),
        "cluster", "",
        "cpus", "task_binding", 0, "total", (json_int_t)jint(p, "total_cpus", 0),
        "defaults", "memory_per_cpu", (json_int_t)0,
        "partition_memory_per_cpu", unset(), "partition_memory_per_node",
        unset(), "time", minutes_no_val(jint(p, "default_time_s", -1)), "job", "",
        "grace_time", 0,
        "maximums", "cpus_per_node", shape_no_val(1, 1, 0), "cpus_per_socket",
        shape_no_val(1, 1, 0), "memory_per_cpu", unset(),
        "partition_memory_per_cpu", unset(), "partition_memory_per_node",
        unset(), "nodes", max_nodes < 0 ? shape_no_val(1, 1, 0)
                                        : shape_no_val(1, 0, max_nodes),
        "shares", shape_no_val(1, 0, 1), "oversubscribe", "jobs", 1, "flags",
        "time", minutes_no_val(jint(p, "max_time_s", -1)),
        "over_time_limit", unset(),
        "minimums", "nodes", 0,
        "name", jstr_or(p, "name", ""), "node_sets", "",
        "priority", "job_factor", (json_int_t)jint(p, "priority_job_factor", 1),
        "tier", (json_int_t)jint(p, "priority_tier", 1),
        "timeouts", "resume", unset(), "suspend", unset(),
        "suspend_time", unset());
}

/* v0.0.40 adds the partition's state, as flags. */
json_t *shape_partition_v40(const json_t *p)
{
    json_t *o = shape_partition_v39(p);

    json_object_set_new(o, "partition",
                        json_pack("{s:[s]}", "state",
                                  jstr_or(p, "state", "UP")));
    return o;
}

/* ---- reservations ---- */

json_t *shape_resv_v39(const json_t *rec)
{
    json_t *o = json_out_reservation(rec);
    json_t *purge = json_object_get(o, "purge_completed");

    no_val_key(purge, "time", 0);
    no_val_key(o, "watts", 0);
    return o;
}

json_t *shape_resv_v40(const json_t *rec)
{
    json_t *o = shape_resv_v39(rec);

    times_no_val(o, (const char *const[]){"start_time", "end_time", NULL});
    return o;
}

/* ---- accounting jobs (/slurmdb) ---- */

void shape_db_job(json_t *o, const json_t *rec, int minor)
{
    json_t *time = json_object_get(o, "time"), *state;
    json_int_t limit = json_integer_value(json_object_get(time, "limit"));

    /* sacct's 0 is "no limit" (UNLIMITED). */
    json_object_set_new(time, "limit", limit ? shape_no_val(1, 0, limit)
                                             : shape_no_val(1, 1, 0));
    no_val_key(o, "priority", 0);
    if (minor < 40)
        return;
    state = json_object_get(o, "state");
    json_object_set_new(state, "current",
                        json_pack("[s]", jstr_or(state, "current",
                                                 "UNKNOWN")));
    /* From the record's wait statuses: v0.0.38's exit_code object says
     * SUCCESS for any exit, as Slurm 22.05's does (sacct_json.c). */
    json_object_set_new(o, "exit_code",
                        exit_verbose(jint(rec, "exit_status", 0), 0));
    json_object_set_new(o, "derived_exit_code",
                        exit_verbose(jint(rec, "derived_exit_status", 0), 0));
}
