/* SPDX-License-Identifier: Apache-2.0
 *
 * test_priority.c - multifactor priority factors, the weighted sum and
 * usage decay (src/sched/priority.h), against Slurm's figures
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sched/priority.h"

#define EPS 1e-9
#define DAY 86400

/* The golden cluster's weights (slurm-golden/sprio-w). */
static const struct prio_conf golden = {
    .multifactor = true, .w_age = 1000, .w_fairshare = 10000,
    .w_partition = 1000, .w_qos = 1000, .max_age_s = 7 * DAY,
    .decay_half_life_s = 7 * DAY, .calc_period_s = 300,
};

static struct prio_job job(double fairshare)
{
    return (struct prio_job){ .age_start = 1000, .nodes = 1, .cpus = 4,
                              .time_limit_s = 600, .fairshare = fairshare,
                              .part_prio = 1, .part_prio_max = 1,
                              .cluster_nodes = 4, .cluster_cpus = 128 };
}

/* sprio-fairshare: alice 2/3 -> 7666, bob 1/3 -> 4333 (truncated sums). */
static void golden_priorities(void **state)
{
    struct prio_job a = job(2.0 / 3), b = job(1.0 / 3);
    struct prio_factors f;

    (void)state;
    prio_factors(&golden, &a, 1000, &f);
    assert_true(fabs(f.partition - 1.0) < EPS);
    assert_true(f.age == 0 && f.qos == 0 && f.jobsize == 0.0 + f.jobsize);
    assert_int_equal(prio_total(&golden, &f), 7666);
    prio_factors(&golden, &b, 1000, &f);
    assert_int_equal(prio_total(&golden, &f), 4333);
}

static void age_grows_to_max(void **state)
{
    struct prio_job j = job(0);
    struct prio_factors f;

    (void)state;
    prio_factors(&golden, &j, 1000 + 7 * DAY / 2, &f);
    assert_true(fabs(f.age - 0.5) < EPS);
    prio_factors(&golden, &j, 1000 + 30 * DAY, &f);
    assert_true(fabs(f.age - 1.0) < EPS);
    j.age_start = 0; /* not yet eligible: no age */
    prio_factors(&golden, &j, 5000, &f);
    assert_true(f.age == 0);
}

static void jobsize_qos_assoc_nice(void **state)
{
    struct prio_conf c = golden;
    struct prio_job j = job(0);
    struct prio_factors f;

    (void)state;
    j.nodes = 2;
    j.cpus = 64;
    j.qos_prio = 10;
    j.qos_prio_max = 40;
    j.assoc_prio = 5;
    j.assoc_prio_max = 0;
    j.nice = 100;
    prio_factors(&c, &j, 1000, &f);
    assert_true(fabs(f.jobsize - (0.5 + 0.5) / 2) < EPS);
    assert_true(fabs(f.qos - 0.25) < EPS);
    assert_true(f.assoc == 0);
    /* 1000 (partition) + 250 (qos) - 100 (nice) */
    assert_int_equal(prio_total(&c, &f), 1150);
    c.favor_small = true;
    prio_factors(&c, &j, 1000, &f);
    assert_true(fabs(f.jobsize - 0.5) < EPS);
    c.flags = PRIO_FLAG_NO_NORMAL_QOS;
    prio_factors(&c, &j, 1000, &f);
    assert_true(fabs(f.qos - 10) < EPS);
    /* SMALL_RELATIVE_TO_TIME: 64 CPUs over 10 minutes, of 128 CPUs */
    c = golden;
    c.flags = PRIO_FLAG_SMALL_RELATIVE_TO_TIME;
    prio_factors(&c, &j, 1000, &f);
    assert_true(fabs(f.jobsize - 6.4 / 128) < EPS);
}

static void tres_weights(void **state)
{
    struct prio_conf c = { .multifactor = true };
    struct prio_job j = job(0);
    struct prio_factors f;

    (void)state;
    c.w_tres[PRIO_TRES_CPU] = 1000;
    c.w_tres[PRIO_TRES_GPU] = 3000;
    j.cpus = 32;
    j.gpus = 2;
    j.cluster_gpus = 8;
    prio_factors(&c, &j, 1000, &f);
    assert_true(fabs(f.tres[PRIO_TRES_CPU] - 0.25) < EPS);
    assert_true(fabs(f.tres[PRIO_TRES_GPU] - 0.25) < EPS);
    assert_int_equal(prio_total(&c, &f), 250 + 750);
    assert_string_equal(prio_tres_name(PRIO_TRES_GPU), "gres/gpu");
}

static void clamps(void **state)
{
    struct prio_conf c = { .multifactor = true };
    struct prio_factors f = { .nice = 500 };

    (void)state;
    assert_int_equal(prio_total(&c, &f), 1);
    c.w_fairshare = 0xffffffffu;
    f = (struct prio_factors){ .fairshare = 1.0, .site = 10 };
    assert_int_equal(prio_total(&c, &f), 0xfffffffeu);
}

static void decay(void **state)
{
    (void)state;
    assert_true(fabs(prio_decay(DAY, DAY) - 0.5) < EPS);
    assert_true(fabs(prio_decay(DAY, 2 * DAY) - 0.25) < EPS);
    assert_true(prio_decay(0, DAY) == 1.0);
    assert_true(prio_decay(DAY, -5) == 1.0);
    /* decaying in steps equals decaying at once */
    assert_true(fabs(prio_decay(DAY, 300) * prio_decay(DAY, 700)
                     - prio_decay(DAY, 1000)) < EPS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_priorities),
        cmocka_unit_test(age_grows_to_max),
        cmocka_unit_test(jobsize_qos_assoc_nice),
        cmocka_unit_test(tres_weights),
        cmocka_unit_test(clamps),
        cmocka_unit_test(decay),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
