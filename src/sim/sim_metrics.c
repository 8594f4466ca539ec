/* SPDX-License-Identifier: Apache-2.0
 *
 * sim_metrics.c - the figures of a finished replay (struct sim_result)
 */
#include <errno.h>
#include <stdlib.h>

#include "sim/sim_private.h"

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile q (0..1] of sorted w[n], n > 0. */
static int64_t percentile(const int64_t *w, size_t n, double q)
{
    size_t rank = (size_t)(q * (double)n + 0.999999999);

    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return w[rank - 1];
}

int sim_metrics(const struct sim *s, struct sim_result *r)
{
    const struct swf_trace *t = s->t;
    int64_t *w = malloc((t->njobs ? t->njobs : 1) * sizeof(*w));
    int64_t first = INT64_MAX, last = INT64_MIN;
    double sum_wait = 0, sum_bsld = 0, work = 0;
    size_t n = 0;

    if (!w)
        return -1;
    for (size_t j = 0; j < t->njobs; j++) {
        if (s->never[j])
            r->never++;
        if (s->start[j] < 0)
            continue;
        int64_t run = s->end[j] - s->start[j];
        w[n] = s->start[j] - t->jobs[j].submit;
        sum_wait += (double)w[n];
        sum_bsld += sim_bsld(w[n], run);
        work += (double)t->jobs[j].procs * (double)run;
        first = t->jobs[j].submit < first ? t->jobs[j].submit : first;
        last = s->end[j] > last ? s->end[j] : last;
        n++;
    }
    r->jobs = n;
    r->passes = s->passes;
    r->pool_cpus = s->pool_cpus;
    if (n) {
        qsort(w, n, sizeof(*w), cmp_i64);
        r->avg_wait_s = sum_wait / (double)n;
        r->avg_bsld = sum_bsld / (double)n;
        r->p50_wait_s = percentile(w, n, 0.50);
        r->p95_wait_s = percentile(w, n, 0.95);
        r->p99_wait_s = percentile(w, n, 0.99);
        r->max_wait_s = w[n - 1];
        r->makespan_s = last - first;
        if (r->makespan_s > 0)
            r->utilization = work / ((double)r->pool_cpus
                                     * (double)r->makespan_s);
    }
    free(w);
    return 0;
}
