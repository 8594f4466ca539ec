/* SPDX-License-Identifier: Apache-2.0
 *
 * jobcontainer.h - JobContainerType=job_container/tmpfs: a private /tmp
 * and /dev/shm per job, in a mount namespace every task of the job joins
 *
 * Layout, as Slurm 22.05's plugin (with MULTIPLE_SLURMD's "/<node>"):
 *   <BasePath>/<node>/                  root, made by droverd at start
 *   <BasePath>/<node>/<job>/            root 0700
 *   <BasePath>/<node>/<job>/.ns         the namespace, bind-mounted
 *   <BasePath>/<node>/<job>/.<job>      the job's /tmp, its user's, 0700
 *   <BasePath>/<node>/<job>/<dir>       another Dirs= entry ("/" -> "_")
 * /dev/shm is a fresh tmpfs (mode 1777) inside the namespace.  Every
 * name under BasePath is reached with openat(O_NOFOLLOW) from a
 * descriptor of BasePath, which must be root's and writable by no one
 * else, so a link a user planted is never followed as root.
 *
 * droverd (host namespace) prepares BasePath at start (jc_base_init) and
 * removes a job's directory once no step of the job is left on the node
 * (jc_job_remove); droverstepd makes or joins the job's namespace before
 * it forks the step's processes (jc_job_enter), which enter it in
 * child_become_user() (child.c).
 */
#ifndef DROVER_NODED_JOBCONTAINER_H
#define DROVER_NODED_JOBCONTAINER_H

#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "common/error.h"
#include "conf/conf.h"

/* The node's job_container.conf settings as droverd sends them to each
 * droverstepd (in the launch's step_conf, "job_container").  New
 * reference; NULL when 'jc' is NULL (no job container). */
json_t *jc_to_json(const struct conf_jc *jc);

/* droverd at start: make BasePath (0755, with AutoBasePath) or check it
 * exists, check it is root's and not writable by others, and make it a
 * private bind mount of itself (Slurm: "mounted as private") so the
 * namespace files bound in it never propagate.  Returns 0, or -1 with
 * 'error' naming the path and what is wrong. */
int jc_base_init(const struct conf_jc *jc, drv_error_t *error);

/* droverstepd, as root: the mount namespace of job 'job_id' (its user
 * 'user', 'uid':'gid'), made when this is the job's first step here:
 * InitScript run first (its failure fails the step), then the
 * directories, then the namespace with the Dirs= mounts.  'o' is
 * jc_to_json()'s object.  Returns a descriptor of the namespace for
 * setns(CLONE_NEWNS) (O_CLOEXEC), or -1 with 'error' set. */
int jc_job_enter(json_t *o, uint32_t job_id, const char *user, uid_t uid,
                 gid_t gid, drv_error_t *error);

/* droverd: job 'job_id' has no step left here: its namespace file is
 * unmounted (the namespace, its /dev/shm tmpfs with it, goes once its
 * last process has) and its directory renamed away, then removed by a
 * forked child (spool_remove(): links are never followed), so the loop
 * does not wait.  Quiet when the job had no container here. */
void jc_job_remove(const char *base_path, uint32_t job_id);

/* droverd at start: remove the directories under 'base_path' of jobs
 * for which running(job, arg) is false (they ended while no droverd
 * ran), and leftovers of earlier removals.  Returns how many. */
int jc_sweep(const char *base_path, bool (*running)(uint32_t, void *),
             void *arg);

#endif /* !DROVER_NODED_JOBCONTAINER_H */
