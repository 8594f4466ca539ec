/* SPDX-License-Identifier: Apache-2.0
 *
 * slurm_v38.c - slurmrestd's /slurm/v0.0.38, v0.0.39 and v0.0.40 paths,
 * each in its version's shapes (api.h)
 *
 * Jobs, nodes and partitions come out of the same converters as
 * `squeue --json`, `sinfo --json` and `scontrol --json show` (cmd/lib/
 * json_out.c), so a tool sees one shape whichever way it asks; the later
 * versions' shapes are made from those (shapes.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#include "cmd/lib/json_out.h"
#include "cmd/lib/jsonget.h"
#include "common/error.h"
#include "restd/api.h"
#include "restd/rest.h"

void rest_ping(struct rest_req *r, const char *arg)
{
    const struct rest_api *api = rest_api_of(r->path);
    json_t *resp = NULL, *doc, *ping;
    const char *host;
    struct timespec t0, t1;

    (void)arg;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (rest_call(r, "ping", json_object(), &resp) < 0)
        return;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    host = json_string_value(json_object_get(resp, "host")) ?: "";
    doc = rest_api_doc(api);
    if (api->minor == 38)
        ping = json_pack("{s:s s:s s:i s:s}", "hostname", host, "ping", "UP",
                         "status", 0, "mode", "primary");
    else /* v0.0.39: "pinged" and the latency (microseconds) */
        ping = json_pack("{s:s s:s s:I s:s}", "hostname", host, "pinged",
                         "UP", "latency",
                         (json_int_t)((t1.tv_sec - t0.tv_sec) * 1000000
                                      + (t1.tv_nsec - t0.tv_nsec) / 1000),
                         "mode", "primary");
    if (api->minor >= 40) {
        json_object_set_new(ping, "responding", json_true());
        json_object_set_new(ping, "primary", json_true());
    }
    json_object_set_new(doc, "pings", json_pack("[o]", ping));
    json_decref(resp);
    rest_answer(r, doc);
}

/* sdiag's remote-procedure-call table as v0.0.38's rpcs_by_message_type. */
static json_t *rpcs(const struct rest_api *api, const json_t *rpc)
{
    json_t *out = json_array(), *e;
    size_t i;

    json_array_foreach(json_object_get(rpc, "types"), i, e) {
        json_int_t count = jint(e, "count", 0), total = jint(e, "total_us", 0);
        json_array_append_new(
            out, json_pack("{s:O s:I s:I s:I}", "message_type",
                           json_object_get(e, "type") ?: json_null(),
                           "count", count, "average_time",
                           count ? total / count : 0, "total_time", total));
        if (api->minor >= 39) /* 23.02 adds the message's number */
            json_object_set_new(json_array_get(out, i), "type_id",
                                json_integer(jint(e, "id", 0)));
        if (api->minor >= 40)
            json_object_set_new(json_array_get(out, i), "average_time",
                                shape_no_val(1, 0, count ? total / count
                                                         : 0));
    }
    return out;
}

void rest_diag(struct rest_req *r, const char *arg)
{
    const struct rest_api *api = rest_api_of(r->path);
    json_t *st = NULL, *jobs, *sched, *doc, *stats;

    (void)arg;
    if (rest_call(r, "stats_info", json_object(), &st) < 0)
        return;
    jobs = json_object_get(st, "jobs");
    sched = json_object_get(st, "schedule");
    doc = rest_api_doc(api);
    json_object_set_new(
        doc, "statistics",
        json_pack("{s:I s:I s:I s:I s:I s:I s:I s:I s:I s:I s:I s:I s:I"
                  " s:I s:I s:I s:I s:I s:I s:I s:I s:o}",
                  "req_time", jint(st, "req_time", 0), "req_time_start",
                  jint(st, "since", 0), "server_thread_count",
                  jint(st, "server_thread_count", 0), "agent_queue_size",
                  jint(st, "agent_queue_size", 0), "agent_count",
                  jint(st, "agent_count", 0), "dbd_agent_queue_size",
                  jint(st, "dbd_agent_queue_size", 0), "gettimeofday_latency",
                  jint(st, "gettimeofday_latency_us", 0), "schedule_cycle_max",
                  jint(sched, "max_cycle_us", 0), "schedule_cycle_last",
                  jint(sched, "last_cycle_us", 0), "schedule_cycle_mean",
                  jint(sched, "mean_cycle_us", 0), "schedule_cycle_mean_depth",
                  jint(sched, "mean_depth", 0), "schedule_cycle_per_minute",
                  jint(sched, "cycles_per_minute", 0), "schedule_queue_length",
                  jint(sched, "last_queue_length", 0), "jobs_submitted",
                  jint(jobs, "submitted", 0), "jobs_started",
                  jint(jobs, "started", 0), "jobs_completed",
                  jint(jobs, "completed", 0), "jobs_canceled",
                  jint(jobs, "canceled", 0), "jobs_failed", jint(jobs, "failed", 0),
                  "jobs_pending", jint(st, "jobs_pending", 0), "jobs_running",
                  jint(st, "jobs_running", 0), "bf_backfilled_jobs",
                  jint(st, "backfilled_jobs", 0), "rpcs_by_message_type",
                  rpcs(api, json_object_get(st, "rpc"))));
    stats = json_object_get(doc, "statistics");
    if (api->minor >= 40) /* 23.11: the times are uint64_no_val */
        for (const char *const *k = (const char *const[]){"req_time",
                                                          "req_time_start",
                                                          NULL};
             *k; k++)
            json_object_set_new(stats, *k, shape_no_val(1, 0, jint(
                                               stats, *k, 0)));
    json_decref(st);
    rest_answer(r, doc);
}

/* Answer {meta, errors, key: [each of resp[key] in the path's version's
 * shape of 'kind']}. */
static void answer_list(struct rest_req *r, json_t *resp, const char *key,
                        enum rest_rec kind)
{
    const struct rest_api *api = rest_api_of(r->path);
    json_t *arr = json_object_get(resp, key);
    size_t n = json_array_size(arr);
    const json_t **recs = calloc(n + 1, sizeof(*recs));
    json_t *doc;

    if (!recs) {
        json_decref(resp);
        return rest_fail(r, MHD_HTTP_INTERNAL_SERVER_ERROR, ENOMEM,
                         "out of memory");
    }
    for (size_t k = 0; k < n; k++)
        recs[k] = json_array_get(arr, k);
    doc = rest_api_doc(api);
    json_out_add(doc, key, recs, n, rest_api_convert(api, kind));
    if (api->minor >= 40) /* 23.11's lists say when they were made */
        json_object_set_new(doc, "last_update",
                            shape_no_val(1, 0, (json_int_t)time(NULL)));
    if (api->minor >= 40 && kind == REST_JOB)
        json_object_set_new(doc, "last_backfill", shape_no_val(0, 0, 0));
    free(recs);
    json_decref(resp);
    rest_answer(r, doc);
}

void rest_jobs(struct rest_req *r, const char *arg)
{
    json_t *resp = NULL;

    (void)arg;
    if (rest_call(r, "job_info", json_pack("{s:b}", "show_all", 1), &resp)
        == 0)
        answer_list(r, resp, "jobs", REST_JOB);
}

/* A job id of the path: digits only, as slurmrestd requires. */
static bool job_id_of(struct rest_req *r, const char *arg, json_int_t *id)
{
    char *end;
    unsigned long long v;

    errno = 0;
    v = strtoull(arg, &end, 10);
    if (!*arg || *end || errno || v == 0 || v > UINT32_MAX) {
        rest_fail(r, MHD_HTTP_BAD_REQUEST, EDRV_INVALID_JOB_ID,
                  "%s: not a job id", arg);
        return false;
    }
    *id = (json_int_t)v;
    return true;
}

/* One job's record; with 'explain', plus "pending_explain". */
static void job_get(struct rest_req *r, const char *arg, bool explain)
{
    json_t *resp = NULL, *why, *rec;
    json_int_t id;

    if (!job_id_of(r, arg, &id)
        || rest_call(r, "job_info",
                     json_pack("{s:[I] s:b}", "job_ids", id, "show_all", 1),
                     &resp)
               < 0)
        return;
    if (!json_array_size(json_object_get(resp, "jobs"))) {
        json_decref(resp);
        return rest_fail_errno(r, EDRV_INVALID_JOB_ID, NULL);
    }
    why = explain ? json_incref(json_object_get(
                        json_array_get(json_object_get(resp, "jobs"), 0),
                        "pending_explain"))
                  : NULL;
    answer_list(r, resp, "jobs", REST_JOB);
    rec = json_array_get(json_object_get(r->answer, "jobs"), 0);
    if (why && json_is_object(rec))
        json_object_set(rec, "pending_explain", why);
    json_decref(why);
}

void rest_job_get(struct rest_req *r, const char *arg)
{
    job_get(r, arg, false);
}

void rest_job_get_explained(struct rest_req *r, const char *arg)
{
    job_get(r, arg, true);
}

/* signal=NAME or number (slurmrestd's query argument), default KILL. */
static int signal_of(struct rest_req *r)
{
    static const struct { const char *name; int num; } names[] = {
        {"HUP", SIGHUP}, {"INT", SIGINT}, {"QUIT", SIGQUIT},
        {"KILL", SIGKILL}, {"USR1", SIGUSR1}, {"USR2", SIGUSR2},
        {"TERM", SIGTERM}, {"CONT", SIGCONT}, {"STOP", SIGSTOP},
        {"TSTP", SIGTSTP}, {"ALRM", SIGALRM},
    };
    const char *s = rest_query(r, "signal");
    char *end;
    long v;

    if (!s || !*s)
        return SIGKILL;
    if (!strncasecmp(s, "SIG", 3))
        s += 3;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (!strcasecmp(s, names[i].name))
            return names[i].num;
    v = strtol(s, &end, 10);
    if (*end || v <= 0 || v >= 65)
        return -1;
    return (int)v;
}

void rest_job_delete(struct rest_req *r, const char *arg)
{
    json_int_t id;
    int signo = signal_of(r);

    if (signo < 0)
        return rest_fail(r, MHD_HTTP_BAD_REQUEST, EINVAL,
                         "signal=%s: not a signal", rest_query(r, "signal"));
    if (!job_id_of(r, arg, &id)
        || rest_call(r, "job_cancel",
                     json_pack("{s:I s:i}", "job_id", id, "signal", signo),
                     NULL)
               < 0)
        return;
    rest_answer(r, rest_api_doc(rest_api_of(r->path)));
}

/* One listing of the controller: what message 'type' with 'body'
 * (stolen) answers under 'key', each record through 'convert'.  With a
 * 'name' (one record asked for), an empty answer is a 404 of 'errnum'. */
struct listing {
    const char *type, *key;
    enum rest_rec kind;
    int errnum;
};

static void list_answer(struct rest_req *r, const struct listing *l,
                        json_t *body, const char *name)
{
    json_t *resp = NULL;

    if (rest_call(r, l->type, body, &resp) < 0)
        return;
    if (name && !json_array_size(json_object_get(resp, l->key))) {
        json_decref(resp);
        return rest_fail_errno(r, l->errnum, NULL);
    }
    answer_list(r, resp, l->key, l->kind);
}

static const struct listing node_listing = {
    "node_info", "nodes", REST_NODE, EDRV_INVALID_NODE_NAME,
};
static const struct listing partition_listing = {
    "partition_info", "partitions", REST_PARTITION,
    EDRV_INVALID_PARTITION_NAME,
};
static const struct listing resv_listing = {
    "resv_info", "reservations", REST_RESV,
    EDRV_RESERVATION_INVALID,
};

void rest_nodes(struct rest_req *r, const char *arg)
{
    (void)arg;
    list_answer(r, &node_listing, json_object(), NULL);
}

void rest_node_get(struct rest_req *r, const char *arg)
{
    list_answer(r, &node_listing, json_pack("{s:[s]}", "names", arg), arg);
}

void rest_partitions(struct rest_req *r, const char *arg)
{
    (void)arg;
    list_answer(r, &partition_listing, json_pack("{s:b}", "show_all", 1),
                NULL);
}

void rest_partition_get(struct rest_req *r, const char *arg)
{
    list_answer(r, &partition_listing,
                json_pack("{s:b s:[s]}", "show_all", 1, "names", arg), arg);
}

void rest_reservations(struct rest_req *r, const char *arg)
{
    (void)arg;
    list_answer(r, &resv_listing, json_object(), NULL);
}

void rest_reservation_get(struct rest_req *r, const char *arg)
{
    list_answer(r, &resv_listing, json_pack("{s:s}", "name", arg), arg);
}
