/* SPDX-License-Identifier: Apache-2.0
 *
 * mpi_pmix.h - droverd as a PMIx server for `srun --mpi=pmix` steps
 *
 * In droverstepd (one process per step): the step starts libpmix's
 * server (PMIx_server_init) with this node's name as its host name and
 * nd->pmix_dir (<spool>/pmix.<job>.<step>) as its directory, so several
 * droverd and steps on one host never share a rendezvous.  Each step gets a
 * namespace "drover.<job>.<step>" with its job map; each local task is
 * registered as a client and gets PMIx_server_setup_fork's variables.
 *
 * A fence (PMIx_Fence, MPI_Init's modex) needs every node of the step:
 * libpmix hands this node's contribution to fence_nb, which sends it to
 * srun as {"fence":id,"node":name,"data":base64}; srun answers once every
 * node has contributed with {"fence":id,"data":base64 of all}.  Fence ids
 * count 0, 1, ... per step on each node (every node sees the same
 * sequence of collectives).  libpmix calls the module from its own
 * thread: requests are queued and handled on the libuv loop.
 *
 * MPI_Abort (PMIx_Abort) sends srun {"abort":status,"node","rank"}; srun
 * answers every node with {"abort":status}, and each droverd kills the
 * step's tasks (step.c).
 */
#ifndef DROVER_NODED_MPI_PMIX_H
#define DROVER_NODED_MPI_PMIX_H

#include <stdint.h>
#include <sys/types.h>
#include <jansson.h>

#include "common/error.h"

struct noded;
struct nd_pmix_ns;

/* What a namespace needs to know about its step. */
struct nd_pmix_step {
    uint32_t job_id;
    uint32_t step_id;
    uid_t uid;
    gid_t gid;
    uint32_t ntasks;        /* the whole step */
    uint32_t node_index;    /* this node within the step's nodes */
    const char *nodes;      /* the step's hostlist, "node[01-02]" */
    const char *tasks_per_node; /* "2(x2)" */
    /* Which node runs which rank: step_launch's "task_map" (borrowed),
     * one array of global ranks per node of the step, [[0,2],[1,3]] for
     * -m cyclic; each node's array is its "ranks".  NULL (a controller
     * that sends none): ranks in blocks by tasks_per_node. */
    const json_t *task_map;
    /* Send a frame (reference stolen) to srun. */
    void (*send)(void *arg, json_t *msg);
    void *send_arg;
};

/* Register the step's namespace and its local ranks (task_map, else
 * tasks_per_node in blocks, gives which ranks are on which node).
 * Starts the PMIx server on first use.  Returns the namespace (free with
 * nd_pmix_ns_destroy), or NULL with 'error' set.
 */
struct nd_pmix_ns *nd_pmix_ns_create(struct noded *nd,
                                     const struct nd_pmix_step *step,
                                     drv_error_t *error);

/* Add the PMIx client variables of global rank 'rank' to the NULL
 * terminated, malloc'd environment *envp (which may be reallocated).
 * Returns 0, or -1 (the launch goes on without PMIx for that task).
 */
int nd_pmix_ns_fork_env(struct nd_pmix_ns *ns, int rank, char ***envp);

/* A frame from srun on the step's connection ({"fence":id,"data":b64}).
 * Frames that are not for PMIx are ignored. */
void nd_pmix_ns_frame(struct nd_pmix_ns *ns, json_t *msg);

/* srun's connection is gone: fail every fence in flight, and the later
 * ones at once. */
void nd_pmix_ns_lost(struct nd_pmix_ns *ns);

/* Deregister the namespace and its clients, fail fences in flight, free.
 * Accepts NULL. */
void nd_pmix_ns_destroy(struct nd_pmix_ns *ns);

/* At droverd's exit, after the loop's handles are closed: stop the PMIx
 * server if it was started (tasks still running lose it). */
void nd_pmix_shutdown(void);

#endif /* !DROVER_NODED_MPI_PMIX_H */
