/* SPDX-License-Identifier: Apache-2.0
 *
 * submit_retry.c - sending job_submit as sbatch, salloc and srun do
 * (submit_retry.h)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/lib/rpc.h"
#include "cmd/lib/submit_retry.h"

/* The line Slurm's command prints before waiting, or NULL when 'errnum'
 * is not worth another try. */
static const char *retry_text(const char *prog, int errnum)
{
    bool sbatch = !strcmp(prog, "sbatch");

    if (errnum == EDRV_ERROR_ON_DESC_TO_RECORD_COPY)
        return sbatch ? "Slurm job queue full, sleeping and retrying"
                      : "Slurm job queue full, sleeping and retrying.";
    if (errnum == EAGAIN)
        return sbatch ? "Slurm temporarily unable to accept job, sleeping "
                        "and retrying"
                      : "Slurm job queue full, sleeping and retrying.";
    return NULL;
}

int submit_with_retries(const char *prog, json_t *body, json_t **resp,
                        drv_error_t *error)
{
    const char *text;
    int rc;

    for (unsigned retries = 0;; retries++) {
        rc = cmd_rpc(prog, "job_submit", json_incref(body), resp, error);
        if (rc == 0 || !(text = retry_text(prog, errno))
            || retries >= SUBMIT_MAX_RETRIES)
            return rc;
        if (retries == 0)
            fprintf(stderr, "%s: error: %s\n", prog, text);
        sleep(retries + 1);
    }
}
