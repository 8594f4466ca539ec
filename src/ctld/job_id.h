/* SPDX-License-Identifier: Apache-2.0
 *
 * job_id.h - the next job id, as Slurm 22.05 draws it: FirstJobId,
 * FirstJobId + 1, ... up to MaxJobId, then FirstJobId again, skipping
 * the ids of jobs the controller still holds
 *
 * Pure: the caller keeps the sequence (ctld->next_job_id) and says which
 * ids are in use.  The sequence reaching MaxJobId wraps before it is
 * given, so MaxJobId itself is never a job's id (Slurm's
 * get_next_job_id()).
 */
#ifndef DROVER_CTLD_JOB_ID_H
#define DROVER_CTLD_JOB_ID_H

#include <stdbool.h>
#include <stdint.h>

/* True when 'id' belongs to a job the controller holds. */
typedef bool (*job_id_used_f)(uint32_t id, void *arg);

/* The id a new job gets when the sequence stands at 'next' (below
 * 'first' counts as 'first'; at or above 'max' wraps to 'first'), ids
 * for which 'used' says true skipped.  Returns it (the sequence goes on
 * from it + 1), or 0 when every id from 'first' to 'max' - 1 is in use
 * (or first >= max). */
uint32_t job_id_next(uint32_t next, uint32_t first, uint32_t max,
                     job_id_used_f used, void *arg);

#endif /* !DROVER_CTLD_JOB_ID_H */
