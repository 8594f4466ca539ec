/* SPDX-License-Identifier: Apache-2.0
 *
 * alloc.c - interactive allocations for salloc and srun (alloc.h)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/lib/alloc.h"
#include "cmd/lib/jsonget.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/submit_retry.h"
#include "common/error.h"
#include "common/taskcount.h"
#include "common/timefmt.h"
#include "common/xalloc.h"

/* Poll delays (ms): the first look, the second, and the most. */
#define POLL_FIRST_MS 50
#define POLL_NEXT_MS 200
#define POLL_MAX_MS 1000
/* How long a job the scheduler has not looked at stays unannounced. */
#define QUIET_MS 1000

static volatile sig_atomic_t got_signal;

static void on_signal(int signo)
{
    got_signal = signo;
}

/* SIGINT, SIGTERM and SIGHUP interrupt the wait (no SA_RESTART). */
static void catch_signals(bool on)
{
    struct sigaction sa = {.sa_handler = on ? on_signal : SIG_DFL};
    int sigs[] = {SIGINT, SIGTERM, SIGHUP};

    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
}

static bool is_salloc(const struct sbatch_opts *o)
{
    return o->cmd == SBATCH_CMD_SALLOC;
}

/* Slurm's words before a refused allocation's error text. */
static const char *refused(const struct sbatch_opts *o)
{
    return is_salloc(o) ? "Job submit/allocate failed"
                        : "Unable to allocate resources";
}

static void submit_error(const struct sbatch_opts *o, int errnum,
                         const drv_error_t *error)
{
    if (errnum == EDRV_INVALID_PARTITION_NAME && o->partition)
        fprintf(stderr, "%s: error: invalid partition specified: %s\n",
                o->prog, o->partition);
    if (errnum == EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE
        && !strcmp(error->text, "Memory specification can not be satisfied"))
        fprintf(stderr, "%s: error: %s\n", o->prog, error->text);
    fprintf(stderr, "%s: error: %s: %s\n", o->prog, refused(o),
            drv_strerror(errnum));
}

static uint32_t submit(const struct sbatch_opts *o, json_t *desc)
{
    drv_error_t error = {{0}};
    json_t *resp = NULL;
    json_int_t id;
    int rc;

    rc = submit_with_retries(o->prog, desc, &resp, &error);
    json_decref(desc);
    if (rc < 0) {
        submit_error(o, errno, &error);
        return 0;
    }
    id = json_integer_value(json_object_get(resp, "job_id"));
    json_decref(resp);
    if (id <= 0 || id > UINT32_MAX) {
        fprintf(stderr, "%s: error: %s: %s\n", o->prog, refused(o),
                drv_strerror(EDRV_PROTOCOL_MALFORMED));
        return 0;
    }
    return (uint32_t)id;
}

/* The job's record; NULL when the controller no longer knows it (*gone)
 * or did not answer. */
static json_t *job_look(const char *prog, uint32_t id, bool *gone)
{
    json_t *body = json_pack("{s:[I] s:b}", "job_ids", (json_int_t)id,
                             "all_states", 1);
    json_t *resp = NULL, *job;
    drv_error_t error = {{0}};

    *gone = false;
    if (cmd_rpc(prog, "job_info", body, &resp, &error) < 0) {
        *gone = errno == EDRV_INVALID_JOB_ID;
        return NULL;
    }
    job = json_array_get(json_object_get(resp, "jobs"), 0);
    if (!job)
        *gone = true;
    else
        json_incref(job);
    json_decref(resp);
    return job;
}

static void cancel(const char *prog, uint32_t id)
{
    drv_error_t error = {{0}};

    cmd_rpc(prog, "job_cancel", json_pack("{s:I}", "job_id", (json_int_t)id),
            NULL, &error);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    nanosleep(&ts, NULL); /* a signal cuts it short */
}

static long elapsed_ms(const struct timespec *t0)
{
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t0->tv_sec) * 1000
           + (now.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Slurm's lines for a job that waits. */
static void announce_pending(const struct sbatch_opts *o, uint32_t id,
                             const char *reason)
{
    if (!strcmp(reason, "PartitionNodeLimit")
        || !strcmp(reason, "PartitionTimeLimit"))
        fprintf(stderr, "%s: %s\n", o->prog,
                drv_strerror(EDRV_REQUESTED_PART_CONFIG_UNAVAILABLE));
    if (is_salloc(o))
        fprintf(stderr, "salloc: Pending job allocation %u\n", id);
    fprintf(stderr, "%s: job %u queued and waiting for resources\n", o->prog,
            id);
}

/* Interrupted while pending: the request is withdrawn. */
static void interrupted(const struct sbatch_opts *o, uint32_t id)
{
    cancel(o->prog, id);
    if (is_salloc(o)) {
        fprintf(stderr, "salloc: Job allocation %u has been revoked.\n", id);
        fprintf(stderr, "salloc: Job aborted due to signal\n");
    } else {
        fprintf(stderr, "srun: Job allocation %u has been revoked\n", id);
        fprintf(stderr, "srun: Force Terminated JobId=%u\n", id);
    }
}

/* The job ended (cancelled) before it ran. */
static void ended_pending(const struct sbatch_opts *o, uint32_t id)
{
    if (is_salloc(o))
        fprintf(stderr, "salloc: Job allocation %u has been revoked.\n", id);
    else
        fprintf(stderr, "srun: Job has been cancelled\n");
    fprintf(stderr, "%s: error: %s: %s\n", o->prog, refused(o),
            drv_strerror(EDRV_ALREADY_DONE));
}

enum look { LOOK_WAIT, LOOK_RUNNING, LOOK_ENDED };

static enum look classify(const json_t *job, bool gone)
{
    const char *state = job ? jstr_or(job, "job_state", "") : "";

    if (gone)
        return LOOK_ENDED;
    if (!job || !strcmp(state, "PENDING"))
        return LOOK_WAIT;
    if (!strcmp(state, "RUNNING"))
        return LOOK_RUNNING;
    return LOOK_ENDED;
}

/* salloc rings the terminal's bell when the allocation comes: with
 * --bell always, by default after a wait of over ten seconds (Slurm's
 * BELL_AFTER_DELAY), with --no-bell never; only to a terminal. */
static void ring_bell(const struct sbatch_opts *o, const struct timespec *t0)
{
    struct timespec now;

    if (!is_salloc(o) || o->bell == 0 || !isatty(STDOUT_FILENO))
        return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (o->bell == 1 || now.tv_sec - t0->tv_sec > 10) {
        fputc('\a', stdout);
        fflush(stdout);
    }
}

static void granted(const struct sbatch_opts *o, uint32_t id, bool waited)
{
    if (waited)
        fprintf(stderr, "%s: job %u has been allocated resources\n", o->prog,
                id);
    if (is_salloc(o))
        fprintf(stderr, "salloc: Granted job allocation %u\n", id);
}

/* Wait for job 'id' to run; see alloc_create(). */
static json_t *wait_grant(const struct sbatch_opts *o, uint32_t id, int *rc)
{
    struct timespec t0;
    long delay = POLL_FIRST_MS;
    bool waited = false, gone;
    json_t *job;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (*rc = 1;; delay = delay < POLL_NEXT_MS ? POLL_NEXT_MS
                         : delay * 3 / 2 > POLL_MAX_MS ? POLL_MAX_MS
                                                        : delay * 3 / 2) {
        if (!got_signal)
            sleep_ms(delay);
        if (got_signal) {
            interrupted(o, id);
            return NULL;
        }
        job = job_look(o->prog, id, &gone);
        switch (classify(job, gone)) {
        case LOOK_RUNNING:
            granted(o, id, waited);
            ring_bell(o, &t0);
            *rc = 0;
            return job;
        case LOOK_ENDED: /* it was pending: Slurm said so at submission */
            if (!waited)
                announce_pending(o, id,
                                 job ? jstr_or(job, "state_reason", "None")
                                     : "None");
            json_decref(job);
            ended_pending(o, id);
            return NULL;
        case LOOK_WAIT:
            break;
        }
        if (!waited && job
            && (strcmp(jstr_or(job, "state_reason", "None"), "None")
                || elapsed_ms(&t0) >= QUIET_MS)) {
            announce_pending(o, id, jstr_or(job, "state_reason", "None"));
            waited = true;
        }
        json_decref(job);
        if (o->immediate > 0 && elapsed_ms(&t0) >= o->immediate * 1000L) {
            cancel(o->prog, id);
            fprintf(stderr, "%s: error: Unable to allocate resources: %s\n",
                    o->prog, drv_strerror(EDRV_NODES_BUSY));
            return NULL;
        }
    }
}

json_t *alloc_create(const struct sbatch_opts *o, json_t *desc, int *rc)
{
    uint32_t id;
    json_t *job;

    got_signal = 0;
    catch_signals(true);
    if (!(id = submit(o, desc))) {
        catch_signals(false);
        *rc = 1;
        return NULL;
    }
    job = wait_grant(o, id, rc);
    catch_signals(false);
    return job;
}

int alloc_test_only(const struct sbatch_opts *o, json_t *desc)
{
    drv_error_t error = {{0}};
    json_t *resp = NULL;
    json_int_t id = 0, start = 0, cpus = 0;
    const char *nodes = "", *part = "";
    char when[32] = "Unknown";

    json_object_set_new(desc, "test_only", json_true());
    if (cmd_rpc(o->prog, "job_submit", desc, &resp, &error) < 0) {
        submit_error(o, errno, &error);
        return 1;
    }
    json_unpack(resp, "{s?I s?I s?I s?s s?s}", "job_id", &id, "start_time",
                &start, "cpus", &cpus, "nodes", &nodes, "partition", &part);
    if (start > 0)
        timefmt_stamp((time_t)start, 0, when, sizeof(when));
    fprintf(stderr, "%s: Job %lld to start at %s using %lld processors on "
                    "nodes %s in partition %s\n",
            o->prog, (long long)id, when, (long long)cpus, nodes, part);
    json_decref(resp);
    return 0;
}

char *alloc_submit_host(void)
{
    char host[256] = "";

    gethostname(host, sizeof(host) - 1);
    host[strcspn(host, ".")] = '\0';
    return xstrdup(host);
}

char *alloc_counts_fmt(const int64_t *counts, size_t n)
{
    return taskcount_encode(counts, n);
}

/* SLURM_JOB_CPUS_PER_NODE and SLURM_TASKS_PER_NODE from "alloc". */
static void set_per_node(const json_t *job)
{
    json_t *alloc = json_object_get(job, "alloc"), *a;
    size_t n = json_array_size(alloc), i;
    int64_t *cpus = xzalloc(sizeof(*cpus) * (n + 1));
    int64_t *tasks = xzalloc(sizeof(*tasks) * (n + 1));
    char *s;

    json_array_foreach(alloc, i, a) {
        cpus[i] = jint(a, "cpus", 0);
        tasks[i] = jint(a, "tasks", 1);
    }
    s = alloc_counts_fmt(cpus, n);
    setenv("SLURM_JOB_CPUS_PER_NODE", s, 1);
    free(s);
    s = alloc_counts_fmt(tasks, n);
    setenv("SLURM_TASKS_PER_NODE", s, 1);
    free(s);
    free(cpus);
    free(tasks);
}

static void set_num(const char *name, int64_t v)
{
    char buf[32];

    snprintf(buf, sizeof(buf), "%lld", (long long)v);
    setenv(name, buf, 1);
}

/* -m: SLURM_DISTRIBUTION (only when given, as salloc's) and a plane's
 * SLURM_DIST_PLANESIZE, for the sruns in the allocation. */
static void set_dist(const struct sbatch_opts *o)
{
    char text[TASKDIST_TEXT_MAX];
    struct taskdist d;

    if (!sbatch_opts_distribution(o, &d))
        return;
    if (*taskdist_format(&d, 0, text))
        setenv("SLURM_DISTRIBUTION", text, 1);
    if (d.node == TASKDIST_PLANE)
        set_num("SLURM_DIST_PLANESIZE", d.plane_size);
}

void alloc_set_env(const struct sbatch_opts *o, const json_t *job)
{
    const char *nodes = jstr_or(job, "nodes", "");
    const char *cluster = cmd_conf(o->prog)->cluster_name;

    set_num("SLURM_JOB_ID", jint(job, "job_id", 0));
    set_num("SLURM_JOBID", jint(job, "job_id", 0));
    setenv("SLURM_JOB_NAME", jstr_or(job, "name", ""), 1);
    setenv("SLURM_JOB_NODELIST", nodes, 1);
    setenv("SLURM_NODELIST", nodes, 1);
    set_num("SLURM_JOB_NUM_NODES", jint(job, "node_count", 1));
    set_num("SLURM_NNODES", jint(job, "node_count", 1));
    set_per_node(job);
    if (o->ntasks_set) {
        set_num("SLURM_NTASKS", o->ntasks);
        set_num("SLURM_NPROCS", o->ntasks);
    }
    if (o->cpus_per_task > 0)
        set_num("SLURM_CPUS_PER_TASK", o->cpus_per_task);
    if (o->mem_per_node_mib > 0)
        set_num("SLURM_MEM_PER_NODE", o->mem_per_node_mib);
    else if (o->mem_per_cpu_mib > 0)
        set_num("SLURM_MEM_PER_CPU", o->mem_per_cpu_mib);
    set_dist(o);
    /* --container: the allocation's sruns run in it (as Slurm's salloc) */
    if (json_is_string(json_object_get(o->extra, "container")))
        setenv("SLURM_CONTAINER",
               json_string_value(json_object_get(o->extra, "container")), 1);
    setenv("SLURM_JOB_PARTITION", jstr_or(job, "partition", ""), 1);
    if (jstr(job, "account"))
        setenv("SLURM_JOB_ACCOUNT", jstr(job, "account"), 1);
    setenv("SLURM_JOB_QOS", jstr_or(job, "qos", "normal"), 1);
    setenv("SLURM_SUBMIT_DIR", o->cwd, 1);
    if (o->submit_host)
        setenv("SLURM_SUBMIT_HOST", o->submit_host, 1);
    setenv("SLURM_CLUSTER_NAME", cluster ? cluster : "cluster", 1);
    setenv("SLURM_NODE_ALIASES", "(null)", 1);
}

int alloc_alive_interval_ms(const char *prog)
{
    uint32_t limit = cmd_conf(prog)->inactive_limit_s;
    int ms = (int)(limit * 1000 / 3);

    if (!limit)
        return 0;
    return ms < 1000 ? 1000 : ms > 30000 ? 30000 : ms;
}

int alloc_alive(const char *prog, uint32_t job_id)
{
    drv_error_t error = {{0}};

    return cmd_rpc(prog, "job_alive",
                   json_pack("{s:I}", "job_id", (json_int_t)job_id), NULL,
                   &error);
}

int alloc_release(const char *prog, uint32_t job_id, int status,
                  bool announce)
{
    drv_error_t error = {{0}};

    if (announce)
        fprintf(stderr, "%s: Relinquishing job allocation %u\n", prog,
                job_id);
    return cmd_rpc(prog, "job_release",
                   json_pack("{s:I s:i}", "job_id", (json_int_t)job_id,
                             "exit_status", status),
                   NULL, &error);
}

int alloc_check(const char *prog, uint32_t job_id)
{
    bool gone;
    json_t *job = job_look(prog, job_id, &gone);
    enum look l = classify(job, gone);
    bool timeout = job && !strcmp(jstr_or(job, "job_state", ""), "TIMEOUT");

    json_decref(job);
    if (l != LOOK_ENDED)
        return 0;
    if (timeout)
        fprintf(stderr, "%s: Job %u has exceeded its time limit and its "
                        "allocation has been revoked.\n", prog, job_id);
    else
        fprintf(stderr, "%s: Job allocation %u has been revoked.\n", prog,
                job_id);
    return -1;
}
