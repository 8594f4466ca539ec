/* SPDX-License-Identifier: Apache-2.0
 *
 * preempt.c - which running jobs a pending job preempts (sched.h:
 * sched_preempt_choose()), and what a job suspended for it gives back
 */
#include <errno.h>
#include <stdlib.h>

#include "sched/sched.h"
#include "sched/sched_private.h"

/* Does 'req' fit on 'c' now?  1 yes, 0 no, -1 error. */
static int fits(const struct sched_node *c, size_t n,
                const struct sched_request *req)
{
    struct sched_alloc *a = NULL;
    int rc = sched_select(c, n, req, &a);

    sched_alloc_destroy(a);
    return rc < 0 ? -1 : rc == SCHED_OK;
}

int sched_alloc_suspend(struct sched_node *nodes, size_t n,
                        const struct sched_alloc *a)
{
    if (!sched__alloc_valid(nodes, n, a)) {
        errno = EINVAL;
        return -1;
    }
    for (uint32_t i = 0; i < a->node_count; i++) {
        struct sched_node *nd = &nodes[a->node_idx[i]];
        nd->alloc_cpus -= nd->alloc_cpus < a->cpus[i] ? nd->alloc_cpus
                                                      : a->cpus[i];
        if (a->exclusive)
            nd->exclusive_alloc = false;
    }
    return 0;
}

int sched_alloc_resume(struct sched_node *nodes, size_t n,
                       const struct sched_alloc *a)
{
    if (!sched__alloc_valid(nodes, n, a)) {
        errno = EINVAL;
        return -1;
    }
    for (uint32_t i = 0; i < a->node_count; i++) {
        nodes[a->node_idx[i]].alloc_cpus += a->cpus[i];
        if (a->exclusive)
            nodes[a->node_idx[i]].exclusive_alloc = true;
    }
    return 0;
}

bool sched_alloc_resume_fits(const struct sched_node *nodes, size_t n,
                             const struct sched_alloc *a)
{
    if (!sched__alloc_valid(nodes, n, a))
        return false;
    for (uint32_t i = 0; i < a->node_count; i++) {
        const struct sched_node *nd = &nodes[a->node_idx[i]];
        if (nd->exclusive_alloc || nd->alloc_cpus > nd->cpus
            || nd->cpus - nd->alloc_cpus < a->cpus[i]
            || (a->exclusive && nd->alloc_cpus))
            return false;
    }
    return true;
}

/* Candidate k gone from 'c' (released, or only its CPUs if suspended). */
static int take(struct sched_node *c, size_t n, const struct sched_alloc *a,
                bool suspend)
{
    return suspend ? sched_alloc_suspend(c, n, a)
                   : sched_alloc_release(c, n, a);
}

/* Candidate k back in 'c'. */
static void put_back(struct sched_node *c, size_t n,
                     const struct sched_alloc *a, bool suspend)
{
    if (suspend)
        sched_alloc_resume(c, n, a);
    else
        sched_alloc_apply(c, n, a);
}

int sched_preempt_choose(const struct sched_node *nodes, size_t n,
                         const struct sched_request *req,
                         const struct sched_alloc *const *freeing,
                         size_t nfreeing,
                         const struct sched_alloc *const *cand, size_t ncand,
                         const bool *suspend, size_t *chosen,
                         size_t *nchosen)
{
    struct sched_node *c = sched_nodes_copy(nodes, n);
    int rc = SCHED_BUSY, f;

    *nchosen = 0;
    if (!c)
        return -1;
    for (size_t i = 0; i < nfreeing; i++)
        sched_alloc_release(c, n, freeing[i]);
    if ((f = fits(c, n, req)) != 0) {
        sched_nodes_free(c, n);
        return f < 0 ? -1 : SCHED_OK;
    }
    for (size_t k = 0; k < ncand && rc == SCHED_BUSY; k++) {
        if (take(c, n, cand[k], suspend && suspend[k]) < 0)
            continue;
        chosen[(*nchosen)++] = k;
        if ((f = fits(c, n, req)) < 0)
            rc = -1;
        else if (f)
            rc = SCHED_OK;
    }
    /* Spare those it did not need: each earlier choice taken back, if the
     * job still fits without releasing it. */
    for (size_t j = *nchosen; rc == SCHED_OK && j-- > 1;) {
        size_t k = chosen[j - 1];
        put_back(c, n, cand[k], suspend && suspend[k]);
        if (fits(c, n, req) == 1) {
            for (size_t m = j - 1; m + 1 < *nchosen; m++)
                chosen[m] = chosen[m + 1];
            (*nchosen)--;
        } else {
            take(c, n, cand[k], suspend && suspend[k]);
        }
    }
    if (rc != SCHED_OK)
        *nchosen = 0;
    sched_nodes_free(c, n);
    return rc;
}
