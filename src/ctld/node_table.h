/* SPDX-License-Identifier: Apache-2.0
 *
 * node_table.h - the controller's nodes and partitions
 *
 * Built from slurm.conf.  'sched' is the contiguous array src/sched works
 * on; 'info' runs parallel to it with what only the controller needs.
 */
#ifndef DROVER_CTLD_NODE_TABLE_H
#define DROVER_CTLD_NODE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "common/bitmap.h"
#include "conf/conf.h"
#include "sched/sched.h"

struct ctld_node {
    const struct conf_node *conf; /* borrowed from the live conf */
    bool responding;   /* registered and heard from within SlurmdTimeout */
    bool drain;
    bool down;
    bool health_drain; /* drained by the controller for a failed
                        * HealthCheckProgram (node_health.c) */
    char *reason;
    char *reason_user;
    time_t reason_time;
    time_t last_seen;
    time_t boot_time;
    time_t slurmd_start_time;
    time_t last_busy;
    char *os; /* droverd host's uname: "Linux <release> <version>" */
    uint32_t *jobs;    /* ids of the jobs whose allocation holds this node
                        * (node_table_jobs_attach()); may hold ids of jobs
                        * since gone: readers check the job */
    uint32_t njobs, jobs_cap;
    uint16_t *cpu_holds; /* per CPU id: how many jobs hold it (cpu_ids.h) */
    uint32_t ncpu_holds;
    uint32_t *epilog_jobs; /* jobs whose Epilog= still runs here: the
                            * node is COMPLETING (node_epilog.h) */
    uint32_t nepilog, epilog_cap;
    time_t epilog_since; /* when the last wait began or one ended */
    json_t *gpus; /* with AutoDetect=nvml, the GPUs droverd registered:
                   * [{index, type, file, uuid}] (node_info "gpus"), or
                   * NULL */
};

struct ctld_partition {
    struct conf_partition *conf; /* the table's own: slurm.conf's line as
                                  * scontrol changed it (part.h) */
    bitmap_t *nodes; /* indexes into the node table; pending jobs point at
                      * it (sched_request.allowed_nodes): changed in
                      * place, freed only with the partition */
    uint32_t total_cpus;
    uint32_t preempt_mode; /* its PreemptMode=, else the global one (enum
                            * conf_preempt_mode, never UNSET) */
};

/* State=UP or DOWN: jobs may be submitted to it (DRAIN and INACTIVE
 * refuse them, Slurm's "Required partition not available"). */
static inline bool ctld_part_takes_jobs(const struct ctld_partition *part)
{
    return part->conf->state_up || !strcmp(part->conf->state, "DOWN");
}

/* State=UP or DRAIN: its pending jobs may start (DOWN and INACTIVE hold
 * them, PartitionDown and PartitionInactive). */
static inline bool ctld_part_runs_jobs(const struct ctld_partition *part)
{
    return part->conf->state_up || !strcmp(part->conf->state, "DRAIN");
}

/* The partition's MaxCPUsPerNode as a request's cap
 * (sched_request.max_cpus_per_node): 0 when UNLIMITED or no partition. */
static inline uint32_t ctld_part_cpu_cap(const struct ctld_partition *part)
{
    return part && part->conf->max_cpus_per_node != UINT32_MAX
               ? part->conf->max_cpus_per_node
               : 0;
}

struct node_table {
    struct sched_node *sched;
    struct ctld_node *info;
    const char **names;    /* node names by index, for hostlists */
    struct node_name *by_name; /* uthash: name to index
                                * (node_table_index()) */
    size_t count;
    struct ctld_partition *parts;
    size_t part_count;
    uint32_t preempt_mode; /* the global PreemptMode=, for partitions
                            * without their own */
};

/* Build from 'conf' (borrowed; must outlive the table).  Nodes start not
 * responding until they register.  NULL with 'error' set on failure.
 */
struct node_table *node_table_create(const struct slurm_conf *conf,
                                     drv_error_t *error);
void node_table_destroy(struct node_table *nt);

/* Index the allocation 'a' of job 'job_id' under each of its nodes, so a
 * node's registration looks at its own jobs only (not every job: issue
 * 18's registration storm).  Aborts on ENOMEM (xalloc). */
void node_table_jobs_attach(struct node_table *nt, const struct sched_alloc *a,
                            uint32_t job_id);

/* Remove job 'job_id' from the index of each node of 'a'.  Ids that are
 * not there are ignored. */
void node_table_jobs_detach(struct node_table *nt, const struct sched_alloc *a,
                            uint32_t job_id);

/* Drop entry 'k' of node 'i''s job index (a reader found it stale). */
void node_table_jobs_drop(struct node_table *nt, size_t i, uint32_t k);

/* Index of node 'name', or -1.  A hash lookup: a registration finds its
 * node without walking 10,000 names (bench/scale). */
long node_table_index(const struct node_table *nt, const char *name);

/* job_apply_json()'s resolver: index of node 'name' (or -1) and its GPU
 * count in *ngpus.  'arg' is the struct node_table. */
long node_table_index_cb(const char *name, uint32_t *ngpus, void *arg);

/* The nodes of hostlist 'expr' as a bitmap over the table (caller frees),
 * or NULL with errno EDRV_INVALID_NODE_NAME and 'error' naming the node
 * the table lacks (or the bad expression). */
bitmap_t *node_table_bitmap(const struct node_table *nt, const char *expr,
                            drv_error_t *error);

/* The nodes set in 'b' (bits are node table indexes) as a hostlist
 * expression, "node[01-04]"; caller frees (NULL on ENOMEM). */
char *node_table_hostlist(const struct node_table *nt, const bitmap_t *b);

/* Partition by name (NULL: the default partition); NULL if none. */
struct ctld_partition *node_table_partition(struct node_table *nt,
                                            const char *name);

/* Index of partition 'name', or -1. */
long node_table_part_index(const struct node_table *nt, const char *name);

/* Partition p takes the settings 'cp' (stolen: the table frees it): its
 * nodes (cp->nodes, a hostlist of the table's nodes) set in its bitmap in
 * place, its CPUs and PreemptMode computed again.  0, or -1 with errno
 * EDRV_INVALID_NODE_NAME and 'error' set ('cp' not stolen).  The
 * partition's jobs are the caller's (part.h). */
int node_table_part_set(struct node_table *nt, size_t p,
                        struct conf_partition *cp, drv_error_t *error);

/* A new partition 'cp' (stolen) after the others: its index, or -1 as
 * node_table_part_set() ('cp' not stolen).  Pointers to partitions of
 * the table are no longer valid after it (their bitmaps are). */
long node_table_part_add(struct node_table *nt, struct conf_partition *cp,
                         drv_error_t *error);

/* Partition p leaves the table, its bitmap freed: the caller drops every
 * job's pointer to it first. */
void node_table_part_remove(struct node_table *nt, size_t p);

/* Recompute sched[i].available from the node's flags. */
void node_table_update_avail(struct node_table *nt, size_t i);

/* Compressed hostlist of the allocation's nodes.  Caller frees. */
char *node_table_alloc_hostlist(const struct node_table *nt,
                                const struct sched_alloc *a);

/* What the node table does not know of a node: held by an active
 * reservation (a MAINT one: maint), planned for a waiting job. */
struct node_flags {
    bool maint, reserved, planned;
};

/* The members of node i's node_info record (docs/protocol.md) into 'o'
 * (proto/jsonw.h: a jansson object or a writer), with 'f' (NULL: none)
 * as its maint/reserved/planned keys and in its state_str, in Slurm's
 * order (IDLE+DRAIN+MAINTENANCE+RESERVED+NOT_RESPONDING+PLANNED). */
struct jsonw_sink;
void node_table_node_put(const struct node_table *nt, size_t i,
                         const struct node_flags *f,
                         const struct jsonw_sink *o);

/* The administrative state of node i, as journaled and snapshotted:
 * {"name","drain","down","reason","reason_user","reason_time"} and
 * "weight" when scontrol update changed it from slurm.conf's.  New
 * reference.
 */
json_t *node_table_admin_json(const struct node_table *nt, size_t i);

/* A node's administrative state: what scontrol update and the
 * controller's own decisions (a node not responding) set; one
 * node_state event carries it (event.h). */
struct node_admin {
    bool drain, down;
    bool health_drain;       /* the drain is a failed health check's */
    const char *reason;      /* NULL: none */
    const char *reason_user; /* NULL: none */
    time_t reason_time;      /* seconds since the epoch; 0: none */
    uint32_t weight;         /* the scheduler's Weight= */
};

/* Node i's base state as Slurm derives it: "DOWN", "UNKNOWN" (never
 * registered), "ALLOCATED" (every CPU taken), "MIXED" or "IDLE".  A
 * static string. */
const char *node_table_base_state(const struct node_table *nt, size_t i);

/* The administrative state of node i; the strings are borrowed from the
 * table (valid until the next node_table_admin_set() of that node). */
void node_table_admin_get(const struct node_table *nt, size_t i,
                          struct node_admin *a);

/* Install 'a' as node i's administrative state (its strings are copied;
 * they may be the node's own) and recompute its availability. */
void node_table_admin_set(struct node_table *nt, size_t i,
                          const struct node_admin *a);

/* Read what node_table_admin_json() wrote into *a (strings borrowed from
 * 'o').  Returns the node's index, or -1 for a name not in the table (a
 * node that left slurm.conf). */
long node_table_admin_from_json(const struct node_table *nt, json_t *o,
                                struct node_admin *a);

/* node_table_admin_from_json() and node_table_admin_set(): restore a
 * snapshot's record; an unknown node name is ignored.
 */
void node_table_admin_restore(struct node_table *nt, json_t *o);

/* The partition_info object of partition p.  New reference. */
json_t *node_table_partition_json(const struct node_table *nt, size_t p);

/* A Slurm TRES string: "cpu=16,mem=16G,node=1,billing=16,gres/gpu=2";
 * zero parts are left out, billing (= cpus) only when 'billing'.
 * Caller frees.
 */
char *node_table_tres(uint32_t cpus, uint64_t mem_mib, int nodes,
                      uint32_t gpus, bool billing);

#endif /* !DROVER_CTLD_NODE_TABLE_H */
