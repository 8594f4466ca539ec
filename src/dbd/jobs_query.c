/* SPDX-License-Identifier: Apache-2.0
 *
 * jobs_query.c - acct_job_query: filter -> WHERE clause -> records
 *
 * The WHERE clause is built once with its bound values and used twice:
 * for the jobs, then for their steps (one query each, not one per job).
 * The time window follows Slurm's sacct: without states, a job matches
 * when it was eligible or running in the window; with states, when it was
 * in one of them during the window (pending between eligible and start,
 * running between start and end, any other state when it ended inside).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "common/hostlist.h"
#include "common/xalloc.h"
#include "dbd/acct_record.h"
#include "dbd/jobs_store.h"
#include "dbd/sql_build.h"

#define TIME_MAX INT64_C(4611686018427387904) /* "no end" for BETWEEN */

/* Slurm's special step ids (docs/protocol.md, "Step record"). */
#define STEP_BATCH 4294967291LL
#define STEP_EXTERN 4294967292LL
#define STEP_INTERACTIVE 4294967290LL

struct window {
    bool given;
    int64_t start, end;
};

static int bad_filter(const char *key, const char *want, drv_error_t *error)
{
    errno = EINVAL;
    return errprintf(error, "acct_job_query: \"%s\" must be %s", key, want);
}

/* A non-empty list filter, or NULL when the key is absent or empty. */
static json_t *list_of(json_t *filter, const char *key)
{
    json_t *v = json_object_get(filter, key);

    return json_is_array(v) && json_array_size(v) ? v : NULL;
}

static int where_strings(struct sql_build *b, json_t *filter, const char *key,
                         const char *column, drv_error_t *error)
{
    json_t *v = json_object_get(filter, key);

    if (!v || json_is_null(v) || (json_is_array(v) && !json_array_size(v)))
        return 0;
    sql_add(b, " AND %s ", column);
    if (sql_in_strings(b, v) < 0)
        return bad_filter(key, "an array of strings", error);
    return 0;
}

/* "AND column IN (...)" for a list of integers under 'key'. */
static int where_ints(struct sql_build *b, json_t *filter, const char *key,
                      const char *column, drv_error_t *error)
{
    json_t *list = list_of(filter, key), *v;
    size_t i;

    if (!list)
        return 0;
    sql_add(b, " AND %s IN (", column);
    json_array_foreach(list, i, v) {
        if (!json_is_integer(v))
            return bad_filter(key, "an array of integers", error);
        sql_add(b, i ? ", " : "");
        sql_param(b, DB_INT(json_integer_value(v)));
    }
    sql_add(b, ")");
    return 0;
}

static int where_uids(struct sql_build *b, json_t *filter, int64_t only_uid,
                      drv_error_t *error)
{
    if (only_uid >= 0) {
        sql_add(b, " AND j.uid = ");
        sql_param(b, DB_INT(only_uid));
    }
    return where_ints(b, filter, "user_ids", "j.uid", error);
}

/* nnodes, ncpus, time_limit_min: [min, max], both included (Slurm's
 * sacct -i, -I, -k/-K).
 */
static int where_range(struct sql_build *b, json_t *filter, const char *key,
                       const char *column, drv_error_t *error)
{
    json_t *v = json_object_get(filter, key);
    json_t *lo = json_array_get(v, 0), *hi = json_array_get(v, 1);

    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(lo) || !json_is_integer(hi)
        || json_array_size(v) != 2)
        return bad_filter(key, "[min, max] (integers)", error);
    sql_add(b, " AND %s BETWEEN ", column);
    sql_param(b, DB_INT(json_integer_value(lo)));
    sql_add(b, " AND ");
    sql_param(b, DB_INT(json_integer_value(hi)));
    return 0;
}

/* assoc_ids (sacct -x): jobs of those associations, a job's being the
 * one of its cluster, account and user for its partition, or with no
 * partition when there is none for it (as the controller picks it).
 */
static int where_assoc_ids(struct sql_build *b, json_t *filter,
                           drv_error_t *error)
{
    if (!list_of(filter, "assoc_ids"))
        return 0;
    sql_add(b, " AND EXISTS (SELECT 1 FROM assoc a WHERE a.cluster_id = "
               "j.cluster_id AND a.account = j.account AND a.user_name = "
               "j.user_name AND (a.part_name = j.part_name OR (a.part_name = "
               "'' AND NOT EXISTS (SELECT 1 FROM assoc p WHERE p.cluster_id = "
               "j.cluster_id AND p.account = j.account AND p.user_name = "
               "j.user_name AND p.part_name = j.part_name)))");
    if (where_ints(b, filter, "assoc_ids", "a.id", error) < 0)
        return -1;
    sql_add(b, ")");
    return 0;
}

/* The IN list "(?, ?, ...)" of job_ids' entries with an array_task_id
 * ('tasks': their array's id * 2^32 + task id) or without one (the id). */
static void job_ids_in(struct sql_build *b, json_t *list, bool tasks)
{
    json_t *v;
    size_t i, n = 0;

    sql_add(b, "(");
    json_array_foreach(list, i, v) {
        json_int_t id = json_integer_value(json_object_get(v, "job_id"));
        json_t *task = json_object_get(v, "array_task_id");

        if (!task == !tasks) {
            sql_add(b, n++ ? ", " : "");
            sql_param(b, DB_INT(task ? id * 4294967296LL
                                           + json_integer_value(task)
                                     : id));
        }
    }
    sql_add(b, ")");
}

/* job_ids: an id is a job's own id or its array's; with array_task_id,
 * that task of the array.  IN lists, not a chain of ORs: SQLite refuses
 * an expression more than 1,000 deep (sacct -j with hundreds of ids).
 */
static int where_job_ids(struct sql_build *b, json_t *filter,
                         drv_error_t *error)
{
    json_t *list = list_of(filter, "job_ids"), *v;
    size_t i, whole = 0, tasks = 0;

    if (!list)
        return 0;
    json_array_foreach(list, i, v) {
        json_t *id = json_object_get(v, "job_id");
        json_t *task = json_object_get(v, "array_task_id");

        if (!json_is_integer(id) || json_integer_value(id) < 0
            || json_integer_value(id) > UINT32_MAX
            || (task && (!json_is_integer(task)
                         || json_integer_value(task) < 0
                         || json_integer_value(task) > UINT32_MAX)))
            return bad_filter("job_ids", "an array of {\"job_id\":N, "
                              "\"array_task_id\":N}", error);
        if (task)
            tasks++;
        else
            whole++;
    }
    sql_add(b, " AND (");
    if (whole) {
        sql_add(b, "j.job_id IN ");
        job_ids_in(b, list, false);
        sql_add(b, " OR j.array_job_id IN ");
        job_ids_in(b, list, false);
    }
    if (tasks) {
        sql_add(b, whole ? " OR " : "");
        sql_add(b, "j.array_job_id * 4294967296 + j.array_task_id IN ");
        job_ids_in(b, list, true);
    }
    sql_add(b, ")");
    return 0;
}

static int get_window(json_t *filter, struct window *w, drv_error_t *error)
{
    json_t *s = json_object_get(filter, "start");
    json_t *e = json_object_get(filter, "end");

    if ((s && !json_is_integer(s)) || (e && !json_is_integer(e)))
        return bad_filter(s && !json_is_integer(s) ? "start" : "end",
                          "an integer (epoch seconds)", error);
    w->given = s || e;
    w->start = s ? json_integer_value(s) : 0;
    w->end = e ? json_integer_value(e) : TIME_MAX;
    return 0;
}

/* Was the job in 'state' at some time in the window? */
static void state_in_window(struct sql_build *b, const char *state,
                            const struct window *w)
{
    if (!strcmp(state, "PENDING")) {
        sql_add(b, "(j.eligible_time > 0 AND (");
        sql_param(b, DB_INT(w->start));
        sql_add(b, " BETWEEN j.eligible_time AND j.start_time"
                   " OR j.eligible_time BETWEEN ");
        sql_param(b, DB_INT(w->start));
        sql_add(b, " AND ");
        sql_param(b, DB_INT(w->end));
        sql_add(b, " OR (j.start_time = 0 AND j.eligible_time <= ");
        sql_param(b, DB_INT(w->end));
        sql_add(b, ")))");
    } else if (!strcmp(state, "RUNNING")) {
        sql_add(b, "(j.start_time > 0 AND (");
        sql_param(b, DB_INT(w->start));
        sql_add(b, " BETWEEN j.start_time AND j.end_time"
                   " OR j.start_time BETWEEN ");
        sql_param(b, DB_INT(w->start));
        sql_add(b, " AND ");
        sql_param(b, DB_INT(w->end));
        sql_add(b, " OR (j.end_time = 0 AND j.start_time <= ");
        sql_param(b, DB_INT(w->end));
        sql_add(b, ")))");
    } else {
        sql_add(b, "(j.state = ");
        sql_param(b, DB_TEXT(state));
        sql_add(b, " AND j.end_time > 0 AND j.end_time BETWEEN ");
        sql_param(b, DB_INT(w->start));
        sql_add(b, " AND ");
        sql_param(b, DB_INT(w->end));
        sql_add(b, ")");
    }
}

static int where_time_states(struct sql_build *b, json_t *filter,
                             drv_error_t *error)
{
    json_t *states = list_of(filter, "states"), *v;
    struct window w = {0};
    size_t i;

    if (get_window(filter, &w, error) < 0)
        return -1;
    if (states && !w.given)
        return where_strings(b, filter, "states", "j.state", error);
    if (!states) {
        if (!w.given)
            return 0;
        sql_add(b, " AND (CASE WHEN j.eligible_time > 0 THEN j.eligible_time"
                   " ELSE j.submit_time END) <= ");
        sql_param(b, DB_INT(w.end));
        sql_add(b, " AND (j.end_time = 0 OR j.end_time >= ");
        sql_param(b, DB_INT(w.start));
        sql_add(b, ")");
        return 0;
    }
    sql_add(b, " AND (");
    json_array_foreach(states, i, v) {
        if (!json_is_string(v))
            return bad_filter("states", "an array of strings", error);
        sql_add(b, i ? " OR " : "");
        state_in_window(b, json_string_value(v), &w);
    }
    sql_add(b, ")");
    return 0;
}

/* List keys read with list_of(), which ignores what is not an array. */
static int check_lists(json_t *filter, drv_error_t *error)
{
    static const char *const keys[] = {"user_ids", "job_ids", "states",
                                       "group_ids", "assoc_ids"};

    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        json_t *v = json_object_get(filter, keys[i]);
        if (v && !json_is_null(v) && !json_is_array(v))
            return bad_filter(keys[i], "an array", error);
    }
    return 0;
}

/* "FROM job j JOIN cluster c ... WHERE ..." with its values into 'b'. */
static int build_where(struct sql_build *b, json_t *filter, int64_t only_uid,
                       drv_error_t *error)
{
    json_t *cluster = json_object_get(filter, "cluster");

    if (filter && !json_is_object(filter))
        return bad_filter("body", "an object", error);
    if (check_lists(filter, error) < 0)
        return -1;
    sql_add(b, " FROM job j JOIN cluster c ON c.id = j.cluster_id WHERE 1 = 1");
    if (cluster && !json_is_null(cluster)) {
        if (!json_is_string(cluster))
            return bad_filter("cluster", "a string", error);
        sql_add(b, " AND c.name = ");
        sql_param(b, DB_TEXT(json_string_value(cluster)));
    }
    if (where_uids(b, filter, only_uid, error) < 0
        || where_strings(b, filter, "accounts", "j.account", error) < 0
        || where_strings(b, filter, "partitions", "j.part_name", error) < 0
        || where_strings(b, filter, "names", "j.name", error) < 0
        || where_strings(b, filter, "qos", "j.qos", error) < 0
        || where_ints(b, filter, "group_ids", "j.gid", error) < 0
        || where_range(b, filter, "nnodes", "j.nnodes", error) < 0
        || where_range(b, filter, "ncpus", "j.ncpus", error) < 0
        || where_range(b, filter, "time_limit_min", "j.time_limit_min",
                       error) < 0
        || where_assoc_ids(b, filter, error) < 0
        || where_job_ids(b, filter, error) < 0
        || where_time_states(b, filter, error) < 0)
        return -1;
    return 0;
}

/* Jobs by row id, to hang the steps on. */
struct job_entry {
    int64_t row;
    json_t *steps; /* borrowed from the job */
    UT_hash_handle hh;
};

struct collect {
    json_t *jobs;
    struct job_entry *by_row, *last;
    bool duplicates; /* every run of a requeued job, not only the newest */
    hostlist_t *nodes; /* "nodes": jobs that ran on any of them, or NULL */
    bool truncate;     /* "truncate": times cut to the window */
    struct window w;
};

/* Did the job run on one of the filter's nodes (sacct -N)? */
static bool ran_on(const struct collect *c, json_t *job)
{
    const char *nodes = json_string_value(json_object_get(job, "nodes"));
    hostlist_t *hl;
    bool hit = false;

    if (!c->nodes)
        return true;
    hl = nodes ? hostlist_decode(nodes, NULL) : NULL;
    for (size_t i = 0; hl && !hit && i < hostlist_count(hl); i++)
        hit = hostlist_find(c->nodes, hostlist_nth(hl, i)) >= 0;
    hostlist_destroy(hl);
    return hit;
}

/* sacct -T: a start before the window is the window's start, an end after
 * it (or none yet, for a started record) the window's end.
 */
static void truncate_times(const struct collect *c, json_t *rec)
{
    json_int_t start = json_integer_value(json_object_get(rec, "start_time"));
    json_int_t end = json_integer_value(json_object_get(rec, "end_time"));

    if (!c->truncate || !start)
        return;
    if (start < c->w.start)
        json_object_set_new(rec, "start_time", json_integer(c->w.start));
    if (c->w.end != TIME_MAX && (!end || end > c->w.end))
        json_object_set_new(rec, "end_time", json_integer(c->w.end));
}

/* Is 'job' another run of the record before it (the same cluster and job
 * id: the query orders a job's runs by submit time, oldest first)? */
static bool same_job(const struct collect *c, json_t *job)
{
    json_t *prev = json_array_get(c->jobs, json_array_size(c->jobs) - 1);

    return prev
           && json_integer_value(json_object_get(prev, "job_id"))
                  == json_integer_value(json_object_get(job, "job_id"))
           && json_equal(json_object_get(prev, "cluster"),
                         json_object_get(job, "cluster"));
}

/* Without "duplicates", only a job's newest run is kept (Slurm's sacct
 * without -D): the record before, another run of the same job, goes. */
static void drop_older_run(struct collect *c, json_t *job)
{
    if (c->duplicates || !c->last || !same_job(c, job))
        return;
    HASH_DEL(c->by_row, c->last);
    free(c->last);
    c->last = NULL;
    json_array_remove(c->jobs, json_array_size(c->jobs) - 1);
}

static int job_row_cb(const struct db_row *row, void *arg)
{
    struct collect *c = arg;
    json_t *job = acct_row_json(&acct_job_table, row, 2);
    const char *cluster = db_row_text(row, 1);
    struct job_entry *e;

    if (!job || json_object_set_new(job, "cluster",
                                    json_string(cluster ? cluster : ""))
                    < 0
        || json_object_set_new(job, "steps", json_array()) < 0) {
        json_decref(job);
        errno = ENOMEM;
        return -1;
    }
    if (!ran_on(c, job)) {
        json_decref(job);
        return 0;
    }
    truncate_times(c, job);
    drop_older_run(c, job);
    if (json_array_append_new(c->jobs, job) < 0) {
        errno = ENOMEM;
        return -1;
    }
    e = xzalloc(sizeof(*e));
    e->row = db_row_int(row, 0);
    e->steps = json_object_get(job, "steps");
    HASH_ADD(hh, c->by_row, row, sizeof(e->row), e);
    c->last = e;
    return 0;
}

static int step_row_cb(const struct db_row *row, void *arg)
{
    struct collect *c = arg;
    int64_t job_row = db_row_int(row, 0);
    struct job_entry *e;
    json_t *step;

    HASH_FIND(hh, c->by_row, &job_row, sizeof(job_row), e);
    if (!e)
        return 0; /* a job that arrived between the two queries */
    if (!(step = acct_row_json(&acct_step_table, row, 1))
        || json_array_append_new(e->steps, step) < 0) {
        errno = ENOMEM;
        return -1;
    }
    truncate_times(c, step);
    return 0;
}

/* The options applied to each record as it comes: nodes, truncate. */
static int collect_options(struct collect *c, json_t *filter,
                           drv_error_t *error)
{
    json_t *nodes = json_object_get(filter, "nodes");

    c->truncate = json_is_true(json_object_get(filter, "truncate"));
    if (get_window(filter, &c->w, error) < 0)
        return -1;
    if (!nodes || json_is_null(nodes))
        return 0;
    if (!json_is_string(nodes)
        || !(c->nodes = hostlist_decode(json_string_value(nodes), NULL)))
        return bad_filter("nodes", "a host list (\"n[1-3],m1\")", error);
    return 0;
}

static int run_queries(db_t *db, struct sql_build *where, struct collect *c,
                       drv_error_t *error)
{
    char *jcols = acct_column_list(&acct_job_table, "j.");
    char *scols = acct_column_list(&acct_step_table, "s.");
    char *jsql = xasprintf(
        "SELECT j.id, c.name, %s%s ORDER BY CASE WHEN j.array_job_id > 0 "
        "THEN j.array_job_id ELSE j.job_id END, j.array_task_id, j.job_id, "
        "c.name, j.submit_time", jcols, where->sql);
    char *ssql = xasprintf(
        "SELECT s.job_ref, %s FROM step s WHERE s.job_ref IN (SELECT j.id%s) "
        "ORDER BY s.job_ref, CASE s.step_id WHEN %lld THEN 0 WHEN %lld THEN 1 "
        "WHEN %lld THEN 2 ELSE 3 END, s.step_id", scols, where->sql,
        STEP_BATCH, STEP_EXTERN, STEP_INTERACTIVE);
    int rc = db_query(db, jsql, where->params, where->n, job_row_cb, c, error);

    if (rc == 0 && json_array_size(c->jobs))
        rc = db_query(db, ssql, where->params, where->n, step_row_cb, c,
                      error);
    free(jcols);
    free(scols);
    free(jsql);
    free(ssql);
    return rc;
}

json_t *jobs_store_query(db_t *db, json_t *filter, int64_t only_uid,
                         drv_error_t *error)
{
    struct sql_build where = {0};
    struct collect c = {
        .jobs = json_array(),
        .duplicates = json_is_true(json_object_get(filter, "duplicates"))};
    struct job_entry *e, *tmp;
    int rc;

    rc = build_where(&where, filter, only_uid, error);
    if (rc == 0)
        rc = collect_options(&c, filter, error);
    if (rc == 0)
        rc = run_queries(db, &where, &c, error);
    HASH_ITER(hh, c.by_row, e, tmp) {
        HASH_DEL(c.by_row, e);
        free(e);
    }
    sql_build_clear(&where);
    hostlist_destroy(c.nodes);
    if (rc < 0) {
        int saved_errno = errno;
        json_decref(c.jobs);
        errno = saved_errno;
        return NULL;
    }
    return c.jobs;
}
