/* SPDX-License-Identifier: Apache-2.0
 *
 * ident.h - user and group lookups for a daemon's loop, cached
 *
 * getpwuid_r(), getgrouplist(), getgrgid_r() and getgrnam_r() may ask a
 * directory service over the network: in the controller's one loop they
 * would stall every request behind them (design.md: nothing that blocks in
 * the loop).  Answers, unknown names and ids included, are kept for a time
 * to live (IDENT_TTL_S by default, Slurm's GroupUpdateTime), so a user
 * costs at most one lookup of each kind per TTL whatever the request rate.
 * A user or group changed in the directory is seen after the TTL at most.
 */
#ifndef DROVER_COMMON_IDENT_H
#define DROVER_COMMON_IDENT_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

/* How long an answer is trusted (seconds): Slurm's GroupUpdateTime
 * default. */
#define IDENT_TTL_S 600

/* A user as the passwd and group databases describe it. */
struct ident_user {
    uid_t uid;
    bool known;        /* false: no passwd entry (the rest is empty) */
    const char *name;  /* pw_name */
    gid_t gid;         /* primary group */
    const gid_t *gids; /* every group, primary first (getgrouplist) */
    int ngids;
};

struct ident;

/* A new, empty cache whose answers live 'ttl_s' seconds (0: IDENT_TTL_S;
 * UINT_MAX: until ident_destroy(), as GroupUpdateTime=0).  Never NULL
 * (xalloc). */
struct ident *ident_create(unsigned ttl_s);

/* NULL is a no-op. */
void ident_destroy(struct ident *id);

/* User 'uid' at time 'now' (the loop's clock, seconds): from the cache, or
 * looked up when absent or older than the TTL (a clock that went back
 * counts as expired).  Never NULL; .known says whether the user exists.
 * Borrowed: valid until the next ident_user() of the same uid or
 * ident_destroy().
 */
const struct ident_user *ident_user(struct ident *id, uid_t uid, time_t now);

/* The name of group 'gid', or NULL when there is no such group; cached as
 * ident_user().  Borrowed likewise (until the next call for 'gid'). */
const char *ident_group_name(struct ident *id, gid_t gid, time_t now);

/* The id of the group named by the first 'len' bytes of 'name' into *gid;
 * false when there is no such group (logged once per TTL).  Cached as
 * ident_user(). */
bool ident_group_id(struct ident *id, const char *name, size_t len,
                    gid_t *gid, time_t now);

/* The uid and primary gid of the user named 'name' (NUL-terminated) into
 * *uid and *gid; false when there is no such user (nothing stored).
 * Cached as ident_user(). */
bool ident_user_id(struct ident *id, const char *name, uid_t *uid,
                   gid_t *gid, time_t now);

/* How many lookups went to the databases since ident_create() (cache
 * misses and refreshes): for tests and sdiag-like figures. */
unsigned long ident_lookups(const struct ident *id);

#endif /* !DROVER_COMMON_IDENT_H */
