/* SPDX-License-Identifier: Apache-2.0
 *
 * metrics.c - GET /metrics: the cluster in Prometheus' text format
 *
 * Three controller messages per scrape (job_info with only the keys used,
 * node_info, stats_info), as the requesting user: under PrivateData=jobs
 * an ordinary user's scrape counts only their own jobs.  docs/rest.md
 * lists the series.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "cmd/lib/jsonget.h"
#include "common/promtext.h"
#include "restd/rest.h"

/* Count 'key' (a label set) in 'counts'. */
static void count(json_t *counts, const char *key)
{
    json_t *v = json_object_get(counts, key);

    json_object_set_new(counts, key,
                        json_integer(json_integer_value(v) + 1));
}

static void put_counts(struct promtext *t, const char *name, json_t *counts)
{
    const char *key;
    json_t *v;

    json_object_foreach(counts, key, v)
        promtext_put(t, "%s{%s} %lld\n", name, key, (long long)json_integer_value(v));
}

static void job_series(struct promtext *t, const json_t *jobs)
{
    json_t *by_state = json_object(), *by_reason = json_object(), *job;
    char a[512], b[512], c[512], d[512], key[2200];
    size_t i;

    json_array_foreach(jobs, i, job) {
        snprintf(key, sizeof(key),
                 "state=\"%s\",partition=\"%s\",user=\"%s\",account=\"%s\"",
                 promtext_esc(jstr_or(job, "job_state", ""), a),
                 promtext_esc(jstr_or(job, "partition", ""), b),
                 promtext_esc(jstr_or(job, "user_name", ""), c),
                 promtext_esc(jstr_or(job, "account", ""), d));
        count(by_state, key);
        if (!strcmp(jstr_or(job, "job_state", ""), "PENDING")) {
            snprintf(key, sizeof(key), "reason=\"%s\"",
                     promtext_esc(jstr_or(job, "state_reason", ""), a));
            count(by_reason, key);
        }
    }
    promtext_header(t, "drover_jobs", "gauge",
           "Jobs the controller holds, by state, partition, user and "
           "account.");
    put_counts(t, "drover_jobs", by_state);
    promtext_header(t, "drover_jobs_pending", "gauge", "Pending jobs by reason.");
    put_counts(t, "drover_jobs_pending", by_reason);
    json_decref(by_state);
    json_decref(by_reason);
}

/* The UUID of GPU 'index' of node 'name' as its droverd registered it
 * (node_info's "gpus", gres.conf AutoDetect=nvml), or "". */
static const char *gpu_uuid(const json_t *nodes, const char *name,
                            long index)
{
    json_t *node, *gpu;
    size_t i, j;

    json_array_foreach(nodes, i, node) {
        if (strcmp(jstr_or(node, "name", ""), name))
            continue;
        json_array_foreach(json_object_get(node, "gpus"), j, gpu)
            if (jint(gpu, "index", -1) == index)
                return jstr_or(gpu, "uuid", "");
    }
    return "";
}

/* drover_job_gpu_info: one series per GPU of each running job, so that
 * DCGM's per-GPU series join to jobs on node and gpu_index (or uuid). */
static void gpu_line(struct promtext *t, const json_t *job, const json_t *node,
                     long index, const json_t *nodes)
{
    const char *name = jstr_or(node, "node", "");
    char a[512], b[512], c[512];

    promtext_put(t, "drover_job_gpu_info{job_id=\"%lld\",user=\"%s\",node=\"%s\","
           "gpu_index=\"%ld\",uuid=\"%s\"} 1\n",
        (long long)jint(job, "job_id", 0), promtext_esc(jstr_or(job, "user_name", ""), a),
        promtext_esc(name, b), index, promtext_esc(gpu_uuid(nodes, name, index), c));
}

static void gpu_series(struct promtext *t, const json_t *jobs,
                       const json_t *nodes)
{
    json_t *job, *node;
    size_t i, j;

    promtext_header(t, "drover_job_gpu_info", "gauge",
           "1 for each GPU a running job holds (node, index and UUID).");
    json_array_foreach(jobs, i, job) {
        if (strcmp(jstr_or(job, "job_state", ""), "RUNNING"))
            continue;
        json_array_foreach(json_object_get(job, "alloc"), j, node) {
            /* The node's GPU indexes as a list: "0-1,3". */
            for (const char *p = jstr_or(node, "gpus", ""); *p;) {
                char *end;
                long lo = strtol(p, &end, 10), hi = lo;
                if (end == p)
                    break;
                if (*end == '-')
                    hi = strtol(end + 1, &end, 10);
                for (long g = lo; g <= hi && g - lo < 4096; g++)
                    gpu_line(t, job, node, g, nodes);
                p = *end == ',' ? end + 1 : end;
                if (*end && *end != ',')
                    break;
            }
        }
    }
}

/* The count at the end of a GRES string: "gpu:4", "gpu:a100:4(IDX:0-3)"
 * (several kinds: the sum of the gpu ones). */
static long gpu_count(const char *gres)
{
    long total = 0;

    for (const char *p = gres; p && (p = strstr(p, "gpu")); p += 3) {
        const char *end = p + strcspn(p, ",(");
        const char *colon = end;
        while (colon > p && colon[-1] != ':')
            colon--;
        if (colon > p)
            total += strtol(colon, NULL, 10);
    }
    return total;
}

static void node_series(struct promtext *t, const json_t *nodes)
{
    json_t *by_state = json_object(), *node;
    long long cpus = 0, alloc_cpus = 0, mem = 0, alloc_mem = 0, gpus = 0,
              alloc_gpus = 0;
    char a[512], key[600];
    size_t i;

    json_array_foreach(nodes, i, node) {
        snprintf(key, sizeof(key), "state=\"%s\"",
                 promtext_esc(jstr_or(node, "state_str", ""), a));
        count(by_state, key);
        cpus += jint(node, "cpus", 0);
        alloc_cpus += jint(node, "alloc_cpus", 0);
        mem += jint(node, "real_memory_mib", 0);
        alloc_mem += jint(node, "alloc_mem_mib", 0);
        gpus += gpu_count(jstr_or(node, "gres", ""));
        alloc_gpus += gpu_count(jstr_or(node, "gres_used", ""));
    }
    promtext_header(t, "drover_nodes", "gauge", "Nodes by state (sinfo's words).");
    put_counts(t, "drover_nodes", by_state);
    promtext_header(t, "drover_cpus", "gauge", "CPUs of all nodes, by use.");
    promtext_put(t, "drover_cpus{use=\"total\"} %lld\ndrover_cpus{use=\"allocated\"}"
           " %lld\ndrover_cpus{use=\"idle\"} %lld\n",
        cpus, alloc_cpus, cpus - alloc_cpus);
    promtext_header(t, "drover_memory_bytes", "gauge",
           "Configured memory of all nodes (RealMemory), by use.");
    promtext_put(t, "drover_memory_bytes{use=\"total\"} %lld\n"
           "drover_memory_bytes{use=\"allocated\"} %lld\n"
           "drover_memory_bytes{use=\"idle\"} %lld\n",
        mem << 20, alloc_mem << 20, (mem - alloc_mem) << 20);
    promtext_header(t, "drover_gpus", "gauge", "GPUs of all nodes, by use.");
    promtext_put(t, "drover_gpus{use=\"total\"} %lld\ndrover_gpus{use=\"allocated\"}"
           " %lld\ndrover_gpus{use=\"idle\"} %lld\n",
        gpus, alloc_gpus, gpus - alloc_gpus);
    json_decref(by_state);
}

/* NAME_bucket{labels,le=...}, NAME_sum, NAME_count of a histogram whose
 * "le_us" (common/histogram.h), "total_us" and "count" (or "cycles")
 * are in 'h'. */
static void histogram_lines(struct promtext *t, const char *name,
                            const char *labels, const json_t *h)
{
    const char *sep = labels ? "," : "";
    json_int_t n = json_object_get(h, "count") ? jint(h, "count", 0)
                                               : jint(h, "cycles", 0);
    json_t *b;
    size_t i;

    labels = labels ? labels : "";
    json_array_foreach(json_object_get(h, "le_us"), i, b)
        promtext_put(t, "%s_bucket{%s%sle=\"%g\"} %lld\n", name, labels, sep,
            (double)json_integer_value(json_array_get(b, 0)) / 1e6,
            (long long)json_integer_value(json_array_get(b, 1)));
    promtext_put(t, "%s_bucket{%s%sle=\"+Inf\"} %lld\n", name, labels, sep,
        (long long)n);
    promtext_put(t, "%s_sum%s%s%s %.6f\n", name, *labels ? "{" : "", labels,
        *labels ? "}" : "", jint(h, "total_us", 0) / 1e6);
    promtext_put(t, "%s_count%s%s%s %lld\n", name, *labels ? "{" : "", labels,
        *labels ? "}" : "", (long long)n);
}

static void sched_series(struct promtext *t, const json_t *st)
{
    const json_t *sched = json_object_get(st, "schedule");
    const json_t *jobs = json_object_get(st, "jobs");
    char a[512];
    json_t *e;
    size_t i;

    promtext_header(t, "drover_scheduler_cycles_total", "counter",
           "Scheduling passes since the statistics were reset.");
    promtext_put(t, "drover_scheduler_cycles_total %lld\n",
        (long long)jint(sched, "cycles", 0));
    promtext_header(t, "drover_scheduler_cycle_seconds", "histogram",
           "Scheduling pass times (each pass includes backfill).");
    histogram_lines(t, "drover_scheduler_cycle_seconds", NULL, sched);
    promtext_header(t, "drover_scheduler_cycle_max_seconds", "gauge",
           "The longest scheduling pass.");
    promtext_put(t, "drover_scheduler_cycle_max_seconds %.6f\n",
        jint(sched, "max_cycle_us", 0) / 1e6);
    promtext_header(t, "drover_backfilled_jobs_total", "counter",
           "Jobs started by backfill since the controller started.");
    promtext_put(t, "drover_backfilled_jobs_total %lld\n",
        (long long)jint(st, "backfilled_since_start", 0));
    promtext_header(t, "drover_job_events_total", "counter",
           "Jobs by what happened to them since the statistics were reset.");
    static const char *const events[] = {"submitted", "started", "completed",
                                         "canceled", "failed", NULL};
    for (size_t k = 0; events[k]; k++)
        promtext_put(t, "drover_job_events_total{event=\"%s\"} %lld\n", events[k],
            (long long)jint(jobs, events[k], 0));
    promtext_header(t, "drover_accounting_queue", "gauge",
           "Accounting records waiting for droverdbd.");
    promtext_put(t, "drover_accounting_queue %lld\n",
        (long long)jint(st, "dbd_agent_queue_size", 0));
    promtext_header(t, "drover_rpc_requests_total", "counter",
           "Messages served by the controller, by type.");
    json_array_foreach(json_object_get(json_object_get(st, "rpc"), "types"),
                       i, e)
        promtext_put(t, "drover_rpc_requests_total{type=\"%s\"} %lld\n",
            promtext_esc(jstr_or(e, "type", ""), a), (long long)jint(e, "count", 0));
    promtext_header(t, "drover_rpc_duration_seconds", "histogram",
           "Time from a message's arrival to its answer, by type.");
    json_array_foreach(json_object_get(json_object_get(st, "rpc"), "types"),
                       i, e) {
        char label[600];
        snprintf(label, sizeof(label), "type=\"%s\"",
                 promtext_esc(jstr_or(e, "type", ""), a));
        histogram_lines(t, "drover_rpc_duration_seconds", label, e);
    }
}

void rest_metrics(struct rest_req *r, const char *arg)
{
    json_t *jobs = NULL, *nodes = NULL, *st = NULL;
    struct promtext t = {0};

    (void)arg;
    if (rest_call(r, "job_info",
                  json_pack("{s:b s:[sssssss]}", "show_all", 1, "fields",
                            "job_id", "job_state", "state_reason",
                            "partition", "user_name", "account", "alloc"),
                  &jobs)
            < 0
        || rest_call(r, "node_info", json_object(), &nodes) < 0
        || rest_call(r, "stats_info", json_object(), &st) < 0)
        goto out;
    job_series(&t, json_object_get(jobs, "jobs"));
    gpu_series(&t, json_object_get(jobs, "jobs"),
               json_object_get(nodes, "nodes"));
    node_series(&t, json_object_get(nodes, "nodes"));
    sched_series(&t, st);
    if (t.oom) {
        rest_fail(r, MHD_HTTP_INTERNAL_SERVER_ERROR, ENOMEM, "out of memory");
        goto out;
    }
    r->text = t.buf;
    t.buf = NULL;
    r->content_type = "text/plain; version=0.0.4; charset=utf-8";
    r->status = MHD_HTTP_OK;
out:
    free(t.buf);
    json_decref(jobs);
    json_decref(nodes);
    json_decref(st);
}
