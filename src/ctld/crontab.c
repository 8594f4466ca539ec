/* SPDX-License-Identifier: Apache-2.0
 *
 * crontab.c - each user's crontab and its cron jobs' runs (crontab.h)
 */
#include "ctld/crontab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cron.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/event.h"

bool crontab_enabled(const struct ctld *ctld)
{
    const char *p = ctld->conf->scron_params;

    return p && strcasestr(p, "enable");
}

int crontab_apply(struct ctld *ctld, struct ctld_event *ev)
{
    json_int_t uid = json_integer_value(json_object_get(ev->crontab,
                                                        "user_id"));
    json_t *text = json_object_get(ev->crontab, "text");
    json_t *disabled = json_object_get(ev->crontab, "disabled");
    json_t *ids = json_object_get(ev->crontab, "job_ids");
    char key[24];

    if (!json_is_integer(json_object_get(ev->crontab, "user_id")) || uid < 0)
        return -1;
    snprintf(key, sizeof(key), "%lld", (long long)uid);
    if (!ctld->crontabs)
        ctld->crontabs = json_object();
    if (!json_is_string(text)) {
        json_object_del(ctld->crontabs, key);
        return 0;
    }
    json_object_set_new(ctld->crontabs, key, json_pack(
        "{s:O s:o s:o}", "text", text, "disabled",
        json_is_array(disabled) ? json_deep_copy(disabled) : json_array(),
        "job_ids", json_is_array(ids) ? json_deep_copy(ids) : json_array()));
    return 0;
}

json_t *crontab_snapshot(struct ctld *ctld)
{
    return ctld->crontabs ? json_deep_copy(ctld->crontabs) : json_object();
}

void crontab_restore(struct ctld *ctld, json_t *o)
{
    if (!json_is_object(o))
        return;
    json_decref(ctld->crontabs);
    ctld->crontabs = json_deep_copy(o);
}

time_t crontab_next_run(const struct job *job, time_t after)
{
    struct cron_spec spec;
    size_t len, cmd;
    char line[512];

    if (!job->cron_spec
        || (size_t)snprintf(line, sizeof(line), "%s x", job->cron_spec)
               >= sizeof(line)
        || cron_parse(line, &spec, &len, &cmd, NULL) < 0)
        return -1;
    return cron_next(&spec, after);
}

/* The crontab record of user 'uid', or NULL. */
static json_t *tab_of(const struct ctld *ctld, uid_t uid)
{
    char key[24];

    snprintf(key, sizeof(key), "%u", (unsigned)uid);
    return ctld->crontabs ? json_object_get(ctld->crontabs, key) : NULL;
}

/* Is 'job' one of its owner's current crontab's jobs (not one whose
 * crontab was replaced or removed while it ran)? */
static bool job_current(const struct ctld *ctld, const struct job *job)
{
    json_t *tab = tab_of(ctld, job->uid), *v;
    size_t i;

    json_array_foreach(json_object_get(tab, "job_ids"), i, v)
        if (json_integer_value(v) == (json_int_t)job->id)
            return true;
    return false;
}

void crontab_job_ended(struct ctld *ctld, struct job *job, time_t now)
{
    time_t next;

    if (!job->cron_spec || job->state == JOB_CANCELLED)
        return;
    if (!job_current(ctld, job)) {
        log_info("JobId=%u: its crontab changed while it ran; not "
                 "requeued", job->id);
        return;
    }
    if ((next = crontab_next_run(job, now)) < 0) {
        log_error("JobId=%u: cron entry \"%s\" never matches again; not "
                  "requeued", job->id, job->cron_spec);
        return;
    }
    log_info("JobId=%u: cron job requeued, next run at %lld", job->id,
             (long long)next);
    ctld_job_requeue(ctld, job, now, next, true);
}

void crontab_job_cancelled(struct ctld *ctld, const struct job *job,
                           time_t now)
{
    json_t *tab, *rec, *disabled;
    struct ctld_event ev = {.type = CTLD_EV_CRONTAB_SET, .t = now};

    if (!job->cron_spec || !job->cron_line_start
        || !(tab = tab_of(ctld, job->uid)) || !job_current(ctld, job))
        return;
    disabled = json_deep_copy(json_object_get(tab, "disabled"));
    for (uint32_t l = job->cron_line_start; l <= job->cron_line_end; l++)
        json_array_append_new(disabled, json_integer(l));
    rec = json_pack("{s:I s:O s:o s:O}", "user_id", (json_int_t)job->uid,
                    "text", json_object_get(tab, "text"), "disabled",
                    disabled, "job_ids", json_object_get(tab, "job_ids"));
    ev.crontab = rec;
    ctld_apply(ctld, &ev);
    json_decref(rec);
}
