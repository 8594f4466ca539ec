/* SPDX-License-Identifier: Apache-2.0
 *
 * depend.h - job dependencies in the controller, and the scheduler's gate
 * for dependencies and array throttles
 *
 * Rules (Slurm 22.05): after = the job started (or was cancelled) at
 * least +minutes ago; afterany = it ended; afterok = it ended COMPLETED;
 * afternotok = it ended otherwise; aftercorr = task k of this array
 * waits for task k of the other to end COMPLETED; singleton = no other
 * job of the same name and user runs or was queued before.  A job id the
 * controller does not know counts as satisfied (the golden case
 * sbatch-bad-dependency).  On an array, whole-job rules apply to all
 * its tasks.
 */
#ifndef DROVER_CTLD_DEPEND_H
#define DROVER_CTLD_DEPEND_H

#include <stdbool.h>
#include <time.h>
#include <jansson.h>

#include "common/depspec.h"
#include "common/error.h"

struct ctld;
struct job;

struct job_depend {
    struct dep_list *list; /* NULL once every item held */
    bool kill_invalid;     /* --kill-on-invalid-dep=yes */
};

/* Read "dependency" and "kill_on_invalid_dep" of a job_submit body into
 * 'job'.  Items naming unknown jobs are dropped.  Returns 0, or -1 with
 * errno EDRV_DEPENDENCY and 'error' set (syntax).
 */
int depend_submit(struct ctld *ctld, struct job *job, json_t *body,
                  drv_error_t *error);

/* Both submit-time parts of a job_submit body: "array" (array.h, checked
 * against MaxArraySize) and depend_submit().  Returns 0 or -1 as they do.
 */
int depend_array_submit(struct ctld *ctld, struct job *job, json_t *body,
                        drv_error_t *error);

/* Check scontrol update JobId= Dependency='spec' of 'job': it must be
 * pending; "" or "0" clears the list.  Returns 0, or -1 with errno
 * EDRV_JOB_NOT_PENDING, or EDRV_DEPENDENCY and 'error' set (syntax, a job
 * naming itself).  Changes nothing.
 */
int depend_update_check(struct ctld *ctld, const struct job *job,
                        const char *spec, drv_error_t *error);

/* Replace the list of 'job' by 'spec' (depend_update_check() accepted
 * it), dropping items naming jobs the table does not hold, as
 * depend_submit() does; a Dependency reason is cleared.  Part of the
 * job_updated event: reads only the tables. */
void depend_set(struct ctld *ctld, struct job *job, const char *spec);

/* "dependency" (Slurm's text with states) and "kill_on_invalid_dep". */
void depend_to_json(const struct job *job, json_t *o);
void depend_apply_json(struct job *job, json_t *o);

/* NULL is a no-op. */
void job_depend_destroy(struct job_depend *d);

/* What the gate decided for a pending job: the job_gate event
 * (event.h) installs it with depend_gate_apply(). */
struct job_gate {
    int reason;             /* enum job_reason */
    time_t eligible_time;   /* seconds since the epoch; 0: not yet */
    bool dep_resolved;      /* every item held: the list is dropped */
    size_t dep_count;       /* items of the list when dep_state is set */
    enum dep_state *dep_state; /* each item's state (dep_count of them),
                                * or NULL: no item's state changed */
};

/* Called by the scheduler for each pending job: true when it must wait
 * for a dependency (reason Dependency or DependencyNeverSatisfied; with
 * --kill-on-invalid-dep=yes a never satisfiable job is cancelled) or for
 * its array throttle (JobArrayTaskLimit).  What it changes is a job_gate
 * event (and array_task_split, job_cancelled events) through ctld_apply().
 */
bool depend_gate(struct ctld *ctld, struct job *job, time_t now);

/* Install 'g' on 'job' (the job_gate event).  A gate without dep_state,
 * or whose dep_count differs from the list's, leaves the items' states
 * alone. */
void depend_gate_apply(struct job *job, const struct job_gate *g);

/* The journal's form of 'g' into 'o' ("reason", "eligible_time",
 * "dep_resolved", "dep_state") and back: depend_gate_from_json() fills
 * 'g' with an allocated dep_state (free it); returns 0, or -1 with
 * 'error' set for an unknown reason. */
void depend_gate_to_json(const struct job_gate *g, json_t *o);
int depend_gate_from_json(json_t *o, struct job_gate *g, drv_error_t *error);

/* The array task of master 'job' to start next: the first pending one
 * whose aftercorr items hold.  -1 if none may start now. */
long depend_array_task(struct ctld *ctld, const struct job *job);

#endif /* !DROVER_CTLD_DEPEND_H */
