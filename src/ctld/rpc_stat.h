/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_stat.h - job_stat (sstat): a running job's use of its nodes now,
 * gathered from each node's step_stat (docs/protocol-messages.md)
 */
#ifndef DROVER_CTLD_RPC_STAT_H
#define DROVER_CTLD_RPC_STAT_H

#include "proto/server.h"

extern const struct proto_handler rpc_stat_handlers[];

#endif /* !DROVER_CTLD_RPC_STAT_H */
