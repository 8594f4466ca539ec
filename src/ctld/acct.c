/* SPDX-License-Identifier: Apache-2.0 */
/*
 * acct.c - spool job records for droverdbd and drain them in order (acct.h)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/acct.h"
#include "ctld/acct_record.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/resv.h"
#include "ctld/stats.h"
#include "proto/client.h"

#define SEND_MAX 500           /* events per acct_send */
#define SEND_MAX_BYTES (4u << 20) /* and at most about this much text */
#define SEND_DELAY_MS 50       /* a send waits this long for more events */
#define SEND_TIMEOUT_MS 30000
#define RETRY_MIN_MS 1000
#define RETRY_MAX_MS 10000
#define COMPACT_RECORDS 20000  /* spool log length that triggers compaction */
/* Pending events from which a forked child compacts the spool: rewriting
 * one on the loop costs about 30 us (bench/README.md: 277-314 ms of CPU
 * for 10,000), so from 200 on a fork (3 ms of CPU) costs less. */
#define COMPACT_FORK_EVENTS 200
#define STOP_WAIT_MS 3000       /* acct_fini waits this long for a send */
/* How records are kept and sent: the form the credential of a send binds
 * (proto_call_async_text), so a batch is their concatenation. */
#define RECORD_DUMP (JSON_COMPACT | JSON_SORT_KEYS)

/* A record waiting for droverdbd's acknowledgement.  It is kept as text,
 * one allocation, not as a jansson tree: a tree of a job's record is
 * about a hundred allocations spread over the heap, which each send's
 * acknowledgement then frees, and after the snapshot's fork every page
 * written costs a copy-on-write fault (bench/README.md: 1,600 faults and
 * 125 ms to free 128 trees on this VM). */
struct acct_event {
    uint64_t seq;
    char *text;                /* the accounting record, RECORD_DUMP */
    size_t len;
    bool resv;                 /* a reservation's ("resv"), else a job's */
    struct acct_event *next;
};

struct acct {
    struct journal *spool;
    char *host, *cluster;
    uint16_t port;
    uint64_t next_seq, acked_seq;
    struct acct_event *head, **tail;
    size_t count;
    uint32_t *changed;          /* job ids changed this loop turn */
    size_t nchanged, changed_cap;
    bool in_flight, down_logged;
    bool stopping;              /* acct_fini: start no more sends */
    uv_timer_t retry;
    unsigned retry_ms;
};

static bool enabled(const struct ctld *ctld)
{
    return ctld->acct != NULL;
}

/* Queue the record 'text' (stolen) as event 'seq'. */
static void event_push(struct acct *a, uint64_t seq, char *text, bool resv)
{
    struct acct_event *e = xzalloc(sizeof(*e));

    e->seq = seq;
    if (!text) { /* as xalloc's: losing an acknowledged record is worse */
        log_error("accounting: out of memory keeping event %" PRIu64, seq);
        abort();
    }
    e->text = text;
    e->len = strlen(text);
    e->resv = resv;
    *a->tail = e;
    a->tail = &e->next;
    a->count++;
    if (seq >= a->next_seq)
        a->next_seq = seq + 1;
}

/* Drop events up to 'seq' (acked). */
static void events_drop(struct acct *a, uint64_t seq)
{
    struct acct_event *e;

    while ((e = a->head) && e->seq <= seq) {
        a->head = e->next;
        free(e->text);
        free(e);
        a->count--;
    }
    if (!a->head)
        a->tail = &a->head;
    if (seq > a->acked_seq)
        a->acked_seq = seq;
}

/* An event {"seq":N,"job"|"resv":{...}} not acked by 'acked' back in the
 * queue; anything else is skipped. */
static void event_restore(struct acct *a, json_t *ev, uint64_t acked)
{
    json_int_t seq = 0;
    json_t *job = json_object_get(ev, "job");
    json_t *resv = json_object_get(ev, "resv");
    char *text;

    if (json_unpack(ev, "{s:I}", "seq", &seq) || (uint64_t)seq <= acked
        || (!json_is_object(job) && !json_is_object(resv)))
        return;
    text = json_dumps(job ? job : resv, RECORD_DUMP);
    event_push(a, (uint64_t)seq, text, !job);
}

/* The event object of 'e' (a new reference; NULL when out of memory). */
static json_t *event_json(const struct acct_event *e)
{
    json_t *rec = json_loadb(e->text, e->len, 0, NULL);

    return rec ? json_pack("{s:I s:o}", "seq", (json_int_t)e->seq,
                           e->resv ? "resv" : "job", rec)
               : NULL;
}

/* Spool snapshot: {"acked_seq":N,"next_seq":N,"pending":[event...]}. */
static int restore_snapshot(json_t *snap, void *arg, drv_error_t *error)
{
    struct acct *a = arg;
    json_int_t acked = 0, next = 1;
    json_t *pending = NULL, *ev;
    size_t i;

    (void)error;
    json_unpack(snap, "{s?I s?I s?o}", "acked_seq", &acked, "next_seq", &next,
                "pending", &pending);
    a->acked_seq = (uint64_t)acked;
    a->next_seq = (uint64_t)next;
    json_array_foreach(pending, i, ev)
        event_restore(a, ev, 0);
    return 0;
}

/* Spool log records: {"seq":N,"job"|"resv":{...}} or {"ack":N}. */
static int restore_record(json_t *rec, void *arg, drv_error_t *error)
{
    struct acct *a = arg;
    json_int_t ack = 0;

    (void)error;
    if (!json_unpack(rec, "{s:I}", "ack", &ack))
        events_drop(a, (uint64_t)ack);
    else
        event_restore(a, rec, a->acked_seq);
    return 0;
}

static void send_next(struct ctld *ctld);

/* Queue 'rec' (stolen) in the spool's log. */
static void spool_append(struct acct *a, json_t *rec)
{
    if (!rec || journal_append(a->spool, rec) < 0)
        log_err("accounting: cannot queue a spool record");
    json_decref(rec);
}

static void retry_cb(uv_timer_t *t)
{
    uint64_t began = uv_hrtime();

    send_next(t->data);
    stats_turn_part(t->data, "accounting send", began);
}

static void schedule_retry(struct ctld *ctld)
{
    struct acct *a = ctld->acct;

    a->retry_ms = a->retry_ms ? a->retry_ms * 2 : RETRY_MIN_MS;
    if (a->retry_ms > RETRY_MAX_MS)
        a->retry_ms = RETRY_MAX_MS;
    uv_timer_start(&a->retry, retry_cb, a->retry_ms, 0);
}

static void sent_cb(int errnum, const char *errstr, json_t *resp, void *arg)
{
    struct ctld *ctld = arg;
    struct acct *a = ctld->acct;
    json_int_t acked = -1;

    if (!a) /* the controller is shutting down */
        return;
    a->in_flight = false;
    if (errnum || json_unpack(resp, "{s:I}", "acked_seq", &acked) < 0) {
        if (!a->down_logged)
            log_error("accounting: droverdbd at %s:%u: %s; %zu events spooled",
                     a->host, a->port, errnum ? errstr : "bad answer",
                     a->count);
        a->down_logged = true;
        schedule_retry(ctld);
        return;
    }
    if (a->down_logged)
        log_info("accounting: droverdbd is back; sending %zu events",
                 a->count);
    a->down_logged = false;
    a->retry_ms = 0;
    events_drop(a, (uint64_t)acked);
    spool_append(a, json_pack("{s:I}", "ack", acked));
    send_next(ctld);
}

/* The next batch: up to SEND_MAX events, in order. */
/* The cluster's capacity, for droverdbd's utilization reports. */
static json_t *cluster_tres(const struct node_table *nt)
{
    json_int_t cpu = 0, mem = 0, gpu = 0;

    for (size_t i = 0; i < nt->count; i++) {
        cpu += nt->sched[i].cpus;
        mem += (json_int_t)nt->sched[i].mem_mib;
        gpu += nt->sched[i].gpus;
    }
    return json_pack("{s:I s:I s:I s:I}", "cpu", cpu, "mem", mem, "node",
                     (json_int_t)nt->count, "gres/gpu", gpu);
}

/* The next batch, up to SEND_MAX events or about SEND_MAX_BYTES of them
 * in order, as the text of the body {"cluster","cluster_tres","events":
 * [{"job"|"resv","seq"}...]} in RECORD_DUMP's form: keys sorted, records
 * as they are kept.  Returns a new string and its length in *len, or NULL
 * when out of memory. */
static char *next_batch(struct ctld *ctld, size_t *len)
{
    struct acct *a = ctld->acct;
    json_t *name = json_string(a->cluster), *tres = cluster_tres(ctld->nodes);
    char *name_text = name ? json_dumps(name, JSON_ENCODE_ANY) : NULL;
    char *tres_text = tres ? json_dumps(tres, RECORD_DUMP) : NULL;
    char *buf = NULL;
    size_t n = 0, bytes = 0;
    FILE *f = name_text && tres_text ? open_memstream(&buf, len) : NULL;

    json_decref(name);
    json_decref(tres);
    if (f) {
        fprintf(f, "{\"cluster\":%s,\"cluster_tres\":%s,\"events\":[",
                name_text, tres_text);
        for (struct acct_event *e = a->head;
             e && n < SEND_MAX && (!n || bytes + e->len <= SEND_MAX_BYTES);
             e = e->next, n++) {
            fprintf(f, "%s{\"%s\":%s,\"seq\":%" PRIu64 "}", n ? "," : "",
                    e->resv ? "resv" : "job", e->text, e->seq);
            bytes += e->len;
        }
        fputs("]}", f);
        if (fclose(f) != 0) {
            free(buf);
            buf = NULL;
        }
    }
    free(name_text);
    free(tres_text);
    return buf;
}

static void send_next(struct ctld *ctld)
{
    struct acct *a = ctld->acct;
    size_t len = 0;
    char *body;
    int rc;

    if (a->in_flight || a->stopping || !a->head
        || uv_is_active((uv_handle_t *)&a->retry))
        return;
    a->in_flight = true;
    body = next_batch(ctld, &len);
    rc = body ? proto_call_async_text(ctld->loop, a->host, a->port,
                                      ctld->auth, "acct_send", body, len,
                                      SEND_TIMEOUT_MS, sent_cb, ctld)
              : -1;
    free(body);
    if (rc < 0) {
        a->in_flight = false;
        log_err("accounting: cannot start a send");
        schedule_retry(ctld);
    }
}

int acct_init(struct ctld *ctld, drv_error_t *error)
{
    const struct slurm_conf *conf = ctld->conf;
    struct acct *a;
    char *dir;

    if (!conf->accounting_storage_type
        || strcmp(conf->accounting_storage_type,
                  "accounting_storage/slurmdbd"))
        return 0;
    a = xzalloc(sizeof(*a));
    a->tail = &a->head;
    a->next_seq = 1;
    a->host = xstrdup(conf->accounting_storage_host
                          ? conf->accounting_storage_host
                          : (conf->ctld_addr ? conf->ctld_addr : "localhost"));
    a->port = conf->accounting_storage_port;
    a->cluster = xstrdup(conf->cluster_name ? conf->cluster_name : "cluster");
    dir = xasprintf("%s/acct_spool", conf->state_save_location);
    a->spool = journal_open(dir, error);
    free(dir);
    if (!a->spool
        || journal_replay(a->spool,
                          &(struct journal_replay_cb){
                              .snapshot = restore_snapshot,
                              .record = restore_record,
                              .arg = a},
                          error)
               < 0) {
        journal_close(a->spool);
        free(a->host);
        free(a->cluster);
        free(a);
        return -1;
    }
    uv_timer_init(ctld->loop, &a->retry);
    a->retry.data = ctld;
    ctld->acct = a;
    log_info("accounting: droverdbd at %s:%u, %zu events spooled", a->host,
             a->port, a->count);
    return 0;
}

void acct_job_changed(struct ctld *ctld, const struct job *job)
{
    struct acct *a = ctld->acct;

    if (!enabled(ctld))
        return;
    if (a->nchanged == a->changed_cap) {
        a->changed_cap = a->changed_cap ? a->changed_cap * 2 : 64;
        a->changed = xrealloc(a->changed, a->changed_cap * sizeof(uint32_t));
    }
    a->changed[a->nchanged++] = job->id;
}

/* Spool 'rec' (a new reference, consumed; NULL is logged) as the next
 * event: a job's record, or with 'resv' a reservation's.  It is
 * serialized once, for the spool's log and the event kept. */
static void spool_event(struct acct *a, json_t *rec, bool resv)
{
    char *text = rec ? json_dumps(rec, RECORD_DUMP) : NULL;
    char *line;

    json_decref(rec);
    if (!text) {
        log_err("accounting: cannot queue a spool record");
        return;
    }
    line = xasprintf("{\"%s\":%s,\"seq\":%" PRIu64 "}",
                     resv ? "resv" : "job", text, a->next_seq);
    if (journal_append_text(a->spool, line, strlen(line)) < 0)
        log_err("accounting: cannot queue a spool record");
    free(line);
    event_push(a, a->next_seq, text, resv);
}

static void spool_record(struct acct *a, json_t *rec)
{
    spool_event(a, rec, false);
}

void acct_resv_changed(struct ctld *ctld, const struct ctld_event *ev,
                       bool before)
{
    const char *op = json_string_value(json_object_get(ev->resv, "op"));
    const char *name = json_string_value(
        json_object_get(json_object_get(ev->resv, "resv"), "name"));
    struct resv *r = resv_find(ctld, name);
    time_t end;

    if (!enabled(ctld) || !op || !r)
        return;
    if (before) {
        if (!strcmp(op, "create"))
            return;
        end = ev->t < r->start ? r->start : ev->t > r->end ? r->end : ev->t;
        spool_event(ctld->acct, resv_acct_record(ctld, r, end), true);
    } else if (strcmp(op, "delete")) {
        spool_event(ctld->acct, resv_acct_record(ctld, r, r->end), true);
    }
}

void acct_run_ending(struct ctld *ctld, const struct ctld_event *ev)
{
    struct job *job = ctld_job_find(ctld, ev->job_id);
    json_t *rec;
    int state;

    if (!enabled(ctld) || !job || !job->start_time || !ev->restart
        || array_is_master(job))
        return;
    if (job_state_is_final(job->state)) {
        /* an ended run requeued in the same turn (a cron job's next run,
         * crontab.h): its record as it ended, before the job changes */
        if ((rec = acct_record_build(ctld, job)))
            spool_record(ctld->acct, rec);
        return;
    }
    state = job->preempted                               ? JOB_PREEMPTED
            : job->requeue_requested || ev->exit_requeue ? JOB_REQUEUED
                                                         : JOB_NODE_FAIL;
    if (ev->exit_requeue) /* RequeueExit: the run's record has its code */
        job->exit_status = ev->status;
    /* The batch step's status: the script's when the run's end is known,
     * else SIGTERM's (the requeue killed it) */
    if ((rec = acct_record_run_ended(ctld, job, state, ev->t,
                                     ev->exit_requeue || ev->status_known
                                         ? ev->status
                                         : SIGTERM)))
        spool_record(ctld->acct, rec);
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

    return a < b ? -1 : a > b;
}

/* One event per changed job (a job changed twice this turn: once). */
static void spool_changed(struct ctld *ctld)
{
    struct acct *a = ctld->acct;

    qsort(a->changed, a->nchanged, sizeof(uint32_t), cmp_u32);
    for (size_t i = 0; i < a->nchanged; i++) {
        struct job *job;
        json_t *rec;

        if (i && a->changed[i] == a->changed[i - 1])
            continue;
        if (!(job = ctld_job_find(ctld, a->changed[i]))
            || !(rec = acct_record_build(ctld, job)))
            continue;
        spool_record(a, rec);
    }
    a->nchanged = 0;
}

static void spool_write(struct ctld *ctld)
{
    struct acct *a = ctld->acct;

    if (a->nchanged)
        spool_changed(ctld);
    if (journal_dirty(a->spool) && journal_flush(a->spool) < 0)
        log_err("accounting: spool flush failed; retrying next turn");
}

struct journal *acct_spool_prepare(struct ctld *ctld)
{
    if (!enabled(ctld))
        return NULL;
    if (ctld->acct->nchanged)
        spool_changed(ctld);
    return ctld->acct->spool;
}

void acct_send_soon(struct ctld *ctld)
{
    struct acct *a = ctld->acct;

    if (!enabled(ctld) || a->in_flight || a->stopping || !a->head
        || uv_is_active((uv_handle_t *)&a->retry))
        return;
    if (a->count >= SEND_MAX)
        send_next(ctld);
    else
        uv_timer_start(&a->retry, retry_cb, SEND_DELAY_MS, 0);
}

/* The spool's snapshot: {"acked_seq":N,"next_seq":N,"pending":[event...]}
 * (a new reference; NULL when out of memory). */
static json_t *spool_snapshot(const struct acct *a)
{
    json_t *pending = json_array();

    for (struct acct_event *e = a->head; pending && e; e = e->next) {
        json_t *ev = event_json(e);

        if (!ev || json_array_append_new(pending, ev) < 0) {
            json_decref(pending);
            return NULL;
        }
    }
    return pending ? json_pack("{s:I s:I s:o}", "acked_seq",
                               (json_int_t)a->acked_seq, "next_seq",
                               (json_int_t)a->next_seq, "pending", pending)
                   : NULL;
}

/* journal_snapshot_async()'s builder, in the forked child. */
static json_t *spool_build(void *arg)
{
    return spool_snapshot(arg);
}

/* Is the spool's log due to be compacted?  Compaction rewrites every
 * pending event: with many pending (a long droverdbd outage) it waits
 * until the log is twice as long, so its cost per record stays bounded. */
static bool compaction_due(const struct acct *a)
{
    size_t len = journal_length(a->spool);

    return len && !(a->head && len < COMPACT_RECORDS) && len >= 2 * a->count;
}

void acct_periodic(struct ctld *ctld)
{
    struct acct *a = ctld->acct;
    json_t *snap;
    int done;

    if (!enabled(ctld))
        return;
    if ((done = journal_snapshot_poll(a->spool, false)) < 0)
        log_error("accounting: the child compacting the spool failed; "
                  "compacting it here");
    if (done >= 0 && (journal_snapshotting(a->spool) || !compaction_due(a)))
        return;
    /* Many events pending (droverdbd draining a long outage): a forked
     * child writes them, as the state's snapshot, so the loop does not
     * stop for them (bench/README.md: 287-325 ms for 10,000). */
    if (done >= 0 && a->count >= COMPACT_FORK_EVENTS
        && journal_snapshot_async(a->spool, spool_build, a) == 0)
        return;
    if (!(snap = spool_snapshot(a))) {
        log_error("accounting: out of memory compacting the spool; it "
                  "stays as it is");
        return;
    }
    if (journal_snapshot(a->spool, snap) < 0)
        log_err("accounting: compacting the spool");
    json_decref(snap);
}

size_t acct_pending(const struct ctld *ctld)
{
    return enabled(ctld) ? ctld->acct->count : 0;
}

/* Let a send under way finish (its answer or its failure), for at most
 * STOP_WAIT_MS, so that its connection is not cut mid-call at shutdown. */
static void wait_in_flight(struct ctld *ctld)
{
    uint64_t deadline = uv_now(ctld->loop) + STOP_WAIT_MS;

    while (ctld->acct->in_flight && uv_now(ctld->loop) < deadline) {
        uv_run(ctld->loop, UV_RUN_ONCE);
        uv_update_time(ctld->loop);
    }
}

static void retry_closed(uv_handle_t *h)
{
    struct acct *a = h->data;

    free(a->host);
    free(a->cluster);
    free(a->changed);
    free(a);
}

void acct_fini(struct ctld *ctld)
{
    struct acct *a = ctld->acct;

    if (!enabled(ctld))
        return;
    a->stopping = true;
    wait_in_flight(ctld);
    spool_write(ctld);
    journal_close(a->spool);
    events_drop(a, UINT64_MAX);
    ctld->acct = NULL;
    a->retry.data = a;
    uv_close((uv_handle_t *)&a->retry, retry_closed);
}
