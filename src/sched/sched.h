/* SPDX-License-Identifier: Apache-2.0
 *
 * sched.h - the pure scheduling core: node selection and the backfill pass
 *
 * Nothing here does I/O, reads a clock or keeps global state: the caller
 * passes the cluster (an array of struct sched_node), the queue and "now".
 * The same code runs in the controller, the simulator and the unit tests.
 * Resource rules follow Slurm's select/cons_tres with CPUs counted one by one
 * (CR_Core-like); the pass follows Slurm's sched/backfill.
 */
#ifndef DROVER_SCHED_SCHED_H
#define DROVER_SCHED_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/bitmap.h"
#include "common/error.h"

/* Results of sched_select() and sched_check_never(). */
enum sched_result {
    SCHED_OK = 0,    /* fits (now, or for sched_check_never: some day) */
    SCHED_BUSY = 1,  /* would fit on the configured nodes, but not now */
    SCHED_NEVER = 2, /* no set of configured nodes could ever run it */
};

/* One compute node: its configured size and its current usage.
 * The caller owns the strings and the bitmap; the scheduler reads the
 * configuration and, in sched_alloc_apply/release and sched_pass, updates
 * the usage fields.
 */
struct sched_node {
    /* What judging a node reads, first, in one cache line of 64 bytes
     * (a deep queue's plan judges nodes 18 million times: bench/sched). */
    uint32_t cpus;        /* CPUs (slurm.conf CPUs=) */
    uint32_t gpus;        /* GPUs (Gres=gpu[:type]:N) */
    uint64_t mem_mib;     /* RealMemory, MiB */
    /* usage */
    uint32_t alloc_cpus;
    uint32_t running_jobs;
    uint64_t alloc_mem_mib;
    bitmap_t *alloc_gpus; /* nbits == gpus; may be NULL only if gpus == 0;
                           * GPUs held whole (not those lent as shards) */
    /* configuration */
    const uint32_t *shards; /* per GPU index (gpus entries): its shares
                             * (gres/shard, Slurm's GPU sharding, or
                             * gres/mps); NULL when the node has none */
    const char *gpu_type; /* "a100", or NULL for untyped GPUs (and for
                           * GPUs of several types) */
    uint32_t weight;      /* slurm.conf Weight=: lower is chosen first */
    bool available;       /* up and not drained/down: may take new jobs */
    bool exclusive_alloc; /* usage: held by an --exclusive job */
    /* the rest */
    const char *const *gpu_types; /* per GPU index (gpus entries): its type,
                                   * when the node has GPUs of several
                                   * types (Gres=gpu:a100:2,gpu:v100:2, MIG
                                   * profiles); NULL when they are of one.
                                   * A typed request takes only GPUs of
                                   * its type, an untyped one any */
    uint32_t *alloc_shards; /* usage: per GPU index, shards in use; NULL
                             * exactly when shards is.  As Slurm, a GPU
                             * with shards in use is not given whole, and
                             * one held whole lends no shards */
    const char *share_name; /* what the shares are: "shard" or "mps";
                             * NULL when shards is */
    const char *features; /* comma list (Feature=) or NULL; matched
                           * against sched_request.features */
    uint64_t tmp_disk_mib; /* slurm.conf TmpDisk=, MiB (0: none) */
    const char *name;
    uint16_t sockets;          /* slurm.conf Sockets= (all boards) */
    uint16_t cores_per_socket; /* CoresPerSocket= */
    uint16_t threads_per_core; /* ThreadsPerCore= */
    uint64_t pad_; /* to 128 bytes, two whole cache lines in an array
                    * from sched_nodes_alloc() */
};

/* What a job asks for, already resolved from its options by the caller.
 * Zero means "not requested" unless said otherwise.
 */
struct sched_request {
    uint32_t min_nodes;       /* -N min; 0 = 1 */
    uint32_t max_nodes;       /* -N max; 0 = min_nodes when min_nodes was
                               * given, else as many as the tasks need */
    uint32_t ntasks;          /* -n; 0 = one per node (or ntasks_per_node) */
    uint32_t cpus_per_task;   /* -c; 0 = 1 */
    uint32_t min_cpus_per_node; /* --mincpus: each node of the job gives it
                                 * at least this many CPUs (Slurm's
                                 * pn_min_cpus); 0 = none */
    uint32_t ntasks_per_node; /* --ntasks-per-node: at most this many */
    uint32_t max_cpus_per_node; /* the partition's MaxCPUsPerNode: the job
                                 * gets at most this many CPUs of any node
                                 * (a job that needs more on one node can
                                 * never run); 0 = no cap */
    uint64_t min_tmp_mib;     /* --tmp: only nodes whose TmpDisk is at
                               * least this, MiB (Slurm's pn_min_tmp_disk,
                               * MinTmpDiskNode); 0 = any */
    bool exclusive;           /* --exclusive: whole nodes, alone on them */
    /* -B S:C:T, --sockets-per-node, --cores-per-socket, --threads-per-core:
     * only nodes configured with at least this many sockets, cores per
     * socket and threads per core (Slurm's job_desc sockets_per_node,
     * cores_per_socket, threads_per_core as node filters); 0 = any */
    uint16_t sockets_per_node;
    uint16_t cores_per_socket;
    uint16_t threads_per_core;
    uint64_t mem_per_node_mib; /* --mem */
    uint64_t mem_per_cpu_mib;  /* --mem-per-cpu (not with --mem) */
    uint32_t gpus_per_node;   /* --gres=gpu:N, --gpus-per-node=N */
    uint32_t gpus_total;      /* --gpus=N over all nodes (not with the above) */
    const char *gpu_type;     /* --gres=gpu:a100:2; NULL = any type */
    uint32_t shards_per_node; /* --gres=shard:N (or mps:N): N shares on each
                               * node, all of one GPU (Slurm 22.05: a job's
                               * shards on a node come from a single GPU),
                               * on nodes whose share_name is the
                               * request's */
    const char *share_name;   /* "shard" or "mps"; NULL is "shard" */
    uint32_t gpus_per_task;   /* --gpus-per-task: each task's GPUs, on its
                               * node (not with the two above) */
    uint32_t cpus_per_gpu;    /* --cpus-per-gpu: a node's CPUs are at least
                               * its GPUs times this */
    uint64_t mem_per_gpu_mib; /* --mem-per-gpu: a node's memory is its GPUs
                               * times this (not with --mem/--mem-per-cpu) */
    const bitmap_t *allowed_nodes; /* the partition's nodes as indexes into
                                    * the node array; NULL = all nodes */
    const bitmap_t *required_nodes; /* -w: every one of these is in the
                                     * allocation (raises min_nodes to
                                     * their count); NULL = none */
    const bitmap_t *excluded_nodes; /* -x: never used; NULL = none */
    const char *features;     /* -C expression (sched/feature_expr.h) that each
                               * node's features must satisfy; NULL = any */
    uint32_t oversubscribe;   /* OverSubscribe=FORCE:N (or YES:N with
                               * --oversubscribe): a node's CPUs count N
                               * times for this job, which shares them with
                               * other such jobs (time-sliced by the
                               * controller's gang scheduler); still at most
                               * the node's CPUs for the job itself.  0 or 1:
                               * no sharing */
};

/* Resources given to one job: node_count parallel entries, node indexes
 * ascending.  Owned by whoever received it; free with sched_alloc_destroy().
 */
struct sched_alloc {
    uint32_t node_count;
    bool exclusive;     /* whole nodes: sets/clears exclusive_alloc */
    uint32_t *node_idx; /* index into the node array */
    uint32_t *tasks;    /* tasks placed on the node (SLURM_TASKS_PER_NODE) */
    uint32_t *cpus;
    uint64_t *mem_mib;
    bitmap_t **gpus;    /* GPU indexes on the node (nbits == node's gpus);
                         * NULL where no GPU is allocated on that node */
    uint32_t *shards;   /* shards on the node, lent by the one GPU in
                         * gpus[i] (which is then not held whole); 0 where
                         * the job has no shards there */
    bitmap_t **cpu_ids; /* the node's CPU ids given (Slurm's abstract
                         * numbering, nbits == node's CPUs): chosen by the
                         * controller as the job starts (ctld/cpu_ids.h);
                         * NULL where none are chosen (the scheduling core
                         * counts CPUs only) */
};

/* New allocation with room for 'node_count' nodes, every entry zero/NULL:
 * for the controller to rebuild allocations from saved state.
 * NULL with errno=ENOMEM.  Free with sched_alloc_destroy().
 */
struct sched_alloc *sched_alloc_create(uint32_t node_count);

/* NULL is a no-op.  errno is preserved. */
void sched_alloc_destroy(struct sched_alloc *a);

/* Remove entry 'i' (not a node index) from 'a', the later entries moving
 * down one: a --no-kill job losing a failed node.  'a' must not be
 * applied to the nodes' usage meanwhile (release it first, apply it
 * again after).  Returns 0, or -1 with errno EINVAL when i is out of
 * range or 'a' would be left with no node.
 */
int sched_alloc_drop(struct sched_alloc *a, uint32_t i);

/* GPU indexes allocated on entry 'i' (not node index) in Slurm's range form,
 * "0-1,4", or "" when none.  Caller frees with free().
 * NULL with errno EINVAL (i >= node_count) or ENOMEM.
 */
char *sched_alloc_gpu_fmt(const struct sched_alloc *a, uint32_t i);

/* Whether GPU g (< nd->gpus) of 'nd' is in use: held whole, or lending
 * shards. */
bool sched_gpu_busy(const struct sched_node *nd, size_t g);

/* Free the usage arrays of 'nd' (alloc_gpus, alloc_shards; the caller's
 * otherwise) and set them to NULL.  errno is preserved. */
void sched_node_free_usage(struct sched_node *nd);

/* n nodes, zeroed, in memory aligned to a cache line (64 bytes), so that
 * each node's first 64 bytes, what judging it reads, are one line: for a
 * cluster's long-lived node array (glibc's aligned_alloc(), made and freed
 * on every pass, grew a controller's heap).  Free with free() or
 * sched_nodes_free().  NULL with errno=ENOMEM. */
struct sched_node *sched_nodes_alloc(size_t n);

/* A copy of nodes[0..n) with usage arrays of its own (alloc_gpus,
 * alloc_shards), for a pass that must not change the originals; the
 * strings and shard counts stay borrowed.  Free with sched_nodes_free().
 * NULL with errno=ENOMEM. */
struct sched_node *sched_nodes_copy(const struct sched_node *nodes, size_t n);

/* Free a copy from sched_nodes_copy() of n nodes; NULL is a no-op. */
void sched_nodes_free(struct sched_node *c, size_t n);

/* Add allocation 'a' to the usage of 'nodes' (n entries): CPUs, memory,
 * GPU bits, running_jobs, and exclusive_alloc for an exclusive allocation.
 * Capacity is not checked: replaying saved state must always succeed.
 * Returns 0, or -1 with errno=EINVAL and nothing changed if a node index is
 * >= n or a GPU bitmap's size differs from the node's GPU count.
 */
int sched_alloc_apply(struct sched_node *nodes,
                      size_t n,
                      const struct sched_alloc *a);

/* Remove allocation 'a' (applied before) from the usage of 'nodes'.
 * Counters stop at zero.  Same returns and errors as sched_alloc_apply().
 */
int sched_alloc_release(struct sched_node *nodes,
                        size_t n,
                        const struct sched_alloc *a);

/* Could 'req' ever run on 'nodes' (n entries)?  Judged on the nodes' sizes
 * alone, as if all were empty and up, within req->allowed_nodes.  This is
 * the submit-time check behind Slurm's "Requested node configuration is not
 * available" (--gres=gpu:16 on 8-GPU nodes, -N 10 on 4 nodes, --mem over
 * RealMemory, -c 64 on 32-CPU nodes).
 * Returns SCHED_OK, or SCHED_NEVER with the reason in 'error', or -1 with
 * errno=EINVAL for a malformed request ('error' says what):
 * mem_per_node with mem_per_cpu, gpus_per_node with gpus_total,
 * gpus_per_task with either, mem_per_gpu with mem_per_node or mem_per_cpu,
 * max_nodes < min_nodes, fewer tasks or total GPUs than nodes, gpu_type
 * without a GPU count, shards_per_node with any GPU count or type.
 * 'error' may be NULL.
 */
int sched_check_never(const struct sched_node *nodes,
                      size_t n,
                      const struct sched_request *req,
                      drv_error_t *error);

/* Choose resources for 'req' among 'nodes' (n entries) as they are now.
 * Rules (Slurm cons_tres): nodes that are not available, hold an exclusive
 * job, or (for an exclusive request) run anything are skipped; nodes are
 * taken lowest weight first, then by index, as few as needed between
 * min_nodes and max_nodes; tasks are dealt round robin as far as each node
 * has room (the cons_tres block layout), so -N2 -n5 gives 3+2; each node
 * gets tasks * cpus_per_task CPUs, mem_per_node or mem_per_cpu * CPUs MiB
 * (0 when no memory was requested), and GPU indexes lowest free first;
 * gpus_total fills nodes in order, each chosen node taking at least one;
 * gpus_per_task gives a node tasks * gpus_per_task GPUs.  With
 * cpus_per_gpu a node's CPUs are the larger of tasks * cpus_per_task and
 * its GPUs * cpus_per_gpu; with mem_per_gpu its memory is GPUs *
 * mem_per_gpu (Slurm cons_tres).
 * shards_per_node takes its N shards on each node from one GPU that no job
 * holds whole, the one with the fewest shards left that still has N
 * (shards are packed, so whole GPUs stay free), lowest index on a tie; its
 * gpus[i] is that GPU and shards[i] is N.  GPUs with shards in use are not
 * given whole.
 * An exclusive request gets every CPU, all memory and all GPUs of its nodes
 * (with shards_per_node: the shards, of one GPU, not the GPUs whole).
 * Returns SCHED_OK with a new allocation in *alloc_out (caller frees with
 * sched_alloc_destroy()), SCHED_BUSY or SCHED_NEVER (see enum sched_result;
 * *alloc_out = NULL), or -1 with errno EINVAL (malformed request, as for
 * sched_check_never()) or ENOMEM.  'nodes' is not modified.
 */
int sched_select(const struct sched_node *nodes,
                 size_t n,
                 const struct sched_request *req,
                 struct sched_alloc **alloc_out);

/* A job as the pass sees it.  Pending jobs use id, req and time_limit_s;
 * running jobs use time_limit_s, start_time and alloc.
 */
struct sched_job {
    uint32_t id;
    const struct sched_request *req; /* pending jobs */
    int64_t time_limit_s;            /* seconds; -1 = no limit (never ends) */
    int64_t start_time;              /* running jobs: epoch seconds */
    const struct sched_alloc *alloc; /* running jobs */
};

enum sched_action {
    SCHED_ACT_START, /* start now with 'alloc' */
    SCHED_ACT_WAIT,  /* stay pending for 'reason' */
    SCHED_ACT_NEVER, /* can never run here: Slurm rejects or holds it */
    SCHED_ACT_LATER, /* not taken this pass: the pass ended after
                      * sched_pass_opts.max_starts starts; decided by a
                      * later pass (its reason and plan unchanged) */
};

/* Pending reasons, with Slurm's spelling in sched_reason_string(). */
enum sched_reason {
    SCHED_REASON_NONE,
    SCHED_REASON_RESOURCES, /* does not fit now */
    SCHED_REASON_PRIORITY,  /* fits now, but would delay a reservation held
                             * by a job ahead of it */
    SCHED_REASON_LIMIT,     /* held back by the pass's admit gate (an
                             * association/QOS limit; the caller knows
                             * which): "AccountingPolicy" */
};

struct sched_decision {
    uint32_t job_id;
    enum sched_action action;
    enum sched_reason reason; /* SCHED_ACT_WAIT */
    int64_t start_time;       /* START: now; WAIT: planned start (epoch s,
                               * for squeue --start), or -1 if unknown */
    struct sched_alloc *alloc; /* START: the resources; WAIT with a planned
                                * start: the resources reserved then; else
                                * NULL.  Caller frees. */
};

/* "Resources", "Priority", "None".  Static storage, never NULL. */
const char *sched_reason_string(enum sched_reason reason);

/* Resources held from 'start' to 'end' (epoch seconds) that no job of the
 * pass may use: an advance reservation.  'alloc' is on the pass's nodes;
 * an exclusive one (every CPU, MiB and GPU of its nodes) holds them
 * whole.  A hold that has begun holds from now; one that has ended is
 * ignored. */
struct sched_hold {
    int64_t start, end;
    const struct sched_alloc *alloc;
};

/* Knobs of the pass; NULL means SCHED_PASS_OPTS_DEFAULT. */
struct sched_pass_opts {
    uint32_t reserve_depth; /* blocked jobs, first in queue order, for
                             * which a reservation is sought (Slurm
                             * bf_max_job_test); 0 = none */
    bool reserve_prefix;    /* reservations only for pending[0 ..
                             * reserve_depth), a prefix of the queue (the
                             * leads of src/sched/backfill.h), not for the
                             * first reserve_depth jobs that wait */
    int64_t window_s;       /* no reservation starts later than now + this
                             * (Slurm bf_window); 0 = no limit */
    int64_t resolution_s;   /* seconds; every time at which the pass counts
                             * resources free again (a running job's end,
                             * the end of a job it starts or reserves for)
                             * is rounded up to a multiple of this, so
                             * planned starts fall on such multiples, as
                             * with Slurm's bf_resolution (whose default is
                             * 60); the plan never counts a resource free
                             * before it is.  0 or 1 = exact end times */
    /* Optional gate (association/QOS limits, src/sched/limits.h): asked
     * for pending[i], in queue order, before the pass tries it; false
     * leaves it waiting with SCHED_REASON_LIMIT and no reservation.  NULL:
     * every job may start. */
    bool (*admit)(void *arg, size_t i);
    /* Optional: told that pending[i] starts in this pass, so the gate can
     * count it for the jobs after it. */
    void (*started)(void *arg, size_t i);
    void *gate_arg;
    /* Optional: holds[nholds] (advance reservations) are planned like
     * reservations made before the first job's: no job starts or is
     * planned on their resources over their time. */
    const struct sched_hold *holds;
    size_t nholds;
    /* The pass ends once this many jobs start (0 = no cap): every job
     * after the last one started gets SCHED_ACT_LATER.  As Slurm's
     * bf_max_job_start, so that a pass over a queue of which thousands
     * fit at once costs what it starts, not the whole queue's plan. */
    uint32_t max_starts;
};
#define SCHED_PASS_OPTS_DEFAULT                                                \
    ((struct sched_pass_opts){ .reserve_depth = 500, .window_s = 86400 })

/* One scheduling pass with backfill, as Slurm's sched/backfill.
 *   nodes[n]     the cluster with current usage, which already includes
 *                every running job's allocation; jobs started by the pass
 *                are applied to it.
 *   running[nrunning]  running jobs (start_time, time_limit_s, alloc): they
 *                free their resources at start_time + time_limit_s, or at
 *                now + 1 if that has passed; never with no limit (times
 *                rounded up to opts->resolution_s, as every end below).
 *   pending[npending]  eligible pending jobs, highest priority first.
 *   now          epoch seconds.
 *   opts         NULL for SCHED_PASS_OPTS_DEFAULT.
 *   out[npending]  one decision per pending job, same order.
 * Rules: jobs are taken in order.  One that does not fit now waits for
 * Resources.  One that fits now starts, unless its resources, over its time
 * limit, overlap a reservation held by a job ahead of it: then it is placed
 * elsewhere if it can be, else it waits for Priority.  Each waiting job, up
 * to opts->reserve_depth of them, is given a reservation: the earliest time,
 * as running jobs and earlier reservations end, when it fits for its whole
 * time limit, and the resources it would take then (so a short job may
 * backfill before it); with opts->resolution_s > 1 that time is a
 * multiple of it, and its reservation ends at the next multiple at or
 * after start + limit.  A job for which no such time exists within the
 * window (for example everything left runs without a time limit) gets no
 * reservation and blocks nobody.  A request that is malformed or can never
 * fit gets SCHED_ACT_NEVER.  With opts->max_starts, the jobs after the
 * one whose start reached it are not taken at all (SCHED_ACT_LATER).
 * Returns 0, or -1 with errno ENOMEM, or EINVAL (NULL arrays, a node with
 * GPUs but no usage bitmap of that size, a running allocation that does
 * not match the nodes); on failure 'nodes' is as it was and 'out' holds no
 * allocations.
 */
int sched_pass(struct sched_node *nodes,
               size_t n,
               const struct sched_job *running,
               size_t nrunning,
               const struct sched_job *pending,
               size_t npending,
               int64_t now,
               const struct sched_pass_opts *opts,
               struct sched_decision *out);

/* Free every allocation in out[0..count) and set it to NULL. */
void sched_decisions_clear(struct sched_decision *out, size_t count);

/* Preemption (Slurm's PreemptType): which running jobs must go so that
 * 'req' starts now.  'nodes' (n entries) as they are; 'freeing' (nfreeing
 * allocations) are jobs already being preempted, counted as free; 'cand'
 * (ncand) the running jobs 'req' may preempt, in the order they should go
 * (the caller's policy: lowest priority, then youngest, first).  Takes
 * candidates in order until the job fits, then spares every earlier one
 * it turns out not to need.  'chosen' (room for ncand) receives the
 * indexes into 'cand', in order; *nchosen their count (0 when the job fits
 * without preempting anyone).  'suspend' (ncand entries, or NULL for none)
 * marks the candidates that would be suspended (PreemptMode=SUSPEND): they
 * give back only their CPUs (sched_alloc_suspend()).  Returns SCHED_OK,
 * SCHED_BUSY (it does not fit even with every candidate gone; *nchosen =
 * 0), or -1 with errno (ENOMEM, or EINVAL for a malformed request).
 * 'nodes' is not modified.
 */
int sched_preempt_choose(const struct sched_node *nodes, size_t n,
                         const struct sched_request *req,
                         const struct sched_alloc *const *freeing,
                         size_t nfreeing,
                         const struct sched_alloc *const *cand, size_t ncand,
                         const bool *suspend, size_t *chosen,
                         size_t *nchosen);

/* A job suspended by preemption (PreemptMode=SUSPEND, as Slurm's
 * cons_tres with the gang scheduler) keeps its memory and GPUs on its
 * nodes and still counts as running there; its CPUs (and an exclusive
 * hold of the nodes) are given back to 'nodes' (n entries) until it
 * resumes.  Same returns and errors as sched_alloc_release().
 */
int sched_alloc_suspend(struct sched_node *nodes, size_t n,
                        const struct sched_alloc *a);

/* Take back what sched_alloc_suspend() gave back.  Capacity is not
 * checked (replaying saved state); see sched_alloc_resume_fits().  Same
 * returns and errors as sched_alloc_apply().
 */
int sched_alloc_resume(struct sched_node *nodes, size_t n,
                       const struct sched_alloc *a);

/* Could suspended allocation 'a' take its CPUs back now: on each of its
 * nodes as many CPUs free as it had, no exclusive job there, and for an
 * exclusive 'a' no CPU in use?  False for a malformed 'a'.
 */
bool sched_alloc_resume_fits(const struct sched_node *nodes, size_t n,
                             const struct sched_alloc *a);

#endif /* !DROVER_SCHED_SCHED_H */
