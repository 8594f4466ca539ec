/* SPDX-License-Identifier: Apache-2.0
 *
 * job_state.h - the job states, one table for the controller and the
 * commands
 *
 * Slurm's names and compact codes (PENDING/PD ...), numbered as Slurm's
 * enum job_states for the base states (PENDING 0 ... OUT_OF_MEMORY 11),
 * then the names Slurm keeps as flags (COMPLETING ...), in the order
 * squeue's "Valid job states include" message lists them.  The
 * controller holds a job in one of the base states it uses and keeps
 * "completing" as a flag, as Slurm does; the wire carries the names.
 */
#ifndef DROVER_PROTO_JOB_STATE_H
#define DROVER_PROTO_JOB_STATE_H

#include <stdbool.h>

/* X(enum suffix, long name, compact code) */
#define JOB_STATES(X)                                                          \
    X(PENDING, "PENDING", "PD")                                                \
    X(RUNNING, "RUNNING", "R")                                                 \
    X(SUSPENDED, "SUSPENDED", "S")                                             \
    X(COMPLETED, "COMPLETED", "CD")                                            \
    X(CANCELLED, "CANCELLED", "CA")                                            \
    X(FAILED, "FAILED", "F")                                                   \
    X(TIMEOUT, "TIMEOUT", "TO")                                                \
    X(NODE_FAIL, "NODE_FAIL", "NF")                                            \
    X(PREEMPTED, "PREEMPTED", "PR")                                            \
    X(BOOT_FAIL, "BOOT_FAIL", "BF")                                            \
    X(DEADLINE, "DEADLINE", "DL")                                              \
    X(OOM, "OUT_OF_MEMORY", "OOM")                                             \
    X(COMPLETING, "COMPLETING", "CG")                                          \
    X(CONFIGURING, "CONFIGURING", "CF")                                        \
    X(RESIZING, "RESIZING", "RS")                                              \
    X(RESV_DEL_HOLD, "RESV_DEL_HOLD", "RD")                                    \
    X(REQUEUED, "REQUEUED", "RQ")                                              \
    X(REQUEUE_FED, "REQUEUE_FED", "RF")                                        \
    X(REQUEUE_HOLD, "REQUEUE_HOLD", "RH")                                      \
    X(REVOKED, "REVOKED", "RV")                                                \
    X(SIGNALING, "SIGNALING", "SI")                                            \
    X(SPECIAL_EXIT, "SPECIAL_EXIT", "SE")                                      \
    X(STAGE_OUT, "STAGE_OUT", "SO")                                            \
    X(STOPPED, "STOPPED", "ST")

enum job_state {
#define X(id, name, code) JOB_##id,
    JOB_STATES(X)
#undef X
    JOB_STATE_COUNT,
};

/* Long name ("PENDING") and compact code ("PD").  Static strings;
 * "UNKNOWN" / "?" for a value outside the table. */
const char *job_state_name(int s);
const char *job_state_code(int s);

/* The state whose long name or code is exactly 's' (the wire's spelling);
 * -1 when none. */
int job_state_parse(const char *s);

/* As job_state_parse(), case-insensitively ("pd", "Running"), as the
 * commands read -t; -1 when none or 's' is NULL. */
int job_state_lookup(const char *s);

/* All long names joined by ',' (squeue's "Valid job states include:
 * ..."). Static storage. */
const char *job_state_names_list(void);

/* True for the states a job ends in (COMPLETED ... OUT_OF_MEMORY). */
bool job_state_is_final(int s);

#endif /* !DROVER_PROTO_JOB_STATE_H */
