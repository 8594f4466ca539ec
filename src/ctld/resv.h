/* SPDX-License-Identifier: Apache-2.0
 *
 * resv.h - advance reservations (scontrol create|update|delete|show
 * reservation, sbatch --reservation)
 *
 * A reservation holds whole nodes from StartTime to EndTime for its Users
 * and Accounts.  Other jobs may not use those nodes over any instant of
 * [start, end): a job whose window [now, now + time limit) meets it is
 * kept off them (so a maintenance window "drains nothing early": jobs
 * that end before it still start there).  Jobs that name the reservation
 * run only on its nodes, only while it is active (FLEX: anywhere, at any
 * time, its nodes included); MAGNETIC ones also take jobs that do not
 * name them but may use them.  PURGE_COMP ones are deleted once no job
 * has used them for their purge time.  Reservations are
 * controller state: the resv_changed event (created, updated or deleted,
 * with the whole record) and the snapshot; an ended one is deleted, or
 * moved on by a day or a week (DAILY, WEEKDAY, WEEKLY).
 */
#ifndef DROVER_CTLD_RESV_H
#define DROVER_CTLD_RESV_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <jansson.h>
#include <uthash.h>

#include "common/bitmap.h"
#include "common/error.h"
#include "proto/server.h"
#include "sched/sched.h"

struct ctld;
struct job;

/* Flags= of a reservation (Slurm's names). */
enum resv_flags {
    RESV_MAINT = 1 << 0,
    RESV_IGNORE_JOBS = 1 << 1,
    RESV_OVERLAP = 1 << 2,
    RESV_DAILY = 1 << 3,
    RESV_WEEKLY = 1 << 4,
    RESV_WEEKDAY = 1 << 5,
    RESV_SPEC_NODES = 1 << 6, /* Nodes= was given */
    RESV_FLEX = 1 << 7,       /* its jobs may start before it, end after
                               * it, and use nodes outside it */
    RESV_PURGE_COMP = 1 << 8, /* deleted once idle for purge_s */
    RESV_MAGNETIC = 1 << 9,   /* jobs that may use it do so unasked */
};

/* PURGE_COMP's default idle time, seconds (Slurm: 5 minutes). */
#define RESV_PURGE_DEFAULT_S 300

struct resv {
    char *name;
    time_t start, end;     /* epoch s, end > start */
    char *node_list;       /* hostlist of its nodes */
    bitmap_t *nodes;       /* node table indexes */
    char *users;           /* comma list or NULL */
    char *accounts;        /* comma list or NULL */
    char *partition;       /* PartitionName= or NULL */
    uint32_t flags;        /* enum resv_flags */
    int64_t purge_s;       /* PURGE_COMP[=time]: idle seconds before it
                            * goes; 0: RESV_PURGE_DEFAULT_S */
    time_t idle_since;     /* PURGE_COMP: since when no job uses it (not
                            * journaled: 0 until the next check) */
    struct sched_alloc *part; /* CoreCnt=/TRES=: what it holds of each of
                               * its nodes (resv_parts.h); NULL: the
                               * nodes whole */
    UT_hash_handle hh;
};

/* The record of 'r': {"name","start_time","end_time","nodes","flags":
 * [names],"users","accounts","partition","purge_s","parts"} (absent
 * strings, a zero purge_s and whole nodes' parts left out).  New
 * reference. */
json_t *resv_to_json(struct ctld *ctld, const struct resv *r);

/* The flag of Slurm's name 'name' (MAINT, FLEX, OVERLAP, IGNORE_JOBS,
 * DAILY, WEEKDAY, WEEKLY, SPEC_NODES, PURGE_COMP, MAGNETIC; any case)
 * into *flag; -1 for another. */
int resv_flag_parse(const char *name, uint32_t *flag);

/* Is 'r' active at 'now' (start <= now < end)? */
bool resv_active(const struct resv *r, time_t now);

/* The reservation named 'name', or NULL. */
struct resv *resv_find(struct ctld *ctld, const char *name);

/* job_submit: 'job's --reservation (NULL: none) exists and its owner
 * (user name) or account may use it.  Returns 0, or -1 with errno
 * EDRV_RESERVATION_INVALID or EDRV_RESERVATION_ACCESS and 'error'. */
int resv_check_job(struct ctld *ctld, const struct job *job,
                   drv_error_t *error);

/* The nodes 'job' may use at 'now' among 'allowed' (its partition's), as
 * a new bitmap the caller frees, or NULL when the reservations change
 * nothing for it: every reservation its run [now, now + limit) would meet
 * keeps it off its nodes (a job naming one: that one's nodes only, none
 * while it is not active unless FLEX).  *waits is set when the job names a
 * reservation that is not active (its reason: Reservation).  For reasons
 * and explanations; the scheduling pass plans with resv_holds(). */
bitmap_t *resv_job_nodes(struct ctld *ctld, const struct job *job,
                         const bitmap_t *allowed, time_t now, bool *waits);

/* Does a MAINT reservation that 'job''s run from 'now' would meet hold
 * one of 'nodes' (its partition's; NULL: all)?  Slurm's reason
 * "ReqNodeNotAvail, Reserved for maintenance" for a job waiting for
 * resources. */
bool resv_maint_in_way(struct ctld *ctld, const struct job *job,
                       const bitmap_t *nodes, time_t now);

/* The accounting record of 'r' ending at 'end' (epoch s; its own end, or
 * earlier when it is deleted or moved): {"name","start_time","end_time",
 * "nodes","node_cnt","flags":"MAINT,...","tres":{"cpu","mem","node",
 * "gres/gpu"}} with what it holds (its nodes whole: their CPUs, MiB and
 * GPUs; a part: its CPUs and GPUs).  New reference. */
json_t *resv_acct_record(struct ctld *ctld, const struct resv *r, time_t end);

/* Which pass of a scheduling run pending 'job' belongs to; Slurm's queue
 * takes jobs of reservations first.  The reservation it names when that
 * is active or FLEX, or an active MAGNETIC one it may use; NULL for the
 * general pass.  *waits: it names one that does not exist or is neither
 * active nor FLEX (it stays pending, Reason=Reservation, in no pass). */
struct resv *resv_pass_of(struct ctld *ctld, const struct job *job,
                          time_t now, bool *waits);

/* In the pass of 'r', the nodes 'job' may use among 'allowed' (its
 * partition's): r's nodes if it names r and r is not FLEX; NULL when
 * 'allowed' stands (FLEX, MAGNETIC: r's nodes and the others).  A new
 * bitmap the caller frees. */
bitmap_t *resv_pass_nodes(struct ctld *ctld, const struct resv *r,
                          const struct job *job, const bitmap_t *allowed);

/* The reservations that have not ended at 'now', but 'except' (the one
 * whose pass this is; NULL for none) and those that may overlap it on its
 * nodes (OVERLAP), as holds for the scheduling pass (sched.h: struct
 * sched_hold): each holds its nodes whole from its start (now, if it has
 * begun) to its end, so that other jobs are planned around it (squeue
 * --start).  *n holds; NULL when none.  Free with resv_holds_free(). */
struct sched_hold *resv_holds(struct ctld *ctld, const struct resv *except,
                              time_t now, size_t *n);
void resv_holds_free(struct sched_hold *holds, size_t n);

/* Is node 'i' in a reservation active at 'now'?  *maint: a MAINT one. */
bool resv_node_reserved(struct ctld *ctld, size_t i, time_t now,
                        bool *maint);

/* Periodic: reservations ended by 'now' are deleted or moved on. */
void resv_expire(struct ctld *ctld, time_t now);

/* Event plumbing (event.c, state.c): apply a resv_changed record ({"op":
 * "create"|"update"|"delete","resv":record}); the snapshot's list and its
 * restore.  resv_apply returns 0, or -1 when it does not apply. */
int resv_apply(struct ctld *ctld, json_t *change);
json_t *resv_snapshot(struct ctld *ctld);
void resv_restore(struct ctld *ctld, json_t *list);

/* Free every reservation. */
void resv_fini(struct ctld *ctld);

/* resv_create, resv_update, resv_delete, resv_info (docs/protocol.md). */
extern const struct proto_handler rpc_resv_handlers[];

#endif /* !DROVER_CTLD_RESV_H */
