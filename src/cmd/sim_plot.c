/* SPDX-License-Identifier: Apache-2.0
 *
 * sim_plot.c - drover-sim --plot (sim_plot.h)
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cmd/sim_plot.h"

#if HAVE_PLPLOT
#include <plplot.h>
#endif

/* The bin of time 'at' in [t0, t1), clamped. */
static size_t bin_of(int64_t at, int64_t t0, int64_t t1)
{
    double f = t1 > t0 ? (double)(at - t0) / (double)(t1 - t0) : 0;
    size_t b = f <= 0 ? 0 : (size_t)(f * SIM_PLOT_BINS);

    return b < SIM_PLOT_BINS ? b : SIM_PLOT_BINS - 1;
}

/* procs x the part of [s, e) in each bin, into busy[] (CPU-seconds). */
static void add_busy(double *busy, int64_t s, int64_t e, uint32_t procs,
                     int64_t t0, double width)
{
    for (size_t b = bin_of(s, t0, t0 + (int64_t)(width * SIM_PLOT_BINS));
         b < SIM_PLOT_BINS; b++) {
        double lo = (double)t0 + width * (double)b, hi = lo + width;
        double a = (double)s > lo ? (double)s : lo;
        double z = (double)e < hi ? (double)e : hi;
        if (z <= a)
            break;
        busy[b] += (z - a) * procs;
    }
}

void sim_plot_series_of(const struct swf_trace *t, const int64_t *start,
                        uint64_t pool_cpus, int64_t t0, int64_t t1,
                        struct sim_plot_series *s)
{
    double width = (double)(t1 > t0 ? t1 - t0 : 1) / SIM_PLOT_BINS;
    double busy[SIM_PLOT_BINS] = {0}, n[SIM_PLOT_BINS] = {0};

    memset(s->wait_h, 0, sizeof(s->wait_h));
    for (size_t i = 0; i < t->njobs; i++) {
        const struct swf_job *j = &t->jobs[i];
        int64_t run = j->run < j->estimate ? j->run : j->estimate;
        size_t b;
        if (start[i] < 0)
            continue;
        b = bin_of(j->submit, t0, t1);
        s->wait_h[b] += (double)(start[i] - j->submit) / 3600.0;
        n[b]++;
        add_busy(busy, start[i], start[i] + run, j->procs, t0, width);
    }
    for (size_t b = 0; b < SIM_PLOT_BINS; b++) {
        s->wait_h[b] = n[b] ? s->wait_h[b] / n[b] : 0;
        s->util[b] = pool_cpus ? busy[b] / ((double)pool_cpus * width) : 0;
    }
}

#if HAVE_PLPLOT
/* One panel: 'title', y label, the series' curve 'which' (0 wait, 1 util). */
static void panel(const struct sim_plot_series *s, size_t ns, double days,
                  int which, const char *ylab, const char *title)
{
    PLFLT x[SIM_PLOT_BINS], y[SIM_PLOT_BINS], ymax = which ? 1 : 0;

    for (size_t k = 0; k < ns && !which; k++)
        for (size_t b = 0; b < SIM_PLOT_BINS; b++)
            ymax = s[k].wait_h[b] > ymax ? s[k].wait_h[b] : ymax;
    pladv(0);
    plvsta();
    plwind(0, days, 0, ymax > 0 ? ymax * 1.05 : 1);
    plcol0(15);
    plbox("bcnst", 0, 0, "bcnstv", 0, 0);
    pllab("days since the first submission", ylab, title);
    for (size_t k = 0; k < ns; k++) {
        for (size_t b = 0; b < SIM_PLOT_BINS; b++) {
            x[b] = days * ((double)b + 0.5) / SIM_PLOT_BINS;
            y[b] = which ? s[k].util[b] : s[k].wait_h[b];
        }
        plcol0((PLINT)(k % 13) + 1);
        plline(SIM_PLOT_BINS, x, y);
        plmtex("t", 1.5 + 1.2 * (double)k, 1.0, 1.0, s[k].label);
    }
}

int sim_plot_svg(const char *path, const struct sim_plot_series *s,
                 size_t ns, int64_t t0, int64_t t1, char *err,
                 size_t errlen)
{
    FILE *f = fopen(path, "w");

    if (!f) {
        snprintf(err, errlen, "%s: cannot be written", path);
        return -1;
    }
    fclose(f);
    plsdev("svg");
    plsfnam(path);
    plscolbg(255, 255, 255);
    plssub(1, 2);
    plinit();
    panel(s, ns, (double)(t1 - t0) / 86400.0, 0, "average wait (hours)",
          "Wait of the jobs submitted, over time");
    panel(s, ns, (double)(t1 - t0) / 86400.0, 1, "busy CPUs / pool",
          "Utilization over time");
    plend();
    return 0;
}
#else
int sim_plot_svg(const char *path, const struct sim_plot_series *s,
                 size_t ns, int64_t t0, int64_t t1, char *err,
                 size_t errlen)
{
    (void)path, (void)s, (void)ns, (void)t0, (void)t1;
    snprintf(err, errlen, "drover-sim was built without PLplot "
                          "(libplplot-dev): --plot is not available");
    return -1;
}
#endif
