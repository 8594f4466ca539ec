/* SPDX-License-Identifier: Apache-2.0
 *
 * submit_retry.h - sending job_submit as sbatch, salloc and srun do
 */
#ifndef DROVER_CMD_LIB_SUBMIT_RETRY_H
#define DROVER_CMD_LIB_SUBMIT_RETRY_H

#include <jansson.h>

#include "common/error.h"

/* How many times a refused submission is sent again (Slurm's
 * MAX_RETRIES in sbatch). */
#define SUBMIT_MAX_RETRIES 15

/* cmd_rpc("job_submit") with Slurm's retries: while the controller answers
 * that its job table is full (MaxJobCount: EDRV_ERROR_ON_DESC_TO_RECORD_COPY,
 * "Slurm job queue full, sleeping and retrying") or that it cannot take
 * the job now (EAGAIN, "Slurm temporarily unable to accept job, sleeping
 * and retrying"), print that line once as "PROG: error: TEXT" (sbatch's
 * text has no final period, salloc's and srun's have one, as in Slurm
 * 22.05), then sleep 1 s, 2 s, ... and send again, SUBMIT_MAX_RETRIES
 * times at most.  'body' is borrowed.  Returns what cmd_rpc() returns for
 * the last try (0 with *resp, or -1 with errno and 'error'). */
int submit_with_retries(const char *prog, json_t *body, json_t **resp,
                        drv_error_t *error);

#endif /* !DROVER_CMD_LIB_SUBMIT_RETRY_H */
