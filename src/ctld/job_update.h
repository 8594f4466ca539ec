/* SPDX-License-Identifier: Apache-2.0
 *
 * job_update.h - the fields of scontrol update JobId= beyond TimeLimit and
 * Dependency: Partition=, NumNodes=, StartTime=, Name=, Features=,
 * Priority=, MailUser=, MailType=
 *
 * Checked all together first (job_update_check), applied only when every
 * field is valid (job_update_apply), so a refused request changes nothing.
 */
#ifndef DROVER_CTLD_JOB_UPDATE_H
#define DROVER_CTLD_JOB_UPDATE_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "ctld/ctld.h"

/* The checked values of one request; strings are borrowed from its body. */
struct job_update {
    bool any;                            /* some field below was given */
    bool has_time_limit;                 /* "time_limit_s" */
    int64_t time_limit_s;                /* TIME_INFINITE: no limit */
    const struct ctld_partition *part;   /* "partition"; NULL: unchanged */
    uint32_t min_nodes, max_nodes;       /* "nodes_min"/"nodes_max"; 0: no */
    bool has_begin;                      /* "begin_time" (epoch seconds) */
    int64_t begin;
    const char *name;                    /* "name"; NULL: unchanged */
    const char *features;                /* "features"; "" clears; NULL no */
    const char *dependency;              /* "dependency" (depend.h: checked
                                          * by depend_update_check()); ""
                                          * clears; NULL: unchanged */
    bool has_mail_type;                  /* "mail_type": MailType= */
    uint32_t mail_type;                  /* MAIL_* bits (common/mailtype.h) */
    const char *mail_user;               /* "mail_user": MailUser= ("" in
                                          * the request: the default,
                                          * resolved by the check); NULL:
                                          * unchanged */
    bool has_priority;                   /* "priority" (> 0; 0 is a hold,
                                          * event JOB_HELD): kept as set */
    uint32_t priority;
};

/* Check the fields of job_update body 'body' for 'job', as Slurm's
 * update_job: all but Name= need a pending job (EDRV_JOB_NOT_PENDING);
 * an unknown partition is EDRV_INVALID_PARTITION_NAME, a node count of
 * 0 or a maximum under the minimum EDRV_INVALID_NODE_COUNT, a bad or
 * unknown feature EDRV_INVALID_FEATURE, a value of the wrong JSON type
 * EDRV_PROTOCOL_MALFORMED.  MailUser= "" (or MailType= on a job that has
 * no mail user) stores the default recipient in 'body' (mail.h), as Slurm
 * shows it.  'body' passed its schema (proto/schema_msgs.c: its
 * ranges are not checked again).  Fills *u; returns 0, or -1 with errno set
 * and the reason in 'error' (may be NULL).
 */
int job_update_check(struct ctld *ctld, const struct job *job, json_t *body,
                     struct job_update *u, drv_error_t *error);

/* Apply what job_update_check() accepted to 'job' at 'now' (the
 * job_updated event, event.h, calls it): partition and node count
 * re-evaluate the partition-limit reasons, StartTime sets the eligible
 * time (BeginTime while after 'now'), and TimeLimit of a pending job
 * re-evaluates PartitionTimeLimit (no limit is over every finite MaxTime),
 * and Dependency replaces the list last (depend_set()).
 */
void job_update_apply(struct ctld *ctld, struct job *job,
                      const struct job_update *u, time_t now);

/* The journal's form of 'u': the keys of a job_update body that it
 * sets.  New reference. */
json_t *job_update_to_json(const struct job_update *u);

/* Back from job_update_to_json()'s 'o' (borrowed: u's strings point into
 * it).  Returns 0, or -1 with 'error' set for a partition the
 * configuration no longer has. */
int job_update_from_json(struct ctld *ctld, json_t *o, struct job_update *u,
                         drv_error_t *error);

#endif /* !DROVER_CTLD_JOB_UPDATE_H */
