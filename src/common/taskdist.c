/* SPDX-License-Identifier: Apache-2.0
 *
 * taskdist.c - Slurm's -m / --distribution values (see taskdist.h)
 *
 * Slurm first rewrites each '*' (node level: block; socket level:
 * cyclic; core level: the socket level's value), then accepts exactly
 * the node[:socket[:core]] combinations of block/cyclic/fcyclic with
 * block or cyclic at the node level, or "arbitrary"/"hostfile" alone,
 * or "pack"/"nopack" alone; one ",pack"/",nopack" may follow.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/taskdist.h"

#define BAD_SPEC "Invalid --distribution specification"

static int bad(drv_error_t *error, bool plane)
{
    errno = EINVAL;
    if (plane)
        return errprintf(error, "Invalid plane size or size not "
                                "specified\n" BAD_SPEC);
    return errprintf(error, BAD_SPEC);
}

/* "plane=N", or "plane" with N from 'env'. */
static int parse_plane(const char *spec, const char *env, struct taskdist *d,
                       drv_error_t *error)
{
    const char *size = strchr(spec, '=');
    char *end;
    long n;

    size = size ? size + 1 : env;
    if (!size || !*size)
        return bad(error, true);
    errno = 0;
    n = strtol(size, &end, 10);
    if (end == size || *end || n <= 0 || n > INT_MAX || errno)
        return bad(error, true);
    *d = (struct taskdist){.node = TASKDIST_PLANE,
                           .plane_size = (uint32_t)n};
    return 0;
}

static enum taskdist_level level_word(const char *w)
{
    if (!strcasecmp(w, "block"))
        return TASKDIST_LEVEL_BLOCK;
    if (!strcasecmp(w, "cyclic"))
        return TASKDIST_LEVEL_CYCLIC;
    if (!strcasecmp(w, "fcyclic"))
        return TASKDIST_LEVEL_FCYCLIC;
    return TASKDIST_LEVEL_NONE;
}

static bool pack_word(const char *w, enum taskdist_pack *p)
{
    if (!strcasecmp(w, "pack"))
        *p = TASKDIST_PACK;
    else if (!strcasecmp(w, "nopack"))
        *p = TASKDIST_NOPACK;
    else
        return false;
    return true;
}

/* The node[:socket[:core]] part (empty fields skipped, as strtok does). */
static bool parse_levels(char *base, struct taskdist *d)
{
    char *tok[4], *save = NULL, *t;
    enum taskdist_level lv[3] = {0};
    size_t n = 0;

    for (t = strtok_r(base, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
        if (n == 3)
            return false;
        tok[n++] = t;
    }
    if (n == 1 && (!strcasecmp(tok[0], "arbitrary")
                   || !strcasecmp(tok[0], "hostfile"))) {
        d->node = TASKDIST_ARBITRARY;
        return true;
    }
    if (n == 1 && pack_word(tok[0], &d->pack))
        return true; /* the node level stays the default */
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(tok[i], "*"))
            lv[i] = i == 0 ? TASKDIST_LEVEL_BLOCK
                    : i == 1 ? TASKDIST_LEVEL_CYCLIC
                             : lv[1];
        else if (!(lv[i] = level_word(tok[i])))
            return false;
    }
    if (n == 0 || lv[0] == TASKDIST_LEVEL_FCYCLIC)
        return false;
    d->node = lv[0] == TASKDIST_LEVEL_BLOCK ? TASKDIST_BLOCK
                                            : TASKDIST_CYCLIC;
    d->socket = lv[1];
    d->core = lv[2];
    return true;
}

int taskdist_parse(const char *spec, const char *plane_env,
                   struct taskdist *d, drv_error_t *error)
{
    struct taskdist r = {0};
    char *copy, *comma;
    bool ok;

    if (!spec || !*spec || *spec == ',')
        return bad(error, false);
    if (!strncasecmp(spec, "plane", 5))
        return parse_plane(spec, plane_env, d, error);
    if (!(copy = strdup(spec))) {
        errno = ENOMEM;
        return errprintf(error, "out of memory");
    }
    if ((comma = strchr(copy, ',')))
        *comma++ = '\0';
    ok = parse_levels(copy, &r)
         && (!comma || !*comma || pack_word(comma, &r.pack));
    free(copy);
    if (!ok)
        return bad(error, false);
    *d = r;
    return 0;
}

static const char *level_name(enum taskdist_level l)
{
    switch (l) {
    case TASKDIST_LEVEL_BLOCK:
        return "block";
    case TASKDIST_LEVEL_CYCLIC:
        return "cyclic";
    case TASKDIST_LEVEL_FCYCLIC:
        return "fcyclic";
    default:
        return NULL;
    }
}

char *taskdist_format(const struct taskdist *d, int with_size, char *buf)
{
    static const char *const node_names[] = {
        [TASKDIST_BLOCK] = "block", [TASKDIST_CYCLIC] = "cyclic",
        [TASKDIST_PLANE] = "plane", [TASKDIST_ARBITRARY] = "arbitrary",
    };
    size_t len = 0;

    buf[0] = '\0';
    if (d->node != TASKDIST_UNSET)
        len += (size_t)snprintf(buf, TASKDIST_TEXT_MAX, "%s",
                                node_names[d->node]);
    if (d->node == TASKDIST_PLANE && with_size)
        len += (size_t)snprintf(buf + len, TASKDIST_TEXT_MAX - len, "=%u",
                                d->plane_size);
    if (level_name(d->socket))
        len += (size_t)snprintf(buf + len, TASKDIST_TEXT_MAX - len, ":%s",
                                level_name(d->socket));
    if (level_name(d->core))
        len += (size_t)snprintf(buf + len, TASKDIST_TEXT_MAX - len, ":%s",
                                level_name(d->core));
    if (d->pack != TASKDIST_PACK_DEFAULT)
        snprintf(buf + len, TASKDIST_TEXT_MAX - len, "%s%s", len ? "," : "",
                 d->pack == TASKDIST_PACK ? "pack" : "nopack");
    return buf;
}

static const char *level_title(enum taskdist_level l)
{
    switch (l) {
    case TASKDIST_LEVEL_BLOCK:
        return "Block";
    case TASKDIST_LEVEL_CYCLIC:
        return "Cyclic";
    case TASKDIST_LEVEL_FCYCLIC:
        return "FCyclic";
    default:
        return "";
    }
}

char *taskdist_layout_name(const struct taskdist *d, char *buf)
{
    static const char *const alone[] = {
        [TASKDIST_UNSET] = "Unknown", [TASKDIST_BLOCK] = "Block",
        [TASKDIST_CYCLIC] = "Cyclic", [TASKDIST_PLANE] = "Plane",
        [TASKDIST_ARBITRARY] = "Arbitrary",
    };
    size_t len;

    /* With lower levels, the node level shrinks to its letter. */
    if ((d->node == TASKDIST_BLOCK || d->node == TASKDIST_CYCLIC)
        && d->socket != TASKDIST_LEVEL_NONE)
        len = (size_t)snprintf(buf, TASKDIST_TEXT_MAX, "%c%s%s",
                               d->node == TASKDIST_BLOCK ? 'B' : 'C',
                               level_title(d->socket),
                               level_title(d->core));
    else
        len = (size_t)snprintf(buf, TASKDIST_TEXT_MAX, "%s",
                               alone[d->node]);
    if (d->pack != TASKDIST_PACK_DEFAULT)
        snprintf(buf + len, TASKDIST_TEXT_MAX - len, ",%s",
                 d->pack == TASKDIST_PACK ? "Pack" : "NoPack");
    return buf;
}
