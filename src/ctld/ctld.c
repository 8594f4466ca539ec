/* SPDX-License-Identifier: Apache-2.0
 *
 * ctld.c - job life-cycle transitions shared by the RPC handlers, the
 * scheduler and node health, and durable acknowledgement
 *
 * A transition is an event applied by ctld_apply() (event.h); an answer
 * that promises durability waits in 'acks' until the journal flush that runs
 * before the loop next blocks, or right after the loop's I/O when answers
 * wait (one fdatasync per loop iteration, two when both have records).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <utlist.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/acct.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/job_id.h"
#include "ctld/job_listing.h"
#include "ctld/crontab.h"
#include "ctld/ha.h"
#include "ctld/event.h"
#include "ctld/interactive.h"
#include "ctld/job_info.h"
#include "ctld/part_access.h"
#include "ctld/preempt.h"
#include "ctld/node_epilog.h"
#include "ctld/prolog_ctld.h"
#include "ctld/prolog_env.h"
#include "ctld/state.h"
#include "ctld/trigger.h"
#include "ctld/stats.h"
#include "ctld/step.h"
#include "proto/client.h"

struct ack {
    proto_req_t *req;
    json_t *body;
    void (*undo)(struct ctld *, uint32_t);
    uint32_t undo_id;
    struct ack *next;
};

time_t ctld_now(struct ctld *ctld)
{
    (void)ctld;
    return time(NULL);
}

static void user_jobs_add(struct ctld *ctld, struct job *job)
{
    struct ctld_user_jobs *u;

    HASH_FIND(hh, ctld->user_jobs, &job->uid, sizeof(job->uid), u);
    if (!u) {
        u = xzalloc(sizeof(*u));
        u->uid = job->uid;
        HASH_ADD(hh, ctld->user_jobs, uid, sizeof(u->uid), u);
    }
    DL_APPEND2(u->head, job, user_prev, user_next);
    u->count++;
}

static void user_jobs_del(struct ctld *ctld, struct job *job)
{
    struct ctld_user_jobs *u;

    HASH_FIND(hh, ctld->user_jobs, &job->uid, sizeof(job->uid), u);
    if (!u)
        return;
    DL_DELETE2(u->head, job, user_prev, user_next);
    job->user_prev = job->user_next = NULL;
    if (--u->count == 0) {
        HASH_DEL(ctld->user_jobs, u);
        free(u);
    }
}

struct job *ctld_user_jobs(struct ctld *ctld, uid_t uid, size_t *count)
{
    struct ctld_user_jobs *u;

    HASH_FIND(hh, ctld->user_jobs, &uid, sizeof(uid), u);
    *count = u ? u->count : 0;
    return u ? u->head : NULL;
}

void ctld_user_jobs_free(struct ctld *ctld)
{
    struct ctld_user_jobs *u, *tmp;

    HASH_ITER(hh, ctld->user_jobs, u, tmp) {
        HASH_DEL(ctld->user_jobs, u);
        free(u);
    }
}

void ctld_job_link(struct ctld *ctld, struct job *job)
{
    HASH_ADD(hh, ctld->jobs, id, sizeof(job->id), job);
    idmap_put(&ctld->job_ids, job->id, job);
    user_jobs_add(ctld, job);
    if (job->id >= ctld->next_job_id)
        ctld->next_job_id = job->id + 1;
    array_index_add(ctld, job);
    ctld_live_note(ctld, job);
}

void ctld_job_enter(struct ctld *ctld, struct job *job)
{
    ctld_job_link(ctld, job);
    ctld->next_job_id = job->id + 1; /* also below it: ids wrapped */
}

static bool job_id_used(uint32_t id, void *arg)
{
    return ctld_job_find(arg, id) != NULL;
}

uint32_t ctld_job_id_next(struct ctld *ctld)
{
    return job_id_next(ctld->next_job_id, ctld->conf->first_job_id,
                       ctld->conf->max_job_id, job_id_used, ctld);
}

uint64_t ctld_env_count(const char *name, uint64_t dflt)
{
    const char *env = getenv(name);
    char *end;
    unsigned long long n;

    if (!env || !*env)
        return dflt;
    n = strtoull(env, &end, 10);
    return *end || n == 0 ? dflt : (uint64_t)n;
}

static bool job_live(const struct job *job)
{
    return !job_state_is_final(job->state) || job->alloc || job->completing;
}

/* Holding an allocation. */
static bool job_running(const struct job *job)
{
    return job->alloc != NULL;
}

/* Pending or held: neither started nor ended. */
static bool job_waiting(const struct job *job)
{
    return !job->alloc && !job_state_is_final(job->state);
}

static bool job_interactive(const struct job *job)
{
    return job->interactive && job->state == JOB_RUNNING && job->alloc;
}

static bool job_in_grace(const struct job *job)
{
    return job->preempted && job->alloc && job->preempt_kill_at
           && !job->preempt_kill_sent;
}

/* Each set's state (enum ctld_set). */
static bool (*const set_keep[CTLD_SET_COUNT])(const struct job *) = {
    [CTLD_SET_LIVE] = job_live,
    [CTLD_SET_WAITING] = job_waiting,
    [CTLD_SET_RUNNING] = job_running,
    [CTLD_SET_INTERACTIVE] = job_interactive,
    [CTLD_SET_GRACE] = job_in_grace,
};

static void set_add(struct ctld_job_set *set, uint32_t id)
{
    size_t w = id / 64;

    if (w >= set->words) {
        size_t n = set->words ? set->words : 64;
        while (n <= w)
            n *= 2;
        set->bits = xrealloc(set->bits, n * sizeof(uint64_t));
        memset(set->bits + set->words, 0,
               (n - set->words) * sizeof(uint64_t));
        set->words = n;
    }
    set->bits[w] |= 1ull << (id % 64);
}

static bool set_has(const struct ctld_job_set *set, uint32_t id)
{
    return id / 64 < set->words && set->bits[id / 64] >> (id % 64) & 1;
}

static void set_del(struct ctld_job_set *set, uint32_t id)
{
    if (id / 64 < set->words)
        set->bits[id / 64] &= ~(1ull << (id % 64));
}

struct job *ctld_set_from(struct ctld *ctld, enum ctld_set s, uint64_t from)
{
    struct ctld_job_set *set = &ctld->sets[s];

    for (size_t w = from / 64; w < set->words; w++) {
        uint64_t bits = set->bits[w];

        if (w == from / 64)
            bits &= ~0ull << (from % 64);
        while (bits) {
            uint32_t id = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
            struct job *job = ctld_job_find(ctld, id);

            bits &= bits - 1;
            if (job && set_keep[s](job))
                return job;
            set->bits[w] &= ~(1ull << (id % 64));
        }
    }
    return NULL;
}

struct job *ctld_set_first(struct ctld *ctld, enum ctld_set s)
{
    return ctld_set_from(ctld, s, 0);
}

struct job *ctld_set_next(struct ctld *ctld, enum ctld_set s,
                          const struct job *job)
{
    return ctld_set_from(ctld, s, (uint64_t)job->id + 1);
}

/* ---- the purge heap: ended jobs by end time ---- */

static bool purge_before(const struct ctld_purge_entry *a,
                         const struct ctld_purge_entry *b)
{
    return a->end_time < b->end_time
           || (a->end_time == b->end_time && a->id < b->id);
}

static void purge_swap(struct ctld_purge_heap *h, size_t a, size_t b)
{
    struct ctld_purge_entry t = h->e[a];

    h->e[a] = h->e[b];
    h->e[b] = t;
}

static void purge_push(struct ctld_purge_heap *h, int64_t end_time,
                       uint32_t id)
{
    size_t i = h->count++;

    if (h->count > h->cap) {
        h->cap = h->cap ? 2 * h->cap : 1024;
        h->e = xrealloc(h->e, h->cap * sizeof(*h->e));
    }
    h->e[i] = (struct ctld_purge_entry){end_time, id};
    for (; i > 0 && purge_before(&h->e[i], &h->e[(i - 1) / 2]);
         i = (i - 1) / 2)
        purge_swap(h, i, (i - 1) / 2);
    set_add(&h->queued, id);
}

/* Take the first entry out (the heap is not empty). */
static struct ctld_purge_entry purge_pop(struct ctld_purge_heap *h)
{
    struct ctld_purge_entry top = h->e[0];
    size_t i = 0;

    h->e[0] = h->e[--h->count];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;

        if (l < h->count && purge_before(&h->e[l], &h->e[m]))
            m = l;
        if (r < h->count && purge_before(&h->e[r], &h->e[m]))
            m = r;
        if (m == i)
            break;
        purge_swap(h, i, m);
        i = m;
    }
    set_del(&h->queued, top.id);
    return top;
}

/* Ended: its record is kept only until MinJobAge. */
static bool job_ended(const struct job *job)
{
    return job_state_is_final(job->state) && !job_live(job);
}

struct job *ctld_purge_next(struct ctld *ctld, time_t before)
{
    struct ctld_purge_heap *h = &ctld->purge;

    while (h->count && h->e[0].end_time <= (int64_t)before) {
        struct ctld_purge_entry top = purge_pop(h);
        struct job *job = ctld_job_find(ctld, top.id);

        if (!job || !job_ended(job))
            continue; /* gone, or requeued: noted again once it ends */
        if ((int64_t)job->end_time != top.end_time) {
            /* ended again (a requeue) while in the heap: its new end */
            purge_push(h, (int64_t)job->end_time, job->id);
            continue;
        }
        return job;
    }
    return NULL;
}

void ctld_job_sets_free(struct ctld *ctld)
{
    for (size_t s = 0; s < CTLD_SET_COUNT; s++)
        free(ctld->sets[s].bits);
    free(ctld->purge.e);
    free(ctld->purge.queued.bits);
}

void ctld_live_note(struct ctld *ctld, const struct job *job)
{
    for (size_t s = 0; s < CTLD_SET_COUNT; s++)
        if (set_keep[s](job))
            set_add(&ctld->sets[s], job->id);
    if (job_ended(job) && !set_has(&ctld->purge.queued, job->id))
        purge_push(&ctld->purge, (int64_t)job->end_time, job->id);
}

struct job *ctld_live_from(struct ctld *ctld, uint64_t from)
{
    return ctld_set_from(ctld, CTLD_SET_LIVE, from);
}

struct job *ctld_live_first(struct ctld *ctld)
{
    return ctld_live_from(ctld, 0);
}

struct job *ctld_live_next(struct ctld *ctld, const struct job *job)
{
    return ctld_live_from(ctld, (uint64_t)job->id + 1);
}

void ctld_running_each(struct ctld *ctld,
                       void (*fn)(struct job *job, void *arg), void *arg)
{
    struct ctld_job_set *set = &ctld->sets[CTLD_SET_RUNNING];

    for (size_t w = 0; w < set->words; w++) {
        struct job *batch[64];
        unsigned bit[64], k = 0;

        for (uint64_t bits = set->bits[w]; bits; bits &= bits - 1) {
            bit[k] = (unsigned)__builtin_ctzll(bits);
            batch[k] = ctld_job_find(ctld, (uint32_t)(w * 64 + bit[k]));
            if (batch[k]) { /* id and plan_s; alloc and the times */
                __builtin_prefetch(batch[k]);
                __builtin_prefetch(&batch[k]->alloc);
            }
            k++;
        }
        for (unsigned i = 0; i < k; i++) {
            if (batch[i] && job_running(batch[i]))
                fn(batch[i], arg);
            else
                set->bits[w] &= ~(1ull << bit[i]);
        }
    }
}

struct job *ctld_waiting_first(struct ctld *ctld)
{
    return ctld_set_first(ctld, CTLD_SET_WAITING);
}

struct job *ctld_waiting_next(struct ctld *ctld, const struct job *job)
{
    return ctld_set_next(ctld, CTLD_SET_WAITING, job);
}

void ctld_job_unlink(struct ctld *ctld, struct job *job)
{
    job_listing_unlinked(ctld, job);
    array_index_del(ctld, job);
    HASH_DEL(ctld->jobs, job);
    idmap_del(&ctld->job_ids, job->id);
    user_jobs_del(ctld, job);
}

struct job *ctld_job_find(struct ctld *ctld, uint32_t id)
{
    return idmap_get(&ctld->job_ids, id);
}

uint32_t ctld_job_base_priority(const struct job *job)
{
    int64_t prio = 100000000 - (int64_t)job->id - job->nice;

    return prio < 1 ? 1 : (uint32_t)prio;
}

uint32_t ctld_job_tier(struct ctld *ctld, const struct job *job)
{
    const struct ctld_partition *p = node_table_partition(ctld->nodes,
                                                          job->partition);

    return p ? p->conf->priority_tier : 0;
}

uint32_t ctld_job_oversubscribe(struct ctld *ctld, const struct job *job)
{
    const struct ctld_partition *p = node_table_partition(ctld->nodes,
                                                          job->partition);

    return p && (p->conf->oversubscribe_force || job->oversub_req)
               ? p->conf->oversubscribe
               : 0;
}

int ctld_job_order(const void *a, const void *b, void *arg)
{
    struct ctld *ctld = arg;
    const struct job *x = *(struct job *const *)a;
    const struct job *y = *(struct job *const *)b;

    if (ctld->nodes->part_count > 1) {
        uint32_t tx = ctld_job_tier(ctld, x), ty = ctld_job_tier(ctld, y);
        if (tx != ty)
            return tx > ty ? -1 : 1;
    }
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

void ctld_respond_durable_undo(struct ctld *ctld, proto_req_t *req,
                               json_t *body,
                               void (*undo)(struct ctld *, uint32_t),
                               uint32_t id)
{
    struct ack *a = xzalloc(sizeof(*a));

    a->req = req;
    a->body = body;
    a->undo = undo;
    a->undo_id = id;
    *ctld->acks_tail = a;
    ctld->acks_tail = &a->next;
}

void ctld_respond_durable(struct ctld *ctld, proto_req_t *req, json_t *body)
{
    ctld_respond_durable_undo(ctld, req, body, NULL, 0);
}

void ctld_answer_acks(struct ctld *ctld, void *acks, int errnum,
                      const char *text)
{
    struct ack *a, *next;

    for (a = acks; a; a = next) {
        next = a->next;
        if (errnum && a->undo)
            a->undo(ctld, a->undo_id);
        int rc = errnum ? proto_respond_error(a->req, errnum, text)
                        : proto_respond(a->req, a->body);
        if (rc < 0)
            log_err("responding after journal flush");
        if (errnum)
            json_decref(a->body);
        free(a);
    }
}

void *ctld_acks_join(void *a, void *b)
{
    struct ack *tail = a;

    if (!a)
        return b;
    while (tail->next)
        tail = tail->next;
    tail->next = b;
    return a;
}

/* uv_prepare: runs before the loop blocks.  Flush, then answer (alone),
 * or propose the turn's records to the Raft group, whose commit answers
 * (ha.h). */
static void flush(struct ctld *ctld)
{
    struct journal *js[2] = {ctld->journal, acct_spool_prepare(ctld)};
    struct ack *acks = ctld->acks;
    int err[2], errnum;

    uint64_t began;

    /* The state and the accounting spool reach the disk together. */
    began = uv_hrtime();
    journal_flush_together(js, 2, err);
    stats_turn_part(ctld, "journal flush", began);
    if (err[1])
        log_error("accounting: spool flush failed (%s); retrying next turn",
                  strerror(err[1]));
    ctld->acks = NULL;
    ctld->acks_tail = &ctld->acks;
    if (ctld->ha) {
        ha_flush(ctld->ha, acks);
    } else {
        if ((errnum = err[0]))
            log_error("journal: flush failed (%s); answering "
                      "EDRV_JOURNAL_WRITE", strerror(errnum));
        began = uv_hrtime();
        ctld_answer_acks(ctld, acks, errnum ? EDRV_JOURNAL_WRITE : 0,
                         errnum ? strerror(errnum) : NULL);
        stats_turn_part(ctld, "answers once durable", began);
    }
    if (!ctld_active(ctld))
        return;
    if (!err[0])
        prolog_ctld_flushed(ctld); /* the starts they are for are on disk */
    acct_send_soon(ctld);
    scheduler_arm(ctld);
}

void ctld_flush_cb(uv_prepare_t *h)
{
    struct ctld *ctld = h->data;

    stats_loop_turn(ctld);
    flush(ctld);
}

void ctld_answers_cb(uv_check_t *h)
{
    struct ctld *ctld = h->data;

    if (ctld->acks)
        flush(ctld);
}

void ctld_take_over(struct ctld *ctld)
{
    time_t now = ctld_now(ctld);

    state_restored(ctld);
    for (size_t i = 0; i < ctld->nodes->count; i++)
        ctld->nodes->info[i].last_seen = now; /* SlurmdTimeout to register */
    state_respool_replayed(ctld);
    trigger_watch(ctld, now); /* node changes from now on fire triggers */
    scheduler_request(ctld);
}

bool ctld_active(const struct ctld *ctld)
{
    return !ctld->ha || ha_leading(ctld->ha);
}

void ctld_job_requeue(struct ctld *ctld, struct job *job, time_t now,
                      time_t eligible, bool restart)
{
    struct ctld_event ev = {.type = CTLD_EV_JOB_REQUEUED,
                            .t = now,
                            .job_id = job->id,
                            .eligible_time = eligible,
                            .restart = restart};

    ctld_apply(ctld, &ev);
}

void ctld_job_finished(struct ctld *ctld, struct job *job, int status,
                       bool timed_out, bool node_failed)
{
    ctld_job_completed(ctld, job, status, timed_out, node_failed, NULL,
                       NULL);
}

/* RequeueExit / RequeueExitHold: 1 or 2 when the batch script of 'job'
 * exited with a listed code other than 0 (Slurm looks at the exit code
 * only: a signal, a time limit or a cancel never requeues), else 0.  A job
 * that may not be requeued (--no-requeue, JobRequeue=0) never is. */
static int exit_requeue(const struct ctld *ctld, const struct job *job,
                        int status, bool timed_out, bool node_failed)
{
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;

    if (!code || job->interactive || !job->requeue || timed_out
        || node_failed || job->cancel_requested || job->preempted)
        return 0;
    if (conf_exit_code_listed(ctld->conf->requeue_exit, code))
        return 1;
    return conf_exit_code_listed(ctld->conf->requeue_exit_hold, code) ? 2
                                                                       : 0;
}

void ctld_job_completed(struct ctld *ctld, struct job *job, int status,
                        bool timed_out, bool node_failed, const char *node,
                        json_t *report)
{
    time_t now = ctld_now(ctld);
    struct ctld_event ev = {
        .type = CTLD_EV_JOB_ENDED, .t = now, .job_id = job->id,
        .status = status, .node = node, .report = report};
    struct ctld_event rq = {.type = CTLD_EV_JOB_REQUEUED, .restart = true};

    /* Step tasks on the other nodes end with the job (the batch host
     * kills its own); a job never launched (configuring) has none, and
     * its nodes know it only from their Prolog (PrologFlags=Alloc). */
    for (uint32_t i = 1; job->alloc && prolog_ctld_nodes_know(ctld, job)
                         && i < job->alloc->node_count; i++)
        ctld_job_end_on_node(ctld, job, i, timed_out);
    /* the batch host runs its Epilog as the script's report leaves it */
    if (job->alloc && !job->interactive && !node_failed && !job->configuring)
        node_epilog_wait(ctld, job->alloc->node_idx[0], job->id);
    if (job->requeue_requested || (node_failed && job->requeue)) {
        log_info("JobId=%u requeued", job->id);
        rq.job_id = job->id;
        rq.t = now;
        rq.eligible_time = job->preempted ? now + PREEMPT_REQUEUE_DELAY_S
                                          : now;
        rq.status = status; /* the run's record: its batch step's status */
        rq.status_known = !node_failed;
        ctld_apply(ctld, &rq);
        return;
    }
    if ((rq.exit_requeue = exit_requeue(ctld, job, status, timed_out,
                                        node_failed))) {
        log_info("%s: requeue JobId=%u: exit code %d in %s", __func__,
                 job->id, WEXITSTATUS(status),
                 rq.exit_requeue == 1 ? "RequeueExit" : "RequeueExitHold");
        rq.job_id = job->id;
        rq.eligible_time = rq.t = now;
        rq.status = status;
        ctld_apply(ctld, &rq);
        return;
    }
    ev.state = job->cancel_requested && job->preempted ? JOB_PREEMPTED
               : job->cancel_requested ? JOB_CANCELLED
               : node_failed         ? JOB_NODE_FAIL
               : timed_out           ? JOB_TIMEOUT
               : status == JOB_STATUS_OOM ? JOB_OOM
               : status == 0         ? JOB_COMPLETED
                                     : JOB_FAILED;
    ctld_apply(ctld, &ev);
    log_info("JobId=%u done: %s status %d", job->id,
             job_state_name(job->state), status);
    crontab_job_ended(ctld, job, now); /* scrontab: its next run */
}

struct signal_ctx {
    struct ctld *ctld;
    uint32_t job_id;
    bool terminate;
};

static void signal_done(int errnum, const char *errstr, json_t *resp,
                        void *arg)
{
    struct signal_ctx *sc = arg;
    struct job *job = ctld_job_find(sc->ctld, sc->job_id);

    (void)resp;
    if (errnum && job && job->alloc && sc->terminate
        && errnum != EDRV_INVALID_JOB_ID) {
        log_error("JobId=%u: node unreachable to terminate (%s); ending it",
                  sc->job_id, errstr ? errstr : drv_strerror(errnum));
        ctld_job_finished(sc->ctld, job, SIGKILL, false, false);
    } else if (errnum == EDRV_INVALID_JOB_ID && job && job->alloc) {
        /* The node no longer has it: it ended; the completion will come. */
        log_verbose("JobId=%u: not on node when signalled", sc->job_id);
    }
    free(sc);
}

void ctld_job_signal_node(struct ctld *ctld, struct job *job, int signo,
                          bool terminate)
{
    const struct conf_node *cn;
    struct signal_ctx *sc;

    if (!job->alloc)
        return;
    if (terminate && job->configuring) {
        /* Never launched (prolog_ctld.h): nothing on its nodes to end or
         * to confirm the end, but the batch host's Prolog with
         * PrologFlags=Alloc (its Epilog then runs). */
        if (prolog_ctld_nodes_know(ctld, job))
            ctld_job_end_on_node(ctld, job, 0, false);
        ctld_job_finished(ctld, job, 0, false, false);
        return;
    }
    cn = ctld->nodes->info[job->alloc->node_idx[0]].conf;
    sc = xzalloc(sizeof(*sc));
    sc->ctld = ctld;
    sc->job_id = job->id;
    sc->terminate = terminate;
    if (proto_call_async(ctld->loop, cn->addr, cn->port, ctld->auth,
                         "job_signal",
                         json_pack("{s:I s:i s:b}", "job_id",
                                   (json_int_t)job->id, "signal", signo,
                                   "terminate", terminate),
                         (int)ctld->conf->msg_timeout_s * 1000, signal_done,
                         sc)
        < 0) {
        log_err("JobId=%u: job_signal to %s", job->id, cn->name);
        free(sc);
    }
}

static void signalled(int errnum, const char *errstr, json_t *resp,
                      void *arg)
{
    (void)resp;
    (void)arg;
    if (errnum && errnum != EDRV_INVALID_JOB_ID)
        log_error("job_signal (all): %s",
                  errstr ? errstr : drv_strerror(errnum));
}

/* job_signal to every node of 'job', with "all" or "steps". */
static void signal_nodes(struct ctld *ctld, const struct job *job, int signo,
                         const char *which)
{
    if (!job->alloc)
        return;
    for (uint32_t i = 0; i < job->alloc->node_count; i++) {
        const struct conf_node *cn =
            ctld->nodes->info[job->alloc->node_idx[i]].conf;
        json_t *body = json_pack("{s:I s:i s:b s:I}", "job_id",
                                 (json_int_t)job->id, "signal", signo, which,
                                 1, "run_id", (json_int_t)job->run_id);
        if (proto_call_async(ctld->loop, cn->addr, cn->port, ctld->auth,
                             "job_signal", body,
                             (int)ctld->conf->msg_timeout_s * 1000,
                             signalled, NULL)
            < 0)
            log_err("JobId=%u: job_signal to %s", job->id, cn->name);
    }
}

void ctld_job_signal_all(struct ctld *ctld, const struct job *job, int signo)
{
    signal_nodes(ctld, job, signo, "all");
}

void ctld_job_signal_steps(struct ctld *ctld, const struct job *job,
                           int signo)
{
    signal_nodes(ctld, job, signo, "steps");
}

static void stray_done(int errnum, const char *errstr, json_t *resp,
                       void *arg)
{
    (void)errnum;
    (void)errstr;
    (void)resp;
    (void)arg;
}

static void terminate_on_node(struct ctld *ctld, long node, uint32_t job_id,
                              uint32_t run_id, bool time_limit, json_t *env)
{
    const struct conf_node *cn = ctld->nodes->info[node].conf;
    json_t *body = json_pack("{s:I s:i s:b s:b}", "job_id", (json_int_t)job_id,
                             "signal", SIGKILL, "terminate", 1, "forget", 1);

    if (run_id)
        json_object_set_new(body, "run_id", json_integer(run_id));
    if (time_limit)
        json_object_set_new(body, "time_limit", json_true());
    if (env)
        json_object_set_new(body, "prolog_env", env);
    if (proto_call_async(ctld->loop, cn->addr, cn->port, ctld->auth,
                         "job_signal", body,
                         (int)ctld->conf->msg_timeout_s * 1000, stray_done,
                         NULL)
        < 0)
        log_err("JobId=%u: terminating stray job on %s", job_id, cn->name);
}

void ctld_node_terminate_stray(struct ctld *ctld, long node, uint32_t job_id,
                               uint32_t run_id)
{
    terminate_on_node(ctld, node, job_id, run_id, false, NULL);
}

void ctld_job_end_on_node(struct ctld *ctld, const struct job *job,
                          uint32_t e, bool time_limit)
{
    node_epilog_wait(ctld, job->alloc->node_idx[e], job->id);
    terminate_on_node(ctld, job->alloc->node_idx[e], job->id, 0, time_limit,
                      prolog_env_json(ctld, job, e));
}

int64_t ctld_job_over_time_s(const struct ctld *ctld, const struct job *job)
{
    const struct ctld_partition *part =
        job->partition ? node_table_partition(ctld->nodes, job->partition)
                       : NULL;
    uint32_t m = conf_over_time_min(ctld->conf, part ? part->conf : NULL);

    return m == CONF_OVERTIME_UNLIMITED ? -1 : (int64_t)m * 60;
}

void ctld_job_set_node_limit(struct ctld *ctld, struct job *job)
{
    const struct conf_node *cn;
    /* A limit of 0 (scontrol update TimeLimit=0) ends the job at once, as
     * Slurm's; droverd reads 0 as no limit, so it gets one second, which
     * a running job is past. */
    int64_t limit = job->time_limit_s == 0 ? 1 : job->time_limit_s;

    if (!job->alloc)
        return;
    cn = ctld->nodes->info[job->alloc->node_idx[0]].conf;
    if (proto_call_async(ctld->loop, cn->addr, cn->port, ctld->auth,
                         "job_limit",
                         json_pack("{s:I s:I s:I}", "job_id",
                                   (json_int_t)job->id, "time_limit_s",
                                   (json_int_t)limit, "over_time_s",
                                   (json_int_t)ctld_job_over_time_s(ctld,
                                                                    job)),
                         (int)ctld->conf->msg_timeout_s * 1000, stray_done,
                         NULL)
        < 0)
        log_err("JobId=%u: job_limit to %s", job->id, cn->name);
}

void ctld_job_cancel(struct ctld *ctld, struct job *job, uid_t by)
{
    struct ctld_event ev = {.type = CTLD_EV_JOB_CANCELLED,
                            .t = ctld_now(ctld),
                            .job_id = job->id,
                            .by = by};
    bool running = job->state == JOB_RUNNING
                   || job->state == JOB_SUSPENDED;

    if (ctld_apply(ctld, &ev) < 0 || !running)
        return;
    if (job->interactive) /* no node reports its end */
        interactive_end(ctld, job, SIGKILL, false);
    else
        ctld_job_signal_node(ctld, job, SIGKILL, true);
}

bool ctld_private(const struct ctld *ctld, struct proto_req *req,
                  uint32_t what)
{
    return (ctld->conf->private_data & what)
           && !(proto_req_roles(req)
                & (PROTO_ROLE_OPERATOR | PROTO_ROLE_ADMIN));
}

bool ctld_req_slurm_user(struct proto_req *req)
{
    return proto_req_roles(req) & PROTO_ROLE_DAEMON;
}

int ctld_part_access(struct ctld *ctld, struct proto_req *req,
                     const struct job *job, const struct conf_partition *cp,
                     drv_error_t *error)
{
    if (part_access_check(ctld->access, cp, job->uid,
                          ctld_req_slurm_user(req), job->account, job->qos,
                          ctld_now(ctld), error)
        < 0) {
        int saved = errno;
        log_info("uid %u access to partition %s denied: %s",
                 (unsigned)proto_req_uid(req), cp->name, error->text);
        errno = saved;
        return -1;
    }
    return 0;
}
