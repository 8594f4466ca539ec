/* SPDX-License-Identifier: Apache-2.0
 *
 * job_id.c - the next job id between FirstJobId and MaxJobId (job_id.h)
 */
#include "ctld/job_id.h"

uint32_t job_id_next(uint32_t next, uint32_t first, uint32_t max,
                     job_id_used_f used, void *arg)
{
    uint32_t id;

    if (first == 0) /* FirstJobId=0: Slurm's ids start at 1 */
        first = 1;
    if (first >= max)
        return 0;
    id = next < first ? first : next;
    for (uint32_t tries = max - first; tries > 0; tries--, id++) {
        if (id >= max)
            id = first;
        if (!used || !used(id, arg))
            return id;
    }
    return 0;
}
