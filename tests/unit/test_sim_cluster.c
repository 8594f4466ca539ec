/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sim_cluster.c - the replay on a cluster from a slurm.conf: nodes of
 * two sizes, GPUs on one, and partitions, under EASY (times exact)
 *
 * Nodes s1, s2 (4 CPUs, 4000 MiB) and b1 (16 CPUs, 64000 MiB, 2 GPUs);
 * partitions all (every node), small (s1, s2; Default=YES though not
 * first) and big (b1).  The jobs (submit, CPUs, what else):
 *   J1  0  8 in big, runs 100: b1 at 0
 *   J2  0  4, no partition (small): s1 at 0
 *   J3  1  16 on one node in all: only b1 can take it; it waits for J1
 *          to end at 100 although s2 is free, with the one reservation
 *   J4  2  4 on one node in all with 2000 MiB per CPU (too much for s1,
 *          s2): on b1 beside J1, ending at 22 before J3's reservation:
 *          starts at 2
 *   J5  3  2 in all with 2 GPUs, estimate 500: only b1 has GPUs and it
 *          would overlap J3's reservation: waits for J3's end at 150
 *   J6  4  4, no partition: s2 at 4
 *   J7  5  8 on one node, no partition: no small node has 8: never
 *   J8  6  1 in a partition the cluster lacks: never
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "conf/conf.h"
#include "sim/sim.h"

static const char conf_text[] =
    "ClusterName=t\n"
    "NodeName=s[1-2] CPUs=4 RealMemory=4000\n"
    "NodeName=b1 CPUs=16 RealMemory=64000 Gres=gpu:2\n"
    "PartitionName=all Nodes=ALL\n"
    "PartitionName=small Nodes=s[1-2] Default=YES\n"
    "PartitionName=big Nodes=b1\n";

static char *part_names[] = {"big", "all", "nosuch"}; /* part 1, 2, 3 */

/* id, submit, run, estimate, procs, nodes, mem_per_cpu_mib, gpus, part */
static const struct swf_job jobs[] = {
    {.id = 1, .submit = 0, .run = 100, .estimate = 100, .procs = 8,
     .part = 1},
    {.id = 2, .submit = 0, .run = 50, .estimate = 60, .procs = 4},
    {.id = 3, .submit = 1, .run = 50, .estimate = 60, .procs = 16,
     .nodes = 1, .part = 2},
    {.id = 4, .submit = 2, .run = 10, .estimate = 20, .procs = 4,
     .nodes = 1, .mem_per_cpu_mib = 2000, .part = 2},
    {.id = 5, .submit = 3, .run = 10, .estimate = 500, .procs = 2,
     .gpus = 2, .part = 2},
    {.id = 6, .submit = 4, .run = 10, .estimate = 10, .procs = 4},
    {.id = 7, .submit = 5, .run = 10, .estimate = 10, .procs = 8,
     .nodes = 1},
    {.id = 8, .submit = 6, .run = 10, .estimate = 10, .procs = 1,
     .part = 3},
};
#define NJOBS (sizeof(jobs) / sizeof(jobs[0]))

static int cluster_setup(void **state)
{
    struct sim_cluster *c = calloc(1, sizeof(*c));
    drv_error_t error = {{0}};
    struct slurm_conf *conf = conf_parse("/nonexistent/slurm.conf",
                                         conf_text, "", &error);

    if (!c || !conf || sim_cluster_from_conf(c, conf, &error) < 0) {
        fprintf(stderr, "# %s\n", error.text);
        conf_destroy(conf);
        free(c);
        return -1;
    }
    *state = c;
    return 0;
}

static int cluster_teardown(void **state)
{
    sim_cluster_free(*state);
    free(*state);
    return 0;
}

static void cluster_has_the_confs_nodes_and_partitions(void **state)
{
    const struct sim_cluster *c = *state;

    assert_int_equal(c->nnodes, 3);
    assert_int_equal(c->cpus, 24);
    assert_int_equal(c->nodes[2].gpus, 2);
    assert_int_equal(c->nodes[0].mem_mib, 4000);
    assert_int_equal(c->nparts, 3);
    assert_string_equal(c->parts[c->default_part].name, "small");
    assert_null(c->parts[0].nodes); /* all: no restriction */
    assert_int_equal(sim_cluster_part(c, "big"), 2);
    assert_int_equal(sim_cluster_part(c, "nosuch"), -1);
}

static void jobs_wait_for_or_go_to_the_right_nodes(void **state)
{
    const struct sim_cluster *c = *state;
    struct swf_trace t = {.jobs = (struct swf_job *)jobs, .njobs = NJOBS,
                          .max_procs = 16, .parts = part_names,
                          .nparts = 3};
    static const int64_t want[NJOBS] = {0, 0, 100, 2, 150, 4, -1, -1};
    struct sim_opts o;
    struct sim_result r;
    int64_t start[NJOBS];

    sim_opts_init(&o, SIM_POLICY_EASY);
    o.cluster = c;
    assert_int_equal(sim_run(&t, &o, &r, start, NULL), 0);
    for (size_t j = 0; j < NJOBS; j++)
        assert_int_equal(start[j], want[j]);
    assert_int_equal(r.jobs, 6);
    assert_int_equal(r.never, 2);
    assert_int_equal(r.pool_cpus, 24);
}

static void fcfs_and_default_replay_the_cluster_too(void **state)
{
    const struct sim_cluster *c = *state;
    struct swf_trace t = {.jobs = (struct swf_job *)jobs, .njobs = NJOBS,
                          .max_procs = 16, .parts = part_names,
                          .nparts = 3};
    struct sim_opts o;
    struct sim_result r;
    int64_t start[NJOBS];

    /* FCFS: J3 blocks the queue until it starts at 100 on b1; J4 (b1
     * only) then blocks it until J3 ends at 150, when J4, J5 and J6 start
     * (J7 and J8 never fit, so they block nothing). */
    sim_opts_init(&o, SIM_POLICY_FCFS);
    o.cluster = c;
    assert_int_equal(sim_run(&t, &o, &r, start, NULL), 0);
    assert_int_equal(start[2], 100);
    assert_int_equal(start[3], 150);
    assert_int_equal(start[4], 150);
    assert_int_equal(start[5], 150);
    assert_int_equal(r.never, 2);
    sim_opts_init(&o, SIM_POLICY_DEFAULT);
    o.cluster = c;
    assert_int_equal(sim_run(&t, &o, &r, start, NULL), 0);
    assert_int_equal(r.jobs, 6);
}

static void a_conf_without_nodes_is_refused(void **state)
{
    (void)state;
    struct sim_cluster c;
    drv_error_t error = {{0}};
    struct slurm_conf *conf = conf_parse("/nonexistent/slurm.conf",
                                         "ClusterName=t\n", "", &error);

    assert_non_null(conf);
    errno = 0;
    assert_int_equal(sim_cluster_from_conf(&c, conf, &error), -1);
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(error.text, "no node"));
    conf_destroy(conf); /* not taken on failure */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cluster_has_the_confs_nodes_and_partitions),
        cmocka_unit_test(jobs_wait_for_or_go_to_the_right_nodes),
        cmocka_unit_test(fcfs_and_default_replay_the_cluster_too),
        cmocka_unit_test(a_conf_without_nodes_is_refused),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, cluster_setup, cluster_teardown);
}
