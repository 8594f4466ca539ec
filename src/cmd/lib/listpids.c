/* SPDX-License-Identifier: Apache-2.0
 *
 * listpids.c - scontrol listpids (listpids.h)
 *
 * Slurm's scontrol reads the step daemons' sockets of the node it runs
 * on; here several nodes' droverd may share a host, so the node is named
 * (argument, SLURMD_NODENAME) or found by this host's name, and its
 * droverd asks its step daemons.  The table and messages are Slurm
 * 22.05's (src/scontrol/pid_info.c): the header first, each task with
 * its local and global rank, the step's other processes with "-".
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/lib/jsonget.h"
#include "cmd/lib/listpids.h"
#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "common/error.h"

#define STEP_BATCH 0xfffffffbu /* Slurm's SLURM_BATCH_SCRIPT */
#define NO_STEP UINT32_MAX

static bool blank(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return !*s;
}

/* "JOB[.STEP]": Slurm's _parse_jobid() and _parse_stepid(), which also
 * take "batch" here (the id the table prints).  Returns 0, or -1 after
 * Slurm's message ('*step_bad': the step part was the bad one). */
static int parse_ids(const char *arg, uint32_t *job, uint32_t *step,
                     bool *step_bad)
{
    char buf[256], *dot, *end;
    long long v;

    *step = NO_STEP;
    *step_bad = false;
    snprintf(buf, sizeof(buf), "%s", arg);
    if ((dot = strchr(buf, '.')))
        *dot = '\0';
    v = strtoll(buf, &end, 10);
    if (!blank(end) || v <= 0 || v > UINT32_MAX) {
        fprintf(stderr, "\"%s\" does not look like a jobid\n", buf);
        return -1;
    }
    *job = (uint32_t)v;
    if (!dot)
        return 0;
    if (!strcmp(dot + 1, "batch")) {
        *step = STEP_BATCH;
        return 0;
    }
    v = strtoll(dot + 1, &end, 10);
    if (!blank(end) || end == dot + 1 || v < 0 || v >= STEP_BATCH) {
        fprintf(stderr, "\"%s\" does not look like a stepid\n", arg);
        *step_bad = true;
        return -1;
    }
    *step = (uint32_t)v;
    return 0;
}

/* The node to ask: 'node', else $SLURMD_NODENAME, else the node whose
 * NodeHostname (or name) is this host's name.  NULL when none. */
static const struct conf_node *which_node(const char *prog, const char *node)
{
    const struct slurm_conf *conf = cmd_conf_nodes(prog);
    char host[256] = "", *dot;

    if (!node)
        node = getenv("SLURMD_NODENAME");
    if (node)
        return conf_node_find(conf, node);
    gethostname(host, sizeof(host) - 1);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < conf->node_count; i++) {
            const struct conf_node *n = &conf->nodes[i];
            if (!strcmp(n->hostname, host) || !strcmp(n->name, host))
                return n;
        }
        if ((dot = strchr(host, '.'))) /* then the short name */
            *dot = '\0';
        else
            break;
    }
    cmd_error(prog, "stepd_available: Couldn't find nodename");
    return NULL;
}

static void step_name(uint32_t step, char *buf, size_t size)
{
    if (step == STEP_BATCH)
        snprintf(buf, size, "batch");
    else
        snprintf(buf, size, "%u", step);
}

static void print_steps(const json_t *steps)
{
    for (size_t i = 0; i < json_array_size(steps); i++) {
        const json_t *s = json_array_get(steps, i);
        const json_t *tasks = jget(s, "tasks"), *pids = jget(s, "pids");
        uint32_t job = (uint32_t)jint(s, "job_id", 0);
        char step[16];

        step_name((uint32_t)jint(s, "step_id", 0), step, sizeof(step));
        for (size_t k = 0; k < json_array_size(tasks); k++) {
            const json_t *t = json_array_get(tasks, k);
            printf("%-8d %-8u %-8s %-7d %-8d\n", (int)jint(t, "pid", 0), job,
                   step, (int)jint(t, "local_id", 0),
                   (int)jint(t, "global_id", 0));
        }
        for (size_t k = 0; k < json_array_size(pids); k++)
            printf("%-8d %-8u %-8s %-7s %-8s\n",
                   (int)json_integer_value(json_array_get(pids, k)), job,
                   step, "-", "-");
    }
}

int listpids_run(const char *prog, const char *job_arg, const char *node)
{
    bool all = !job_arg || job_arg[0] == '*', step_bad = false;
    uint32_t job = 0, step = NO_STEP;
    const struct conf_node *cn;
    drv_error_t error = {{0}};
    json_t *body, *resp = NULL, *steps;
    const char *node_name;

    if (!all && parse_ids(job_arg, &job, &step, &step_bad) < 0 && !step_bad)
        return 1;
    printf("%-8s %-8s %-8s %-7s %-8s\n", "PID", "JOBID", "STEPID", "LOCALID",
           "GLOBALID");
    fflush(stdout);
    if (step_bad)
        return 1;
    cn = which_node(prog, node);
    node_name = cn ? cn->name : node ? node : "";
    if (cn) {
        body = json_object();
        if (job)
            json_object_set_new(body, "job_id", json_integer(job));
        if (step != NO_STEP)
            json_object_set_new(body, "step_id", json_integer(step));
        if (cmd_rpc_to(prog, cn->addr, cn->port, "step_pids", body, &resp,
                       &error)
            < 0) {
            /* Slurm's perror() when it cannot talk to a step daemon */
            if (errno == EDRV_ACCESS_DENIED)
                fprintf(stderr, "Unable to connect to slurmstepd: %s\n",
                        drv_strerror(errno));
            else
                cmd_error(prog, "%s: %s", cn->name, error.text);
            return 1;
        }
    }
    steps = jget(resp, "steps");
    if (json_array_size(steps)) {
        print_steps(steps);
        json_decref(resp);
        return 0;
    }
    json_decref(resp);
    if (all)
        fprintf(stderr, "No job steps exist on this node.\n");
    else if (step != NO_STEP) {
        char name[16];
        step_name(step, name, sizeof(name));
        fprintf(stderr, "StepId=%u.%s does not exist on node %s.\n", job,
                name, node_name);
    } else
        fprintf(stderr, "There are no steps for job %u on node %s.\n", job,
                node_name);
    return 1;
}
