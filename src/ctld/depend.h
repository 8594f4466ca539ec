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

/* scontrol update JobId= Dependency='spec' of a pending job: replaces
 * its list ("" or "0" clears it), dropping items naming unknown jobs as
 * depend_submit() does.  Returns 0, or -1 with errno EDRV_JOB_NOT_PENDING,
 * or EDRV_DEPENDENCY and 'error' set (syntax, a job naming itself); then
 * nothing changed.
 */
int depend_update(struct ctld *ctld, struct job *job, const char *spec,
                  drv_error_t *error);

/* "dependency" (Slurm's text with states) and "kill_on_invalid_dep". */
void depend_to_json(const struct job *job, json_t *o);
void depend_apply_json(struct job *job, json_t *o);

/* NULL is a no-op. */
void job_depend_destroy(struct job_depend *d);

/* Called by the scheduler for each pending job: true when it must wait
 * for a dependency (reason Dependency or DependencyNeverSatisfied; with
 * --kill-on-invalid-dep=yes a never satisfiable job is cancelled) or for
 * its array throttle (JobArrayTaskLimit).  Journals what it changes.
 */
bool depend_gate(struct ctld *ctld, struct job *job, time_t now);

/* The array task of master 'job' to start next: the first pending one
 * whose aftercorr items hold.  -1 if none may start now. */
long depend_array_task(struct ctld *ctld, const struct job *job);

#endif /* !DROVER_CTLD_DEPEND_H */
