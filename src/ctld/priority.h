/* SPDX-License-Identifier: Apache-2.0
 *
 * priority.h - job priorities and fair-share usage in the controller
 * (PriorityType=priority/basic or priority/multifactor)
 *
 * The formulas are src/sched's (priority.h, fairshare.h); this module
 * feeds them: the association tree and QOS/association priorities from
 * the accounting tables (enforce.h), and the usage each association's jobs
 * ran, kept here.  Usage is CPU-seconds times the QOS's UsageFactor, like
 * Slurm's RawUsage with the default billing.  It grows when a job leaves
 * its nodes (the time since the last calculation) and at each
 * calculation, which first decays every usage by PriorityDecayHalfLife,
 * then charges the running jobs, then computes the priority of every
 * pending job again (and of running ones with CALCULATE_RUNNING).
 *
 * A calculation is an event (CTLD_EV_PRIORITY_CALC, every
 * PriorityCalcPeriod and soon after the accounting tables change), so the
 * usage is part of the deterministic log: the snapshot holds it and replay
 * rebuilds it.  A replayed calculation reads the accounting tables the
 * controller holds then (shares, QOS UsageFactor and Priority).
 */
#ifndef DROVER_CTLD_PRIORITY_H
#define DROVER_CTLD_PRIORITY_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <jansson.h>

#include "proto/server.h"
#include "sched/priority.h"

struct ctld;
struct job;

/* Set up from ctld->conf and ctld->nodes (before the state is restored;
 * no loop needed).  Never fails. */
void priority_init(struct ctld *ctld);

/* The partitions changed (part.h): the largest PriorityJobFactor, which
 * normalizes the partition factor, again.  Jobs' priorities follow at the
 * next calculation, as Slurm's. */
void priority_parts_changed(struct ctld *ctld);

/* After the restore: start the calculation timer (multifactor only), and
 * clear the usage with PriorityUsageResetPeriod=NOW. */
void priority_start(struct ctld *ctld);

/* Free everything, after the loop's handles were closed.  NULL-safe. */
void priority_fini(struct ctld *ctld);

/* The priority 'job' gets at 'now' when not held: priority/basic's
 * submission order (ctld_job_base_priority()), or the multifactor sum.
 * At least 1. */
uint32_t priority_of(struct ctld *ctld, const struct job *job, time_t now);

/* The priority class of pending 'job' for the default backfill's
 * candidates (src/sched/backfill.h): its partition's PriorityTier above
 * all, then its priority without what stands for its age.  Under
 * priority/basic, whose priority is submission order (100000000 - id -
 * nice), that is 100000000 - nice, or what an operator set (scontrol
 * update Priority=, top) plus the id; under multifactor the whole
 * priority (the age factor is one term of many: candidates keep priority
 * order, shortest first among equals). */
uint64_t priority_class(struct ctld *ctld, const struct job *job);

/* The multifactor factors of 'job' at 'now' (sprio). */
void priority_factors(struct ctld *ctld, const struct job *job, time_t now,
                      struct prio_factors *out);

/* The time the stored priorities were computed at: the last calculation,
 * or 'submit' when later (a job queued since then). */
time_t priority_time(const struct ctld *ctld, time_t submit);

/* event.c: 'job' leaves its nodes at 't' (it ended or was requeued): its
 * association is charged for the time since it started or since the last
 * calculation. */
void priority_job_leaves(struct ctld *ctld, const struct job *job, time_t t);

/* event.c: apply a calculation at 't' ('reset': the usage is cleared
 * first, PriorityUsageResetPeriod). */
void priority_calc_apply(struct ctld *ctld, time_t t, bool reset);

/* A calculation soon (the accounting tables changed).  No-op under
 * priority/basic. */
void priority_calc_soon(struct ctld *ctld);

/* The Priority* keywords of ctld->conf taken again (after a reconfigure)
 * and the priorities recalculated soon. */
void priority_reconfigure(struct ctld *ctld);

/* The usage for the snapshot: {"last_calc":T,"usage":[{"account","user",
 * "raw"}]}; new reference.  priority_restore() reads it back (NULL or a
 * malformed entry is skipped). */
json_t *priority_snapshot(const struct ctld *ctld);
void priority_restore(struct ctld *ctld, json_t *o);

/* priority_info (sprio) and share_info (sshare): docs/protocol.md. */
extern const struct proto_handler rpc_priority_handlers[];

/* rpc_assoc_mgr.c: assoc_mgr_info (scontrol show assoc_mgr). */
extern const struct proto_handler rpc_assoc_mgr_handlers[];

#endif /* !DROVER_CTLD_PRIORITY_H */
