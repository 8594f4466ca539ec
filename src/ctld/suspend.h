/* SPDX-License-Identifier: Apache-2.0
 *
 * suspend.h - scontrol suspend/resume (suspend.c)
 */
#ifndef DROVER_CTLD_SUSPEND_H
#define DROVER_CTLD_SUSPEND_H

#include <stdbool.h>
#include <time.h>

#include "proto/server.h"

struct ctld;
struct job;

/* Suspend running 'job' (or resume suspended 'job') at 'now': the
 * job_suspended event ('preempt': by preemption, PreemptMode=SUSPEND,
 * which gives its CPUs back until it resumes), then SIGSTOP (SIGCONT) to
 * every process of the job on its nodes and the batch host's time limit
 * moved (none while suspended; the limit plus the time suspended once
 * resumed).  Returns 0, or -1 if the job was not in a state to change. */
int suspend_job(struct ctld *ctld, struct job *job, bool suspend,
                bool preempt, time_t now);

/* The same for the gang scheduler (gang.h): the job keeps its CPUs. */
int suspend_job_gang(struct ctld *ctld, struct job *job, bool suspend,
                     time_t now);

/* job_suspend: {"job_id","suspend":bool} (docs/protocol.md). */
extern const struct proto_handler rpc_suspend_handlers[];

#endif /* !DROVER_CTLD_SUSPEND_H */
