/* SPDX-License-Identifier: Apache-2.0
 *
 * explain.c - why a pending job waits, in words (explain.h)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/timefmt.h"
#include "common/xalloc.h"
#include "ctld/array.h"
#include "ctld/ctld.h"
#include "ctld/explain.h"
#include "ctld/job_info.h"
#include "ctld/resv.h"

/* "cpu=4,mem=2000M,gres/gpu=2 on 2 nodes" */
static char *needs(const struct job *job)
{
    uint64_t mem = 0;
    uint32_t gpus = 0, cpus = job_info_req_cpus(job, &gpus, &mem);
    uint32_t nodes = job->req.min_nodes ? job->req.min_nodes : 1;
    char m[48] = "", g[32] = "";

    if (mem)
        snprintf(m, sizeof(m), ",mem=%lluM", (unsigned long long)mem);
    if (gpus)
        snprintf(g, sizeof(g), ",gres/gpu=%u", gpus);
    return xasprintf("cpu=%u%s%s on %s%u node%s%s%s", cpus, m, g,
                     job->req.exclusive ? "exclusive " : "", nodes,
                     nodes == 1 ? "" : "s",
                     job->place.features ? " with " : "",
                     job->place.features ? job->place.features : "");
}

static char *plan(const struct job *job)
{
    char t[32];

    if (!job->sched_start_time)
        return xstrdup("no start planned yet (under the default backfill "
                       "a job holds a reservation once it has waited 10 "
                       "times its planned time, a day at most; or every "
                       "node it may use is taken by jobs without a time "
                       "limit, or down)");
    return xasprintf("planned %s on %s",
                     timefmt_stamp(job->sched_start_time, 0, t, sizeof(t)),
                     job->sched_nodes ? job->sched_nodes : "its nodes");
}

static char *resources(const struct job *job, const char *lead)
{
    char *n = needs(job), *p = plan(job);
    char *s = xasprintf("%sneeds %s; %s", lead, n, p);

    free(n);
    free(p);
    return s;
}

/* The reservation that holds a node the job asked for (-w), or NULL. */
static const struct resv *holding(struct ctld *ctld, const struct job *job,
                                  time_t now)
{
    struct resv *r, *tmp;

    HASH_ITER(hh, ctld->resvs, r, tmp) {
        if (r->end <= now)
            continue;
        for (size_t i = 0; job->place.req_bm && i < ctld->nodes->count; i++)
            if (bitmap_test(job->place.req_bm, i) && bitmap_test(r->nodes, i))
                return r;
    }
    return NULL;
}

static char *reservation_text(struct ctld *ctld, const struct job *job,
                              time_t now)
{
    char t1[32], t2[32];
    const struct resv *r;

    if (job->reason == JOB_REASON_RESERVATION) {
        r = resv_find(ctld, job->reservation);
        if (!r)
            return xasprintf("its reservation %s is gone", job->reservation);
        return xasprintf("its reservation %s starts %s",
                         r->name, timefmt_stamp(r->start, 0, t1, sizeof(t1)));
    }
    if (!(r = holding(ctld, job, now)))
        return xstrdup("nodes it asked for are reserved");
    return xasprintf("%s (nodes it asked for) reserved by %s from %s to %s",
                     r->node_list, r->name,
                     timefmt_stamp(r->start, 0, t1, sizeof(t1)),
                     timefmt_stamp(r->end, 0, t2, sizeof(t2)));
}

char *job_explain(struct ctld *ctld, const struct job *job, time_t now)
{
    char t[32];

    if (job->state != JOB_PENDING)
        return NULL;
    switch (job->reason) {
    case JOB_REASON_NONE:
    case JOB_REASON_RESOURCES:
        return resources(job, "");
    case JOB_REASON_PRIORITY:
        return resources(job, "would delay a job that holds a "
                              "reservation; ");
    case JOB_REASON_HELD_USER:
        return xstrdup("held by its user (scontrol release)");
    case JOB_REASON_HELD_ADMIN:
        return xstrdup("held by an administrator (scontrol release)");
    case JOB_REASON_BEGIN_TIME:
        return xasprintf("eligible from %s",
                         timefmt_stamp(job->eligible_time, 0, t, sizeof(t)));
    case JOB_REASON_DEPENDENCY:
        return xstrdup("waits for its dependency (scontrol show job: "
                       "Dependency=)");
    case JOB_REASON_DEP_NEVER:
        return xstrdup("its dependency can never be satisfied");
    case JOB_REASON_ARRAY_TASK_LIMIT:
        return xasprintf("its array runs at most %u tasks at a time",
                         job->array ? job->array->throttle : 0);
    case JOB_REASON_PART_NODE_LIMIT:
        return xasprintf("asks for more nodes than partition %s allows",
                         job->partition ? job->partition : "");
    case JOB_REASON_PART_TIME_LIMIT:
        return xasprintf("asks for more time than partition %s's MaxTime",
                         job->partition ? job->partition : "");
    case JOB_REASON_PART_DOWN:
        return xasprintf("partition %s is DOWN (scontrol update "
                         "PartitionName=%s State=UP)",
                         job->partition ? job->partition : "",
                         job->partition ? job->partition : "");
    case JOB_REASON_PART_INACTIVE:
        return xasprintf("partition %s is INACTIVE",
                         job->partition ? job->partition : "");
    case JOB_REASON_PN_MEM_LIMIT:
        return xasprintf("asks for more memory per node than partition "
                         "%s's MaxMemPerNode (or MaxMemPerCPU)",
                         job->partition ? job->partition : "");
    case JOB_REASON_NODE_NOT_AVAIL:
        return xstrdup("nodes it asked for are down, drained, or cannot "
                       "hold it");
    case JOB_REASON_RESERVATION:
    case JOB_REASON_RESV_NODES:
        return reservation_text(ctld, job, now);
    case JOB_REASON_RESV_MAINT:
        return resources(job, "a maintenance reservation holds nodes it "
                              "needs; ");
    default:
        if (job->reason >= JOB_REASON_QOS_GRP_JOBS)
            return xasprintf("%s: a limit of QOS %s or of association "
                             "(account %s, user %s) is reached "
                             "(sacctmgr show qos / assoc)",
                             job_reason_string(job->reason),
                             job->qos ? job->qos : "normal",
                             job->account ? job->account : "",
                             job->user_name ? job->user_name : "");
        return xstrdup(job_reason_string(job->reason));
    }
}
