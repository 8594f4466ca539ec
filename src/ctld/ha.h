/* SPDX-License-Identifier: Apache-2.0
 *
 * ha.h - controllers that replicate the event log through Raft (issue 15)
 *
 * With two or more SlurmctldHost= lines the controllers form a Raft group
 * (canonical's libraft, on the controller's libuv loop).  The records
 * ctld_apply() makes (event.h) are the Raft log: the leader applies each
 * event at once, as a single controller does, and proposes the records of
 * a loop turn as one entry; the answers waiting on them (ctld.h's acks)
 * leave when a majority holds the entry durably.  Followers apply
 * committed entries through the same replay path a restart uses
 * (ctld_replay_record()), so each keeps the whole state and can take over
 * at once.  A leader that loses its leadership starts again from the
 * replicated log (it re-executes itself: its tables may hold events that
 * were never committed).
 *
 * Raft ids are 1..N in SlurmctldHost order; each controller talks Raft on
 * its SlurmctldHost address at SlurmctldParameters=drover_raft_port, and
 * keeps its Raft log under StateSaveLocation/<its name>/raft.
 */
#ifndef DROVER_CTLD_HA_H
#define DROVER_CTLD_HA_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "common/error.h"
#include "conf/conf.h"

struct ctld;
struct ha;

/* Is 'conf' a Raft group: two or more SlurmctldHost lines? */
bool ha_configured(const struct slurm_conf *conf);

/* This controller's index among the SlurmctldHost lines (0 = the first):
 * the line named 'name' (droverctld -N NAME), else the one whose name is
 * this host's name (as Slurm's slurmctld finds itself).  -1 with 'error'
 * set when none (or, without -N, more than one) matches. */
long ha_self_index(const struct slurm_conf *conf, const char *name,
                   drv_error_t *error);

/* Make the Raft member 'self' for 'ctld', its log under 'dir' (created
 * 0700), and start it: the snapshot and log on disk are loaded into the
 * controller's tables (through state.h and ctld_replay_record()); the
 * first start of a group bootstraps its configuration (every
 * SlurmctldHost).  Argument vector 'argv' is kept to re-execute.  Returns
 * the member, or NULL with 'error' set. */
struct ha *ha_start(struct ctld *ctld, long self, const char *dir,
                    char **argv, drv_error_t *error);

/* Does this controller lead, with every earlier entry applied (it may
 * then change state and answer requests)?  False while it follows, stands
 * for election, or has just been elected and catches up, and as soon as
 * libraft steps it down (as Raft's check-quorum: no majority heard within
 * an election timeout), before it re-executes. */
bool ha_leading(const struct ha *ha);

/* "leader", "follower", "candidate" or "unavailable", and the Raft term. */
const char *ha_role(const struct ha *ha);
uint64_t ha_term(const struct ha *ha);

/* Queue record 'rec' (a reference is taken) for this turn's entry. */
void ha_append(struct ha *ha, json_t *rec);

/* Propose this turn's records as one entry; 'acks' (the controller's
 * waiting answers, ctld.c) are answered through ctld_answer_acks() once
 * it (and every entry before it) is committed, or with an error if it
 * cannot be.  With no records, 'acks' wait for the last entry in flight,
 * or are answered now. */
void ha_flush(struct ha *ha, void *acks);

/* Hand leadership to controller 'to' (1-based Raft id; 0: the most up to
 * date other one), as `scontrol takeover` asks; 'to' being this
 * controller is done already.  0, or -1 with 'error'. */
int ha_transfer(struct ha *ha, unsigned to, drv_error_t *error);

/* Stop Raft (the loop must run afterwards to close its handles). */
void ha_stop(struct ha *ha);

/* Free what ha_stop() left, after the loop ran. */
void ha_destroy(struct ha *ha);

#endif /* !DROVER_CTLD_HA_H */
