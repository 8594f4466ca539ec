/* SPDX-License-Identifier: Apache-2.0
 *
 * scontrol_resv.h - scontrol create|update|delete|show reservation
 */
#ifndef DROVER_CMD_LIB_SCONTROL_RESV_H
#define DROVER_CMD_LIB_SCONTROL_RESV_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <jansson.h>

/* Parse the Key=Value words of create or update reservation (argv[0..argc),
 * the command word excluded) into a resv_create/resv_update body (*body,
 * caller decrefs).  Returns 0, or -1 with the message Slurm's scontrol
 * prints written to stderr (after "prog: error: " where Slurm's does). */
int scontrol_resv_parse(const char *prog, int argc, char **argv, bool update,
                        time_t now, json_t **body);

/* Print a resv_info answer's reservations in Slurm's layout to 'out'
 * (one line each with 'one_liner'); "No reservations in the system" when
 * there are none. */
void scontrol_resv_print(FILE *out, const json_t *resp, bool one_liner);

#endif /* !DROVER_CMD_LIB_SCONTROL_RESV_H */
