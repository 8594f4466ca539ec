/* SPDX-License-Identifier: Apache-2.0
 *
 * scontrol_print.h - scontrol's Key=Value records for jobs, nodes and
 * partitions
 *
 * The layout is Slurm 22.05's (slurm_sprint_job_info() and friends): lines
 * start with three spaces, a record ends with a blank line, and -o puts a
 * record on one line.  Fields Drover does not model print Slurm's value for
 * "not set": MCS_label=N/A, Reboot=0, ReqNodeList=(null), Features=(null),
 * Account=(null) (no accounting yet; a record's "account" is used when the
 * controller sends one) and QOS=normal.
 */
#ifndef DROVER_CMD_LIB_SCONTROL_PRINT_H
#define DROVER_CMD_LIB_SCONTROL_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

struct scontrol_ctx {
    time_t now;           /* the controller's clock, from the response */
    bool one_liner;       /* -o */
    bool detail;          /* -d */
    uint16_t slurmd_port; /* SlurmdPort: a node's Port= shows when it differs */
};

/* One record as scontrol show prints it, ending "\n\n" ("\n" with -o).
 * Caller frees.
 */
char *scontrol_sprint_job(const json_t *job, const struct scontrol_ctx *ctx);
char *scontrol_sprint_node(const json_t *node,
                           const struct scontrol_ctx *ctx);
char *scontrol_sprint_partition(const json_t *part,
                                const struct scontrol_ctx *ctx);
/* A step_info record (docs/protocol.md): Slurm's layout of "scontrol show
 * step" (StepId=J.S ... SrunHost:Pid=...).  Caller frees. */
char *scontrol_sprint_step(const json_t *step, const struct scontrol_ctx *ctx);

#endif /* !DROVER_CMD_LIB_SCONTROL_PRINT_H */
