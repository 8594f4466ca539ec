/* SPDX-License-Identifier: Apache-2.0
 *
 * priority.c - multifactor priority factors and usage decay (priority.h)
 */
#include <math.h>
#include <stddef.h>

#include "sched/priority.h"

static const char *const tres_names[PRIO_TRES_COUNT] = {
    [PRIO_TRES_CPU] = "cpu", [PRIO_TRES_MEM] = "mem",
    [PRIO_TRES_NODE] = "node", [PRIO_TRES_GPU] = "gres/gpu",
};

const char *prio_tres_name(enum prio_tres t)
{
    return (unsigned)t < PRIO_TRES_COUNT ? tres_names[t] : NULL;
}

static double ratio(double num, double den)
{
    if (den <= 0)
        return 0;
    return num / den > 1.0 ? 1.0 : num / den;
}

/* A priority over the largest, or raw when not normalized. */
static double part_of(uint32_t v, uint32_t max, bool raw)
{
    if (raw)
        return v;
    return max ? (double)v / max : 0;
}

static double age_factor(const struct prio_conf *c, const struct prio_job *j,
                         int64_t now)
{
    if (j->age_start <= 0 || now <= j->age_start)
        return 0;
    if (c->max_age_s <= 0)
        return 1.0;
    return ratio((double)(now - j->age_start), (double)c->max_age_s);
}

static double jobsize_factor(const struct prio_conf *c,
                             const struct prio_job *j)
{
    uint32_t nodes = j->nodes ? j->nodes : 1;
    double f;

    if (!j->cluster_nodes || !j->cluster_cpus)
        return 0;
    if (c->flags & PRIO_FLAG_SMALL_RELATIVE_TO_TIME) {
        double cpus = (double)nodes * j->cluster_cpus / j->cluster_nodes;
        double minutes = j->time_limit_s > 0 ? (j->time_limit_s + 59) / 60
                                             : 1;
        if (j->cpus > cpus)
            cpus = j->cpus;
        f = ratio(cpus / minutes, j->cluster_cpus);
    } else {
        f = ratio(nodes, j->cluster_nodes);
        if (j->cpus)
            f = (f + ratio(j->cpus, j->cluster_cpus)) / 2;
    }
    return c->favor_small ? 1.0 - f : f;
}

void prio_factors(const struct prio_conf *c, const struct prio_job *j,
                  int64_t now, struct prio_factors *out)
{
    const double have[PRIO_TRES_COUNT] = { j->cpus, (double)j->mem_mib,
                                           j->nodes ? j->nodes : 1, j->gpus };
    const double total[PRIO_TRES_COUNT] = { j->cluster_cpus,
                                            (double)j->cluster_mem_mib,
                                            j->cluster_nodes, j->cluster_gpus };

    *out = (struct prio_factors){
        .age = age_factor(c, j, now),
        .assoc = part_of(j->assoc_prio, j->assoc_prio_max,
                         c->flags & PRIO_FLAG_NO_NORMAL_ASSOC),
        .fairshare = j->fairshare,
        .jobsize = jobsize_factor(c, j),
        .partition = part_of(j->part_prio, j->part_prio_max,
                             c->flags & PRIO_FLAG_NO_NORMAL_PART),
        .qos = part_of(j->qos_prio, j->qos_prio_max,
                       c->flags & PRIO_FLAG_NO_NORMAL_QOS),
        .nice = j->nice,
    };
    for (int t = 0; t < PRIO_TRES_COUNT; t++)
        out->tres[t] = c->flags & PRIO_FLAG_NO_NORMAL_TRES
                           ? have[t] : ratio(have[t], total[t]);
}

uint32_t prio_total(const struct prio_conf *c, const struct prio_factors *f)
{
    double p = (double)f->site + c->w_age * f->age + c->w_assoc * f->assoc
               + c->w_fairshare * f->fairshare + c->w_jobsize * f->jobsize
               + c->w_partition * f->partition + c->w_qos * f->qos;

    for (int t = 0; t < PRIO_TRES_COUNT; t++)
        p += c->w_tres[t] * f->tres[t];
    p -= f->nice;
    if (!(p >= 1)) /* also NaN */
        return 1;
    if (p >= 4294967294.0)
        return 0xfffffffeu;
    return (uint32_t)p;
}

double prio_decay(int64_t half_life_s, int64_t dt_s)
{
    if (half_life_s <= 0 || dt_s <= 0)
        return 1.0;
    return exp2(-(double)dt_s / (double)half_life_s);
}

double prio_calc_decay(const struct prio_conf *c, int64_t last, int64_t t)
{
    if (!last || t <= last)
        return 1.0;
    return prio_decay(c->decay_half_life_s, t - last);
}

int64_t prio_charged_from(int64_t start, int64_t last_calc, int64_t resumed)
{
    int64_t from = start;

    if (last_calc > from)
        from = last_calc;
    if (resumed > from)
        from = resumed;
    return from;
}

double prio_charge(uint32_t cpus, int64_t from, int64_t to,
                   double usage_factor)
{
    if (to <= from)
        return 0;
    return (double)cpus * (double)(to - from) * usage_factor;
}
