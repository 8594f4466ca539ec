/* SPDX-License-Identifier: Apache-2.0
 *
 * test_event.c - the controller's events (src/ctld/event.h) on real tables
 * and a real journal: a random sequence of events is applied and checked
 * against a small model after each one; then the journal is replayed into
 * a second controller, which must hold the same jobs, steps and node
 * usage, and that one's snapshot into a third.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/xalloc.h"
#include "ctld/acct_record.h"
#include "ctld/array.h"
#include "ctld/crontab.h"
#include "ctld/ctld.h"
#include "ctld/priority.h"
#include "ctld/depend.h"
#include "ctld/event.h"
#include "ctld/job_update.h"
#include "ctld/state.h"
#include "ctld/step.h"
#include "ctld/trigger.h"

#define NODES 3
#define CPUS 4
#define MAX_JOBS 64

static const char conf_fmt[] =
    "ClusterName=t\n"
    "SlurmctldHost=localhost\n"
    "StateSaveLocation=%s\n"
    "PriorityType=priority/multifactor\n"
    "PriorityWeightAge=1000 PriorityWeightJobSize=500\n"
    "PriorityDecayHalfLife=0:30\n"
    "NodeName=n[1-3] CPUs=4 RealMemory=1000\n"
    "PartitionName=p Nodes=n[1-3] Default=YES\n";

/* What the model expects of each job. */
enum m_state { M_NONE, M_PENDING, M_RUNNING, M_CANCELLING, M_FINAL, M_PURGED };

struct m_job {
    enum m_state state;
    uint32_t cpus;
    long node;
    uint32_t restarts, runs;
};

struct model {
    struct m_job jobs[MAX_JOBS + 1]; /* by id */
    uint32_t used[NODES];
    uint32_t next_id;
    time_t t;
};

static char dir[] = "/tmp/test_event.XXXXXX";

static struct ctld *ctld_open(void)
{
    struct ctld *ctld = xzalloc(sizeof(*ctld));
    drv_error_t error = {{0}};
    char *text = xasprintf(conf_fmt, dir);
    char *path = xasprintf("%s/slurm.conf", dir);

    ctld->conf = conf_parse(path, text, "", &error);
    assert_non_null(ctld->conf);
    ctld->nodes = node_table_create(ctld->conf, &error);
    assert_non_null(ctld->nodes);
    for (size_t i = 0; i < ctld->nodes->count; i++) {
        ctld->nodes->info[i].responding = true;
        node_table_update_avail(ctld->nodes, i);
    }
    ctld->journal = journal_open(dir, &error);
    assert_non_null(ctld->journal);
    ctld->launches = launch_store_create();
    priority_init(ctld);
    ctld->next_job_id = 1;
    ctld->acks_tail = &ctld->acks;
    free(text);
    free(path);
    return ctld;
}

static void ctld_close(struct ctld *ctld)
{
    struct job *job, *tmp;

    journal_close(ctld->journal);
    HASH_ITER(hh, ctld->jobs, job, tmp) {
        ctld_job_unlink(ctld, job);
        job_destroy(job);
    }
    launch_store_destroy(ctld->launches);
    trigger_fini(ctld);
    json_decref(ctld->crontabs);
    priority_fini(ctld);
    sched_predict_destroy(ctld->predict);
    node_table_destroy(ctld->nodes);
    conf_destroy(ctld->conf);
    free(ctld->replayed);
    ctld_job_sets_free(ctld);
    idmap_free(&ctld->job_ids);
    free(ctld);
}

static int apply(struct ctld *ctld, struct model *m, struct ctld_event ev)
{
    ev.t = m->t;
    return ctld_apply(ctld, &ev);
}

/* Job ids in state 's', into 'out'; returns how many. */
static size_t pick_list(const struct model *m, enum m_state s, uint32_t *out)
{
    size_t n = 0;

    for (uint32_t id = 1; id < m->next_id; id++)
        if (m->jobs[id].state == s)
            out[n++] = id;
    return n;
}

static uint32_t pick(const struct model *m, enum m_state s)
{
    uint32_t ids[MAX_JOBS];
    size_t n = pick_list(m, s, ids);

    return n ? ids[rand() % n] : 0;
}

static void ev_submit(struct ctld *ctld, struct model *m)
{
    uint32_t id = m->next_id;
    struct job *job;
    json_t *launch;

    if (id > MAX_JOBS)
        return;
    job = job_create(id);
    char name[16];
    snprintf(name, sizeof(name), "job%u", id);
    job_set_str(&job->name, name);
    job->uid = 1000 + (uid_t)(rand() % 3);
    job_set_str(&job->partition, "p");
    job->req.cpus_per_task = 1 + (uint32_t)(rand() % CPUS);
    job->priority = 100000 - id;
    job->submit_time = job->eligible_time = m->t;
    if (rand() % 4 == 0) { /* an array of 4 tasks, 2 running at most */
        assert_int_equal(array_submit(job, "0-3%2", 1000, NULL), 0);
        array_set_id(job);
    }
    launch = json_pack("{s:s s:[s] s:{s:s}}", "script", "#!/bin/sh\ntrue\n",
                       "argv", "x", "env", "PATH", "/bin");
    job->launch = launch_store_pack(ctld->launches, launch);
    json_decref(launch);
    ctld->next_job_id = id + 1;
    assert_int_equal(apply(ctld, m, (struct ctld_event){
                                        .type = CTLD_EV_JOB_SUBMITTED,
                                        .job = job}),
                     0);
    m->jobs[id] = (struct m_job){.state = M_PENDING,
                                 .cpus = job->req.cpus_per_task,
                                 .node = -1};
    m->next_id++;
}

static void ev_start(struct ctld *ctld, struct model *m)
{
    uint32_t id = pick(m, M_PENDING);
    struct sched_alloc *a;
    long node = rand() % NODES;

    if (!id || m->used[node] + m->jobs[id].cpus > CPUS)
        return;
    a = sched_alloc_create(1);
    a->node_idx[0] = (uint32_t)node;
    a->cpus[0] = m->jobs[id].cpus;
    a->tasks[0] = 1;
    assert_int_equal(apply(ctld, m, (struct ctld_event){
                                        .type = CTLD_EV_JOB_STARTED,
                                        .job_id = id,
                                        .alloc = a,
                                        .configuring = rand() % 3 == 0}),
                     0);
    m->jobs[id].state = M_RUNNING;
    m->jobs[id].node = node;
    m->jobs[id].runs++;
    m->used[node] += m->jobs[id].cpus;
}

static void release(struct model *m, uint32_t id)
{
    if (m->jobs[id].node >= 0)
        m->used[m->jobs[id].node] -= m->jobs[id].cpus;
    m->jobs[id].node = -1;
}

static void ev_end(struct ctld *ctld, struct model *m)
{
    uint32_t id = pick(m, rand() % 2 ? M_RUNNING : M_CANCELLING);
    static const int states[] = {JOB_COMPLETED, JOB_FAILED, JOB_TIMEOUT};

    json_t *report;

    if (!id)
        return;
    /* the batch host's completion, with the script's usage */
    report = json_pack("{s:I s:I}", "max_rss_kib",
                       (json_int_t)(rand() % 9000), "user_cpu_us",
                       (json_int_t)(rand() % 100000));
    assert_int_equal(
        apply(ctld, m, (struct ctld_event){
                           .type = CTLD_EV_JOB_ENDED,
                           .job_id = id,
                           .state = m->jobs[id].state == M_CANCELLING
                                        ? JOB_CANCELLED
                                        : states[rand() % 3],
                           .status = (rand() % 3) << 8,
                           .node = rand() % 2 ? ctld->nodes->names[
                                                    m->jobs[id].node]
                                              : NULL,
                           .report = report}),
        0);
    json_decref(report);
    release(m, id);
    m->jobs[id].state = M_FINAL;
}

static void ev_requeue(struct ctld *ctld, struct model *m)
{
    uint32_t id = pick(m, rand() % 2 ? M_RUNNING : M_FINAL);
    bool restart = rand() % 2;

    if (!id)
        return;
    assert_int_equal(apply(ctld, m, (struct ctld_event){
                                        .type = CTLD_EV_JOB_REQUEUED,
                                        .job_id = id,
                                        .eligible_time = m->t + 2,
                                        .restart = restart}),
                     0);
    m->jobs[id].restarts += restart;
    release(m, id);
    m->jobs[id].state = M_PENDING;
}

static void ev_cancel(struct ctld *ctld, struct model *m)
{
    uint32_t id = pick(m, rand() % 2 ? M_RUNNING : M_PENDING);

    if (!id)
        return;
    assert_int_equal(apply(ctld, m, (struct ctld_event){
                                        .type = CTLD_EV_JOB_CANCELLED,
                                        .job_id = id,
                                        .by = 1000}),
                     0);
    m->jobs[id].state = m->jobs[id].state == M_RUNNING ? M_CANCELLING
                                                       : M_FINAL;
}

static void ev_purge(struct ctld *ctld, struct model *m)
{
    uint32_t id = pick(m, M_FINAL);

    if (!id)
        return;
    assert_int_equal(apply(ctld, m, (struct ctld_event){
                                        .type = CTLD_EV_JOB_PURGED,
                                        .job_id = id}),
                     0);
    m->jobs[id].state = M_PURGED;
}

static void ev_requeue_request(struct ctld *ctld, struct model *m)
{
    uint32_t id = pick(m, M_RUNNING);

    if (!id)
        return;
    assert_int_equal(apply(ctld, m, (struct ctld_event){
                                        .type = CTLD_EV_JOB_REQUEUE_REQUESTED,
                                        .job_id = id}),
                     0);
    assert_true(ctld_job_find(ctld, id)->requeue_requested);
    assert_true(ctld_job_find(ctld, id)->completing);
}

/* The gate's judgement: a reason, an eligible time and, for a job with a
 * dependency list, its items' states. */
static void ev_gate(struct ctld *ctld, struct model *m)
{
    static const int reasons[] = {JOB_REASON_NONE, JOB_REASON_DEPENDENCY,
                                  JOB_REASON_DEP_NEVER,
                                  JOB_REASON_ARRAY_TASK_LIMIT};
    uint32_t id = pick(m, M_PENDING);
    struct job *job;
    struct job_gate g = {0};

    if (!id)
        return;
    job = ctld_job_find(ctld, id);
    g.reason = reasons[rand() % 4];
    g.eligible_time = rand() % 2 ? m->t : 0;
    if (job->depend && job->depend->list) {
        g.dep_count = job->depend->list->count;
        g.dep_state = xzalloc(g.dep_count * sizeof(*g.dep_state));
        for (size_t i = 0; i < g.dep_count; i++)
            g.dep_state[i] = (enum dep_state)(rand() % 3);
        g.dep_resolved = rand() % 4 == 0;
    }
    assert_int_equal(apply(ctld, m, (struct ctld_event){
                                        .type = CTLD_EV_JOB_GATE,
                                        .job_id = id,
                                        .gate = &g}),
                     0);
    assert_int_equal(job->reason, g.reason);
    assert_int_equal(job->eligible_time, g.eligible_time);
    if (g.dep_resolved)
        assert_null(job->depend->list);
    free(g.dep_state);
}

/* A pending array's next task leaves it as a job of its own (or the
 * master becomes its last task). */
static void ev_split(struct ctld *ctld, struct model *m)
{
    uint32_t ids[MAX_JOBS], master = 0, new_id;
    size_t n = pick_list(m, M_PENDING, ids);
    struct job *job;
    long task;

    for (size_t i = 0; i < n && !master; i++)
        if (array_is_master(ctld_job_find(ctld, ids[i])))
            master = ids[i];
    if (!master || m->next_id > MAX_JOBS)
        return;
    job = ctld_job_find(ctld, master);
    task = bitmap_first_set(job->array->pending, 0);
    new_id = bitmap_count(job->array->pending) > 1 ? m->next_id : 0;
    assert_int_equal(apply(ctld, m, (struct ctld_event){
                                        .type = CTLD_EV_ARRAY_TASK_SPLIT,
                                        .job_id = master,
                                        .task = (uint32_t)task,
                                        .new_job_id = new_id}),
                     0);
    if (!new_id) {
        assert_int_equal(job->array->task_id, task);
        assert_false(array_is_master(job));
        return;
    }
    assert_int_equal(ctld_job_find(ctld, new_id)->array->task_id, task);
    assert_int_equal(ctld->next_job_id, new_id + 1);
    m->jobs[new_id] = m->jobs[master]; /* the record's copy */
    m->next_id++;
}

static void ev_throttle(struct ctld *ctld, struct model *m)
{
    uint32_t id = pick(m, M_PENDING);
    uint32_t limit = (uint32_t)(rand() % 3);
    struct job *job = id ? ctld_job_find(ctld, id) : NULL;

    if (!job || !job->array)
        return;
    assert_int_equal(apply(ctld, m, (struct ctld_event){
                                        .type = CTLD_EV_ARRAY_THROTTLE,
                                        .job_id = job->array->job_id,
                                        .throttle = limit}),
                     0);
    assert_int_equal(job->array->throttle, limit);
}

/* A random step of 'job', or -1 when it has none. */
static int64_t pick_step(const struct job *job)
{
    size_t n = 0, k;
    const struct job_step *s;

    for (s = job->steps; s; s = s->next)
        n += s->id != STEP_ID_BATCH;
    if (!n)
        return -1;
    k = (size_t)rand() % n;
    for (s = job->steps; s; s = s->next)
        if (s->id != STEP_ID_BATCH && k-- == 0)
            return s->id;
    return -1;
}

static void ev_hold(struct ctld *ctld, struct model *m)
{
    uint32_t id = pick(m, rand() % 2 ? M_PENDING : M_RUNNING);
    bool hold = rand() % 2, admin = rand() % 2;
    struct job *job;

    if (!id)
        return;
    assert_int_equal(apply(ctld, m, (struct ctld_event){
                                        .type = CTLD_EV_JOB_HELD,
                                        .job_id = id,
                                        .hold = hold,
                                        .admin = admin}),
                     0);
    job = ctld_job_find(ctld, id);
    assert_int_equal(job->hold, hold);
    assert_int_equal(job->priority == 0, hold);
    if (hold)
        assert_int_equal(job->reason, admin ? JOB_REASON_HELD_ADMIN
                                            : JOB_REASON_HELD_USER);
}

static void ev_update(struct ctld *ctld, struct model *m)
{
    uint32_t id = pick(m, M_PENDING);
    char name[32], dep[32];
    struct job_update u = {.any = true, .has_time_limit = true};

    if (!id)
        return;
    u.time_limit_s = (rand() % 100) * 60;
    snprintf(name, sizeof(name), "renamed%d", rand() % 100);
    u.name = name;
    if (rand() % 2) {
        u.has_begin = true;
        u.begin = m->t + rand() % 20 - 10;
    }
    if (rand() % 3 == 0) { /* on an earlier job, or cleared */
        snprintf(dep, sizeof(dep), "afterok:%u", 1 + (uint32_t)rand() % id);
        u.dependency = rand() % 4 ? dep : "";
    }
    assert_int_equal(apply(ctld, m, (struct ctld_event){
                                        .type = CTLD_EV_JOB_UPDATED,
                                        .job_id = id,
                                        .update = &u}),
                     0);
    assert_string_equal(ctld_job_find(ctld, id)->name, name);
}

static void ev_step(struct ctld *ctld, struct model *m)
{
    uint32_t id = pick(m, M_RUNNING);
    struct job *job;
    struct job_step *s;
    const char *node;
    int64_t step;

    if (!id)
        return;
    job = ctld_job_find(ctld, id);
    node = ctld->nodes->names[m->jobs[id].node];
    step = pick_step(job);
    switch (rand() % 4) {
    case 0: /* a new step */
        s = job_step_create(job->next_step_id++, "true", node, m->t);
        s->nnodes = s->ntasks = 1;
        s->ncpus = m->jobs[id].cpus;
        assert_int_equal(apply(ctld, m, (struct ctld_event){
                                            .type = CTLD_EV_STEP_STARTED,
                                            .job_id = id,
                                            .step = s}),
                         0);
        return;
    case 1: { /* its node reports */
        json_t *r;
        if (step < 0)
            return;
        r = json_pack("{s:i s:I s:i s:I}", "status", (rand() % 2) << 8,
                      "max_rss_kib", (json_int_t)(rand() % 5000),
                      "max_rss_task", 0, "user_cpu_us",
                      (json_int_t)(rand() % 100000));
        apply(ctld, m, (struct ctld_event){
                           .type = CTLD_EV_STEP_REPORTED,
                           .job_id = id,
                           .step_id = (uint32_t)step,
                           .node = node,
                           .report = r});
        json_decref(r);
        return;
    }
    case 2: /* a node of it failed */
        if (step >= 0)
            apply(ctld, m, (struct ctld_event){
                               .type = CTLD_EV_STEP_ENDED,
                               .job_id = id,
                               .step_id = (uint32_t)step,
                               .state = JOB_NODE_FAIL,
                               .node = node});
        return;
    default:
        if (step >= 0)
            assert_int_equal(apply(ctld, m,
                                   (struct ctld_event){
                                       .type = CTLD_EV_STEP_CANCELLED,
                                       .job_id = id,
                                       .step_id = (uint32_t)step}),
                             0);
        return;
    }
}

static void ev_node(struct ctld *ctld, struct model *m)
{
    long i = rand() % NODES;
    char reason[64];
    struct node_admin a;

    node_table_admin_get(ctld->nodes, (size_t)i, &a);
    a.drain = !a.drain;
    snprintf(reason, sizeof(reason), "maintenance %ld", (long)m->t);
    a.reason = a.drain ? reason : NULL;
    a.reason_time = a.drain ? m->t : 0;
    a.weight = (uint32_t)(rand() % 3 + 1);
    ctld_node_admin(ctld, i, &a);
}

/* The walk of set 's' finds exactly the jobs of the model in states
 * 'a', 'b' or 'c' (M_NONE: none), each once, in id order. */
static void check_set(struct ctld *ctld, const struct model *m,
                      enum ctld_set s, enum m_state a, enum m_state b,
                      enum m_state c)
{
    bool seen[MAX_JOBS + 1] = {false};
    uint32_t last = 0;

    for (struct job *job = ctld_set_first(ctld, s); job;
         job = ctld_set_next(ctld, s, job)) {
        assert_true(job->id > last && job->id < m->next_id);
        last = job->id;
        seen[job->id] = true;
    }
    for (uint32_t id = 1; id < m->next_id; id++) {
        enum m_state st = m->jobs[id].state;
        assert_int_equal(seen[id], st == a || st == b || st == c);
    }
}

/* The purge heap gives every ended job of the model once, in order of
 * end time, and no other (it is emptied). */
static void check_purge(struct ctld *ctld, const struct model *m)
{
    bool seen[MAX_JOBS + 1] = {false};
    time_t last = 0;
    struct job *job;

    while ((job = ctld_purge_next(ctld, m->t + 1))) {
        assert_true(job->id < m->next_id);
        assert_int_equal(m->jobs[job->id].state, M_FINAL);
        assert_false(seen[job->id]);
        assert_true(job->end_time >= last);
        seen[job->id] = true;
        last = job->end_time;
    }
    for (uint32_t id = 1; id < m->next_id; id++)
        assert_int_equal(seen[id], m->jobs[id].state == M_FINAL);
}

/* The tables agree with the model. */
static void check_model(struct ctld *ctld, const struct model *m)
{
    static const enum job_state final[] = {JOB_COMPLETED, JOB_FAILED,
                                           JOB_TIMEOUT, JOB_CANCELLED};

    for (uint32_t id = 1; id < m->next_id; id++) {
        struct job *job = ctld_job_find(ctld, id);
        bool is_final = false;

        if (m->jobs[id].state == M_PURGED) {
            assert_null(job);
            continue;
        }
        assert_non_null(job);
        assert_int_equal(job->restarts, m->jobs[id].restarts);
        assert_int_equal(job->run_id, m->jobs[id].runs);
        for (size_t k = 0; job && k < 4; k++)
            is_final |= job->state == final[k];
        switch (m->jobs[id].state) {
        case M_PENDING:
            assert_int_equal(job->state, JOB_PENDING);
            assert_null(job->alloc);
            break;
        case M_RUNNING:
            assert_int_equal(job->state, JOB_RUNNING);
            assert_non_null(job->alloc);
            break;
        case M_CANCELLING:
            assert_int_equal(job->state, JOB_CANCELLED);
            assert_true(job->completing);
            assert_non_null(job->alloc);
            break;
        default:
            assert_true(is_final);
            assert_null(job->alloc);
            assert_false(job->completing);
            break;
        }
    }
    for (size_t i = 0; i < NODES; i++)
        assert_int_equal(ctld->nodes->sched[i].alloc_cpus, m->used[i]);
    check_set(ctld, m, CTLD_SET_LIVE, M_PENDING, M_RUNNING, M_CANCELLING);
    check_set(ctld, m, CTLD_SET_WAITING, M_PENDING, M_NONE, M_NONE);
    check_set(ctld, m, CTLD_SET_RUNNING, M_RUNNING, M_CANCELLING, M_NONE);
    check_set(ctld, m, CTLD_SET_INTERACTIVE, M_NONE, M_NONE, M_NONE);
}

/* Two controllers hold the same jobs (every journaled field, steps and
 * script included) and the same node state and usage. */
static void check_equal(struct ctld *a, struct ctld *b)
{
    struct job *job, *tmp;

    assert_int_equal(HASH_COUNT(a->jobs), HASH_COUNT(b->jobs));
    assert_int_equal(a->next_job_id, b->next_job_id);
    {   /* the fair-share usage, to the last bit */
        json_t *x = priority_snapshot(a), *y = priority_snapshot(b);
        if (!json_equal(x, y)) {
            char *sx = json_dumps(x, JSON_SORT_KEYS);
            char *sy = json_dumps(y, JSON_SORT_KEYS);
            fail_msg("usage differs:\n%s\n%s", sx, sy);
        }
        json_decref(x);
        json_decref(y);
    }
    {   /* the users' crontabs */
        json_t *x = crontab_snapshot(a), *y = crontab_snapshot(b);
        assert_true(json_equal(x, y));
        json_decref(x);
        json_decref(y);
    }
    HASH_ITER(hh, a->jobs, job, tmp) {
        struct job *other = ctld_job_find(b, job->id);
        assert_non_null(other);
        json_t *x = job_to_json(job, a->nodes->names, JOB_JSON_LAUNCH);
        json_t *y = job_to_json(other, b->nodes->names, JOB_JSON_LAUNCH);
        if (!json_equal(x, y)) {
            char *sx = json_dumps(x, JSON_SORT_KEYS);
            char *sy = json_dumps(y, JSON_SORT_KEYS);
            fail_msg("JobId=%u differs:\n%s\n%s", job->id, sx, sy);
        }
        json_decref(x);
        json_decref(y);
    }
    for (size_t i = 0; i < NODES; i++) {
        json_t *x = node_table_admin_json(a->nodes, i);
        json_t *y = node_table_admin_json(b->nodes, i);
        assert_true(json_equal(x, y));
        json_decref(x);
        json_decref(y);
        assert_int_equal(a->nodes->sched[i].alloc_cpus,
                         b->nodes->sched[i].alloc_cpus);
        assert_int_equal(a->nodes->sched[i].running_jobs,
                         b->nodes->sched[i].running_jobs);
    }
}

/* A priority calculation: usage decays, running jobs are charged, pending
 * priorities computed again (now and then with a usage reset). */
static void ev_calc(struct ctld *ctld, struct model *m)
{
    assert_int_equal(apply(ctld, m, (struct ctld_event){
                                        .type = CTLD_EV_PRIORITY_CALC,
                                        .reset = rand() % 8 == 0}),
                     0);
}

/* scontrol suspend then resume of a running job (it is running again, its
 * SecsPreSuspend and SuspendTime changed); or a suspension by preemption,
 * which gives the job's CPUs back until the resume. */
static void ev_suspend(struct ctld *ctld, struct model *m)
{
    uint32_t id = pick(m, M_RUNNING);
    int how = rand() % 3; /* scontrol, preemption, gang */
    bool preempt = how == 1;
    const struct sched_alloc *a;
    uint32_t before;

    if (!id)
        return;
    a = ctld_job_find(ctld, id)->alloc;
    before = ctld->nodes->sched[a->node_idx[0]].alloc_cpus;
    assert_int_equal(apply(ctld, m, (struct ctld_event){
                                        .type = CTLD_EV_JOB_SUSPENDED,
                                        .job_id = id, .suspend = true,
                                        .preempt = preempt,
                                        .gang = how == 2}),
                     0);
    assert_int_equal(ctld->nodes->sched[a->node_idx[0]].alloc_cpus,
                     before - (preempt ? a->cpus[0] : 0));
    m->t += rand() % 3;
    assert_int_equal(apply(ctld, m, (struct ctld_event){
                                        .type = CTLD_EV_JOB_SUSPENDED,
                                        .job_id = id, .suspend = false}),
                     0);
}

/* PrologSlurmctld passed for a configuring job (prolog_ctld.h); for any
 * other the event does not apply. */
static void ev_configured(struct ctld *ctld, struct model *m)
{
    uint32_t id = pick(m, M_RUNNING);
    struct job *job = id ? ctld_job_find(ctld, id) : NULL;
    bool was;

    if (!job)
        return;
    was = job->configuring;
    assert_int_equal(apply(ctld, m, (struct ctld_event){
                                        .type = CTLD_EV_JOB_CONFIGURED,
                                        .job_id = id}),
                     was ? 0 : -1);
    assert_false(job->configuring);
}

/* A user's crontab set (some lines disabled, some job ids) or removed
 * (crontab.h). */
static void ev_crontab(struct ctld *ctld, struct model *m)
{
    json_t *rec = json_pack("{s:i}", "user_id", 1000 + rand() % 3);

    if (rand() % 4) {
        json_object_set_new(rec, "text", json_sprintf("%d * * * * x\n",
                                                      rand() % 60));
        json_object_set_new(rec, "disabled", json_pack("[i]", rand() % 3));
        json_object_set_new(rec, "job_ids", json_pack("[i]", m->next_id));
    }
    assert_int_equal(apply(ctld, m, (struct ctld_event){
                                        .type = CTLD_EV_CRONTAB_SET,
                                        .crontab = rec}),
                     0);
    json_decref(rec);
}

static void (*const generators[])(struct ctld *, struct model *) = {
    ev_submit, ev_submit, ev_start, ev_start, ev_end,  ev_requeue,
    ev_cancel, ev_purge,  ev_step,   ev_step, ev_step, ev_node,
    ev_hold,   ev_update, ev_requeue_request, ev_gate, ev_split,
    ev_split,  ev_throttle, ev_calc, ev_suspend, ev_configured,
    ev_crontab,
};

static void test_random_replay(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 20; seed++) {
        struct model *m = xzalloc(sizeof(*m));
        struct ctld *live, *replayed, *from_snapshot;
        drv_error_t error = {{0}};
        char *cmd;

        assert_non_null(mkdtemp(strcpy(dir, "/tmp/test_event.XXXXXX")));
        srand(seed);
        m->next_id = 1;
        m->t = 1700000000;
        live = ctld_open();
        for (int i = 0; i < 400; i++) {
            m->t += rand() % 3;
            generators[(size_t)rand()
                       % (sizeof(generators) / sizeof(generators[0]))](live,
                                                                        m);
            check_model(live, m);
        }
        assert_int_equal(journal_flush(live->journal), 0);

        replayed = ctld_open();
        if (state_restore(replayed, &error) < 0)
            fail_msg("seed %u: restore: %s", seed, error.text);
        check_model(replayed, m);
        check_equal(live, replayed);

        assert_int_equal(state_snapshot(replayed), 0);
        from_snapshot = ctld_open();
        if (state_restore(from_snapshot, &error) < 0)
            fail_msg("seed %u: restore from snapshot: %s", seed, error.text);
        check_equal(live, from_snapshot);
        check_purge(live, m);
        check_purge(replayed, m);
        check_purge(from_snapshot, m);

        ctld_close(live);
        ctld_close(replayed);
        ctld_close(from_snapshot);
        free(m);
        cmd = xasprintf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
        free(cmd);
    }
}

static json_t *build_state(void *arg)
{
    return state_to_json(arg);
}

/* A restore of 'dir' as it is equals 'live'. */
static void check_restore(struct ctld *live, const char *what)
{
    struct ctld *r = ctld_open();
    drv_error_t error = {{0}};

    if (state_restore(r, &error) < 0)
        fail_msg("%s: restore: %s", what, error.text);
    fprintf(stderr, "STAGE %s\n", what);
    check_equal(live, r);
    ctld_close(r);
}

static void run_events(struct ctld *ctld, struct model *m, int n)
{
    for (int i = 0; i < n; i++) {
        m->t += rand() % 3;
        generators[(size_t)rand()
                   % (sizeof(generators) / sizeof(generators[0]))](ctld, m);
    }
}

/* The snapshot written by a forked child while events go on: whichever
 * moment the controller stops at (child still writing, child done but
 * journal.old not yet removed, all done), a restore is the live state;
 * and a journal.old left behind is cleaned up by the next snapshot. */
static void test_async_snapshot(void **state)
{
    (void)state;
    for (unsigned seed = 1; seed <= 5; seed++) {
        struct model *m = xzalloc(sizeof(*m));
        char *old, *keep, *snap, *cmd;
        struct ctld *live;

        assert_non_null(mkdtemp(strcpy(dir, "/tmp/test_event.XXXXXX")));
        old = xasprintf("%s/journal.old", dir);
        keep = xasprintf("%s/journal.keep", dir);
        snap = xasprintf("%s/snapshot.json", dir);
        srand(seed);
        m->next_id = 1;
        m->t = 1700000000;
        live = ctld_open();
        run_events(live, m, 200);
        assert_int_equal(journal_snapshot_async(live->journal, build_state,
                                                live), 0);
        assert_true(journal_snapshotting(live->journal));
        run_events(live, m, 200);
        assert_int_equal(journal_flush(live->journal), 0);
        assert_int_equal(link(old, keep), 0); /* the same inode */
        /* stopped while the child writes (no snapshot, journal.old, log)
         * or after its rename (journal.old is the one it names: removed,
         * not applied again) */
        check_restore(live, "child writing or done");

        assert_int_equal(journal_snapshot_poll(live->journal, true), 1);
        assert_int_equal(access(keep, F_OK), 0);
        assert_false(journal_snapshotting(live->journal));
        assert_int_equal(access(old, F_OK), -1);
        assert_int_equal(access(snap, F_OK), 0);
        check_restore(live, "snapshot and log");

        /* stopped between the child's rename and the unlink */
        assert_int_equal(rename(keep, old), 0);
        check_restore(live, "snapshot, journal.old and log");
        assert_int_equal(access(old, F_OK), -1); /* the restart removed it */

        /* one child at a time; a synchronous snapshot waits for it */
        run_events(live, m, 50);
        assert_int_equal(journal_snapshot_async(live->journal, build_state,
                                                live), 0);
        assert_int_equal(journal_snapshot_async(live->journal, build_state,
                                                live), -1);
        run_events(live, m, 50);
        assert_int_equal(state_snapshot(live), 0);
        assert_false(journal_snapshotting(live->journal));
        assert_int_equal(access(old, F_OK), -1);
        check_restore(live, "after the synchronous snapshot");

        ctld_close(live);
        free(m);
        free(old);
        free(keep);
        free(snap);
        cmd = xasprintf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
        free(cmd);
    }
}

static int trigger_event(struct ctld *ctld, enum ctld_event_type type,
                         time_t t, json_t *rec)
{
    struct ctld_event ev = {.type = type, .t = t, .trigger = rec};
    int rc = ctld_apply(ctld, &ev);

    json_decref(rec);
    return rc;
}

static json_t *trigger_rec(uint32_t id, const char *type, bool perm)
{
    json_t *o = json_pack("{s:i s:s s:i s:i s:i s:s s:b s:s}", "id", (int)id,
                          "type", type, "offset", -30, "uid", 1000, "gid",
                          1000, "user", "bob", "perm", perm, "program",
                          "/bin/true");

    if (!strcmp(type, "fini"))
        json_object_set_new(o, "job_id", json_integer(5));
    else
        json_object_set_new(o, "nodes", json_string("n[1-2]"));
    return o;
}

/* strigger's triggers: set, fired (a PERM one stays and remembers when),
 * cleared, journaled and snapshotted (a reconfig one too); bad events
 * are not applied. */
static void test_trigger_replay(void **state)
{
    struct ctld *live, *replayed, *from_snapshot;
    drv_error_t error = {{0}};
    json_t *want, *got;
    char *cmd;

    (void)state;
    assert_non_null(mkdtemp(strcpy(dir, "/tmp/test_event.XXXXXX")));
    live = ctld_open();
    assert_int_equal(trigger_event(live, CTLD_EV_TRIGGER_SET, 10,
                                   trigger_rec(1, "down", false)), 0);
    assert_int_equal(trigger_event(live, CTLD_EV_TRIGGER_SET, 10,
                                   trigger_rec(2, "fini", true)), 0);
    assert_int_equal(trigger_event(live, CTLD_EV_TRIGGER_SET, 11,
                                   trigger_rec(3, "idle", false)), 0);
    assert_int_equal(trigger_event(live, CTLD_EV_TRIGGER_SET, 11,
                                   trigger_rec(3, "up", false)), -1);
    assert_int_equal(trigger_event(live, CTLD_EV_TRIGGER_SET, 11,
                                   trigger_rec(4, "fail", false)), -1);
    assert_int_equal(trigger_event(live, CTLD_EV_TRIGGER_SET, 12,
                                   trigger_rec(4, "reconfig", true)), 0);
    assert_int_equal(trigger_event(live, CTLD_EV_TRIGGER_FIRED, 20,
                                   json_pack("{s:i}", "id", 1)), 0);
    assert_int_equal(trigger_event(live, CTLD_EV_TRIGGER_FIRED, 21,
                                   json_pack("{s:i}", "id", 2)), 0);
    assert_int_equal(trigger_event(live, CTLD_EV_TRIGGER_FIRED, 22,
                                   json_pack("{s:i}", "id", 9)), -1);
    assert_int_equal(trigger_event(live, CTLD_EV_TRIGGER_CLEARED, 23,
                                   json_pack("{s:[i]}", "ids", 3)), 0);
    assert_int_equal(trigger_event(live, CTLD_EV_TRIGGER_CLEARED, 23,
                                   json_pack("{s:[i]}", "ids", 3)), -1);
    assert_non_null(trigger_list(live));
    assert_int_equal(trigger_list(live)->id, 2);
    assert_int_equal(trigger_list(live)->fired_at, 21);
    assert_non_null(trigger_list(live)->next);
    assert_int_equal(trigger_list(live)->next->type, TRIGGER_RECONFIG);
    assert_null(trigger_list(live)->next->next);
    assert_int_equal(trigger_next_id(live), 5);
    assert_int_equal(journal_flush(live->journal), 0);

    want = trigger_snapshot(live);
    replayed = ctld_open();
    if (state_restore(replayed, &error) < 0)
        fail_msg("restore: %s", error.text);
    got = trigger_snapshot(replayed);
    assert_true(json_equal(want, got));
    json_decref(got);
    assert_int_equal(state_snapshot(replayed), 0);
    from_snapshot = ctld_open();
    if (state_restore(from_snapshot, &error) < 0)
        fail_msg("restore from snapshot: %s", error.text);
    got = trigger_snapshot(from_snapshot);
    assert_true(json_equal(want, got));
    json_decref(got);
    json_decref(want);
    ctld_close(live);
    ctld_close(replayed);
    ctld_close(from_snapshot);
    cmd = xasprintf("rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(cmd);
}

/* A step's change is a record of that step: the journal grows by about
 * the same bytes for the 1,000th step as for the 10th (not by the job's
 * whole list of steps), and so does the job's accounting record. */
/* A controller over a fresh journal in 'dir' whose job 1 runs (*m: its
 * model, at time 1,700,000,000); end with one_job_done(). */
static struct ctld *one_job_running(struct model **m)
{
    struct ctld *ctld;

    assert_non_null(mkdtemp(strcpy(dir, "/tmp/test_event.XXXXXX")));
    *m = xzalloc(sizeof(**m));
    (*m)->next_id = 1;
    (*m)->t = 1700000000;
    ctld = ctld_open();
    ev_submit(ctld, *m);
    while ((*m)->jobs[1].state != M_RUNNING)
        ev_start(ctld, *m);
    return ctld;
}

static void one_job_done(struct ctld *ctld, struct model *m)
{
    char *cmd = xasprintf("rm -rf '%s'", dir);

    ctld_close(ctld);
    free(m);
    assert_int_equal(system(cmd), 0);
    free(cmd);
}

static void test_step_records_linear(void **state)
{
    struct model *m;
    struct ctld *ctld = one_job_running(&m);
    struct job *job = ctld_job_find(ctld, 1);
    off_t size[3] = {0};
    char *path;
    FILE *f;

    (void)state;
    path = xasprintf("%s/journal", dir);
    for (uint32_t k = 0; k < 1000; k++) {
        struct job_step *s = job_step_create(job->next_step_id++, "true",
                                             job->nodes, m->t);
        apply(ctld, m, (struct ctld_event){
                           .type = CTLD_EV_STEP_STARTED, .job_id = 1,
                           .step = s});
        json_t *r = json_pack("{s:i}", "status", 0);
        apply(ctld, m, (struct ctld_event){
                           .type = CTLD_EV_STEP_REPORTED, .job_id = 1,
                           .step_id = s->id, .node = job->nodes,
                           .report = r});
        json_decref(r);
        /* its accounting record carries this step alone (the batch step
         * too, the first time): droverdbd keeps the others */
        json_t *rec = acct_record_build(ctld, job);
        json_t *steps = json_object_get(rec, "steps");
        assert_int_equal(json_array_size(steps), k == 0 ? 2 : 1);
        assert_int_equal(json_integer_value(json_object_get(
                             json_array_get(steps, k == 0 ? 1 : 0),
                             "step_id")),
                         s->id);
        json_decref(rec);
        if (k == 9 || k == 10 || k == 999) {
            assert_int_equal(journal_flush(ctld->journal), 0);
            assert_non_null(f = fopen(path, "r"));
            fseeko(f, 0, SEEK_END);
            size[k == 9 ? 0 : k == 10 ? 1 : 2] = ftello(f);
            fclose(f);
        }
    }
    /* the 11th step's records vs the average of the last 989 */
    off_t one = size[1] - size[0];
    off_t avg = (size[2] - size[1]) / 989;
    assert_true(avg <= one + 16);
    assert_int_equal(job_step_find(job, 999)->state, JOB_COMPLETED);
    /* the job ends with one step running: its record carries that step
     * and the batch step, not the 1,000 that ended before */
    m->t += 10;
    struct job_step *last = job_step_create(job->next_step_id++, "sleep",
                                            job->nodes, m->t);
    apply(ctld, m, (struct ctld_event){
                       .type = CTLD_EV_STEP_STARTED, .job_id = 1,
                       .step = last});
    json_decref(acct_record_build(ctld, job));
    m->t += 10;
    apply(ctld, m, (struct ctld_event){.type = CTLD_EV_JOB_ENDED,
                                       .job_id = 1, .state = JOB_COMPLETED});
    json_t *ended = acct_record_build(ctld, job);
    assert_int_equal(json_array_size(json_object_get(ended, "steps")), 2);
    json_decref(ended);
    /* a record after a restart carries them all */
    job_steps_acct_dirty(job, 0);
    json_t *rec = acct_record_build(ctld, job);
    assert_int_equal(json_array_size(json_object_get(rec, "steps")), 1002);
    json_decref(rec);
    rec = acct_record_build(ctld, job);
    assert_int_equal(json_array_size(json_object_get(rec, "steps")), 0);
    json_decref(rec);
    free(path);
    one_job_done(ctld, m);
}

/* A job cancelled in one second and ended in the next: its steps end at
 * the cancel's time, and its accounting record still carries them (the
 * batch step CANCELLED), not only the steps that ended in the later
 * second.  CI once saw the batch step left RUNNING in sacct so. */
static void test_cancel_across_a_second(void **state)
{
    struct model *m;
    struct ctld *ctld = one_job_running(&m);
    struct job *job = ctld_job_find(ctld, 1);

    (void)state;
    json_decref(acct_record_build(ctld, job)); /* the start's record */
    m->t += 5;
    apply(ctld, m, (struct ctld_event){.type = CTLD_EV_JOB_CANCELLED,
                                       .job_id = 1, .by = 0});
    json_decref(acct_record_build(ctld, job)); /* the cancel's record */
    m->t += 1;
    apply(ctld, m, (struct ctld_event){.type = CTLD_EV_JOB_ENDED,
                                       .job_id = 1, .state = JOB_CANCELLED,
                                       .status = SIGTERM});
    json_t *rec = acct_record_build(ctld, job);
    json_t *steps = json_object_get(rec, "steps");
    assert_int_equal(json_array_size(steps), 1);
    json_t *batch = json_array_get(steps, 0);
    assert_int_equal(json_integer_value(json_object_get(batch, "step_id")),
                     STEP_ID_BATCH);
    assert_string_equal(json_string_value(json_object_get(batch, "state")),
                        "CANCELLED");
    json_decref(rec);
    one_job_done(ctld, m);
}

static int count_record(json_t *rec, void *arg, drv_error_t *error)
{
    (void)rec;
    (void)error;
    ++*(int *)arg;
    return 0;
}

/* Two journals flushed together both hold their records; one with
 * nothing queued is left alone. */
static void test_flush_together(void **state)
{
    char dirs[3][32];
    struct journal *js[3];
    int err[3], n;
    drv_error_t error = {{0}};

    (void)state;
    for (int i = 0; i < 3; i++) {
        strcpy(dirs[i], "/tmp/test_journal.XXXXXX");
        assert_non_null(mkdtemp(dirs[i]));
        assert_non_null(js[i] = journal_open(dirs[i], &error));
    }
    for (int k = 0; k < 5; k++) {
        json_t *rec = json_pack("{s:i}", "k", k);
        assert_int_equal(journal_append(js[0], rec), 0);
        if (k % 2)
            assert_int_equal(journal_append(js[2], rec), 0);
        json_decref(rec);
    }
    journal_flush_together(js, 3, err);
    assert_int_equal(err[0] | err[1] | err[2], 0);
    assert_false(journal_dirty(js[0]) || journal_dirty(js[2]));
    for (int i = 0; i < 3; i++) {
        char *cmd = xasprintf("rm -rf '%s'", dirs[i]);
        journal_close(js[i]);
        assert_non_null(js[i] = journal_open(dirs[i], &error));
        n = 0;
        assert_int_equal(journal_replay(js[i],
                                        &(struct journal_replay_cb){
                                            .record = count_record, .arg = &n},
                                        &error), 0);
        assert_int_equal(n, i == 0 ? 5 : i == 2 ? 2 : 0);
        journal_close(js[i]);
        assert_int_equal(system(cmd), 0);
        free(cmd);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flush_together),
        cmocka_unit_test(test_random_replay),
        cmocka_unit_test(test_async_snapshot),
        cmocka_unit_test(test_step_records_linear),
        cmocka_unit_test(test_cancel_across_a_second),
        cmocka_unit_test(test_trigger_replay),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
