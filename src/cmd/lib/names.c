/* SPDX-License-Identifier: Apache-2.0
 *
 * names.c - user and group names for the commands
 *
 * A command prints a few dozen jobs at most from a handful of users, so a
 * small linear cache is plenty.
 */
#include <ctype.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/lib/names.h"
#include "common/xalloc.h"

struct name_cache {
    unsigned long id;
    char *name;
    struct name_cache *next;
};

static struct name_cache *users, *groups;

static const char *cache_find(struct name_cache *c, unsigned long id)
{
    for (; c; c = c->next) {
        if (c->id == id)
            return c->name;
    }
    return NULL;
}

static const char *cache_add(struct name_cache **head, unsigned long id,
                             const char *name)
{
    struct name_cache *c = xzalloc(sizeof(*c));

    c->id = id;
    c->name = name ? xstrdup(name) : xasprintf("%lu", id);
    c->next = *head;
    *head = c;
    return c->name;
}

const char *names_user(uid_t uid)
{
    const char *name = cache_find(users, uid);
    struct passwd *pw;

    if (name)
        return name;
    pw = getpwuid(uid);
    return cache_add(&users, uid, pw ? pw->pw_name : NULL);
}

const char *names_group(gid_t gid)
{
    const char *name = cache_find(groups, gid);
    struct group *gr;

    if (name)
        return name;
    gr = getgrgid(gid);
    return cache_add(&groups, gid, gr ? gr->gr_name : NULL);
}

/* A decimal number alone ("1000"), as Slurm takes ids; 0 or -1. */
static int plain_id(const char *name, unsigned long *v)
{
    char *end;

    if (!isdigit((unsigned char)name[0]))
        return -1;
    *v = strtoul(name, &end, 10);
    return *end == '\0' ? 0 : -1;
}

int names_user_uid(const char *name, uid_t *uid)
{
    struct passwd *pw;
    unsigned long v;

    if (!name || !name[0])
        return -1;
    if ((pw = getpwnam(name))) {
        *uid = pw->pw_uid;
        return 0;
    }
    if (plain_id(name, &v) < 0)
        return -1;
    *uid = (uid_t)v;
    return 0;
}

int names_group_gid(const char *name, gid_t *gid)
{
    struct group *gr;
    unsigned long v;

    if (!name || !name[0])
        return -1;
    if ((gr = getgrnam(name))) {
        *gid = gr->gr_gid;
        return 0;
    }
    if (plain_id(name, &v) < 0)
        return -1;
    *gid = (gid_t)v;
    return 0;
}
