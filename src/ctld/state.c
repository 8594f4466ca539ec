/* SPDX-License-Identifier: Apache-2.0
 *
 * state.c - restore the controller's state from snapshot + journal, and
 * write snapshots
 *
 * The snapshot holds every job (with its steps, allocation and script),
 * node, scontrol's partition changes (part.h) and the fair-share usage
 * (priority.h); the journal after it holds events (event.h), replayed
 * through ctld_apply().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/acct.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/part.h"
#include "ctld/priority.h"
#include "ctld/resv.h"
#include "ctld/trigger.h"
#include "ctld/crontab.h"
#include "ctld/state.h"
#include "ctld/step.h"

static int record_cb(json_t *rec, void *arg, drv_error_t *error)
{
    return ctld_replay_record(arg, rec, error);
}

/* One job or node of the snapshot as it is read, so that the whole
 * snapshot is never one tree in memory. */
static int item_cb(const char *key, json_t *item, void *arg,
                   drv_error_t *error)
{
    struct ctld *ctld = arg;

    if (!strcmp(key, "jobs"))
        return ctld_restore_job(ctld, item, error) < 0 ? -1 : 0;
    if (!strcmp(key, "nodes")) {
        node_table_admin_restore(ctld->nodes, item);
        return 0;
    }
    return 1;
}

static int snapshot_cb(json_t *snap, void *arg, drv_error_t *error)
{
    return state_load(arg, snap, error);
}

int state_load(struct ctld *ctld, json_t *snap, drv_error_t *error)
{
    json_int_t next = json_integer_value(json_object_get(snap, "next_job_id"));
    json_t *v;
    size_t i;

    if (next > ctld->next_job_id)
        ctld->next_job_id = (uint32_t)next;
    json_array_foreach(json_object_get(snap, "jobs"), i, v) {
        if (item_cb("jobs", v, ctld, error) < 0)
            return -1;
    }
    /* Linking the jobs raised it past the highest id; after a wrap
     * (MaxJobId, job_id.h) the sequence is the snapshot's. */
    if (next > 0)
        ctld->next_job_id = (uint32_t)next;
    json_array_foreach(json_object_get(snap, "nodes"), i, v)
        item_cb("nodes", v, ctld, error);
    part_restore(ctld, json_object_get(snap, "partitions"));
    priority_restore(ctld, json_object_get(snap, "priority"));
    resv_restore(ctld, json_object_get(snap, "reservations"));
    trigger_restore(ctld, json_object_get(snap, "triggers"));
    crontab_restore(ctld, json_object_get(snap, "crontabs"));
    return 0;
}

int state_restore(struct ctld *ctld, drv_error_t *error)
{
    size_t njobs;
    int rc;

    /* Running jobs hold their resources again as their snapshot records
     * and job_started events are applied. */
    ctld->replaying = true;
    rc = journal_replay(ctld->journal,
                        &(struct journal_replay_cb){.item = item_cb,
                                                    .snapshot = snapshot_cb,
                                                    .record = record_cb,
                                                    .arg = ctld},
                        error);
    ctld->replaying = false;
    if (rc < 0)
        return -1;
    state_restored(ctld);
    njobs = HASH_COUNT(ctld->jobs);
    log_info("Recovered state of %zu jobs; next JobId=%u", njobs,
             ctld->next_job_id);
    return 0;
}

void state_restored(struct ctld *ctld)
{
    array_restore_launch(ctld);
    for (size_t i = 0; i < ctld->nodes->count; i++)
        node_table_update_avail(ctld->nodes, i);
}

void state_respool_replayed(struct ctld *ctld)
{
    struct job *job;

    for (size_t i = 0; i < ctld->nreplayed; i++)
        if ((job = ctld_job_find(ctld, ctld->replayed[i]))) {
            job_steps_acct_dirty(job, 0); /* the whole record again */
            acct_job_changed(ctld, job);
        }
    free(ctld->replayed);
    ctld->replayed = NULL;
    ctld->nreplayed = ctld->replayed_cap = 0;
}

json_t *state_to_json(struct ctld *ctld)
{
    json_t *jobs = json_array(), *nodes = json_array();
    struct job *job, *tmp;

    HASH_ITER(hh, ctld->jobs, job, tmp)
        json_array_append_new(jobs, job_to_json(job, ctld->nodes->names,
                                                JOB_JSON_LAUNCH));
    for (size_t i = 0; i < ctld->nodes->count; i++)
        json_array_append_new(nodes, node_table_admin_json(ctld->nodes, i));
    return json_pack("{s:I s:o s:o s:o s:o s:o s:o s:o}", "next_job_id",
                     (json_int_t)ctld->next_job_id, "jobs", jobs, "nodes",
                     nodes, "partitions", part_snapshot(ctld),
                     "priority", priority_snapshot(ctld),
                     "reservations", resv_snapshot(ctld), "triggers",
                     trigger_snapshot(ctld), "crontabs",
                     crontab_snapshot(ctld));
}

int state_snapshot(struct ctld *ctld)
{
    json_t *snap = state_to_json(ctld);
    int rc = journal_snapshot(ctld->journal, snap);

    json_decref(snap);
    return rc;
}

static json_t *snapshot_build(void *arg)
{
    return state_to_json(arg);
}

int state_snapshot_periodic(struct ctld *ctld, size_t records)
{
    struct journal *j = ctld->journal;
    int done = journal_snapshot_poll(j, false);

    if (done < 0)
        log_error("snapshot: the child writing it failed; writing it here");
    if (done >= 0 && (journal_snapshotting(j) || journal_length(j) <= records))
        return 0;
    if (done >= 0 && journal_snapshot_async(j, snapshot_build, ctld) == 0)
        return 0;
    return state_snapshot(ctld);
}

void state_purge_old_jobs(struct ctld *ctld, time_t now)
{
    struct job *job;

    if (!ctld->conf->min_job_age_s) /* 0: records are never purged */
        return;
    while ((job = ctld_purge_next(ctld,
                                  now - (time_t)ctld->conf->min_job_age_s))) {
        struct ctld_event ev = {
            .type = CTLD_EV_JOB_PURGED, .t = now, .job_id = job->id};
        ctld_apply(ctld, &ev);
    }
}
