/* SPDX-License-Identifier: Apache-2.0
 *
 * schema_msgs.c - the request body of every message type (schema.h)
 *
 * One table per message: what the serving daemon reads, with its JSON
 * type, bounds, unit and meaning.  The server checks a body against its
 * table before the handler runs, and docs/protocol-messages.md is
 * printed from these tables.  A key a handler reads belongs here; a key
 * here bounds what every sender may send.
 */
#include <stdint.h>

#include "common/error.h"
#include "common/mailtype.h"
#include "common/timefmt.h"
#include "conf/conf.h"
#include "proto/schema.h"
#include "sched/feature_expr.h"

#define P SCHEMA_PRINTABLE
#define R SCHEMA_REQUIRED
#define TOO_LONG EDRV_PATHNAME_TOO_LONG
#define ID_MAX UINT32_MAX
#define UID_MAX ((int64_t)UINT32_MAX - 1)
#define MIB_MAX ((int64_t)1 << 40)
#define END {NULL, 0, 0, 0, 0, 0, NULL, NULL}

/* --- controller: jobs --------------------------------------------------- */

/* Strings a command prints one per line may hold no control character. */
/* --container and Pyxis's options: the same fields wherever they go */
#define CONTAINER_FIELDS                                                       \
    {"container", SCHEMA_STR, 1, SCHEMA_PATH_MAX, EDRV_PATHNAME_TOO_LONG, 0,   \
     "path", "--container: OCI bundle the steps run in (oci.conf)"},           \
    {"container_image", SCHEMA_STR, 1, SCHEMA_PATH_MAX,                        \
     EDRV_PATHNAME_TOO_LONG, 0, NULL,                                          \
     "--container-image: OCI layout dir[:tag] or docker-archive:FILE"},        \
    {"container_mounts", SCHEMA_STR, 1, SCHEMA_STR_MAX, 0, 0, NULL,            \
     "--container-mounts: SRC[:DST[:ro|rw]],..."},                             \
    {"container_workdir", SCHEMA_STR, 1, SCHEMA_PATH_MAX,                      \
     EDRV_PATHNAME_TOO_LONG, 0, "path", "--container-workdir"},

/* -B S:C:T and its three options: node filters, for jobs and steps */
#define TOPO_FIELDS                                                            \
    {"sockets_per_node", SCHEMA_INT, 0, 65534,                                 \
     EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE, 0, "count",                       \
     "-B S, --sockets-per-node: nodes with at least this many sockets"},      \
    {"cores_per_socket", SCHEMA_INT, 0, 65534,                                 \
     EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE, 0, "count",                       \
     "-B S:C, --cores-per-socket: nodes with at least this many cores per "   \
     "socket"},                                                                \
    {"threads_per_core", SCHEMA_INT, 0, 65534,                                 \
     EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE, 0, "count",                       \
     "-B S:C:T, --threads-per-core: nodes with at least this many threads "   \
     "per core"},

static const struct schema_field job_submit_body[] = {
    {"name", SCHEMA_STR, 0, SCHEMA_STR_MAX, TOO_LONG, P, NULL, "job name (-J)"},
    {"partition", SCHEMA_STR, 0, SCHEMA_STR_MAX, TOO_LONG, P, NULL,
     "partition (-p); absent: the default partition"},
    {"account", SCHEMA_STR, 0, SCHEMA_STR_MAX, TOO_LONG, P, NULL,
     "account (-A); absent: the user's default"},
    {"qos", SCHEMA_STR, 0, SCHEMA_STR_MAX, TOO_LONG, P, NULL, "QOS (-q)"},
    {"reservation", SCHEMA_STR, 0, SCHEMA_STR_MAX, TOO_LONG, P, NULL,
     "--reservation: run in this reservation"},
    {"comment", SCHEMA_STR, 0, SCHEMA_STR_MAX, TOO_LONG, P, NULL,
     "--comment"},
    {"mail_type", SCHEMA_INT, 0, MAIL_TYPE_MASK, 0, 0, NULL,
     "--mail-type as Slurm's MAIL_* bits (common/mailtype.h); 0: none"},
    {"mail_user", SCHEMA_STR, 0, SCHEMA_STR_MAX, TOO_LONG, P, NULL,
     "--mail-user; absent: the user's name, @MailDomain when set"},
    {"submit_host", SCHEMA_STR, 0, SCHEMA_STR_MAX, TOO_LONG, P, NULL,
     "host the job was submitted from"},
    {"gres", SCHEMA_STR, 0, SCHEMA_STR_MAX, EDRV_INVALID_GRES, P, NULL,
     "--gres as given (\"gpu:2\")"},
    {"gpu_type", SCHEMA_STR, 0, SCHEMA_STR_MAX, EDRV_INVALID_GRES, P, NULL,
     "GPU type of --gres/--gpus (\"a100\")"},
    {"features", SCHEMA_STR, 0, FEATURE_EXPR_LEN_MAX, EDRV_INVALID_FEATURE, P,
     NULL, "-C feature expression"},
    {"work_dir", SCHEMA_STR, 0, SCHEMA_PATH_MAX, TOO_LONG, P, "path",
     "working directory (-D)"},
    {"std_out", SCHEMA_STR, 0, SCHEMA_PATH_MAX, TOO_LONG, P, "path",
     "-o pattern"},
    {"std_err", SCHEMA_STR, 0, SCHEMA_PATH_MAX, TOO_LONG, P, "path",
     "-e pattern"},
    {"std_in", SCHEMA_STR, 0, SCHEMA_PATH_MAX, TOO_LONG, P, "path",
     "-i pattern"},
    {"command", SCHEMA_STR, 0, SCHEMA_LIST_MAX, TOO_LONG, 0, "path",
     "the script's path; absent for --wrap and stdin"},
    {"req_nodes", SCHEMA_STR, 0, SCHEMA_LIST_MAX, EDRV_INVALID_NODE_NAME, P,
     "hostlist", "-w nodes"},
    {"exc_nodes", SCHEMA_STR, 0, SCHEMA_LIST_MAX, EDRV_INVALID_NODE_NAME, P,
     "hostlist", "-x nodes"},
    {"dependency", SCHEMA_STR, 0, SCHEMA_LIST_MAX, EDRV_DEPENDENCY, P, NULL,
     "-d list, Slurm's syntax"},
    {"kill_on_invalid_dep", SCHEMA_STR, 0, 16, 0, P, NULL,
     "\"yes\"/\"no\": --kill-on-invalid-dep"},
    {"array", SCHEMA_STR, 0, 4096, EDRV_INVALID_ARRAY, P, NULL,
     "--array spec (\"0-9%2\")"},
    {"open_mode", SCHEMA_STR, 0, 16, 0, P, NULL, "\"append\" or \"truncate\""},
    {"script", SCHEMA_STR, 0, CONF_MAX_SCRIPT_SIZE_MAX, TOO_LONG, 0, "bytes",
     "the batch script (also bounded by max_script_size)"},
    {"argv", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, TOO_LONG, 0, NULL,
     "the script's arguments"},
    {"env", SCHEMA_STR_MAP, 0, SCHEMA_LIST_MAX, TOO_LONG, 0, NULL,
     "the job's environment"},
    {"user_id", SCHEMA_INT, 0, UID_MAX, EDRV_USER_ID_MISSING, 0, "uid",
     "--uid (root or SlurmUser only)"},
    {"group_id", SCHEMA_INT, 0, UID_MAX, EDRV_USER_ID_MISSING, 0, "gid",
     "--gid"},
    {"nodes_min", SCHEMA_INT, 0, INT32_MAX, EDRV_INVALID_NODE_COUNT, 0,
     "count", "-N minimum"},
    {"nodes_max", SCHEMA_INT, 0, INT32_MAX, EDRV_INVALID_NODE_COUNT, 0,
     "count", "-N maximum"},
    {"ntasks", SCHEMA_INT, 0, INT32_MAX, EDRV_TOO_MANY_REQUESTED_CPUS, 0,
     "count", "-n (older senders)"},
    {"num_tasks", SCHEMA_INT, 0, INT32_MAX, EDRV_TOO_MANY_REQUESTED_CPUS, 0,
     "count", "-n"},
    {"cpus_per_task", SCHEMA_INT, 0, 65535, EDRV_TOO_MANY_REQUESTED_CPUS, 0,
     "count", "-c"},
    {"min_cpus_per_node", SCHEMA_INT, 0, 65535,
     EDRV_TOO_MANY_REQUESTED_CPUS, 0, "count", "--mincpus"},
    {"min_tmp_mib", SCHEMA_INT, 0, MIB_MAX, EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE,
     0, "MiB", "--tmp: nodes with at least this TmpDisk"},
    {"ntasks_per_node", SCHEMA_INT, 0, 65535, EDRV_TOO_MANY_REQUESTED_CPUS, 0,
     "count", "--ntasks-per-node"},
    TOPO_FIELDS
    {"cpus_per_gpu", SCHEMA_INT, 0, 65535, EDRV_TOO_MANY_REQUESTED_CPUS, 0,
     "count", "--cpus-per-gpu"},
    {"mem_per_node_mib", SCHEMA_INT, 0, MIB_MAX, EDRV_INVALID_TASK_MEMORY, 0,
     "MiB", "--mem"},
    {"mem_per_cpu_mib", SCHEMA_INT, 0, MIB_MAX, EDRV_INVALID_TASK_MEMORY, 0,
     "MiB", "--mem-per-cpu"},
    {"mem_per_gpu_mib", SCHEMA_INT, 0, MIB_MAX, EDRV_INVALID_TASK_MEMORY, 0,
     "MiB", "--mem-per-gpu"},
    CONTAINER_FIELDS
    {"gpus", SCHEMA_INT, 0, 65535, EDRV_INVALID_GRES, 0, "count",
     "--gpus (the job's total)"},
    {"gpus_per_node", SCHEMA_INT, 0, 65535, EDRV_INVALID_GRES, 0, "count",
     "--gres=gpu:N, --gpus-per-node"},
    {"gpus_per_task", SCHEMA_INT, 0, 65535, EDRV_INVALID_GRES, 0, "count",
     "--gpus-per-task"},
    {"gpus_per_socket", SCHEMA_INT, 0, 65535, EDRV_INVALID_GRES, 0, "count",
     "--gpus-per-socket (needs sockets_per_node: the job gets this times "
     "sockets_per_node GPUs on each node)"},
    {"shards_per_node", SCHEMA_INT, 0, 65535, EDRV_INVALID_GRES, 0, "count",
     "--gres=shard:N (gres/shard of one GPU per node)"},
    {"mps_per_node", SCHEMA_INT, 0, 65535, EDRV_INVALID_GRES, 0, "count",
     "--gres=mps:N (gres/mps of one GPU per node)"},
    {"time_limit_s", SCHEMA_INT, TIME_INFINITE, SCHEMA_TIME_MAX_S,
     EDRV_INVALID_TIME_LIMIT, 0, "s", "-t; -1: UNLIMITED"},
    {"time_min_s", SCHEMA_INT, TIME_INFINITE, SCHEMA_TIME_MAX_S,
     EDRV_INVALID_TIME_MIN_LIMIT, 0, "s", "--time-min"},
    {"begin_time", SCHEMA_INT, 0, SCHEMA_EPOCH_MAX, EDRV_INVALID_TIME_VALUE, 0,
     "epoch s", "--begin"},
    {"nice", SCHEMA_INT, -2147483645, 2147483645, EDRV_INVALID_NICE, 0, NULL,
     "--nice adjustment"},
    {"signal_num", SCHEMA_INT, 0, 64, 0, 0, "signal", "--signal number"},
    {"signal_secs", SCHEMA_INT, 0, 65535, 0, 0, "s",
     "--signal: seconds before the time limit"},
    {"exclusive", SCHEMA_BOOL, 0, 0, 0, 0, NULL, "--exclusive"},
    {"hold", SCHEMA_BOOL, 0, 0, 0, 0, NULL, "-H: submit held"},
    {"requeue", SCHEMA_BOOL, 0, 0, 0, 0, NULL, "--requeue/--no-requeue"},
    {"no_kill", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "-k/--no-kill: a failed node other than the batch host leaves the "
     "job, which goes on"},
    {"interactive", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "salloc/srun allocation: no batch script"},
    {"signal_batch_only", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "--signal=B: only the batch shell"},
    {"test_only", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "--test-only: plan, queue nothing"},
    END,
};

/* Checked all before any is applied (job_update.c). */
static const struct schema_field job_update_body[] = {
    {"job_id", SCHEMA_INT, 0, ID_MAX, EDRV_INVALID_JOB_ID, 0, NULL,
     "the job (or array)"},
    {"array_throttle", SCHEMA_INT, 0, UINT32_MAX, EDRV_INVALID_JOB_ID, 0,
     "count", "ArrayTaskThrottle="},
    {"time_limit_s", SCHEMA_INT, TIME_INFINITE, SCHEMA_TIME_MAX_S,
     EDRV_INVALID_TIME_LIMIT, 0, "s", "TimeLimit=; -1: UNLIMITED"},
    {"nodes_min", SCHEMA_INT, 0, INT32_MAX, EDRV_INVALID_NODE_COUNT, 0,
     "count", "NumNodes= minimum"},
    {"nodes_max", SCHEMA_INT, 0, INT32_MAX, EDRV_INVALID_NODE_COUNT, 0,
     "count", "NumNodes= maximum"},
    {"begin_time", SCHEMA_INT, 0, SCHEMA_EPOCH_MAX, EDRV_INVALID_TIME_VALUE, 0,
     "epoch s", "StartTime="},
    {"partition", SCHEMA_STR, 0, SCHEMA_STR_MAX, EDRV_PATHNAME_TOO_LONG, P,
     NULL, "Partition="},
    {"name", SCHEMA_STR, 0, SCHEMA_STR_MAX, EDRV_PATHNAME_TOO_LONG, P, NULL,
     "Name="},
    {"features", SCHEMA_STR, 0, FEATURE_EXPR_LEN_MAX, EDRV_INVALID_FEATURE, P,
     NULL, "Features="},
    {"dependency", SCHEMA_STR, 0, SCHEMA_LIST_MAX, EDRV_DEPENDENCY, P, NULL,
     "Dependency=; \"\" clears it"},
    {"mail_type", SCHEMA_INT, 0, MAIL_TYPE_MASK, 0, 0, NULL,
     "MailType= as MAIL_* bits (common/mailtype.h); 0: NONE"},
    {"mail_user", SCHEMA_STR, 0, SCHEMA_STR_MAX, EDRV_PATHNAME_TOO_LONG, P,
     NULL, "MailUser=; \"\": the default (the user, @MailDomain)"},
    {"priority", SCHEMA_INT, 0, 0xfffffffeLL, EDRV_INVALID_JOB_ID, 0, NULL,
     "Priority= (kept, not computed again; raising it needs an operator); "
     "0 holds the job (JobHeldAdmin)"},
    END,
};

static const struct schema_field job_cancel_body[] = {
    {"job_id", SCHEMA_INT, 0, ID_MAX, EDRV_INVALID_JOB_ID, 0, NULL,
     "the job (or array)"},
    {"signal", SCHEMA_INT, 1, 64, 0, 0, "signal",
     "scancel -s; absent: SIGKILL (cancel)"},
    {"array_tasks", SCHEMA_STR, 0, 4096, EDRV_INVALID_ARRAY, 0, NULL,
     "array task ids (\"1,3-5\") of job_id"},
    {"scope", SCHEMA_STR, 0, 8, 0, 0, NULL,
     "with a signal: \"steps\" (the default, as scancel's: every step "
     "but the batch script), \"batch\" (-b: the script only) or "
     "\"full\" (-f: both)"},
    END,
};

/* --- controller: steps -------------------------------------------------- */

static const struct schema_field step_create_body[] = {
    {"job_id", SCHEMA_INT, 0, ID_MAX, EDRV_INVALID_JOB_ID, R, NULL,
     "the job whose allocation the step runs in"},
    {"ntasks", SCHEMA_INT, 0, 65536, EDRV_INVALID_NODE_COUNT, 0, "count",
     "-n; 0: one per node"},
    {"nodes", SCHEMA_INT, 0, 65536, EDRV_INVALID_NODE_COUNT, 0, "count",
     "-N; 0: as the tasks need"},
    {"cpus_per_task", SCHEMA_INT, 0, 65536, 0, 0, "count", "-c"},
    {"min_cpus", SCHEMA_INT, 0, 65536, EDRV_TOO_MANY_REQUESTED_CPUS, 0,
     "count", "--mincpus: the job's CPUs a node of the step must have"},
    TOPO_FIELDS
    {"mem_mib", SCHEMA_INT, 0, MIB_MAX, EDRV_INVALID_TASK_MEMORY, 0, "MiB",
     "--mem of the step"},
    {"gpus_per_task", SCHEMA_INT, 0, 1024, EDRV_INVALID_GRES, 0, "count",
     "--gpus-per-task"},
    {"gpus_per_node", SCHEMA_INT, 0, 1024, EDRV_INVALID_GRES, 0, "count",
     "--gres=gpu:N"},
    {"gpus", SCHEMA_INT, 0, 65536, EDRV_INVALID_GRES, 0, "count", "--gpus"},
    {"exact", SCHEMA_BOOL, 0, 0, 0, 0, NULL, "--exact"},
    {"overlap", SCHEMA_BOOL, 0, 0, 0, 0, NULL, "--overlap"},
    {"overcommit", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "-O: more tasks than the job's CPUs on a node"},
    {"argv", SCHEMA_STR_LIST, 1, SCHEMA_LIST_MAX, EDRV_PATHNAME_TOO_LONG, R,
     NULL, "the program and its arguments"},
    {"env", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, EDRV_PATHNAME_TOO_LONG, R,
     NULL, "the tasks' environment, NAME=value"},
    {"cwd", SCHEMA_STR, 0, SCHEMA_PATH_MAX, EDRV_PATHNAME_TOO_LONG, R, "path",
     "the tasks' working directory"},
    {"io_port", SCHEMA_INT, 1, 65535, 0, R, "port",
     "srun's I/O port on its host"},
    {"io_key", SCHEMA_STR, 64, 64, 0, R | SCHEMA_HEX, NULL,
     "secret the nodes' I/O connections must present"},
    {"distribution", SCHEMA_STR, 0, 256, 0, 0, NULL, "-m"},
    {"task_nodes", SCHEMA_STR_LIST, 0, 65536, 0, 0, NULL,
     "--multi-prog/-w: node of each task"},
    {"nodelist", SCHEMA_STR, 0, SCHEMA_LIST_MAX, 0, 0, "hostlist",
     "-w: nodes of the job the step must run on"},
    {"exclude", SCHEMA_STR, 0, SCHEMA_LIST_MAX, 0, 0, "hostlist",
     "-x: nodes of the job the step must not run on"},
    {"mpi", SCHEMA_STR, 0, 64, 0, 0, NULL, "--mpi plugin"},
    CONTAINER_FIELDS
    {"input", SCHEMA_STR, 0, SCHEMA_PATH_MAX, EDRV_PATHNAME_TOO_LONG, 0, NULL,
     "--input"},
    {"multi_prog", SCHEMA_STR, 0, 1048576, 0, 0, NULL,
     "--multi-prog: the file's text (common/multiprog.h)"},
    {"task_prolog", SCHEMA_STR, 0, SCHEMA_PATH_MAX, EDRV_PATHNAME_TOO_LONG, 0,
     "path", "--task-prolog"},
    {"task_epilog", SCHEMA_STR, 0, SCHEMA_PATH_MAX, EDRV_PATHNAME_TOO_LONG, 0,
     "path", "--task-epilog"},
    {"rlimits", SCHEMA_OBJECT, 0, 16, 0, 0, NULL,
     "srun's soft limits to propagate: {\"CORE\":N,...}, -1 unlimited"},
    {"preserve_env", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "-E: the tasks keep SLURM_NTASKS, SLURM_NNODES"},
    /* checked by srun (common/cpubind.h); droverstepd parses them again */
    {"cpu_bind", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, 0, NULL, "--cpu-bind"},
    {"gpu_bind", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, 0, NULL, "--gpu-bind"},
    {"hint", SCHEMA_STR, 0, 64, 0, 0, NULL, "--hint"},
    {"pty", SCHEMA_BOOL, 0, 0, 0, 0, NULL, "--pty"},
    {"pty_rows", SCHEMA_INT, 0, 65535, 0, 0, "count", "terminal rows"},
    {"pty_cols", SCHEMA_INT, 0, 65535, 0, 0, "count", "terminal columns"},
    {"srun_host", SCHEMA_STR, 0, SCHEMA_STR_MAX, EDRV_PATHNAME_TOO_LONG, P,
     NULL, "srun's host, for sacct/squeue -s"},
    {"srun_pid", SCHEMA_INT, 0, INT32_MAX, 0, 0, "pid", "srun's pid"},
    END,
};

/* --- tables drafted from the handlers and their senders ------------------ */

static const struct schema_field node_info_body[] = {
    {"names", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "only these nodes; absent or empty: every node"},
    {"stale_ok", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "a Raft follower may answer from its copy (DROVER_STALE_READS=1)"},
    END,
};

static const struct schema_field partition_info_body[] = {
    {"names", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "only these partitions; absent or empty: all"},
    {"show_all", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "-a: hidden and not-allowed partitions too"},
    {"stale_ok", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "a Raft follower may answer from its copy (DROVER_STALE_READS=1)"},
    END,
};

static const struct schema_field node_update_body[] = {
    {"name", SCHEMA_STR, 0, SCHEMA_LIST_MAX, EDRV_INVALID_NODE_NAME,
     SCHEMA_REQUIRED, "hostlist", "the nodes, a hostlist expression"},
    {"state", SCHEMA_STR, 0, SCHEMA_STR_MAX, EDRV_INVALID_NODE_STATE, 0, NULL,
     "DRAIN, UNDRAIN, RESUME or DOWN (any case)"},
    {"reason", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, 0, NULL,
     "Reason=; needed with DRAIN and DOWN"},
    {"weight", SCHEMA_INT, 0, (int64_t)UINT32_MAX - 1, 0, 0, NULL,
     "Weight= for the scheduler"},
    END,
};

/* scontrol create|update|delete partition: slurm.conf's keywords. */
static const struct schema_field part_body[] = {
    {"name", SCHEMA_STR, 1, 256, EDRV_INVALID_PARTITION_NAME,
     SCHEMA_REQUIRED | P, NULL, "PartitionName="},
    {"set", SCHEMA_STR_MAP, 0, 64, 0, 0, NULL,
     "the settings, {\"Keyword\": \"value\"} with slurm.conf's "
     "PartitionName= keywords and values (State, MaxTime, Nodes, Default, "
     "AllowGroups...); part_update: at least one"},
    END,
};

static const struct schema_field part_name_body[] = {
    {"name", SCHEMA_STR, 1, 256, EDRV_INVALID_PARTITION_NAME,
     SCHEMA_REQUIRED | P, NULL, "PartitionName="},
    END,
};

static const struct schema_field node_register_body[] = {
    {"node", SCHEMA_STR, 0, SCHEMA_STR_MAX, EDRV_INVALID_NODE_NAME,
     SCHEMA_REQUIRED, NULL, "the registering node's name"},
    {"start_time", SCHEMA_INT, 0, SCHEMA_EPOCH_MAX, 0, 0, "epoch s",
     "when droverd started"},
    {"os", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, 0, NULL,
     "\"sysname release version\" (uname) for OS="},
    /* [{"node","job_id","step_id","status",...}]: step_complete bodies */
    {"done", SCHEMA_ARRAY, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "unacknowledged reports, each a step_complete body"},
    /* [{"job_id", "run_id"?}] */
    {"jobs", SCHEMA_ARRAY, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "batch jobs running here: [{job_id, run_id}]"},
    /* [{"job_id", "step_id"}] */
    {"steps", SCHEMA_ARRAY, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "steps running here: [{job_id, step_id}]"},
    /* [{"index","type"?,"file"?,"uuid"?}] */
    {"gpus", SCHEMA_ARRAY, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "with gres.conf AutoDetect=nvml only: the GPUs found and merged, "
     "[{index, type, file, uuid}]"},
    {"health_ok", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "the last HealthCheckProgram run passed (absent: none ran)"},
    {"health_reason", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, SCHEMA_PRINTABLE,
     NULL, "a failed run's output, the node's drain reason"},
    {"epilog_failed", SCHEMA_INT_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "jobs whose Epilog= failed here since the last answered "
     "registration (the node drains: Epilog error)"},
    {"epilog_done", SCHEMA_INT_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "jobs whose Epilog= ended here since the last answered "
     "registration (the node is COMPLETING until then)"},
    END,
};

static const struct schema_field job_complete_body[] = {
    {"node", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, SCHEMA_REQUIRED, NULL,
     "the reporting node (its batch host)"},
    /* not SCHEMA_REQUIRED: without it the report is dropped, answered {} */
    {"job_id", SCHEMA_INT, 0, UINT32_MAX, 0, 0, NULL, "the job"},
    {"run_id", SCHEMA_INT, 0, UINT32_MAX, 0, 0, NULL,
     "which run of the job; another run's report is ignored"},
    {"status", SCHEMA_INT, INT32_MIN, INT32_MAX, 0, 0, NULL,
     "the script's wait status"},
    {"timed_out", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "killed at its time limit: TIMEOUT"},
    {"oom", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "the OOM killer struck: OUT_OF_MEMORY"},
    {"cancelled", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "the batch step was cancelled"},
    {"max_rss_kib", SCHEMA_INT, 0, INT64_MAX, 0, 0, "KiB",
     "the script's largest resident set"},
    {"max_rss_task", SCHEMA_INT, -1, INT32_MAX, 0, 0, NULL,
     "rank of the task with max_rss_kib; -1: none"},
    {"user_cpu_us", SCHEMA_INT, 0, INT64_MAX, 0, 0, "us", "user CPU time"},
    {"sys_cpu_us", SCHEMA_INT, 0, INT64_MAX, 0, 0, "us", "system CPU time"},
    END,
};

static const struct schema_field job_release_body[] = {
    {"job_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the allocation's job"},
    {"exit_status", SCHEMA_INT, 0, INT32_MAX, 0, 0, NULL,
     "the command's wait status, the job's exit code"},
    END,
};

static const struct schema_field job_alive_body[] = {
    {"job_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the allocation's job"},
    END,
};

static const struct schema_field job_info_body[] = {
    {"stale_ok", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "a Raft follower may answer from its copy (DROVER_STALE_READS=1)"},
    {"job_ids", SCHEMA_INT_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "only these jobs (or arrays); absent or empty: a listing"},
    {"user_ids", SCHEMA_INT_LIST, 0, SCHEMA_LIST_MAX, 0, 0, "uid",
     "only these owners"},
    {"partitions", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "only jobs of these partitions"},
    {"states", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "only these states (\"PENDING\", \"CG\"...); unknown: none"},
    {"fields", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "keys wanted in each record; absent: the full record"},
    {"show_all", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "-a: jobs of hidden partitions too"},
    {"rows", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "with fields: each job as an array of values in the order of the "
     "answer's \"keys\" (null: none), not an object"},
    {"parts", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "the answer in parts, sent as written: frames marked \"more\", the "
     "later ones with \"jobs\" alone (docs/protocol.md)"},
    END,
};

static const struct schema_field job_hold_body[] = {
    {"job_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the job"},
    {"hold", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "true: hold (the default); false: release"},
    END,
};

static const struct schema_field job_script_body[] = {
    {"job_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the job"},
    END,
};

static const struct schema_field crontab_set_body[] = {
    {"user_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_USER_ID_MISSING, 0, NULL,
     "scrontab -u: another user's crontab (root and SlurmUser); absent: "
     "the sender's"},
    {"text", SCHEMA_STR, 0, CONF_MAX_SCRIPT_SIZE_MAX, TOO_LONG,
     SCHEMA_REQUIRED, "bytes", "the crontab file, as scrontab -l prints "
     "it back"},
    {"entries", SCHEMA_ARRAY, 0, SCHEMA_LIST_MAX, 0, SCHEMA_REQUIRED, NULL,
     "its entries: {\"line_start\",\"line_end\" (1-based: the first "
     "#SCRON line to the entry's),\"cron_spec\",\"job\" (a job_submit "
     "body)}"},
    END,
};

static const struct schema_field crontab_user_body[] = {
    {"user_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_USER_ID_MISSING, 0, NULL,
     "scrontab -u: another user's crontab (listing: operators and "
     "administrators too); absent: the sender's"},
    END,
};

static const struct schema_field job_stat_body[] = {
    {"job_id", SCHEMA_INT, 1, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the running job"},
    END,
};

/* scontrol show assoc_mgr: Slurm's assoc_mgr_info_request_msg_t */
static const struct schema_field assoc_mgr_info_body[] = {
    {"users", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "users=: these users' associations (and every account's) and "
     "records"},
    {"accounts", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "accounts=: these accounts' associations"},
    {"qos", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "qos=: these QOS, in this order"},
    {"flags", SCHEMA_INT, 0, 7, 0, 0, NULL,
     "flags=: 1 associations, 2 users, 4 QOS; absent or 0: all"},
    END,
};

static const struct schema_field takeover_body[] = {
    {"index", SCHEMA_INT, 0, 64, EDRV_PROTOCOL_MALFORMED, 0, NULL,
     "INDEX: SlurmctldHost[INDEX] takes over (default 1)"},
    END,
};

/* The first frame on a connection to a controller's Raft port, and the
 * answer (src/ctld/ha_transport.h): who is connecting to whom, bound to
 * the sender's MUNGE credential. */
static const struct schema_field raft_hello_body[] = {
    {"id", SCHEMA_INT, 1, 65, 0, SCHEMA_REQUIRED, NULL,
     "the sender's Raft id (its SlurmctldHost index + 1)"},
    {"to", SCHEMA_INT, 1, 65, 0, SCHEMA_REQUIRED, NULL,
     "the Raft id the sender dialled"},
    {"address", SCHEMA_STR, 3, 300, 0, SCHEMA_REQUIRED | P, NULL,
     "the sender's Raft address, ADDR:drover_raft_port"},
    {"nonce", SCHEMA_STR, 32, 32, 0, SCHEMA_REQUIRED | SCHEMA_HEX, NULL,
     "128 random bits, echoed in the welcome"},
    END,
};

static const struct schema_field raft_welcome_body[] = {
    {"id", SCHEMA_INT, 1, 65, 0, SCHEMA_REQUIRED, NULL,
     "the answering controller's Raft id"},
    {"nonce", SCHEMA_STR, 32, 32, 0, SCHEMA_REQUIRED | SCHEMA_HEX, NULL,
     "the hello's nonce"},
    END,
};

static const struct schema_field token_issue_body[] = {
    {"username", SCHEMA_STR, 1, 256, EDRV_USER_ID_MISSING, P, NULL,
     "username=: whose token (default: the sender; another user's needs "
     "an administrator)"},
    {"lifespan", SCHEMA_INT, 1, INT32_MAX, EDRV_PROTOCOL_MALFORMED, 0, "s",
     "lifespan=: seconds until it expires (default 1800, Slurm's)"},
    END,
};

static const struct schema_field job_requeue_body[] = {
    {"job_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the job"},
    {"hold", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "requeuehold: hold the job once back in the queue"},
    END,
};

static const struct schema_field step_info_body[] = {
    {"job_ids", SCHEMA_INT_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "only steps of these jobs (or arrays); absent: all"},
    {"fields", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "keys wanted in each record; absent: all of them"},
    {"all_states", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "ended steps too; absent: running steps only"},
    END,
};

static const struct schema_field step_cancel_body[] = {
    {"job_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the job"},
    {"step_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the step (0xfffffffb: the batch step)"},
    {"signal", SCHEMA_INT, 0, 64, 0, 0, "signal",
     "signal for the tasks; 0 or absent: SIGKILL, a cancel"},
    {"node_fail", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, 0, NULL,
     "srun lost this node: the step ends NODE_FAIL"},
    {"cancel", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "the step ends CANCELLED whatever the signal"},
    END,
};

static const struct schema_field step_complete_body[] = {
    {"node", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, SCHEMA_REQUIRED, NULL,
     "the reporting node"},
    {"job_id", SCHEMA_INT, 0, UINT32_MAX, 0, SCHEMA_REQUIRED, NULL,
     "the job"},
    {"step_id", SCHEMA_INT, 0, UINT32_MAX, 0, SCHEMA_REQUIRED, NULL,
     "the step; 0xfffffffb: the batch script"},
    {"status", SCHEMA_INT, INT32_MIN, INT32_MAX, 0, 0, NULL,
     "largest wait status of the node's tasks"},
    {"cancelled", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "the tasks were killed (scancel, lost step process)"},
    {"max_rss_kib", SCHEMA_INT, 0, INT64_MAX, 0, 0, "KiB",
     "largest resident set of a task here"},
    {"max_rss_task", SCHEMA_INT, -1, INT32_MAX, 0, 0, NULL,
     "rank of the task with max_rss_kib; -1: none"},
    {"user_cpu_us", SCHEMA_INT, 0, INT64_MAX, 0, 0, "us",
     "user CPU time of the tasks here, summed"},
    {"sys_cpu_us", SCHEMA_INT, 0, INT64_MAX, 0, 0, "us",
     "system CPU time of the tasks here, summed"},
    /* the batch script's report only (step_id 0xfffffffb) */
    {"run_id", SCHEMA_INT, 0, UINT32_MAX, 0, 0, NULL,
     "batch: which run; another run's report is ignored"},
    {"timed_out", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "batch: killed at its time limit"},
    {"oom", SCHEMA_BOOL, 0, 0, 0, 0, NULL, "batch: the OOM killer struck"},
    END,
};

static const struct schema_field step_signal_body[] = {
    {"job_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the job"},
    {"step_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the step"},
    {"signal", SCHEMA_INT, 1, 64, 0, 0, "signal",
     "the signal; absent: SIGKILL"},
    {"cancelled", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "a cancel: the step's report says cancelled"},
    END,
};

static const struct schema_field step_launch_body[] = {
    {"job_id", SCHEMA_INT, 0, UINT32_MAX, 0, SCHEMA_REQUIRED, NULL,
     "the job (0: refused)"},
    {"step_id", SCHEMA_INT, 0, UINT32_MAX, 0, SCHEMA_REQUIRED, NULL,
     "the step"},
    {"uid", SCHEMA_INT, 0, (int64_t)UINT32_MAX - 1, 0, SCHEMA_REQUIRED, "uid",
     "the job's user: the tasks run as them"},
    {"gid", SCHEMA_INT, 0, (int64_t)UINT32_MAX - 1, 0, SCHEMA_REQUIRED, "gid",
     "the job's group"},
    {"user_name", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, SCHEMA_REQUIRED, NULL,
     "the job's user name (or the uid in decimal)"},
    {"argv", SCHEMA_STR_LIST, 1, SCHEMA_LIST_MAX, 0, SCHEMA_REQUIRED, NULL,
     "the program and its arguments"},
    /* step_create's env (<= SCHEMA_LIST_MAX) plus SLURM_DISTRIBUTION and
     * SLURM_DIST_PLANESIZE, which the controller adds */
    {"env", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX + 2, 0, 0, NULL,
     "the tasks' environment, NAME=value"},
    {"cwd", SCHEMA_STR, 0, SCHEMA_PATH_MAX, 0, SCHEMA_REQUIRED, "path",
     "the tasks' working directory"},
    {"ntasks", SCHEMA_INT, 0, 65536, 0, SCHEMA_REQUIRED, "count",
     "the step's tasks on all its nodes"},
    {"nodes", SCHEMA_STR, 0, SCHEMA_LIST_MAX, 0, SCHEMA_REQUIRED, "hostlist",
     "the step's nodes (SLURM_STEP_NODELIST)"},
    {"tasks_per_node", SCHEMA_STR, 0, SCHEMA_LIST_MAX, 0, SCHEMA_REQUIRED,
     NULL, "tasks of each node, \"2(x3),1\""},
    {"num_nodes", SCHEMA_INT, 0, 65536, 0, SCHEMA_REQUIRED, "count",
     "the step's node count"},
    {"node_index", SCHEMA_INT, 0, 65535, 0, SCHEMA_REQUIRED, NULL,
     "this node's index in the step (SLURM_NODEID)"},
    {"ranks", SCHEMA_INT_LIST, 1, 65536, 0, SCHEMA_REQUIRED, NULL,
     "the ranks of the tasks to start here"},
    {"io_host", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, SCHEMA_REQUIRED, NULL,
     "srun's address (IPv4 or IPv6 text)"},
    {"io_port", SCHEMA_INT, 1, 65535, 0, 0, "port",
     "srun's I/O port"},
    /* droverstepd only wants a string; step_create bounds it so */
    {"io_key", SCHEMA_STR, 64, 64, 0, SCHEMA_REQUIRED | SCHEMA_HEX, NULL,
     "the secret the I/O connection presents to srun"},
    {"mpi", SCHEMA_STR, 0, 64, 0, 0, NULL,
     "--mpi: none, pmix or pmix_v4; others refused"},
    CONTAINER_FIELDS
    /* [[rank...] per node] */
    {"task_map", SCHEMA_ARRAY, 0, 65536, 0, 0, NULL,
     "--mpi: every node's ranks, [[0,2],[1,3]]"},
    {"input", SCHEMA_STR, 0, SCHEMA_PATH_MAX, 0, 0, NULL,
     "srun -i: which tasks get stdin"},
    {"multi_prog", SCHEMA_STR, 0, 1048576, 0, 0, NULL,
     "srun --multi-prog: the file's text; each rank runs its line"},
    {"task_prolog", SCHEMA_STR, 0, SCHEMA_PATH_MAX, 0, 0, "path",
     "srun --task-prolog"},
    {"task_epilog", SCHEMA_STR, 0, SCHEMA_PATH_MAX, 0, 0, "path",
     "srun --task-epilog"},
    {"rlimits", SCHEMA_OBJECT, 0, 16, 0, 0, NULL,
     "limits applied to each task: {\"CORE\":N,...}, -1 unlimited"},
    {"pty", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "--pty: rank 0 on a pseudo-terminal"},
    {"pty_rows", SCHEMA_INT, 0, 65535, 0, 0, "count",
     "--pty: terminal rows; 0: 24"},
    {"pty_cols", SCHEMA_INT, 0, 65535, 0, 0, "count",
     "--pty: terminal columns; 0: 80"},
    {"prolog_env", SCHEMA_STR_LIST, 0, 64, 0, 0, NULL,
     "Prolog='s environment on this node, NAME=value (with Prolog= or "
     "Epilog=)"},
    {"gpus_per_task", SCHEMA_INT, 0, 1024, 0, 0, "count",
     "--gpus-per-task: each task's share of gpus"},
    {"gpus", SCHEMA_INT_LIST, 0, 65536, 0, 0, NULL,
     "GPU indexes the step has on this node"},
    {"job_gpus", SCHEMA_INT_LIST, 0, 65536, 0, 0, NULL,
     "GPU indexes the job has on this node (cgroup)"},
    {"shards", SCHEMA_INT, 0, 65535, 0, 0, "count",
     "gres/shard (or gres/mps) the job has on this node, of its one GPU in "
     "gpus"},
    {"mps_percent", SCHEMA_INT, 0, 100, 0, 0, "%",
     "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE of the job's gres/mps here"},
    /* node memory comes from RealMemory=, not bounded by a request */
    {"job_mem_mib", SCHEMA_INT, 0, INT64_MAX, 0, 0, "MiB",
     "the job's memory on this node (cgroup); 0: none"},
    {"mem_mib", SCHEMA_INT, 0, INT64_MAX, 0, 0, "MiB",
     "the step's memory on this node (cgroup); 0: none"},
    {"job_cpus", SCHEMA_INT, 0, UINT32_MAX, 0, 0, "count",
     "the job's CPUs on this node; 0: all"},
    {"job_cpu_ids", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, 0, NULL,
     "the job's CPU ids on this node (CPU_IDs, \"0-3,8\"); absent: "
     "0..job_cpus-1"},
    {"cpus_per_task", SCHEMA_INT, 0, 65536, 0, 0, "count", "-c"},
    {"cpu_bind", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, 0, NULL,
     "--cpu-bind as srun sent it"},
    {"gpu_bind", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, 0, NULL,
     "--gpu-bind as srun sent it"},
    {"hint", SCHEMA_STR, 0, 64, 0, 0, NULL, "--hint as srun sent it"},
    END,
};

static const struct schema_field job_limit_body[] = {
    {"job_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the job"},
    {"time_limit_s", SCHEMA_INT, TIME_INFINITE, SCHEMA_TIME_MAX_S, 0,
     SCHEMA_REQUIRED, "s", "the new limit; -1 (or 0): none"},
    END,
};

static const struct schema_field file_bcast_body[] = {
    {"job_id", SCHEMA_INT, 1, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the job whose nodes get the file"},
    {"path", SCHEMA_STR, 2, 4096, 0, SCHEMA_REQUIRED, NULL,
     "the file on the node, absolute"},
    {"offset", SCHEMA_INT, 0, INT64_C(1) << 48, 0, SCHEMA_REQUIRED, "bytes",
     "where the block goes; 0 creates the file"},
    {"data", SCHEMA_STR, 0, 12 * 1024 * 1024, 0, SCHEMA_REQUIRED, NULL,
     "the block, base64 (at most 8 MiB before encoding)"},
    {"compress", SCHEMA_STR, 3, 3, 0, 0, NULL,
     "\"lz4\": data is the block compressed (sbcast -C)"},
    {"size", SCHEMA_INT, 0, 8 * 1024 * 1024, 0, 0, "bytes",
     "with compress: the block's size once decompressed"},
    {"last", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "the file's last block: mode and times applied"},
    {"force", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "sbcast -f: replace an existing file (else EEXIST)"},
    {"mode", SCHEMA_INT, 0, 07777, 0, 0, NULL,
     "sbcast -p: the source's permission bits"},
    {"atime", SCHEMA_INT, 0, INT64_C(1) << 40, 0, 0, "epoch s",
     "sbcast -p: the source's access time"},
    {"mtime", SCHEMA_INT, 0, INT64_C(1) << 40, 0, 0, "epoch s",
     "sbcast -p: the source's modification time"},
    END,
};

static const struct schema_field step_attach_body[] = {
    {"job_id", SCHEMA_INT, 1, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the job"},
    {"step_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the step"},
    {"io_port", SCHEMA_INT, 1, 65535, 0, 0, NULL,
     "sattach's I/O port; the step connects to it at the sender's "
     "address (needed unless layout)"},
    {"io_key", SCHEMA_STR, 64, 64, 0, 0, NULL,
     "sattach's secret, hex; the step's hello on that connection carries "
     "it (needed unless layout)"},
    {"layout", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "sattach --layout: only the ranks here, no connection"},
    END,
};

static const struct schema_field step_pids_body[] = {
    {"job_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_INVALID_JOB_ID, 0, NULL,
     "the job; absent or 0: every job here"},
    {"step_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_INVALID_JOB_ID, 0, NULL,
     "the step; absent: every step of the job"},
    END,
};

static const struct schema_field batch_launch_body[] = {
    /* {"job_id" (1..UINT32_MAX, else "no job"), "run_id", "user_id",
     * "group_id", "user_name", "work_dir", "std_out", "std_err", "std_in"
     * (all needed), "launch": {"script", "argv", "env", "get_user_env"},
     * "time_limit_s", "kill_wait_s", "cluster_name", "alloc": [...],
     * ... the job_info record}, checked by droverd and droverstepd */
    {"job", SCHEMA_OBJECT, 0, 1024, 0, SCHEMA_REQUIRED, NULL,
     "the job record with its launch (script, argv, env)"},
    END,
};

static const struct schema_field job_prolog_body[] = {
    {"job_id", SCHEMA_INT, 1, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the job just allocated"},
    {"run_id", SCHEMA_INT, 0, UINT32_MAX, 0, 0, NULL,
     "the job's run (for logs)"},
    {"prolog_env", SCHEMA_ARRAY, 0, 1024, 0, 0, NULL,
     "the Prolog's \"NAME=value\" environment (ctld/prolog_env.h)"},
    END,
};

static const struct schema_field job_signal_body[] = {
    {"job_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the job"},
    {"signal", SCHEMA_INT, 1, 64, 0, 0, "signal",
     "the signal; absent: SIGKILL"},
    {"terminate", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "SIGTERM, then SIGKILL after KillWait (cancel, requeue)"},
    {"run_id", SCHEMA_INT, 0, UINT32_MAX, 0, 0, NULL,
     "only this run of the job; 0 or absent: any"},
    {"all", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "every process of the job here: the batch script and all steps "
     "(suspend, resume)"},
    {"steps", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "the job's steps here, not its batch script (scancel -s)"},
    {"time_limit", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "with terminate: the job reached its time limit (the steps' srun "
     "get Slurm's DUE TO TIME LIMIT line)"},
    {"forget", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "with terminate: the job has ended (droverd runs Epilog= here)"},
    {"prolog_env", SCHEMA_STR_LIST, 0, 64, 0, 0, NULL,
     "with forget: Epilog='s environment, NAME=value"},
    END,
};

static const struct schema_field acct_usage_report_body[] = {
    {"report", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, SCHEMA_REQUIRED, NULL,
     "cluster_utilization, account_utilization_by_user or user_topusage"},
    /* any integer: the handler clamps to [0, USAGE_TIME_MAX]; tests send
     * -2^62 and 2^62 */
    {"start", SCHEMA_INT, INT64_MIN, INT64_MAX, 0, SCHEMA_REQUIRED, "epoch s",
     "the window's start (down to the hour)"},
    {"end", SCHEMA_INT, INT64_MIN, INT64_MAX, 0, SCHEMA_REQUIRED, "epoch s",
     "the window's end (down to the hour)"},
    {"cluster", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, 0, NULL,
     "only this cluster; absent: every cluster"},
    {"users", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "only these users; absent or empty: all"},
    {"accounts", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "only these accounts; absent or empty: all"},
    {"top_count", SCHEMA_INT, INT64_MIN, INT64_MAX, 0, 0, "count",
     "user_topusage: rows per cluster; <= 0: all; absent: 10"},
    {"group", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "user_topusage: one row per user over their accounts"},
    {"tres", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, 0, NULL,
     "TRES to report, \"cpu,mem,node,gres/gpu\"; absent: cpu"},
    {"hourly", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "cluster_utilization: each hour's figures too (\"hours\")"},
    END,
};

static const struct schema_field acct_send_body[] = {
    /* the handler checks the name (1..64 bytes, no space/control, none of
     * , ' " ` = | \) with its own "Invalid cluster name" text: the row
     * bounds the size only */
    {"cluster", SCHEMA_STR, 0, SCHEMA_LIST_MAX, 0, SCHEMA_REQUIRED, NULL,
     "the sending controller's cluster"},
    /* [{"seq": integer, "job": {"job_id": integer, ..., "steps": [...]}}] */
    {"events", SCHEMA_ARRAY, 0, SCHEMA_LIST_MAX, 0, SCHEMA_REQUIRED, NULL,
     "job records to store: [{seq, job}]"},
    /* {"cpu", "mem", "node", "gres/gpu": integer} */
    {"cluster_tres", SCHEMA_OBJECT, 0, 64, 0, 0, NULL,
     "the cluster's capacity {cpu, mem, node, gres/gpu}"},
    END,
};

static const struct schema_field acct_job_query_body[] = {
    {"cluster", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, 0, NULL,
     "only this cluster's jobs"},
    {"user_ids", SCHEMA_INT_LIST, 0, SCHEMA_LIST_MAX, 0, 0, "uid",
     "only these owners (-u)"},
    /* [{"job_id": integer, "array_task_id": integer?}] */
    {"job_ids", SCHEMA_ARRAY, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "-j: [{job_id, array_task_id}], a job's or its array's"},
    {"accounts", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "only these accounts (-A)"},
    {"partitions", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "only these partitions (-r)"},
    {"names", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "only these job names (--name)"},
    {"states", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "-s: jobs in these states during the window"},
    {"start", SCHEMA_INT, INT64_MIN, INT64_MAX, 0, 0, "epoch s",
     "-S: the window's start"},
    {"end", SCHEMA_INT, INT64_MIN, INT64_MAX, 0, 0, "epoch s",
     "-E: the window's end; absent: no end"},
    END,
};

static const struct schema_field acct_assoc_list_body[] = {
    /* registration checks the name itself ("Invalid cluster name", which
     * tests expect for 65536 bytes and "new\nline"): size bound only */
    {"cluster", SCHEMA_STR, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "only this cluster's associations; \"\": all"},
    {"register", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "daemons: register the cluster first"},
    {"if_changed_since", SCHEMA_INT, INT64_MIN, INT64_MAX, 0, 0, NULL,
     "the version the sender has; unchanged: no listing"},
    END,
};

static const struct schema_field acct_modify_body[] = {
    {"op", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, SCHEMA_REQUIRED, NULL,
     "add, modify or delete"},
    {"entity", SCHEMA_STR, 0, SCHEMA_STR_MAX, 0, SCHEMA_REQUIRED, NULL,
     "cluster, account, user or qos"},
    /* the handler also takes a comma string or nested arrays; every
     * sender sends an array of strings */
    {"names", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "the names to act on (with where's name=)"},
    /* {key: value}: values strings from sacctmgr; numbers accepted */
    {"where", SCHEMA_OBJECT, 0, 1024, 0, 0, NULL,
     "conditions, sacctmgr's where key=value"},
    {"set", SCHEMA_OBJECT, 0, 1024, 0, 0, NULL,
     "values to set, sacctmgr's set key=value"},
    {"dry_run", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "report what would change, change nothing"},
    END,
};

static const struct schema_field stats_info_body[] = {
    {"reset", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "start the statistics again (sdiag -r; an operator or administrator)"},
    END,
};

static const struct schema_field priority_info_body[] = {
    {"jobs", SCHEMA_INT_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "only these jobs (sprio -j); absent or empty: all"},
    {"users", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "only these users' jobs (sprio -u)"},
    {"partitions", SCHEMA_STR_LIST, 0, SCHEMA_LIST_MAX, 0, 0, NULL,
     "only jobs of these partitions (sprio -p)"},
    END,
};

static const struct schema_field job_top_body[] = {
    {"job_ids", SCHEMA_INT_LIST, 1, SCHEMA_LIST_MAX, 0, SCHEMA_REQUIRED,
     NULL, "the jobs to move ahead, in this order"},
    END,
};

static const struct schema_field job_suspend_body[] = {
    {"job_id", SCHEMA_INT, 0, UINT32_MAX, EDRV_INVALID_JOB_ID,
     SCHEMA_REQUIRED, NULL, "the job"},
    {"suspend", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "true (the default): suspend; false: resume"},
    END,
};

/* scontrol create|update reservation: epoch seconds, comma lists. */
static const struct schema_field resv_body[] = {
    {"name", SCHEMA_STR, 1, 256, EDRV_RESERVATION_INVALID, P, NULL,
     "ReservationName= (create: absent, Slurm's USER_N)"},
    {"start_time", SCHEMA_INT, 0, SCHEMA_EPOCH_MAX, EDRV_INVALID_TIME_VALUE,
     0, "epoch s", "StartTime=; absent: now (create)"},
    {"end_time", SCHEMA_INT, 0, SCHEMA_EPOCH_MAX, EDRV_INVALID_TIME_VALUE, 0,
     "epoch s", "EndTime="},
    {"duration_s", SCHEMA_INT, 1, SCHEMA_TIME_MAX_S, EDRV_INVALID_TIME_VALUE,
     0, "s", "Duration= (without EndTime=)"},
    {"nodes", SCHEMA_STR, 1, SCHEMA_STR_MAX, EDRV_INVALID_NODE_NAME, P, NULL,
     "Nodes=: a hostlist or ALL"},
    {"node_cnt", SCHEMA_INT, 1, INT32_MAX, EDRV_INVALID_NODE_COUNT, 0,
     "count", "NodeCnt= (without Nodes=)"},
    {"users", SCHEMA_STR, 0, SCHEMA_STR_MAX, TOO_LONG, P, NULL, "Users="},
    {"accounts", SCHEMA_STR, 0, SCHEMA_STR_MAX, TOO_LONG, P, NULL,
     "Accounts="},
    {"partition", SCHEMA_STR, 0, SCHEMA_STR_MAX, TOO_LONG, P, NULL,
     "PartitionName="},
    {"flags", SCHEMA_STR_LIST, 0, 16, 0, 0, NULL,
     "Flags=: MAINT, FLEX, OVERLAP, IGNORE_JOBS, DAILY, WEEKDAY, WEEKLY, "
     "PURGE_COMP[=time], MAGNETIC"},
    {"core_cnts", SCHEMA_INT_LIST, 0, 4096, EDRV_INVALID_CPU_COUNT, 0,
     "CPUs", "CoreCnt= or TRES=cpu=: a total spread over the nodes, or one "
     "count per node"},
    {"gpu_cnt", SCHEMA_INT, 1, INT32_MAX, EDRV_INVALID_GRES, 0, "GPUs",
     "TRES=gres/gpu=: a total spread over the nodes"},
    END,
};

static const struct schema_field resv_name_body[] = {
    {"name", SCHEMA_STR, 1, 256, EDRV_RESERVATION_INVALID, P, NULL,
     "ReservationName= (resv_info: absent, all)"},
    END,
};

/* strigger --set: one event of one resource (trigger.h). */
static const struct schema_field trigger_set_body[] = {
    {"type", SCHEMA_STR, 1, 16, 0, SCHEMA_REQUIRED | P, NULL,
     "the event: down, drained, up, idle, reconfig (nodes), fini, time (a "
     "job)"},
    {"nodes", SCHEMA_STR, 1, SCHEMA_STR_MAX, EDRV_INVALID_NODE_NAME, P,
     NULL, "node events: a hostlist; absent or *: every node"},
    {"job_id", SCHEMA_INT, 1, UINT32_MAX, EDRV_INVALID_JOB_ID, 0, NULL,
     "job events: the job"},
    {"offset", SCHEMA_INT, -32000, 32000, 0, 0, "s",
     "time: from the time limit (negative: before it); idle: how long "
     "idle; fini: after the end"},
    {"program", SCHEMA_STR, 2, 4096, TOO_LONG, SCHEMA_REQUIRED | P, NULL,
     "the program's absolute path (run as the sender)"},
    {"perm", SCHEMA_BOOL, 0, 0, 0, 0, NULL,
     "--flags=PERM: kept after it fires"},
    END,
};

/* strigger --clear: the triggers matching every key given. */
static const struct schema_field trigger_clear_body[] = {
    {"id", SCHEMA_INT, 1, UINT32_MAX, 0, 0, NULL, "the trigger"},
    {"job_id", SCHEMA_INT, 1, UINT32_MAX, EDRV_INVALID_JOB_ID, 0, NULL,
     "the job's triggers"},
    {"user_id", SCHEMA_INT, 0, UINT32_MAX, 0, 0, NULL,
     "the triggers this uid set"},
    END,
};

/* --- the protocol ------------------------------------------------------- */

#define CTLD "droverctld"
#define NODED "droverd"
#define DBD "droverdbd"

const struct proto_schema proto_schemas[] = {
    {"ping", "every daemon", "Is the daemon up.", NULL,
     "droverctld `{\"host\",\"now\"}`; droverd `{\"node\"}`; droverdbd "
     "`{\"host\",\"now\",\"storage\",\"schema_version\",\"connected\"}`."},
    {"job_submit", CTLD, "Queue a batch job or an allocation (sbatch, "
     "salloc, srun).", job_submit_body,
     "`{\"job_id\"}` once the job is durable; with test_only the plan."},
    {"job_info", CTLD, "List jobs, filtered (squeue, scontrol show job, "
     "sbatch --wait).  PrivateData=jobs: a user's own.", job_info_body,
     "`{\"now\",\"jobs\":[record]}`, written straight from the job table; "
     "with rows `{\"now\",\"keys\":[key],\"jobs\":[[value]]}`."},
    {"job_update", CTLD, "Change a job (scontrol update JobId=).",
     job_update_body, "`{}` once durable."},
    {"job_cancel", CTLD, "Cancel or signal a job, an array or some of its "
     "tasks (scancel).", job_cancel_body, "`{}` once durable."},
    {"job_hold", CTLD, "Hold or release a job (scontrol hold/release).",
     job_hold_body, "`{}` once durable."},
    {"job_script", CTLD, "A job's batch script (scontrol write "
     "batch_script), for its owner, operators and administrators.",
     job_script_body, "`{\"script\"}`; EDRV_JOB_SCRIPT_MISSING for a job "
     "without one (salloc, srun) or whose script is gone."},
    {"crontab_set", CTLD, "Install a user's crontab (scrontab): its "
     "pending cron jobs are cancelled and each entry is submitted as a "
     "job pending until its next time; any refused entry refuses the "
     "whole file.  ScronParameters=enable.", crontab_set_body,
     "`{\"job_ids\":[id]}` once durable; the first refused entry's "
     "error with \"lines A-B: reason\"; EDRV_DISABLED when scrontab is "
     "disabled."},
    {"crontab_get", CTLD, "A user's crontab (scrontab -l, -e).",
     crontab_user_body, "`{\"text\",\"disabled\":[line]}` (lines "
     "scancel disabled); EDRV_JOB_SCRIPT_MISSING when the user has "
     "none."},
    {"crontab_remove", CTLD, "Remove a user's crontab (scrontab -r): its "
     "pending cron jobs are cancelled, running ones do not recur.",
     crontab_user_body, "`{}` once durable."},
    {"job_stat", CTLD, "What a running job's steps use now, from its "
     "nodes (sstat); its owner, operators and administrators.",
     job_stat_body, "`{\"job_id\",\"nodes\":[{\"node\",\"steps\":"
     "[step_stat's]}],\"errors\":[{\"node\",\"error\"}],\"tasks\":"
     "{step:task count}}` (running steps: \"batch\", \"0\"...); "
     "EDRV_JOB_NOT_RUNNING unless running."},
    {"takeover", CTLD, "Hand the Raft group's leadership to "
     "SlurmctldHost[INDEX] (scontrol takeover; administrators).",
     takeover_body, "`{}` once the transfer is under way; "
     "EDRV_NOT_SUPPORTED with one controller."},
    {"raft_hello", CTLD "'s Raft port", "Open a Raft connection "
     "between two controllers: the first frame, from the one that "
     "connects (a MUNGE credential of root or SlurmUser; over TLS with "
     "drover_tls_rpc).  Anything else, or a credential of another user, "
     "and the connection is closed.", raft_hello_body,
     "`raft_welcome` `{\"id\",\"nonce\"}` under the answering "
     "controller's own credential; then libraft's messages."},
    {"raft_welcome", CTLD "'s Raft port", "The answer to "
     "raft_hello; the connecting controller checks its credential (root "
     "or SlurmUser), the id it dialled and its nonce.", raft_welcome_body,
     "(none: libraft's messages follow)."},
    {"token_issue", CTLD, "A JWT for AuthAltTypes=auth/jwt (scontrol "
     "token).", token_issue_body, "`{\"token\",\"username\","
     "\"expires\"}`; EDRV_NOT_SUPPORTED without auth/jwt."},
    {"job_requeue", CTLD, "Requeue a job (scontrol requeue/requeuehold).",
     job_requeue_body, "`{}` once durable."},
    {"job_release", CTLD, "Give an allocation back (salloc, srun).",
     job_release_body, "`{}` once durable."},
    {"job_alive", CTLD, "The allocation's command (salloc, srun) is "
     "alive: with InactiveLimit set, an allocation whose command said so "
     "once and then fell silent that long ends (TIMEOUT).",
     job_alive_body, "`{}`."},
    {"job_complete", CTLD, "A batch script ended (older droverd; today the "
     "batch step reports as step_complete).", job_complete_body,
     "`{}` once durable."},
    {"step_create", CTLD, "Start a step in a job's allocation (srun).",
     step_create_body,
     "`{\"step_id\",\"nodes\",\"tasks\",...}`: the step's layout for "
     "its nodes."},
    {"step_info", CTLD, "List steps (scontrol show step).", step_info_body,
     "`{\"now\",\"steps\":[record]}`."},
    {"step_cancel", CTLD, "Signal or cancel a step (scancel N.S, srun).",
     step_cancel_body, "`{}` (once durable when the step changed)."},
    {"step_complete", CTLD, "A node's report of its part of a step, with "
     "usage; step 0xfffffffb is the batch script.", step_complete_body,
     "`{}` once durable."},
    {"node_info", CTLD, "List nodes (sinfo, scontrol show node).",
     node_info_body, "`{\"now\",\"nodes\":[record]}`."},
    {"partition_info", CTLD, "List partitions (sinfo, scontrol show "
     "partition).", partition_info_body,
     "`{\"now\",\"partitions\":[record]}`."},
    {"node_update", CTLD, "Drain, resume or reweight nodes (scontrol update "
     "NodeName=).", node_update_body, "`{}` once durable."},
    {"part_create", CTLD, "Create a partition (scontrol create partition; "
     "an administrator): slurm.conf's values for what `set` leaves out.",
     part_body, "`{}` once durable."},
    {"part_update", CTLD, "Change a partition (scontrol update "
     "PartitionName=; an administrator); kept across restarts.", part_body,
     "`{}` once durable."},
    {"part_delete", CTLD, "Delete a partition no job that has not ended "
     "names (scontrol delete PartitionName=; an administrator).",
     part_name_body, "`{}` once durable."},
    {"node_register", CTLD, "A droverd's registration and heartbeat, with "
     "what it runs and its unacknowledged reports.", node_register_body,
     "`{\"state\",\"drain\",\"boot_time\"}` (the node's base state, "
     "for HealthCheckNodeState; when the controller started) once "
     "durable."},
    {"config_info", CTLD, "The running configuration (scontrol show "
     "config).", NULL, "the configuration's keys and values."},
    {"reconfigure", CTLD, "Read slurm.conf and the files beside it again "
     "(scontrol reconfigure; an administrator's): every change applied, or "
     "none.", NULL,
     "`{}` once applied, or `{\"refused\":[\"Key: why\"...]}`, nothing "
     "applied, naming each change that needs a restart."},
    {"stats_info", CTLD, "The controller's statistics (sdiag): job "
     "counters, scheduling cycles, requests by type and user with their "
     "times.", stats_info_body,
     "`{\"req_time\",\"since\",\"jobs\",\"schedule\",\"rpc\",...}`."},
    {"priority_info", CTLD, "The priority factors of the pending jobs "
     "(sprio): the values the scheduler ordered them by.",
     priority_info_body,
     "`{\"type\",\"weights\",\"jobs\":[{\"job_id\",\"priority\","
     "\"age\",\"fairshare\",...}]}`."},
    {"job_suspend", CTLD, "Suspend or resume a running job (scontrol "
     "suspend/resume; an operator or administrator).", job_suspend_body,
     "`{}` once durable."},
    {"job_top", CTLD, "Move pending jobs ahead of their user's other "
     "pending jobs of the same partition, account and QOS (scontrol top; "
     "an operator or administrator, or the owner with "
     "SchedulerParameters=enable_user_top).", job_top_body, "`{}` once durable."},
    {"resv_create", CTLD, "Create an advance reservation (scontrol create "
     "reservation; an operator or administrator).", resv_body,
     "`{\"name\"}` once durable."},
    {"resv_update", CTLD, "Change a reservation (scontrol update "
     "ReservationName=).", resv_body, "`{}` once durable."},
    {"resv_delete", CTLD, "Delete a reservation (scontrol delete "
     "ReservationName=).", resv_name_body, "`{}` once durable."},
    {"resv_info", CTLD, "List reservations (scontrol show reservation).",
     resv_name_body,
     "`{\"now\",\"reservations\":[record with node_cnt, core_cnt, "
     "active]}`."},
    {"trigger_set", CTLD, "Set an event trigger (strigger --set): SlurmUser "
     "(any user when SlurmUser is root: job triggers on their own jobs).",
     trigger_set_body, "`{\"id\"}` once durable."},
    {"trigger_info", CTLD, "List the event triggers (strigger --get).",
     NULL, "`{\"triggers\":[{\"id\",\"type\",\"nodes\",\"job_id\","
     "\"offset\",\"uid\",\"gid\",\"user\",\"perm\",\"program\"}]}`."},
    {"trigger_clear", CTLD, "Remove event triggers (strigger --clear): "
     "root and SlurmUser any, others their own.", trigger_clear_body,
     "`{}` once durable; ESRCH when none matched."},
    {"assoc_mgr_info", CTLD, "The association manager's state (scontrol "
     "show assoc_mgr): associations, QOS and users with their limits, "
     "what their jobs use now and have used.  PrivateData=usage: a "
     "user's own associations; PrivateData=users: a user's own record.",
     assoc_mgr_info_body,
     "`{\"tres\":[name],\"assocs\":[...],\"qos\":[...],"
     "\"users\":[...]}`: limits and uses one number per TRES (-1: no "
     "limit)."},
    {"share_info", CTLD, "The fair-share tree (sshare): shares, usage, "
     "effective usage, LevelFS and factor of every association.", NULL,
     "`{\"fair_tree\",\"rows\":[{\"account\",\"user\",\"depth\","
     "...}]}` in sshare's order."},
    {"batch_launch", NODED, "Run a job's batch script as step batch under "
     "its own droverstepd.", batch_launch_body, "`{}` once started."},
    {"step_launch", NODED, "Start a step's tasks on this node.",
     step_launch_body, "`{}` once the tasks started."},
    {"node_reconfigure", NODED, "Read slurm.conf again after a "
     "reconfigure (droverctld's, to each node): the keywords droverd "
     "applies live take their new values.", NULL,
     "`{}` once applied, or `{\"refused\":[\"Key: why\"...]}`, nothing "
     "applied."},
    {"step_stat", NODED, "The job's steps' use of this node now "
     "(processes of each step cgroup, from /proc).", job_stat_body,
     "`{\"node\",\"steps\":[{\"step\",\"processes\",\"cpu_us\","
     "\"rss_kib\",\"max_rss_kib\",\"vm_kib\",\"read_bytes\","
     "\"write_bytes\"}]}`."},
    {"step_signal", NODED, "Signal one step's tasks on this node.",
     step_signal_body, "`{}`; EDRV_INVALID_JOB_ID when not here."},
    {"job_prolog", NODED, "PrologFlags=Alloc: run the job's Prolog here "
     "now, at its allocation.", job_prolog_body,
     "`{}` once it passed; EDRV_PROLOG_FAILED when it failed."},
    {"job_signal", NODED, "Signal or terminate a job on this node.",
     job_signal_body, "`{}`; EDRV_INVALID_JOB_ID when not here."},
    {"job_limit", NODED, "A running batch job's new time limit.",
     job_limit_body, "`{}`; EDRV_INVALID_JOB_ID when not here."},
    {"file_bcast", NODED, "sbcast: a block of a file, written as the "
     "job's user (any user; the node checks the job with the controller).",
     file_bcast_body, "`{}` once written; the errno (EEXIST, EACCES...) or "
     "EDRV_INVALID_JOB_ID otherwise."},
    {"step_attach", NODED, "sattach: the step connects back to the "
     "sender, replays its recent output, then streams it (the step's user, "
     "root or SlurmUser; the step's droverstepd checks).",
     step_attach_body, "`{\"node\",\"ranks\",\"node_index\"}`; "
     "EDRV_ACCESS_DENIED, EDRV_INVALID_JOB_ID when not here, "
     "EDRV_ALREADY_DONE when ending."},
    {"step_pids", NODED, "scontrol listpids: the processes of the steps "
     "here, each task's with its local and global rank (the step's user, "
     "root or SlurmUser; the step's droverstepd checks; others' steps are "
     "left out).", step_pids_body,
     "`{\"node\",\"steps\":[{\"job_id\",\"step_id\",\"tasks\":"
     "[{\"pid\",\"local_id\",\"global_id\"}],\"pids\":[pid]}]}`; "
     "EDRV_ACCESS_DENIED when every step of a named job refused."},
    {"acct_send", DBD, "The controller's job records, stored in one "
     "transaction.", acct_send_body, "`{\"acked_seq\"}`."},
    {"acct_job_query", DBD, "Job and step records (sacct).",
     acct_job_query_body, "`{\"now\",\"jobs\":[record]}`."},
    {"acct_usage_report", DBD, "Usage reports (sreport).",
     acct_usage_report_body, "the window (`start`, `end`) and its rows."},
    {"acct_assoc_list", DBD, "Associations, QOS and users (sacctmgr show, "
     "the controller's limits).", acct_assoc_list_body,
     "the listing, or nothing new since `if_changed_since`."},
    {"acct_modify", DBD, "sacctmgr add, modify and delete.",
     acct_modify_body, "`{\"changed\":[lines]}`."},
    {NULL, NULL, NULL, NULL, NULL},
};
