/* SPDX-License-Identifier: Apache-2.0
 *
 * sdiag_print.h - sdiag's report from the controller's stats_info answer
 *
 * The text is Slurm 22.05's, line for line (monitoring scripts and
 * exporters parse it): the header, the daemon and job counters, the main
 * schedule and backfill sections, gettimeofday()'s latency and the RPC
 * tables by message type and by user, with Drover's message types shown
 * under the names and numbers of the Slurm RPCs they stand for.
 */
#ifndef DROVER_CMD_LIB_SDIAG_PRINT_H
#define DROVER_CMD_LIB_SDIAG_PRINT_H

#include <stdio.h>
#include <jansson.h>

/* Order of the RPC tables: by count (Slurm's default), by id (-i), by
 * total time (-t) or by average time (-T), the highest first except by
 * id. */
enum sdiag_sort { SDIAG_BY_COUNT, SDIAG_BY_ID, SDIAG_BY_TIME, SDIAG_BY_AVE };

/* Slurm's name and number of the RPC Drover's message type 'type' stands
 * for ("job_submit" -> "REQUEST_SUBMIT_BATCH_JOB", 4003); a type Slurm
 * has no RPC for keeps its own name, number 0. */
const char *sdiag_rpc_name(const char *type, unsigned *number);

/* Print the report of 'stats' (a stats_info answer) to 'out'. */
void sdiag_print(FILE *out, json_t *stats, enum sdiag_sort sort);

#endif /* !DROVER_CMD_LIB_SDIAG_PRINT_H */
