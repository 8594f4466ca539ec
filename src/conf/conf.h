/* SPDX-License-Identifier: Apache-2.0
 *
 * conf.h - slurm.conf and gres.conf, parsed into typed structs
 *
 * The file is found through DROVER_CONF, then DROVER_SYSCONFDIR/slurm.conf.
 * gres.conf is read from the same directory as slurm.conf.  Unknown keywords
 * are a warning naming file and line; malformed values are an error naming
 * file, line and keyword.  Node lines with ranges (NodeName=node[01-04]) are
 * expanded to one conf_node per node.  Messages name files as given or as
 * resolved from an Include line ("/etc/drover/slurm.conf:12: ...").
 *
 * Syntax: Key=Value pairs separated by white space (spaces around '=' too),
 * case-insensitive keywords, double-quoted values, '#' comments, trailing
 * backslash continuation, "Include PATH" (relative to the slurm.conf
 * directory; glob patterns allowed).  NodeName=DEFAULT and
 * PartitionName=DEFAULT set defaults for the lines after them.  NodeAddr=,
 * NodeHostname= and Port= may give one value per node, in order
 * ("Port=17001-17004").  DownNodes= lines set State/Reason of defined nodes.
 * A second PartitionName line for the same name is ignored with a warning
 * (as Slurm); later SlurmctldHost lines name backup controllers, which
 * commands try in order (ctld_backup_addrs).
 */
#ifndef DROVER_CONF_CONF_H
#define DROVER_CONF_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/cpubind.h"
#include "common/error.h"
#include "conf/conf_tls.h"

struct conf_index; /* private to src/conf */
struct conf_part_spec; /* private to src/conf */
struct slurm_conf;

/* The name and the address (SlurmctldHost=name(addr): addr, else name)
 * of controller 'i': 0 is the first SlurmctldHost line, 1.. the later
 * ones, up to ctld_backup_count.  Borrowed from 'conf'. */
const char *conf_ctld_name(const struct slurm_conf *conf, size_t i);
const char *conf_ctld_addr(const struct slurm_conf *conf, size_t i);


/* SchedulerParameters=max_script_size=: largest batch script the
 * controller takes, in bytes.  Slurm's default (4 MB) and ceiling (512 MB).
 */
#define CONF_MAX_SCRIPT_SIZE_DEFAULT (4u * 1024 * 1024)
#define CONF_MAX_SCRIPT_SIZE_MAX (512u * 1024 * 1024)

/* SchedulerParameters= (slurm.conf(5)), as Drover uses them
 * (conf_sched.c).  0 means "not set" for the limits. */
struct conf_sched {
    uint32_t max_script_size;     /* bytes, CONF_MAX_SCRIPT_SIZE_DEFAULT */
    uint32_t bf_max_job_test;     /* waiting jobs given a reservation
                                   * (the pass's reserve_depth); 0: 500
                                   * (drover_backfill=slurm), or with
                                   * predict: the highest-priority jobs
                                   * given one besides each partition's
                                   * first; 0: none */
    uint32_t bf_max_job_user;     /* jobs of one user a pass considers */
    uint32_t bf_max_job_part;     /* jobs of one partition a pass considers */
    uint32_t bf_window_s;         /* how far ahead starts are planned
                                   * (bf_window, minutes); 0: one day */
    uint32_t bf_resolution_s;     /* the pass plans on steps of it; 0:
                                   * Slurm's default, 60 */
    uint32_t bf_interval_s;       /* longest wait between passes, 30 */
    uint32_t bf_max_job_start;    /* jobs one pass starts at most; 0: as
                                   * many as the controller's own cap
                                   * (src/ctld/scheduler.c) */
    uint32_t default_queue_depth; /* accepted: one pass plans it all */
    bool bf_continue, defer;      /* accepted: no effect in Drover */
    bool enable_user_top;         /* job owners may scontrol top their
                                   * own jobs */
    uint32_t drover_backfill;     /* drover_backfill=: enum
                                   * conf_backfill, PREDICT */
};

/* SchedulerParameters drover_backfill= (Drover's own; docs/config.md). */
enum conf_backfill {
    CONF_BACKFILL_PREDICT, /* "predict", the default: src/sched/backfill.h */
    CONF_BACKFILL_SLURM,   /* "slurm": Slurm's sched/backfill as it is */
};

/* One GPU (or other GRES) device of a node, from gres.conf File= lines or,
 * failing those, from the node's Gres= count. */
struct conf_gres_dev {
    char *name;  /* "gpu" */
    char *type;  /* "a100", or NULL when untyped */
    char *file;  /* "/dev/nvidia0", or NULL when no File= was given; with
                  * MultipleFiles= its first file */
    char **more_files; /* MultipleFiles= after the first (a MIG instance:
                        * "/dev/nvidia-caps/nvidia-cap21", ...),
                        * NULL-terminated; NULL without */
    int index;   /* 0-based index within the node's devices of this name */
    char *uuid;  /* "GPU-<uuid>" from AutoDetect=nvml (droverd only), or
                  * NULL */
};

/* Free the strings of 'dev' and set them to NULL (the struct itself is
 * the caller's). */
void conf_gres_dev_clear(struct conf_gres_dev *dev);

/* Devices of one GRES on a node (a Gres= count or a gres.conf Count=;
 * shard and mps counts, which are not devices, have no such bound): one
 * record each is made, so a count of billions would hold a daemon at
 * start for minutes (found by fuzzing). */
#define CONF_GRES_DEVICES_MAX 1024u

/* Gres= of a NodeName line: "gpu:8" or "gpu:a100:8". */
struct conf_gres {
    char *name;      /* "gpu" */
    char *type;      /* NULL when untyped */
    uint32_t count;
};

struct conf_node {
    char *name;          /* "node01" */
    char *addr;          /* NodeAddr=, default NodeHostname, default name */
    char *hostname;      /* NodeHostname=, default name */
    uint16_t port;       /* Port=, default SlurmdPort */
    uint32_t cpus;       /* CPUs=, default Sockets*Cores*Threads */
    uint32_t boards;     /* Boards=, default 1 */
    uint32_t sockets;    /* Sockets= (all boards), or Boards*SocketsPerBoard,
                          * or CPUs/(CoresPerSocket*Threads) when only
                          * CoresPerSocket is given, else 1 */
    uint32_t cores_per_socket; /* CoresPerSocket=, default
                                * cpus/(sockets*threads), at least 1 */
    uint32_t threads_per_core; /* ThreadsPerCore=, default 1 */
    uint64_t real_memory_mib; /* RealMemory=, default 1 (also "16G") */
    uint64_t tmp_disk_mib; /* TmpDisk=, default 0 */
    uint32_t weight;     /* Weight=, default 1 */
    char *features;      /* Feature= as written ("a100,nvlink"), or NULL */
    char *state;         /* State= upper-cased (e.g. "UNKNOWN", "DRAIN"),
                          * or from a DownNodes= line, or NULL */
    char *reason;        /* Reason=, or NULL */
    struct conf_gres *gres; /* Gres= entries */
    size_t gres_count;
    struct conf_gres_dev *gres_devs; /* from gres.conf, one per device */
    size_t gres_dev_count;
    uint32_t *gpu_shards; /* gres/shard or gres/mps per GPU (by its index
                           * among the node's gpu devices, as many as its
                           * Gres=gpu count), or NULL when it has none */
    const char *gpu_share; /* "shard" or "mps" (static) with gpu_shards,
                            * else NULL */
    const char **gpu_types; /* per GPU index (Gres=gpu count entries): its
                             * type, borrowed from gres[].type, when the
                             * node has GPUs of two types or more
                             * ("Gres=gpu:a100:2,gpu:v100:2", MIG profiles);
                             * else NULL */
    bool gpu_autodetect; /* gres.conf AutoDetect=nvml for this node (its
                          * NodeName line's, else the global one): droverd
                          * merges the GPUs NVML finds into gres_devs, and
                          * Gres= counts are checked at registration, not
                          * against gres.conf lines (as Slurm) */
};

/* A memory default or limit of slurm.conf: DefMemPerCPU or DefMemPerNode
 * (def_mem), MaxMemPerCPU or MaxMemPerNode (max_mem); each pair is one
 * value, per CPU or per node, as Slurm keeps it.  mib 0 is none (Slurm's
 * UNLIMITED). */
struct conf_mem {
    uint64_t mib;
    bool per_cpu;  /* the ...PerCPU keyword, else ...PerNode */
    bool given;    /* written in the file (global keys only; the parser's
                    * check that the pair is not both given) */
};

struct conf_partition {
    char *name;
    char *nodes;         /* Nodes= hostlist expression, "ALL" expanded */
    bool is_default;     /* Default=YES */
    bool state_up;       /* State=UP (default) */
    const char *state;   /* "UP", "DOWN", "DRAIN" or "INACTIVE" (static) */
    int64_t max_time_s;  /* MaxTime=, TIME_INFINITE by default */
    int64_t default_time_s; /* DefaultTime=, TIME_INFINITE (NONE) if unset */
    uint32_t max_nodes;  /* MaxNodes=, UINT32_MAX if UNLIMITED */
    uint32_t priority_tier; /* PriorityTier=, default 1 */
    uint32_t priority_job_factor; /* PriorityJobFactor=, default 1 */
    uint32_t preempt_mode;  /* PreemptMode=: enum conf_preempt_mode, UNSET
                             * (the global one) when not given */
    uint32_t grace_time_s;  /* GraceTime=, seconds a preempted job gets
                             * after SIGTERM (preempt/partition_prio), 0 */
    uint32_t oversubscribe; /* OverSubscribe=YES[:N] or FORCE[:N]: each CPU
                             * may be allocated to N jobs (4 when not
                             * given); 0: NO */
    bool oversubscribe_force; /* FORCE: every job of the partition shares;
                               * YES: those submitted with --oversubscribe */
    bool exclusive_nodes;     /* OverSubscribe=EXCLUSIVE: every job gets
                               * its nodes whole */
    bool root_only;      /* RootOnly=YES: only root/SlurmUser may submit */
    bool hidden;         /* Hidden=YES: listed only with -a/--all */
    /* Comma lists as written; NULL when not given (Allow*=ALL is NULL). */
    char *allow_groups;  /* AllowGroups=: Unix groups that may submit */
    char *allow_accounts;/* AllowAccounts=: accounts that may submit */
    char *deny_accounts; /* DenyAccounts= (ignored under AllowAccounts=) */
    char *allow_qos;     /* AllowQos= */
    char *deny_qos;      /* DenyQos= (ignored under AllowQos=) */
    uint32_t over_time_min; /* OverTimeLimit=, minutes; CONF_OVERTIME_UNSET
                             * (the global one) when not given */
    /* The job defaults and limits below are the partition's own value, or
     * the global keyword's when its line gives none (resolved after the
     * last line, as Slurm builds partitions after the global keys). */
    struct conf_mem def_mem; /* DefMemPerCPU= / DefMemPerNode= */
    struct conf_mem max_mem; /* MaxMemPerCPU= / MaxMemPerNode= */
    uint64_t def_mem_per_gpu_mib; /* DefMemPerGPU=, 0: none */
    uint32_t def_cpu_per_gpu;     /* DefCpuPerGPU=, 0: none */
    bool disable_root_jobs;       /* DisableRootJobs=YES: root's jobs are
                                   * refused here */
    uint32_t max_cpus_per_node;   /* MaxCPUsPerNode=, UINT32_MAX if
                                   * UNLIMITED (the default) */
    uint32_t min_nodes;           /* MinNodes=, 0 */
};

/* OverTimeLimit= (slurm.conf(5)): minutes a job may run past its time
 * limit before it is killed; UNLIMITED, or, on a partition, not given.
 * Slurm's ceiling is 65533 minutes. */
#define CONF_OVERTIME_UNLIMITED UINT32_MAX
#define CONF_OVERTIME_UNSET (UINT32_MAX - 1)
#define CONF_OVERTIME_MAX 65533u

/* The OverTimeLimit that applies to a job of partition 'part' (NULL:
 * none): the partition's, else the global one.  Minutes, or
 * CONF_OVERTIME_UNLIMITED. */
uint32_t conf_over_time_min(const struct slurm_conf *conf,
                            const struct conf_partition *part);

/* True when exit code 'code' is in 'list', a RequeueExit= or
 * RequeueExitHold= value ("1-9,18"; checked when the file was read);
 * false for a NULL list. */
bool conf_exit_code_listed(const char *list, int code);

/* MaxJobId='s default and ceiling (Slurm 22.05: 0x03ff0000, and the
 * 26 bits of a local job id). */
#define CONF_MAX_JOB_ID_DEFAULT 67043328u
#define CONF_MAX_JOB_ID_MAX 67108863u

/* AccountingStorageEnforce= flags, as Slurm implies them: "limits", "qos",
 * "safe" and "wckeys" each imply "associations"; "safe" implies "limits";
 * "nojobs" implies "nosteps"; "all" is everything but nojobs/nosteps. */
enum conf_enforce {
    CONF_ENFORCE_ASSOCS = 1,
    CONF_ENFORCE_LIMITS = 2,
    CONF_ENFORCE_QOS = 4,
    CONF_ENFORCE_SAFE = 8,
    CONF_ENFORCE_WCKEYS = 16,
    CONF_ENFORCE_NOJOBS = 32,
    CONF_ENFORCE_NOSTEPS = 64,
};

/* slurm.conf PrivateData= bits (Slurm's words, slurm.conf(5)).  The
 * controller enforces jobs, nodes and partitions; accounts, events, usage
 * and users are slurmdbd.conf's business (droverdbd reads its own
 * PrivateData=), cloud and reservations have no Drover objects. */
enum conf_private {
    CONF_PRIVATE_ACCOUNTS = 1,
    CONF_PRIVATE_CLOUD = 2,
    CONF_PRIVATE_EVENTS = 4,
    CONF_PRIVATE_JOBS = 8,
    CONF_PRIVATE_NODES = 16,
    CONF_PRIVATE_PARTITIONS = 32,
    CONF_PRIVATE_RESERVATIONS = 64,
    CONF_PRIVATE_USAGE = 128,
    CONF_PRIVATE_USERS = 256,
};

/* cgroup.conf CgroupPlugin= */
enum conf_cgroup_plugin {
    CONF_CGROUP_AUTODETECT, /* "autodetect": v2 when the mount point has
                             * cgroup.controllers, else v1 */
    CONF_CGROUP_V1,         /* "cgroup/v1" */
    CONF_CGROUP_V2,         /* "cgroup/v2" */
    CONF_CGROUP_DISABLED,   /* "disabled" (Slurm 23.02's word): none */
};

/* cgroup.conf (cgroup.conf(5)); Slurm's defaults when there is no file. */
struct conf_cgroup {
    char *path;                 /* the cgroup.conf read, NULL when none */
    enum conf_cgroup_plugin plugin; /* CgroupPlugin=, autodetect */
    char *mountpoint;           /* CgroupMountpoint=, "/sys/fs/cgroup" */
    bool constrain_cores;       /* ConstrainCores=, no */
    bool constrain_devices;     /* ConstrainDevices=, no */
    bool constrain_ram_space;   /* ConstrainRAMSpace=, no */
    bool constrain_swap_space;  /* ConstrainSwapSpace=, no */
    double allowed_ram_space;   /* AllowedRAMSpace=, percent, 100 */
    double allowed_swap_space;  /* AllowedSwapSpace=, percent, 0 */
    uint64_t min_ram_space_mib; /* MinRAMSpace=, MiB, 30 */
    /* "cgroup.conf:LINE: Key=value has no effect in Drover: why", one per
     * keyword given that Drover accepts and does not use, in file order:
     * droverctld logs them at start with slurm.conf's. */
    char **notices;
    size_t notice_count;
};

/* HealthCheckNodeState= words (slurm.conf(5), 22.05): the node states in
 * which droverd runs HealthCheckProgram; CYCLE spreads the nodes' runs
 * over the interval instead of running them all at once. */
/* PrologFlags= bits (Slurm 22.05's words).  Drover runs Alloc and
 * Serial, and accepts DeferBatch and NoHold (what its Alloc always does);
 * the others are refused at load (conf_prolog.c, docs/compatibility.md). */
enum conf_prolog_flags {
    CONF_PROLOG_ALLOC = 1 << 0,         /* Alloc: the Prolog on every node
                                         * at allocation */
    CONF_PROLOG_CONTAIN = 1 << 1,       /* Contain */
    CONF_PROLOG_DEFER_BATCH = 1 << 2,   /* DeferBatch */
    CONF_PROLOG_FORCE_REQUEUE = 1 << 3, /* ForceRequeueOnFail */
    CONF_PROLOG_NOHOLD = 1 << 4,        /* NoHold */
    CONF_PROLOG_RUN_IN_JOB = 1 << 5,    /* RunInJob */
    CONF_PROLOG_SERIAL = 1 << 6,        /* Serial: one Prolog or Epilog at
                                         * a time on a node */
    CONF_PROLOG_X11 = 1 << 7,           /* X11 */
};

enum conf_health_state {
    CONF_HEALTH_IDLE = 1 << 0,            /* IDLE (drained or not) */
    CONF_HEALTH_ALLOC = 1 << 1,           /* ALLOCATED: every CPU taken */
    CONF_HEALTH_MIXED = 1 << 2,           /* MIXED: some CPUs taken */
    CONF_HEALTH_NONDRAINED_IDLE = 1 << 3, /* IDLE and not drained */
    CONF_HEALTH_CYCLE = 1 << 4,           /* spread over the interval */
    CONF_HEALTH_ANY = CONF_HEALTH_IDLE | CONF_HEALTH_ALLOC
                      | CONF_HEALTH_MIXED,
};

/* job_container.conf (job_container.conf(5), 22.05): one NodeName= or
 * BasePath= line.  'nodes' is the line's NodeName= hostlist, NULL on a
 * BasePath= line (every node). */
struct conf_jc_line {
    char *nodes;
    char *base_path;      /* BasePath=: absolute; %n is the node's name */
    char *dirs;           /* Dirs=, NULL: the file's (or "/tmp,/dev/shm") */
    char *init_script;    /* InitScript=, NULL: none */
    int auto_base_path;   /* AutoBasePath=: 0 no, 1 yes, -1 the file's */
    int shared;           /* Shared=: 0 no, 1 yes, -1 the file's */
};

/* The whole of job_container.conf, read beside slurm.conf when
 * JobContainerType=job_container/tmpfs (it must then exist). */
struct conf_job_container {
    char *path;               /* the file read, NULL when none */
    struct conf_jc_line *lines;
    size_t count;
    bool auto_base_path;      /* global AutoBasePath=, no */
    bool shared;              /* global Shared=, no */
    char *dirs;               /* global Dirs=, NULL: "/tmp,/dev/shm" */
};

/* One node's settings resolved from job_container.conf: the last line
 * that names it (or a BasePath= line), with the globals filled in, as
 * Slurm's job_container/tmpfs reads them.  Strings are borrowed from
 * the conf, except base_path (expanded, caller frees). */
struct conf_jc {
    char *base_path;          /* %n expanded, then "/<node>" appended as
                               * Slurm's MULTIPLE_SLURMD builds do */
    const char *dirs;         /* comma list of absolute paths */
    const char *init_script;  /* NULL: none */
    bool auto_base_path;
    bool shared;
};

/* oci.conf (oci.conf(5), Slurm 22.05), read beside slurm.conf when it
 * exists; without it --container is refused on the node.  Each RunTime*
 * value is a shell command pattern (oci_pattern(), src/noded/oci.h):
 * either RunTimeRun or RunTimeCreate + RunTimeStart, with RunTimeKill,
 * RunTimeDelete and RunTimeQuery, as Slurm's oci_config.c requires. */
struct conf_oci {
    char *path;            /* the file read; NULL: no oci.conf */
    char *container_path;  /* ContainerPath=: pattern of the per-step
                            * directory; NULL: <spool>/oci-job%j-%s */
    bool create_env_file;  /* CreateEnvFile=: write <task dir>/environment
                            * (NUL-separated) for %e */
    char *runtime_create, *runtime_start, *runtime_run; /* RunTime*= */
    char *runtime_kill, *runtime_delete, *runtime_query;
};

/* PreemptType= and PreemptMode= (slurm.conf(5)).  Drover preempts by
 * cancelling, requeueing or suspending (SUSPEND needs GANG in the global
 * PreemptMode, as Slurm's); GANG also time-slices the jobs that share
 * CPUs in OverSubscribe=YES/FORCE partitions (SchedulerTimeSlice). */
enum conf_preempt_type {
    CONF_PREEMPT_NONE, CONF_PREEMPT_PARTITION_PRIO, CONF_PREEMPT_QOS,
};
enum conf_preempt_mode {
    CONF_PREEMPT_MODE_UNSET, /* a partition's: the global one */
    CONF_PREEMPT_MODE_OFF, CONF_PREEMPT_MODE_CANCEL,
    CONF_PREEMPT_MODE_REQUEUE, CONF_PREEMPT_MODE_SUSPEND,
};

/* Parse a PreemptMode= value, a mode with GANG or GANG alone ("SUSPEND,GANG",
 * "REQUEUE", "GANG"), into *mode (enum conf_preempt_mode; OFF for GANG
 * alone) and *gang (whether GANG was given; NULL for a partition's, where
 * Slurm ignores it).  Returns NULL, or why not. */
const char *conf_preempt_mode_parse(const char *value, uint32_t *mode,
                                    bool *gang);

/* Slurm's spelling of a mode ("OFF", "CANCEL", "REQUEUE", "SUSPEND") and
 * type ("preempt/none"...).  Static strings. */
const char *conf_preempt_mode_string(uint32_t mode);
const char *conf_preempt_type_string(uint32_t type);

/* EnforcePartLimits= (slurm.conf(5)): NO accepts a job over its
 * partition's MaxTime/MaxNodes (it pends with PartitionTimeLimit /
 * PartitionNodeLimit); ANY and ALL refuse it at submission (a job names
 * one partition in Drover, so they agree; YES is ALL). */
enum conf_part_limits { CONF_PART_LIMITS_NO, CONF_PART_LIMITS_ANY,
                        CONF_PART_LIMITS_ALL };

/* DefCpuPerGPU= and DefMemPerGPU= as Slurm prints them (JobDefaults=):
 * "DefCpuPerGPU=2,DefMemPerGPU=1024", or NULL when both are 0.  Writes at
 * most 'size' bytes (64 are always enough) into 'buf'. */
const char *conf_job_defaults_string(uint32_t cpu_per_gpu,
                                     uint64_t mem_per_gpu_mib, char *buf,
                                     size_t size);

/* Slurm's word for an EnforcePartLimits value ("NO", "ANY", "ALL"). */
const char *conf_part_limits_string(uint32_t v);

/* PriorityUsageResetPeriod= (slurm.conf(5)). */
enum conf_usage_reset {
    CONF_RESET_NONE, CONF_RESET_NOW, CONF_RESET_DAILY, CONF_RESET_WEEKLY,
    CONF_RESET_MONTHLY, CONF_RESET_QUARTERLY, CONF_RESET_YEARLY,
};

/* The Priority* keywords and FairShareDampeningFactor (conf_priority.c).
 * Defaults are Slurm's: priority/basic, weights 0, 7-day max age and
 * half-life, 5-minute calculation period. */
struct conf_priority {
    bool multifactor;          /* PriorityType=priority/multifactor (else
                                * priority/basic) */
    uint32_t weight_age, weight_assoc, weight_fairshare, weight_jobsize,
        weight_partition, weight_qos; /* PriorityWeight*= */
    uint32_t weight_tres[4];   /* PriorityWeightTRES=: cpu, mem, node,
                                * gres/gpu (sched/priority.h's order) */
    char *weight_tres_text;    /* as written, or NULL */
    uint32_t max_age_s;        /* PriorityMaxAge=, seconds */
    uint32_t decay_half_life_s;/* PriorityDecayHalfLife=, seconds; 0 none */
    uint32_t calc_period_s;    /* PriorityCalcPeriod=, seconds */
    uint32_t usage_reset;      /* PriorityUsageResetPeriod=: enum
                                * conf_usage_reset */
    bool favor_small;          /* PriorityFavorSmall=YES */
    uint32_t flags;            /* PriorityFlags=: sched/priority.h's enum
                                * prio_flags bits */
    uint32_t dampening;        /* FairShareDampeningFactor=, 1 */
};

/* The text scontrol show config prints for each value of 'p': flags as
 * Slurm's comma list ("" when none), usage reset period's word. */
const char *conf_priority_reset_string(uint32_t reset);
char *conf_priority_flags_string(uint32_t flags, char *buf, size_t size);

/* The formulas' view of 'cp' (sched/priority.h's struct prio_conf), as
 * the controller and drover-sim hand it to prio_factors() and
 * prio_total(). */
struct prio_conf;
void conf_priority_sched(const struct conf_priority *cp,
                         struct prio_conf *out);

/* SlurmctldParameters=rl_*: the controller's per-user RPC rate limit, a
 * token bucket per uid (slurm.conf(5), Slurm 23.02's; src/ctld/rate_limit.h
 * applies it).  Defaults are Slurm's. */
struct conf_rate_limit {
    bool enable;             /* rl_enable */
    uint32_t bucket_size;    /* rl_bucket_size=, tokens a user may hold, 30 */
    uint32_t refill_rate;    /* rl_refill_rate=, tokens added each period, 2 */
    uint32_t refill_period;  /* rl_refill_period=, seconds, 1 */
    uint32_t table_size;     /* rl_table_size=, users tracked, 8192 */
    uint32_t log_freq;       /* rl_log_freq=, refusals logged per user per
                              * period; 0 = every one */
};

/* TaskPluginParam=, as Slurm's task/affinity reads it. */
struct conf_task_param {
    enum cpubind_type bind;       /* None|Sockets|Cores|Threads: tasks'
                                   * binding when srun asks none;
                                   * CPUBIND_UNSET: not given */
    enum cpubind_type autobind;   /* autobind=: when the automatic binding
                                   * finds no match; CPUBIND_UNSET */
    bool verbose;                 /* Verbose: report every binding */
    bool slurmd_off_spec;         /* SlurmdOffSpec (no effect: no core
                                   * specialization) */
};

/* SlurmdParameters=drover_metrics=[HOST:]PORT: droverd's Prometheus
 * endpoint (conf_slurmd_params.c, noded/metrics.h). */
struct conf_metrics {
    bool enabled;            /* the item is there */
    char host[256];          /* address to bind, "127.0.0.1" by default */
    uint16_t port;           /* the port, or with port_offset the number
                              * added to the node's Port= */
    bool port_offset;        /* PORT was written "+N" */
};

struct slurm_conf {
    char *path;               /* the slurm.conf read */
    char *cluster_name;       /* ClusterName= */
    char *ctld_host;          /* first SlurmctldHost= (name part) */
    char *ctld_addr;          /* SlurmctldHost=name(addr) addr, else name */
    char **ctld_backup_addrs; /* the later SlurmctldHost= lines' addresses
                               * (addr, else name), in order: Slurm's backup
                               * controllers; commands try them after the
                               * first (cmd/lib/rpc.c) */
    char **ctld_backup_hosts; /* and their names */
    size_t ctld_backup_count;
    char *ctld_params;        /* SlurmctldParameters= */
    uint16_t raft_port;       /* its drover_raft_port=: the Raft group's
                               * port on each SlurmctldHost address; 0 =
                               * not set (one controller) */
    uint32_t raft_snapshot;   /* its drover_raft_snapshot=: Raft log entries
                               * between snapshots; 0 = the default
                               * (ctld/ha.c) */
    struct conf_rate_limit rl; /* its rl_* items (conf_ctld_params.c) */
    char *bcast_params;       /* BcastParameters= */
    struct {
        char *dest_dir;       /* its DestDir=: where sbcast puts a relative
                               * DEST; NULL: sbcast's current directory */
        bool compress;        /* its Compression=lz4 (sbcast -C's default) */
        bool send_libs;       /* its send_libs (--send-libs' default) */
    } bcast;
    char *comm_params;        /* CommunicationParameters= */
    struct conf_tls tls;      /* its drover_tls_* items */
    char *slurmd_params;      /* SlurmdParameters= */
    char *task_plugin_param;  /* TaskPluginParam= */
    struct conf_task_param task_param; /* its items */
    struct conf_metrics metrics; /* its drover_metrics= item */
    uint16_t ctld_port;       /* SlurmctldPort=, 6817 */
    uint16_t slurmd_port;     /* SlurmdPort=, 6818 */
    char *accounting_storage_tres; /* AccountingStorageTRES=: TRES tracked
                                    * besides Slurm's defaults ("gres/gpu,
                                    * license/x"), NULL = none; sacctmgr
                                    * show tres lists them */
    char *accounting_storage_type; /* AccountingStorageType=, NULL = none;
                                    * "accounting_storage/slurmdbd" sends
                                    * job records to droverdbd */
    char *accounting_storage_host; /* AccountingStorageHost=, NULL = the
                                    * controller's host */
    uint16_t accounting_storage_port; /* AccountingStoragePort=, 6819 */
    uint32_t accounting_storage_enforce; /* AccountingStorageEnforce=:
                                          * enum conf_enforce bits, 0 */
    uint32_t private_data;    /* PrivateData=: enum conf_private bits, 0 */
    char *slurm_user;         /* SlurmUser=, "root" */
    char *state_save_location;/* StateSaveLocation=, "/var/spool" */
    char *slurmd_spool_dir;   /* SlurmdSpoolDir= (may contain %n),
                               * "/var/spool/slurmd" */
    char *ctld_log_file;      /* SlurmctldLogFile= or NULL (stderr) */
    char *slurmd_log_file;    /* SlurmdLogFile= (may contain %n) or NULL */
    char *ctld_pid_file;      /* SlurmctldPidFile= or NULL */
    char *slurmd_pid_file;    /* SlurmdPidFile= (may contain %n) or NULL */
    char *ctld_debug;         /* SlurmctldDebug=, "info" (numbers 0-9 are
                               * stored as names: 3 -> "info") */
    char *slurmd_debug;       /* SlurmdDebug=, "info" */
    char *auth_socket;        /* AuthInfo=socket=PATH, or NULL (munge default) */
    char *auth_alt_types;     /* AuthAltTypes= as written ("auth/jwt"), NULL */
    char *auth_alt_params;    /* AuthAltParameters= as written, NULL;
                               * conf_auth_jwt() reads both */
    char *gres_types;         /* GresTypes= */
    char *operators;          /* DroverOperators= user list (drover extension)*/
    uint32_t first_job_id;    /* FirstJobId=, 1 */
    uint32_t max_job_id;      /* MaxJobId=, 67043328: ids wrap back to
                               * FirstJobId after it (ctld/job_id.h) */
    uint32_t over_time_min;   /* OverTimeLimit=, minutes, 0, or
                               * CONF_OVERTIME_UNLIMITED */
    uint32_t job_requeue;     /* JobRequeue=, 1: a batch job's --requeue
                               * unless it says --no-requeue */
    char *requeue_exit;       /* RequeueExit=: exit codes that requeue a
                               * batch job ("1-9,18"), or NULL */
    char *requeue_exit_hold;  /* RequeueExitHold=: likewise, held in
                               * SPECIAL_EXIT, or NULL */
    uint32_t kill_on_bad_exit;/* KillOnBadExit=, 0: srun -K's default */
    uint32_t job_file_append; /* JobFileAppend=, 0: a batch job's output
                               * and error files are appended to unless
                               * it says --open-mode=truncate */
    uint32_t complete_wait_s; /* CompleteWait=, seconds, 0: no job starts
                               * while a job has been COMPLETING for less */
    uint32_t max_job_count;   /* MaxJobCount=, 10000 */
    struct conf_mem def_mem;  /* DefMemPerCPU= / DefMemPerNode=, none;
                               * both given is an error */
    struct conf_mem max_mem;  /* MaxMemPerCPU= / MaxMemPerNode=, none */
    uint64_t def_mem_per_gpu_mib; /* DefMemPerGPU=, 0: none */
    uint32_t def_cpu_per_gpu; /* DefCpuPerGPU=, 0: none */
    bool disable_root_jobs;   /* DisableRootJobs=, NO */
    uint32_t max_tasks_per_node; /* MaxTasksPerNode=, 512 (at most 65533) */
    uint32_t max_step_count;  /* MaxStepCount=, 40000 */
    uint32_t inactive_limit_s; /* InactiveLimit=, seconds (0: none): an
                                * allocation whose salloc or srun has not
                                * been heard this long ends (TIMEOUT) */
    uint32_t max_array_size;  /* MaxArraySize=, 1001 */
    uint32_t kill_wait_s;     /* KillWait=, 30 */
    uint32_t sched_time_slice_s; /* SchedulerTimeSlice=, seconds each job
                                  * sharing CPUs runs in turn under
                                  * PreemptMode=GANG, 30 */
    uint32_t min_job_age_s;   /* MinJobAge=, 300 */
    uint32_t slurmd_timeout_s;/* SlurmdTimeout=, 300 */
    uint32_t msg_timeout_s;   /* MessageTimeout=, 10 */
    uint32_t tcp_timeout_s;   /* TCPTimeout=, 2: a command's connect to the
                               * controller */
    uint32_t return_to_service; /* ReturnToService=, 1 */
    char *select_type;        /* SelectType=, "select/cons_tres" */
    char *scheduler_type;     /* SchedulerType=, "sched/backfill" */
    char *proctrack_type;     /* ProctrackType=, "proctrack/cgroup" */
    char *task_plugin;        /* TaskPlugin=, "task/none" */
    char *propagate_rlimits;  /* PropagateResourceLimits=, checked
                               * (common/rlimits.h), "ALL" */
    char *propagate_rlimits_except; /* PropagateResourceLimitsExcept=, or
                                     * NULL; when set, every limit but
                                     * these (srun_env.h) */
    char *task_prolog;        /* TaskProlog=: run as the user before each
                               * step task (its "export"/"unset"/"print"
                               * lines apply), an absolute path, or NULL */
    char *task_epilog;        /* TaskEpilog=: run as the user after each
                               * step task, or NULL */
    char *srun_prolog;        /* SrunProlog=: run by srun, as its user on
                               * its host, before each step (srun_script.h),
                               * or NULL */
    char *srun_epilog;        /* SrunEpilog=: the same after each step */
    char *prolog;             /* Prolog=: run by droverd as root on each
                               * node before the job's first launch there,
                               * an absolute path or glob pattern (each
                               * match in order, as Slurm), or
                               * NULL (noded/prolog.h) */
    char *epilog;             /* Epilog=: likewise at the job's end on each
                               * of its nodes, or NULL */
    uint32_t prolog_epilog_timeout_s; /* PrologEpilogTimeout=, seconds;
                                       * 0 (Slurm's default 65534 too):
                                       * no limit; also PrologSlurmctld's
                                       * and EpilogSlurmctld's */
    uint32_t prolog_flags;    /* PrologFlags=: enum conf_prolog_flags */
    char *prolog_slurmctld;   /* PrologSlurmctld=: run by the controller as
                               * SlurmUser when a job is allocated, before
                               * it launches (ctld/prolog_ctld.h), an
                               * absolute path, or NULL */
    char *epilog_slurmctld;   /* EpilogSlurmctld=: likewise when a job that
                               * was allocated ends, or NULL */
    char *mail_prog;          /* MailProg=, the program the controller
                               * runs for job mail (ctld/mail.h),
                               * "/bin/mail" */
    char *scron_params;       /* ScronParameters= as given, or NULL:
                               * scrontab works when it holds "enable"
                               * (case-insensitive, as Slurm's strcasestr) */
    char *mail_domain;        /* MailDomain=: added to the user name of a
                               * job without --mail-user, or NULL */
    char *health_check_program; /* HealthCheckProgram=, an absolute path,
                                 * NULL: none */
    uint32_t health_check_interval_s; /* HealthCheckInterval=, seconds,
                                       * 0: never */
    uint32_t health_check_node_state; /* HealthCheckNodeState=: enum
                                       * conf_health_state bits, ANY */
    char *job_container_type; /* JobContainerType=, "job_container/none"
                               * or "job_container/tmpfs" */
    struct conf_job_container job_container; /* job_container.conf */
    struct conf_oci oci;      /* oci.conf; oci.path NULL: none */
    struct conf_sched sched;  /* SchedulerParameters= */
    struct conf_priority priority; /* Priority* keywords */
    uint32_t preempt_type;    /* PreemptType=: enum conf_preempt_type */
    uint32_t preempt_mode;    /* PreemptMode=: enum conf_preempt_mode, OFF */
    bool preempt_gang;        /* PreemptMode= includes GANG */
    uint32_t preempt_exempt_s;/* PreemptExemptTime=, seconds, 0 */
    uint32_t enforce_part_limits; /* EnforcePartLimits=: enum
                                   * conf_part_limits, NO */
    struct conf_cgroup cgroup;/* cgroup.conf beside slurm.conf */
    struct conf_node *nodes;
    size_t node_count;
    struct conf_partition *partitions;
    size_t partition_count;
    struct conf_index *node_index; /* private to src/conf: name lookup */
    struct conf_part_spec *part_defaults; /* private to src/conf: the
                                           * PartitionName=DEFAULT line
                                           * (conf_partition_init()) */
    char *mpi_default;        /* MpiDefault=: srun's --mpi when neither
                               * --mpi nor SLURM_MPI_TYPE says; "none",
                               * "pmix" or "pmix_v4", "none" */
    uint32_t group_update_time_s; /* GroupUpdateTime=, seconds the
                                   * controller trusts a user or group
                                   * lookup (common/ident.h); 0: until it
                                   * restarts; 600 */
    uint32_t wait_time_s;     /* WaitTime=: srun's -W when not given,
                               * seconds; 0: no limit */
    /* Every setting as read, for conf_changes(): "Key=value" of a
     * global keyword; "NodeName=n1" and "NodeName=n1\x1fKey=value" of a
     * record line (PartitionName=, NodeName=, DownNodes=); and each of
     * gres.conf, cgroup.conf, job_container.conf and oci.conf beside it,
     * when there, as "gres.conf\x1f" and its whole text.  In file order;
     * a later global setting of a keyword replaces an earlier one. */
    char **settings;
    size_t setting_count;
    /* "slurm.conf:LINE: Key=value has no effect in Drover: why", one per
     * keyword given that Drover accepts and does not use (conf_inert.c),
     * in file order: droverctld logs them at start; commands do not. */
    char **notices;
    size_t notice_count;
};

/* The slurm.conf the environment names: DROVER_CONF, else SLURM_CONF (as
 * every Slurm site's environment sets it), each only when set and not
 * empty; NULL when neither is.  The string is the environment's. */
const char *conf_env_path(void);

/* auth/jwt as AuthAltTypes= and AuthAltParameters= configure it (Slurm's
 * jwt.html). */
struct conf_jwt {
    bool enabled;             /* AuthAltTypes= names auth/jwt */
    char *key_path;           /* jwt_key=, default StateSaveLocation/
                               * jwt_hs256.key (caller frees) */
    bool token_creation;      /* false with disable_token_creation */
    long max_lifespan_s;      /* max_token_lifespan=, 0: no limit */
};

/* Fill 'out' from 'conf'.  Returns 0, or -1 with errno ENOMEM.  The
 * values were checked when the file was read (unknown types and
 * parameters are refused there). */
int conf_auth_jwt(const struct slurm_conf *conf, struct conf_jwt *out);

/* The same from AuthAltTypes= 'types' and AuthAltParameters= 'params'
 * (either NULL: not set) as read by a parser, with 'state_dir' for the
 * default key (NULL: /var/spool): slurmdbd.conf's. */
int conf_auth_jwt_from(const char *types, const char *params,
                       const char *state_dir, struct conf_jwt *out);

/* Read slurm.conf at 'path' (NULL: conf_env_path(), then the default path) and
 * gres.conf and cgroup.conf beside it (optional).  Warnings (unknown keywords) go to the log
 * at error level, prefixed "path:line:".  Returns a new conf (free with
 * conf_destroy()), or NULL with errno and 'error' saying
 * "slurm.conf:12: NodeName=n[1-2]: RealMemory=abc: not a number" or
 * "cannot open /x/slurm.conf: No such file or directory".  errno is EINVAL
 * for a bad file, ENOMEM, or open()'s errno (ENOENT, EACCES...) when
 * slurm.conf, gres.conf or an Include'd file cannot be read.
 *
 * gres.conf lines (Name= Type= File= Count= NodeName= AutoDetect=) give
 * each node's devices of a name in file order; without any for a name, the
 * node's Gres= counts give devices with file NULL.  Lines naming nodes that
 * slurm.conf lacks are skipped.  The device count per Gres= entry must match,
 * except for the GPUs of a node with AutoDetect=nvml (conf_node's
 * gpu_autodetect; its droverd merges what NVML finds).  AutoDetect= other
 * than off or nvml is an error.
 */
struct slurm_conf *conf_load(const char *path, drv_error_t *error);

/* As conf_load() for a command: NodeName= and DownNodes= lines are
 * checked but their nodes are not expanded (node_count is 0 and
 * conf_node_find() finds none), partitions keep Nodes= as written, and
 * gres.conf is not read.  As Slurm's commands, which expand node lines
 * only when they need a node's address: at 10,000 nodes the expansion
 * took 26 ms of each command's start (bench/scale).
 */
struct slurm_conf *conf_load_client(const char *path, drv_error_t *error);

/* One difference between two loads of slurm.conf (conf_changes()). */
struct conf_change {
    char *record; /* "PartitionName=debug", "NodeName=n1" for a record
                   * line's keyword or the record itself, a file's name
                   * ("gres.conf") for a file beside slurm.conf, NULL for a
                   * global keyword */
    char *key;    /* the keyword as the new file spells it (the old where
                   * it was removed): "MaxTime", "PartitionName" for a
                   * record added or removed; NULL for a file */
};

/* What changed from 'old' to 'new' (two loads of the same slurm.conf):
 * each global keyword whose value differs, was added or removed, each
 * keyword of a record line likewise, each record line added or removed,
 * each file beside slurm.conf whose text differs.  Keywords compare
 * case-insensitively, values exactly.  The *n changes, in the new file's
 * order then the removed ones,
 * in *out (free with conf_changes_free(); NULL when none).  Returns 0, or
 * -1 with errno ENOMEM. */
int conf_changes(const struct slurm_conf *old, const struct slurm_conf *new,
                 struct conf_change **out, size_t *n);

void conf_changes_free(struct conf_change *changes, size_t n);

/* Who applies a changed global keyword at a reconfigure (scontrol
 * reconfigure), reading it where it uses it: bits of enum conf_live, 0
 * when a change needs a restart (read at start, or copied into tables
 * built then).  'key' any case. */
enum conf_live {
    CONF_LIVE_CTLD = 1,     /* droverctld */
    CONF_LIVE_PRIORITY = 2, /* droverctld's priority weights, recomputed */
    CONF_LIVE_NODES = 4,    /* droverd (and the steps it starts next) */
    CONF_LIVE_COMMANDS = 8, /* only the commands, which read the file */
};
unsigned conf_live_key(const char *key);

/* The changes a reconfigure cannot apply, each as "Key: why",
 * "PartitionName=p MaxTime: why" or "PartitionName=q: why" (a record
 * added or removed once, not each of its keywords), in 'ch''s order: a
 * new json_t array, or NULL when every change may be applied. */
json_t *conf_changes_refused(const struct conf_change *ch, size_t n);

/* Parse slurm.conf text already in memory; 'path' is used for messages and
 * to find gres.conf (pass gres_text to give gres.conf text directly, or NULL
 * to read it from beside 'path' if it exists) and cgroup.conf (always read
 * from beside 'path' when it exists).  Same returns as conf_load().
 */
struct slurm_conf *conf_parse(const char *path, const char *text,
                              const char *gres_text, drv_error_t *error);

/* Borrowed lookups: valid while 'conf' lives.  NULL if no such name. */
const struct conf_node *conf_node_find(const struct slurm_conf *conf,
                                       const char *name);
const struct conf_partition *conf_partition_find(const struct slurm_conf *conf,
                                                 const char *name);
/* The Default=YES partition, else the first, else NULL. */
const struct conf_partition *conf_partition_default(const struct slurm_conf *c);

/* --- scontrol create|update partition -----------------------------------
 * A running controller changes a partition with the keywords of slurm.conf's
 * PartitionName= lines, read by the table that reads the file. */

/* A copy of 'src' into 'dst', its strings its own (free with
 * conf_partition_clear()).  0, or -1 with errno ENOMEM ('dst' cleared). */
int conf_partition_copy(struct conf_partition *dst,
                        const struct conf_partition *src);

/* Free what 'part' owns and zero it; NULL is a no-op; errno is kept. */
void conf_partition_clear(struct conf_partition *part);

/* Partition 'name' as a PartitionName=name line with no other keyword
 * makes it in 'conf' (NULL: no file): Slurm's values, the file's
 * PartitionName=DEFAULT line's, the global memory and GPU defaults and
 * DisableRootJobs, never Default (Slurm's scontrol create partition
 * starts from the same).  0, or -1 with errno (ENOMEM, or a DEFAULT
 * line's Nodes= the nodes no longer have) and 'error' set. */
int conf_partition_init(const struct slurm_conf *conf,
                        struct conf_partition *part, const char *name,
                        drv_error_t *error);

/* Set keys[i]=values[i] (i < n; slurm.conf's PartitionName= keywords, any
 * case, the old Shared= and Slurm's JobDefaults=DefCpuPerGPU=N,
 * DefMemPerGPU=MiB included) on 'part'.  Nodes= (a hostlist or ALL) is
 * resolved against the nodes of 'conf' (NULL: kept as written); Default=
 * sets this record's flag only (the caller moves the default).  All are
 * checked before any is set: on failure 'part' is unchanged, 'error' says
 * "Key=Value: why" and errno is
 *   EINVAL                 a bad value (or DefaultTime over MaxTime)
 *   ENOENT                 not a partition keyword
 *   ENOTSUP                a keyword with no counterpart in Drover
 *                          (conf_inert.c), with a value other than the
 *                          one that is Drover's behaviour (which is
 *                          taken as no change)
 *   EDRV_INVALID_NODE_NAME Nodes= names a node 'conf' lacks
 *   ENOMEM
 */
int conf_partition_update(const struct slurm_conf *conf,
                          struct conf_partition *part, size_t n,
                          const char *const keys[],
                          const char *const values[], drv_error_t *error);

/* How slurm.conf spells keyword 'key' (any case; Shared is OverSubscribe,
 * a keyword Drover does not model its own), or NULL when partitions have
 * no such keyword. */
const char *conf_partition_keyword(const char *key);

/* Do keywords 'a' and 'b' set the same value (the same keyword;
 * DefMemPerCPU and DefMemPerNode; JobDefaults and DefCpuPerGPU)? */
bool conf_partition_keys_overlap(const char *a, const char *b);

/* Expand %n (node name) and %h (hostname) in a path template such as
 * SlurmdSpoolDir=/var/spool/drover/%n.  Caller frees.  NULL on ENOMEM.
 */
char *conf_expand_node_path(const char *tmpl, const struct conf_node *node);

/* The port of node 'node''s droverd metrics endpoint
 * (SlurmdParameters=drover_metrics=, conf_slurmd_params.c): the port
 * given, or the node's Port= plus the "+N" given; 0 when the item is not
 * set or the sum passes 65535. */
uint16_t conf_metrics_port(const struct slurm_conf *conf,
                           const struct conf_node *node);

/* NULL is a no-op.  errno is preserved. */
void conf_destroy(struct slurm_conf *conf);

/* Parse cgroup.conf 'text' read from 'path' (for messages) into 'cg':
 * Slurm's defaults, then the file's keywords (CgroupPlugin,
 * CgroupMountpoint, Constrain{Cores,Devices,RAMSpace,SwapSpace},
 * AllowedRAMSpace, AllowedSwapSpace, MinRAMSpace; the other Slurm keywords
 * are accepted and ignored; unknown ones are a warning naming file and
 * line).  'text' NULL gives the defaults with cg->path NULL.  Returns 0,
 * or -1 with errno (EINVAL: 'error' says "cgroup.conf:3:
 * AllowedRAMSpace=x: not a percentage"; ENOMEM) and 'cg' untouched.
 * 'cg' must be zeroed or hold a parse result (its strings are replaced).
 */
int conf_cgroup_parse(struct conf_cgroup *cg, const char *path,
                      const char *text, drv_error_t *error);

/* Free the strings of 'cg' and zero it.  NULL is a no-op. */
void conf_cgroup_clear(struct conf_cgroup *cg);

/* True when TaskPlugin= lists task/cgroup ("task/affinity,task/cgroup"):
 * the cgroup.conf Constrain* limits apply (as in Slurm). */
bool conf_task_cgroup(const struct slurm_conf *conf);

/* True when TaskPlugin= lists task/affinity: srun's tasks are bound to
 * CPUs (src/noded/step_bind.h), as in Slurm 22.05. */
bool conf_task_affinity(const struct slurm_conf *conf);

/* True when jobs run in cgroups: ProctrackType=proctrack/cgroup (the
 * default) or TaskPlugin= lists task/cgroup, and cgroup.conf does not say
 * CgroupPlugin=disabled. */
bool conf_cgroup_in_use(const struct slurm_conf *conf);

/* AccountingStorageEnforce flags as `scontrol show config` prints them:
 * "associations,limits,qos" (Slurm's order), "none" for 0.  Written into
 * 'buf' (80 bytes are always enough); returns buf. */
char *conf_enforce_string(uint32_t flags, char *buf, size_t size);

/* HealthCheckNodeState= bits (enum conf_health_state) as Slurm's
 * scontrol show config prints them: "CYCLE,ANY", "IDLE,MIXED".  Writes at
 * most 'size' bytes (64 are always enough) into 'buf'; returns buf. */
char *conf_health_state_string(uint32_t flags, char *buf, size_t size);

/* PrologFlags= bits (enum conf_prolog_flags) as Slurm's scontrol show
 * config prints them ("Serial"), or "(null)" for none.  Writes at most
 * 'size' bytes (96 are always enough) into 'buf'; returns buf. */
char *conf_prolog_flags_string(uint32_t flags, char *buf, size_t size);

/* Node 'node''s job_container.conf settings into *jc (see struct conf_jc).
 * Returns 0; -1 with errno ENOENT when no line names the node (Slurm:
 * "Configuration for this node not found"), ENOMEM. */
int conf_job_container_for(const struct slurm_conf *conf, const char *node,
                           struct conf_jc *jc);

/* True when JobContainerType=job_container/tmpfs. */
bool conf_job_container_tmpfs(const struct slurm_conf *conf);

/* PrivateData= bits 'flags' (enum conf_private) as Slurm's scontrol show
 * config prints them: "jobs,nodes", or "none".  Writes at most 'size'
 * bytes into 'buf' (always terminated when size > 0) and returns buf.
 */
char *conf_private_string(uint32_t flags, char *buf, size_t size);

/* The part of 'conf' a step daemon runs by (droverstepd: src/noded/stepd.h),
 * for its node 'node': the path, the controller's address, SlurmdSpoolDir,
 * SlurmdLogFile, SlurmdDebug, ProctrackType, TaskPlugin, cgroup.conf's
 * settings, the node's name, port and GRES devices (gres.conf), and
 * with drover_tls_rpc the drover_tls_* paths (the step's I/O to srun and
 * sattach runs over TLS: src/noded/stepd_link.h).
 * droverd sends it with each launch, so a step runs by the configuration
 * its node daemon loaded.  New reference; NULL on ENOMEM.
 */
json_t *conf_step_to_json(const struct slurm_conf *conf,
                          const struct conf_node *node);

/* Back from conf_step_to_json()'s 'o' (borrowed): a configuration holding
 * what it carries and Slurm's defaults for every other key, with that one
 * node and no partition.  Free with conf_destroy().  NULL with 'error'
 * naming the member that is missing or of the wrong type.
 */
struct slurm_conf *conf_step_from_json(json_t *o, drv_error_t *error);

#endif /* !DROVER_CONF_CONF_H */
