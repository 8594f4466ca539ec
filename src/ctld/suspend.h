/* SPDX-License-Identifier: Apache-2.0
 *
 * suspend.h - scontrol suspend/resume (suspend.c)
 */
#ifndef DROVER_CTLD_SUSPEND_H
#define DROVER_CTLD_SUSPEND_H

#include "proto/server.h"

struct ctld;
struct job;

/* Have every node of 'job' send 'signo' to all of the job's processes
 * there (its batch script and every step: job_signal with "all"). */
void suspend_signal_nodes(struct ctld *ctld, const struct job *job,
                          int signo);

/* job_suspend: {"job_id","suspend":bool} (docs/protocol.md). */
extern const struct proto_handler rpc_suspend_handlers[];

#endif /* !DROVER_CTLD_SUSPEND_H */
