/* SPDX-License-Identifier: Apache-2.0
 *
 * assoc_mgr_print.h - scontrol show assoc_mgr: the request from its
 * words and the answer in Slurm 22.05's layout
 */
#ifndef DROVER_CMD_LIB_ASSOC_MGR_PRINT_H
#define DROVER_CMD_LIB_ASSOC_MGR_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include <jansson.h>

/* What the request asks for (Slurm's ASSOC_MGR_INFO_FLAG_*). */
enum assoc_mgr_flags {
    ASSOC_MGR_ASSOC = 1,
    ASSOC_MGR_USERS = 2,
    ASSOC_MGR_QOS = 4,
};

/* The words after "show assoc_mgr" (argv[0..argc)): users=, accounts=,
 * qos= (comma lists; each word abbreviated to one letter or more) and
 * flags= (any of users, assoc, qos in the value).  On success *body is
 * a new assoc_mgr_info body (caller decrefs) and *flags what it asks
 * for (all three when flags= is not given); returns 0.  Returns -1 with
 * Slurm's message on 'err' ("No value given for option users", "invalid
 * flag ...", "invalid entity: x for keyword:show assoc_mgr"; the last
 * only when !quiet) and *body NULL. */
int assoc_mgr_parse(int argc, char **argv, bool quiet, FILE *err,
                    json_t **body, unsigned *flags);

/* Print an assoc_mgr_info answer to 'out': "Current Association Manager
 * state", then the User, Association and QOS records, each section's
 * "No ... currently cached in Slurm." when it is empty but asked for
 * ('flags'); 'one_liner': each record on one line (scontrol -o). */
void assoc_mgr_print(FILE *out, const json_t *resp, unsigned flags,
                     bool one_liner);

#endif /* !DROVER_CMD_LIB_ASSOC_MGR_PRINT_H */
