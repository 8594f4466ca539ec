/* SPDX-License-Identifier: Apache-2.0
 *
 * sacct_json.c - sacct --json: accounting records in Slurm's v0.0.38 shape
 *
 * The shape of slurmdbd's data_parser v0.0.38 job (what `sacct --json` and
 * slurmrestd's /slurmdb/v0.0.38/jobs print), for the fields an accounting
 * record carries; fields Drover does not record carry Slurm's "not set".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/lib/jsonget.h"
#include "cmd/lib/json_out.h"
#include "cmd/lib/sacct_json.h"
#include "cmd/lib/sacct_print.h"

/* Slurm 22.05's exit_code object of a wait status 'st', as its
 * data_parser v0.0.38 dumps it: any normal exit is {"status": "SUCCESS",
 * "return_code": 0}, whatever the code (Slurm's own quirk: the exit code
 * shows in "state" and in sacct's ExitCode, not here); a signal is
 * "SIGNALED" with return_code null and the signal's strsignal() name. */
static json_t *exit_obj(int64_t st)
{
    int sig = (int)(st & 0x7f);

    if (sig == 0)
        return json_pack("{s:s s:i}", "status", "SUCCESS", "return_code", 0);
    if (sig != 0x7f)
        return json_pack("{s:s s:n s:{s:i s:s}}", "status", "SIGNALED",
                         "return_code", "signal", "signal_id", sig, "name",
                         strsignal(sig) ? strsignal(sig) : "");
    return json_pack("{s:s s:i}", "status", "ERROR", "return_code",
                     (int)((st >> 8) & 0xff));
}

/* "cpu=4,mem=8000M,gres/gpu=2" as [{type,name,id,count}]. */
static json_t *tres_list(const char *s)
{
    json_t *arr = json_array();
    char *copy = strdup(s ? s : ""), *save = NULL;

    for (char *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '='), *slash;
        const char *name = "";
        char *end;
        long long count;

        if (!eq)
            continue;
        *eq = '\0';
        count = strtoll(eq + 1, &end, 10);
        if (*end == 'G')
            count *= 1024;
        else if (*end == 'T')
            count *= 1024 * 1024;
        if ((slash = strchr(tok, '/'))) {
            *slash = '\0';
            name = slash + 1;
        }
        json_array_append_new(arr,
                              json_pack("{s:s s:s s:i s:I}", "type", tok,
                                        "name", name, "id", -1, "count",
                                        (json_int_t)count));
    }
    free(copy);
    return arr;
}

static json_t *step_obj(const json_t *job, const json_t *st, time_t now)
{
    struct fmt_buf id = {0};
    struct sacct_row row = {job, st};
    int64_t user = jint(st, "user_cpu_us", 0), sys = jint(st, "sys_cpu_us", 0);
    json_t *o;

    sacct_put_jobid(&id, &row);
    o = json_pack(
        "{s:{s:I s:I s:I s:I s:{s:I s:I} s:{s:I s:I} s:{s:I s:I}}"
        " s:o s:{s:I s:s} s:{s:I s:I} s:{s:I s:s}"
        " s:s s:{s:I s:s s:s s:s}"
        " s:{s:o s:o}}",
        "time", "elapsed", (json_int_t)sacct_elapsed(st, now), "end",
        (json_int_t)jint(st, "end_time", 0), "start",
        (json_int_t)jint(st, "start_time", 0), "suspended", (json_int_t)0,
        "system", "seconds", (json_int_t)(sys / 1000000), "microseconds",
        (json_int_t)(sys % 1000000), "total", "seconds",
        (json_int_t)((user + sys) / 1000000), "microseconds",
        (json_int_t)((user + sys) % 1000000), "user", "seconds",
        (json_int_t)(user / 1000000), "microseconds",
        (json_int_t)(user % 1000000),
        "exit_code", exit_obj(jint(st, "exit_status", 0)),
        "nodes", "count", (json_int_t)jint(st, "nnodes", 0), "range",
        jstr_or(st, "nodes", ""),
        "tasks", "count", (json_int_t)jint(st, "ntasks", 0), "cpus",
        (json_int_t)jint(st, "ncpus", 0),
        "step", "job_id", (json_int_t)jint(job, "job_id", 0), "name",
        jstr_or(st, "name", ""),
        "state", jstr_or(st, "state", "UNKNOWN"),
        "statistics", "CPU", (json_int_t)0, "energy", "", "max_rss_node",
        jstr_or(st, "max_rss_node", ""), "id", fmt_buf_str(&id),
        "tres", "requested", json_array(), "allocated",
        tres_list(jstr(st, "alloc_tres")));
    free(id.s);
    return o;
}

static json_t *steps_obj(const json_t *job, time_t now)
{
    json_t *arr = json_array();
    const json_t *st;
    size_t i;

    json_array_foreach(json_object_get(job, "steps"), i, st)
        json_array_append_new(arr, step_obj(job, st, now));
    return arr;
}

json_t *sacct_json_job(const json_t *job, const struct sacct_ctx *ctx)
{
    int64_t task = jint(job, "array_task_id", -1);
    int64_t limit = jint(job, "time_limit_min", -1);

    return json_pack(
        "{s:s s:{s:s s:s s:s} s:I s:{s:I s:{s:{s:I}} s:I s:s}"
        " s:s s:s s:o s:o s:s s:I s:s s:s s:s s:I s:s"
        " s:{s:I s:I} s:{s:s s:s} s:o"
        " s:{s:I s:I s:I s:I s:I s:I s:I s:I}"
        " s:{s:o s:o} s:s s:s s:s}",
        "account", jstr_or(job, "account", ""),
        "comment", "administrator", "", "job", jstr_or(job, "comment", ""),
        "system", "",
        "allocation_nodes", (json_int_t)jint(job, "nnodes", 0),
        "array", "job_id", (json_int_t)jint(job, "array_job_id", 0), "limits",
        "max", "running", (json_int_t)0, "task_id",
        (json_int_t)(task >= 0 ? task : 0), "task",
        jstr_or(job, "array_task_str", ""),
        "cluster", jstr_or(job, "cluster", ctx->cluster ? ctx->cluster : ""),
        "constraints", jstr_or(job, "constraints", ""),
        "derived_exit_code", exit_obj(jint(job, "derived_exit_status", 0)),
        "exit_code", exit_obj(jint(job, "exit_status", 0)),
        "group", jstr_or(job, "group", ""),
        "job_id", (json_int_t)jint(job, "job_id", 0),
        "name", jstr_or(job, "name", ""),
        "nodes", jstr_or(job, "nodes", ""),
        "partition", jstr_or(job, "partition", ""),
        "priority", (json_int_t)jint(job, "priority", 0),
        "qos", jstr_or(job, "qos", ""),
        "required", "CPUs", (json_int_t)jint(job, "req_cpus", 0), "memory",
        (json_int_t)jint(job, "req_mem_mib", 0),
        "state", "current", jstr_or(job, "state", "UNKNOWN"), "reason",
        jstr_or(job, "reason", "None"),
        "steps", steps_obj(job, ctx->now),
        "time", "elapsed", (json_int_t)sacct_elapsed(job, ctx->now),
        "eligible", (json_int_t)jint(job, "eligible_time", 0), "end",
        (json_int_t)jint(job, "end_time", 0), "start",
        (json_int_t)jint(job, "start_time", 0), "submission",
        (json_int_t)jint(job, "submit_time", 0), "suspended",
        (json_int_t)sacct_suspended(job, jint(job, "end_time", 0) > 0
                                             ? (time_t)jint(job, "end_time", 0)
                                             : ctx->now),
        "limit", (json_int_t)(limit < 0 ? 0 : limit), "total", (json_int_t)0,
        "tres", "requested", tres_list(jstr(job, "req_tres")), "allocated",
        tres_list(jstr(job, "alloc_tres")),
        "user", jstr_or(job, "user", ""),
        "wckey", "",
        "working_directory", jstr_or(job, "work_dir", ""));
}

void sacct_json_print(FILE *out, const json_t *jobs,
                      const struct sacct_ctx *ctx)
{
    json_t *doc = json_out_doc(), *arr = json_array();
    const json_t *job;
    size_t i;

    json_array_foreach(jobs, i, job)
        json_array_append_new(arr, sacct_json_job(job, ctx));
    json_object_set_new(doc, "jobs", arr);
    json_out_dump(out, doc);
}
