/* SPDX-License-Identifier: Apache-2.0
 *
 * scheduler.c - runs the pure core (src/sched) over the controller's tables
 * and launches what it starts
 *
 * A pass is requested by every event that can start a job (submission,
 * completion, release, node change) and coalesced into one pass per loop
 * iteration, so a job starts within a loop turn of its resources freeing.
 * A pass over a long queue costs milliseconds; the next one then waits
 * SCHED_LOAD_FACTOR times its cost, so passes take at most a tenth of the
 * controller's time and a submitter's rate does not fall as the queue
 * grows (Slurm bounds its event-triggered passes by default_queue_depth
 * instead).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/stats.h"
#include "ctld/depend.h"
#include "ctld/enforce.h"
#include "ctld/job_info.h"
#include "ctld/gang.h"
#include "ctld/preempt.h"
#include "conf/conf_sched_node.h"
#include "ctld/priority.h"
#include "ctld/prolog_ctld.h"
#include "ctld/prolog_env.h"
#include "ctld/resv.h"
#include "ctld/step.h"
#include "ctld/submit_check.h"
#include "proto/client.h"

/* After a pass of cost C, the next starts no sooner than this many C
 * after it ended. */
#define SCHED_LOAD_FACTOR 9
/* A pass ends once it has started its cap of jobs (sched_pass_opts
 * max_starts); the rest start in the next, one loop turn later, so the
 * requests that arrived meanwhile (node reports, completions) are answered
 * between them instead of after a pass that launched a whole cluster's
 * worth of jobs (bench/complete_latency), and a pass costs what it starts,
 * not a plan of the whole queue (300 ms at 10,000 nodes and 20,000 jobs
 * that all fit: bench/storm).  The cap starts at SCHED_MAX_STARTS; after a
 * pass that reached it, it doubles when the pass took less than
 * SCHED_TURN_TARGET_NS, and halves when it took more than twice that, so
 * a pass's cost settles between the two whatever its fixed part (the
 * queue and the running jobs walked whatever it starts).  The cost here is
 * the larger of the pass's CPU and wall time: the loop answers nobody for
 * the wall time, and on a machine the controller shares (two cores with
 * 10,000 emulated nodes: bench/storm) that is several times the CPU (never below
 * SCHED_MAX_STARTS, never above SCHED_START_CAP_MAX or SchedulerParameters
 * bf_max_job_start). */
#define SCHED_MAX_STARTS 16
#define SCHED_START_CAP_MAX 4096
/* 10 ms: with a pass's other parts of a turn (registrations, a listing's
 * share) and a loaded machine's wall time, a turn stays under issue 18's
 * 50 ms (bench/storm, bench/scale); 20 ms gave 66-80 ms turns. */
#define SCHED_TURN_TARGET_NS 10000000ull
/* A pass makes no more starts once it has run this long (wall time): the
 * starts it decided beyond are dropped and the next pass, one loop turn
 * later, makes them, as Slurm's max_sched_time ends its scheduling loop.
 * The start cap fits a pass's cost to the last passes'; this bounds the
 * pass whose cost jumps (a machine the controller shares: a pass of 55-76
 * ms wall, 27-43 ms CPU, in bench/scale's launch storm), so that a turn
 * stays under issue 18's 50 ms.  Only the prefix of the starts in queue
 * order is made, so no start made delays one decided before it; the
 * first SCHED_MAX_STARTS are always made, so that a pass that took its
 * time deciding (a sanitizer build, a deep queue) still starts jobs. */
#define SCHED_PASS_WALL_MAX_NS 20000000ull
/* The launches waiting for their MUNGE credential (proto_call_minting():
 * minted on the thread pool, about 200 us each) a pass may leave: it
 * starts no more jobs than the room below this, and runs only with half
 * of it free (else it waits SCHED_BACKLOG_WAIT_MS and looks again): a
 * pass's fixed cost (the queue, the running jobs) is then shared by many
 * starts (with any room, passes of a few starts each took four times the
 * CPU).  Unbounded, a launch storm queued 40,000 launches (350 MB) faster
 * than munged minted them, and the nodes registering meanwhile were found
 * without jobs whose launch had not reached them in 5 s (rpc_node.c,
 * reconcile()). */
#define SCHED_LAUNCH_BACKLOG 128
#define SCHED_BACKLOG_WAIT_MS 2
/* Below this wait (ns), the next pass runs on the next loop turn. */
#define SCHED_MIN_WAIT_NS 1000000ull

/* The controller's CPU time in ns: a pass's cost is what it computed,
 * not how long a busy machine kept it from running. */
static uint64_t cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The cap of the next pass after one that reached its cap and cost
 * 'cost_ns' (SCHED_MAX_STARTS above). */
static uint32_t start_cap_fit(uint32_t cap, uint64_t cost_ns)
{
    if (cost_ns < SCHED_TURN_TARGET_NS && cap < SCHED_START_CAP_MAX)
        return cap * 2;
    if (cost_ns > 2 * SCHED_TURN_TARGET_NS && cap > SCHED_MAX_STARTS)
        return cap / 2;
    return cap;
}

/* Starts the launches waiting for credentials leave room for. */
static uint32_t launch_room(void)
{
    size_t backlog = proto_call_minting();

    return backlog < SCHED_LAUNCH_BACKLOG
               ? (uint32_t)(SCHED_LAUNCH_BACKLOG - backlog)
               : 0;
}

static void sched_timer_cb(uv_timer_t *t)
{
    struct ctld *ctld = t->data;
    uint64_t start = cpu_ns(), began = uv_hrtime(), wall_ns;

    if (launch_room() < SCHED_LAUNCH_BACKLOG / 2) { /* launches mint */
        uv_timer_start(&ctld->sched_timer, sched_timer_cb,
                       SCHED_BACKLOG_WAIT_MS, 0);
        return;
    }
    scheduler_run(ctld);
    ctld->sched_last_cost_ns = cpu_ns() - start;
    ctld->sched_last_end_ns = uv_hrtime();
    wall_ns = ctld->sched_last_end_ns - began;
    stats_turn_part(ctld, "scheduling pass", began);
    if (ctld->sched_more)
        ctld->sched_start_cap = start_cap_fit(
            ctld->sched_start_cap ? ctld->sched_start_cap : SCHED_MAX_STARTS,
            wall_ns > ctld->sched_last_cost_ns ? wall_ns
                                               : ctld->sched_last_cost_ns);
}

/* The pass's max_starts: the fitted cap, within bf_max_job_start and the
 * launches' room (never none: a pass runs only with room). */
static uint32_t start_cap(const struct ctld *ctld)
{
    uint32_t cap = ctld->sched_start_cap ? ctld->sched_start_cap
                                         : SCHED_MAX_STARTS;
    uint32_t most = ctld->conf->sched.bf_max_job_start, room = launch_room();

    if (most && most < cap)
        cap = most;
    return room && room < cap ? room : cap;
}

/* Milliseconds until the next pass may start. */
static uint64_t sched_wait_ms(const struct ctld *ctld)
{
    uint64_t next = ctld->sched_last_end_ns
                    + SCHED_LOAD_FACTOR * ctld->sched_last_cost_ns;
    uint64_t now = uv_hrtime();

    if (ctld->sched_more || next <= now || next - now < SCHED_MIN_WAIT_NS)
        return 0;
    return (next - now + 999999) / 1000000;
}

/* The pass is armed from the journal flush (ctld_flush_cb), so it only
 * ever sees state that is on disk: a submission whose record could not be
 * written is withdrawn before any pass could start it. */
void scheduler_request(struct ctld *ctld)
{
    ctld->sched_pending = true;
}

void scheduler_arm(struct ctld *ctld)
{
    if (ctld->sched_pending
        && !uv_is_active((uv_handle_t *)&ctld->sched_timer))
        uv_timer_start(&ctld->sched_timer, sched_timer_cb,
                       sched_wait_ms(ctld), 0);
    ctld->sched_pending = false;
}

static bool job_is_eligible(const struct job *job, time_t now)
{
    if (job->state != JOB_PENDING || job->hold || job->priority == 0)
        return false;
    if (job->reason == JOB_REASON_PART_NODE_LIMIT
        || job->reason == JOB_REASON_PART_TIME_LIMIT
        || job->reason == JOB_REASON_PN_MEM_LIMIT)
        return false;
    return job->eligible_time <= now;
}

/* Seconds before a launch refused for a run still ending is retried. */
#define LAUNCH_RETRY_S 2

struct launch_ctx {
    struct ctld *ctld;
    uint32_t job_id;
    uint32_t run_id;
    long node;
};

/* Prolog= failed on node 'node' for 'job' (requeued): the node drains
 * with Slurm's "Prolog error" and the job stays pending, held, with
 * Slurm's reason "launch failed requeued held" until released. */
static void prolog_failed(struct ctld *ctld, long node, struct job *job,
                          time_t now)
{
    struct ctld_event held = {.type = CTLD_EV_JOB_HELD, .t = now,
                              .job_id = job->id, .hold = true, .admin = true,
                              .launch_failed = true};

    ctld_node_drain_error(ctld, node, "Prolog error");
    ctld_apply(ctld, &held);
}

static void launch_done(int errnum, const char *errstr, json_t *resp,
                        void *arg)
{
    struct launch_ctx *lc = arg;
    struct ctld *ctld = lc->ctld;
    struct job *job = ctld_job_find(ctld, lc->job_id);

    (void)resp;
    if (errnum && job && job->alloc && job->run_id == lc->run_id) {
        struct ctld_node *n = &ctld->nodes->info[lc->node];
        log_error("JobId=%u: launch on %s failed: %s; requeued", job->id,
                  n->conf->name, errstr ? errstr : drv_strerror(errnum));
        if (errnum == ECONNREFUSED || errnum == ETIMEDOUT
            || errnum == EDRV_COMMUNICATIONS_CONNECTION) {
            n->responding = false;
            node_table_update_avail(ctld->nodes, (size_t)lc->node);
        }
        /* A launch that never ran is not a restart.  An earlier run still
         * ending there: try again a little later rather than at once. */
        time_t now = ctld_now(ctld);
        ctld_job_requeue(ctld, job, now,
                         errnum == EDRV_DUPLICATE_JOB_ID
                             ? now + LAUNCH_RETRY_S
                             : now,
                         false);
        if (errnum == EDRV_PROLOG_FAILED) /* as Slurm: drained, held */
            prolog_failed(ctld, lc->node, job, now);
    }
    free(lc);
}

void scheduler_launch(struct ctld *ctld, struct job *job)
{
    long node = job->alloc->node_idx[0];
    const struct conf_node *cn = ctld->nodes->info[node].conf;
    json_t *o = job_info_json(ctld, job, ctld_now(ctld)), *penv;
    struct launch_ctx *lc = xzalloc(sizeof(*lc));
    int timeout_ms;

    json_object_set_new(o, "launch", launch_store_unpack(job->launch));
    json_object_set_new(o, "kill_wait_s",
                        json_integer(ctld->conf->kill_wait_s));
    json_object_set_new(o, "over_time_s",
                        json_integer(ctld_job_over_time_s(ctld, job)));
    if (job->mps_per_node) /* for the batch node, entry 0 */
        json_object_set_new(o, "mps_percent", json_integer(
                                job_info_mps_percent(ctld, job, 0)));
    json_object_set_new(o, "cluster_name",
                        json_string(ctld->conf->cluster_name
                                        ? ctld->conf->cluster_name
                                        : "cluster"));
    if ((penv = prolog_env_json(ctld, job, 0)))
        json_object_set_new(o, "prolog_env", penv);
    /* with a Prolog= the node answers once it ended */
    timeout_ms = penv && ctld->conf->prolog
                     ? prolog_answer_timeout_ms(ctld->conf)
                     : (int)ctld->conf->msg_timeout_s * 1000;
    lc->ctld = ctld;
    lc->job_id = job->id;
    lc->run_id = job->run_id;
    lc->node = node;
    if (proto_call_async(ctld->loop, cn->addr, cn->port, ctld->auth,
                         "batch_launch", json_pack("{s:o}", "job", o),
                         timeout_ms, launch_done, lc)
        < 0) {
        log_err("JobId=%u: batch_launch", job->id);
        launch_done(errno, NULL, NULL, lc);
    }
}

/* The pass counted 'alloc' on the nodes as it chose it; the job_started
 * event counts it from now on. */
static void job_start(struct ctld *ctld, struct job *job,
                      struct sched_alloc *alloc, time_t now)
{
    struct ctld_event ev = {.type = CTLD_EV_JOB_STARTED,
                            .t = now,
                            .job_id = job->id,
                            .alloc = alloc,
                            .configuring = prolog_ctld_wanted(ctld)};

    if (sched_alloc_release(ctld->nodes->sched, ctld->nodes->count, alloc)
            < 0
        || ctld_apply(ctld, &ev) < 0)
        return;
    log_info("sched: Allocate JobId=%u NodeList=%s #CPUs=%u", job->id,
             job->nodes, job->alloc->cpus[0]);
    if (job->configuring) /* launched once PrologSlurmctld passed */
        prolog_ctld_start(ctld, job);
    else if (!job->interactive) /* salloc/srun: the allocation is all */
        scheduler_launch(ctld, job);
}

/* A start not made after all: the nodes' usage the pass counted goes;
 * the allocation is freed with the decision. */
static void decision_drop(struct ctld *ctld, struct sched_decision *d)
{
    if (d->alloc
        && sched_alloc_release(ctld->nodes->sched, ctld->nodes->count,
                               d->alloc)
               < 0)
        log_err("sched: releasing an allocation not started");
}

static void apply_decision(struct ctld *ctld, struct job *job,
                           struct sched_decision *d, enum job_reason held,
                           int64_t planned_s, time_t now)
{
    switch (d->action) {
    case SCHED_ACT_START: {
        struct job *master = array_is_master(job) ? job : NULL;
        if (job->state != JOB_PENDING
            || (master && !(job = array_start_next(ctld, job)))) {
            decision_drop(ctld, d);
            break;
        }
        job_start(ctld, job, d->alloc, now);
        d->alloc = NULL;
        job->first_plan = 0;
        job->plan_s = planned_s > 0 && planned_s != job->time_limit_s
                          ? (uint32_t)planned_s : 0;
        /* Its throttle reached: JobArrayTaskLimit now, not at the next
         * pass. */
        if (master && array_is_master(master))
            depend_gate(ctld, master, now);
        break;
    }
    case SCHED_ACT_WAIT:
        if (job->state != JOB_PENDING)
            break; /* an array's last task started by an earlier entry */
        if (d->reason == SCHED_REASON_LIMIT) {
            job->reason = held;
            job->sched_start_time = 0;
            free(job->sched_nodes);
            job->sched_nodes = NULL;
            break;
        }
        job->sched_start_time = d->start_time > 0 ? (time_t)d->start_time : 0;
        if (d->start_time > 0 && !job->first_plan)
            job->first_plan = (uint32_t)d->start_time;
        free(job->sched_nodes);
        job->sched_nodes = d->alloc ? node_table_alloc_hostlist(ctld->nodes,
                                                                d->alloc)
                                    : NULL;
        job->reason = d->reason == SCHED_REASON_PRIORITY
                          ? JOB_REASON_PRIORITY
                          : JOB_REASON_RESOURCES;
        if (submit_req_node_unavail(job, ctld->nodes))
            job->reason = JOB_REASON_NODE_NOT_AVAIL;
        break;
    case SCHED_ACT_NEVER:
        job->reason = JOB_REASON_NODE_NOT_AVAIL;
        break;
    case SCHED_ACT_LATER: /* the next pass takes it (start_cap) */
        ctld->sched_more = true;
        break;
    }
}

/* How many times array master 'job' enters this pass: once per pending
 * task that could start now, bounded by the free CPUs of the available
 * nodes (a task takes at least one), by the pass's start cap and by its
 * throttle, so that one pass starts many tasks rather than one
 * (bench/array_drain); at least once, so that, when none can start, its
 * next task is planned (as Slurm plans a pending array as one job).
 * More entries would only plan more tasks of the same request, and cost a
 * deep queue its sort (100,000 queued tasks on 10,000 nodes: bench/scale).
 */
static size_t array_entries(struct ctld *ctld, const struct job *job,
                            size_t bound)
{
    size_t n = bitmap_count(job->array->pending), running;

    if (n > bound)
        n = bound;
    if (job->array->throttle) {
        running = array_running(ctld, job->array->job_id);
        running = running < job->array->throttle
                      ? job->array->throttle - running : 0;
        if (n > running)
            n = running;
    }
    return n ? n : 1;
}

/* The free CPUs of the available nodes, each counted 'oversub' times (a
 * job's OverSubscribe), at most the pass's start cap (array_entries()). */
static size_t entries_bound(const struct ctld *ctld, uint32_t oversub)
{
    size_t cpus = 0, cap = start_cap(ctld);

    for (size_t i = 0; i < ctld->nodes->count && cpus < cap; i++) {
        const struct sched_node *n = &ctld->nodes->sched[i];
        uint64_t room = (uint64_t)n->cpus * (oversub ? oversub : 1);
        if (n->available && room > n->alloc_cpus)
            cpus += room - n->alloc_cpus;
    }
    return cpus < cap ? cpus : cap;
}

static void add_pending(struct ctld *ctld, struct job *job, size_t bound,
                        struct job ***pend, size_t *np, size_t *cap)
{
    uint32_t oversub;
    size_t k = 1;

    if (array_is_master(job)) {
        oversub = ctld_job_oversubscribe(ctld, job);
        k = array_entries(ctld, job, oversub > 1 ? entries_bound(ctld, oversub)
                                                 : bound);
    }

    if (*np + k > *cap) {
        *cap = (*np + k) * 2;
        if (!(*pend = realloc(*pend, sizeof(**pend) * *cap)))
            abort();
    }
    while (k--)
        (*pend)[(*np)++] = job;
}

/* Whether the pass plans with predictions (backfill.h). */
static bool predicting(const struct ctld *ctld)
{
    return conf_sched_predicting(ctld->conf);
}

struct running_acc {
    struct sched_job *run;
    size_t n;
    bool predict;
    time_t now;
};

static void add_running_job(struct job *job, void *arg)
{
    struct running_acc *acc = arg;

    if (job->preempt_suspended)
        return;
    acc->run[acc->n++] = (struct sched_job){
        .id = job->id,
        .time_limit_s = acc->predict
                            ? sched_predict_running(job->plan_s,
                                                    job->time_limit_s,
                                                    job->start_time, acc->now)
                            : job->time_limit_s,
        .start_time = job->start_time,
        .alloc = job->alloc,
    };
}

/* The running jobs (anything holding an allocation), but those
 * suspended by preemption: their memory and GPUs stay, with no planned
 * end; each until its planned time (a prediction, while it holds) or its
 * limit.  *run is allocated (room for every job, only *nr written: not
 * cleared, a pass of 100,000 jobs spent 2-4% in memset); the caller
 * frees it. */
static void collect_running(struct ctld *ctld, time_t now,
                            struct sched_job **run, size_t *nr)
{
    size_t room = HASH_COUNT(ctld->jobs) + 1;
    struct running_acc acc = {
        .run = xrealloc(NULL, sizeof(*acc.run) * room),
        .predict = predicting(ctld),
        .now = now,
    };

    ctld_running_each(ctld, add_running_job, &acc);
    *run = acc.run;
    *nr = acc.n;
}

/* Does its partition hold eligible 'job' back?  State=DOWN or INACTIVE
 * (or a partition since deleted): it waits with Slurm's PartitionDown or
 * PartitionInactive, judged each pass, so State=UP frees it at once. */
static bool part_holds(struct ctld *ctld, struct job *job)
{
    struct ctld_partition *part =
        node_table_partition(ctld->nodes, job->partition);

    if (part && ctld_part_runs_jobs(part)) {
        if (job->reason == JOB_REASON_PART_DOWN
            || job->reason == JOB_REASON_PART_INACTIVE)
            job->reason = JOB_REASON_NONE;
        return false;
    }
    job->reason = part && !strcmp(part->conf->state, "INACTIVE")
                      ? JOB_REASON_PART_INACTIVE
                      : JOB_REASON_PART_DOWN;
    job->sched_start_time = 0;
    return true;
}

/* The eligible pending jobs, highest priority first; an array master once
 * per task it may start (array_entries()). */
static void collect_pending(struct ctld *ctld, time_t now, struct job ***pend,
                            size_t *np)
{
    size_t cap = 64, cpus = entries_bound(ctld, 1); /* add_pending grows */

    *pend = xzalloc(sizeof(**pend) * cap);
    *np = 0;
    for (struct job *job = ctld_waiting_first(ctld); job;
         job = ctld_waiting_next(ctld, job)) {
        if (job->state == JOB_PENDING && depend_gate(ctld, job, now))
            continue; /* dependency or array throttle: reason set */
        if (job_is_eligible(job, now) && !part_holds(ctld, job))
            add_pending(ctld, job, cpus, pend, np, &cap);
    }
    qsort_r(*pend, *np, sizeof(**pend), ctld_job_order, ctld);
}

/* The reason of a waiting job the reservations concern: its own is not
 * active (Reservation), or nodes it asked for (-w) are reserved over its
 * run from now (also by one that has not begun, which the pass plans
 * around as a hold). */
static void resv_reason(struct ctld *ctld, struct job *job, time_t now)
{
    const bitmap_t *want = job->place.req_bm;
    struct ctld_partition *part =
        node_table_partition(ctld->nodes, job->partition);
    bool waits;
    bitmap_t *may;

    if (job->state != JOB_PENDING
        || !(may = resv_job_nodes(ctld, job, part ? part->nodes : NULL, now,
                                  &waits)))
        return;
    if (waits)
        job->reason = JOB_REASON_RESERVATION;
    for (size_t i = 0; !waits && want && i < ctld->nodes->count; i++)
        if (bitmap_test(want, i) && !bitmap_test(may, i)) {
            job->reason = JOB_REASON_RESV_NODES;
            break;
        }
    bitmap_destroy(may);
}

/* A job waiting for resources that a maintenance reservation holds some
 * of (Slurm's "ReqNodeNotAvail, Reserved for maintenance"). */
static void maint_reason(struct ctld *ctld, struct job *job, time_t now)
{
    struct ctld_partition *part =
        node_table_partition(ctld->nodes, job->partition);

    if (job->state == JOB_PENDING && job->reason == JOB_REASON_RESOURCES
        && !job->reservation
        && resv_maint_in_way(ctld, job, part ? part->nodes : NULL, now))
        job->reason = JOB_REASON_RESV_MAINT;
}

/* SchedulerParameters bf_max_job_user/_part: the pass considers at most
 * that many jobs of a user, of a partition, the first in the queue's
 * order; the others wait for a later pass, keeping their reason.
 * Compacts pend[0..*np).  (bf_max_job_test and bf_window are the pass's
 * own reserve_depth and window_s.) */
struct depth_count {
    uintptr_t key;
    uint32_t n;
    UT_hash_handle hh;
};

static bool over(struct depth_count **tab, uintptr_t key, uint32_t max)
{
    struct depth_count *c = NULL;

    if (!max)
        return false;
    HASH_FIND(hh, *tab, &key, sizeof(key), c);
    if (!c) {
        c = xzalloc(sizeof(*c));
        c->key = key;
        HASH_ADD(hh, *tab, key, sizeof(c->key), c);
    }
    return ++c->n > max;
}

static void depth_limits(struct ctld *ctld, struct job **pend, size_t *np)
{
    const struct conf_sched *s = &ctld->conf->sched;
    struct depth_count *users = NULL, *parts = NULL, *c, *tmp;
    size_t k = 0;

    if (!s->bf_max_job_user && !s->bf_max_job_part)
        return;
    for (size_t i = 0; i < *np; i++) {
        if (over(&users, pend[i]->uid, s->bf_max_job_user)
            || over(&parts, (uintptr_t)pend[i]->partition,
                    s->bf_max_job_part))
            continue;
        pend[k++] = pend[i];
    }
    *np = k;
    HASH_ITER(hh, users, c, tmp) {
        HASH_DEL(users, c);
        free(c);
    }
    HASH_ITER(hh, parts, c, tmp) {
        HASH_DEL(parts, c);
        free(c);
    }
}

/* Slurm's PLANNED node state: the nodes of the planned starts of a run's
 * waiting jobs (none for a job held by a limit); planned_clear() at the
 * start of a run, mark_planned() after each pass. */
static void planned_clear(struct ctld *ctld)
{
    if (!ctld->planned_nodes)
        ctld->planned_nodes =
            bitmap_create(ctld->nodes->count ? ctld->nodes->count : 1);
    bitmap_clear_all(ctld->planned_nodes);
}

static void mark_planned(struct ctld *ctld, const struct sched_decision *dec,
                         size_t np)
{
    for (size_t i = 0; i < np; i++) {
        const struct sched_alloc *a = dec[i].alloc;
        if (dec[i].action != SCHED_ACT_WAIT || !a
            || dec[i].reason == SCHED_REASON_LIMIT)
            continue;
        for (uint32_t k = 0; k < a->node_count; k++)
            bitmap_set(ctld->planned_nodes, a->node_idx[k]);
    }
}

void scheduler_opts(struct ctld *ctld, const struct resv *except,
                    time_t now, struct sched_pass_opts *opts)
{
    conf_sched_pass_opts(ctld->conf, opts);
    /* reservations: planned around (resv.h) */
    opts->holds = resv_holds(ctld, except, now, &opts->nholds);
}

/* What a scheduling run carries from one pass to the next. */
struct run_state {
    time_t now;
    uint64_t began_ns; /* uv_hrtime() at its start */
    size_t dropped;    /* starts left to the next pass: out of time */
    size_t considered, starts, backfilled;
    bool waiting; /* a job of higher priority waits (a later start is
                   * backfilled) */
    bool blocked; /* sched/builtin: a job ahead waits for resources */
    bool builtin;
};

/* Each job's nodes for the pass of 'r' (NULL: the general one) into its
 * request, and its node list resolved again; *pj the pass's entries. */
static void pass_prepare(struct ctld *ctld, const struct resv *r,
                         struct job **pend, size_t np, struct sched_job *pj,
                         bitmap_t **own)
{
    for (size_t i = 0; i < np; i++) {
        struct ctld_partition *part;
        if (!r && i > 0 && pend[i] == pend[i - 1]) {
            pj[i] = pj[i - 1]; /* an array's entries: prepared once */
            continue;
        }
        part = node_table_partition(ctld->nodes, pend[i]->partition);
        pend[i]->req.allowed_nodes = part ? part->nodes : NULL;
        pend[i]->req.max_cpus_per_node = ctld_part_cpu_cap(part);
        pend[i]->req.oversubscribe = ctld_job_oversubscribe(ctld, pend[i]);
        if (r && (own[i] = resv_pass_nodes(ctld, r, pend[i],
                                           pend[i]->req.allowed_nodes)))
            pend[i]->req.allowed_nodes = own[i];
        if ((i == 0 || pend[i] != pend[i - 1]) /* array entries: once */
            && job_place_resolve(&pend[i]->place, &pend[i]->req,
                                 ctld->nodes, NULL) < 0)
            log_error("JobId=%u: node list no longer valid", pend[i]->id);
        pj[i] = (struct sched_job){
            .id = pend[i]->id,
            .req = &pend[i]->req,
            .time_limit_s = pend[i]->time_limit_s,
        };
    }
}

/* The slip guard (backfill.h): a waiting job's planned start has slipped
 * more than SCHED_SLIP_GUARD_S past the first one planned for it. */
static bool slipped(struct job **pend, size_t np, time_t now)
{
    for (size_t i = 0; i < np; i++)
        if (pend[i]->first_plan
            && now > (time_t)pend[i]->first_plan + SCHED_SLIP_GUARD_S)
            return true;
    return false;
}

/* Permute a[0..n) (elements of 'size' bytes): a[i] = old a[order[i]],
 * or with 'back' the inverse, a[order[i]] = old a[i]. */
static void permute(void *a, size_t size, size_t n, const uint32_t *order,
                    bool back)
{
    char *tmp = xzalloc(size * (n + 1)), *v = a;

    for (size_t i = 0; i < n; i++)
        memcpy(back ? tmp + size * order[i] : tmp + size * i,
               back ? v + size * i : v + size * order[i], size);
    memcpy(a, tmp, size * n);
    free(tmp);
}

/* drover_backfill=predict (backfill.h): each job's planned time, then the
 * pass's order, pend and pj permuted alike, its leads the only jobs
 * reserved for.  Returns the order (caller frees; unorder() puts the
 * queue back in priority order). */
static uint32_t *predict_order(struct ctld *ctld, struct job **pend,
                               struct sched_job *pj, size_t np, time_t now,
                               struct sched_pass_opts *opts)
{
    bool guard = slipped(pend, np, now);
    int64_t *waited = xzalloc(sizeof(*waited) * (np + 1));
    uint64_t *class = xzalloc(sizeof(*class) * (np + 1));
    uint32_t *order = xzalloc(sizeof(*order) * (np + 1));
    long lead;

    for (size_t i = 0; i < np; i++) {
        time_t since = pend[i]->eligible_time ? pend[i]->eligible_time
                                              : pend[i]->submit_time;
        if (!guard)
            pj[i].time_limit_s = sched_predict_limit(
                ctld->predict, (uint32_t)pend[i]->uid, pj[i].time_limit_s);
        waited[i] = now > since ? now - since : 0;
        class[i] = priority_class(ctld, pend[i]);
    }
    if ((lead = sched_backfill_order(pj, np, waited, class,
                                     ctld->conf->sched.bf_max_job_test,
                                     order)) < 0)
        abort(); /* ENOMEM, as xzalloc */
    permute(pend, sizeof(*pend), np, order, false);
    permute(pj, sizeof(*pj), np, order, false);
    opts->reserve_depth = (uint32_t)lead;
    opts->reserve_prefix = true;
    free(class);
    free(waited);
    return order;
}

/* Back to priority order after predict_order(): the queue and the
 * decisions (preemption goes by priority; 'own' was never reordered). */
static void unorder(const uint32_t *order, struct job **pend,
                    struct sched_decision *dec, size_t np)
{
    permute(pend, sizeof(*pend), np, order, true);
    permute(dec, sizeof(*dec), np, order, true);
}

/* The decisions of a pass, in order: starts (at most start_cap(); under
 * sched/builtin none behind a waiting job), reasons. */
static void pass_apply(struct ctld *ctld, struct job **pend,
                       const struct sched_job *pj,
                       struct sched_decision *dec, size_t np,
                       const struct enforce_pass *gate, struct run_state *st)
{
    for (size_t i = 0; i < np; i++) {
        bool start = dec[i].action == SCHED_ACT_START;
        st->blocked |= dec[i].action == SCHED_ACT_WAIT
                       && dec[i].reason != SCHED_REASON_LIMIT;
        if (start && st->builtin && st->blocked) {
            decision_drop(ctld, &dec[i]);
            if (pend[i]->state == JOB_PENDING)
                pend[i]->reason = JOB_REASON_PRIORITY;
            continue;
        }
        if (start && (st->dropped
                      || (st->starts >= SCHED_MAX_STARTS
                          && uv_hrtime() - st->began_ns
                                 > SCHED_PASS_WALL_MAX_NS))) {
            decision_drop(ctld, &dec[i]); /* the next pass's */
            st->dropped++;
            continue;
        }
        st->starts += start;
        st->backfilled += start && st->waiting;
        st->waiting |= dec[i].action == SCHED_ACT_WAIT;
        apply_decision(ctld, pend[i], &dec[i],
                       gate->held ? gate->held[i] : JOB_REASON_NONE,
                       pj[i].time_limit_s, st->now);
        if (!ctld->resvs || start || dec[i].action == SCHED_ACT_LATER)
            continue;
        if (pend[i]->reservation || pend[i]->place.req_bm)
            resv_reason(ctld, pend[i], st->now);
        maint_reason(ctld, pend[i], st->now);
    }
}

/* One sched_pass over pend[0..np) (all of the pass of reservation 'r', or
 * of the general pass when NULL), its decisions applied. */
static void pass_over(struct ctld *ctld, const struct resv *r,
                      struct job **pend, size_t np, struct run_state *st)
{
    struct sched_job *run, *pj = xzalloc(sizeof(*pj) * (np + 1));
    struct sched_decision *dec = xzalloc(sizeof(*dec) * (np + 1));
    bitmap_t **own = xzalloc(sizeof(*own) * (np + 1));
    struct sched_pass_opts opts;
    struct enforce_pass gate = {0};
    uint32_t *order = NULL;
    size_t nr;
    int rc;

    collect_running(ctld, st->now, &run, &nr);
    scheduler_opts(ctld, r, st->now, &opts);
    pass_prepare(ctld, r, pend, np, pj, own);
    if (predicting(ctld))
        order = predict_order(ctld, pend, pj, np, st->now, &opts);
    if (enforce_pass_begin(ctld, &gate, pend, np)) {
        opts.admit = enforce_admit;
        opts.started = enforce_started;
        opts.gate_arg = &gate;
    }
    opts.max_starts = start_cap(ctld);
    rc = sched_pass(ctld->nodes->sched, ctld->nodes->count, run, nr, pj, np,
                    st->now, &opts, dec);
    if (rc == 0)
        pass_apply(ctld, pend, pj, dec, np, &gate, st);
    if (order)
        unorder(order, pend, dec, np);
    if (rc < 0) {
        log_err("sched: pass failed");
    } else {
        mark_planned(ctld, dec, np);
        preempt_pass(ctld, pend, dec, np, st->now);
        sched_decisions_clear(dec, np);
    }
    enforce_pass_end(&gate);
    resv_holds_free((struct sched_hold *)opts.holds, opts.nholds);
    for (size_t i = 0; i < np; i++) {
        if (own[i] && pend[i]->req.allowed_nodes == own[i]) {
            struct ctld_partition *part =
                node_table_partition(ctld->nodes, pend[i]->partition);
            pend[i]->req.allowed_nodes = part ? part->nodes : NULL;
        }
        bitmap_destroy(own[i]);
    }
    st->considered += np;
    free(order);
    free(own);
    free(dec);
    free(pj);
    free(run);
}

/* With reservations: a pass for the jobs of each reservation (resv_pass_of:
 * those naming it, MAGNETIC's takers) first, as Slurm's queue takes them
 * first, then one for the others; a job naming an inactive one waits with
 * Reason=Reservation.  Compacts pend to the general pass's jobs. */
static void resv_passes(struct ctld *ctld, struct job **pend, size_t *np,
                        struct run_state *st)
{
    struct job **group = xzalloc(sizeof(*group) * (*np + 1));
    struct resv **of = xzalloc(sizeof(*of) * (*np + 1));
    bool *out = xzalloc(sizeof(*out) * (*np + 1)); /* not in the general */
    size_t k = 0;

    for (size_t i = 0; i < *np; i++) {
        of[i] = resv_pass_of(ctld, pend[i], st->now, &out[i]);
        if (out[i] && pend[i]->state == JOB_PENDING)
            pend[i]->reason = JOB_REASON_RESERVATION;
    }
    for (size_t i = 0; i < *np; i++) {
        struct resv *r = of[i];
        size_t n = 0;
        if (!r)
            continue;
        for (size_t j = i; j < *np; j++)
            if (of[j] == r) {
                group[n++] = pend[j];
                of[j] = NULL;
                out[j] = true;
            }
        pass_over(ctld, r, group, n, st);
    }
    for (size_t i = 0; i < *np; i++)
        if (!out[i])
            pend[k++] = pend[i];
    *np = k;
    free(out);
    free(group);
    free(of);
}

/* CompleteWait: a job COMPLETING (ended or cancelled, its node has not
 * confirmed) for less than that many seconds holds every start, as
 * Slurm's job_is_completing() gate (only walked when it is set).  The
 * periodic tick asks for the next pass. */
static bool completing_recently(struct ctld *ctld, time_t now)
{
    time_t recent = now - (time_t)ctld->conf->complete_wait_s;

    /* a completing job is live (ctld.h): not the ended records kept */
    for (struct job *job = ctld_live_first(ctld); job;
         job = ctld_live_next(ctld, job))
        if (job->completing && job->end_time >= recent)
            return true;
    return false;
}

void scheduler_run(struct ctld *ctld)
{
    uint64_t began = uv_hrtime();
    struct run_state st = {.now = ctld_now(ctld), .began_ns = began};
    struct job **pend;
    size_t np;

    st.builtin = ctld->conf->scheduler_type
                 && !strcasecmp(ctld->conf->scheduler_type, "sched/builtin");
    ctld->sched_more = false;
    if (ctld->conf->complete_wait_s && completing_recently(ctld, st.now)) {
        log_debug("sched: a job is still completing (CompleteWait=%u)",
                  ctld->conf->complete_wait_s);
        return;
    }
    if (ctld->conf->preempt_gang)
        preempt_resume(ctld, st.now);
    collect_pending(ctld, st.now, &pend, &np);
    depth_limits(ctld, pend, &np);
    planned_clear(ctld);
    if (ctld->resvs)
        resv_passes(ctld, pend, &np, &st);
    if (np)
        pass_over(ctld, NULL, pend, np, &st);
    gang_check(ctld, st.now, false); /* what started on shared CPUs */
    /* As many starts as the cap: more may be waiting (an array's entries
     * stop at the cap, so no job was left to the next pass by name). */
    if (st.starts >= start_cap(ctld) || st.dropped)
        ctld->sched_more = true;
    if (st.dropped)
        log_debug("sched: %zu starts left to the next pass: %llu ms spent",
                  st.dropped,
                  (unsigned long long)((uv_hrtime() - began) / 1000000));
    if (ctld->sched_more)
        scheduler_request(ctld);
    free(pend);
    stats_cycle(ctld, st.now, (uv_hrtime() - began) / 1000, st.considered,
                st.backfilled);
}
