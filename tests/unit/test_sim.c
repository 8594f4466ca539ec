/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sim.c - the replay on a hand-written 10-job trace (data/sim10.swf,
 * given as argv[1]) on its pool of 4 processors, waits worked out by hand
 *
 * FCFS: J1 starts at 0; J2 (4 procs) waits for J1's end at 100 and blocks
 * everything; at 150 J3, J4 and J5 start; J6 (3) at 170 when J3 ends; J7
 * (4) at 350 when J4 ends; J8 and J9 at 355; J10 (2) at 385 after J8.
 *
 * EASY: J2 holds a reservation at 100 (J1's limit).  J3 [10,40) and J5
 * [30,40) end before it and start at once; so does J8 [60,100).  J2 starts
 * at 100 and ends at 150 (limit 160); J4 (first waiting) is reserved 1 CPU
 * at 160 and starts at 150 with J6 (3 procs, killed at its 50 s estimate
 * at 200); J7 (4) is reserved at 450 (J4's limit), so J9 (limit 1000)
 * cannot pass it but J10 [200,220) can; J7 starts at 350 when J4 ends, J9
 * at 355.
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

static const char *trace_path, *slip_path;

static const int64_t fcfs_start[10] = {
    0, 100, 150, 150, 150, 170, 350, 355, 355, 385,
};
static const int64_t easy_start[10] = {
    0, 100, 10, 150, 30, 150, 350, 60, 355, 200,
};


static void replay(enum sim_policy p, struct sim_result *r, int64_t *start)
{
    struct swf_trace t;
    struct sim_opts o;

    assert_int_equal(swf_read(trace_path, SWF_PROCS_REQUESTED, &t, NULL), 0);
    assert_int_equal(t.njobs, 10);
    sim_opts_init(&o, p);
    assert_int_equal(sim_run(&t, &o, r, start, NULL), 0);
    swf_trace_free(&t);
}

static void fcfs_starts_in_order(void **state)
{
    (void)state;
    struct sim_result r;
    int64_t start[10];

    replay(SIM_POLICY_FCFS, &r, start);
    for (int j = 0; j < 10; j++)
        assert_int_equal(start[j], fcfs_start[j]);
    assert_int_equal(r.jobs, 10);
    /* waits 0 100 140 130 120 130 300 295 285 305 */
    assert_float_equal(r.avg_wait_s, 180.5, 1e-9);
    /* 1 + 3 + 8 + 1.65 + 13 + 3.6 + 30.5 + 325/30 + 1.285 + 320/15 */
    assert_float_equal(r.avg_bsld, 9.42016666666667, 1e-9);
    assert_int_equal(r.p50_wait_s, 130);
    assert_int_equal(r.p95_wait_s, 305);
    assert_int_equal(r.max_wait_s, 305);
    assert_int_equal(r.makespan_s, 1355);
    assert_float_equal(r.utilization, 2880.0 / (4 * 1355), 1e-12);
}

static void easy_backfills_behind_one_reservation(void **state)
{
    (void)state;
    struct sim_result r;
    int64_t start[10];

    replay(SIM_POLICY_EASY, &r, start);
    for (int j = 0; j < 10; j++)
        assert_int_equal(start[j], easy_start[j]);
    /* waits 0 100 0 130 0 110 300 0 285 120 */
    assert_float_equal(r.avg_wait_s, 104.5, 1e-9);
    /* 1 + 3 + 1 + 1.65 + 1 + 3.2 + 30.5 + 1 + 1.285 + 9 */
    assert_float_equal(r.avg_bsld, 5.2635, 1e-9);
    assert_int_equal(r.p50_wait_s, 100);
    assert_int_equal(r.p99_wait_s, 300);
    assert_int_equal(r.max_wait_s, 300);
    assert_int_equal(r.makespan_s, 1355);
}

/* The default policy (src/sched/backfill.h; 60 s resolution, no window):
 * no job holds a reservation until it waited 10 times its planned time,
 * the others go shortest planned time first, planned times from each
 * user's last two runs (users: J1 J3 J5 J8 are 1, J2 J6 J9 are 2, J4 J7
 * J10 are 3).  J1 starts at 0; J2 (4, fresh) waits.  J3 at 10.  At 30 J3
 * has ended (user 1 ran 20): J5 (planned 10) then J4 (300) start, J2 (60)
 * does not fit.  J8 (user 1: 15) at 60 on the last CPU; J7 (planned 5)
 * does not fit.  At 100 J1 ends: J7 waited 50 = 10 x 5 and leads,
 * reserved at 360 (J4's limit 330, on a 60 s step); J10 (20) fits before
 * and starts.  At 115 J6 (50) starts, ending before 360.  At 165 J6 has
 * ended (user 2 ran 50): J2 and J9 are both planned 50, J9 fits (2 CPUs)
 * and starts, but runs its 1000 s: J7's reservation slips to J9's end
 * (by less than the slip guard's hour).  At 1165 J2 (waited 10 x 60)
 * leads too, before J7 in queue order: J2 at 1165, J7 at 1215. */
static const int64_t default_start[10] = {
    0, 1165, 10, 30, 30, 115, 1215, 60, 165, 100,
};

static void default_policy_plans_with_predictions(void **state)
{
    (void)state;
    struct sim_result r;
    int64_t start[10];

    replay(SIM_POLICY_DEFAULT, &r, start);
    for (int j = 0; j < 10; j++)
        assert_int_equal(start[j], default_start[j]);
    assert_int_equal(r.jobs, 10);
    assert_int_equal(r.never, 0);
    /* waits 0 1165 0 10 0 75 1165 0 95 20 */
    assert_float_equal(r.avg_wait_s, 253.0, 1e-9);
    /* 1 + 24.3 + 1 + 1.05 + 1 + 2.5 + 117 + 1 + 1.095 + 35/15 */
    assert_float_equal(r.avg_bsld, 15.2278333333333, 1e-9);
    assert_int_equal(r.max_wait_s, 1165);
    assert_int_equal(r.makespan_s, 1220);
}

static void small_pool_drops_jobs_that_never_fit(void **state)
{
    (void)state;
    struct swf_trace t;
    struct sim_opts o;
    struct sim_result r;
    int64_t start[10];

    assert_int_equal(swf_read(trace_path, SWF_PROCS_REQUESTED, &t, NULL), 0);
    sim_opts_init(&o, SIM_POLICY_EASY);
    o.nodes = 3;
    o.cpus_per_node = 1; /* 3 CPUs: J2 and J7 (4 procs) never fit */
    assert_int_equal(sim_run(&t, &o, &r, start, NULL), 0);
    assert_int_equal(r.never, 2);
    assert_int_equal(r.jobs, 8);
    assert_int_equal(start[1], -1);
    assert_int_equal(start[6], -1);
    assert_int_equal(r.pool_cpus, 3);
    swf_trace_free(&t);
}

static void bsld_is_bounded(void **state)
{
    (void)state;
    assert_float_equal(sim_bsld(0, 0), 1.0, 0);
    assert_float_equal(sim_bsld(20, 5), 2.5, 1e-12);  /* tau = 10 s */
    assert_float_equal(sim_bsld(100, 100), 2.0, 1e-12);
}

static void policy_names_round_trip(void **state)
{
    (void)state;
    enum sim_policy p;

    assert_int_equal(sim_policy_parse("easy", &p), 0);
    assert_int_equal(p, SIM_POLICY_EASY);
    assert_string_equal(sim_policy_name(SIM_POLICY_DEFAULT), "default");
    errno = 0;
    assert_int_equal(sim_policy_parse("sjf", &p), -1);
    assert_int_equal(errno, EINVAL);
}

/* data/slip6.swf, the default policy with exact end times and the first
 * job of the queue leading (extra_leads 1): jobs 1 and 2 (user 1) run
 * 0-10, so user 1 is predicted 10 s.  At 20 job 3 (2 CPUs, 300 s) starts
 * and job 4 (4 CPUs) leads, reserved at 320.  At 30 job 5 (user 1, 2
 * CPUs, planned 10 s) backfills; it runs its whole 10000 s estimate, so
 * job 4's reservation slips to 10030.  At 4000 job 6 (user 1, 2 CPUs)
 * comes: with the guard (slipped since 320 + 3600) it is planned for its
 * 10000 s, would delay job 4 and waits; job 4 starts at 10030, job 6 at
 * 10130.  Without it job 6 is planned for 10 s, backfills at 4000 and
 * pushes job 4 to 14000. */
static void slip_guard_keeps_a_reservation(void **state)
{
    (void)state;
    static const int64_t with[6] = { 0, 0, 20, 10030, 30, 10130 };
    static const int64_t without[6] = { 0, 0, 20, 14000, 30, 4000 };
    struct swf_trace t;
    struct sim_opts o;
    struct sim_result r;
    int64_t start[6];

    assert_int_equal(swf_read(slip_path, SWF_PROCS_REQUESTED, &t, NULL), 0);
    assert_int_equal(t.njobs, 6);
    for (int guard = 1; guard >= 0; guard--) {
        sim_opts_init(&o, SIM_POLICY_DEFAULT);
        o.pass.resolution_s = 0;
        o.extra_leads = 1;
        o.slip_guard = guard;
        assert_int_equal(sim_run(&t, &o, &r, start, NULL), 0);
        for (int j = 0; j < 6; j++)
            assert_int_equal(start[j], guard ? with[j] : without[j]);
    }
    swf_trace_free(&t);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fcfs_starts_in_order),
        cmocka_unit_test(easy_backfills_behind_one_reservation),
        cmocka_unit_test(default_policy_plans_with_predictions),
        cmocka_unit_test(small_pool_drops_jobs_that_never_fit),
        cmocka_unit_test(bsld_is_bounded),
        cmocka_unit_test(policy_names_round_trip),
        cmocka_unit_test(slip_guard_keeps_a_reservation),
    };
    if (argc < 3) {
        fprintf(stderr, "usage: test_sim TRACE SLIP_TRACE "
                        "(tests/unit/data/sim10.swf, slip6.swf)\n");
        return 1;
    }
    trace_path = argv[1];
    slip_path = argv[2];
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
