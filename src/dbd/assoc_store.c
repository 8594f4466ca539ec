/* SPDX-License-Identifier: Apache-2.0
 *
 * assoc_store.c - association tables: schema, registration, listing with
 * inheritance (assoc_modify.c changes them)
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <pwd.h>
#include <stdio.h>
#include <time.h>

#include "common/xalloc.h"
#include "dbd/assoc_private.h"
#include "dbd/assoc_store.h"

/* Version 2.  NULL in an association column means "not set here":
 * inherited (Max*, QOS, priority) or none (Grp*).  Lists are "a,b" text.
 */
const char *const assoc_schema_v2[] = {
    "CREATE TABLE acct_meta ("
    " name TEXT NOT NULL PRIMARY KEY,"
    " value BIGINT NOT NULL)",
    "INSERT INTO acct_meta (name, value) VALUES ('assoc_version', 1)",
    "CREATE TABLE qos ("
    " id @PK@,"
    " name TEXT NOT NULL UNIQUE,"
    " description TEXT NOT NULL DEFAULT '',"
    " priority BIGINT NOT NULL DEFAULT 0,"
    " usage_factor TEXT NOT NULL DEFAULT '1',"
    " grace_time_s BIGINT NOT NULL DEFAULT 0,"
    " preempt TEXT NOT NULL DEFAULT '',"
    " preempt_mode TEXT NOT NULL DEFAULT 'cluster',"
    " flags TEXT NOT NULL DEFAULT '',"
    " grp_tres TEXT NOT NULL DEFAULT '',"
    " grp_jobs BIGINT NOT NULL DEFAULT -1,"
    " grp_submit_jobs BIGINT NOT NULL DEFAULT -1,"
    " max_tres_per_job TEXT NOT NULL DEFAULT '',"
    " max_tres_per_user TEXT NOT NULL DEFAULT '',"
    " max_jobs_per_user BIGINT NOT NULL DEFAULT -1,"
    " max_submit_jobs_per_user BIGINT NOT NULL DEFAULT -1,"
    " max_wall_min BIGINT NOT NULL DEFAULT -1)",
    "INSERT INTO qos (name, description) VALUES ('normal', "
    "'Normal QOS default')",
    "CREATE TABLE acct ("
    " id @PK@,"
    " name TEXT NOT NULL UNIQUE,"
    " description TEXT NOT NULL DEFAULT '',"
    " organization TEXT NOT NULL DEFAULT '')",
    "INSERT INTO acct (name, description, organization) VALUES ('root', "
    "'default root account', 'root')",
    "CREATE TABLE acct_user ("
    " id @PK@,"
    " name TEXT NOT NULL UNIQUE,"
    " default_account TEXT NOT NULL DEFAULT '',"
    " admin_level TEXT NOT NULL DEFAULT 'None')",
    "INSERT INTO acct_user (name, default_account, admin_level) VALUES "
    "('root', 'root', 'Administrator')",
    "CREATE TABLE assoc ("
    " id @PK@,"
    " cluster_id BIGINT NOT NULL REFERENCES cluster(id),"
    " account TEXT NOT NULL,"
    " user_name TEXT NOT NULL DEFAULT '',"
    " part_name TEXT NOT NULL DEFAULT '',"
    " parent_account TEXT NOT NULL DEFAULT '',"
    " shares BIGINT NOT NULL DEFAULT 1,"
    " priority BIGINT,"
    " grp_tres TEXT,"
    " grp_jobs BIGINT,"
    " grp_submit_jobs BIGINT,"
    " max_tres_per_job TEXT,"
    " max_jobs BIGINT,"
    " max_submit_jobs BIGINT,"
    " max_wall_min BIGINT,"
    " qos TEXT,"
    " def_qos TEXT,"
    " UNIQUE (cluster_id, account, user_name, part_name))",
    "CREATE INDEX assoc_user ON assoc (user_name)",
    NULL,
};

/* JSON key = column name, except the three that avoid SQL keywords. */
const struct assoc_col assoc__assoc_cols[] = {
    {"account", ACOL_TEXT},         {"user", ACOL_TEXT},
    {"partition", ACOL_TEXT},       {"parent_account", ACOL_TEXT},
    {"shares", ACOL_INT},           {"priority", ACOL_INT},
    {"grp_tres", ACOL_TEXT},        {"grp_jobs", ACOL_INT},
    {"grp_submit_jobs", ACOL_INT},  {"max_tres_per_job", ACOL_TEXT},
    {"max_jobs", ACOL_INT},         {"max_submit_jobs", ACOL_INT},
    {"max_wall_min", ACOL_INT},     {"qos", ACOL_LIST},
    {"def_qos", ACOL_TEXT},         {NULL, 0},
};

const struct assoc_col assoc__qos_cols[] = {
    {"description", ACOL_TEXT},
    {"priority", ACOL_INT},
    {"usage_factor", ACOL_TEXT},
    {"grace_time_s", ACOL_INT},
    {"preempt", ACOL_LIST},
    {"preempt_mode", ACOL_TEXT},
    {"flags", ACOL_TEXT},
    {"grp_tres", ACOL_TEXT},
    {"grp_jobs", ACOL_INT},
    {"grp_submit_jobs", ACOL_INT},
    {"max_tres_per_job", ACOL_TEXT},
    {"max_tres_per_user", ACOL_TEXT},
    {"max_jobs_per_user", ACOL_INT},
    {"max_submit_jobs_per_user", ACOL_INT},
    {"max_wall_min", ACOL_INT},
    {NULL, 0},
};

#define ASSOC_SELECT                                                         \
    "SELECT a.id, c.name, a.account, a.user_name, a.part_name,"              \
    " a.parent_account, a.shares, a.priority, a.grp_tres, a.grp_jobs,"       \
    " a.grp_submit_jobs, a.max_tres_per_job, a.max_jobs,"                    \
    " a.max_submit_jobs, a.max_wall_min, a.qos, a.def_qos"                   \
    " FROM assoc a JOIN cluster c ON c.id = a.cluster_id"

static const struct assoc_col assoc_row_cols[] = {
    {"id", ACOL_INT},
    {"cluster", ACOL_TEXT},
    {"account", ACOL_TEXT},         {"user", ACOL_TEXT},
    {"partition", ACOL_TEXT},       {"parent_account", ACOL_TEXT},
    {"shares", ACOL_INT},           {"priority", ACOL_INT},
    {"grp_tres", ACOL_TEXT},        {"grp_jobs", ACOL_INT},
    {"grp_submit_jobs", ACOL_INT},  {"max_tres_per_job", ACOL_TEXT},
    {"max_jobs", ACOL_INT},         {"max_submit_jobs", ACOL_INT},
    {"max_wall_min", ACOL_INT},     {"qos", ACOL_LIST},
    {"def_qos", ACOL_TEXT},         {NULL, 0},
};

char *assoc__lower(const char *s)
{
    char *out = xstrdup(s ? s : "");

    for (char *p = out; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return out;
}

static json_t *split_list(const char *s)
{
    json_t *list = json_array();
    const char *p = s;

    while (p && *p) {
        size_t len = strcspn(p, ",");
        if (len)
            json_array_append_new(list, json_stringn(p, len));
        p += len + (p[len] == ',');
    }
    return list;
}

char *assoc__join(const json_t *list)
{
    size_t i;
    json_t *v;
    char *out = xstrdup(""), *next;

    json_array_foreach(list, i, v) {
        next = xasprintf("%s%s%s", out, i ? "," : "", json_string_value(v));
        free(out);
        out = next;
    }
    return out;
}

struct select_ctx {
    const struct assoc_col *cols;
    json_t *rows;
};

static int select_row(const struct db_row *row, void *arg)
{
    struct select_ctx *ctx = arg;
    json_t *o = json_object();

    for (size_t i = 0; ctx->cols[i].name; i++) {
        json_t *v;
        if (db_row_is_null(row, i))
            v = json_null();
        else if (ctx->cols[i].type == ACOL_INT)
            v = json_integer(db_row_int(row, i));
        else if (ctx->cols[i].type == ACOL_LIST)
            v = split_list(db_row_text(row, i));
        else
            v = json_string(db_row_text(row, i));
        json_object_set_new(o, ctx->cols[i].name, v);
    }
    json_array_append_new(ctx->rows, o);
    return 0;
}

json_t *assoc__select(db_t *db, const char *sql, const struct db_param *p,
                      size_t n, const struct assoc_col *cols,
                      drv_error_t *error)
{
    struct select_ctx ctx = {cols, json_array()};

    if (db_query(db, sql, p, n, select_row, &ctx, error) < 0) {
        json_decref(ctx.rows);
        return NULL;
    }
    return ctx.rows;
}

int assoc__bump(db_t *db, drv_error_t *error)
{
    return db_exec(db, "UPDATE acct_meta SET value = value + 1 "
                       "WHERE name = 'assoc_version'", NULL, 0, error);
}

int assoc_store_version(db_t *db, int64_t *version, drv_error_t *error)
{
    return db_query_int(db, "SELECT value FROM acct_meta "
                            "WHERE name = 'assoc_version'",
                        NULL, 0, version, error);
}

int assoc__cluster_id(db_t *db, const char *name, int64_t *id,
                      drv_error_t *error)
{
    struct db_param p[] = {DB_TEXT(name)};

    return db_query_int(db, "SELECT id FROM cluster WHERE name = ?", p, 1,
                        id, error);
}

json_t *assoc__cluster_names(db_t *db, drv_error_t *error)
{
    static const struct assoc_col cols[] = {{"name", ACOL_TEXT}, {NULL, 0}};
    json_t *rows = assoc__select(db, "SELECT name FROM cluster ORDER BY name",
                                 NULL, 0, cols, error);
    json_t *names, *row;
    size_t i;

    if (!rows)
        return NULL;
    names = json_array();
    json_array_foreach(rows, i, row)
        json_array_append(names, json_object_get(row, "name"));
    json_decref(rows);
    return names;
}

int assoc__exists(db_t *db, const char *table, const char *name, bool *yes,
                  drv_error_t *error)
{
    struct db_param p[] = {DB_TEXT(name)};
    char *sql = xasprintf("SELECT COUNT(*) FROM %s WHERE name = ?", table);
    int64_t n = 0;
    int rc = db_query_int(db, sql, p, 1, &n, error);

    free(sql);
    *yes = n > 0;
    return rc;
}

/* The name as it may be shown in an error: its first 32 bytes, with
 * unprintable ones as '?'.
 */
static void shown_name(const char *name, char *out, size_t size)
{
    size_t i;

    for (i = 0; name[i] && i + 4 < size && i < 32; i++)
        out[i] = isprint((unsigned char)name[i]) ? name[i] : '?';
    snprintf(out + i, size - i, "%s", name[i] ? "..." : "");
}

int assoc_store_check_name(const char *kind, const char *name,
                           drv_error_t *error)
{
    size_t len = name ? strlen(name) : 0;
    const char *bad = NULL;
    char shown[40];

    if (len == 0)
        bad = "the name is empty";
    else if (len > ASSOC_NAME_MAX)
        bad = "longer than 64 characters";
    for (size_t i = 0; !bad && i < len; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c <= ' ' || c == 0x7f)
            bad = "whitespace or control characters are not allowed";
        else if (strchr(",'\"`=|\\", c))
            bad = "the characters , ' \" ` = | \\ are not allowed";
    }
    if (!bad)
        return 0;
    shown_name(name ? name : "", shown, sizeof(shown));
    errno = EINVAL;
    return errprintf(error, " error: Invalid %s name '%s': %s", kind, shown,
                     bad);
}

int assoc_store_ensure_cluster(db_t *db, const char *cluster,
                               drv_error_t *error)
{
    int64_t cid, n = 0;
    char *name = assoc__lower(cluster);
    int rc = -1;

    if (assoc_store_check_name("cluster", name, error) < 0)
        goto out;
    {
        struct db_param p[] = {DB_TEXT(name), DB_INT(time(NULL))};
        if (db_exec(db, "INSERT INTO cluster (name, created) VALUES (?, ?) "
                        "ON CONFLICT (name) DO NOTHING", p, 2, error) < 0
            || assoc__cluster_id(db, name, &cid, error) < 0)
            goto out;
    }
    {
        struct db_param p[] = {DB_INT(cid)};
        if (db_query_int(db, "SELECT COUNT(*) FROM assoc WHERE cluster_id = ?"
                             " AND account = 'root' AND user_name = ''",
                         p, 1, &n, error) < 0)
            goto out;
        if (n > 0) {
            rc = 0;
            goto out;
        }
        if (db_exec(db, "INSERT INTO assoc (cluster_id, account, qos) "
                        "VALUES (?, 'root', 'normal')", p, 1, error) < 0
            || db_exec(db, "INSERT INTO assoc (cluster_id, account, "
                           "user_name, parent_account) VALUES "
                           "(?, 'root', 'root', 'root') "
                           "ON CONFLICT DO NOTHING", p, 1, error) < 0
            || assoc__bump(db, error) < 0)
            goto out;
    }
    rc = 0;
out:
    free(name);
    return rc;
}

/* Tree order ------------------------------------------------------------ */

static bool is_child_of(json_t *row, const char *cluster, const char *acct,
                        bool users)
{
    const char *user = json_string_value(json_object_get(row, "user"));

    if (strcmp(json_string_value(json_object_get(row, "cluster")), cluster))
        return false;
    if (users)
        return user[0] && !strcmp(json_string_value(
                              json_object_get(row, "account")), acct);
    return !user[0] && !strcmp(json_string_value(
                           json_object_get(row, "parent_account")), acct);
}

/* Emit account 'acct' of 'cluster' (row 'self'), its users, then its
 * sub-accounts (rows come sorted by account, user, partition).
 */
static void emit_tree(json_t *rows, bool *done, size_t self, json_t *out,
                      int depth)
{
    const char *cluster, *acct;
    json_t *row;
    size_t i;

    if (done[self] || depth > 64)
        return;
    done[self] = true;
    row = json_array_get(rows, self);
    json_array_append(out, row);
    cluster = json_string_value(json_object_get(row, "cluster"));
    acct = json_string_value(json_object_get(row, "account"));
    for (int users = 1; users >= 0; users--) {
        json_array_foreach(rows, i, row) {
            if (done[i] || !is_child_of(row, cluster, acct, users))
                continue;
            if (users) {
                done[i] = true;
                json_array_append(out, row);
            } else {
                emit_tree(rows, done, i, out, depth + 1);
            }
        }
    }
}

json_t *assoc__raw_assocs(db_t *db, const char *cluster, drv_error_t *error)
{
    struct db_param p[] = {DB_TEXT(cluster)};
    json_t *rows, *out, *row;
    bool *done;
    size_t i;

    rows = assoc__select(db, cluster
                             ? ASSOC_SELECT " WHERE c.name = ? ORDER BY "
                               "c.name, a.account, a.user_name, a.part_name"
                             : ASSOC_SELECT " ORDER BY c.name, a.account, "
                               "a.user_name, a.part_name",
                         p, cluster ? 1 : 0, assoc_row_cols, error);
    if (!rows)
        return NULL;
    done = xzalloc(json_array_size(rows) + 1);
    out = json_array();
    json_array_foreach(rows, i, row) {
        const char *user = json_string_value(json_object_get(row, "user"));
        const char *par = json_string_value(
            json_object_get(row, "parent_account"));
        if (!user[0] && !par[0])
            emit_tree(rows, done, i, out, 0);
    }
    json_array_foreach(rows, i, row) { /* orphans, should there be any */
        if (!done[i])
            json_array_append(out, row);
    }
    free(done);
    json_decref(rows);
    return out;
}

/* Inheritance ------------------------------------------------------------ */

static const char *const inherited[] = {
    "priority", "max_tres_per_job", "max_jobs", "max_submit_jobs",
    "max_wall_min", "qos", "def_qos", NULL,
};

/* 'row' with unset values taken from 'parent' (effective, or NULL), then
 * remaining NULLs as -1 / "" / [].
 */
static json_t *effective(json_t *row, json_t *parent)
{
    json_t *e = json_deep_copy(row);

    for (size_t i = 0; inherited[i]; i++) {
        if (json_is_null(json_object_get(e, inherited[i])) && parent)
            json_object_set(e, inherited[i],
                            json_object_get(parent, inherited[i]));
    }
    for (size_t i = 0; assoc__assoc_cols[i].name; i++) {
        const char *k = assoc__assoc_cols[i].name;
        if (!json_is_null(json_object_get(e, k)))
            continue;
        json_object_set_new(e, k,
                            assoc__assoc_cols[i].type == ACOL_INT
                                ? json_integer(-1)
                            : assoc__assoc_cols[i].type == ACOL_LIST
                                ? json_array()
                                : json_string(""));
    }
    return e;
}

static json_t *effective_assocs(json_t *raw)
{
    json_t *out = json_array(), *byacct = json_object(), *row;
    size_t i;

    json_array_foreach(raw, i, row) {
        const char *user = json_string_value(json_object_get(row, "user"));
        const char *par = json_string_value(
            json_object_get(row, user[0] ? "account" : "parent_account"));
        char *key = xasprintf("%s\n%s",
                              json_string_value(json_object_get(row,
                                                                "cluster")),
                              par);
        json_t *e = effective(row, json_object_get(byacct, key));
        free(key);
        if (!user[0]) {
            key = xasprintf("%s\n%s",
                            json_string_value(json_object_get(row, "cluster")),
                            json_string_value(json_object_get(row,
                                                              "account")));
            json_object_set(byacct, key, e);
            free(key);
        }
        json_array_append_new(out, e);
    }
    json_decref(byacct);
    return out;
}

static json_t *list_users(db_t *db, drv_error_t *error)
{
    static const struct assoc_col cols[] = {
        {"name", ACOL_TEXT}, {"default_account", ACOL_TEXT},
        {"admin_level", ACOL_TEXT}, {NULL, 0},
    };
    json_t *users = assoc__select(db, "SELECT name, default_account, "
                                      "admin_level FROM acct_user "
                                      "ORDER BY name",
                                  NULL, 0, cols, error);
    json_t *u;
    size_t i;

    json_array_foreach(users, i, u) {
        struct passwd pw, *res = NULL;
        char buf[1024];
        getpwnam_r(json_string_value(json_object_get(u, "name")), &pw, buf,
                   sizeof(buf), &res);
        json_object_set_new(u, "uid", json_integer(res ? (json_int_t)res->pw_uid
                                                       : -1));
    }
    return users;
}

json_t *assoc__qos_rows(db_t *db, drv_error_t *error)
{
    struct assoc_col cols[32] = {{"id", ACOL_INT}, {"name", ACOL_TEXT}};
    char sql[1024] = "SELECT id, name";
    size_t n = 2;

    /* id and name, then the QOS's own columns (one table for both) */
    for (const struct assoc_col *c = assoc__qos_cols;
         c->name && n + 1 < sizeof(cols) / sizeof(*cols); c++) {
        cols[n++] = *c;
        strcat(sql, ", ");
        strcat(sql, c->name);
    }
    strcat(sql, " FROM qos ORDER BY id");
    return assoc__select(db, sql, NULL, 0, cols, error);
}

static json_t *list_accounts(db_t *db, drv_error_t *error)
{
    static const struct assoc_col cols[] = {
        {"name", ACOL_TEXT}, {"description", ACOL_TEXT},
        {"organization", ACOL_TEXT}, {NULL, 0},
    };

    return assoc__select(db, "SELECT name, description, organization FROM "
                             "acct ORDER BY name", NULL, 0, cols, error);
}

json_t *assoc_store_list(db_t *db, const char *cluster,
                         int64_t if_changed_since, drv_error_t *error)
{
    int64_t version;
    json_t *qos = NULL, *raw = NULL, *users = NULL, *out, *accts;
    json_t *q;
    size_t i;

    if (assoc_store_version(db, &version, error) < 0)
        return NULL;
    if (if_changed_since == version)
        return json_pack("{s:I,s:b}", "version", (json_int_t)version,
                         "unchanged", 1);
    if (!(qos = assoc__qos_rows(db, error)) || !(raw = assoc__raw_assocs(db, cluster,
                                                                  error))
        || !(users = list_users(db, error))) {
        json_decref(qos);
        json_decref(raw);
        return NULL;
    }
    json_array_foreach(qos, i, q) {
        double f = atof(json_string_value(json_object_get(q, "usage_factor")));
        json_object_set_new(q, "usage_factor", json_real(f));
    }
    out = json_pack("{s:I,s:o,s:o,s:o}", "version", (json_int_t)version,
                    "qos", qos, "assocs", effective_assocs(raw), "users",
                    users);
    if (out && (accts = list_accounts(db, error)))
        json_object_set_new(out, "accounts", accts);
    json_decref(raw);
    return out;
}

int assoc_store_admin_level(db_t *db, const char *name, char *level,
                            size_t size, drv_error_t *error)
{
    static const struct assoc_col cols[] = {{"l", ACOL_TEXT}, {NULL, 0}};
    struct db_param p[] = {DB_TEXT(name)};
    json_t *rows = assoc__select(db, "SELECT admin_level FROM acct_user "
                                     "WHERE name = ?", p, 1, cols, error);

    if (!rows)
        return -1;
    snprintf(level, size, "%s",
             json_array_size(rows)
                 ? json_string_value(json_object_get(json_array_get(rows, 0),
                                                     "l"))
                 : "None");
    json_decref(rows);
    return 0;
}
