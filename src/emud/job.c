/* SPDX-License-Identifier: Apache-2.0
 *
 * job.c - virtual batch jobs: a timer instead of a process
 *
 * A job's run time is its hint (emulate:run=SECONDS in its comment) or
 * the emulator's default; its clock stops while it is suspended.  Its
 * time limit counts from its start, as droverd's does: reaching it ends
 * the job as a script killed by SIGTERM, reported "timed_out".  Its end
 * is reported as droverd reports a batch script's: a step_complete body
 * for step 0xfffffffb with the wait status (exit code << 8, or the
 * signal) and zero usage.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "emud/emud.h"

#define NEVER UINT64_MAX
#define HINT "emulate:"
#define HINT_RUN_MAX_S 1e8 /* three years: more is a typo */

struct emu_job {
    uint32_t id;
    uint32_t run_id;       /* the controller's run; echoed in reports */
    struct emu_node *node;
    struct emu_job *node_next;
    uint64_t start_ms;     /* uv_now() at launch */
    uint64_t run_ms;       /* how long it runs, suspended time excluded */
    uint64_t used_ms;      /* run before the last resume */
    uint64_t resumed_ms;   /* uv_now() at the last start or resume */
    int64_t limit_s;       /* time limit from the start; <= 0: none */
    int exit_code;         /* when it ends by itself */
    bool suspended;
    uv_timer_t timer;      /* its end: run over or time limit */
    UT_hash_handle hh;     /* emud->jobs by id */
};

struct emu_job *job_find(struct emud *e, uint32_t id)
{
    struct emu_job *j = NULL;

    HASH_FIND(hh, e->jobs, &id, sizeof(id), j);
    return j;
}

struct emu_node *job_node(const struct emu_job *j)
{
    return j->node;
}

uint32_t job_run_id(const struct emu_job *j)
{
    return j->run_id;
}

/* One "key=value" of a hint.  Returns false when it is not valid. */
static bool hint_pair(const char *p, size_t len, uint64_t *run_ms,
                      int *exit_code)
{
    char buf[64], *end;
    double v;

    if (len >= sizeof(buf))
        return false;
    memcpy(buf, p, len);
    buf[len] = '\0';
    if (!strncmp(buf, "run=", 4)) {
        errno = 0;
        v = strtod(buf + 4, &end);
        if (errno || end == buf + 4 || *end || !(v >= 0)
            || v > HINT_RUN_MAX_S)
            return false;
        *run_ms = (uint64_t)llround(v * 1000);
        return true;
    }
    if (!strncmp(buf, "exit=", 5)) {
        long x = strtol(buf + 5, &end, 10);
        if (end == buf + 5 || *end || x < 0 || x > 255)
            return false;
        *exit_code = (int)x;
        return true;
    }
    return false;
}

bool job_parse_hint(const char *comment, uint64_t *run_ms, int *exit_code)
{
    const char *p = comment ? strstr(comment, HINT) : NULL;
    uint64_t run = *run_ms;
    int code = *exit_code;

    if (!p)
        return false;
    p += strlen(HINT);
    for (;;) {
        size_t len = strcspn(p, ", \t\n");
        if (!len || !hint_pair(p, len, &run, &code))
            return false;
        p += len;
        if (*p != ',')
            break;
        p++;
    }
    *run_ms = run;
    *exit_code = code;
    return true;
}

/* Run time of a job without a hint: the default, or uniform in its range. */
static uint64_t default_run(const struct emud *e)
{
    if (e->run_max_ms <= e->run_min_ms)
        return e->run_min_ms;
    return e->run_min_ms
           + (uint64_t)random() % (e->run_max_ms - e->run_min_ms + 1);
}

static void job_free_cb(uv_handle_t *h)
{
    free(h->data);
}

/* Take 'j' out of the tables and free it (its timer closes). */
static void job_drop(struct emu_job *j)
{
    struct emud *e = j->node->emud;
    struct emu_job **pp = &j->node->jobs;

    while (*pp && *pp != j)
        pp = &(*pp)->node_next;
    if (*pp)
        *pp = j->node_next;
    HASH_DEL(e->jobs, j);
    e->running--;
    uv_close((uv_handle_t *)&j->timer, job_free_cb);
}

/* The job ended with wait status 'status': report it as droverd does. */
static void job_end(struct emu_job *j, int status, bool timed_out)
{
    struct emu_node *n = j->node;
    json_t *c = json_pack("{s:s s:I s:I s:i s:b s:i s:i s:i s:i}", "node",
                          n->conf->name, "job_id", (json_int_t)j->id,
                          "step_id", (json_int_t)EMUD_BATCH_STEP, "status",
                          status, "timed_out", timed_out, "max_rss_kib", 0,
                          "max_rss_task", 0, "user_cpu_us", 0, "sys_cpu_us",
                          0);

    if (j->run_id)
        json_object_set_new(c, "run_id", json_integer(j->run_id));
    log_verbose("%s: JobId=%u ended, status %d%s", n->conf->name, j->id,
                status, timed_out ? " (time limit)" : "");
    n->emud->ended++;
    job_drop(j);
    node_report(n, c);
}

static uint64_t limit_at(const struct emu_job *j)
{
    return j->limit_s > 0 ? j->start_ms + (uint64_t)j->limit_s * 1000
                          : NEVER;
}

static uint64_t run_end_at(const struct emu_job *j)
{
    if (j->suspended)
        return NEVER;
    return j->resumed_ms + (j->run_ms > j->used_ms ? j->run_ms - j->used_ms
                                                    : 0);
}

static void timer_cb(uv_timer_t *t);

/* Set the timer to the job's next event: its run's end or its limit. */
static void arm(struct emu_job *j)
{
    uint64_t now = uv_now(j->node->emud->loop);
    uint64_t at = run_end_at(j), lim = limit_at(j);

    if (lim < at)
        at = lim;
    if (at == NEVER)
        uv_timer_stop(&j->timer);
    else
        uv_timer_start(&j->timer, timer_cb, at > now ? at - now : 0, 0);
}

static void timer_cb(uv_timer_t *t)
{
    struct emu_job *j = t->data;
    uint64_t now = uv_now(j->node->emud->loop);

    if (limit_at(j) <= now) {
        log_info("%s: JobId=%u: time limit exhausted", j->node->conf->name,
                 j->id);
        job_end(j, SIGTERM, true);
    } else if (run_end_at(j) <= now) {
        job_end(j, j->exit_code << 8, false);
    } else {
        arm(j); /* woke early (a changed limit) */
    }
}

/* A new job record on 'n' from batch_launch's job object. */
static struct emu_job *job_new(struct emu_node *n, json_t *job, uint32_t id)
{
    struct emud *e = n->emud;
    struct emu_job *j = xzalloc(sizeof(*j));
    json_t *lim = json_object_get(job, "time_limit_s");
    const char *comment =
        json_string_value(json_object_get(job, "comment"));

    j->id = id;
    j->run_id = (uint32_t)json_integer_value(json_object_get(job, "run_id"));
    j->node = n;
    j->limit_s = json_is_integer(lim) ? json_integer_value(lim) : -1;
    j->run_ms = default_run(e);
    if (comment && strstr(comment, HINT)
        && !job_parse_hint(comment, &j->run_ms, &j->exit_code))
        log_error("%s: JobId=%u: comment \"%s\" has no valid "
                  HINT "run=SECONDS[,exit=CODE]: default run time",
                  n->conf->name, id, comment);
    j->start_ms = j->resumed_ms = uv_now(e->loop);
    uv_timer_init(e->loop, &j->timer);
    j->timer.data = j;
    return j;
}

int job_launch(struct emu_node *n, json_t *job, int *errnum,
               const char **why)
{
    struct emud *e = n->emud;
    json_int_t id = json_integer_value(json_object_get(job, "job_id"));
    uint32_t run = (uint32_t)json_integer_value(json_object_get(job,
                                                                "run_id"));
    struct emu_job *j;

    if (id <= 0 || id > UINT32_MAX) {
        *errnum = EDRV_PROTOCOL_MALFORMED;
        *why = "no job";
        return -1;
    }
    if ((j = job_find(e, (uint32_t)id))) {
        if (j->run_id == run)
            return 0; /* a retried launch */
        log_error("JobId=%lld: run %u asked while run %u still runs on %s: "
                  "ending the old run", (long long)id, run, j->run_id,
                  j->node->conf->name);
        job_signal(j, SIGTERM, true);
        *errnum = EDRV_DUPLICATE_JOB_ID;
        *why = NULL;
        return -1;
    }
    j = job_new(n, job, (uint32_t)id);
    HASH_ADD(hh, e->jobs, id, sizeof(j->id), j);
    j->node_next = n->jobs;
    n->jobs = j;
    e->running++;
    e->started++;
    log_verbose("%s: JobId=%u run %u started: %.3f s", n->conf->name, j->id,
                j->run_id, (double)j->run_ms / 1000);
    arm(j);
    return 0;
}

static void suspend(struct emu_job *j, bool stop)
{
    uint64_t now = uv_now(j->node->emud->loop);

    if (stop == j->suspended)
        return;
    if (stop)
        j->used_ms += now - j->resumed_ms;
    else
        j->resumed_ms = now;
    j->suspended = stop;
    arm(j);
}

void job_signal(struct emu_job *j, int signo, bool terminate)
{
    if (terminate) {
        job_end(j, SIGTERM, false);
        return;
    }
    switch (signo) {
    case SIGSTOP:
    case SIGTSTP:
        suspend(j, true);
        break;
    case SIGCONT:
        suspend(j, false);
        break;
    case 0:
    case SIGCHLD:
    case SIGURG:
    case SIGWINCH:
        break;
    default:
        job_end(j, signo, false);
    }
}

void job_set_limit(struct emu_job *j, int64_t limit_s)
{
    j->limit_s = limit_s;
    arm(j);
}

void job_list(const struct emu_node *n, json_t *jobs, json_t *steps)
{
    for (const struct emu_job *j = n->jobs; j; j = j->node_next) {
        json_t *o = json_pack("{s:I}", "job_id", (json_int_t)j->id);

        if (j->run_id)
            json_object_set_new(o, "run_id", json_integer(j->run_id));
        json_array_append_new(jobs, o);
        json_array_append_new(steps,
                              json_pack("{s:I s:I}", "job_id",
                                        (json_int_t)j->id, "step_id",
                                        (json_int_t)EMUD_BATCH_STEP));
    }
}

void job_forget_all(struct emud *e)
{
    struct emu_job *j, *tmp;

    HASH_ITER(hh, e->jobs, j, tmp) {
        HASH_DEL(e->jobs, j);
        if (!uv_is_closing((uv_handle_t *)&j->timer))
            uv_close((uv_handle_t *)&j->timer, job_free_cb);
    }
    for (size_t i = 0; i < e->node_count; i++)
        e->nodes[i].jobs = NULL;
    e->running = 0;
}
