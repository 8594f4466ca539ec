/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sacct_format.c - sacct's output against real Slurm's
 *
 * Accounting job records shaped as droverdbd answers acct_job_query
 * (docs/protocol.md, "Accounting job record") are built to reproduce the
 * jobs behind each Slurm 22.05.8 sacct golden case (shared/slurm-golden/
 * sacct-*, copied to data/slurm-golden), then run through the printer
 * sacct uses; the output must equal the golden stdout byte for byte.
 * alice is uid 1001 in account research, partition gpu.  Times are UTC.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>

#include "cmd/lib/sacct_json.h"
#include "cmd/lib/sacct_print.h"
#include "golden.h"

#define NOW 1795249800 /* 2026-11-21T08:30:00Z */
#define ENDED (NOW - 3600)
#define EXIT(code) ((code) << 8)

/* --- record builders ----------------------------------------------------- */

/* A job of alice's that ran 'elapsed' seconds; running when state is
 * RUNNING (started 'elapsed' seconds before NOW), never started when
 * elapsed < 0.
 */
static json_t *job(int64_t id, const char *name, const char *state,
                   int status, int cpus, int nnodes, const char *tres,
                   int64_t elapsed)
{
    bool running = !strcmp(state, "RUNNING");
    int64_t start = elapsed < 0 ? 0 : running ? NOW - elapsed : ENDED;
    int64_t end = elapsed < 0 ? ENDED : running ? 0 : ENDED + elapsed;

    return json_pack(
        "{s:I s:I s:I s:s s:I s:s s:I s:s s:s s:s s:s s:s s:i s:i s:i"
        " s:i s:i s:s s:s s:s s:I s:I s:I s:I s:i s:[]}",
        "job_id", (json_int_t)id, "array_job_id", (json_int_t)0,
        "array_task_id", (json_int_t)-1, "name", name, "uid",
        (json_int_t)1001, "user", "alice", "gid", (json_int_t)1001, "group",
        "alice", "account", "research", "qos", "normal", "partition", "gpu",
        "state", state, "exit_status", status, "derived_exit_status", 0,
        "ncpus", cpus, "req_cpus", cpus, "nnodes", nnodes, "nodes", "n1",
        "alloc_tres", tres, "req_tres", tres, "submit_time",
        (json_int_t)(ENDED - 5), "eligible_time", (json_int_t)(ENDED - 5),
        "start_time", (json_int_t)start, "end_time", (json_int_t)end,
        "time_limit_min", 60, "steps");
}

static json_t *array_task(json_t *j, int64_t array_id, int64_t task)
{
    json_object_set_new(j, "array_job_id", json_integer(array_id));
    json_object_set_new(j, "array_task_id", json_integer(task));
    return j;
}

static json_t *cancelled_by(json_t *j, int uid)
{
    json_object_set_new(j, "cancelled_by", json_integer(uid));
    return j;
}

/* Add a step that ran as long as its job. */
static json_t *step(json_t *j, int64_t id, const char *name,
                    const char *state, int status, int cpus, int nnodes,
                    int ntasks, const char *tres)
{
    json_t *s = json_pack(
        "{s:I s:s s:s s:i s:I s:I s:s s:i s:i s:i s:s s:i s:s s:i s:i s:i}",
        "step_id", (json_int_t)id, "name", name, "state", state,
        "exit_status", status, "start_time",
        json_integer_value(json_object_get(j, "start_time")), "end_time",
        json_integer_value(json_object_get(j, "end_time")), "nodes", "n1",
        "nnodes", nnodes, "ntasks", ntasks, "ncpus", cpus, "alloc_tres", tres,
        "max_rss_kib", -1, "max_rss_node", "", "max_rss_task", -1,
        "user_cpu_us", 0, "sys_cpu_us", 0);

    json_array_append_new(json_object_get(j, "steps"), s);
    return j;
}

static json_t *batch(json_t *j, const char *state, int status, int cpus,
                     const char *tres)
{
    return step(j, SACCT_STEP_BATCH, "batch", state, status, cpus, 1, 1,
                tres);
}

#define T1 "billing=1,cpu=1,node=1"
#define T1GPU1 "billing=1,cpu=1,gres/gpu=1,node=1"
#define T1GPU3 "billing=1,cpu=1,gres/gpu=3,node=1"
#define T1NONODE "billing=1,cpu=1"
#define T4GPU2 "billing=4,cpu=4,gres/gpu=2,node=1"
#define S1 "cpu=1,mem=0,node=1"
#define S4GPU2 "cpu=4,gres/gpu=2,mem=0,node=1"

/* The 13 jobs left in the database by earlier runs: a1gpu and a3gpu ran
 * and were cancelled (signal 15), a2gpu and a5gpu were cancelled pending.
 */
static void add_old_jobs(json_t *jobs)
{
    static const struct { int id; const char *name; } old[] = {
        {10, "a1gpu"},    {11149, "a5gpu"}, {11150, "a3gpu"},
        {11151, "a1gpu"}, {11152, "a2gpu"}, {11191, "a5gpu"},
        {11192, "a3gpu"}, {11193, "a1gpu"}, {11194, "a2gpu"},
        {6, "a5gpu"},     {7, "a3gpu"},     {8, "a1gpu"},
        {9, "a2gpu"},
    };

    for (size_t i = 0; i < sizeof(old) / sizeof(old[0]); i++) {
        char kind = old[i].name[1];
        json_t *j;

        if (kind == '1' || kind == '3') {
            j = job(old[i].id, old[i].name, "CANCELLED", 15, 1, 1,
                    kind == '1' ? T1GPU1 : T1GPU3, old[i].id == 10 ? 5 : 3);
            batch(j, "CANCELLED", 15, 1, S1);
        } else {
            j = job(old[i].id, old[i].name, "CANCELLED", 0, 1, 1, T1NONODE,
                    0);
        }
        json_array_append_new(jobs, j);
    }
}

static json_t *completed(int64_t id, const char *name, int cpus,
                         const char *tres, const char *step_tres)
{
    return batch(job(id, name, "COMPLETED", 0, cpus, 1, tres, 0),
                 "COMPLETED", 0, cpus, step_tres);
}

/* alice's jobs of today, 8366 to 8378 (done before the queue started). */
static void add_done_jobs(json_t *jobs)
{
    json_t *a = json_array();

    json_array_append_new(a, completed(8366, "ok", 1, T1, S1));
    json_array_append_new(
        a, batch(job(8367, "fail3", "FAILED", EXIT(3), 1, 1, T1, 0), "FAILED",
                 EXIT(3), 1, S1));
    json_array_append_new(
        a, batch(job(8368, "tmo", "TIMEOUT", 0, 1, 1, T1, 76), "CANCELLED",
                 15, 1, S1));
    json_array_append_new(
        a, cancelled_by(job(8369, "cancelme", "CANCELLED", 0, 1, 1, "", 0),
                        1001));
    json_array_append_new(a,
                          job(8370, "wrap", "FAILED", EXIT(1), 1, 1, "", 0));
    json_array_append_new(a, completed(8373, "envdump", 4, T4GPU2, S4GPU2));
    json_array_append_new(
        a, array_task(completed(8375, "envdump", 4, T4GPU2, S4GPU2), 8374, 0));
    json_array_append_new(
        a, array_task(completed(8374, "envdump", 4, T4GPU2, S4GPU2), 8374, 1));
    json_array_append_new(
        a, step(job(8376, "hostname", "COMPLETED", 0, 3, 3,
                    "billing=3,cpu=3,node=3", 0),
                0, "hostname", "COMPLETED", 0, 3, 3, 3,
                "cpu=3,mem=0,node=3"));
    json_array_append_new(
        a, step(job(8377, "bash", "FAILED", EXIT(3), 2, 1,
                    "billing=2,cpu=2,node=1", 0),
                0, "bash", "FAILED", EXIT(3), 2, 1, 2, "cpu=2,mem=0,node=1"));
    json_array_append_new(
        a, cancelled_by(job(8378, "true", "CANCELLED", 0, 1, 1, "", -1),
                        1001));
    json_array_extend(jobs, a);
    json_decref(a);
}

static json_t *running(int64_t id, const char *name, int cpus, int nnodes,
                       const char *tres, int batch_cpus, int64_t elapsed)
{
    return batch(job(id, name, "RUNNING", 0, cpus, nnodes, tres, elapsed),
                 "RUNNING", 0, batch_cpus, "cpu=1,mem=0,node=1");
}

/* The queue's running jobs of alice (train, sweep, arr tasks 0 and 1),
 * then quick.
 */
static void add_queue(json_t *jobs, bool with_train)
{
    if (with_train)
        json_array_append_new(
            jobs, running(8379, "train", 16, 1,
                          "billing=16,cpu=16,gres/gpu=2,node=1", 16, 40));
    json_array_append_new(
        jobs, running(8382, "sweep", 2, 2, "billing=2,cpu=2,node=2", 1, 37));
    json_array_append_new(
        jobs, array_task(running(8386, "arr", 4, 1, "billing=4,cpu=4,node=1",
                                 4, 37),
                         8385, 0));
    json_array_append_new(
        jobs, array_task(running(8385, "arr", 4, 1, "billing=4,cpu=4,node=1",
                                 4, 37),
                         8385, 1));
    json_array_append_new(jobs, completed(8388, "quick", 1, T1, S1));
}

/* Everything sacct saw for alice today in the main golden run. */
static json_t *today(void)
{
    json_t *jobs = json_array();

    add_old_jobs(jobs);
    add_done_jobs(jobs);
    add_queue(jobs, true);
    return jobs;
}

/* The records of 'all' whose id (or array id) is in 'ids' (0-terminated),
 * as droverdbd's job_ids filter selects them.
 */
static json_t *pick(const json_t *all, const int64_t *ids)
{
    json_t *out = json_array();
    const json_t *j;
    size_t i;

    json_array_foreach(all, i, j) {
        for (const int64_t *id = ids; *id; id++) {
            if (json_integer_value(json_object_get(j, "job_id")) == *id
                || json_integer_value(json_object_get(j, "array_job_id"))
                       == *id) {
                json_array_append(out, (json_t *)j);
                break;
            }
        }
    }
    return out;
}

/* --- running the printer ------------------------------------------------- */

struct run {
    const char *format;
    bool allocations;
    enum sacct_layout layout;
    bool noheader;
    const char *jobs; /* -j text, NULL none */
};

static char *render(const json_t *jobs, const struct run *r)
{
    struct sacct_format fmt;
    struct sacct_output out = {r->layout, !r->noheader, NULL};
    struct sacct_ctx ctx = {NOW, "drover", 0, false};
    struct sacct_jobspec specs[8];
    size_t nspecs = 0, nrows;
    struct sacct_row *rows;
    char *bad = NULL, *text;

    if (r->jobs) {
        char *copy = strdup(r->jobs), *save = NULL;
        for (char *t = strtok_r(copy, ",", &save); t;
             t = strtok_r(NULL, ",", &save))
            assert_int_equal(sacct_jobspec_parse(t, &specs[nspecs++]), 0);
        free(copy);
    }
    assert_int_equal(sacct_format_parse(r->format ? r->format
                                                  : SACCT_FORMAT_DEFAULT,
                                        &fmt, &bad),
                     0);
    rows = sacct_rows(jobs, r->allocations, specs, nspecs, &nrows);
    text = sacct_render(&fmt, &out, rows, nrows, &ctx);
    free(rows);
    sacct_format_free(&fmt);
    return text;
}

static void assert_golden(const char *name, const json_t *jobs,
                          const struct run *r)
{
    char file[128];
    char *want, *got = render(jobs, r);

    snprintf(file, sizeof(file), "%s.stdout", name);
    want = golden_text(file);
    if (!want)
        fail_msg("golden file %s not found", file);
    if (strcmp(want, got) != 0)
        fail_msg("%s differs\n--- want\n%s--- got\n%s", name, want, got);
    free(want);
    free(got);
}

/* --- golden cases -------------------------------------------------------- */

static void sacct_default(void **state)
{
    json_t *jobs = today();

    (void)state;
    assert_golden("sacct-default", jobs, &(struct run){0});
    json_decref(jobs);
}

static void sacct_allocations_parsable2(void **state)
{
    json_t *jobs = today();

    (void)state;
    assert_golden("sacct-X-P", jobs,
                  &(struct run){.format = "JobID,JobName,State,ExitCode,"
                                          "Elapsed",
                                .allocations = true,
                                .layout = SACCT_PARSABLE2});
    assert_golden("sacct-alloctres", jobs,
                  &(struct run){.format = "JobID,State%20,AllocTRES%40",
                                .allocations = true});
    json_decref(jobs);
}

static void sacct_job_selections(void **state)
{
    json_t *all = today(), *jobs;

    (void)state;
    jobs = pick(all, (int64_t[]){8366, 8367, 8368, 8369, 8374, 0});
    assert_golden("sacct-P-n-raw", jobs,
                  &(struct run){.format = "JobIDRaw,State",
                                .layout = SACCT_PARSABLE2,
                                .noheader = true,
                                .jobs = "8366,8367,8368,8369,8374"});
    json_decref(jobs);
    jobs = pick(all, (int64_t[]){8374, 0});
    assert_golden("sacct-array", jobs,
                  &(struct run){.format = "JobID,JobIDRaw,JobName,State,"
                                          "ExitCode,AllocTRES%40",
                                .jobs = "8374"});
    json_decref(jobs);
    jobs = pick(all, (int64_t[]){8367, 0});
    assert_golden("sacct-j-format-fail3", jobs,
                  &(struct run){.format = "JobID,State,ExitCode,MaxRSS,"
                                          "TotalCPU"});
    json_decref(jobs);
    jobs = pick(all, (int64_t[]){8368, 0});
    assert_golden("sacct-j-format-timeout", jobs,
                  &(struct run){.format = "JobID,State,ExitCode,MaxRSS,"
                                          "TotalCPU"});
    json_decref(jobs);
    jobs = pick(all, (int64_t[]){8376, 8377, 0});
    assert_golden("sacct-srun-steps", jobs,
                  &(struct run){.format = "JobID,JobName,State,ExitCode,"
                                          "NNodes,NTasks"});
    json_decref(jobs);
    jobs = pick(all, (int64_t[]){999999, 0});
    assert_golden("sacct-invalid-job", jobs, &(struct run){.jobs = "999999"});
    json_decref(jobs);
    json_decref(all);
}

static void sacct_running_job(void **state)
{
    json_t *jobs = json_array(), *train, *b;

    (void)state;
    train = running(8379, "train", 16, 1,
                    "billing=16,cpu=16,gres/gpu=2,node=1", 16, 40);
    json_object_set_new(train, "start_time",
                        json_integer(1795241478)); /* 06:11:18Z */
    b = json_array_get(json_object_get(train, "steps"), 0);
    json_object_set_new(b, "start_time", json_integer(1795241478));
    json_object_set_new(b, "alloc_tres",
                        json_string("cpu=16,gres/gpu=2,mem=0,node=1"));
    json_array_append_new(jobs, train);
    assert_golden("sacct-running-job", jobs,
                  &(struct run){.format = "JobID,JobName,State,ExitCode,"
                                          "AllocTRES%40,Start"});
    json_decref(jobs);
}

/* sacct -b -S 06:00, later the same day: more jobs of alice. */
static void sacct_brief(void **state)
{
    json_t *jobs = json_array();

    (void)state;
    add_done_jobs(jobs);
    add_queue(jobs, false);
    json_array_append_new(jobs, completed(8389, "b1", 1, T1, S1));
    json_array_append_new(
        jobs, cancelled_by(job(8390, "b2", "CANCELLED", 0, 1, 1, "", -1),
                           1001));
    json_array_append_new(jobs, job(8391, "b3", "COMPLETED", 0, 1, 1, T1, 0));
    for (int id = 8392; id <= 8393; id++)
        json_array_append_new(
            jobs, step(job(id, "s", "COMPLETED", 0, 1, 1, T1, 0), 0, "true",
                       "COMPLETED", 0, 1, 1, 1, S1));
    for (int id = 8394; id <= 8395; id++)
        json_array_append_new(
            jobs, cancelled_by(job(id, "c", "CANCELLED", 0, 1, 1, "", -1),
                               1001));
    json_array_append_new(jobs, job(8398, "p", "PENDING", 0, 0, 1, "", -1));
    json_array_append_new(
        jobs, array_task(running(8397, "a2", 1, 1, T1, 1, 10), 8397, 0));
    assert_golden("sacct-brief", jobs,
                  &(struct run){.format = SACCT_FORMAT_BRIEF});
    json_decref(jobs);
}

/* --- pieces -------------------------------------------------------------- */

static void bad_field_is_named_as_slurm_does(void **state)
{
    struct sacct_format fmt;
    char *bad = NULL, *want = golden_text("sacct-bad-field.stderr");
    char line[256];

    (void)state;
    assert_int_equal(sacct_format_parse("JobID,NoSuchField", &fmt, &bad), -1);
    assert_string_equal(bad, "NoSuchField");
    /* sacct.c prints it so: */
    snprintf(line, sizeof(line),
             "sacct: error: Invalid field requested: \"%s\"\n", bad);
    assert_non_null(want);
    assert_string_equal(line, want);
    free(bad);
    free(want);
}

static void field_names_match_by_prefix_in_table_order(void **state)
{
    struct sacct_format fmt;
    char *bad = NULL;

    (void)state;
    assert_int_equal(sacct_format_parse("jobid,elap,STATE%-20,ncpu,start",
                                        &fmt, &bad),
                     0);
    assert_int_equal(fmt.count, 5);
    assert_string_equal(fmt.cols[0].field->name, "JobID");
    assert_string_equal(fmt.cols[1].field->name, "Elapsed");
    assert_string_equal(fmt.cols[2].field->name, "State");
    assert_int_equal(fmt.cols[2].width, -20);
    assert_string_equal(fmt.cols[3].field->name, "NCPUS");
    assert_string_equal(fmt.cols[4].field->name, "Start");
    sacct_format_free(&fmt);
    assert_int_equal(sacct_format_parse(sacct_format_long, &fmt, &bad), 0);
    sacct_format_free(&fmt);
}

static void jobspecs_take_tasks_and_steps(void **state)
{
    struct sacct_jobspec sp;

    (void)state;
    assert_int_equal(sacct_jobspec_parse("12", &sp), 0);
    assert_int_equal(sp.job_id, 12);
    assert_int_equal(sp.task, -1);
    assert_int_equal(sp.step, SACCT_STEP_NONE);
    assert_int_equal(sacct_jobspec_parse("12_3.batch", &sp), 0);
    assert_int_equal(sp.task, 3);
    assert_int_equal(sp.step, SACCT_STEP_BATCH);
    assert_int_equal(sacct_jobspec_parse("12.0", &sp), 0);
    assert_int_equal(sp.step, 0);
    assert_int_equal(sacct_jobspec_parse("12.extern", &sp), 0);
    assert_int_equal(sp.step, SACCT_STEP_EXTERN);
    errno = 0;
    assert_int_equal(sacct_jobspec_parse("abc", &sp), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(sacct_jobspec_parse("12.x", &sp), -1);
    assert_int_equal(sacct_jobspec_parse("", &sp), -1);
    assert_int_equal(sacct_jobspec_parse("12_", &sp), -1);
}

static void step_id_shows_only_that_step(void **state)
{
    json_t *all = today(), *jobs = pick(all, (int64_t[]){8368, 0});
    char *got;

    (void)state;
    got = render(jobs, &(struct run){.format = "JobID,State",
                                     .layout = SACCT_PARSABLE,
                                     .jobs = "8368.batch"});
    assert_string_equal(got, "JobID|State|\n8368.batch|CANCELLED|\n");
    free(got);
    json_decref(jobs);
    json_decref(all);
}

static void values_of_less_common_fields(void **state)
{
    json_t *jobs = json_array(), *j;
    char *got;

    (void)state;
    j = job(8377, "bash", "FAILED", EXIT(3), 2, 1, "billing=2,cpu=2,node=1",
            3725);
    step(j, 0, "bash", "FAILED", EXIT(3), 2, 1, 2, "cpu=2,mem=0,node=1");
    json_t *s = json_array_get(json_object_get(j, "steps"), 0);
    json_object_set_new(s, "max_rss_kib", json_integer(2048));
    json_object_set_new(s, "user_cpu_us", json_integer(1500000));
    json_object_set_new(s, "sys_cpu_us", json_integer(250000));
    json_object_set_new(j, "req_mem_mib", json_integer(16384));
    json_object_set_new(j, "derived_exit_status", json_integer(EXIT(3)));
    json_array_append_new(jobs, j);
    got = render(jobs,
                 &(struct run){.format = "JobID,Elapsed,ElapsedRaw,CPUTimeRAW,"
                                         "MaxRSS,TotalCPU,UserCPU,ReqMem,"
                                         "Timelimit,DerivedExitCode,User,"
                                         "Cluster",
                               .layout = SACCT_PARSABLE2});
    assert_string_equal(
        got,
        "JobID|Elapsed|ElapsedRaw|CPUTimeRAW|MaxRSS|TotalCPU|UserCPU|ReqMem|"
        "Timelimit|DerivedExitCode|User|Cluster\n"
        "8377|01:02:05|3725|7450||00:01.750|00:01.500|16G|01:00:00|3:0|"
        "alice|drover\n"
        "8377.0|01:02:05|3725|7450|2M|00:01.750|00:01.500|16G|||"
        "|drover\n");
    free(got);
    json_decref(jobs);
}

static void json_output_has_slurm_keys(void **state)
{
    json_t *all = today(), *jobs = pick(all, (int64_t[]){8367, 0}), *doc;
    struct sacct_ctx ctx = {NOW, "drover", 0, false};

    (void)state;
    doc = sacct_json_job(json_array_get(jobs, 0), &ctx);
    assert_int_equal(json_integer_value(json_object_get(doc, "job_id")), 8367);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(doc, "state"),
                                          "current")),
        "FAILED");
    /* Slurm 22.05's v0.0.38 exit_code: SUCCESS, 0 for any exit (the 3
     * shows in state FAILED and in ExitCode 3:0) */
    assert_string_equal(json_string_value(json_object_get(
                            json_object_get(doc, "exit_code"), "status")),
                        "SUCCESS");
    assert_int_equal(json_integer_value(json_object_get(
                         json_object_get(doc, "exit_code"), "return_code")),
                     0);
    assert_int_equal(json_array_size(json_object_get(doc, "steps")), 1);
    json_decref(doc);
    json_decref(jobs);
    json_decref(all);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sacct_default),
        cmocka_unit_test(sacct_allocations_parsable2),
        cmocka_unit_test(sacct_job_selections),
        cmocka_unit_test(sacct_running_job),
        cmocka_unit_test(sacct_brief),
        cmocka_unit_test(bad_field_is_named_as_slurm_does),
        cmocka_unit_test(field_names_match_by_prefix_in_table_order),
        cmocka_unit_test(jobspecs_take_tasks_and_steps),
        cmocka_unit_test(step_id_shows_only_that_step),
        cmocka_unit_test(values_of_less_common_fields),
        cmocka_unit_test(json_output_has_slurm_keys),
    };

    setenv("TZ", "UTC", 1);
    tzset();
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
