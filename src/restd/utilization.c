/* SPDX-License-Identifier: Apache-2.0
 *
 * utilization.c - GET /drover/v1/utilization: the cluster's usage hour by
 * hour, from accounting
 *
 * The same acct_usage_report "cluster_utilization" request sreport sends
 * (docs/protocol.md, "Usage reports"), with "hourly": droverdbd adds
 * each hour's figures from its hourly rollup to the window's totals, and
 * authorizes it as sreport's (any user; the token travels on).  start=
 * and end= take what sreport's start= and end= take and make the same
 * window of it (sreport_window.h); the default is the 24 hours up to the
 * end of the hour in progress.
 */
#include <stdio.h>
#include <time.h>

#include <microhttpd.h>

#include "cmd/lib/json_out.h"
#include "cmd/lib/sbatch_req.h"
#include "cmd/lib/sreport_window.h"
#include "common/error.h"
#include "restd/rest.h"

/* Longest window answered hour by hour: 93 days. */
#define UTIL_MAX_HOURS (93 * 24)

static const char *const util_keys[] = {"count", "allocated", "down",
                                        "planned_down", "idle", "planned",
                                        "reported"};

/* ?key=WHEN (as sreport's start=/end=) into *t; false after a 400. */
static bool when_arg(struct rest_req *r, const char *key, time_t now,
                     time_t *t)
{
    const char *v = rest_query(r, key);
    int pos = 0;

    if (!v || !*v)
        return true;
    if (sbatch_parse_past(v, now, t, &pos) < 0) {
        rest_fail(r, MHD_HTTP_BAD_REQUEST, EDRV_INVALID_TIME_VALUE,
                  "%s=%s: Invalid time specification (pos=%d)", key, v,
                  pos);
        return false;
    }
    return true;
}

/* An hour without usage rows: every figure 0. */
static json_t *empty_hour(json_int_t t)
{
    json_t *o = json_pack("{s:I}", "start", t);

    for (size_t i = 0; i < sizeof(util_keys) / sizeof(util_keys[0]); i++)
        json_object_set_new(o, util_keys[i],
                            json_pack("{s:i s:i}", "cpu", 0, "gres/gpu", 0));
    return o;
}

/* Every hour of [start, end): droverdbd's where it has one, else zeros. */
static json_t *all_hours(json_int_t start, json_int_t end, json_t *rows)
{
    json_t *out = json_array();
    size_t k = 0;

    for (json_int_t t = start; t < end; t += 3600) {
        json_t *row = json_array_get(rows, k);
        if (row && json_integer_value(json_object_get(row, "start")) == t) {
            json_array_append(out, row);
            k++;
        } else {
            json_array_append_new(out, empty_hour(t));
        }
    }
    return out;
}

/* The answer: the window, its totals and its hours. */
static json_t *util_doc(const char *cluster, json_t *resp)
{
    json_int_t start = json_integer_value(json_object_get(resp, "start"));
    json_int_t end = json_integer_value(json_object_get(resp, "end"));
    json_t *c = json_array_get(json_object_get(resp, "clusters"), 0);
    json_t *doc = json_out_doc(), *totals = empty_hour(start);

    json_object_del(totals, "start");
    for (size_t i = 0; c && i < sizeof(util_keys) / sizeof(util_keys[0]);
         i++)
        json_object_set(totals, util_keys[i],
                        json_object_get(c, util_keys[i]));
    json_object_set_new(doc, "cluster", json_string(cluster));
    json_object_set_new(doc, "start", json_integer(start));
    json_object_set_new(doc, "end", json_integer(end));
    json_object_set_new(doc, "tres", json_pack("[s s]", "cpu", "gres/gpu"));
    json_object_set_new(doc, "totals", totals);
    json_object_set_new(doc, "hours",
                        all_hours(start, end, json_object_get(c, "hours")));
    return doc;
}

void rest_drover_utilization(struct rest_req *r, const char *arg)
{
    const char *cluster = r->rd->conf->cluster_name
                              ? r->rd->conf->cluster_name
                              : "cluster";
    time_t now = time(NULL);
    time_t end = now - now % 3600 + 3600, start;
    json_t *resp = NULL, *body;

    (void)arg;
    if (!when_arg(r, "end", now, &end))
        return;
    start = end - 24 * 3600;
    if (!when_arg(r, "start", now, &start))
        return;
    sreport_window(&start, &end, now);
    if (end - start > (time_t)UTIL_MAX_HOURS * 3600)
        return rest_fail(r, MHD_HTTP_BAD_REQUEST, EDRV_INVALID_TIME_VALUE,
                         "start= to end= spans %lld hours; at most %d "
                         "hours are answered hour by hour",
                         (long long)(end - start) / 3600, UTIL_MAX_HOURS);
    body = json_pack("{s:s s:I s:I s:s s:s s:b}", "report",
                     "cluster_utilization", "start", (json_int_t)start, "end",
                     (json_int_t)end, "tres", "cpu,gres/gpu", "cluster",
                     cluster, "hourly", 1);
    if (rest_call_dbd(r, "acct_usage_report", body, &resp) < 0)
        return;
    rest_answer(r, util_doc(cluster, resp));
    json_decref(resp);
}
