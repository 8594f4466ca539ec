/* SPDX-License-Identifier: Apache-2.0
 *
 * sacct_json.h - sacct --json (Slurm's v0.0.38 accounting job shape)
 */
#ifndef DROVER_CMD_LIB_SACCT_JSON_H
#define DROVER_CMD_LIB_SACCT_JSON_H

#include <stdio.h>

#include <jansson.h>

#include "cmd/lib/sacct_print.h"

/* One accounting job record (borrowed) in v0.0.38's shape, with its steps.
 * New reference.
 */
json_t *sacct_json_job(const json_t *job, const struct sacct_ctx *ctx);

/* {"meta":...,"errors":[],"jobs":[...]} for the array 'jobs' (borrowed),
 * printed as Slurm prints JSON.
 */
void sacct_json_print(FILE *out, const json_t *jobs,
                      const struct sacct_ctx *ctx);

#endif /* !DROVER_CMD_LIB_SACCT_JSON_H */
