/* SPDX-License-Identifier: Apache-2.0
 *
 * suspend.h - scontrol suspend/resume (suspend.c)
 */
#ifndef DROVER_CTLD_SUSPEND_H
#define DROVER_CTLD_SUSPEND_H

#include "proto/server.h"

/* job_suspend: {"job_id","suspend":bool} (docs/protocol.md). */
extern const struct proto_handler rpc_suspend_handlers[];

#endif /* !DROVER_CTLD_SUSPEND_H */
