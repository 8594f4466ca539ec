/* SPDX-License-Identifier: Apache-2.0
 *
 * sched_private.h - declarations shared by select.c and pass.c only
 */
#ifndef DROVER_SCHED_SCHED_PRIVATE_H
#define DROVER_SCHED_SCHED_PRIVATE_H

#include "sched/sched.h"

/* At most this many distinct Weight= values are sorted by counting
 * (select.c) and walked tier by tier (pass.c); beyond, a comparison sort
 * and one walk. */
#define WEIGHT_TIERS 8

/* A request with defaults filled in and its combination checked. */
struct sel_req {
    uint32_t min_nodes;
    uint32_t max_nodes;
    uint32_t ntasks;   /* 0: per_node tasks on every chosen node */
    uint32_t per_node; /* tasks per node when ntasks == 0 */
    uint32_t cpt;      /* CPUs per task, >= 1 */
    uint64_t tcpus;    /* CPUs one task holds, >= 1 (with its GPUs') */
    uint32_t tpn;      /* at most this many tasks per node; 0 = no limit */
    uint32_t mincpn;   /* --mincpus: CPUs each node gives at least */
    uint32_t maxcpn;   /* MaxCPUsPerNode: CPUs a node gives at most; 0 none */
    uint64_t min_tmp;  /* --tmp: TmpDisk each node has at least, MiB */
    uint16_t sockets;  /* -B: sockets, */
    uint16_t cores;    /* cores per socket and */
    uint16_t threads;  /* threads per core each node has at least */
    uint64_t mem_node;
    uint64_t mem_cpu;
    uint64_t mem_task; /* mem_cpu * cpt, MiB; 0 when that overflows */
    uint32_t gpn;
    uint32_t gtot;
    uint32_t gpt;      /* GPUs per task */
    uint32_t cpg;      /* CPUs per GPU */
    uint64_t mpg;      /* MiB per GPU */
    const char *gtype;
    uint32_t spn;      /* shards per node, all of one GPU */
    const char *sname; /* what they are: "shard" or "mps" */
    bool exclusive;
    uint32_t oversub;  /* CPUs count this many times (>= 1) */
    const bitmap_t *allowed;
    const bitmap_t *required;
    const bitmap_t *excluded;
    const char *features;
    uint32_t nreq; /* required nodes */
};

/* A node that could take part in the allocation, and how much it could
 * take: 'cap' tasks and 'gfree' GPUs of the right type.
 */
struct cand {
    uint32_t idx;
    uint32_t weight;
    bool required;
    uint64_t cap;
    uint64_t gfree;
};

/* Fill in 'r' from 'req' with defaults.  0, or -1 with errno=EINVAL for a
 * malformed request (as sched_check_never()).
 */
int sched__normalize(const struct sched_request *req, struct sel_req *r);

/* The part of judging that depends on the node's configuration only: in
 * r->allowed, not in r->excluded, its TmpDisk, sockets, cores and threads
 * (-B) and features (r->features) as asked.  Requests that agree on those
 * fields get the same answer (sched__same_static()). */
bool sched__node_allowed(const struct sel_req *r,
                         const struct sched_node *nodes, size_t idx);
bool sched__same_static(const struct sel_req *a, const struct sel_req *b);

/* Judge node 'idx' as it is now for 'r' into 'c' (every field set), for a
 * node sched__node_allowed() said true of.  False if it cannot take part
 * in an allocation. */
bool sched__node_eval_allowed(const struct sched_node *nodes, size_t idx,
                              const struct sel_req *r, struct cand *c);

/* Does candidate 'c' alone satisfy 'r'?  Then, first in the order
 * sched__select_cands() takes candidates in, it is the one chosen. */
bool sched__cand_holds_all(const struct cand *c, const struct sel_req *r);

/* Choose among the candidates c[0..nc), which sched__node_eval_allowed()
 * judged on 'nodes' and which are in node index order or, with 'in_pref',
 * in Slurm's node order already (required first, then by Weight, then by
 * index), and build the allocation (c is reordered).  SCHED_OK with
 * *alloc_out set (if alloc_out is not NULL), SCHED_BUSY, or -1 with
 * errno=ENOMEM.
 */
int sched__select_cands(const struct sched_node *nodes,
                        const struct sel_req *r,
                        struct cand *c,
                        size_t nc,
                        bool in_pref,
                        struct sched_alloc **alloc_out);

/* Judge all n nodes (as if idle and up with 'empty') and choose, as
 * sched_select() does; 'scratch' has room for n candidates.  Same returns
 * as sched__select_cands().  With 'alloc_out' NULL (is there a set at
 * all?), no required node and no GPU total, the scan ends at the first
 * node that holds the whole request.
 */
int sched__select_run(const struct sched_node *nodes,
                      size_t n,
                      const struct sel_req *r,
                      bool empty,
                      struct cand *scratch,
                      struct sched_alloc **alloc_out);

/* True if every node index of 'a' is < n and every GPU bitmap has the
 * node's GPU count as its size.
 */
bool sched__alloc_valid(const struct sched_node *nodes,
                        size_t n,
                        const struct sched_alloc *a);

#endif /* !DROVER_SCHED_SCHED_PRIVATE_H */
