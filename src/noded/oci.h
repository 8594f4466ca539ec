/* SPDX-License-Identifier: Apache-2.0
 *
 * oci.h - a step's tasks inside an OCI bundle (--container, oci.conf(5))
 *
 * As Slurm 22.05's slurmstepd: each task runs the oci.conf RunTime*
 * patterns through /bin/sh as the job's user, on a copy of the bundle's
 * config.json rewritten for the task (process args, env, user; root.path
 * made absolute; terminal off) in a per-step directory.  Drover adds bind
 * mounts of the step's GPU device files (only those allocated) and, for
 * a batch step, of the script's directory (read-only).  The bundle is the
 * user's: it is only read by the task process after it became the user.
 * The task keeps its cgroup (joined before), stdin/stdout/stderr and
 * environment; the runtime is expected to run rootless and leave the
 * cgroup alone (crun --rootless=true --cgroup-manager=disabled).
 */
#ifndef DROVER_NODED_OCI_H
#define DROVER_NODED_OCI_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "conf/conf.h"

/* %s of a batch step, as Slurm's SLURM_BATCH_SCRIPT (0xfffffffb). */
#define OCI_BATCH_STEP 4294967291u

/* What oci_step_create() needs; strings are copied. */
struct oci_step_spec {
    const struct conf_oci *oci;  /* oci.conf; path NULL: refused */
    const char *bundle;          /* --container: a directory with
                                  * config.json; relative to 'cwd'; or
                                  * NULL with 'image' */
    const char *image;           /* --container-image (Pyxis's): an OCI
                                  * layout "DIR[:TAG]" or
                                  * "docker-archive:FILE", unpacked as the
                                  * user into <step dir>/image; or NULL */
    const char *mounts;          /* --container-mounts: comma list of
                                  * SRC[:DST[:ro|rw]] (SRC relative to
                                  * 'cwd'), or NULL */
    const char *workdir;         /* --container-workdir: process.cwd, or
                                  * NULL: the bundle's */
    const char *cwd;             /* the step's working directory */
    const char *spool;           /* SlurmdSpoolDir of this node */
    const char *node;            /* this node's name (%n) */
    const char *user;            /* the job's user name (%u) */
    uint32_t job_id, step_id;    /* %j, %s (OCI_BATCH_STEP: batch) */
    uid_t uid;                   /* %U, process.user.uid */
    gid_t gid;
    const char *const *devices;  /* NULL-terminated GPU device files given
                                  * to the step, or NULL */
    const char *ro_dir;          /* a host directory bound read-only at
                                  * its own path (the batch script's), or
                                  * NULL */
};

struct oci_step;

/* Make the step's directory (ContainerPath expanded, else
 * <spool>/oci-job<J>-<S>) afresh as root, owned by the job's user, mode
 * 0700 (whatever was there is removed without following links); with
 * 'image', unpack it there as the user (umoci unpack --rootless, after
 * skopeo copy for docker-archive:), waiting for it.
 * Returns the step (oci_step_destroy()), or NULL with 'error' ("oci.conf
 * missing": Slurm runs such a job without a container; Drover refuses
 * it so a user never runs outside the image unknowingly). */
/* The container options of a launch or step body 'o' (container,
 * container_image, container_mounts, container_workdir: borrowed from
 * 'o') into 'spec'.  True when any is set: the step runs in a container. */
bool oci_spec_from_json(json_t *o, struct oci_step_spec *spec);

struct oci_step *oci_step_create(const struct oci_step_spec *spec,
                                 drv_error_t *error);

/* In a task's child, after it joined its cgroup, became the user and set
 * its stdio: write <step dir>/task-<task_id>/config.json from the bundle's
 * (and "environment" with CreateEnvFile=yes), then exec /bin/sh -c with
 * RunTimeRun (or RunTimeCreate, RunTimeStart and RunTimeQuery polled
 * until the container stopped), then RunTimeDelete.  'envp' becomes the
 * container's environment (merged over the bundle's) and the runtime's.
 * Never returns: on failure a line on stderr and _exit(127). */
void oci_task_exec(const struct oci_step *s, int task_id, char *const *argv,
                   char *const *envp) __attribute__((noreturn));

/* Expand an oci.conf pattern (oci.conf(5) "OCI Pattern"): %% %@ (argv,
 * each single-quoted) %b (task bundle dir 'bundle') %e (its environment
 * file) %j %m (the step directory) %n %p (the task's pid, as the shell's
 * $$) %r (the original rootfs 'rootfs') %s %t (task_id) %u %U.  Returns
 * a new string, or NULL with errno EINVAL on another %X. */
char *oci_pattern(const char *pattern, const struct oci_step *s, int task_id,
                  const char *bundle, const char *rootfs, char *const *argv);

/* Unpack 'image' (struct oci_step_spec) into 'dir'/image as 'user'
 * (a forked child that became the user; 'dir' must be theirs), waiting
 * for it.  Returns 0, or -1 with 'error' carrying the tool's last line of
 * stderr (oci_image.c). */
int oci_image_unpack(const char *image, const char *cwd, const char *dir,
                     const char *user, uid_t uid, gid_t gid,
                     drv_error_t *error);

/* Remove the step's directory (never following links) and free 's'. */
void oci_step_destroy(struct oci_step *s);

#endif /* !DROVER_NODED_OCI_H */
