/* SPDX-License-Identifier: Apache-2.0
 *
 * part_access.h - who may use and who may see a partition: RootOnly,
 * AllowGroups, AllowAccounts/DenyAccounts, AllowQos/DenyQos, Hidden
 *
 * Group membership and group ids come from the controller's cached
 * lookups (ident.h: kept IDENT_TTL_S seconds, as Slurm keeps its
 * per-partition uid lists for GroupUpdateTime, 600 s), so a submit costs at
 * most one lookup per user and group per ten minutes in the loop.
 */
#ifndef DROVER_CTLD_PART_ACCESS_H
#define DROVER_CTLD_PART_ACCESS_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "common/error.h"
#include "conf/conf.h"

struct ident;
struct part_access;

/* A new checker; 'slurm_uid' (SlurmUser) passes AllowGroups= as root does;
 * 'ident' (borrowed, outlives it) answers user and group lookups.  Never
 * NULL (xalloc). */
struct part_access *part_access_create(uid_t slurm_uid, struct ident *ident);

/* NULL is a no-op. */
void part_access_destroy(struct part_access *pa);

/* May a job of 'owner' (with 'account' and 'qos', NULL when none), asked
 * for by 'submitter', run in partition 'cp'?  'privileged' is true when the
 * submitter is root or SlurmUser.  Checks in Slurm's order:
 *   RootOnly=YES and the submitter is not root/SlurmUser: EDRV_ACCESS_DENIED;
 *   DisableRootJobs=YES (its own or the global one) and the owner is root:
 *     EDRV_USER_ID_MISSING;
 *   AllowGroups= and no group of the owner (primary or supplementary) is
 *     listed (root/SlurmUser owners pass):
 *     EDRV_JOB_MISSING_REQUIRED_PARTITION_GROUP;
 *   AllowAccounts= not listing 'account', or DenyAccounts= listing it:
 *     EDRV_INVALID_ACCOUNT;
 *   AllowQos= not listing 'qos', or DenyQos= listing it (a job without a
 *     QOS is not judged, as Slurm): EDRV_INVALID_QOS.
 * 'now' is the loop's time (seconds) for the lookups' cache.  Returns 0, or -1 with
 * errno set and the reason in 'error' ("uid 1001 not in AllowGroups=admins
 * of partition p").
 */
int part_access_check(struct part_access *pa, const struct conf_partition *cp,
                      uid_t owner, bool privileged, const char *account,
                      const char *qos, time_t now, drv_error_t *error);

/* Is partition 'cp' (and are its jobs) listed to 'uid' without -a/--all?
 * Slurm's rule: root/SlurmUser ('privileged') see all; others do not see
 * Hidden=YES partitions nor those whose AllowGroups= they are not in.
 */
bool part_access_visible(struct part_access *pa,
                         const struct conf_partition *cp, uid_t uid,
                         bool privileged, time_t now);

/* Is 'name' in the comma list 'list' (case-sensitive, as Slurm)?  NULL
 * list: false.  Pure; exposed for tests.
 */
bool part_access_in_list(const char *list, const char *name);

#endif /* !DROVER_CTLD_PART_ACCESS_H */
