/* SPDX-License-Identifier: Apache-2.0
 *
 * jobpath.h - sbatch's file name patterns (--output, --error, --input)
 *
 * %j job id, %x job name, %u user name, %N first node name (short),
 * %A array master job id, %a array task id, %% a percent sign; a number
 * between % and the letter pads with zeros (%5j), as in Slurm.  Relative
 * results are made absolute against the work directory.
 */
#ifndef DROVER_COMMON_JOBPATH_H
#define DROVER_COMMON_JOBPATH_H

#include <stdbool.h>
#include <stdint.h>

struct jobpath_vars {
    uint32_t job_id;
    const char *job_name;
    const char *user;
    const char *node;     /* NULL until the job has nodes: "%N" kept */
    uint32_t array_job_id;  /* 0 when not an array task: %A = job id */
    int64_t array_task_id;  /* -1 when not an array task: %a = 4294967294 */
    const char *work_dir; /* NULL: leave relative paths relative */
    bool have_step;       /* srun's per-task files: %s %t %n below are
                           * known; otherwise they are kept as written */
    uint32_t step_id;     /* %s */
    uint32_t task_id;     /* %t: the task's rank in the step */
    uint32_t node_id;     /* %n: the task's node, numbered in the step */
};

/* Expand 'pattern'.  Returns a new string (caller frees), or NULL with
 * errno=ENOMEM.  Unknown %-letters are kept as written.
 */
char *jobpath_expand(const char *pattern, const struct jobpath_vars *v);

#endif /* !DROVER_COMMON_JOBPATH_H */
