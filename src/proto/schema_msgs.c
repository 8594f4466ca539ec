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
static const struct schema_field job_submit_body[] = {
    {"name", SCHEMA_STR, 0, SCHEMA_STR_MAX, TOO_LONG, P, NULL, "job name (-J)"},
    {"partition", SCHEMA_STR, 0, SCHEMA_STR_MAX, TOO_LONG, P, NULL,
     "partition (-p); absent: the default partition"},
    {"account", SCHEMA_STR, 0, SCHEMA_STR_MAX, TOO_LONG, P, NULL,
     "account (-A); absent: the user's default"},
    {"qos", SCHEMA_STR, 0, SCHEMA_STR_MAX, TOO_LONG, P, NULL, "QOS (-q)"},
    {"comment", SCHEMA_STR, 0, SCHEMA_STR_MAX, TOO_LONG, P, NULL,
     "--comment"},
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
    {"ntasks_per_node", SCHEMA_INT, 0, 65535, EDRV_TOO_MANY_REQUESTED_CPUS, 0,
     "count", "--ntasks-per-node"},
    {"cpus_per_gpu", SCHEMA_INT, 0, 65535, EDRV_TOO_MANY_REQUESTED_CPUS, 0,
     "count", "--cpus-per-gpu"},
    {"mem_per_node_mib", SCHEMA_INT, 0, MIB_MAX, EDRV_INVALID_TASK_MEMORY, 0,
     "MiB", "--mem"},
    {"mem_per_cpu_mib", SCHEMA_INT, 0, MIB_MAX, EDRV_INVALID_TASK_MEMORY, 0,
     "MiB", "--mem-per-cpu"},
    {"mem_per_gpu_mib", SCHEMA_INT, 0, MIB_MAX, EDRV_INVALID_TASK_MEMORY, 0,
     "MiB", "--mem-per-gpu"},
    {"gpus", SCHEMA_INT, 0, 65535, EDRV_INVALID_GRES, 0, "count",
     "--gpus (the job's total)"},
    {"gpus_per_node", SCHEMA_INT, 0, 65535, EDRV_INVALID_GRES, 0, "count",
     "--gres=gpu:N, --gpus-per-node"},
    {"gpus_per_task", SCHEMA_INT, 0, 65535, EDRV_INVALID_GRES, 0, "count",
     "--gpus-per-task"},
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
    END,
};

static const struct schema_field job_cancel_body[] = {
    {"job_id", SCHEMA_INT, 0, ID_MAX, EDRV_INVALID_JOB_ID, 0, NULL,
     "the job (or array)"},
    {"signal", SCHEMA_INT, 1, 64, 0, 0, "signal",
     "scancel -s; absent: SIGKILL (cancel)"},
    {"array_tasks", SCHEMA_STR, 0, 4096, EDRV_INVALID_ARRAY, 0, NULL,
     "array task ids (\"1,3-5\") of job_id"},
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
    {"mem_mib", SCHEMA_INT, 0, MIB_MAX, EDRV_INVALID_TASK_MEMORY, 0, "MiB",
     "--mem of the step"},
    {"gpus_per_task", SCHEMA_INT, 0, 1024, EDRV_INVALID_GRES, 0, "count",
     "--gpus-per-task"},
    {"gpus_per_node", SCHEMA_INT, 0, 1024, EDRV_INVALID_GRES, 0, "count",
     "--gres=gpu:N"},
    {"gpus", SCHEMA_INT, 0, 65536, EDRV_INVALID_GRES, 0, "count", "--gpus"},
    {"exact", SCHEMA_BOOL, 0, 0, 0, 0, NULL, "--exact"},
    {"overlap", SCHEMA_BOOL, 0, 0, 0, 0, NULL, "--overlap"},
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
    {"mpi", SCHEMA_STR, 0, 64, 0, 0, NULL, "--mpi plugin"},
    {"input", SCHEMA_STR, 0, SCHEMA_PATH_MAX, EDRV_PATHNAME_TOO_LONG, 0, NULL,
     "--input"},
    {"pty", SCHEMA_BOOL, 0, 0, 0, 0, NULL, "--pty"},
    {"pty_rows", SCHEMA_INT, 0, 65535, 0, 0, "count", "terminal rows"},
    {"pty_cols", SCHEMA_INT, 0, 65535, 0, 0, "count", "terminal columns"},
    {"srun_host", SCHEMA_STR, 0, SCHEMA_STR_MAX, EDRV_PATHNAME_TOO_LONG, P,
     NULL, "srun's host, for sacct/squeue -s"},
    {"srun_pid", SCHEMA_INT, 0, INT32_MAX, 0, 0, "pid", "srun's pid"},
    END,
};

/* --- the protocol ------------------------------------------------------- */

#define CTLD "droverctld"
#define NODED "droverd"
#define DBD "droverdbd"

const struct proto_schema proto_schemas[] = {
    {"job_submit", CTLD, "Queue a batch job or an allocation (sbatch, "
     "salloc, srun).", job_submit_body,
     "`{\"job_id\"}` once the job is durable; with test_only the plan."},
    {"job_update", CTLD, "Change a job (scontrol update JobId=).",
     job_update_body, "`{}`."},
    {"job_cancel", CTLD, "Cancel or signal a job, an array or some of its "
     "tasks (scancel).", job_cancel_body, "`{}`."},
    {"step_create", CTLD, "Start a step in a job's allocation (srun).",
     step_create_body,
     "`{\"step_id\",\"nodes\",\"tasks\",...}`: the step's layout and "
     "credential for its nodes."},
    {NULL, NULL, NULL, NULL, NULL},
};
