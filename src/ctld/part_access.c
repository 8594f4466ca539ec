/* SPDX-License-Identifier: Apache-2.0
 *
 * part_access.c - partition access (RootOnly, Allow/Deny lists) and
 * visibility (Hidden); group lookups are ident.h's
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "common/ident.h"
#include "ctld/part_access.h"

struct part_access {
    uid_t slurm_uid;     /* SlurmUser: in every group, as root */
    struct ident *ident; /* the controller's lookups (borrowed) */
};

struct part_access *part_access_create(uid_t slurm_uid, struct ident *ident)
{
    struct part_access *pa = xzalloc(sizeof(*pa));

    pa->slurm_uid = slurm_uid;
    pa->ident = ident;
    return pa;
}

void part_access_destroy(struct part_access *pa)
{
    free(pa);
}

bool part_access_in_list(const char *list, const char *name)
{
    size_t n;

    if (!list || !name)
        return false;
    n = strlen(name);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && !strncmp(p, name, n))
            return true;
        p += len + (p[len] == ',');
    }
    return false;
}

/* Is 'uid' in some group of the comma list 'allow'? */
static bool in_groups(struct part_access *pa, const char *allow, uid_t uid,
                      time_t now)
{
    const struct ident_user *u = ident_user(pa->ident, uid, now);
    int ngids = u->ngids;
    gid_t gid;

    for (const char *p = allow; *p;) {
        size_t len = strcspn(p, ",");
        if (len && ident_group_id(pa->ident, p, len, &gid, now)) {
            /* u stays valid: group lookups do not touch users. */
            for (int i = 0; i < ngids; i++)
                if (u->gids[i] == gid)
                    return true;
        }
        p += len + (p[len] == ',');
    }
    return false;
}

/* AllowGroups= lets 'uid' in (root and SlurmUser always). */
static bool group_ok(struct part_access *pa, const struct conf_partition *cp,
                     uid_t uid, time_t now)
{
    return !cp->allow_groups || uid == 0 || uid == pa->slurm_uid
           || in_groups(pa, cp->allow_groups, uid, now);
}

/* Allow list (takes precedence) or deny list of names against 'name'. */
static bool name_ok(const char *allow, const char *deny, const char *name)
{
    if (allow)
        return part_access_in_list(allow, name);
    return !part_access_in_list(deny, name);
}

int part_access_check(struct part_access *pa, const struct conf_partition *cp,
                      uid_t owner, bool privileged, const char *account,
                      const char *qos, time_t now, drv_error_t *error)
{
    if (cp->root_only && !privileged) {
        errno = EDRV_ACCESS_DENIED;
        return errprintf(error, "partition %s is RootOnly", cp->name);
    }
    /* DisableRootJobs (the partition's, else the global one): Slurm
     * says "Security violation, SUBMIT_JOB for user root disabled" in its
     * log and answers ESLURM_USER_ID_MISSING. */
    if (owner == 0 && cp->disable_root_jobs) {
        errno = EDRV_USER_ID_MISSING;
        return errprintf(error, "Security violation, SUBMIT_JOB for user "
                         "root disabled (DisableRootJobs, partition %s)",
                         cp->name);
    }
    if (!group_ok(pa, cp, owner, now)) {
        errno = EDRV_JOB_MISSING_REQUIRED_PARTITION_GROUP;
        return errprintf(error, "uid %u not in AllowGroups=%s of partition %s",
                         (unsigned)owner, cp->allow_groups, cp->name);
    }
    if (!name_ok(cp->allow_accounts, cp->deny_accounts, account)) {
        errno = EDRV_INVALID_ACCOUNT;
        return errprintf(error, "account %s not permitted in partition %s",
                         account ? account : "(none)", cp->name);
    }
    /* As Slurm, QOS lists judge a job that has a QOS (-q, or the
     * association's default under AccountingStorageEnforce). */
    if (qos && !name_ok(cp->allow_qos, cp->deny_qos, qos)) {
        errno = EDRV_INVALID_QOS;
        return errprintf(error, "qos %s not permitted in partition %s", qos,
                         cp->name);
    }
    return 0;
}

bool part_access_visible(struct part_access *pa,
                         const struct conf_partition *cp, uid_t uid,
                         bool privileged, time_t now)
{
    if (privileged || uid == 0)
        return true;
    return !cp->hidden && group_ok(pa, cp, uid, now);
}
