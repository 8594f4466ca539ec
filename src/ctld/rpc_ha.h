/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_ha.h - takeover (scontrol takeover): leadership of the controllers'
 * Raft group to another one (docs/protocol-messages.md)
 */
#ifndef DROVER_CTLD_RPC_HA_H
#define DROVER_CTLD_RPC_HA_H

#include "proto/server.h"

extern const struct proto_handler rpc_ha_handlers[];

#endif /* !DROVER_CTLD_RPC_HA_H */
