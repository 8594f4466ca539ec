/* SPDX-License-Identifier: Apache-2.0
 *
 * submit.c - POST /slurm/v0.0.3{8,9}/job/submit and v0.0.40: a job
 * description into the controller's job_submit body (docs/rest.md lists
 * the keys; numbers may come as v0.0.39's {"set","infinite","number"})
 *
 * Each key of the description is taken as Slurm documents it or refused
 * with 400 naming it: a key Drover does not take is never dropped
 * silently.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "cmd/lib/json_out.h"
#include "common/error.h"
#include "common/timefmt.h"
#include "restd/api.h"
#include "restd/rest.h"

enum kind {
    K_STR,      /* string as is */
    K_INT,      /* integer >= 0 */
    K_BOOL,     /* true/false */
    K_MINUTES,  /* minutes -> seconds */
    K_NODES,    /* "N", "N-M" or N -> nodes_min/nodes_max */
    K_ENV,      /* {"K":"V"} or ["K=V"] -> map */
    K_ARGV,     /* ["a","b"] */
    K_HOSTS,    /* "a,b" or ["a","b"] -> "a,b" */
    K_EXCL,     /* true/false or "user"/"exclusive" -> bool */
    K_TRES,     /* "gres/gpu[:type]:N" -> gpus_per_node (+ gpu_type) */
};

struct key {
    const char *rest;  /* v0.0.38's name */
    const char *body;  /* job_submit's */
    enum kind kind;
};

static const struct key keys[] = {
    {"account", "account", K_STR},
    {"argv", "argv", K_ARGV},
    {"array", "array", K_STR},
    {"begin_time", "begin_time", K_INT},
    {"comment", "comment", K_STR},
    {"constraints", "features", K_STR},
    {"cores_per_socket", "cores_per_socket", K_INT},
    {"cpus_per_task", "cpus_per_task", K_INT},
    {"current_directory", "work_dir", K_STR},
    {"dependency", "dependency", K_STR},
    {"environment", "env", K_ENV},
    {"excluded_nodes", "exc_nodes", K_HOSTS},
    {"exclusive", "exclusive", K_EXCL},
    {"hold", "hold", K_BOOL},
    {"maximum_nodes", "nodes_max", K_INT},
    {"memory_per_cpu", "mem_per_cpu_mib", K_INT},
    {"memory_per_node", "mem_per_node_mib", K_INT},
    {"minimum_nodes", "nodes_min", K_INT},
    {"name", "name", K_STR},
    {"nice", "nice", K_INT},
    {"nodes", "nodes_min", K_NODES},
    {"partition", "partition", K_STR},
    {"qos", "qos", K_STR},
    {"requeue", "requeue", K_BOOL},
    {"required_nodes", "req_nodes", K_HOSTS},
    {"reservation", "reservation", K_STR},
    {"sockets_per_node", "sockets_per_node", K_INT},
    {"standard_error", "std_err", K_STR},
    {"standard_input", "std_in", K_STR},
    {"standard_output", "std_out", K_STR},
    {"tasks", "ntasks", K_INT},
    {"tasks_per_node", "ntasks_per_node", K_INT},
    {"threads_per_core", "threads_per_core", K_INT},
    {"time_limit", "time_limit_s", K_MINUTES},
    {"time_minimum", "time_min_s", K_MINUTES},
    {"tres_per_node", "gpus_per_node", K_TRES},
    {NULL, NULL, K_STR},
};

static bool bad(struct rest_req *r, const char *key, const char *why)
{
    rest_fail(r, MHD_HTTP_BAD_REQUEST, EINVAL, "job.%s: %s", key, why);
    return false;
}

static bool take_env(struct rest_req *r, const char *key, const json_t *v,
                     json_t *body)
{
    json_t *env = json_object(), *e;
    const char *k;
    size_t i;

    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, k, e) {
            if (!json_is_string(e))
                return json_decref(env), bad(r, key, "values must be strings");
            json_object_set(env, k, e);
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, e) {
            const char *s = json_string_value(e);
            const char *eq = s ? strchr(s, '=') : NULL;
            if (!eq || eq == s)
                return json_decref(env), bad(r, key, "items must be NAME=value");
            char name[256];
            snprintf(name, sizeof(name), "%.*s", (int)(eq - s), s);
            json_object_set_new(env, name, json_string(eq + 1));
        }
    } else {
        json_decref(env);
        return bad(r, key, "expected an object or an array of NAME=value");
    }
    json_object_set_new(body, "env", env);
    return true;
}

static bool take_nodes(struct rest_req *r, const char *key, const json_t *v,
                       json_t *body)
{
    long lo, hi;
    char *end;

    if (json_is_integer(v)) {
        lo = hi = (long)json_integer_value(v);
    } else if (json_is_string(v)) {
        const char *s = json_string_value(v);
        lo = strtol(s, &end, 10);
        hi = lo;
        if (*end == '-')
            hi = strtol(end + 1, &end, 10);
        if (end == s || *end)
            return bad(r, key, "expected N or MIN-MAX");
    } else {
        return bad(r, key, "expected N or MIN-MAX");
    }
    if (lo < 1 || hi < lo)
        return bad(r, key, "node counts must be 1 or more, MIN <= MAX");
    json_object_set_new(body, "nodes_min", json_integer(lo));
    json_object_set_new(body, "nodes_max", json_integer(hi));
    return true;
}

static bool take_hosts(struct rest_req *r, const char *key, const json_t *v,
                       const char *to, json_t *body)
{
    json_t *e;
    size_t i;
    char *joined = NULL;
    size_t len = 0;

    if (json_is_string(v)) {
        json_object_set(body, to, (json_t *)v);
        return true;
    }
    if (!json_is_array(v))
        return bad(r, key, "expected a hostlist or an array of names");
    json_array_foreach(v, i, e) {
        const char *s = json_string_value(e);
        char *j;
        if (!s || !(j = realloc(joined, len + strlen(s) + 2))) {
            free(joined);
            return bad(r, key, "expected an array of names");
        }
        joined = j;
        len += (size_t)sprintf(joined + len, "%s%s", i ? "," : "", s);
    }
    json_object_set_new(body, to, json_string(joined ? joined : ""));
    free(joined);
    return true;
}

/* "gres/gpu:2", "gres/gpu=2", "gres/gpu:a100:2" (Slurm's TRES forms). */
static bool take_tres(struct rest_req *r, const char *key, const json_t *v,
                      json_t *body)
{
    const char *s = json_string_value(v), *count, *type = NULL;
    char *end, tbuf[64];
    long n;

    if (!s || strncmp(s, "gres/gpu", 8) || (s[8] != ':' && s[8] != '='))
        return bad(r, key, "only gres/gpu[:TYPE]:COUNT is taken");
    count = strrchr(s + 8, s[8] == '=' ? '=' : ':') + 1;
    if (count - 1 > s + 8) {
        snprintf(tbuf, sizeof(tbuf), "%.*s", (int)(count - 1 - (s + 9)),
                 s + 9);
        type = tbuf;
    }
    n = strtol(count, &end, 10);
    if (end == count || *end || n < 1)
        return bad(r, key, "expected a GPU count");
    json_object_set_new(body, "gpus_per_node", json_integer(n));
    if (type)
        json_object_set_new(body, "gpu_type", json_string(type));
    return true;
}

/* A number given as v0.0.39's {"set","infinite","number"}: 'v' made a
 * plain number in *plain (a new reference, NULL when "not set"); an
 * infinite time limit becomes TIME_INFINITE seconds in body.  False
 * after a 400. */
static bool take_no_val(struct rest_req *r, const struct key *k,
                        const json_t *v, json_t *body, json_t **plain)
{
    json_int_t n;
    int inf, got = shape_no_val_read(v, &n, &inf);

    *plain = NULL;
    if (got < 0)
        return bad(r, k->rest, "expected a number or {\"set\",\"infinite\","
                               "\"number\"}");
    if (got && inf && k->kind != K_MINUTES)
        return bad(r, k->rest, "cannot be infinite");
    if (got && inf) {
        json_object_set_new(body, k->body, json_integer(TIME_INFINITE));
        return true;
    }
    if (got)
        *plain = json_integer(n);
    return true;
}

static bool take(struct rest_req *r, const struct key *k, const json_t *v,
                 json_t *body)
{
    if (json_is_object(v) && (k->kind == K_INT || k->kind == K_MINUTES)) {
        json_t *plain;
        bool ok = take_no_val(r, k, v, body, &plain);
        if (ok && plain)
            ok = take(r, k, plain, body);
        json_decref(plain);
        return ok;
    }
    switch (k->kind) {
    case K_STR:
        if (!json_is_string(v))
            return bad(r, k->rest, "expected a string");
        json_object_set(body, k->body, (json_t *)v);
        return true;
    case K_INT:
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return bad(r, k->rest, "expected an integer of 0 or more");
        json_object_set(body, k->body, (json_t *)v);
        return true;
    case K_BOOL:
        if (!json_is_boolean(v))
            return bad(r, k->rest, "expected true or false");
        json_object_set(body, k->body, (json_t *)v);
        return true;
    case K_MINUTES:
        if (!json_is_integer(v) || json_integer_value(v) < 1)
            return bad(r, k->rest, "expected minutes, 1 or more");
        json_object_set_new(body, k->body,
                            json_integer(json_integer_value(v) * 60));
        return true;
    case K_EXCL:
        if (json_is_boolean(v))
            json_object_set(body, k->body, (json_t *)v);
        else if (json_is_string(v)
                 && (!strcmp(json_string_value(v), "user")
                     || !strcmp(json_string_value(v), "exclusive")))
            json_object_set_new(body, k->body, json_true());
        else
            return bad(r, k->rest, "expected true, false, \"user\" or "
                                   "\"exclusive\"");
        return true;
    case K_NODES:
        return take_nodes(r, k->rest, v, body);
    case K_ENV:
        return take_env(r, k->rest, v, body);
    case K_ARGV:
        if (!json_is_array(v))
            return bad(r, k->rest, "expected an array of strings");
        for (size_t i = 0; i < json_array_size(v); i++)
            if (!json_is_string(json_array_get(v, i)))
                return bad(r, k->rest, "expected an array of strings");
        json_object_set(body, k->body, (json_t *)v);
        return true;
    case K_HOSTS:
        return take_hosts(r, k->rest, v, k->body, body);
    case K_TRES:
        return take_tres(r, k->rest, v, body);
    }
    return false;
}

json_t *rest_submit_body(struct rest_req *r, const json_t *doc)
{
    const struct rest_api *api = rest_api_of(r->path);
    const json_t *job = json_object_get(doc, "job"), *v;
    const char *script = json_string_value(json_object_get(doc, "script"));

    /* v0.0.40 (Slurm 23.11) takes the script inside the job too. */
    if (!script && api->minor >= 40)
        script = json_string_value(json_object_get(job, "script"));
    const char *key;
    json_t *body;

    if (json_object_get(doc, "jobs")) {
        rest_fail(r, MHD_HTTP_BAD_REQUEST, EDRV_NOT_SUPPORTED,
                  "jobs: heterogeneous jobs are not supported");
        return NULL;
    }
    json_object_foreach((json_t *)doc, key, v) {
        if (strcmp(key, "job") && strcmp(key, "script")) {
            rest_fail(r, MHD_HTTP_BAD_REQUEST, EINVAL,
                      "%s: unknown key (expected \"script\" and \"job\")",
                      key);
            return NULL;
        }
    }
    if (!script || !*script || !json_is_object(job)) {
        rest_fail(r, MHD_HTTP_BAD_REQUEST, EINVAL,
                  "a submission needs \"script\" (a string) and \"job\" "
                  "(an object)");
        return NULL;
    }
    body = json_pack("{s:s s:s s:{}}", "script", script, "work_dir", "/tmp",
                     "env");
    json_object_foreach((json_t *)job, key, v) {
        const struct key *k = keys;
        if (api->minor >= 40 && !strcmp(key, "script"))
            continue;
        while (k->rest && strcmp(k->rest, key))
            k++;
        if (!k->rest) {
            rest_fail(r, MHD_HTTP_BAD_REQUEST, EINVAL,
                      "job.%s: not a key of a %s job description "
                      "that Drover takes (docs/rest.md)", key, api->version);
            json_decref(body);
            return NULL;
        }
        if (!take(r, k, v, body)) {
            json_decref(body);
            return NULL;
        }
    }
    return body;
}

void rest_job_submit(struct rest_req *r, const char *arg)
{
    json_error_t jerr;
    json_t *doc, *body, *resp = NULL, *answer;

    (void)arg;
    if (!r->body || !(doc = json_loadb(r->body, r->body_len, 0, &jerr)))
        return rest_fail(r, MHD_HTTP_BAD_REQUEST, EINVAL,
                         "the body is not JSON: %s (line %d, column %d)",
                         r->body ? jerr.text : "empty body",
                         r->body ? jerr.line : 0,
                         r->body ? jerr.column : 0);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return rest_fail(r, MHD_HTTP_BAD_REQUEST, EINVAL,
                         "the body is not a JSON object");
    }
    body = rest_submit_body(r, doc);
    json_decref(doc);
    if (!body || rest_call(r, "job_submit", body, &resp) < 0)
        return;
    answer = rest_api_doc(rest_api_of(r->path));
    json_object_set(answer, "job_id", json_object_get(resp, "job_id"));
    json_object_set_new(answer, "step_id", json_string("BATCH"));
    json_object_set_new(answer, "job_submit_user_msg", json_string(""));
    if (rest_api_of(r->path)->minor >= 40) /* 23.11's "result" */
        json_object_set_new(
            answer, "result",
            json_pack("{s:O s:s s:i s:s s:s}", "job_id",
                      json_object_get(resp, "job_id"), "step_id", "BATCH",
                      "error_code", 0, "error", "", "job_submit_user_msg",
                      ""));
    json_decref(resp);
    rest_answer(r, answer);
}
