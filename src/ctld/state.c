/* SPDX-License-Identifier: Apache-2.0
 *
 * state.c - restore the controller's state from snapshot + journal, and
 * write snapshots
 *
 * Records: {"op":"job","job":{...}} (an upsert of the whole record; the
 * script is kept from the submit record when a later one omits it),
 * {"op":"purge","job_id":N}, {"op":"node","name":...,"drain":...}.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/state.h"

static int restore_job(struct ctld *ctld, json_t *o, drv_error_t *error)
{
    json_int_t id = json_integer_value(json_object_get(o, "job_id"));
    struct job *old, *job;

    if (id <= 0 || id > UINT32_MAX)
        return errprintf(error, "job record without a job_id");
    job = job_create((uint32_t)id);
    if (job_apply_json(job, o, node_table_index_cb, ctld->nodes, error) < 0) {
        job_destroy(job);
        return -1;
    }
    if (job->launch) {
        json_t *stored = launch_store_pack(ctld->launches, job->launch);
        json_decref(job->launch);
        job->launch = stored;
    }
    if ((old = ctld_job_find(ctld, (uint32_t)id))) {
        if (!job->launch && old->launch)
            job->launch = json_incref(old->launch);
        HASH_DEL(ctld->jobs, old);
        job_destroy(old);
    }
    HASH_ADD(hh, ctld->jobs, id, sizeof(job->id), job);
    if (job->id >= ctld->next_job_id)
        ctld->next_job_id = job->id + 1;
    return 0;
}

static int record_cb(json_t *rec, void *arg, drv_error_t *error)
{
    struct ctld *ctld = arg;
    const char *op = json_string_value(json_object_get(rec, "op"));

    if (!op)
        return errprintf(error, "record without op");
    if (!strcmp(op, "job"))
        return restore_job(ctld, json_object_get(rec, "job"), error);
    if (!strcmp(op, "node")) {
        node_table_admin_restore(ctld->nodes, rec);
    } else if (!strcmp(op, "purge")) {
        json_int_t id = json_integer_value(json_object_get(rec, "job_id"));
        struct job *job = ctld_job_find(ctld, (uint32_t)id);
        if (job) {
            HASH_DEL(ctld->jobs, job);
            job_destroy(job);
        }
    } else {
        log_error("journal: unknown record op '%s' ignored", op);
    }
    return 0;
}

static int snapshot_cb(json_t *snap, void *arg, drv_error_t *error)
{
    struct ctld *ctld = arg;
    json_int_t next = json_integer_value(json_object_get(snap, "next_job_id"));
    json_t *v;
    size_t i;

    if (next > ctld->next_job_id)
        ctld->next_job_id = (uint32_t)next;
    json_array_foreach(json_object_get(snap, "jobs"), i, v) {
        if (restore_job(ctld, v, error) < 0)
            return -1;
    }
    json_array_foreach(json_object_get(snap, "nodes"), i, v)
        node_table_admin_restore(ctld->nodes, v);
    return 0;
}

int state_restore(struct ctld *ctld, drv_error_t *error)
{
    struct job *job, *tmp;
    size_t njobs;

    if (journal_replay(ctld->journal, snapshot_cb, record_cb, ctld, error) < 0)
        return -1;
    array_restore_launch(ctld);
    /* Running jobs hold their resources again. */
    HASH_ITER(hh, ctld->jobs, job, tmp) {
        if (job->alloc
            && sched_alloc_apply(ctld->nodes->sched, ctld->nodes->count,
                                 job->alloc)
                   < 0)
            return errprintf(error, "JobId=%u: allocation does not match "
                             "the configured nodes", job->id);
    }
    for (size_t i = 0; i < ctld->nodes->count; i++)
        node_table_update_avail(ctld->nodes, i);
    njobs = HASH_COUNT(ctld->jobs);
    log_info("Recovered state of %zu jobs; next JobId=%u", njobs,
             ctld->next_job_id);
    return 0;
}

int state_snapshot(struct ctld *ctld)
{
    json_t *jobs = json_array(), *nodes = json_array(), *snap;
    struct job *job, *tmp;
    int rc;

    HASH_ITER(hh, ctld->jobs, job, tmp)
        json_array_append_new(jobs, job_to_json(job, ctld->nodes->names,
                                                JOB_JSON_LAUNCH));
    for (size_t i = 0; i < ctld->nodes->count; i++)
        json_array_append_new(nodes, node_table_admin_json(ctld->nodes, i));
    snap = json_pack("{s:I s:o s:o}", "next_job_id",
                     (json_int_t)ctld->next_job_id, "jobs", jobs, "nodes",
                     nodes);
    rc = journal_snapshot(ctld->journal, snap);
    json_decref(snap);
    return rc;
}

void state_purge_old_jobs(struct ctld *ctld, time_t now)
{
    struct job *job, *tmp;

    HASH_ITER(hh, ctld->jobs, job, tmp) {
        if (!job_state_is_final(job->state) || job->alloc || job->completing
            || now - job->end_time < (time_t)ctld->conf->min_job_age_s)
            continue;
        json_t *rec = json_pack("{s:s s:I}", "op", "purge", "job_id",
                                (json_int_t)job->id);
        if (journal_append(ctld->journal, rec) < 0)
            log_err("journal: purge record");
        json_decref(rec);
        HASH_DEL(ctld->jobs, job);
        job_destroy(job);
    }
}
