/* SPDX-License-Identifier: Apache-2.0
 *
 * part.c - partitions as administrators change them (part.h): the
 * part_changed event applied to the node table's partitions, the changes
 * merged per partition for the snapshot, their restore over slurm.conf
 *
 * A change is checked (part_check(), in the handler) and applied
 * (part_apply(), in ctld_apply()) by the same build(), so what a handler
 * accepted applies, and applies alike on replay: it reads nothing but the
 * tables and slurm.conf.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/part.h"
#include "ctld/priority.h"
#include "ctld/submit_check.h"

/* Settings one change may carry: more than slurm.conf has keywords. */
#define PART_SET_MAX 64

/* A part_changed record, borrowed. */
struct change {
    const char *op;   /* "create", "update" or "delete" */
    const char *name;
    json_t *set;      /* {"Keyword": "value"}; NULL: none */
};

static int change_read(json_t *o, struct change *c)
{
    c->op = json_string_value(json_object_get(o, "op"));
    c->name = json_string_value(json_object_get(o, "name"));
    c->set = json_object_get(o, "set");
    if (c->set && !json_is_object(c->set))
        return -1;
    return c->op && c->name ? 0 : -1;
}

/* *errnum and 'error' of the function it is used in; -1. */
#define FAIL(num, ...) (*errnum = (num), errprintf(error, __VA_ARGS__))

/* The settings of 'set' as two arrays (borrowed); -1 when one is not a
 * string or there are too many. */
static long set_pairs(json_t *set, const char **keys, const char **values)
{
    const char *k;
    json_t *v;
    long n = 0;

    json_object_foreach(set, k, v) {
        if (!json_is_string(v) || n == PART_SET_MAX)
            return -1;
        for (const char *c = json_string_value(v); *c; c++)
            if (iscntrl((unsigned char)*c))
                return -1;
        keys[n] = k;
        values[n++] = json_string_value(v);
    }
    return n;
}

/* A name a new partition may have: not DEFAULT (slurm.conf's defaults
 * line), and nothing that would split it in a list (squeue -p a,b) or a
 * line. */
static bool name_ok(const char *name)
{
    if (!*name || !strcasecmp(name, "DEFAULT") || strlen(name) > 128)
        return false;
    for (const char *p = name; *p; p++)
        if (*p == ',' || *p == '=' || isspace((unsigned char)*p)
            || iscntrl((unsigned char)*p))
            return false;
    return true;
}

bool part_in_use(struct ctld *ctld, const char *name)
{
    for (struct job *job = ctld_live_first(ctld); job;
         job = ctld_live_next(ctld, job))
        if (!job_state_is_final(job->state) && job->partition
            && !strcmp(job->partition, name))
            return true;
    return false;
}

/* What change 'c' makes of the partition it names: for create and update
 * the new settings in *out (the caller clears them); nothing for
 * delete.  0, or -1 with *errnum and 'error'. */
static int build(struct ctld *ctld, const struct change *c,
                 struct conf_partition *out, int *errnum, drv_error_t *error)
{
    const char *keys[PART_SET_MAX], *values[PART_SET_MAX];
    long p = node_table_part_index(ctld->nodes, c->name);
    long n;

    if (!strcmp(c->op, "delete")) {
        if (p < 0)
            return FAIL(EDRV_INVALID_PARTITION_NAME, "no partition %s",
                        c->name);
        if (part_in_use(ctld, c->name))
            return FAIL(EDRV_PARTITION_IN_USE, "jobs of partition %s have "
                        "not ended", c->name);
        return 0;
    }
    if ((n = c->set ? set_pairs(c->set, keys, values) : 0) < 0)
        return FAIL(EINVAL, "%s: settings must be at most %d strings "
                    "without control characters", c->name, PART_SET_MAX);
    if (!strcmp(c->op, "create")) {
        if (p >= 0)
            return FAIL(EDRV_INVALID_PARTITION_NAME, "partition %s exists",
                        c->name);
        if (!name_ok(c->name))
            return FAIL(EDRV_INVALID_PARTITION_NAME, "%s: not a name for a "
                        "partition", c->name);
        if (conf_partition_init(ctld->conf, out, c->name, error) < 0)
            return *errnum = errno, -1;
    } else if (!strcmp(c->op, "update")) {
        if (p < 0)
            return FAIL(EDRV_INVALID_PARTITION_NAME, "no partition %s",
                        c->name);
        if (n == 0)
            return FAIL(EINVAL, "%s: no changes", c->name);
        if (conf_partition_copy(out, ctld->nodes->parts[p].conf) < 0)
            return FAIL(ENOMEM, "%s", strerror(ENOMEM));
    } else {
        return FAIL(EINVAL, "unknown change %s", c->op);
    }
    if (conf_partition_update(ctld->conf, out, (size_t)n, keys, values,
                              error)
        < 0) {
        *errnum = errno == EDRV_INVALID_NODE_NAME || errno == ENOMEM ? errno
                                                                     : EINVAL;
        conf_partition_clear(out);
        return -1;
    }
    /* What slurm.conf would refuse (conf_preempt.c) a change may not make. */
    if (out->preempt_mode == CONF_PREEMPT_MODE_SUSPEND
        && !ctld->conf->preempt_gang) {
        conf_partition_clear(out);
        return FAIL(EINVAL, "PreemptMode=SUSPEND requires GANG too "
                    "(slurm.conf's PreemptMode=SUSPEND,GANG)");
    }
    return 0;
}

int part_check(struct ctld *ctld, json_t *change, int *errnum,
               drv_error_t *error)
{
    struct conf_partition out = {0};
    struct change c;

    if (change_read(change, &c) < 0)
        return FAIL(EDRV_PROTOCOL_MALFORMED, "bad partition change");
    if (build(ctld, &c, &out, errnum, error) < 0)
        return -1;
    conf_partition_clear(&out);
    return 0;
}

/* --- the merged changes -------------------------------------------------- */

/* ctld->part_changes' list of entries, made when missing. */
static json_t *entries(struct ctld *ctld)
{
    if (!ctld->part_changes)
        ctld->part_changes = json_pack("{s:[]}", "parts");
    return json_object_get(ctld->part_changes, "parts");
}

static long entry_find(json_t *parts, const char *name)
{
    json_t *e;
    size_t i;

    json_array_foreach(parts, i, e)
        if (!strcmp(json_string_value(json_object_get(e, "name")), name))
            return (long)i;
    return -1;
}

static bool is_default_key(const char *key)
{
    const char *k = conf_partition_keyword(key);

    return k && !strcmp(k, "Default");
}

/* 'set' merged into 'into': slurm.conf's spelling, the later value of a
 * keyword (or of its pair: DefMemPerCPU replaces DefMemPerNode) winning;
 * Default is the changes' "default" instead. */
static void set_merge(json_t *into, json_t *set)
{
    const char *k, *k2;
    json_t *v, *v2;
    void *tmp;

    json_object_foreach(set, k, v) {
        const char *name = conf_partition_keyword(k);
        if (!name)
            name = k;
        if (is_default_key(name))
            continue;
        json_object_foreach_safe(into, tmp, k2, v2)
            if (conf_partition_keys_overlap(k2, name))
                json_object_del(into, k2);
        json_object_set(into, name, v);
    }
}

/* Whether 'set' names a keyword other than Default. */
static bool sets_other_than_default(json_t *set)
{
    const char *k;
    json_t *v;

    json_object_foreach(set, k, v)
        if (!is_default_key(k))
            return true;
    return false;
}

/* Change 'c' (applied) into the merged changes. */
static void record(struct ctld *ctld, const struct change *c)
{
    json_t *parts = entries(ctld), *e;
    long i = entry_find(parts, c->name);

    if (!strcmp(c->op, "delete")) {
        e = json_pack("{s:s s:b}", "name", c->name, "deleted", true);
        if (i >= 0)
            json_array_set_new(parts, (size_t)i, e);
        else
            json_array_append_new(parts, e);
        return;
    }
    if (!strcmp(c->op, "create")) {
        if (i >= 0) /* deleted before: made anew, last */
            json_array_remove(parts, (size_t)i);
        e = json_pack("{s:s s:b s:{}}", "name", c->name, "created", true,
                      "set");
        json_array_append_new(parts, e);
    } else if (i < 0) {
        if (!sets_other_than_default(c->set))
            return; /* the changes' "default" says it */
        e = json_pack("{s:s s:{}}", "name", c->name, "set");
        json_array_append_new(parts, e);
    } else {
        e = json_array_get(parts, (size_t)i);
    }
    if (c->set)
        set_merge(json_object_get(e, "set"), c->set);
}

/* The partition Default=YES moved to ("": none is marked). */
static void default_record(struct ctld *ctld, const char *name)
{
    entries(ctld);
    json_object_set_new(ctld->part_changes, "default", json_string(name));
}

/* Mark 'name' (NULL: none) the default partition of the table. */
static void default_mark(struct node_table *nt, const char *name)
{
    for (size_t p = 0; p < nt->part_count; p++)
        nt->parts[p].conf->is_default =
            name && !strcmp(nt->parts[p].conf->name, name);
}

/* --- applying ------------------------------------------------------------- */

/* Pending jobs point at partition p's bitmap: not after it is gone. */
static void jobs_forget(struct ctld *ctld, size_t p)
{
    const bitmap_t *b = ctld->nodes->parts[p].nodes;
    struct job *job, *tmp;

    HASH_ITER(hh, ctld->jobs, job, tmp)
        if (job->req.allowed_nodes == b)
            job->req.allowed_nodes = NULL;
}

/* The partition's pending jobs judged against its limits again. */
static void jobs_again(struct ctld *ctld, const char *name)
{
    struct ctld_partition *part = node_table_partition(ctld->nodes, name);

    for (struct job *job = ctld_waiting_first(ctld); part && job;
         job = ctld_waiting_next(ctld, job))
        if (job->state == JOB_PENDING && job->partition
            && !strcmp(job->partition, name))
            submit_check_part_again(job, part);
}

/* Whether 'set' names Default. */
static bool sets_default(json_t *set)
{
    const char *k;
    json_t *v;

    json_object_foreach(set, k, v)
        if (is_default_key(k))
            return true;
    return false;
}

/* Install what build() made: the table, the default, the record.
 * 'restoring': from the snapshot (the jobs' reasons are the snapshot's). */
static int install(struct ctld *ctld, const struct change *c,
                   struct conf_partition *out, bool restoring,
                   drv_error_t *error)
{
    struct node_table *nt = ctld->nodes;
    long p = node_table_part_index(nt, c->name);
    struct conf_partition *own;
    bool was_default = p >= 0 && nt->parts[p].conf->is_default;

    if (!strcmp(c->op, "delete")) {
        jobs_forget(ctld, (size_t)p);
        node_table_part_remove(nt, (size_t)p);
        if (was_default) /* Slurm: no default partition then */
            default_record(ctld, "");
        record(ctld, c);
        return 0;
    }
    own = xzalloc(sizeof(*own));
    *own = *out;
    if (!strcmp(c->op, "create")) {
        if ((p = node_table_part_add(nt, own, error)) < 0) {
            free(own);
            return -1;
        }
    } else if (node_table_part_set(nt, (size_t)p, own, error) < 0) {
        free(own);
        return -1;
    }
    *out = (struct conf_partition){0}; /* the table's now */
    if (c->set && sets_default(c->set)) {
        if (nt->parts[p].conf->is_default) {
            default_mark(nt, c->name);
            default_record(ctld, c->name);
        } else if (was_default) {
            default_record(ctld, "");
        }
    }
    record(ctld, c);
    if (!restoring)
        jobs_again(ctld, c->name);
    return 0;
}

static int apply(struct ctld *ctld, const struct change *c, bool restoring)
{
    struct conf_partition out = {0};
    drv_error_t error = {{0}};
    int errnum;

    if (build(ctld, c, &out, &errnum, &error) < 0
        || install(ctld, c, &out, restoring, &error) < 0) {
        conf_partition_clear(&out);
        log_error("part_changed: %s PartitionName=%s: %s", c->op, c->name,
                  error.text);
        return -1;
    }
    priority_parts_changed(ctld);
    return 0;
}

int part_apply(struct ctld *ctld, json_t *change)
{
    struct change c;

    if (change_read(change, &c) < 0) {
        log_error("part_changed: a change without op or name");
        return -1;
    }
    return apply(ctld, &c, false);
}

/* --- snapshot ------------------------------------------------------------ */

json_t *part_snapshot(struct ctld *ctld)
{
    return ctld->part_changes ? json_deep_copy(ctld->part_changes)
                              : json_object();
}

/* An update entry whose whole set no longer applies (its Nodes= left
 * slurm.conf): each setting that still does. */
static void restore_each(struct ctld *ctld, const struct change *c)
{
    const char *k;
    json_t *v;

    json_object_foreach(c->set, k, v) {
        json_t *one = json_pack("{s:O}", k, v);
        struct change c1 = {.op = "update", .name = c->name, .set = one};
        apply(ctld, &c1, true);
        json_decref(one);
    }
}

void part_restore(struct ctld *ctld, json_t *o)
{
    json_t *e, *def = json_object_get(o, "default");
    size_t i;

    json_decref(ctld->part_changes);
    ctld->part_changes = NULL;
    json_array_foreach(json_object_get(o, "parts"), i, e) {
        struct change c = {
            .op = json_is_true(json_object_get(e, "created"))   ? "create"
                  : json_is_true(json_object_get(e, "deleted")) ? "delete"
                                                                : "update",
            .name = json_string_value(json_object_get(e, "name")),
            .set = json_object_get(e, "set"),
        };
        long p = c.name ? node_table_part_index(ctld->nodes, c.name) : -1;
        if (!c.name)
            continue;
        if (!strcmp(c.op, "create") && p >= 0) {
            /* slurm.conf has it now: the one scontrol made stands */
            jobs_forget(ctld, (size_t)p);
            node_table_part_remove(ctld->nodes, (size_t)p);
        }
        if (!strcmp(c.op, "update") && json_object_size(c.set) == 0)
            continue;
        if (!strcmp(c.op, "delete") && p < 0) {
            record(ctld, &c); /* keep it: slurm.conf may name it again */
            continue;
        }
        if (apply(ctld, &c, true) < 0 && !strcmp(c.op, "update") && p >= 0)
            restore_each(ctld, &c);
    }
    if (json_is_string(def)) {
        const char *name = json_string_value(def);
        default_mark(ctld->nodes, *name ? name : NULL);
        default_record(ctld, name);
    }
    priority_parts_changed(ctld);
}

void part_fini(struct ctld *ctld)
{
    json_decref(ctld->part_changes);
    ctld->part_changes = NULL;
}
