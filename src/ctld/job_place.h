/* SPDX-License-Identifier: Apache-2.0
 *
 * job_place.h - a job's placement and timing options: -w/--nodelist,
 * -x/--exclude, -C/--constraint, --begin, --time-min, --signal,
 * --open-mode (docs/protocol.md, job description)
 *
 * Embedded in struct job as 'place'.  The strings are kept as given; the
 * node bitmaps are derived from them against the node table (at submit
 * and, after a restart, at the first scheduling pass) and point the job's
 * sched_request at them.
 */
#ifndef DROVER_CTLD_JOB_PLACE_H
#define DROVER_CTLD_JOB_PLACE_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "common/bitmap.h"
#include "common/error.h"
#include "proto/jsonw.h"
#include "sched/sched.h"

struct node_table;

struct job_place {
    char *req_nodes;     /* -w hostlist as given, or NULL */
    char *exc_nodes;     /* -x hostlist as given, or NULL */
    char *features;      /* -C expression, or NULL */
    bitmap_t *req_bm;    /* req_nodes resolved; NULL until then / none */
    bitmap_t *exc_bm;
    int64_t begin_time;  /* --begin, epoch seconds; 0 none */
    int64_t time_min_s;  /* --time-min, seconds; 0 none */
    int signal_num;      /* --signal: signal number, 0 none */
    int signal_secs;     /*   seconds before the time limit */
    bool signal_batch;   /*   B: only the batch shell */
    bool open_append;    /* --open-mode=append */
};

/* Free the strings and bitmaps; 'pl' is left zeroed.  NULL is a no-op. */
void job_place_clear(struct job_place *pl);

/* Add the set fields to a job record (job_fields_put()). */
void job_place_put(const struct job_place *pl, const struct jsonw_sink *out);

/* Take the fields present in 'o' (job_apply_json).  Bitmaps are dropped
 * when their hostlist changes.
 */
void job_place_apply_json(struct job_place *pl, json_t *o);

/* Resolve the hostlists into bitmaps over 'nt' (if not done) and point
 * req->required_nodes/excluded_nodes/features at them.
 * Returns 0, or -1 with errno EDRV_INVALID_NODE_NAME and 'error' naming
 * the unknown node.
 */
int job_place_resolve(struct job_place *pl, struct sched_request *req,
                      const struct node_table *nt, drv_error_t *error);

#endif /* !DROVER_CTLD_JOB_PLACE_H */
