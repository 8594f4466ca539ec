/* SPDX-License-Identifier: Apache-2.0
 *
 * states.h - job and node state names as the commands print them
 *
 * Job states: the table the controller uses too (proto/job_state.h):
 * Slurm's long names and compact codes (PENDING/PD ...), in the order
 * squeue lists them in its "Valid job states" message.  Node states:
 * sinfo's compact (%t: idle mix alloc drain drng down unk, '*' when not
 * responding) and long (%T) names, and the numeric order sinfo sorts by.
 */
#ifndef DROVER_CMD_LIB_STATES_H
#define DROVER_CMD_LIB_STATES_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "proto/job_state.h"

/* Index into the job state table (enum job_state); -1 when unknown. */
typedef int job_state_t;

/* Number of entries in the table. */
int job_state_count(void);

/* The state a job record shows: its "job_state", or COMPLETING while
 * "completing" is true (the controller keeps that as a flag, as Slurm does).
 */
job_state_t job_state_of(const json_t *job);

/* The job's base state, ignoring the completing flag. */
job_state_t job_base_state_of(const json_t *job);

bool job_state_is_pending(job_state_t s);
bool job_state_is_running(job_state_t s);
bool job_state_is_completing(job_state_t s);
/* True for states squeue lists by default: PD R S CG CF SE. */
bool job_state_is_active(job_state_t s);

job_state_t job_state_pending(void);
job_state_t job_state_running(void);
job_state_t job_state_completing(void);

/* Node state, as read from a node record. */
struct node_state {
    int base;           /* NODE_BASE_* */
    bool maint;         /* in an active MAINT reservation */
    bool reserved;      /* in another active reservation */
    bool drain;
    bool not_responding;
    bool planned;       /* idle but reserved by the backfill plan */
    bool completing;    /* an ended job's Epilog= still runs there */
};

enum {
    NODE_BASE_UNKNOWN = 0,
    NODE_BASE_DOWN = 1,
    NODE_BASE_IDLE = 2,
    NODE_BASE_ALLOCATED = 3,
    NODE_BASE_MIXED = 5,
    NODE_BASE_FUTURE = 6,
};

/* Read "state", "drain", "not_responding" and "planned" of a node record. */
struct node_state node_state_of(const json_t *node);

/* sinfo %t ("mix", "drng", "idle*").  Static string. */
const char *node_state_compact(struct node_state st);

/* sinfo %T ("mixed", "draining").  Static string. */
const char *node_state_long(struct node_state st);

/* scontrol's "IDLE+DRAIN".  Caller frees. */
char *node_state_complete(struct node_state st);

/* sinfo's sort key: Slurm's node_state number with its DRAIN and
 * NO_RESPOND flag bits; sinfo sorts partition rows by it, descending.
 */
uint32_t node_state_sort_key(struct node_state st);

/* Match a sinfo -t name ("idle", "drain", "drained", "mix", "down"...)
 * against a node state.  *known is set false for a name sinfo does not know.
 */
bool node_state_matches(const char *name, struct node_state st, bool *known);

#endif /* !DROVER_CMD_LIB_STATES_H */
