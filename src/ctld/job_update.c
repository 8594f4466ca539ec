/* SPDX-License-Identifier: Apache-2.0
 *
 * job_update.c - scontrol update JobId= with Partition=, NumNodes=,
 * StartTime=, Name=, Features=, Priority=, MailUser=, MailType=
 * (job_update.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/depend.h"
#include "ctld/job_update.h"
#include "ctld/mail.h"
#include "ctld/submit_check.h"
#include "sched/feature_expr.h"

static int bad(int errnum, drv_error_t *error, const char *what)
{
    errno = errnum;
    return errprintf(error, "%s", what);
}

/* The keys present with their JSON types; NULL members when absent. */
struct update_keys {
    json_t *part, *nmin, *nmax, *begin, *name, *features;
};

static int get_keys(json_t *body, struct update_keys *k, drv_error_t *error)
{
    *k = (struct update_keys){
        json_object_get(body, "partition"), json_object_get(body, "nodes_min"),
        json_object_get(body, "nodes_max"), json_object_get(body, "begin_time"),
        json_object_get(body, "name"), json_object_get(body, "features")};
    if ((k->part && !json_is_string(k->part))
        || (k->nmin && !json_is_integer(k->nmin))
        || (k->nmax && !json_is_integer(k->nmax))
        || (k->begin && !json_is_integer(k->begin))
        || (k->name && !json_is_string(k->name))
        || (k->features && !json_is_string(k->features)))
        return bad(EDRV_PROTOCOL_MALFORMED, error, "job_update value type");
    return 0;
}

/* NumNodes=min[-max]: as Slurm, at least 1 and max not under min. */
static int check_nodes(struct update_keys *k, struct job_update *u,
                       drv_error_t *error)
{
    json_int_t min = json_integer_value(k->nmin);
    json_int_t max = k->nmax ? json_integer_value(k->nmax) : min;

    if (min < 1 || min > UINT32_MAX || max < min || max > UINT32_MAX)
        return bad(EDRV_INVALID_NODE_COUNT, error, "node count");
    u->min_nodes = (uint32_t)min;
    u->max_nodes = (uint32_t)max;
    return 0;
}

/* MailType=, MailUser=: any state, as Slurm; "" (or a type for a job
 * without a recipient) takes the default recipient, written into 'body'
 * so that u->mail_user can borrow it. */
static int check_mail(struct ctld *ctld, const struct job *job, json_t *body,
                      struct job_update *u, drv_error_t *error)
{
    json_t *type = json_object_get(body, "mail_type");
    json_t *user = json_object_get(body, "mail_user");

    if ((type && !json_is_integer(type)) || (user && !json_is_string(user)))
        return bad(EDRV_PROTOCOL_MALFORMED, error, "job_update value type");
    if ((u->has_mail_type = type != NULL))
        u->mail_type = (uint32_t)json_integer_value(type);
    if (user && mail_check_user(json_string_value(user), error) < 0)
        return -1;
    if ((user && !json_string_length(user))
        || (!user && type && !job->mail_user)) {
        char *dflt = mail_default_user(ctld, job);
        json_object_set_new(body, "mail_user", json_string(dflt));
        free(dflt);
        user = json_object_get(body, "mail_user");
    }
    u->mail_user = json_string_value(user);
    u->any = u->any || type || user;
    return 0;
}

int job_update_check(struct ctld *ctld, const struct job *job, json_t *body,
                     struct job_update *u, drv_error_t *error)
{
    struct update_keys k;

    *u = (struct job_update){0};
    if (get_keys(body, &k, error) < 0)
        return -1;
    /* In range already: job_update_check_body(). */
    u->has_time_limit = json_object_get(body, "time_limit_s") != NULL;
    u->time_limit_s = json_integer_value(json_object_get(body, "time_limit_s"));
    u->any = k.part || k.nmin || k.begin || k.name || k.features
             || u->has_time_limit;
    if ((k.part || k.nmin || k.begin || k.features)
        && job->state != JOB_PENDING)
        return bad(EDRV_JOB_NOT_PENDING, error, "job is not pending");
    if (k.part && !(u->part = node_table_partition(
                        ctld->nodes, json_string_value(k.part))))
        return bad(EDRV_INVALID_PARTITION_NAME, error, "unknown partition");
    if (u->part && !ctld_part_takes_jobs(u->part))
        return bad(EDRV_PARTITION_NOT_AVAIL, error, "partition is DRAIN or "
                   "INACTIVE");
    if (k.nmin && check_nodes(&k, u, error) < 0)
        return -1;
    if (k.features && json_string_length(k.features) > 0
        && submit_check_features(ctld, json_string_value(k.features), error)
               < 0)
        return -1;
    if ((u->has_begin = k.begin != NULL))
        u->begin = json_integer_value(k.begin);
    u->name = json_string_value(k.name);
    u->features = json_string_value(k.features);
    if (check_mail(ctld, job, body, u, error) < 0)
        return -1;
    if ((u->has_priority = json_is_integer(json_object_get(body, "priority"))))
        u->priority = (uint32_t)json_integer_value(
            json_object_get(body, "priority"));
    u->any = u->any || u->has_priority;
    return 0;
}

/* Partition and node count: re-judge the partition-limit reasons. */
static void apply_place(struct ctld *ctld, struct job *job,
                        const struct job_update *u)
{
    struct ctld_partition *part;

    if (u->part) {
        job_set_str(&job->partition, u->part->conf->name);
    }
    if (u->min_nodes) {
        job->req.min_nodes = u->min_nodes;
        job->req.max_nodes = u->max_nodes;
        if (job->req.ntasks && job->req.ntasks < u->min_nodes)
            job->req.ntasks = u->min_nodes; /* a task per node at least */
    }
    if (!(part = node_table_partition(ctld->nodes, job->partition)))
        return;
    job->req.allowed_nodes = part->nodes;
    job->req.max_cpus_per_node = ctld_part_cpu_cap(part);
    submit_check_part_again(job, part);
}

/* StartTime: eligible then; BeginTime while that is in the future. */
static void apply_begin(struct job *job, int64_t begin, time_t now)
{
    job->place.begin_time = begin > now ? begin : 0;
    if (begin > now) {
        job->eligible_time = (time_t)begin;
        if (job->reason == JOB_REASON_NONE)
            job->reason = JOB_REASON_BEGIN_TIME;
    } else if (job->reason == JOB_REASON_BEGIN_TIME
               || job->eligible_time > now) {
        job->eligible_time = now;
        if (job->reason == JOB_REASON_BEGIN_TIME)
            job->reason = JOB_REASON_NONE;
    }
}

void job_update_apply(struct ctld *ctld, struct job *job,
                      const struct job_update *u, time_t now)
{
    if (u->has_time_limit)
        job->time_limit_s = u->time_limit_s;
    if ((u->part || u->min_nodes || u->has_time_limit)
        && job->state == JOB_PENDING)
        apply_place(ctld, job, u);
    if (u->has_begin)
        apply_begin(job, u->begin, now);
    if (u->name) {
        job_set_str(&job->name, u->name);
    }
    if (u->features) {
        free(job->place.features);
        job->place.features = u->features[0] ? xstrdup(u->features) : NULL;
        job->req.features = job->place.features;
    }
    if (u->dependency)
        depend_set(ctld, job, u->dependency);
    if (u->has_mail_type)
        job->mail_type = u->mail_type;
    if (u->mail_user)
        job_set_str(&job->mail_user, u->mail_user);
    if (u->has_priority && u->priority) {
        job->priority = u->priority;
        job->priority_set = true;
    }
}

json_t *job_update_to_json(const struct job_update *u)
{
    json_t *o = json_object();

    if (u->has_time_limit)
        json_object_set_new(o, "time_limit_s", json_integer(u->time_limit_s));
    if (u->part)
        json_object_set_new(o, "partition", json_string(u->part->conf->name));
    if (u->min_nodes) {
        json_object_set_new(o, "nodes_min", json_integer(u->min_nodes));
        json_object_set_new(o, "nodes_max", json_integer(u->max_nodes));
    }
    if (u->has_begin)
        json_object_set_new(o, "begin_time", json_integer(u->begin));
    if (u->name)
        json_object_set_new(o, "name", json_string(u->name));
    if (u->features)
        json_object_set_new(o, "features", json_string(u->features));
    if (u->dependency)
        json_object_set_new(o, "dependency", json_string(u->dependency));
    if (u->has_priority)
        json_object_set_new(o, "priority", json_integer(u->priority));
    if (u->has_mail_type)
        json_object_set_new(o, "mail_type", json_integer(u->mail_type));
    if (u->mail_user)
        json_object_set_new(o, "mail_user", json_string(u->mail_user));
    return o;
}

int job_update_from_json(struct ctld *ctld, json_t *o, struct job_update *u,
                         drv_error_t *error)
{
    const char *part = json_string_value(json_object_get(o, "partition"));
    json_t *v;

    *u = (struct job_update){.any = true};
    if ((v = json_object_get(o, "time_limit_s"))) {
        u->has_time_limit = true;
        u->time_limit_s = json_integer_value(v);
    }
    if (part && !(u->part = node_table_partition(ctld->nodes, part)))
        return errprintf(error, "job_updated: unknown partition %s", part);
    u->min_nodes = (uint32_t)json_integer_value(json_object_get(o,
                                                                "nodes_min"));
    u->max_nodes = (uint32_t)json_integer_value(json_object_get(o,
                                                                "nodes_max"));
    if ((v = json_object_get(o, "begin_time"))) {
        u->has_begin = true;
        u->begin = json_integer_value(v);
    }
    u->name = json_string_value(json_object_get(o, "name"));
    u->features = json_string_value(json_object_get(o, "features"));
    u->dependency = json_string_value(json_object_get(o, "dependency"));
    if ((v = json_object_get(o, "priority"))) {
        u->has_priority = true;
        u->priority = (uint32_t)json_integer_value(v);
    }
    if ((v = json_object_get(o, "mail_type"))) {
        u->has_mail_type = true;
        u->mail_type = (uint32_t)json_integer_value(v);
    }
    u->mail_user = json_string_value(json_object_get(o, "mail_user"));
    return 0;
}
