/* SPDX-License-Identifier: Apache-2.0
 *
 * test_step_res.c - what a job step takes of its job's allocation
 * (src/ctld/step_res.c): whole nodes by default, --exact, --overlap,
 * GPUs per task, steps that never fit and steps that fit later.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/bitmap.h"
#include "common/error.h"
#include "ctld/step_res.h"

/* A job on two nodes (cluster nodes 7 and 9), 2 CPUs each; GPUs 2-5 of
 * node 7's eight, none on node 9. */
static struct sched_alloc *job_alloc(void)
{
    struct sched_alloc *a = sched_alloc_create(2);

    a->node_idx[0] = 7;
    a->node_idx[1] = 9;
    a->cpus[0] = a->cpus[1] = 2;
    a->tasks[0] = a->tasks[1] = 1;
    a->gpus[0] = bitmap_parse("2-5", 8, NULL);
    return a;
}

static void assert_gpus(const bitmap_t *b, const char *want)
{
    char *s = bitmap_fmt(b);

    assert_string_equal(s, want);
    free(s);
}

static void default_step_takes_the_node_and_sees_its_gpus(void **state)
{
    struct sched_alloc *job = job_alloc();
    struct step_req rq = {0};
    uint32_t one = 1;
    struct step_claim *a, *b;
    const struct step_claim *claims[1];

    (void)state;
    assert_int_equal(step_res_pick(job, &rq, 1, &one, NULL, 0, &a), 0);
    assert_int_equal(a->part->node_idx[0], 7);
    assert_int_equal(a->part->cpus[0], 2);
    assert_gpus(a->part->gpus[0], "2-5");
    assert_false(a->gpus_owned);
    claims[0] = a;
    /* the next default step goes to the other node */
    assert_int_equal(step_res_pick(job, &rq, 1, &one, claims, 1, &b), 0);
    assert_int_equal(b->part->node_idx[0], 9);
    assert_null(b->part->gpus[0]);
    step_claim_destroy(b);
    /* a two-node one waits; with --overlap it runs */
    uint32_t two[2] = {1, 1};
    assert_int_equal(step_res_pick(job, &rq, 2, two, claims, 1, &b),
                     EDRV_NODES_BUSY);
    rq.overlap = true;
    assert_int_equal(step_res_pick(job, &rq, 2, two, claims, 1, &b), 0);
    assert_true(b->overlap);
    step_claim_destroy(b);
    step_claim_destroy(a);
    sched_alloc_destroy(job);
}

static void exact_steps_share_a_node(void **state)
{
    struct sched_alloc *job = job_alloc();
    struct step_req rq = {.exact = true};
    uint32_t one = 1;
    struct step_claim *c[3];

    (void)state;
    assert_int_equal(step_res_pick(job, &rq, 1, &one, NULL, 0, &c[0]), 0);
    assert_int_equal(c[0]->part->cpus[0], 1);
    assert_int_equal(step_res_pick(job, &rq, 1, &one,
                                   (const struct step_claim *const *)c, 1,
                                   &c[1]),
                     0);
    assert_int_equal(c[1]->part->node_idx[0], 7);
    assert_int_equal(step_res_pick(job, &rq, 1, &one,
                                   (const struct step_claim *const *)c, 2,
                                   &c[2]),
                     0);
    assert_int_equal(c[2]->part->node_idx[0], 9);
    for (int i = 0; i < 3; i++)
        step_claim_destroy(c[i]);
    sched_alloc_destroy(job);
}

static void gpus_per_task_are_owned(void **state)
{
    struct sched_alloc *job = job_alloc();
    struct step_req rq = {.exact = true, .gpus_per_task = 2};
    struct step_req one_gpu = {.exact = true, .gpus_per_node = 1};
    uint32_t two = 2, one = 1;
    struct step_claim *a, *b;
    const struct step_claim *claims[1];

    (void)state;
    assert_int_equal(step_res_pick(job, &rq, 1, &two, NULL, 0, &a), 0);
    assert_gpus(a->part->gpus[0], "2-5");
    assert_true(a->gpus_owned);
    claims[0] = a;
    assert_int_equal(step_res_pick(job, &one_gpu, 1, &one, claims, 1, &b),
                     EDRV_NODES_BUSY);
    step_claim_destroy(a);
    rq.gpus_per_task = 1;
    assert_int_equal(step_res_pick(job, &rq, 1, &one, NULL, 0, &a), 0);
    assert_gpus(a->part->gpus[0], "2");
    claims[0] = a;
    assert_int_equal(step_res_pick(job, &one_gpu, 1, &one, claims, 1, &b),
                     0);
    assert_gpus(b->part->gpus[0], "3");
    step_claim_destroy(b);
    step_claim_destroy(a);
    sched_alloc_destroy(job);
}

/* -m arbitrary names the entries: the step runs there or not at all. */
static void named_entries_are_taken_in_order(void **state)
{
    struct sched_alloc *job = job_alloc();
    uint32_t only_second[] = {1}, tasks[] = {2, 1};
    struct step_req rq = {.entries = only_second};
    struct step_claim *a, *b;
    const struct step_claim *claims[1];

    (void)state;
    assert_int_equal(step_res_pick(job, &rq, 1, tasks + 1, NULL, 0, &a), 0);
    assert_int_equal(a->part->node_idx[0], 9);
    assert_int_equal(a->ent[0], 1);
    claims[0] = a;
    /* busy there: no falling back to the free first node */
    assert_int_equal(step_res_pick(job, &rq, 1, tasks + 1, claims, 1, &b),
                     EDRV_NODES_BUSY);
    step_claim_destroy(a);
    rq.entries = (uint32_t[]){0, 1};
    assert_int_equal(step_res_pick(job, &rq, 2, tasks, NULL, 0, &a), 0);
    assert_int_equal(a->part->tasks[0], 2);
    assert_int_equal(a->part->node_idx[1], 9);
    step_claim_destroy(a);
    rq.entries = (uint32_t[]){5};
    assert_int_equal(step_res_pick(job, &rq, 1, tasks, NULL, 0, &a),
                     EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE);
    sched_alloc_destroy(job);
}

static void never_fitting_steps_say_why(void **state)
{
    struct sched_alloc *job = job_alloc();
    struct step_req gpus = {.gpus_per_task = 4};
    struct step_req plain = {0};
    uint32_t two = 2, three = 3;
    struct step_claim *a = (void *)1;

    (void)state;
    assert_int_equal(step_res_pick(job, &gpus, 1, &two, NULL, 0, &a),
                     EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE);
    assert_null(a);
    assert_int_equal(step_res_pick(job, &plain, 1, &three, NULL, 0, &a),
                     EDRV_TOO_MANY_REQUESTED_CPUS);
    sched_alloc_destroy(job);
}

/* srun -w/-x: MUST entries are taken, NO entries never, MAY ones fill
 * the rest in allocation order, leaving room for the MUST ones. */
static void entry_mask_must_may_no(void **state)
{
    struct sched_alloc *job = job_alloc();
    uint8_t mask[2] = {STEP_ENT_MAY, STEP_ENT_MUST};
    struct step_req rq = {.ent_mask = mask};
    uint32_t one = 1, two[2] = {1, 1};
    struct step_claim *a;

    (void)state;
    assert_int_equal(step_res_pick(job, &rq, 1, &one, NULL, 0, &a), 0);
    assert_int_equal(a->part->node_idx[0], 9); /* not the first entry */
    step_claim_destroy(a);
    assert_int_equal(step_res_pick(job, &rq, 2, two, NULL, 0, &a), 0);
    assert_int_equal(a->part->node_idx[0], 7); /* allocation order */
    assert_int_equal(a->part->node_idx[1], 9);
    step_claim_destroy(a);
    mask[0] = STEP_ENT_NO;
    mask[1] = STEP_ENT_MAY;
    assert_int_equal(step_res_pick(job, &rq, 1, &one, NULL, 0, &a), 0);
    assert_int_equal(a->part->node_idx[0], 9);
    step_claim_destroy(a);
    assert_int_equal(step_res_pick(job, &rq, 2, two, NULL, 0, &a),
                     EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE);
    sched_alloc_destroy(job);
}

/* -O: three tasks on a node of two CPUs, which it takes whole. */
static void overcommit_outnumbers_cpus(void **state)
{
    struct sched_alloc *job = job_alloc();
    struct step_req rq = {.exact = true};
    uint32_t three = 3;
    struct step_claim *a;

    (void)state;
    assert_int_equal(step_res_pick(job, &rq, 1, &three, NULL, 0, &a),
                     EDRV_TOO_MANY_REQUESTED_CPUS);
    rq.overcommit = true;
    assert_int_equal(step_res_pick(job, &rq, 1, &three, NULL, 0, &a), 0);
    assert_int_equal(a->part->cpus[0], 2);
    step_claim_destroy(a);
    sched_alloc_destroy(job);
}

/* --mincpus: a node of the job with fewer CPUs never fits; with --exact
 * the step takes at least that many, so a second one waits. */
static void min_cpus_per_node(void **state)
{
    struct sched_alloc *job = job_alloc();
    struct step_req rq = {.exact = true, .min_cpus = 3};
    uint32_t one = 1;
    struct step_claim *a, *b;
    const struct step_claim *claims[1];

    (void)state;
    job->cpus[1] = 4; /* node 9 has four */
    assert_int_equal(step_res_pick(job, &rq, 1, &one, NULL, 0, &a), 0);
    assert_int_equal(a->part->node_idx[0], 9);
    assert_int_equal(a->part->cpus[0], 3);
    claims[0] = a;
    assert_int_equal(step_res_pick(job, &rq, 1, &one, claims, 1, &b),
                     EDRV_NODES_BUSY);
    rq.min_cpus = 5;
    assert_int_equal(step_res_pick(job, &rq, 1, &one, NULL, 0, &b),
                     EDRV_REQUESTED_NODE_CONFIG_UNAVAILABLE);
    step_claim_destroy(a);
    sched_alloc_destroy(job);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_step_takes_the_node_and_sees_its_gpus),
        cmocka_unit_test(exact_steps_share_a_node),
        cmocka_unit_test(gpus_per_task_are_owned),
        cmocka_unit_test(named_entries_are_taken_in_order),
        cmocka_unit_test(never_fitting_steps_say_why),
        cmocka_unit_test(entry_mask_must_may_no),
        cmocka_unit_test(overcommit_outnumbers_cpus),
        cmocka_unit_test(min_cpus_per_node),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
