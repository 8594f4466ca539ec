/* SPDX-License-Identifier: Apache-2.0
 *
 * sim.c - discrete-event replay of a trace through sched_pass() (sim.h)
 *
 * Virtual time jumps from one event instant to the next: completions come
 * off a binary heap ordered by end time, submissions off the trace sorted
 * by submit time.  The pending queue is kept in priority order: the
 * submission order under priority/basic, the multifactor priorities
 * otherwise (sim_prio.c).  Each job's resources come from
 * the pass (which applies them to the nodes) and go back with
 * sched_alloc_release() at its end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "sim/sim_private.h"

static const char *const policy_names[] = {
    [SIM_POLICY_FCFS] = "fcfs",
    [SIM_POLICY_EASY] = "easy",
    [SIM_POLICY_DEFAULT] = "default",
};

const char *sim_policy_name(enum sim_policy p)
{
    if ((size_t)p < sizeof(policy_names) / sizeof(policy_names[0]))
        return policy_names[p];
    return "unknown";
}

int sim_policy_parse(const char *name, enum sim_policy *out)
{
    for (size_t i = 0; i < sizeof(policy_names) / sizeof(policy_names[0]);
         i++) {
        if (!strcmp(name, policy_names[i])) {
            *out = (enum sim_policy)i;
            return 0;
        }
    }
    errno = EINVAL;
    return -1;
}

void sim_opts_init(struct sim_opts *o, enum sim_policy policy)
{
    memset(o, 0, sizeof(*o));
    o->policy = policy;
    o->pass = SCHED_PASS_OPTS_DEFAULT;
    switch (policy) {
    case SIM_POLICY_FCFS:
        /* No reservation is needed: the replay stops at the first job
         * that waits (Slurm's sched/builtin), see sim_pass_fcfs(). */
        o->pass.reserve_depth = 0;
        o->pass.window_s = 0;
        o->pass.resolution_s = 0;
        break;
    case SIM_POLICY_EASY:
        /* EASY (Lifka 1995; Mu'alem and Feitelson 2001): only the first
         * waiting job holds a reservation, planned on exact end times
         * with no horizon, as the published figures are computed. */
        o->pass.reserve_depth = 1;
        o->pass.window_s = 0;
        o->pass.resolution_s = 0;
        break;
    case SIM_POLICY_DEFAULT:
        /* What droverctld does when slurm.conf sets nothing: Drover's
         * backfill (drover_backfill=predict, src/sched/backfill.h), no
         * bf_window (a lead's reservation is never out of reach) and
         * Slurm's bf_resolution, 60 s; the depth is the leads' count, set
         * by each pass. */
        o->backfill_sjf = o->predict = o->slip_guard = true;
        o->pass.reserve_depth = 0;
        o->pass.window_s = 0;
        o->pass.resolution_s = 60;
        break;
    }
}

double sim_bsld(int64_t wait_s, int64_t run_s)
{
    double denom = run_s > 10 ? (double)run_s : 10.0;
    double b = (double)(wait_s + run_s) / denom;
    return b > 1.0 ? b : 1.0;
}
