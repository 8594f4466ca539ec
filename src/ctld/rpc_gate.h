/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_gate.h - what every request to the controller passes before its
 * handler (proto_server_set_gate): a Raft follower's standby answer and
 * the per-user RPC rate limit (rate_limit.h)
 */
#ifndef DROVER_CTLD_RPC_GATE_H
#define DROVER_CTLD_RPC_GATE_H

#include "common/error.h"

struct ctld;

/* Install the gate on ctld->server when it has something to do: in a
 * Raft group (ctld->ha), a follower answers every type but ping with
 * EDRV_IN_STANDBY_MODE; with SlurmctldParameters=rl_enable, a request of
 * a user other than root and SlurmUser that finds the user's bucket empty
 * is answered EDRV_CTLD_COMMUNICATIONS_BACKOFF (Slurm's
 * SLURMCTLD_COMMUNICATIONS_BACKOFF, 1804) and logged as Slurm's
 * slurmctld logs it ("RPC rate limit exceeded by uid N with 'TYPE',
 * telling it to back off", at most rl_log_freq times per user and refill
 * period).  Returns 0, or -1 with errno ENOMEM and 'error' set. */
int rpc_gate_install(struct ctld *ctld, drv_error_t *error);

/* Free what rpc_gate_install made (after the server is destroyed). */
void rpc_gate_fini(struct ctld *ctld);

#endif /* !DROVER_CTLD_RPC_GATE_H */
