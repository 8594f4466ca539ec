/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sched_shard.c - gres/shard (Slurm's GPU sharding) in node selection
 * and the scheduling pass: shards packed on one GPU, never a GPU whole and
 * lent as shards at once
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sched/sched.h"
#include "sched_cluster.h"

#define GIB 1024
#define NOW 1000000

/* One node, 'gpus' GPUs with 'per_gpu' shards each. */
static struct cluster *shard_cluster(uint32_t gpus, uint32_t per_gpu,
                                     uint32_t *caps, uint32_t *used)
{
    struct cluster *c = cluster_create(1, 64, 64 * GIB, gpus, NULL);

    for (uint32_t g = 0; g < gpus; g++)
        caps[g] = per_gpu;
    c->nodes[0].shards = caps;
    c->nodes[0].share_name = "shard";
    c->nodes[0].alloc_shards = used;
    return c;
}

static void shards_pack_on_one_gpu(void **state)
{
    (void)state;
    uint32_t caps[2], used[2] = { 0 };
    struct cluster *c = shard_cluster(2, 4, caps, used);
    struct sched_request s3 = { .shards_per_node = 3 };
    struct sched_request s1 = { .shards_per_node = 1 };
    struct sched_alloc *a = cluster_take(c, &s3);
    struct sched_alloc *b = cluster_take(c, &s1);

    assert_string_equal(gpu_str(a, 0), "0");
    assert_int_equal(a->shards[0], 3);
    assert_string_equal(gpu_str(b, 0), "0"); /* packed: GPU 1 stays whole */
    assert_int_equal(used[0], 4);
    assert_int_equal(bitmap_count(c->nodes[0].alloc_gpus), 0);
    assert_int_equal(sched_alloc_release(c->nodes, c->n, a), 0);
    assert_int_equal(used[0], 1);
    sched_alloc_destroy(a);
    sched_alloc_destroy(b);
    cluster_destroy(c);
}

static void gpu_lending_shards_is_not_given_whole(void **state)
{
    (void)state;
    uint32_t caps[2], used[2] = { 0 };
    struct cluster *c = shard_cluster(2, 4, caps, used);
    struct sched_request s1 = { .shards_per_node = 1 };
    struct sched_request g1 = { .gpus_per_node = 1 };
    struct sched_request g2 = { .gpus_per_node = 2 };
    struct sched_alloc *a = cluster_take(c, &s1), *b, *x = NULL;

    assert_int_equal(sched_select(c->nodes, c->n, &g2, &x), SCHED_BUSY);
    b = cluster_take(c, &g1);
    assert_string_equal(gpu_str(b, 0), "1");
    /* every GPU now busy: GPU 1 whole lends no shards */
    assert_int_equal(sched_select(c->nodes, c->n, &g1, &x), SCHED_BUSY);
    sched_alloc_release(c->nodes, c->n, a);
    sched_alloc_destroy(a);
    a = cluster_take(c, &s1);
    assert_string_equal(gpu_str(a, 0), "0");
    sched_alloc_destroy(a);
    sched_alloc_destroy(b);
    cluster_destroy(c);
}

static void shards_of_one_gpu_only(void **state)
{
    (void)state;
    uint32_t caps[2], used[2] = { 0 };
    struct cluster *c = shard_cluster(2, 4, caps, used);
    struct sched_request s3 = { .shards_per_node = 3 };
    struct sched_request s5 = { .shards_per_node = 5 };
    struct sched_request bad = { .shards_per_node = 1, .gpus_per_node = 1 };
    struct sched_alloc *a = cluster_take(c, &s3), *b = cluster_take(c, &s3);
    struct sched_alloc *x = NULL;
    drv_error_t error = { 0 };

    assert_string_equal(gpu_str(b, 0), "1");
    /* 2 shards left in all, but 1 on each GPU */
    s3.shards_per_node = 2;
    assert_int_equal(sched_select(c->nodes, c->n, &s3, &x), SCHED_BUSY);
    assert_int_equal(sched_check_never(c->nodes, c->n, &s5, &error),
                     SCHED_NEVER);
    assert_non_null(strstr(error.text, "gres/shard:5 per node requested, a GPU has at most 4"));
    /* mps asked of a node whose GPUs are shared by shards */
    s5.share_name = "mps";
    s5.shards_per_node = 1;
    assert_int_equal(sched_check_never(c->nodes, c->n, &s5, &error),
                     SCHED_NEVER);
    assert_non_null(strstr(error.text, "gres/mps:1 per node requested"));
    assert_int_equal(sched_select(c->nodes, c->n, &bad, &x), -1);
    assert_int_equal(errno, EINVAL);
    sched_alloc_destroy(a);
    sched_alloc_destroy(b);
    cluster_destroy(c);
}

/* The pass: a running shard job keeps GPU 0 from a gpu:2 job, which is
 * planned at its end; a second shard job starts beside the first. */
static void pass_plans_whole_gpus_after_shards_end(void **state)
{
    (void)state;
    uint32_t caps[2], used[2] = { 0 };
    struct cluster *c = shard_cluster(2, 4, caps, used);
    struct sched_request s2 = { .shards_per_node = 2 };
    struct sched_request g2 = { .gpus_per_node = 2 };
    struct sched_alloc *run = cluster_take(c, &s2);
    struct sched_job running = { .id = 1, .alloc = run, .start_time = NOW,
                                 .time_limit_s = 100 };
    struct sched_job q[] = {
        { .id = 2, .req = &g2, .time_limit_s = 100 },
        { .id = 3, .req = &s2, .time_limit_s = 50 },
        { .id = 4, .req = &s2, .time_limit_s = 500 },
    };
    struct sched_decision out[3] = { 0 };

    assert_int_equal(sched_pass(c->nodes, c->n, &running, 1, q, 3, NOW, NULL,
                                out),
                     0);
    assert_int_equal(out[0].action, SCHED_ACT_WAIT);
    assert_int_equal(out[0].start_time, NOW + 100);
    /* job 3 ends before the reservation and shares GPU 0 */
    assert_int_equal(out[1].action, SCHED_ACT_START);
    assert_string_equal(gpu_str(out[1].alloc, 0), "0");
    assert_int_equal(out[1].alloc->shards[0], 2);
    /* job 4 would hold GPU 0 past it */
    assert_int_equal(out[2].action, SCHED_ACT_WAIT);
    assert_int_equal(used[0], 4);
    sched_decisions_clear(out, 3);
    sched_alloc_destroy(run);
    cluster_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shards_pack_on_one_gpu),
        cmocka_unit_test(gpu_lending_shards_is_not_given_whole),
        cmocka_unit_test(shards_of_one_gpu_only),
        cmocka_unit_test(pass_plans_whole_gpus_after_shards_end),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
