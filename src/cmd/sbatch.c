/* SPDX-License-Identifier: Apache-2.0
 *
 * sbatch.c - submit a batch script, as Slurm's sbatch does
 *
 * Options come from src/cmd/lib/sbatch_opt.c; this file reads the script,
 * sends the job description to the controller and prints Slurm's lines:
 * "Submitted batch job N", or with --parsable just "N".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/submit_retry.h"
#include "cmd/lib/sbatch_opt.h"
#include "cmd/lib/sbatch_req.h"
#include "common/error.h"
#include "common/timefmt.h"
#include "common/xalloc.h"

extern char **environ;

/* Slurm's _job_wait() polls with growing sleeps, at most this long. */
#define WAIT_SLEEP_MAX 32

static int report(const struct sbatch_error *e)
{
    sbatch_error_print(e, stderr);
    return e->exit_code;
}


/* Read the whole script from 'path', or stdin when NULL. */
static char *read_script(const char *path, size_t *len,
                         struct sbatch_error *e)
{
    int fd = path ? open(path, O_RDONLY) : STDIN_FILENO;
    size_t size = 0, cap = 8192;
    char *buf;
    ssize_t n;

    if (fd < 0) {
        e->exit_code = 1;
        e->level = "error";
        snprintf(e->text, sizeof(e->text), "Unable to open file %s", path);
        return NULL;
    }
    buf = xzalloc(cap + 1);
    while ((n = read(fd, buf + size, cap - size)) > 0) {
        size += (size_t)n;
        if (size == cap) {
            if (!(buf = realloc(buf, (cap *= 2) + 1)))
                abort();
        }
    }
    if (path)
        close(fd);
    buf[size] = '\0';
    *len = size;
    return buf;
}

static char *load_script(const struct sbatch_opts *o, struct sbatch_error *e)
{
    size_t len;
    char *script;

    if (o->wrap)
        return sbatch_script_wrap(o->wrap);
    if (!(script = read_script(o->script_path, &len, e)))
        return NULL;
    if (sbatch_script_check(script, len, e) < 0) {
        free(script);
        return NULL;
    }
    return script;
}

/* Variables sbatch puts in its own environment before exporting it. */
static void set_submit_env(const struct sbatch_opts *o)
{
    char buf[32];
    int prio;

    errno = 0;
    prio = getpriority(PRIO_PROCESS, 0);
    if (prio != -1 || errno == 0) {
        snprintf(buf, sizeof(buf), "%d", prio);
        setenv("SLURM_PRIO_PROCESS", buf, 1);
    }
    if (!getenv("SLURM_SUBMIT_DIR"))
        setenv("SLURM_SUBMIT_DIR", o->cwd, 1);
}

static char *short_hostname(void)
{
    char host[256] = "";

    gethostname(host, sizeof(host) - 1);
    host[strcspn(host, ".")] = '\0';
    return xstrdup(host);
}

/* Print a refused submission as Slurm does: the lines it adds for some
 * errors, then "<what>: <error text>". */
static void submit_error(const struct sbatch_opts *o, int errnum,
                         const drv_error_t *error, const char *what)
{
    if (errnum == EDRV_INVALID_PARTITION_NAME && o->partition)
        fprintf(stderr, "sbatch: error: invalid partition specified: %s\n",
                o->partition);
    /* Slurm's controller adds this message to the error. */
    if (errnum == EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE
        && !strcmp(error->text, "Memory specification can not be satisfied"))
        fprintf(stderr, "sbatch: error: %s\n", error->text);
    fprintf(stderr, "sbatch: error: %s: %s\n", what, drv_strerror(errnum));
}

/* Send the job; returns its id, or 0 after printing Slurm's error. */
static uint32_t submit(const struct sbatch_opts *o, json_t *body)
{
    drv_error_t error = {{0}};
    json_t *resp = NULL;
    json_int_t id = 0;
    int rc;

    rc = submit_with_retries("sbatch", body, &resp, &error);
    json_decref(body);
    if (rc < 0) {
        submit_error(o, errno, &error, "Batch job submission failed");
        return 0;
    }
    id = json_integer_value(json_object_get(resp, "job_id"));
    json_decref(resp);
    if (id <= 0 || id > UINT32_MAX) {
        fprintf(stderr, "sbatch: error: Batch job submission failed: %s\n",
                drv_strerror(EDRV_PROTOCOL_MALFORMED));
        return 0;
    }
    return (uint32_t)id;
}

static bool state_finished(const char *state)
{
    static const char *const done[] = {
        "COMPLETED", "FAILED",    "CANCELLED",     "TIMEOUT",
        "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY", "BOOT_FAIL",
        "DEADLINE",
    };

    for (size_t i = 0; state && i < sizeof(done) / sizeof(done[0]); i++)
        if (!strcmp(state, done[i]))
            return true;
    return false;
}

/* One look at the job for --wait.  Returns 1 when it has finished (*ec is
 * its exit code, or 1 when a signal ended it), 0 when not yet, -1 when the
 * controller no longer knows it.
 */
static int job_poll(uint32_t id, int *ec)
{
    json_t *body = json_pack("{s:[I] s:b}", "job_ids", (json_int_t)id,
                             "all_states", 1);
    drv_error_t error = {{0}};
    json_t *resp = NULL, *jobs, *job;
    size_t i;
    int done = 1;

    if (cmd_rpc("sbatch", "job_info", body, &resp, &error) < 0) {
        if (errno != EDRV_INVALID_JOB_ID) {
            fprintf(stderr, "sbatch: error: Currently unable to load job "
                            "state information, retrying: %s\n", error.text);
            return 0;
        }
    }
    jobs = json_object_get(resp, "jobs");
    if (json_array_size(jobs) == 0) {
        fprintf(stderr, "sbatch: error: Job %u no longer found and exit code "
                        "not found\n", id);
        json_decref(resp);
        return -1;
    }
    json_array_foreach(jobs, i, job) {
        int status = (int)json_integer_value(json_object_get(job,
                                                             "exit_status"));

        if (!state_finished(json_string_value(json_object_get(job,
                                                              "job_state"))))
            done = 0;
        else if (!WIFEXITED(status))
            *ec = *ec > 1 ? *ec : 1;
        else if (WEXITSTATUS(status) > *ec)
            *ec = WEXITSTATUS(status);
    }
    json_decref(resp);
    return done;
}

/* --wait: return the job's exit code once it has finished. */
static int wait_job(uint32_t id)
{
    unsigned sleep_s = 2;
    int ec;

    for (;;) {
        ec = 0;
        sleep(sleep_s);
        if (sleep_s < WAIT_SLEEP_MAX)
            sleep_s *= 4;
        if (sleep_s > WAIT_SLEEP_MAX)
            sleep_s = WAIT_SLEEP_MAX;
        switch (job_poll(id, &ec)) {
        case 1:
            return ec;
        case -1:
            return 0;
        default:
            break;
        }
    }
}

/* --test-only: the controller validates and plans the job without
 * queueing it; print Slurm's "Job N to start at ..." line. */
static int test_only(const struct sbatch_opts *o, json_t *body)
{
    drv_error_t error = {{0}};
    json_t *resp = NULL;
    json_int_t id = 0, start = 0, cpus = 0;
    const char *nodes = "", *part = "";
    char when[32];

    json_object_set_new(body, "test_only", json_true());
    if (cmd_rpc("sbatch", "job_submit", body, &resp, &error) < 0) {
        submit_error(o, errno, &error, "Job submit/allocate failed");
        return 1;
    }
    json_unpack(resp, "{s?I s?I s?I s?s s?s}", "job_id", &id, "start_time",
                &start, "cpus", &cpus, "nodes", &nodes, "partition", &part);
    if (start > 0)
        timefmt_stamp((time_t)start, 0, when, sizeof(when));
    else
        snprintf(when, sizeof(when), "Unknown");
    fprintf(stderr, "sbatch: Job %lld to start at %s using %lld processors on"
            " nodes %s in partition %s\n", (long long)id, when,
            (long long)cpus, nodes, part);
    json_decref(resp);
    return 0;
}

/* Build the job description, send it and print the result. */
static bool in_list(const char *list, const char *name, size_t len)
{
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && !strncmp(p, name, len))
            return true;
        p += n + (p[n] == ',');
    }
    return false;
}

/* As Slurm's sbatch: a --gres name must be one of slurm.conf's GresTypes
 * (gpu when GresTypes is unset), checked before anything is sent. */
static bool gres_names_known(json_t *body)
{
    const char *gres = json_string_value(json_object_get(body, "gres"));
    const char *types = cmd_conf("sbatch")->gres_types;

    for (const char *p = gres; p && *p;) {
        size_t n = strcspn(p, ","), name = strcspn(p, ":,");
        if (!in_list(types ? types : "gpu", p, name))
            return false;
        p += n + (p[n] == ',');
    }
    return true;
}

static int submit_script(struct sbatch_opts *o, const char *script)
{
    struct sbatch_error e = {0};
    const char *cluster = NULL;
    json_t *body;
    uint32_t id;

    if (o->clusters && !(cluster = cmd_clusters_check("sbatch", o->clusters)))
        return 1;
    o->submit_host = short_hostname();
    if (!(body = sbatch_opts_job_desc(o, script, environ, &e)))
        return report(&e);
    if (sbatch_req_finish(body, time(NULL), &e) < 0) {
        json_decref(body);
        return report(&e);
    }
    if (!gres_names_known(body)) {
        json_decref(body);
        fprintf(stderr, "sbatch: error: %s\n", drv_strerror(EDRV_INVALID_GRES));
        return 1;
    }
    if (o->test_only)
        return test_only(o, body);
    if (!(id = submit(o, body)))
        return 1;
    if (!o->quiet) {
        /* With -M, Slurm names the cluster: "N;cluster" or "... on
         * cluster NAME". */
        if (o->parsable && cluster)
            printf("%u;%s\n", id, cluster);
        else if (o->parsable)
            printf("%u\n", id);
        else if (cluster)
            printf("Submitted batch job %u on cluster %s\n", id, cluster);
        else
            printf("Submitted batch job %u\n", id);
        fflush(stdout);
    }
    return o->wait ? wait_job(id) : 0;
}

static int run(struct sbatch_opts *o, int argc, char **argv)
{
    struct sbatch_error e = {0};
    const char *label;
    char *script;
    int rc;

    switch (sbatch_opts_first_pass(o, argc, argv, &e)) {
    case SBATCH_SUBMIT:
        break;
    case SBATCH_HELP:
        sbatch_opts_print_help(stdout);
        return 0;
    case SBATCH_USAGE:
        sbatch_opts_print_usage(stdout);
        return 0;
    case SBATCH_VERSION:
        cmd_print_version();
        return 0;
    default:
        return report(&e);
    }
    if (!(script = load_script(o, &e)))
        return report(&e);
    set_submit_env(o);
    label = o->script_path ? strrchr(o->script_path, '/') : NULL;
    label = label ? label + 1 : o->script_path ? o->script_path : "stdin";
    if (sbatch_opts_second_pass(o, script, label, environ, &e) < 0) {
        free(script);
        return report(&e);
    }
    if (o->verbose)
        sbatch_opts_print_set(o, stderr);
    rc = submit_script(o, script);
    free(script);
    return rc;
}

int main(int argc, char **argv)
{
    struct sbatch_opts *o;
    int rc;

    /* Line-buffered output even into pipes, as Slurm's sbatch. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    setvbuf(stderr, NULL, _IOLBF, 0);
    if (!(o = sbatch_opts_create(stderr))) {
        fprintf(stderr, "sbatch: error: getcwd failed: %s\n",
                strerror(errno));
        return 255;
    }
    rc = run(o, argc, argv);
    sbatch_opts_destroy(o);
    return rc;
}
