/* SPDX-License-Identifier: Apache-2.0
 *
 * step.c - job step records: create, report, end, to and from JSON
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/hostlist.h"
#include "common/xalloc.h"
#include "ctld/job.h"
#include "ctld/step.h"
#include "ctld/step_res.h"

struct job_step *job_step_create(uint32_t id, const char *name,
                                 const char *nodes, time_t now)
{
    struct job_step *s = xzalloc(sizeof(*s));

    s->id = id;
    s->name = xstrdup(name);
    s->state = JOB_RUNNING;
    s->start_time = now;
    s->nodes = xstrdup(nodes ? nodes : "");
    s->pending = nodes && *nodes ? xstrdup(nodes) : NULL;
    s->max_rss_kib = -1;
    s->max_rss_task = -1;
    return s;
}

static void step_free(struct job_step *s)
{
    free(s->name);
    free(s->nodes);
    free(s->alloc_tres);
    free(s->pending);
    free(s->max_rss_node);
    free(s->srun_host);
    free(s->dist);
    step_claim_destroy(s->claim);
    free(s);
}

void job_steps_destroy(struct job_step *list)
{
    while (list) {
        struct job_step *next = list->next;
        step_free(list);
        list = next;
    }
}

void job_step_add(struct job *job, struct job_step *step)
{
    struct job_step **pp = &job->steps;

    while (*pp)
        pp = &(*pp)->next;
    step->next = NULL;
    *pp = step;
}

void job_steps_acct_dirty(struct job *job, time_t since)
{
    for (struct job_step *s = job->steps; s; s = s->next)
        if (!s->end_time || s->end_time >= since)
            s->acct_dirty = true;
}

struct job_step *job_step_find(const struct job *job, uint32_t id)
{
    for (struct job_step *s = job->steps; s; s = s->next)
        if (s->id == id)
            return s;
    return NULL;
}

static const struct {
    uint32_t id;
    const char *name;
} special_ids[] = {
    {STEP_ID_BATCH, "batch"},
    {STEP_ID_EXTERN, "extern"},
    {STEP_ID_INTERACTIVE, "interactive"},
};

#define NSPECIAL (sizeof(special_ids) / sizeof(special_ids[0]))

const char *job_step_id_str(uint32_t id, char *buf, size_t len)
{
    for (size_t i = 0; i < NSPECIAL; i++)
        if (special_ids[i].id == id)
            return special_ids[i].name;
    snprintf(buf, len, "%u", id);
    return buf;
}

int64_t job_step_id_parse(const char *s)
{
    char *end;
    unsigned long long v;

    for (size_t i = 0; i < NSPECIAL; i++)
        if (!strcmp(s, special_ids[i].name))
            return special_ids[i].id;
    if (*s < '0' || *s > '9')
        return -1;
    v = strtoull(s, &end, 10);
    return *end || v >= STEP_ID_INTERACTIVE ? -1 : (int64_t)v;
}

void job_step_add_usage(struct job_step *step, const char *node,
                        json_t *report)
{
    json_t *v;

    if ((v = json_object_get(report, "status")) && json_is_integer(v)
        && (int)json_integer_value(v) > step->exit_status)
        step->exit_status = (int)json_integer_value(v);
    if ((v = json_object_get(report, "max_rss_kib")) && json_is_integer(v)
        && json_integer_value(v) > step->max_rss_kib) {
        step->max_rss_kib = json_integer_value(v);
        free(step->max_rss_node);
        step->max_rss_node = xstrdup(node);
        v = json_object_get(report, "max_rss_task");
        step->max_rss_task = json_is_integer(v) ? (int)json_integer_value(v)
                                                : -1;
    }
    if (json_is_true(json_object_get(report, "cancelled")))
        step->cancelled = true;
    if ((v = json_object_get(report, "user_cpu_us")) && json_is_integer(v))
        step->user_cpu_us += json_integer_value(v);
    if ((v = json_object_get(report, "sys_cpu_us")) && json_is_integer(v))
        step->sys_cpu_us += json_integer_value(v);
}

bool job_step_pending_on(const struct job_step *step, const char *node)
{
    hostlist_t *hl = step->pending ? hostlist_decode(step->pending, NULL)
                                   : NULL;
    bool found = hl && hostlist_find(hl, node) >= 0;

    hostlist_destroy(hl);
    return found;
}

bool job_step_node_reported(struct job_step *step, const char *node)
{
    hostlist_t *hl = step->pending ? hostlist_decode(step->pending, NULL)
                                   : NULL;
    hostlist_t *rest = hostlist_create();
    bool found = false;

    for (size_t i = 0; hl && i < hostlist_count(hl); i++) {
        if (!strcmp(hostlist_nth(hl, i), node))
            found = true;
        else
            hostlist_append(rest, hostlist_nth(hl, i));
    }
    if (found) {
        free(step->pending);
        step->pending = hostlist_count(rest) ? hostlist_encode(rest) : NULL;
    }
    hostlist_destroy(hl);
    hostlist_destroy(rest);
    return found;
}

void job_step_end(struct job_step *step, int state, time_t now)
{
    if (step->state != JOB_RUNNING)
        return;
    step->state = state;
    step->end_time = now;
}

int job_step_final_state(const struct job_step *step)
{
    if (step->cancelled)
        return JOB_CANCELLED;
    return step->exit_status ? JOB_FAILED : JOB_COMPLETED;
}

void job_step_settle(struct job_step *step, time_t now)
{
    if (step->pending)
        return;
    if (step->state == JOB_RUNNING)
        job_step_end(step, job_step_final_state(step), now);
    else if (step->state == JOB_CANCELLED && !step->cancelled
             && WIFEXITED(step->exit_status))
        step->state = step->exit_status ? JOB_FAILED : JOB_COMPLETED;
}

/* The batch step ends as its job, with the script's own status: a
 * cancelled, timed-out, preempted or requeued job's step is CANCELLED, its
 * status most often SIGTERM's (sacct: CANCELLED 0:15), a script that
 * trapped it and exited 3 "3:0", as Slurm's batch step record carries what
 * slurmstepd saw. */
static void end_batch(struct job_step *s, const struct job *job,
                      int status, time_t now)
{
    int state = job->state;

    if (state == JOB_CANCELLED || state == JOB_TIMEOUT
        || state == JOB_PREEMPTED || state == JOB_REQUEUED)
        state = JOB_CANCELLED;
    if (state != JOB_NODE_FAIL)
        s->exit_status = status;
    job_step_end(s, state, now);
}

void job_steps_end_all(struct job *job, time_t now, int batch_status)
{
    for (struct job_step *s = job->steps; s; s = s->next) {
        if (s->state != JOB_RUNNING)
            continue;
        if (s->id == STEP_ID_BATCH)
            end_batch(s, job, batch_status, now);
        else
            job_step_end(s,
                         job->state == JOB_NODE_FAIL ? JOB_NODE_FAIL
                                                     : JOB_CANCELLED,
                         now);
    }
}

static void set_str(json_t *o, const char *key, const char *val)
{
    if (val)
        json_object_set_new(o, key, json_string(val));
}

json_t *job_step_to_json(const struct job_step *s, bool internal)
{
    json_t *o = json_pack(
        "{s:I s:s s:s s:i s:I s:I s:s s:I s:I s:I s:I s:s s:i s:I s:I}",
        "step_id", (json_int_t)s->id, "name", s->name, "state",
        job_state_name(s->state), "exit_status", s->exit_status,
        "start_time", (json_int_t)s->start_time, "end_time",
        (json_int_t)s->end_time, "nodes", s->nodes, "nnodes",
        (json_int_t)s->nnodes, "ntasks", (json_int_t)s->ntasks, "ncpus",
        (json_int_t)s->ncpus, "max_rss_kib", (json_int_t)s->max_rss_kib,
        "max_rss_node", s->max_rss_node ? s->max_rss_node : "",
        "max_rss_task", s->max_rss_task, "user_cpu_us",
        (json_int_t)s->user_cpu_us, "sys_cpu_us", (json_int_t)s->sys_cpu_us);

    if (!o)
        return NULL;
    set_str(o, "alloc_tres", s->alloc_tres);
    set_str(o, "srun_host", s->srun_host);
    set_str(o, "dist", s->dist);
    if (s->srun_pid)
        json_object_set_new(o, "srun_pid", json_integer(s->srun_pid));
    if (internal) {
        set_str(o, "pending", s->pending);
        if (s->cancelled)
            json_object_set_new(o, "cancelled", json_true());
    }
    return o;
}

json_t *job_steps_to_json(const struct job *job, bool internal)
{
    json_t *arr;

    if (!job->steps)
        return NULL;
    arr = json_array();
    for (struct job_step *s = job->steps; s; s = s->next)
        json_array_append_new(arr, job_step_to_json(s, internal));
    return arr;
}

static void apply_str(char **dst, json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    if (json_is_string(v)) {
        free(*dst);
        *dst = *json_string_value(v) ? xstrdup(json_string_value(v)) : NULL;
    }
}

struct job_step *job_step_from_json(json_t *o, drv_error_t *error)
{
    json_int_t id = -1, start = 0, end = 0, nn = 0, nt = 0, nc = 0;
    json_int_t rss = -1, ucpu = 0, scpu = 0;
    const char *name = NULL, *state = NULL, *nodes = "";
    int status = 0, task = -1, cancelled = 0;
    struct job_step *s;

    if (json_unpack(o, "{s:I s:s s:s s?i s?I s?I s?s s?I s?I s?I s?I s?i s?I s?I s?b}",
                    "step_id", &id, "name", &name, "state", &state,
                    "exit_status", &status, "start_time", &start, "end_time",
                    &end, "nodes", &nodes, "nnodes", &nn, "ntasks", &nt,
                    "ncpus", &nc, "max_rss_kib", &rss, "max_rss_task", &task,
                    "user_cpu_us", &ucpu, "sys_cpu_us", &scpu, "cancelled",
                    &cancelled) < 0
        || id < 0 || id > UINT32_MAX || job_state_parse(state) < 0) {
        errprintf(error, "bad step record");
        return NULL;
    }
    s = job_step_create((uint32_t)id, name, nodes, (time_t)start);
    free(s->pending);
    s->pending = NULL;
    apply_str(&s->pending, o, "pending");
    apply_str(&s->alloc_tres, o, "alloc_tres");
    apply_str(&s->max_rss_node, o, "max_rss_node");
    apply_str(&s->srun_host, o, "srun_host");
    apply_str(&s->dist, o, "dist");
    s->srun_pid = json_integer_value(json_object_get(o, "srun_pid"));
    s->state = job_state_parse(state);
    s->cancelled = cancelled;
    s->exit_status = status;
    s->end_time = (time_t)end;
    s->nnodes = (uint32_t)nn;
    s->ntasks = (uint32_t)nt;
    s->ncpus = (uint32_t)nc;
    s->max_rss_kib = rss;
    s->max_rss_task = task;
    s->user_cpu_us = ucpu;
    s->sys_cpu_us = scpu;
    return s;
}

int job_steps_apply_json(struct job *job, json_t *arr, drv_error_t *error)
{
    struct job_step *list = NULL, **tail = &list;
    json_t *o;
    size_t i;

    if (!json_is_array(arr))
        return errprintf(error, "JobId=%u: steps is not an array", job->id);
    json_array_foreach(arr, i, o) {
        struct job_step *s = job_step_from_json(o, error);
        if (!s) {
            job_steps_destroy(list);
            return -1;
        }
        *tail = s;
        tail = &s->next;
    }
    job_steps_destroy(job->steps);
    job->steps = list;
    return 0;
}
