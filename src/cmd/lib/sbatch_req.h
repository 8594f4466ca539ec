/* SPDX-License-Identifier: Apache-2.0
 *
 * sbatch_req.h - sbatch options that sbatch_opt.c passes on as given
 * (-w, -x, -C, --begin, --time-min, --signal, --open-mode), checked and
 * turned into the job description fields of docs/protocol.md
 */
#ifndef DROVER_CMD_LIB_SBATCH_REQ_H
#define DROVER_CMD_LIB_SBATCH_REQ_H

#include <sys/types.h>
#include <time.h>
#include <jansson.h>

#include "cmd/lib/sbatch_opt.h"

/* Parse a --begin value as Slurm's parse_time(): "now[+N[units]]" (units
 * seconds (default), minutes, hours, days, weeks; any prefix), "HH:MM[:SS]"
 * (today, or tomorrow if that has passed), "YYYY-MM-DD[THH:MM[:SS]]",
 * "MM/DD[/YY]", "today", "tomorrow", "midnight", "noon", "teatime" (16:00),
 * an optional "THH:MM[:SS]" after a date word.  Local time.
 * Returns 0 with *out set, or -1 with errno=EINVAL.
 */
int sbatch_parse_begin(const char *s, time_t now, time_t *out);

/* sbatch_parse_begin() that also sets *pos, on failure, to the offset
 * Slurm's parse_time() reports ("Invalid time specification (pos=N)"):
 * 3 after "now", the bad field of a date (5: month, 8: day), else 0.
 */
int sbatch_parse_time(const char *s, time_t now, time_t *out, int *pos);

/* sbatch_parse_time() for the commands that look back (sacct -S/-E,
 * sreport start=/end=): "now-N[units]" too, and an hour alone is in the
 * past (today, or yesterday when it is still to come).  Returns as
 * sbatch_parse_time().
 */
int sbatch_parse_past(const char *s, time_t now, time_t *out, int *pos);

/* Parse --signal "[{R|B}:]SIG[@SECS]" (SIG a number or name with or
 * without "SIG"; SECS defaults to 60, at most 65535).  Returns 0, or -1
 * with errno=EINVAL.
 */
int sbatch_parse_signal(const char *s, int *signo, int *secs, int *batch);

/* --uid/--gid: rewrite "uid"/"gid" of 'desc' (a name or a number) into
 * "user_id"/"group_id" numbers.  Only root (caller 0) may use them, as in
 * Slurm.  Returns 0, or -1 with Slurm's message in 'e' (exit status 255):
 * "--uid only permitted by root user", "Invalid --uid specification"
 * (unknown user), and the same for --gid.
 */
int sbatch_req_identity(json_t *desc, uid_t caller, struct sbatch_error *e);

/* --gpus-per-task "[type:]N", --cpus-per-gpu N, --mem-per-gpu SIZE (MiB
 * unless suffixed): rewrite the pass-through strings of 'desc' into
 * "gpus_per_task" (and "gpu_type" if not set), "cpus_per_gpu" and
 * "mem_per_gpu_mib" numbers.  Returns 0, or -1 with "Invalid
 * --<option> specification" in 'e' (exit status 255).
 */
int sbatch_req_gpu_opts(json_t *desc, struct sbatch_error *e);

/* Rewrite the pass-through keys of job description 'desc' ("nodelist",
 * "exclude", "constraint", "begin", "time_min", "signal", "open_mode")
 * into "req_nodes", "exc_nodes", "features", "begin_time", "time_min_s",
 * "signal_num"/"signal_secs"/"signal_batch_only", "open_mode"; then
 * sbatch_req_identity() with getuid() and sbatch_req_gpu_opts().
 * Returns 0, or -1 with Slurm's message in 'e' (exit status 255).
 */
int sbatch_req_finish(json_t *desc, time_t now, struct sbatch_error *e);

#endif /* !DROVER_CMD_LIB_SBATCH_REQ_H */
