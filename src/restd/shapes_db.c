/* SPDX-License-Identifier: Apache-2.0
 *
 * shapes_db.c - /slurmdb's accounting tables (QOS, associations, users,
 * accounts) in slurmrestd's v0.0.39 (Slurm 23.02) and v0.0.40 (Slurm
 * 23.11) shapes, made from the v0.0.38 ones (slurmdb_v38.c)
 *
 * A table, not code: each row moves one value of the v0.0.38 record (a
 * dotted path) to its path in the later version, converting it on the
 * way, or adds a key the later version has and Drover does not keep.
 * The paths are those of Slurm 23.02's data_parser v0.0.39 (its OpenAPI
 * schemas v0.0.39_qos, v0.0.39_assoc, v0.0.39_user); v0.0.40 adds the
 * rows of its own table.  docs/rest.md lists the differences.
 */
#include <stddef.h>
#include <string.h>

#include "restd/api.h"

enum db_conv {
    DB_COPY,     /* the value as it is (null when missing) */
    DB_LIMIT,    /* a limit: number set, null (none) infinite */
    DB_NUMBER,   /* a number set, null "not set" */
    DB_UNSET,    /* a no_val Drover does not keep: "not set" */
    DB_LIST,     /* a list Drover does not keep: [] */
    DB_STRING,   /* a string Drover does not keep: "" */
    DB_FLAGS,    /* a string as a one-flag array ("None" -> ["None"]) */
    DB_REC_LIMIT,/* 'from' is a key of droverdbd's record that v0.0.38
                  * does not show: a limit, -1 (none) infinite */
};

struct db_move {
    const char *from;    /* v0.0.38 path (DB_REC_LIMIT: a key of the
                          * record); NULL for a new key */
    const char *to;      /* the later version's path */
    enum db_conv conv;
};

/* The value of row 'm' from 'v38' (or 'rec').  New reference. */
static json_t *db_value(const json_t *v38, const json_t *rec,
                        const struct db_move *m)
{
    json_t *v = m->from ? shape_get(v38, m->from) : NULL;
    json_t *n;

    switch (m->conv) {
    case DB_REC_LIMIT:
        n = json_object_get(rec, m->from);
        return json_integer_value(n) < 0 || !json_is_integer(n)
                   ? shape_no_val(1, 1, 0)
                   : shape_no_val(1, 0, json_integer_value(n));
    case DB_LIMIT:
        return shape_no_val_of(v, 1);
    case DB_NUMBER:
    case DB_UNSET:
        return shape_no_val_of(v, 0);
    case DB_LIST:
        return json_array();
    case DB_STRING:
        return json_string("");
    case DB_FLAGS:
        return json_string_value(v) ? json_pack("[s]", json_string_value(v))
                                    : json_array();
    case DB_COPY:
    default:
        return v ? json_incref(v) : json_null();
    }
}

/* Apply 'moves' (ending with a NULL 'to') from 'v38' and 'rec' into
 * 'o'. */
static void db_apply(json_t *o, const json_t *v38, const json_t *rec,
                     const struct db_move *moves)
{
    for (; moves->to; moves++)
        shape_put(o, db_value(v38, rec, moves), moves->to);
}

/* A QOS's limits: the v0.0.38 tree "limits" is rebuilt. */
static const struct db_move qos_v39[] = {
    {"limits.grace_time", "limits.grace_time", DB_COPY},
    {"limits.max.active_jobs.count", "limits.max.active_jobs.count",
     DB_LIMIT},
    {NULL, "limits.max.active_jobs.accruing", DB_UNSET},
    {NULL, "limits.max.accruing.per.account", DB_UNSET},
    {NULL, "limits.max.accruing.per.user", DB_UNSET},
    {NULL, "limits.max.jobs.active_jobs.per.account", DB_UNSET},
    /* MaxJobsPerUser (v0.0.38's max.jobs.per.user) and
     * MaxSubmitJobsPerUser. */
    {"limits.max.jobs.per.user", "limits.max.jobs.active_jobs.per.user",
     DB_LIMIT},
    {NULL, "limits.max.jobs.per.account", DB_UNSET},
    {"max_submit_jobs_per_user", "limits.max.jobs.per.user", DB_REC_LIMIT},
    {NULL, "limits.max.tres.total", DB_LIST},
    {NULL, "limits.max.tres.minutes.per.qos", DB_LIST},
    {NULL, "limits.max.tres.minutes.per.job", DB_LIST},
    {NULL, "limits.max.tres.minutes.per.account", DB_LIST},
    {NULL, "limits.max.tres.minutes.per.user", DB_LIST},
    {NULL, "limits.max.tres.per.account", DB_LIST},
    {"limits.max.tres.per.job", "limits.max.tres.per.job", DB_COPY},
    {NULL, "limits.max.tres.per.node", DB_LIST},
    {"limits.max.tres.per.user", "limits.max.tres.per.user", DB_COPY},
    {NULL, "limits.max.wall_clock.per.qos", DB_UNSET},
    {"limits.max.wall_clock.per.job", "limits.max.wall_clock.per.job",
     DB_LIMIT},
    {NULL, "limits.factor", DB_UNSET},
    {NULL, "limits.min.priority_threshold", DB_UNSET},
    {NULL, "limits.min.tres.per.job", DB_LIST},
    {"preempt.exempt_time", "preempt.exempt_time", DB_NUMBER},
    {"usage_factor", "usage_factor", DB_NUMBER},
    {"usage_threshold", "usage_threshold", DB_NUMBER},
    {NULL, NULL, DB_COPY},
};

/* v0.0.40: a QOS's priority is a uint32_no_val too (v0.0.39's is a
 * plain integer). */
static const struct db_move qos_v40[] = {
    {"priority", "priority", DB_NUMBER},
    {NULL, NULL, DB_COPY},
};

/* An association's "max" tree is rebuilt: v0.0.38's per-user limits
 * (max.jobs.per.count, .submitted) are v0.0.39's max.jobs.active and
 * .total, and its group limits (max.per.account.jobs, .submitted) are
 * max.jobs.per.count and .submitted. */
static const struct db_move assoc_v39[] = {
    {"max.jobs.per.count", "max.jobs.active", DB_LIMIT},
    {NULL, "max.jobs.accruing", DB_UNSET},
    {"max.jobs.per.submitted", "max.jobs.total", DB_LIMIT},
    {"max.per.account.jobs", "max.jobs.per.count", DB_LIMIT},
    {NULL, "max.jobs.per.accruing", DB_UNSET},
    {"max.per.account.submitted", "max.jobs.per.submitted", DB_LIMIT},
    {"max.jobs.per.wall_clock", "max.jobs.per.wall_clock", DB_LIMIT},
    {"max.tres.total", "max.tres.total", DB_COPY},
    {NULL, "max.tres.group.minutes", DB_LIST},
    {NULL, "max.tres.group.active", DB_LIST},
    {NULL, "max.tres.minutes.total", DB_LIST},
    {NULL, "max.tres.minutes.per.job", DB_LIST},
    {"max.tres.per.job", "max.tres.per.job", DB_COPY},
    {NULL, "max.tres.per.node", DB_LIST},
    {NULL, "max.per.account.wall_clock", DB_UNSET},
    {NULL, "min.priority_threshold", DB_UNSET},
    {"priority", "priority", DB_NUMBER},
    {NULL, NULL, DB_COPY},
};

/* v0.0.40 adds an association's comment. */
static const struct db_move assoc_v40[] = {
    {NULL, "comment", DB_STRING},
    {NULL, NULL, DB_COPY},
};

static const struct db_move user_v39[] = {
    {"administrator_level", "administrator_level", DB_FLAGS},
    {NULL, "wckeys", DB_LIST},
    {NULL, NULL, DB_COPY},
};

static const struct db_move none[] = {{NULL, NULL, DB_COPY}};

/* Per kind: the v0.0.38 tree the later versions rebuild (NULL: none),
 * and the rows of v0.0.39 and of v0.0.40 (applied after v0.0.39's). */
static const struct {
    const char *rebuilt;
    const struct db_move *v39, *v40;
} db_shapes[] = {
    [REST_DB_QOS] = {"limits", qos_v39, qos_v40},
    [REST_DB_ASSOC] = {"max", assoc_v39, assoc_v40},
    [REST_DB_USER] = {NULL, user_v39, none},
    [REST_DB_ACCOUNT] = {NULL, none, none},
};

json_t *shape_db_entity(json_t *v38, const json_t *rec,
                        enum rest_db_rec kind, int minor)
{
    json_t *o = json_copy(v38);

    if (db_shapes[kind].rebuilt)
        json_object_del(o, db_shapes[kind].rebuilt);
    db_apply(o, v38, rec, db_shapes[kind].v39);
    if (minor >= 40)
        db_apply(o, v38, rec, db_shapes[kind].v40);
    json_decref(v38);
    return o;
}
