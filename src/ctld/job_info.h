/* SPDX-License-Identifier: Apache-2.0
 *
 * job_info.h - the job object commands see (docs/protocol.md)
 */
#ifndef DROVER_CTLD_JOB_INFO_H
#define DROVER_CTLD_JOB_INFO_H

#include <time.h>
#include <jansson.h>

struct ctld;
struct job;

/* The job record plus what commands derive from it: node_count, num_cpus,
 * batch_host, exit_code ("0:0"), TRES strings, expanded std_out/err/in,
 * the allocation with CPU ids.  New reference.
 */
json_t *job_info_json(struct ctld *ctld, const struct job *job, time_t now);

#endif /* !DROVER_CTLD_JOB_INFO_H */
