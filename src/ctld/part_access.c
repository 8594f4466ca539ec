/* SPDX-License-Identifier: Apache-2.0
 *
 * part_access.c - partition access (RootOnly, Allow/Deny lists) and
 * visibility (Hidden), with a small cache of group lookups
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/part_access.h"

/* A user's groups (primary first), as getgrouplist() gave them. */
struct user_groups {
    uid_t uid;
    gid_t *gids;
    int count;
    time_t fetched;
    UT_hash_handle hh;
};

/* A group name's id; 'known' false when no such group exists. */
struct group_id {
    char *name;
    gid_t gid;
    bool known;
    time_t fetched;
    UT_hash_handle hh;
};

struct part_access {
    uid_t slurm_uid; /* SlurmUser: in every group, as root */
    struct user_groups *users;
    struct group_id *groups;
};

struct part_access *part_access_create(uid_t slurm_uid)
{
    struct part_access *pa = xzalloc(sizeof(*pa));

    pa->slurm_uid = slurm_uid;
    return pa;
}

void part_access_destroy(struct part_access *pa)
{
    struct user_groups *u, *ut;
    struct group_id *g, *gt;

    if (!pa)
        return;
    HASH_ITER(hh, pa->users, u, ut) {
        HASH_DEL(pa->users, u);
        free(u->gids);
        free(u);
    }
    HASH_ITER(hh, pa->groups, g, gt) {
        HASH_DEL(pa->groups, g);
        free(g->name);
        free(g);
    }
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

/* getgrouplist() of 'uid' into u (empty when the user is unknown). */
static void fetch_user(struct user_groups *u)
{
    struct passwd pw, *res = NULL;
    char buf[16384];
    int count = 32;
    gid_t *gids = NULL;

    free(u->gids);
    u->gids = NULL;
    u->count = 0;
    if (getpwuid_r(u->uid, &pw, buf, sizeof(buf), &res) != 0 || !res) {
        log_error("part_access: uid %u has no passwd entry", (unsigned)u->uid);
        return;
    }
    for (int tries = 0; tries < 4; tries++) {
        int n = count;
        gids = xrealloc(gids, sizeof(*gids) * (size_t)count);
        if (getgrouplist(pw.pw_name, pw.pw_gid, gids, &n) >= 0) {
            u->gids = gids;
            u->count = n;
            return;
        }
        count = n > count ? n : count * 2;
    }
    /* Too many groups to list: the primary group at least. */
    gids[0] = pw.pw_gid;
    u->gids = gids;
    u->count = 1;
}

static const struct user_groups *user_groups(struct part_access *pa,
                                             uid_t uid, time_t now)
{
    struct user_groups *u;

    HASH_FIND(hh, pa->users, &uid, sizeof(uid), u);
    if (!u) {
        u = xzalloc(sizeof(*u));
        u->uid = uid;
        HASH_ADD(hh, pa->users, uid, sizeof(u->uid), u);
    } else if (now - u->fetched < PART_ACCESS_TTL_S && now >= u->fetched) {
        return u;
    }
    fetch_user(u);
    u->fetched = now;
    return u;
}

/* getgrnam_r() into g, growing the buffer for groups with many members. */
static void fetch_group(struct group_id *g)
{
    struct group gr, *res = NULL;
    size_t size = 16384;
    char *buf = NULL;
    int rc;

    do {
        buf = xrealloc(buf, size);
        rc = getgrnam_r(g->name, &gr, buf, size, &res);
        size *= 4;
    } while (rc == ERANGE && size <= (64u << 20));
    g->known = rc == 0 && res;
    if (g->known)
        g->gid = gr.gr_gid;
    else
        log_error("part_access: AllowGroups names unknown group %s%s%s",
                  g->name, rc ? ": " : "", rc ? strerror(rc) : "");
    free(buf);
}

static const struct group_id *group_id(struct part_access *pa,
                                       const char *name, size_t len,
                                       time_t now)
{
    struct group_id *g;

    HASH_FIND(hh, pa->groups, name, len, g);
    if (g && now - g->fetched < PART_ACCESS_TTL_S && now >= g->fetched)
        return g;
    if (!g) {
        g = xzalloc(sizeof(*g));
        g->name = xasprintf("%.*s", (int)len, name);
        HASH_ADD_KEYPTR(hh, pa->groups, g->name, len, g);
    }
    fetch_group(g);
    g->fetched = now;
    return g;
}

/* Is 'uid' in some group of the comma list 'allow'? */
static bool in_groups(struct part_access *pa, const char *allow, uid_t uid,
                      time_t now)
{
    const struct user_groups *u = user_groups(pa, uid, now);

    for (const char *p = allow; *p;) {
        size_t len = strcspn(p, ",");
        const struct group_id *g = len ? group_id(pa, p, len, now) : NULL;
        for (int i = 0; g && g->known && i < u->count; i++)
            if (u->gids[i] == g->gid)
                return true;
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
