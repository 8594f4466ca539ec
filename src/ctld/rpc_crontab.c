/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_crontab.c - crontab_set, crontab_get, crontab_remove (scrontab)
 *
 * A user's own crontab, or with "user_id" another's (scrontab -u): as
 * scrontab(1), listing for operators and administrators too, setting and
 * removing for root and SlurmUser only.  crontab_set carries the
 * file's text and its entries already turned into job descriptions by
 * scrontab (the #SCRON options through sbatch's parser): each is checked
 * as job_submit checks a job, all before any is taken, so a bad entry
 * refuses the whole file naming its lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cron.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/crontab.h"
#include "ctld/ctld.h"
#include "ctld/event.h"

/* The user whose crontab 'req' names ("user_id", else the sender's), or
 * -1 with the error answered; another user's for senders with one of
 * 'roles', or with 'roles' 0 for root and SlurmUser. */
static int64_t target_uid(struct ctld *ctld, proto_req_t *req,
                          unsigned roles)
{
    json_t *u = json_object_get(proto_req_body(req), "user_id");
    uid_t self = proto_req_uid(req);

    if (!crontab_enabled(ctld)) {
        proto_respond_error(req, EDRV_DISABLED,
                            "scrontab is disabled on this cluster");
        return -1;
    }
    if (!json_is_integer(u) || (uid_t)json_integer_value(u) == self)
        return self;
    /* 'roles' 0: root and SlurmUser only (Slurm's validate_slurm_user(),
     * whatever the credential: root's JWT too) */
    if (roles ? !(proto_req_roles(req) & roles)
              : self != 0 && self != ctld->slurm_uid) {
        proto_respond_error(req, EDRV_ACCESS_DENIED, NULL);
        return -1;
    }
    return json_integer_value(u);
}

/* Cancel user 'uid''s pending cron jobs (a crontab replaced or
 * removed); running ones finish their run and do not recur. */
static void cancel_cron_jobs(struct ctld *ctld, uid_t uid, uid_t by)
{
    struct job *job, *tmp;

    HASH_ITER(hh, ctld->jobs, job, tmp) {
        if (job->cron_spec && job->uid == uid && job->state == JOB_PENDING)
            ctld_job_cancel(ctld, job, by);
    }
}

/* User 'uid''s crontab is 'text' (NULL: removed) with jobs 'ids'
 * (stolen; NULL: none). */
static void set_crontab(struct ctld *ctld, int64_t uid, json_t *text,
                        json_t *ids, time_t now)
{
    json_t *rec = json_pack("{s:I}", "user_id", (json_int_t)uid);
    struct ctld_event ev = {.type = CTLD_EV_CRONTAB_SET, .t = now,
                            .crontab = rec};

    if (text) {
        json_object_set(rec, "text", text);
        json_object_set_new(rec, "disabled", json_array());
        json_object_set_new(rec, "job_ids", ids ? ids : json_array());
    } else {
        json_decref(ids);
    }
    ctld_apply(ctld, &ev);
    json_decref(rec);
}

/* One entry {"line_start","line_end","cron_spec","job"} as a prepared
 * job with its first run in *begin; NULL with errno and 'error' set. */
static struct job *entry_job(struct ctld *ctld, proto_req_t *req,
                             json_t *entry, int64_t uid, time_t now,
                             time_t *begin, drv_error_t *error)
{
    json_t *desc = json_object_get(entry, "job");
    const char *spec = json_string_value(json_object_get(entry,
                                                         "cron_spec"));
    json_int_t ls = json_integer_value(json_object_get(entry, "line_start"));
    json_int_t le = json_integer_value(json_object_get(entry, "line_end"));
    struct job *job;

    if (!json_is_object(desc) || !spec || ls < 1 || le < ls
        || le > UINT32_MAX) {
        errno = EDRV_PROTOCOL_MALFORMED;
        errprintf(error, "entry without job, cron_spec or "
                  "lines");
        return NULL;
    }
    if (json_object_get(desc, "array")) {
        errno = EDRV_NOT_SUPPORTED;
        errprintf(error, "job arrays are not supported in "
                  "scrontab");
        return NULL;
    }
    desc = json_deep_copy(desc);
    if (uid != (int64_t)proto_req_uid(req))
        json_object_set_new(desc, "user_id", json_integer(uid));
    job = ctld_submit_prepare(ctld, req, desc, error);
    json_decref(desc);
    if (!job)
        return NULL;
    job_set_str(&job->cron_spec, spec);
    job->cron_line_start = (uint32_t)ls;
    job->cron_line_end = (uint32_t)le;
    if ((*begin = crontab_next_run(job, now)) < 0) {
        job_destroy(job);
        errno = EDRV_PROTOCOL_MALFORMED;
        errprintf(error, "'%s' is not a time specification "
                  "that matches again", spec);
        return NULL;
    }
    return job;
}

static void rpc_crontab_set(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *body = proto_req_body(req), *entries, *text, *e, *ids;
    int64_t uid = target_uid(ctld, req, 0);
    time_t now = ctld_now(ctld), *begin;
    drv_error_t error = {{0}};
    struct job **jobs;
    size_t n, i, done = 0;

    if (uid < 0)
        return;
    text = json_object_get(body, "text");
    entries = json_object_get(body, "entries");
    if (!json_is_string(text) || !json_is_array(entries)) {
        proto_respond_error(req, EDRV_PROTOCOL_MALFORMED,
                            "crontab_set without text or entries");
        return;
    }
    n = json_array_size(entries);
    jobs = xzalloc((n + 1) * sizeof(*jobs));
    begin = xzalloc((n + 1) * sizeof(*begin));
    json_array_foreach(entries, i, e) {
        if (!(jobs[i] = entry_job(ctld, req, e, uid, now, &begin[i], &error))
            || ctld_submit_count(ctld, jobs[i], &error) < 0) {
            int errnum = errno;
            char msg[sizeof(error.text) + 40];

            snprintf(msg, sizeof(msg), "lines %lld-%lld: %s",
                     json_integer_value(json_object_get(e, "line_start")),
                     json_integer_value(json_object_get(e, "line_end")),
                     error.text);
            for (size_t k = 0; k <= i; k++)
                job_destroy(jobs[k]);
            free(jobs);
            free(begin);
            proto_respond_error(req, errnum, msg);
            return;
        }
    }
    cancel_cron_jobs(ctld, (uid_t)uid, proto_req_uid(req));
    ids = json_array();
    for (i = 0; i < n; i++) {
        struct job *job = jobs[i];

        if (ctld_submit_enter(ctld, job, now, begin[i]) == 0) {
            json_array_append_new(ids, json_integer(job->id));
            done++;
        }
    }
    set_crontab(ctld, uid, text, json_deep_copy(ids), now);
    log_info("crontab_set: uid %lld, %zu of %zu entries", (long long)uid,
             done, n);
    free(jobs);
    free(begin);
    ctld_respond_durable(ctld, req, json_pack("{s:o}", "job_ids", ids));
    scheduler_request(ctld);
}

static void rpc_crontab_get(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    int64_t uid = target_uid(ctld, req, PROTO_ROLE_OPERATOR
                                        | PROTO_ROLE_ADMIN
                                        | PROTO_ROLE_DAEMON);
    char key[24];
    json_t *tab;

    if (uid < 0)
        return;
    snprintf(key, sizeof(key), "%lld", (long long)uid);
    if (!ctld->crontabs || !(tab = json_object_get(ctld->crontabs, key))) {
        proto_respond_error(req, EDRV_JOB_SCRIPT_MISSING, NULL);
        return;
    }
    proto_respond(req, json_pack("{s:O s:O}", "text",
                                 json_object_get(tab, "text"), "disabled",
                                 json_object_get(tab, "disabled")));
}

static void rpc_crontab_remove(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    int64_t uid = target_uid(ctld, req, 0);

    if (uid < 0)
        return;
    cancel_cron_jobs(ctld, (uid_t)uid, proto_req_uid(req));
    set_crontab(ctld, uid, NULL, NULL, ctld_now(ctld));
    ctld_respond_durable(ctld, req, NULL);
    scheduler_request(ctld);
}

const struct proto_handler rpc_crontab_handlers[] = {
    {"crontab_set", rpc_crontab_set, PROTO_ROLE_USER},
    {"crontab_get", rpc_crontab_get, PROTO_ROLE_USER},
    {"crontab_remove", rpc_crontab_remove, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
