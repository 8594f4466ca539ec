/* SPDX-License-Identifier: Apache-2.0
 *
 * node_epilog.h - a node stays COMPLETING while a finished job's Epilog=
 * runs there
 *
 * As Slurm's: when a job ends, each of its nodes runs slurm.conf Epilog=
 * (noded/prolog.h), and no other job starts on a node until its droverd
 * reports that Epilog over (success or failure: a failure also drains
 * the node, node_health.c).  The node shows COMPLETING meanwhile
 * (`sinfo` "comp", `scontrol show node` "IDLE+COMPLETING").  droverd
 * reports in its registrations ("epilog_done", sent at once when an
 * Epilog ends); a report that never comes (the end-of-job message lost
 * to an unreachable node) is given up after PrologEpilogTimeout (60 s
 * when 0) plus twice MessageTimeout, with a log line.  Without Epilog=
 * nothing waits.  The wait is the leader's own state: not journaled (a
 * controller that restarts, or a new Raft leader, waits for nothing).
 */
#ifndef DROVER_CTLD_NODE_EPILOG_H
#define DROVER_CTLD_NODE_EPILOG_H

#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "ctld/ctld.h"

/* Job 'job_id' ended on node 'node': wait for its Epilog there (no-op
 * without Epilog=). */
void node_epilog_wait(struct ctld *ctld, long node, uint32_t job_id);

/* Node 'node''s registration 'body': the jobs of its "epilog_done" no
 * longer hold it. */
void node_epilog_reported(struct ctld *ctld, long node, json_t *body);

/* Give up the waits older than their deadline (periodic). */
void node_epilog_check(struct ctld *ctld, time_t now);

#endif /* !DROVER_CTLD_NODE_EPILOG_H */
