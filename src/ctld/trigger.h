/* SPDX-License-Identifier: Apache-2.0
 *
 * trigger.h - event triggers (Slurm's strigger): a program run by the
 * controller when a node goes DOWN, becomes DRAINED, returns to service
 * (UP) or stays IDLE for OFFSET seconds, when the configuration is read
 * again (RECONFIG: an accepted `scontrol reconfigure`), or when a job
 * finishes (FINI) or reaches its time limit plus OFFSET (TIME; a negative
 * OFFSET precedes it).
 *
 * Triggers are controller state like the reservations: the trigger_set,
 * trigger_cleared and trigger_fired events (event.h) and the snapshot's
 * "triggers".  Every PERIODIC_MS (2 s; Slurm checks every 15 s) the
 * acting controller compares each node's state with the last check's
 * (kept in memory only, from the start or takeover on: trigger_watch(),
 * and from the first trigger on: with none, the nodes are not scanned)
 * and each job trigger's job with the clock; a trigger whose event
 * happened fires: a trigger_fired event, then (on this controller only,
 * never on replay) its program runs as the user who set it, with one
 * argument, the hostlist of the nodes concerned or the job id, an empty
 * environment, stdin/stdout/stderr on /dev/null, never waited for
 * (prog_run.h); a RECONFIG trigger's argument is the word "reconfig", as
 * slurmctld passes it.  A fired trigger is removed unless it has the PERM
 * flag (then it fires at the next such event; a PERM idle trigger at
 * most once every TRIGGER_REFIRE_S while its nodes stay idle).  A job
 * trigger whose job ended (TIME) or was forgotten (TIME; FINI fires)
 * without it firing is cleared.
 *
 * A record is {"id","type","nodes" (node triggers: a hostlist; absent:
 * every node),"job_id" (job triggers),"offset","uid","gid","user",
 * "perm","program","fired_at" (PERM: its last firing; absent: never)}.
 */
#ifndef DROVER_CTLD_TRIGGER_H
#define DROVER_CTLD_TRIGGER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <jansson.h>

#include "common/bitmap.h"
#include "ctld/event.h"
#include "proto/server.h"

struct ctld;

#define TRIGGER_REFIRE_S 15   /* a PERM idle trigger's least interval */
#define TRIGGER_MAX_CHILDREN 32 /* trigger programs running at once */

/* The events, by Slurm's names ("down", "drained", "up", "idle", "fini",
 * "time", "reconfig"). */
enum trigger_type {
    TRIGGER_DOWN,
    TRIGGER_DRAINED,
    TRIGGER_UP,
    TRIGGER_IDLE,
    TRIGGER_FINI,
    TRIGGER_TIME,
    TRIGGER_RECONFIG,
    TRIGGER_TYPE_COUNT,
};

struct trigger {
    uint32_t id;
    enum trigger_type type;
    char *nodes_expr;   /* node triggers: their hostlist; NULL: all */
    bitmap_t *nodes;    /* the same as node table indexes; NULL: all */
    uint32_t job_id;    /* job triggers */
    int32_t offset;     /* seconds */
    uid_t uid;          /* who set it; its program runs as uid/gid */
    gid_t gid;
    char *user;         /* uid's name */
    bool perm;          /* --flags=PERM */
    char *program;      /* absolute path */
    time_t fired_at;    /* PERM: its last firing, epoch s; 0: never */
    struct trigger *next; /* by id */
};

/* The type of Slurm's name 'name' ("down"...), or -1. */
int trigger_type_parse(const char *name);

/* The name of 'type' ("down"); NULL when out of range. */
const char *trigger_type_name(enum trigger_type type);

/* Is 'type' about a job (FINI, TIME) rather than nodes? */
bool trigger_type_is_job(enum trigger_type type);

/* The triggers, by id (borrowed; NULL when none). */
struct trigger *trigger_list(struct ctld *ctld);

/* The id the next trigger_set takes (above every one so far). */
uint32_t trigger_next_id(struct ctld *ctld);

/* The record of 't' (the header's keys).  New reference. */
json_t *trigger_to_json(const struct trigger *t);

/* Apply a trigger_set, trigger_cleared or trigger_fired event ('type',
 * at 't', its record 'rec', borrowed; event.c).  Returns 0, or -1 when it
 * does not apply (a bad record, an id in use, no such trigger). */
int trigger_apply(struct ctld *ctld, enum ctld_event_type type, time_t t,
                  json_t *rec);

/* This controller starts acting (a start, a Raft takeover): the nodes'
 * states now are the baseline the next trigger_check() compares with
 * (what changed before is not an event), idle ones idle since 'now'. */
void trigger_watch(struct ctld *ctld, time_t now);

/* The configuration was read again (a reconfigure accepted): the next
 * trigger_check() fires the RECONFIG triggers.  Kept in memory only, as
 * slurmctld keeps its event flag: a restart before that check loses it. */
void trigger_reconfigured(struct ctld *ctld);

/* Periodic, on the acting controller only: fire the triggers whose event
 * happened by 'now' (the header), clear job triggers that can no longer
 * fire. */
void trigger_check(struct ctld *ctld, time_t now);

/* The snapshot's {"next_id","list":[records]}, and its restore (NULL:
 * none).  New reference. */
json_t *trigger_snapshot(struct ctld *ctld);
void trigger_restore(struct ctld *ctld, json_t *snap);

/* Free the triggers and the runner; after the loop closed its handles
 * (programs still running are left to finish).  NULL-safe state. */
void trigger_fini(struct ctld *ctld);

/* trigger_set, trigger_info, trigger_clear (rpc_trigger.c). */
extern const struct proto_handler rpc_trigger_handlers[];

#endif /* !DROVER_CTLD_TRIGGER_H */
