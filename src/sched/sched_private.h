/* SPDX-License-Identifier: Apache-2.0
 *
 * sched_private.h - declarations shared by select.c and pass.c only
 */
#ifndef DROVER_SCHED_SCHED_PRIVATE_H
#define DROVER_SCHED_SCHED_PRIVATE_H

#include "sched/sched.h"

/* sched_select() without the SCHED_NEVER classification: SCHED_OK with
 * *alloc_out set, SCHED_BUSY, or -1 with errno EINVAL/ENOMEM.  The pass
 * calls it on projected node usage, where "never" has no meaning.
 */
int sched__select_now(const struct sched_node *nodes,
                      size_t n,
                      const struct sched_request *req,
                      struct sched_alloc **alloc_out);

/* True if every node index of 'a' is < n and every GPU bitmap has the
 * node's GPU count as its size.
 */
bool sched__alloc_valid(const struct sched_node *nodes,
                        size_t n,
                        const struct sched_alloc *a);

#endif /* !DROVER_SCHED_SCHED_PRIVATE_H */
