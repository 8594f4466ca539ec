/* SPDX-License-Identifier: Apache-2.0
 *
 * sim_plot.h - drover-sim --plot: wait over time and utilization of each
 * replayed policy, drawn with PLplot (its SVG driver)
 */
#ifndef DROVER_CMD_SIM_PLOT_H
#define DROVER_CMD_SIM_PLOT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/swf.h"

#define SIM_PLOT_BINS 200 /* points per curve */

/* One policy's curves over SIM_PLOT_BINS equal bins of the trace's span. */
struct sim_plot_series {
    const char *label;              /* the policy's name */
    double wait_h[SIM_PLOT_BINS];   /* average wait (hours) of the jobs
                                     * submitted in the bin; 0 if none */
    double util[SIM_PLOT_BINS];     /* busy CPUs / pool CPUs over the bin */
};

/* The curves of one replay of 't' into 's': 'start' (t->njobs entries,
 * sim_run()'s start_out: -1 for a job that never ran), 'pool_cpus', and
 * the span [t0, t1) (epoch s) the bins cut.  Pure. */
void sim_plot_series_of(const struct swf_trace *t, const int64_t *start,
                        uint64_t pool_cpus, int64_t t0, int64_t t1,
                        struct sim_plot_series *s);

/* Draw 'ns' series to SVG file 'path' over the span [t0, t1): the wait
 * over time above, the utilization below, one colour per series.
 * Returns 0, or -1 with the reason in 'err' (errlen bytes) when Drover was
 * built without PLplot or the file cannot be written. */
int sim_plot_svg(const char *path, const struct sim_plot_series *s,
                 size_t ns, int64_t t0, int64_t t1, char *err,
                 size_t errlen);

#endif /* !DROVER_CMD_SIM_PLOT_H */
