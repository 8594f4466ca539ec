/* SPDX-License-Identifier: Apache-2.0
 *
 * json_out.h - --json output of squeue, sinfo and scontrol show
 *
 * The shapes of Slurm 22.05's data_parser v0.0.38 (what slurmrestd's
 * /slurm/v0.0.38/jobs, /nodes and /partitions answer, and what
 * `squeue --json` prints): {"meta":{...},"errors":[],"jobs":[...]}.
 * Field names and types are Slurm's; fields Drover does not model carry
 * Slurm's value for "not set".  docs/json.md lists them.
 */
#ifndef DROVER_CMD_LIB_JSON_OUT_H
#define DROVER_CMD_LIB_JSON_OUT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* One job record of docs/protocol.md in v0.0.38's shape.  New reference. */
json_t *json_out_job(const json_t *job);

/* One node record in v0.0.38's shape.  New reference. */
json_t *json_out_node(const json_t *node);

/* One partition record in v0.0.38's shape.  New reference. */
json_t *json_out_partition(const json_t *part);

/* One reservation record (resv_info) in v0.0.38's shape: scontrol --json
 * show reservation, /slurm/v0.0.38/reservations.  New reference. */
json_t *json_out_reservation(const json_t *resv);

/* A new document {"meta":{plugin, Slurm version},"errors":[]}. */
json_t *json_out_doc(void);

/* Add key:[convert(records[i])...] to 'doc'.  'records' are borrowed. */
void json_out_add(json_t *doc, const char *key, const json_t **records,
                  size_t n, json_t *(*convert)(const json_t *));

/* Print 'doc' to 'out' with two-space indentation and "\/" for '/', as
 * Slurm does, and drop the reference.
 */
void json_out_dump(FILE *out, json_t *doc);

/* The text json_out_dump() prints (without the final newline): jansson's
 * two-space layout with "\/", and an empty array as "[", a newline and
 * "]" under its line's indent, as Slurm's JSON writer does.  Caller
 * frees; NULL on ENOMEM. */
char *json_out_text(const json_t *doc);

/* ClusterName, shown as a job's "cluster" (default ""); 'name' is
 * borrowed and must outlive the printing. */
void json_out_set_cluster(const char *name);

/* json_out_doc(), json_out_add() of one array, json_out_dump(). */
void json_out_print(FILE *out, const char *key, const json_t **records,
                    size_t n, json_t *(*convert)(const json_t *));

#endif /* !DROVER_CMD_LIB_JSON_OUT_H */
