/* SPDX-License-Identifier: Apache-2.0
 *
 * slurmdb_v38.c - slurmrestd's /slurmdb/v0.0.38 paths over droverdbd (and
 * /slurmdb/v0.0.39 and v0.0.40's, in their shapes through api.h)
 *
 * Jobs come out of `sacct --json`'s converter (cmd/lib/sacct_json.c), in
 * the later versions' shapes through api.h;
 * QOS, associations, accounts and users are droverdbd's records in
 * v0.0.38's shapes (the later versions' made from them by shapes_db.c), with Slurm's "not set" where Drover keeps nothing
 * (docs/rest.md).  The token's user is the sender, so PrivateData= and
 * sacctmgr's permissions apply as for the commands.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#include "cmd/lib/json_out.h"
#include "cmd/lib/jsonget.h"
#include "cmd/lib/sacct_json.h"
#include "common/error.h"
#include "restd/api.h"
#include "restd/rest.h"

/* A comma list of the query argument 'key' into body[to] (strings). */
static void list_arg(struct rest_req *r, const char *key, json_t *body,
                     const char *to)
{
    const char *v = rest_query(r, key);
    json_t *arr;

    if (!v || !*v)
        return;
    arr = json_array();
    for (const char *p = v; *p;) {
        size_t n = strcspn(p, ",");
        if (n)
            json_array_append_new(arr, json_stringn(p, n));
        p += n + (p[n] == ',');
    }
    json_object_set_new(body, to, arr);
}

/* An epoch-seconds query argument into body[to]; false after a 400. */
static bool time_arg(struct rest_req *r, const char *key, json_t *body,
                     const char *to)
{
    const char *v = rest_query(r, key);
    char *end;
    long long t;

    if (!v || !*v)
        return true;
    errno = 0;
    t = strtoll(v, &end, 10);
    if (errno || *end || t < 0) {
        rest_fail(r, MHD_HTTP_BAD_REQUEST, EDRV_INVALID_TIME_VALUE,
                  "%s=%s: expected epoch seconds", key, v);
        return false;
    }
    json_object_set_new(body, to, json_integer(t));
    return true;
}

static void answer_jobs(struct rest_req *r, json_t *body, bool one)
{
    const struct rest_api *api = rest_api_of(r->path);
    json_t *resp = NULL, *doc, *arr, *job;
    struct sacct_ctx ctx = {0};
    size_t i;

    json_object_set_new(body, "cluster",
                        json_string(r->rd->conf->cluster_name
                                        ? r->rd->conf->cluster_name
                                        : ""));
    if (rest_call_dbd(r, "acct_job_query", body, &resp) < 0)
        return;
    if (one && !json_array_size(json_object_get(resp, "jobs"))) {
        json_decref(resp);
        return rest_fail_errno(r, EDRV_INVALID_JOB_ID, NULL);
    }
    ctx.now = (time_t)jint(resp, "now", 0);
    ctx.cluster = r->rd->conf->cluster_name;
    doc = rest_api_doc(api);
    arr = json_array();
    json_array_foreach(json_object_get(resp, "jobs"), i, job)
        json_array_append_new(arr, rest_api_db_job(api, job, &ctx));
    json_object_set_new(doc, "jobs", arr);
    json_decref(resp);
    rest_answer(r, doc);
}

/* ?users=a,b&account=&partition=&state=&job_name=&start_time=&end_time=
 * (slurmrestd's names), as sacct's options. */
void rest_db_jobs(struct rest_req *r, const char *arg)
{
    json_t *body = json_object();

    (void)arg;
    list_arg(r, "account", body, "accounts");
    list_arg(r, "partition", body, "partitions");
    list_arg(r, "state", body, "states");
    list_arg(r, "job_name", body, "names");
    if (rest_query(r, "users")) {
        json_decref(body);
        return rest_fail(r, MHD_HTTP_BAD_REQUEST, EDRV_NOT_SUPPORTED,
                         "users=: not supported yet (filter the answer by "
                         "\"user\")");
    }
    if (!time_arg(r, "start_time", body, "start")
        || !time_arg(r, "end_time", body, "end")) {
        json_decref(body);
        return;
    }
    answer_jobs(r, body, false);
}

void rest_db_job_get(struct rest_req *r, const char *arg)
{
    char *end;
    unsigned long long id = strtoull(arg, &end, 10);

    if (!*arg || *end || id == 0 || id > UINT32_MAX)
        return rest_fail(r, MHD_HTTP_BAD_REQUEST, EDRV_INVALID_JOB_ID,
                         "%s: not a job id", arg);
    answer_jobs(r, json_pack("{s:[{s:I}]}", "job_ids", "job_id",
                             (json_int_t)id), true);
}

/* droverdbd's association lists (acct_assoc_list), or NULL after a
 * failure answered. */
static json_t *assoc_list(struct rest_req *r)
{
    json_t *resp = NULL;

    if (rest_call_dbd(r, "acct_assoc_list", json_object(), &resp) < 0)
        return NULL;
    return resp;
}

/* "cpu=2,gres/gpu=4" as v0.0.38's TRES list [{type,name,count}]. */
static json_t *tres_list(const char *s)
{
    json_t *arr = json_array();

    for (const char *p = s ? s : ""; *p;) {
        size_t n = strcspn(p, ",");
        const char *eq = memchr(p, '=', n), *slash = memchr(p, '/', n);
        if (eq) {
            json_t *t = json_object();
            const char *type_end = slash && slash < eq ? slash : eq;
            json_object_set_new(t, "type",
                                json_stringn(p, (size_t)(type_end - p)));
            json_object_set_new(t, "name",
                                slash && slash < eq
                                    ? json_stringn(slash + 1,
                                                   (size_t)(eq - slash - 1))
                                    : json_string(""));
            json_object_set_new(t, "count", json_integer(atoll(eq + 1)));
            json_array_append_new(arr, t);
        }
        p += n + (p[n] == ',');
    }
    return arr;
}

/* -1 ("not set" in droverdbd's records) as v0.0.38's null count. */
static json_t *count(const json_t *o, const char *key)
{
    json_int_t v = jint(o, key, 0);
    return v < 0 ? json_null() : json_integer(v);
}

/* o[k1][k2]...[kn] = v (stolen): shape_put(). */
static void put(json_t *o, json_t *v, const char *path)
{
    shape_put(o, v, path);
}

static json_t *copy_list(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_array(v) ? json_deep_copy(v) : json_array();
}

static json_t *qos_v38(const json_t *q)
{
    json_t *o = json_object();

    put(o, json_string(jstr_or(q, "description", "")), "description");
    put(o, json_array(), "flags");
    put(o, json_integer(jint(q, "id", 0)), "id");
    put(o, json_integer(jint(q, "grace_time_s", 0)), "limits.grace_time");
    put(o, count(q, "grp_jobs"), "limits.max.active_jobs.count");
    put(o, count(q, "max_jobs_per_user"), "limits.max.jobs.per.user");
    put(o, tres_list(jstr_or(q, "max_tres_per_job", "")), "limits.max.tres.per.job");
    put(o, tres_list(jstr_or(q, "max_tres_per_user", "")),
        "limits.max.tres.per.user");
    put(o, count(q, "max_wall_min"), "limits.max.wall_clock.per.job");
    put(o, json_null(), "limits.factor");
    put(o, json_string(jstr_or(q, "name", "")), "name");
    put(o, copy_list(q, "preempt"), "preempt.list");
    put(o, json_pack("[s]", jstr_or(q, "preempt_mode", "")), "preempt.mode");
    put(o, json_null(), "preempt.exempt_time");
    put(o, json_integer(jint(q, "priority", 0)), "priority");
    put(o, json_real(json_number_value(json_object_get(q, "usage_factor"))),
        "usage_factor");
    put(o, json_null(), "usage_threshold");
    return o;
}

static json_t *assoc_ref(const json_t *a)
{
    return json_pack("{s:s s:s s:s s:s}", "account", jstr_or(a, "account", ""),
                     "cluster", jstr_or(a, "cluster", ""), "partition",
                     jstr_or(a, "partition", ""), "user", jstr_or(a, "user", ""));
}

static json_t *assoc_v38(const json_t *a)
{
    json_t *o = json_object();

    put(o, json_string(jstr_or(a, "account", "")), "account");
    put(o, json_string(jstr_or(a, "cluster", "")), "cluster");
    put(o, json_string(jstr_or(a, "def_qos", "")), "default.qos");
    put(o, json_array(), "flags");
    put(o, count(a, "max_jobs"), "max.jobs.per.count");
    put(o, count(a, "max_submit_jobs"), "max.jobs.per.submitted");
    put(o, count(a, "max_wall_min"), "max.jobs.per.wall_clock");
    put(o, tres_list(jstr_or(a, "grp_tres", "")), "max.tres.total");
    put(o, tres_list(jstr_or(a, "max_tres_per_job", "")), "max.tres.per.job");
    put(o, count(a, "grp_jobs"), "max.per.account.jobs");
    put(o, count(a, "grp_submit_jobs"), "max.per.account.submitted");
    put(o, json_string(jstr_or(a, "parent_account", "")), "parent_account");
    put(o, json_string(jstr_or(a, "partition", "")), "partition");
    put(o, count(a, "priority"), "priority");
    put(o, copy_list(a, "qos"), "qos");
    put(o, json_integer(jint(a, "shares", 0)), "shares_raw");
    put(o, json_string(jstr_or(a, "user", "")), "user");
    return o;
}

/* The associations of user or account 'name' ("user" or "account" key). */
static json_t *assoc_refs(const json_t *list, const char *key,
                          const char *name)
{
    json_t *arr = json_array(), *a;
    size_t i;

    json_array_foreach(json_object_get(list, "assocs"), i, a) {
        if (!strcmp(jstr_or(a, key, ""), name)
            && (strcmp(key, "account") || !*jstr_or(a, "user", "")))
            json_array_append_new(arr, assoc_ref(a));
    }
    return arr;
}

static json_t *user_v38(const json_t *list, const json_t *u)
{
    return json_pack("{s:s s:o s:[] s:{s:s s:s} s:[] s:s}",
                     "administrator_level", jstr_or(u, "admin_level", ""),
                     "associations", assoc_refs(list, "user", jstr_or(u, "name", "")),
                     "coordinators", "default", "account",
                     jstr_or(u, "default_account", ""), "wckey", "", "flags", "name",
                     jstr_or(u, "name", ""));
}

static json_t *account_v38(const json_t *list, const json_t *a)
{
    return json_pack("{s:o s:[] s:s s:s s:s s:[]}", "associations",
                     assoc_refs(list, "account", jstr_or(a, "name", "")),
                     "coordinators", "description", jstr_or(a, "description", ""),
                     "name", jstr_or(a, "name", ""), "organization",
                     jstr_or(a, "organization", ""), "flags");
}

/* {meta, errors, key: [convert each of list[from]]}, in the path's API
 * version (a record of 'kind'). */
static void answer_entities(struct rest_req *r, const char *from,
                            const char *key, enum rest_db_rec kind,
                            json_t *(*convert)(const json_t *list,
                                               const json_t *e))
{
    const struct rest_api *api = rest_api_of(r->path);
    json_t *list = assoc_list(r), *doc, *arr, *e;
    size_t i;

    if (!list)
        return;
    arr = json_array();
    json_array_foreach(json_object_get(list, from), i, e)
        json_array_append_new(arr, rest_api_db_entity(api, convert(list, e),
                                                      e, kind));
    doc = rest_api_doc(api);
    json_object_set_new(doc, key, arr);
    json_decref(list);
    rest_answer(r, doc);
}

static json_t *qos_entry(const json_t *list, const json_t *e)
{
    (void)list;
    return qos_v38(e);
}

static json_t *assoc_entry(const json_t *list, const json_t *e)
{
    (void)list;
    return assoc_v38(e);
}

void rest_db_qos(struct rest_req *r, const char *arg)
{
    (void)arg;
    answer_entities(r, "qos", "qos", REST_DB_QOS, qos_entry);
}

void rest_db_associations(struct rest_req *r, const char *arg)
{
    (void)arg;
    answer_entities(r, "assocs", "associations", REST_DB_ASSOC,
                    assoc_entry);
}

void rest_db_accounts(struct rest_req *r, const char *arg)
{
    (void)arg;
    answer_entities(r, "accounts", "accounts", REST_DB_ACCOUNT,
                    account_v38);
}

void rest_db_users(struct rest_req *r, const char *arg)
{
    (void)arg;
    answer_entities(r, "users", "users", REST_DB_USER, user_v38);
}
