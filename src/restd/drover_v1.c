/* SPDX-License-Identifier: Apache-2.0
 *
 * drover_v1.c - Drover's own REST paths (/drover/v1/...): what slurmrestd
 * has no path for
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <microhttpd.h>

#include "cmd/lib/json_out.h"
#include "common/error.h"
#include "restd/rest.h"

/* The controller's ids of special steps (ctld/step.h). */
#define STEP_ID_INTERACTIVE 0xfffffffaLL
#define STEP_ID_BATCH 0xfffffffbLL
#define STEP_ID_EXTERN 0xfffffffcLL

/* Slurm's name of step 'id' of 'job': "12.batch", "12.0". */
static json_t *step_name(json_int_t job, json_int_t id)
{
    const char *special = id == STEP_ID_BATCH         ? "batch"
                          : id == STEP_ID_EXTERN      ? "extern"
                          : id == STEP_ID_INTERACTIVE ? "interactive"
                                                      : NULL;
    char text[64];

    if (special)
        snprintf(text, sizeof(text), "%lld.%s", (long long)job, special);
    else
        snprintf(text, sizeof(text), "%lld.%lld", (long long)job,
                 (long long)id);
    return json_string(text);
}

/* Is 'id' a job the caller may see?  Answers 404 when not. */
static bool job_known(struct rest_req *r, json_int_t id)
{
    json_t *resp = NULL;
    bool known;

    if (rest_call(r, "job_info",
                  json_pack("{s:[I] s:b s:[s]}", "job_ids", id, "show_all",
                            1, "fields", "job_id"),
                  &resp)
        < 0)
        return false;
    known = json_array_size(json_object_get(resp, "jobs")) > 0;
    json_decref(resp);
    if (!known)
        rest_fail_errno(r, EDRV_INVALID_JOB_ID, NULL);
    return known;
}

void rest_drover_job_steps(struct rest_req *r, const char *arg)
{
    json_t *resp = NULL, *steps, *s, *doc;
    unsigned long long v;
    char *end;
    size_t i;

    errno = 0;
    v = strtoull(arg, &end, 10);
    if (!*arg || *end || errno || v == 0 || v > UINT32_MAX)
        return rest_fail(r, MHD_HTTP_BAD_REQUEST, EDRV_INVALID_JOB_ID,
                         "%s: not a job id", arg);
    if (!job_known(r, (json_int_t)v)
        || rest_call(r, "step_info",
                     json_pack("{s:[I] s:b}", "job_ids", (json_int_t)v,
                               "all_states", 1),
                     &resp)
               < 0)
        return;
    steps = json_object_get(resp, "steps");
    json_array_foreach(steps, i, s) {
        json_object_set_new(
            s, "step",
            step_name(json_integer_value(json_object_get(s, "job_id")),
                      json_integer_value(json_object_get(s, "step_id"))));
    }
    doc = json_out_doc();
    json_object_set_new(doc, "steps", json_is_array(steps)
                                          ? json_incref(steps)
                                          : json_array());
    json_decref(resp);
    rest_answer(r, doc);
}

/* GET /drover/v1/job/{id}/usage: job_stat's answer (what sstat shows):
 * each node's steps with their processes' CPU, memory and I/O now; no
 * nodes for a job that is not running (pending, or ended since). */
void rest_drover_job_usage(struct rest_req *r, const char *arg)
{
    char *end;
    unsigned long long id = strtoull(arg, &end, 10);
    json_t *resp = NULL, *doc;

    if (!*arg || *end || id == 0 || id > UINT32_MAX)
        return rest_fail(r, MHD_HTTP_BAD_REQUEST, EDRV_INVALID_JOB_ID,
                         "%s: not a job id", arg);
    if (rest_call(r, "job_stat", json_pack("{s:I}", "job_id",
                                           (json_int_t)id),
                  &resp)
        < 0) {
        /* A job that ended since the caller saw it RUNNING uses nothing
         * now: an answer, not an error (the dashboard polls it). */
        if (errno != EDRV_JOB_NOT_RUNNING)
            return;
        r->status = 0;
        resp = json_pack("{s:[] s:[]}", "nodes", "errors");
    }
    doc = json_out_doc();
    json_object_set(doc, "nodes", json_object_get(resp, "nodes"));
    json_object_set(doc, "unreachable", json_object_get(resp, "errors"));
    json_decref(resp);
    rest_answer(r, doc);
}
