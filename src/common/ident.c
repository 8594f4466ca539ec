/* SPDX-License-Identifier: Apache-2.0
 *
 * ident.c - user and group lookups for a daemon's loop, cached
 * (ident.h)
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "common/ident.h"

/* The databases' reentrant calls take a caller's buffer; a group with
 * many members needs more than a page: grown up to this. */
#define BUF_START 16384
#define BUF_MAX (64u << 20)

struct user_entry {
    struct ident_user u;
    char *name;
    gid_t *gids;
    time_t fetched;
    UT_hash_handle hh;
};

struct gid_entry {
    gid_t gid;
    char *name; /* NULL: no such group */
    time_t fetched;
    UT_hash_handle hh;
};

struct name_entry {
    char *name;
    gid_t gid;
    bool known;
    time_t fetched;
    UT_hash_handle hh;
};

/* A user name's uid and primary gid (ident_user_id). */
struct uname_entry {
    char *name;
    uid_t uid;
    gid_t gid;
    bool known;
    time_t fetched;
    UT_hash_handle hh;
};

struct ident {
    unsigned ttl_s;
    unsigned long lookups;
    struct user_entry *users;
    struct gid_entry *by_gid;
    struct name_entry *by_name;
    struct uname_entry *by_user_name;
};

struct ident *ident_create(unsigned ttl_s)
{
    struct ident *id = xzalloc(sizeof(*id));

    id->ttl_s = ttl_s ? ttl_s : IDENT_TTL_S;
    return id;
}

void ident_destroy(struct ident *id)
{
    struct user_entry *u, *ut;
    struct gid_entry *g, *gt;
    struct name_entry *n, *nt;
    struct uname_entry *un, *unt;

    if (!id)
        return;
    HASH_ITER(hh, id->users, u, ut) {
        HASH_DEL(id->users, u);
        free(u->name);
        free(u->gids);
        free(u);
    }
    HASH_ITER(hh, id->by_gid, g, gt) {
        HASH_DEL(id->by_gid, g);
        free(g->name);
        free(g);
    }
    HASH_ITER(hh, id->by_name, n, nt) {
        HASH_DEL(id->by_name, n);
        free(n->name);
        free(n);
    }
    HASH_ITER(hh, id->by_user_name, un, unt) {
        HASH_DEL(id->by_user_name, un);
        free(un->name);
        free(un);
    }
    free(id);
}

unsigned long ident_lookups(const struct ident *id)
{
    return id->lookups;
}

static bool fresh(const struct ident *id, time_t fetched, time_t now)
{
    return now >= fetched && now - fetched < (time_t)id->ttl_s;
}

/* getgrouplist() of 'pw' into e (the primary group alone when the list
 * will not fit). */
static void fetch_groups(struct user_entry *e, const struct passwd *pw)
{
    int count = 32;

    for (int tries = 0; tries < 4; tries++) {
        int n = count;

        e->gids = xrealloc(e->gids, sizeof(*e->gids) * (size_t)count);
        if (getgrouplist(pw->pw_name, pw->pw_gid, e->gids, &n) >= 0) {
            e->u.ngids = n;
            return;
        }
        count = n > count ? n : count * 2;
    }
    e->gids[0] = pw->pw_gid;
    e->u.ngids = 1;
}

static void fetch_user(struct ident *id, struct user_entry *e)
{
    struct passwd pw, *res = NULL;
    char buf[BUF_START];

    id->lookups++;
    free(e->name);
    e->name = NULL;
    e->u = (struct ident_user){.uid = e->u.uid};
    if (getpwuid_r(e->u.uid, &pw, buf, sizeof(buf), &res) != 0 || !res)
        return;
    e->name = xstrdup(pw.pw_name);
    e->u.known = true;
    e->u.name = e->name;
    e->u.gid = pw.pw_gid;
    fetch_groups(e, &pw);
    e->u.gids = e->gids;
}

const struct ident_user *ident_user(struct ident *id, uid_t uid, time_t now)
{
    struct user_entry *e;

    HASH_FIND(hh, id->users, &uid, sizeof(uid), e);
    if (e && fresh(id, e->fetched, now))
        return &e->u;
    if (!e) {
        e = xzalloc(sizeof(*e));
        e->u.uid = uid;
        HASH_ADD(hh, id->users, u.uid, sizeof(uid), e);
    }
    fetch_user(id, e);
    e->fetched = now;
    return &e->u;
}

/* One reentrant group lookup, by name ('name' non-NULL) or by gid, with a
 * buffer grown on ERANGE.  Returns the name (caller frees) and sets *gid,
 * or NULL when there is no such group; *rc is the call's error. */
static char *fetch_group(const char *name, gid_t *gid, int *rc)
{
    struct group gr, *res = NULL;
    size_t size = BUF_START;
    char *buf = NULL, *found = NULL;

    do {
        buf = xrealloc(buf, size);
        *rc = name ? getgrnam_r(name, &gr, buf, size, &res)
                   : getgrgid_r(*gid, &gr, buf, size, &res);
        size *= 4;
    } while (*rc == ERANGE && size <= BUF_MAX);
    if (*rc == 0 && res) {
        found = xstrdup(gr.gr_name);
        *gid = gr.gr_gid;
    }
    free(buf);
    return found;
}

const char *ident_group_name(struct ident *id, gid_t gid, time_t now)
{
    struct gid_entry *e;
    int rc;

    HASH_FIND(hh, id->by_gid, &gid, sizeof(gid), e);
    if (e && fresh(id, e->fetched, now))
        return e->name;
    if (!e) {
        e = xzalloc(sizeof(*e));
        e->gid = gid;
        HASH_ADD(hh, id->by_gid, gid, sizeof(gid), e);
    }
    id->lookups++;
    free(e->name);
    e->name = fetch_group(NULL, &e->gid, &rc);
    e->gid = gid;
    e->fetched = now;
    return e->name;
}

bool ident_group_id(struct ident *id, const char *name, size_t len,
                    gid_t *gid, time_t now)
{
    struct name_entry *e;
    char *found;
    int rc;

    HASH_FIND(hh, id->by_name, name, len, e);
    if (!e) {
        e = xzalloc(sizeof(*e));
        e->name = xasprintf("%.*s", (int)len, name);
        HASH_ADD_KEYPTR(hh, id->by_name, e->name, len, e);
    } else if (fresh(id, e->fetched, now)) {
        *gid = e->gid;
        return e->known;
    }
    id->lookups++;
    found = fetch_group(e->name, &e->gid, &rc);
    e->known = found != NULL;
    if (!e->known)
        log_error("no group named %s%s%s", e->name, rc ? ": " : "",
                  rc ? strerror(rc) : "");
    free(found);
    e->fetched = now;
    *gid = e->gid;
    return e->known;
}

bool ident_user_id(struct ident *id, const char *name, uid_t *uid,
                   gid_t *gid, time_t now)
{
    struct uname_entry *e;
    struct passwd pw, *res = NULL;
    size_t len = strlen(name);
    size_t size = BUF_START;
    char *buf = NULL;
    int rc;

    HASH_FIND(hh, id->by_user_name, name, len, e);
    if (!e) {
        e = xzalloc(sizeof(*e));
        e->name = xstrdup(name);
        HASH_ADD_KEYPTR(hh, id->by_user_name, e->name, len, e);
    } else if (fresh(id, e->fetched, now)) {
        goto out;
    }
    id->lookups++;
    do {
        buf = xrealloc(buf, size);
        rc = getpwnam_r(e->name, &pw, buf, size, &res);
        size *= 4;
    } while (rc == ERANGE && size <= BUF_MAX);
    e->known = rc == 0 && res;
    if (e->known) {
        e->uid = pw.pw_uid;
        e->gid = pw.pw_gid;
    }
    free(buf);
    e->fetched = now;
out:
    if (e->known) {
        *uid = e->uid;
        *gid = e->gid;
    }
    return e->known;
}
