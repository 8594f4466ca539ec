/* SPDX-License-Identifier: Apache-2.0
 *
 * usage_store.c - schema v3 and the hourly/daily/monthly rollup
 *
 * The rollup reads the jobs overlapping the hours to redo once, splits
 * each at hour boundaries and sums the pieces in memory per (hour,
 * account, user): the cells, not the jobs, take the memory, so a year of
 * a million jobs is a few hundred thousand cells.  Hours are aligned to
 * the epoch (local hours wherever the zone's offset is whole hours); days
 * and months follow local time, as Slurm's rollups do.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "common/xalloc.h"
#include "dbd/usage_private.h"
#include "dbd/usage_store.h"

/* Version 3.  Usage columns are TRES seconds (mem: MiB-seconds). */
#define USAGE_COLS " cpu_s BIGINT NOT NULL DEFAULT 0," \
    " mem_s BIGINT NOT NULL DEFAULT 0," \
    " node_s BIGINT NOT NULL DEFAULT 0," \
    " gpu_s BIGINT NOT NULL DEFAULT 0,"
#define ASSOC_TABLE(name) "CREATE TABLE " name " (" \
    " cluster_id BIGINT NOT NULL REFERENCES cluster(id)," \
    " t BIGINT NOT NULL," \
    " account TEXT NOT NULL," \
    " user_name TEXT NOT NULL," USAGE_COLS \
    " PRIMARY KEY (cluster_id, t, account, user_name))"
#define CLUSTER_TABLE(name) "CREATE TABLE " name " (" \
    " cluster_id BIGINT NOT NULL REFERENCES cluster(id)," \
    " t BIGINT NOT NULL," USAGE_COLS \
    " cap_cpu_s BIGINT NOT NULL DEFAULT 0," \
    " cap_mem_s BIGINT NOT NULL DEFAULT 0," \
    " cap_node_s BIGINT NOT NULL DEFAULT 0," \
    " cap_gpu_s BIGINT NOT NULL DEFAULT 0," \
    " PRIMARY KEY (cluster_id, t))"

const char *const usage_schema_v3[] = {
    "CREATE TABLE cluster_tres ("
    " cluster_id BIGINT NOT NULL REFERENCES cluster(id),"
    " since BIGINT NOT NULL,"
    " cpu BIGINT NOT NULL, mem BIGINT NOT NULL,"
    " node BIGINT NOT NULL, gpu BIGINT NOT NULL,"
    " PRIMARY KEY (cluster_id, since))",
    "CREATE TABLE usage_state ("
    " cluster_id BIGINT NOT NULL PRIMARY KEY REFERENCES cluster(id),"
    " redo_from BIGINT NOT NULL)",
    ASSOC_TABLE("usage_hour"),
    ASSOC_TABLE("usage_day"),
    ASSOC_TABLE("usage_month"),
    CLUSTER_TABLE("cluster_usage_hour"),
    CLUSTER_TABLE("cluster_usage_day"),
    CLUSTER_TABLE("cluster_usage_month"),
    "CREATE INDEX job_start ON job (start_time)",
    NULL,
};

/* Version 5: planned (Slurm's "reserved", plan_secs) TRES seconds per
 * cluster hour, day and month.  Columns added with a default, so rows
 * rolled before version 5 read 0 until their hours are rolled again. */
#define PLAN_COLS(t) \
    "ALTER TABLE " t " ADD COLUMN plan_cpu_s BIGINT NOT NULL DEFAULT 0", \
    "ALTER TABLE " t " ADD COLUMN plan_mem_s BIGINT NOT NULL DEFAULT 0", \
    "ALTER TABLE " t " ADD COLUMN plan_node_s BIGINT NOT NULL DEFAULT 0", \
    "ALTER TABLE " t " ADD COLUMN plan_gpu_s BIGINT NOT NULL DEFAULT 0"

const char *const usage_schema_v5[] = {
    PLAN_COLS("cluster_usage_hour"),
    PLAN_COLS("cluster_usage_day"),
    PLAN_COLS("cluster_usage_month"),
    NULL,
};

/* Version 6: reservations as the controller sends them (one row per
 * reservation and start time) and planned down (MAINT reservations) TRES
 * seconds per cluster hour, day and month. */
#define PDOWN_COLS(t) \
    "ALTER TABLE " t " ADD COLUMN pdown_cpu_s BIGINT NOT NULL DEFAULT 0", \
    "ALTER TABLE " t " ADD COLUMN pdown_mem_s BIGINT NOT NULL DEFAULT 0", \
    "ALTER TABLE " t " ADD COLUMN pdown_node_s BIGINT NOT NULL DEFAULT 0", \
    "ALTER TABLE " t " ADD COLUMN pdown_gpu_s BIGINT NOT NULL DEFAULT 0"

const char *const usage_schema_v6[] = {
    "CREATE TABLE reservation ("
    " id @PK@,"
    " cluster_id BIGINT NOT NULL REFERENCES cluster(id),"
    " name TEXT NOT NULL,"
    " start_time BIGINT NOT NULL,"
    " end_time BIGINT NOT NULL,"
    " nodes TEXT NOT NULL DEFAULT '',"
    " node_cnt BIGINT NOT NULL DEFAULT 0,"
    " flags TEXT NOT NULL DEFAULT '',"
    " cpu BIGINT NOT NULL DEFAULT 0, mem BIGINT NOT NULL DEFAULT 0,"
    " node BIGINT NOT NULL DEFAULT 0, gpu BIGINT NOT NULL DEFAULT 0,"
    " UNIQUE (cluster_id, name, start_time))",
    "CREATE INDEX reservation_end ON reservation (end_time)",
    PDOWN_COLS("cluster_usage_hour"),
    PDOWN_COLS("cluster_usage_day"),
    PDOWN_COLS("cluster_usage_month"),
    NULL,
};

const char *const usage_tres_names[USAGE_NTRES] = {"cpu", "mem", "node",
                                                   "gres/gpu"};

int usage_tres_index(const char *name)
{
    for (int i = 0; i < USAGE_NTRES; i++)
        if (name && !strcmp(name, usage_tres_names[i]))
            return i;
    return -1;
}

/* ---- capacity and dirty marks (acct_send) ---- */

static int last_capacity(const struct db_row *row, void *arg)
{
    int64_t *cap = arg;

    for (int i = 0; i < USAGE_NTRES; i++)
        cap[i] = db_row_int(row, (size_t)i);
    cap[USAGE_NTRES] = 1;
    return 0;
}

int usage_note_capacity(db_t *db, int64_t cluster_id, json_t *tres,
                        time_t now, drv_error_t *error)
{
    int64_t cap[USAGE_NTRES] = {0}, last[USAGE_NTRES + 1] = {0};
    struct db_param p[2 + USAGE_NTRES];
    const char *key;
    json_t *v;

    if (!json_is_object(tres)) {
        errno = EINVAL;
        return errprintf(error, "acct_send: \"cluster_tres\" must be an "
                         "object");
    }
    json_object_foreach(tres, key, v) {
        int i = usage_tres_index(key);
        if (i >= 0 && !json_is_integer(v)) {
            errno = EINVAL;
            return errprintf(error, "acct_send: cluster_tres \"%s\" must be "
                             "an integer", key);
        }
        if (i >= 0)
            cap[i] = json_integer_value(v);
    }
    p[0] = DB_INT(cluster_id);
    if (db_query(db, "SELECT cpu, mem, node, gpu FROM cluster_tres WHERE "
                     "cluster_id = ? ORDER BY since DESC LIMIT 1",
                 p, 1, last_capacity, last, error) < 0)
        return -1;
    if (last[USAGE_NTRES] && !memcmp(last, cap, sizeof(cap)))
        return 0;
    p[1] = DB_INT(now);
    for (int i = 0; i < USAGE_NTRES; i++)
        p[2 + i] = DB_INT(cap[i]);
    return db_exec(db, "INSERT INTO cluster_tres (cluster_id, since, cpu, "
                       "mem, node, gpu) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT "
                       "(cluster_id, since) DO UPDATE SET cpu = excluded.cpu, "
                       "mem = excluded.mem, node = excluded.node, "
                       "gpu = excluded.gpu", p, 2 + USAGE_NTRES, error);
}

int usage_mark_dirty(db_t *db, int64_t cluster_id, int64_t start_time,
                     drv_error_t *error)
{
    struct db_param p[] = {DB_INT(cluster_id),
                           DB_INT(start_time - start_time % 3600)};

    return db_exec(db, "INSERT INTO usage_state (cluster_id, redo_from) "
                       "VALUES (?, ?) ON CONFLICT (cluster_id) DO UPDATE SET "
                       "redo_from = CASE WHEN excluded.redo_from < "
                       "usage_state.redo_from THEN excluded.redo_from ELSE "
                       "usage_state.redo_from END", p, 2, error);
}

int64_t usage_first_time(json_t *job)
{
    int64_t elig = json_integer_value(json_object_get(job, "eligible_time"));
    int64_t start = json_integer_value(json_object_get(job, "start_time"));

    if (elig > 0 && (start <= 0 || elig < start))
        return elig;
    return start > 0 ? start : 0;
}

/* ---- local calendar ---- */

static int64_t local_floor(int64_t t, bool month, int add)
{
    time_t tt = (time_t)t;
    struct tm tm;

    localtime_r(&tt, &tm);
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    if (month) {
        tm.tm_mday = 1;
        tm.tm_mon += add;
    } else {
        tm.tm_mday += add;
    }
    tm.tm_isdst = -1;
    return (int64_t)mktime(&tm);
}

int64_t usage_day_start(int64_t t) { return local_floor(t, false, 0); }
int64_t usage_next_day(int64_t t) { return local_floor(t, false, 1); }
int64_t usage_month_start(int64_t t) { return local_floor(t, true, 0); }
int64_t usage_next_month(int64_t t) { return local_floor(t, true, 1); }

void usage_split_hours(int64_t t0, int64_t t1,
                       void (*cb)(int64_t hour, int64_t secs, void *arg),
                       void *arg)
{
    for (int64_t h = t0 - t0 % 3600; h < t1; h += 3600) {
        int64_t a = t0 > h ? t0 : h, b = t1 < h + 3600 ? t1 : h + 3600;
        if (b > a)
            cb(h, b - a, arg);
    }
}

/* ---- the hourly pass ---- */

struct pair { /* an (account, user) seen in the range */
    char *key; /* "account\037user" */
    int id;
    UT_hash_handle hh;
};

struct cell_key {
    int64_t hour;
    int64_t pair;
};

struct cell {
    struct cell_key k;
    int64_t s[USAGE_NTRES];
    UT_hash_handle hh;
};

struct pass {
    int64_t from, to, now;
    struct pair *pairs;
    struct pair **by_id;
    int npairs;
    struct cell *cells;
    int64_t (*alloc)[USAGE_NTRES]; /* per hour of [from, to) */
    int64_t (*plan)[USAGE_NTRES];  /* per hour, before the idle cap */
    int64_t (*pdown)[USAGE_NTRES]; /* per hour: MAINT reservations */
    int64_t (*into)[USAGE_NTRES];  /* plan or pdown: add_hour_piece()'s */
    /* the job being split */
    int pair_id;
    int64_t tres[USAGE_NTRES];
};

static int intern_pair(struct pass *ps, const char *acct, const char *user)
{
    char *key = xasprintf("%s\037%s", acct ? acct : "", user ? user : "");
    struct pair *p;

    HASH_FIND_STR(ps->pairs, key, p);
    if (p) {
        free(key);
        return p->id;
    }
    p = xzalloc(sizeof(*p));
    p->key = key;
    p->id = ps->npairs++;
    ps->by_id = xrealloc(ps->by_id, (size_t)ps->npairs * sizeof(*ps->by_id));
    ps->by_id[p->id] = p;
    HASH_ADD_KEYPTR(hh, ps->pairs, p->key, strlen(p->key), p);
    return p->id;
}

static void add_piece(int64_t hour, int64_t secs, void *arg)
{
    struct pass *ps = arg;
    struct cell_key k = {hour, ps->pair_id};
    struct cell *c;
    int64_t *alloc;

    if (hour < ps->from || hour >= ps->to)
        return;
    HASH_FIND(hh, ps->cells, &k, sizeof(k), c);
    if (!c) {
        c = xzalloc(sizeof(*c));
        c->k = k;
        HASH_ADD(hh, ps->cells, k, sizeof(k), c);
    }
    alloc = ps->alloc[(hour - ps->from) / 3600];
    for (int i = 0; i < USAGE_NTRES; i++) {
        c->s[i] += ps->tres[i] * secs;
        alloc[i] += ps->tres[i] * secs;
    }
}

static int job_row(const struct db_row *row, void *arg)
{
    struct pass *ps = arg;
    int64_t start = db_row_int(row, 2), end = db_row_int(row, 3);

    if (end == 0 || end > ps->now)
        end = ps->now;
    if (end <= start)
        return 0;
    ps->pair_id = intern_pair(ps, db_row_text(row, 0), db_row_text(row, 1));
    usage_parse_tres(db_row_text(row, 6), ps->tres);
    ps->tres[USAGE_CPU] = db_row_int(row, 4);
    ps->tres[USAGE_NODE] = db_row_int(row, 5);
    usage_split_hours(start, end, add_piece, ps);
    return 0;
}

/* Running jobs (end_time 0) and ended ones are two index ranges. */
#define JOBS_SQL(cond) "SELECT account, user_name, start_time, end_time, " \
    "ncpus, nnodes, alloc_tres FROM job WHERE cluster_id = ? AND " \
    "start_time > 0 AND start_time < ? AND " cond

static int read_jobs(db_t *db, int64_t cid, struct pass *ps,
                     drv_error_t *error)
{
    struct db_param p[] = {DB_INT(cid), DB_INT(ps->to), DB_INT(ps->from)};

    if (db_query(db, JOBS_SQL("end_time > ?"), p, 3, job_row, ps, error) < 0)
        return -1;
    return db_query(db, JOBS_SQL("end_time = 0"), p, 2, job_row, ps, error);
}

/* ---- planned time: eligible jobs that wait ---- */

/* Slurm's "Planned" ("Reserved" before 20.11; plan_secs), as slurmdbd's
 * hourly rollup computes it (as_mysql_rollup.c: _add_planned_time, then
 * _setup_cluster_tres_usage).  A job eligible at E > 0 waits over [E, S)
 * when it started at S; one that never started waits until its end
 * (cancelled while pending) or until now (still pending).  Each hour that
 * wait overlaps gets the job's requested CPUs x its seconds in the hour:
 * CPUs only, as Slurm adds this time to TRES_CPU alone (cpus_req), so
 * mem, node and gres/gpu plan nothing.  write_cluster_hours() then caps
 * each hour's total at that hour's idle time.
 *
 * add_hour_piece(): ps->tres x 'secs' into the hour's row of ps->into
 * (ps->plan for waits, ps->pdown for MAINT reservations).
 */
static void add_hour_piece(int64_t hour, int64_t secs, void *arg)
{
    struct pass *ps = arg;
    int64_t *into;

    if (hour < ps->from || hour >= ps->to)
        return;
    into = ps->into[(hour - ps->from) / 3600];
    for (int i = 0; i < USAGE_NTRES; i++)
        into[i] += ps->tres[i] * secs;
}

static int wait_row(const struct db_row *row, void *arg)
{
    struct pass *ps = arg;
    int64_t start = db_row_int(row, 1);
    int64_t until = start ? start : db_row_int(row, 2);

    if (until == 0 || until > ps->now)
        until = ps->now;
    memset(ps->tres, 0, sizeof(ps->tres));
    ps->tres[USAGE_CPU] = db_row_int(row, 3);
    ps->into = ps->plan;
    usage_split_hours(db_row_int(row, 0), until, add_hour_piece, ps);
    return 0;
}

/* Waits overlapping [from, to): jobs that started after 'from', and those
 * never started that ended after it or have not ended. */
#define WAITS_SQL(cond) "SELECT eligible_time, start_time, end_time, " \
    "req_cpus FROM job WHERE cluster_id = ? AND eligible_time > 0 AND " \
    "eligible_time < ? AND " cond

static int read_waits(db_t *db, int64_t cid, struct pass *ps,
                      drv_error_t *error)
{
    struct db_param p[] = {DB_INT(cid), DB_INT(ps->to), DB_INT(ps->from)};

    if (db_query(db, WAITS_SQL("start_time > ?"), p, 3, wait_row, ps,
                 error) < 0
        || db_query(db, WAITS_SQL("start_time = 0 AND end_time > ?"), p, 3,
                    wait_row, ps, error) < 0)
        return -1;
    return db_query(db, WAITS_SQL("start_time = 0 AND end_time = 0"), p, 2,
                    wait_row, ps, error);
}

/* Planned down (Slurm's pdown_secs): the TRES a MAINT reservation holds,
 * times its seconds in each hour (until now for the hour in progress). */
static int resv_row(const struct db_row *row, void *arg)
{
    struct pass *ps = arg;
    int64_t end = db_row_int(row, 1);

    for (int i = 0; i < USAGE_NTRES; i++)
        ps->tres[i] = db_row_int(row, (size_t)(2 + i));
    ps->into = ps->pdown;
    usage_split_hours(db_row_int(row, 0), end < ps->now ? end : ps->now,
                      add_hour_piece, ps);
    return 0;
}

/* MAINT reservations overlapping [from, to). */
static int read_maint(db_t *db, int64_t cid, struct pass *ps,
                      drv_error_t *error)
{
    struct db_param p[] = {DB_INT(cid), DB_INT(ps->to), DB_INT(ps->from)};

    return db_query(db, "SELECT start_time, end_time, cpu, mem, node, gpu "
                        "FROM reservation WHERE cluster_id = ? AND flags "
                        "LIKE '%MAINT%' AND start_time < ? AND end_time > ?",
                    p, 3, resv_row, ps, error);
}

static void pass_free(struct pass *ps)
{
    struct cell *c, *ct;
    struct pair *p, *pt;

    HASH_ITER(hh, ps->cells, c, ct) {
        HASH_DEL(ps->cells, c);
        free(c);
    }
    HASH_ITER(hh, ps->pairs, p, pt) {
        HASH_DEL(ps->pairs, p);
        free(p->key);
        free(p);
    }
    free(ps->by_id);
    free(ps->alloc);
    free(ps->plan);
    free(ps->pdown);
}

/* Rows go in batches of this many per INSERT. */
#define BATCH 64

static char *insert_sql(const char *table, const char *cols, int ncols,
                        int rows)
{
    size_t cap = 256 + (size_t)rows * ((size_t)ncols * 3 + 4);
    char *sql = xzalloc(cap), *p;

    p = sql + snprintf(sql, cap, "INSERT INTO %s (%s) VALUES ", table, cols);
    for (int r = 0; r < rows; r++) {
        *p++ = r ? ',' : ' ';
        *p++ = '(';
        for (int c = 0; c < ncols; c++)
            p += sprintf(p, c ? ", ?" : "?");
        *p++ = ')';
    }
    *p = '\0';
    return sql;
}

/* Accumulates rows of 'ncols' values and flushes them BATCH at a time. */
struct batch {
    db_t *db;
    const char *table, *cols;
    int ncols, rows;
    struct db_param p[BATCH * 18]; /* the widest row: cluster hours */
    char *text[BATCH * 2]; /* owned strings bound in p */
    int ntext;
};

static int batch_flush(struct batch *b, drv_error_t *error)
{
    char *sql;
    int rc = 0;

    if (b->rows) {
        sql = insert_sql(b->table, b->cols, b->ncols, b->rows);
        rc = db_exec(b->db, sql, b->p, (size_t)(b->rows * b->ncols), error);
        free(sql);
    }
    for (int i = 0; i < b->ntext; i++)
        free(b->text[i]);
    b->rows = b->ntext = 0;
    return rc;
}

static int write_cells(db_t *db, int64_t cid, struct pass *ps,
                       drv_error_t *error)
{
    struct batch b = {.db = db, .table = "usage_hour", .ncols = 8,
                      .cols = "cluster_id, t, account, user_name, cpu_s, "
                              "mem_s, node_s, gpu_s"};
    struct cell *c;

    for (c = ps->cells; c; c = c->hh.next) {
        struct db_param *p = b.p + b.rows * b.ncols;
        char *acct = xstrdup(ps->by_id[c->k.pair]->key);
        char *user = strchr(acct, '\037');

        *user++ = '\0';
        b.text[b.ntext++] = acct;
        p[0] = DB_INT(cid);
        p[1] = DB_INT(c->k.hour);
        p[2] = DB_TEXT(acct);
        p[3] = DB_TEXT(user);
        for (int i = 0; i < USAGE_NTRES; i++)
            p[4 + i] = DB_INT(c->s[i]);
        if (++b.rows == BATCH && batch_flush(&b, error) < 0)
            return -1;
    }
    return batch_flush(&b, error);
}

/* Capacity history of a cluster, oldest first. */
struct caps {
    int64_t (*v)[USAGE_NTRES + 1]; /* since, cpu, mem, node, gpu */
    size_t n;
};

static int cap_row(const struct db_row *row, void *arg)
{
    struct caps *c = arg;

    c->v = xrealloc(c->v, (c->n + 1) * sizeof(*c->v));
    for (int i = 0; i <= USAGE_NTRES; i++)
        c->v[c->n][i] = db_row_int(row, (size_t)i);
    c->n++;
    return 0;
}

/* The capacity in effect during 'hour' (the last reported before its end;
 * before the first report, the first one). */
static const int64_t *cap_at(const struct caps *c, int64_t hour)
{
    size_t k = 0;

    if (!c->n)
        return NULL;
    while (k + 1 < c->n && c->v[k + 1][0] < hour + 3600)
        k++;
    return c->v[k] + 1;
}

/* The values of hour 'h' after cluster_id and t: allocated, capacity and
 * planned seconds.  Planned is capped at the hour's idle time (capacity -
 * allocated), as Slurm's _setup_cluster_tres_usage lowers plan_secs until
 * idle_secs (capacity - allocated - down - planned down - planned) is no
 * longer negative; the report's idle is what is left.
 */
static void cluster_hour_values(const struct pass *ps, const int64_t *cap,
                                int64_t h, struct db_param *p)
{
    const int64_t *alloc = ps->alloc[(h - ps->from) / 3600];
    const int64_t *plan = ps->plan[(h - ps->from) / 3600];
    const int64_t *pdown = ps->pdown[(h - ps->from) / 3600];
    int64_t secs = ps->now < h + 3600 ? ps->now - h : 3600;

    for (int i = 0; i < USAGE_NTRES; i++) {
        int64_t c = cap ? cap[i] * secs : 0;
        int64_t idle = c > alloc[i] ? c - alloc[i] : 0;
        int64_t pd = pdown[i] < idle ? pdown[i] : idle;

        idle -= pd; /* planned down first, then planned */
        p[i] = DB_INT(alloc[i]);
        p[USAGE_NTRES + i] = DB_INT(c);
        p[2 * USAGE_NTRES + i] = DB_INT(plan[i] < idle ? plan[i] : idle);
        p[3 * USAGE_NTRES + i] = DB_INT(pd);
    }
}

static int write_cluster_hours(db_t *db, int64_t cid, struct pass *ps,
                               drv_error_t *error)
{
    struct batch b = {.db = db, .table = "cluster_usage_hour", .ncols = 18,
                      .cols = "cluster_id, t, cpu_s, mem_s, node_s, gpu_s, "
                              "cap_cpu_s, cap_mem_s, cap_node_s, cap_gpu_s, "
                              "plan_cpu_s, plan_mem_s, plan_node_s, "
                              "plan_gpu_s, pdown_cpu_s, pdown_mem_s, "
                              "pdown_node_s, pdown_gpu_s"};
    struct caps caps = {0};
    struct db_param cp[] = {DB_INT(cid)};
    int rc = 0;

    if (db_query(db, "SELECT since, cpu, mem, node, gpu FROM cluster_tres "
                     "WHERE cluster_id = ? ORDER BY since", cp, 1, cap_row,
                 &caps, error) < 0)
        return -1;
    for (int64_t h = ps->from; h < ps->to && rc == 0; h += 3600) {
        struct db_param *p = b.p + b.rows * b.ncols;

        p[0] = DB_INT(cid);
        p[1] = DB_INT(h);
        cluster_hour_values(ps, cap_at(&caps, h), h, p + 2);
        if (++b.rows == BATCH)
            rc = batch_flush(&b, error);
    }
    free(caps.v);
    return rc < 0 ? -1 : batch_flush(&b, error);
}

static int delete_range(db_t *db, const char *table, int64_t cid, int64_t t0,
                        int64_t t1, drv_error_t *error)
{
    struct db_param p[] = {DB_INT(cid), DB_INT(t0), DB_INT(t1)};
    char *sql = xasprintf("DELETE FROM %s WHERE cluster_id = ? AND t >= ? "
                          "AND t < ?", table);
    int rc = db_exec(db, sql, p, 3, error);

    free(sql);
    return rc;
}

static int roll_hours(db_t *db, int64_t cid, int64_t from, int64_t now,
                      drv_error_t *error)
{
    struct pass ps = {.from = from, .now = now};
    int rc;

    ps.to = now - now % 3600 + 3600;
    ps.alloc = xzalloc((size_t)((ps.to - from) / 3600) * sizeof(*ps.alloc));
    ps.plan = xzalloc((size_t)((ps.to - from) / 3600) * sizeof(*ps.plan));
    ps.pdown = xzalloc((size_t)((ps.to - from) / 3600) * sizeof(*ps.pdown));
    rc = read_jobs(db, cid, &ps, error);
    if (rc == 0)
        rc = read_waits(db, cid, &ps, error);
    if (rc == 0)
        rc = read_maint(db, cid, &ps, error);
    if (rc == 0)
        rc = delete_range(db, "usage_hour", cid, from, ps.to, error);
    if (rc == 0)
        rc = delete_range(db, "cluster_usage_hour", cid, from, ps.to, error);
    if (rc == 0)
        rc = write_cells(db, cid, &ps, error);
    if (rc == 0)
        rc = write_cluster_hours(db, cid, &ps, error);
    pass_free(&ps);
    return rc;
}

/* ---- days and months: sums of the finer table ---- */

#define SUMS "SUM(cpu_s), SUM(mem_s), SUM(node_s), SUM(gpu_s)"

static int sum_period(db_t *db, int64_t cid, const char *fine,
                      const char *coarse, int64_t t0, int64_t t1,
                      drv_error_t *error)
{
    struct db_param p[] = {DB_INT(t0), DB_INT(cid), DB_INT(t0), DB_INT(t1)};
    char *sql;
    int rc;

    if (delete_range(db, coarse, cid, t0, t1, error) < 0)
        return -1;
    if (!strncmp(coarse, "cluster_", 8))
        sql = xasprintf("INSERT INTO %s (t, cluster_id, cpu_s, mem_s, "
                        "node_s, gpu_s, cap_cpu_s, cap_mem_s, cap_node_s, "
                        "cap_gpu_s, plan_cpu_s, plan_mem_s, plan_node_s, "
                        "plan_gpu_s, pdown_cpu_s, pdown_mem_s, pdown_node_s, "
                        "pdown_gpu_s) SELECT ?, cluster_id, " SUMS ", "
                        "SUM(cap_cpu_s), SUM(cap_mem_s), SUM(cap_node_s), "
                        "SUM(cap_gpu_s), SUM(plan_cpu_s), SUM(plan_mem_s), "
                        "SUM(plan_node_s), SUM(plan_gpu_s), "
                        "SUM(pdown_cpu_s), SUM(pdown_mem_s), "
                        "SUM(pdown_node_s), SUM(pdown_gpu_s) FROM %s WHERE "
                        "cluster_id = ? AND t >= ? AND t < ? GROUP BY "
                        "cluster_id", coarse, fine);
    else
        sql = xasprintf("INSERT INTO %s (t, cluster_id, account, user_name, "
                        "cpu_s, mem_s, node_s, gpu_s) SELECT ?, cluster_id, "
                        "account, user_name, " SUMS " FROM %s WHERE "
                        "cluster_id = ? AND t >= ? AND t < ? GROUP BY "
                        "cluster_id, account, user_name", coarse, fine);
    rc = db_exec(db, sql, p, 4, error);
    free(sql);
    return rc;
}

static int roll_calendar(db_t *db, int64_t cid, int64_t from, int64_t to,
                         drv_error_t *error)
{
    for (int64_t d = usage_day_start(from); d < to; d = usage_next_day(d))
        if (sum_period(db, cid, "usage_hour", "usage_day", d,
                       usage_next_day(d), error) < 0
            || sum_period(db, cid, "cluster_usage_hour", "cluster_usage_day",
                          d, usage_next_day(d), error) < 0)
            return -1;
    for (int64_t m = usage_month_start(from); m < to;
         m = usage_next_month(m))
        if (sum_period(db, cid, "usage_day", "usage_month", m,
                       usage_next_month(m), error) < 0
            || sum_period(db, cid, "cluster_usage_day",
                          "cluster_usage_month", m, usage_next_month(m),
                          error) < 0)
            return -1;
    return 0;
}

struct todo {
    int64_t (*v)[2]; /* cluster id, redo_from */
    size_t n;
};

static int todo_row(const struct db_row *row, void *arg)
{
    struct todo *t = arg;

    t->v = xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
    t->v[t->n][0] = db_row_int(row, 0);
    t->v[t->n][1] = db_row_int(row, 1);
    t->n++;
    return 0;
}

static int roll_cluster(db_t *db, int64_t cid, int64_t from, time_t now,
                        drv_error_t *error)
{
    int64_t hour = (int64_t)now - (int64_t)now % 3600;
    struct db_param p[] = {DB_INT(hour), DB_INT(cid)};

    if (from > hour)
        from = hour;
    if (db_begin(db, error) < 0)
        return -1;
    if (roll_hours(db, cid, from, (int64_t)now, error) < 0
        || roll_calendar(db, cid, from, hour + 3600, error) < 0
        || db_exec(db, "UPDATE usage_state SET redo_from = ? WHERE "
                       "cluster_id = ?", p, 2, error) < 0
        || db_commit(db, error) < 0) {
        db_rollback(db);
        return -1;
    }
    return 0;
}

int usage_rollup(db_t *db, time_t now, drv_error_t *error)
{
    struct todo t = {0};
    int rc;

    rc = db_query(db, "SELECT cluster_id, redo_from FROM usage_state "
                      "ORDER BY cluster_id", NULL, 0, todo_row, &t, error);
    for (size_t i = 0; rc == 0 && i < t.n; i++)
        rc = roll_cluster(db, t.v[i][0], t.v[i][1], now, error);
    free(t.v);
    return rc;
}
