/* SPDX-License-Identifier: Apache-2.0
 *
 * usage_report.c - acct_usage_report: sums over the rollup tables
 *
 * A window [start, end) of whole hours is cut into whole months (monthly
 * table), whole days (daily table) and the hours left at its edges
 * (hourly table), so a report over a year reads a dozen monthly rows per
 * (account, user) instead of its jobs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/xalloc.h"
#include "dbd/assoc_store.h"
#include "dbd/usage_private.h"
#include "dbd/usage_store.h"

void usage_parse_tres(const char *s, int64_t tres[USAGE_NTRES])
{
    memset(tres, 0, USAGE_NTRES * sizeof(tres[0]));
    while (s && *s) {
        const char *eq = strchr(s, '='), *comma = strchr(s, ',');
        size_t klen = eq ? (size_t)(eq - s) : 0;
        char *end;

        if (!eq || (comma && comma < eq))
            break;
        double v = strtod(eq + 1, &end);
        if (klen == 3 && !strncmp(s, "mem", 3)) {
            double scale = 1;
            switch (*end) {
            case 'K': scale = 1.0 / 1024; break;
            case 'G': scale = 1024; break;
            case 'T': scale = 1024.0 * 1024; break;
            default: break;
            }
            tres[USAGE_MEM] = (int64_t)(v * scale + 0.5);
        } else if (klen == 3 && !strncmp(s, "cpu", 3)) {
            tres[USAGE_CPU] = (int64_t)v;
        } else if (klen == 4 && !strncmp(s, "node", 4)) {
            tres[USAGE_NODE] = (int64_t)v;
        } else if (klen == 8 && !strncmp(s, "gres/gpu", 8)) {
            tres[USAGE_GPU] = (int64_t)v;
        }
        s = comma ? comma + 1 : NULL;
    }
}

/* ---- the window, cut into tables ---- */

enum grain { G_HOUR, G_DAY, G_MONTH };

struct range {
    enum grain g;
    int64_t t0, t1;
};

struct ranges {
    struct range v[64];
    size_t n;
};

static void add_range(struct ranges *r, enum grain g, int64_t t0, int64_t t1)
{
    if (r->n && r->v[r->n - 1].g == g && r->v[r->n - 1].t1 == t0) {
        r->v[r->n - 1].t1 = t1;
        return;
    }
    if (r->n < sizeof(r->v) / sizeof(r->v[0]))
        r->v[r->n++] = (struct range){g, t0, t1};
}

/* Whole months, then whole days, then hours, from 'start' to 'end'. */
static void cut_window(int64_t start, int64_t end, struct ranges *r)
{
    int64_t t = start;

    r->n = 0;
    while (t < end) {
        int64_t nm = usage_next_month(t), nd = usage_next_day(t);
        if (usage_month_start(t) == t && nm <= end) {
            add_range(r, G_MONTH, t, nm);
            t = nm;
        } else if (usage_day_start(t) == t && nd <= end) {
            add_range(r, G_DAY, t, nd);
            t = nd;
        } else {
            add_range(r, G_HOUR, t, t + 3600);
            t += 3600;
        }
    }
}

static const char *const assoc_tables[] = {"usage_hour", "usage_day",
                                           "usage_month"};
static const char *const cluster_tables[] = {"cluster_usage_hour",
                                             "cluster_usage_day",
                                             "cluster_usage_month"};

/* The first and last month of a cluster's usage rows ([0] > [1]: none). */
static int month_span_row(const struct db_row *row, void *arg)
{
    int64_t *span = arg;

    if (!db_row_is_null(row, 0) && !db_row_is_null(row, 1)) {
        span[0] = db_row_int(row, 0);
        span[1] = db_row_int(row, 1);
    }
    return 0;
}

/* Cut the part of [start, end) where cluster 'cid' has usage rows into
 * ranges: every hourly and daily row lies inside a monthly row made of it,
 * so nothing outside its first to last month adds anything.  However wide
 * the request, the window read is at most the span of the data.
 */
static int cut_data_window(db_t *db, int64_t cid, int64_t start, int64_t end,
                           struct ranges *r, drv_error_t *error)
{
    struct db_param p[] = {DB_INT(cid), DB_INT(cid)};
    int64_t span[2] = {1, 0};

    r->n = 0;
    if (db_query(db, "SELECT MIN(t), MAX(t) FROM (SELECT t FROM "
                     "cluster_usage_month WHERE cluster_id = ? UNION ALL "
                     "SELECT t FROM usage_month WHERE cluster_id = ?) AS m",
                 p, 2, month_span_row, span, error) < 0)
        return -1;
    if (span[0] > span[1])
        return 0;
    if (start < span[0])
        start = span[0];
    if (end > usage_next_month(span[1]))
        end = usage_next_month(span[1]);
    cut_window(start, end, r);
    return 0;
}

/* ---- per cluster sums ---- */

/* The columns of a cluster table summed or read by the queries below. */
#define CSUM_COLS "SUM(cpu_s), SUM(mem_s), SUM(node_s), SUM(gpu_s), " \
    "SUM(cap_cpu_s), SUM(cap_mem_s), SUM(cap_node_s), SUM(cap_gpu_s), " \
    "SUM(plan_cpu_s), SUM(plan_mem_s), SUM(plan_node_s), SUM(plan_gpu_s), " \
    "SUM(pdown_cpu_s), SUM(pdown_mem_s), SUM(pdown_node_s), SUM(pdown_gpu_s)"

/* Add the CSUM_COLS of 'row', from column 'base' on, into 'c'. */
static void add_csum(const struct db_row *row, size_t base,
                     struct usage_csum *c)
{
    for (size_t i = 0; i < USAGE_NTRES; i++) {
        c->alloc[i] += db_row_int(row, base + i);
        c->cap[i] += db_row_int(row, base + USAGE_NTRES + i);
        c->plan[i] += db_row_int(row, base + 2 * USAGE_NTRES + i);
        c->pdown[i] += db_row_int(row, base + 3 * USAGE_NTRES + i);
    }
}

static int cluster_row(const struct db_row *row, void *arg)
{
    add_csum(row, 0, arg);
    return 0;
}

/* (account, user) -> TRES seconds, in a JSON object keyed "acct\037user". */
static int assoc_row(const struct db_row *row, void *arg)
{
    json_t *sums = arg, *a;
    char *key = xasprintf("%s\037%s", db_row_text(row, 0),
                          db_row_text(row, 1));

    if (!(a = json_object_get(sums, key))) {
        a = json_array();
        for (int i = 0; i < USAGE_NTRES; i++)
            json_array_append_new(a, json_integer(0));
        json_object_set_new(sums, key, a);
    }
    for (int i = 0; i < USAGE_NTRES; i++)
        json_integer_set(json_array_get(a, (size_t)i),
                         json_integer_value(json_array_get(a, (size_t)i))
                             + db_row_int(row, (size_t)(2 + i)));
    free(key);
    return 0;
}

static int sum_ranges(db_t *db, int64_t cid, const struct ranges *r,
                      struct usage_csum *c, json_t *assoc_sums, drv_error_t *error)
{
    for (size_t i = 0; i < r->n; i++) {
        struct db_param p[] = {DB_INT(cid), DB_INT(r->v[i].t0),
                               DB_INT(r->v[i].t1)};
        char *sql = xasprintf("SELECT " CSUM_COLS " FROM %s WHERE "
                              "cluster_id = ? AND t >= ? AND t < ?",
                              cluster_tables[r->v[i].g]);
        int rc = db_query(db, sql, p, 3, cluster_row, c, error);
        free(sql);
        if (rc < 0)
            return -1;
        if (!assoc_sums)
            continue;
        sql = xasprintf("SELECT account, user_name, SUM(cpu_s), SUM(mem_s), "
                        "SUM(node_s), SUM(gpu_s) FROM %s WHERE cluster_id = ? "
                        "AND t >= ? AND t < ? GROUP BY account, user_name",
                        assoc_tables[r->v[i].g]);
        rc = db_query(db, sql, p, 3, assoc_row, assoc_sums, error);
        free(sql);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* ---- hour by hour ---- */

struct hours_ctx {
    const struct usage_req *q;
    json_t *hours;
};

/* One hour of cluster_usage_hour: its figures as the window's totals. */
static int hour_row(const struct db_row *row, void *arg)
{
    struct hours_ctx *h = arg;
    struct usage_csum c = {{0}, {0}, {0}, {0}};
    struct usage_req hq = *h->q;
    int64_t now = (int64_t)time(NULL);
    json_t *o;

    hq.start = db_row_int(row, 0);
    hq.end = hq.start + 3600;
    /* The hour in progress: its average capacity so far, not over the
     * whole hour (which read 0 in its first minutes). */
    if (hq.end > now && now > hq.start)
        hq.end = now;
    add_csum(row, 1, &c);
    o = usage_cluster_totals(&hq, "", &c);
    json_object_del(o, "cluster");
    json_object_set_new(o, "start", json_integer(hq.start));
    json_array_append_new(h->hours, o);
    return 0;
}

/* The hours of [q->start, q->end) that cluster 'cid' has rows for, oldest
 * first: [{"start":t,"count",...,"reported"}]; NULL on a database error.
 */
static json_t *hour_rows(db_t *db, const struct usage_req *q, int64_t cid,
                         drv_error_t *error)
{
    struct db_param p[] = {DB_INT(cid), DB_INT(q->start), DB_INT(q->end)};
    struct hours_ctx h = {q, json_array()};

    if (db_query(db, "SELECT t, " CSUM_COLS " FROM cluster_usage_hour "
                     "WHERE cluster_id = ? AND t >= ? AND t < ? "
                     "GROUP BY t ORDER BY t",
                 p, 3, hour_row, &h, error) < 0) {
        json_decref(h.hours);
        return NULL;
    }
    return h.hours;
}

/* ---- the request ---- */

static int bad(drv_error_t *error, const char *what)
{
    errno = EINVAL;
    return errprintf(error, "acct_usage_report: %s", what);
}

static int parse_tres(json_t *v, struct usage_req *q, drv_error_t *error)
{
    char *list, *tok, *save = NULL;
    int rc = 0;

    if (!v) {
        q->tres[USAGE_CPU] = true;
        return 0;
    }
    if (!json_is_string(v))
        return bad(error, "\"tres\" must be a string (\"cpu,gres/gpu\")");
    list = xstrdup(json_string_value(v));
    for (tok = strtok_r(list, ",", &save); tok && rc == 0;
         tok = strtok_r(NULL, ",", &save)) {
        int i = usage_tres_index(tok);
        if (i < 0)
            rc = errprintf(error, "acct_usage_report: unknown TRES '%s' "
                           "(cpu, mem, node, gres/gpu)", tok);
        else
            q->tres[i] = true;
    }
    free(list);
    if (rc < 0)
        errno = EINVAL;
    return rc;
}

/* 't' brought into [0, USAGE_TIME_MAX]. */
static int64_t clamp_time(int64_t t)
{
    return t < 0 ? 0 : t > USAGE_TIME_MAX ? USAGE_TIME_MAX : t;
}

static int parse_req(json_t *body, struct usage_req *q, drv_error_t *error)
{
    json_t *v;

    q->report = json_string_value(json_object_get(body, "report"));
    if (!q->report || (strcmp(q->report, "cluster_utilization")
                       && strcmp(q->report, "account_utilization_by_user")
                       && strcmp(q->report, "user_topusage")))
        return bad(error, "\"report\" must be cluster_utilization, "
                   "account_utilization_by_user or user_topusage");
    if (!json_is_integer(json_object_get(body, "start"))
        || !json_is_integer(json_object_get(body, "end")))
        return bad(error, "\"start\" and \"end\" must be integers");
    q->start = json_integer_value(json_object_get(body, "start"));
    q->end = json_integer_value(json_object_get(body, "end"));
    q->start = clamp_time(q->start);
    q->end = clamp_time(q->end);
    q->start -= q->start % 3600;
    q->end -= q->end % 3600;
    if (q->end <= q->start)
        q->end = q->start + 3600;
    if ((v = json_object_get(body, "cluster")) && !json_is_string(v))
        return bad(error, "\"cluster\" must be a string");
    q->cluster = json_string_value(v);
    q->users = json_object_get(body, "users");
    q->accounts = json_object_get(body, "accounts");
    if ((q->users && !json_is_array(q->users))
        || (q->accounts && !json_is_array(q->accounts)))
        return bad(error, "\"users\" and \"accounts\" must be arrays");
    v = json_object_get(body, "top_count");
    q->top_count = json_is_integer(v) ? json_integer_value(v) : 10;
    q->group = json_is_true(json_object_get(body, "group"));
    v = json_object_get(body, "hourly");
    if (v && !json_is_boolean(v))
        return bad(error, "\"hourly\" must be true or false");
    q->hourly = json_is_true(v);
    if (q->hourly && strcmp(q->report, "cluster_utilization"))
        return bad(error, "\"hourly\" is for cluster_utilization only");
    return parse_tres(json_object_get(body, "tres"), q, error);
}

bool usage_in_list(json_t *list, const char *s)
{
    json_t *v;
    size_t i;

    if (!list || !json_array_size(list))
        return true;
    json_array_foreach(list, i, v) {
        if (json_is_string(v) && !strcmp(json_string_value(v), s))
            return true;
    }
    return false;
}

/* {tres name: value} for the TRES asked for. */
json_t *usage_tres_obj(const struct usage_req *q, const int64_t *v)
{
    json_t *o = json_object();

    for (int i = 0; i < USAGE_NTRES; i++)
        if (q->tres[i])
            json_object_set_new(o, usage_tres_names[i], json_integer(v[i]));
    return o;
}

void usage_sums_of(json_t *a, int64_t *v)
{
    for (int i = 0; i < USAGE_NTRES; i++)
        v[i] = a ? json_integer_value(json_array_get(a, (size_t)i)) : 0;
}

static int cluster_ref_row(const struct db_row *row, void *arg)
{
    json_t *list = arg;

    json_array_append_new(list, json_pack("{s:I s:s}", "id",
                                          (json_int_t)db_row_int(row, 0),
                                          "name", db_row_text(row, 1)));
    return 0;
}

static json_t *one_cluster(db_t *db, const struct usage_req *q, int64_t cid,
                           const char *name, drv_error_t *error)
{
    struct usage_csum c = {{0}, {0}, {0}, {0}};
    struct ranges r;
    json_t *sums = strcmp(q->report, "cluster_utilization") ? json_object()
                                                            : NULL;
    json_t *out;

    if (cut_data_window(db, cid, q->start, q->end, &r, error) < 0
        || sum_ranges(db, cid, &r, &c, sums, error) < 0) {
        json_decref(sums);
        return NULL;
    }
    out = usage_cluster_totals(q, name, &c);
    if (q->hourly) {
        json_t *hours = hour_rows(db, q, cid, error);
        if (!hours) {
            json_decref(out);
            return NULL;
        }
        json_object_set_new(out, "hours", hours);
    }
    if (sums && !strcmp(q->report, "user_topusage"))
        json_object_set_new(out, "rows", usage_top_rows(q, sums));
    else if (sums)
        json_object_set_new(out, "rows", usage_tree_rows(db, q, name, sums, error));
    json_decref(sums);
    if (sums && !json_object_get(out, "rows")) {
        json_decref(out);
        return NULL;
    }
    return out;
}

json_t *usage_report(db_t *db, json_t *req, const char *only_user,
                     drv_error_t *error)
{
    struct usage_req q = {.only_user = only_user};
    json_t *refs = json_array(), *clusters = json_array(), *ref;
    struct db_param p[] = {DB_TEXT(NULL)};
    size_t i;
    int rc;

    if (parse_req(req, &q, error) < 0)
        goto fail;
    p[0] = DB_TEXT(q.cluster);
    rc = q.cluster ? db_query(db, "SELECT id, name FROM cluster WHERE "
                                  "name = ?", p, 1, cluster_ref_row, refs,
                              error)
                   : db_query(db, "SELECT id, name FROM cluster ORDER BY "
                                  "name", NULL, 0, cluster_ref_row, refs,
                              error);
    if (rc < 0)
        goto fail;
    json_array_foreach(refs, i, ref) {
        json_t *c = one_cluster(db, &q,
                                json_integer_value(json_object_get(ref, "id")),
                                json_string_value(json_object_get(ref,
                                                                  "name")),
                                error);
        if (!c)
            goto fail;
        json_array_append_new(clusters, c);
    }
    json_decref(refs);
    return json_pack("{s:s s:I s:I s:o}", "report", q.report, "start",
                     (json_int_t)q.start, "end", (json_int_t)q.end,
                     "clusters", clusters);
fail:
    json_decref(refs);
    json_decref(clusters);
    return NULL;
}
