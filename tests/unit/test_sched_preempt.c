/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sched_preempt.c - which running jobs a pending job preempts
 * (sched_preempt_choose(), src/sched/preempt.c) on constructed clusters
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sched_cluster.h"

/* Two 8-CPU nodes, each full with two 4-CPU jobs (a, b on n0; c, d on
 * n1).  A 4-CPU job needs one victim; an 8-CPU job two on one node. */
static void takes_as_few_as_needed(void **state)
{
    struct cluster *c = cluster_create(2, 8, 1000, 0, NULL);
    struct sched_request four = { .ntasks = 4 };
    struct sched_request eight = { .ntasks = 8, .min_nodes = 1,
                                   .max_nodes = 1 };
    struct sched_alloc *a = cluster_take(c, &four), *b = cluster_take(c, &four),
                       *cc = cluster_take(c, &four), *d = cluster_take(c, &four);
    const struct sched_alloc *cand[] = { a, cc, b, d };
    size_t chosen[4], n;

    (void)state;
    assert_int_equal(sched_preempt_choose(c->nodes, c->n, &four, NULL, 0,
                                          cand, 4, NULL, chosen, &n),
                     SCHED_OK);
    assert_int_equal(n, 1);
    assert_int_equal(chosen[0], 0); /* the first candidate */
    /* 8 CPUs: a (n0) then cc (n1) free no node; b completes n0, and a is
     * needed with it, cc is spared */
    assert_int_equal(sched_preempt_choose(c->nodes, c->n, &eight, NULL, 0,
                                          cand, 4, NULL, chosen, &n),
                     SCHED_OK);
    assert_int_equal(n, 2);
    assert_int_equal(chosen[0], 0);
    assert_int_equal(chosen[1], 2);
    /* the nodes were not touched */
    assert_int_equal(c->nodes[0].alloc_cpus, 8);
    assert_int_equal(c->nodes[1].alloc_cpus, 8);
    sched_alloc_destroy(a);
    sched_alloc_destroy(b);
    sched_alloc_destroy(cc);
    sched_alloc_destroy(d);
    cluster_destroy(c);
}

/* Jobs already being preempted count as free: no new victim; a request
 * that cannot fit even with all candidates gone is BUSY. */
static void freeing_and_busy(void **state)
{
    struct cluster *c = cluster_create(1, 8, 1000, 4, NULL);
    struct sched_request half = { .ntasks = 4, .gpus_per_node = 2 };
    struct sched_request gpus = { .ntasks = 1, .gpus_per_node = 4 };
    struct sched_alloc *a = cluster_take(c, &half), *b = cluster_take(c, &half);
    const struct sched_alloc *going[] = { a }, *cand[] = { b };
    size_t chosen[1], n;

    (void)state;
    assert_int_equal(sched_preempt_choose(c->nodes, c->n, &half, going, 1,
                                          cand, 1, NULL, chosen, &n),
                     SCHED_OK);
    assert_int_equal(n, 0);
    /* all four GPUs: b must go too (GPU indexes honoured) */
    assert_int_equal(sched_preempt_choose(c->nodes, c->n, &gpus, going, 1,
                                          cand, 1, NULL, chosen, &n),
                     SCHED_OK);
    assert_int_equal(n, 1);
    /* without 'a' going, b alone frees only two GPUs */
    assert_int_equal(sched_preempt_choose(c->nodes, c->n, &gpus, NULL, 0,
                                          cand, 1, NULL, chosen, &n),
                     SCHED_BUSY);
    assert_int_equal(n, 0);
    sched_alloc_destroy(a);
    sched_alloc_destroy(b);
    cluster_destroy(c);
}

/* A candidate to be suspended gives back only its CPUs: it makes room for
 * CPUs, not for its GPUs or memory; and it resumes when its CPUs are free
 * again. */
static void suspend_gives_back_cpus_only(void **state)
{
    struct cluster *c = cluster_create(1, 8, 1000, 4, NULL);
    struct sched_request gpu_job = { .ntasks = 8, .gpus_per_node = 4,
                                     .mem_per_node_mib = 600 };
    struct sched_request cpus = { .ntasks = 8 };
    struct sched_request gpus = { .ntasks = 1, .gpus_per_node = 1 };
    struct sched_request mem = { .ntasks = 1, .mem_per_node_mib = 500 };
    struct sched_alloc *a = cluster_take(c, &gpu_job), *p = NULL;
    const struct sched_alloc *cand[] = { a };
    bool suspend[] = { true };
    size_t chosen[1], n;

    (void)state;
    assert_int_equal(sched_preempt_choose(c->nodes, c->n, &cpus, NULL, 0,
                                          cand, 1, suspend, chosen, &n),
                     SCHED_OK);
    assert_int_equal(n, 1);
    assert_int_equal(sched_preempt_choose(c->nodes, c->n, &gpus, NULL, 0,
                                          cand, 1, suspend, chosen, &n),
                     SCHED_BUSY);
    assert_int_equal(sched_preempt_choose(c->nodes, c->n, &mem, NULL, 0,
                                          cand, 1, suspend, chosen, &n),
                     SCHED_BUSY);
    /* released outright (REQUEUE), the GPUs come free */
    assert_int_equal(sched_preempt_choose(c->nodes, c->n, &gpus, NULL, 0,
                                          cand, 1, NULL, chosen, &n),
                     SCHED_OK);
    /* suspended: the CPUs go to another job, and come back after it */
    assert_int_equal(sched_alloc_suspend(c->nodes, c->n, a), 0);
    assert_int_equal(c->nodes[0].alloc_cpus, 0);
    assert_int_equal(c->nodes[0].alloc_mem_mib, 600);
    assert_int_equal(c->nodes[0].running_jobs, 1);
    assert_int_equal(sched_select(c->nodes, c->n, &cpus, &p), SCHED_OK);
    assert_int_equal(sched_alloc_apply(c->nodes, c->n, p), 0);
    assert_false(sched_alloc_resume_fits(c->nodes, c->n, a));
    assert_int_equal(sched_alloc_release(c->nodes, c->n, p), 0);
    assert_true(sched_alloc_resume_fits(c->nodes, c->n, a));
    assert_int_equal(sched_alloc_resume(c->nodes, c->n, a), 0);
    assert_int_equal(c->nodes[0].alloc_cpus, 8);
    sched_alloc_destroy(a);
    sched_alloc_destroy(p);
    cluster_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(takes_as_few_as_needed),
        cmocka_unit_test(freeing_and_busy),
        cmocka_unit_test(suspend_gives_back_cpus_only),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
