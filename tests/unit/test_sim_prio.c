/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sim_prio.c - the replay's queue in priority/multifactor order, on
 * the hand-written data/prio3.swf (argv[1]): a pool of 2 processors, and
 * users 1 and 2 of group 1, so the associations are root -> account "1"
 * -> users "1" and "2", shares 1 each.
 *
 *   J1  t=0     user 1  2 procs  runs 2000  starts at once
 *   J2  t=100   user 1  2 procs  runs 100
 *   J3  t=1700  user 2  2 procs  runs 50
 *
 * Calculations every 300 s (PriorityCalcPeriod's default), from 300.
 *
 * Fair-share only (PriorityWeightFairshare=10000).  At 100 no usage is
 * charged yet: both users have LevelFS infinity and tie at rank 2 of 2,
 * factor 1, so J2 gets 10000.  At 300 J1 is charged 2 x 300 CPU-s: user
 * 1's LevelFS is 0.5 / 1, user 2's infinity, so user 2 ranks 2 (factor
 * 1) and user 1 ranks 1 (factor 0.5): J2 is 5000 from then on.  J3 comes
 * at 1700 with 10000 and is ahead of J2: at 2000 (J1 ends) J3 starts,
 * at 2050 J2.  Waits 0, 1950, 300: average 750, largest 1950; bounded
 * slowdowns 1, 2050 / 100 = 20.5, 350 / 50 = 7: average 9.5.
 * In submission order (priority/basic) J2 starts at 2000 and J3 at 2100:
 * waits 0, 1900, 400 (average 2300 / 3), slowdowns 1, 20, 9 (average 10).
 * Classic fair-share (NO_FAIR_TREE): user 1's factor 2^(-1 / 0.5) =
 * 0.25, user 2's 2^(-0.5 / 0.5) = 0.5: the same order.
 *
 * With age as well (PriorityWeightAge=10000, PriorityMaxAge 1200 s): at
 * the calculation at 1500 J2 has waited 1400 s, over the maximum: age 1,
 * 10000 + 5000 = 15000.  J3 gets 10000 at 1700 and 10000 + 10000 x
 * 100 / 1200 = 10833 at 1800: J2 stays ahead, starts at 2000, J3 at
 * 2100 (as in submission order).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "sim/sim.h"

static const char *trace_path;

static const struct prio_conf fairshare_only = {
    .multifactor = true, .w_fairshare = 10000, .max_age_s = 7 * 86400,
    .decay_half_life_s = 7 * 86400, .calc_period_s = 300,
};

static void replay(enum sim_policy p, const struct prio_conf *pc,
                   struct sim_result *r, int64_t *start)
{
    struct swf_trace t;
    struct sim_opts o;

    assert_int_equal(swf_read(trace_path, SWF_PROCS_REQUESTED, &t, NULL), 0);
    assert_int_equal(t.njobs, 3);
    sim_opts_init(&o, p);
    o.prio = pc;
    assert_int_equal(sim_run(&t, &o, r, start, NULL), 0);
    swf_trace_free(&t);
}

static void assert_starts(const int64_t *start, int64_t j1, int64_t j2,
                          int64_t j3)
{
    assert_int_equal(start[0], j1);
    assert_int_equal(start[1], j2);
    assert_int_equal(start[2], j3);
}

static void fairshare_puts_light_users_later_job_first(void **state)
{
    (void)state;
    static const enum sim_policy policies[] = { SIM_POLICY_FCFS,
                                                SIM_POLICY_EASY };
    struct sim_result r;
    int64_t start[3];

    for (size_t i = 0; i < 2; i++) {
        replay(policies[i], &fairshare_only, &r, start);
        assert_starts(start, 0, 2050, 2000);
        assert_float_equal(r.avg_wait_s, 750.0, 1e-9);
        assert_float_equal(r.avg_bsld, 9.5, 1e-9);
        assert_int_equal(r.max_wait_s, 1950);
        assert_int_equal(r.makespan_s, 2150);
    }
}

static void classic_fairshare_gives_the_same_order(void **state)
{
    (void)state;
    struct prio_conf pc = fairshare_only;
    struct sim_result r;
    int64_t start[3];

    pc.flags = PRIO_FLAG_NO_FAIR_TREE;
    replay(SIM_POLICY_FCFS, &pc, &r, start);
    assert_starts(start, 0, 2050, 2000);
}

static void basic_keeps_submission_order(void **state)
{
    (void)state;
    struct prio_conf pc = fairshare_only;
    struct sim_result r, r0;
    int64_t start[3], start0[3];

    pc.multifactor = false; /* priority/basic: weights are ignored */
    replay(SIM_POLICY_FCFS, &pc, &r, start);
    replay(SIM_POLICY_FCFS, NULL, &r0, start0);
    assert_starts(start, 0, 2000, 2100);
    assert_starts(start0, 0, 2000, 2100);
    assert_float_equal(r.avg_wait_s, 2300.0 / 3, 1e-9);
    assert_float_equal(r.avg_bsld, 10.0, 1e-9);
    assert_int_equal(r.passes, r0.passes);
}

static void age_puts_the_old_job_back_first(void **state)
{
    (void)state;
    struct prio_conf pc = fairshare_only;
    struct sim_result r;
    int64_t start[3];

    pc.w_age = 10000;
    pc.max_age_s = 1200;
    replay(SIM_POLICY_FCFS, &pc, &r, start);
    assert_starts(start, 0, 2000, 2100);
    assert_float_equal(r.avg_wait_s, 2300.0 / 3, 1e-9);
    /* A maximum age J2 cannot reach by J3's arrival (1700 s waited of
     * 7 days): fair-share decides again. */
    pc.max_age_s = 7 * 86400;
    replay(SIM_POLICY_FCFS, &pc, &r, start);
    assert_starts(start, 0, 2050, 2000);
}

/* The default policy takes the queue in priority order (J3, J2) through
 * sched_backfill_order(): at 2000 J2 has waited 1900 s, over 10 times
 * its planned 100 s (user 1's last run, 2000 s, capped at its limit), so
 * it leads; J3 has waited 300 s only (under 10 x 50) but its priority is
 * higher, so it leads too, ahead of J2: J3 starts at 2000, J2 at 2050, as
 * under priority order alone. */
static void default_policy_orders_the_priority_queue(void **state)
{
    (void)state;
    struct sim_result r;
    int64_t start[3];

    replay(SIM_POLICY_DEFAULT, &fairshare_only, &r, start);
    assert_starts(start, 0, 2050, 2000);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fairshare_puts_light_users_later_job_first),
        cmocka_unit_test(classic_fairshare_gives_the_same_order),
        cmocka_unit_test(basic_keeps_submission_order),
        cmocka_unit_test(age_puts_the_old_job_back_first),
        cmocka_unit_test(default_policy_orders_the_priority_queue),
    };
    if (argc < 2) {
        fprintf(stderr, "usage: test_sim_prio TRACE "
                        "(tests/unit/data/prio3.swf)\n");
        return 1;
    }
    trace_path = argv[1];
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
