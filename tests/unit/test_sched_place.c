/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sched_place.c - -w/-x/-C placement and the feature matcher
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sched/feature_expr.h"
#include "sched/sched.h"
#include "sched_cluster.h"

#define GIB 1024

static bitmap_t *bits(size_t n, const char *set)
{
    bitmap_t *b = bitmap_parse(set, n, NULL);

    if (!b)
        abort();
    return b;
}

static void features_match_and_or_parens(void **state)
{
    (void)state;
    assert_true(feature_expr_match("a100", "a100,nvlink"));
    assert_true(feature_expr_match("a100&nvlink", "nvlink,a100"));
    assert_false(feature_expr_match("a100&nvlink", "a100"));
    assert_true(feature_expr_match("a100|h100", "h100"));
    assert_false(feature_expr_match("a100|h100", "v100"));
    assert_true(feature_expr_match("(a100|h100)&nvlink", "h100,nvlink"));
    assert_false(feature_expr_match("(a100|h100)&nvlink", "h100"));
    assert_true(feature_expr_match("x|a&b", "x"));
    assert_false(feature_expr_match("a100", NULL));
    assert_true(feature_expr_match(NULL, NULL));
    assert_true(feature_expr_match("", "a"));
    assert_false(feature_expr_has("a1000,b", "a100"));
}

static void features_check_rejects_bad_syntax(void **state)
{
    (void)state;
    drv_error_t error = { 0 };

    assert_int_equal(feature_expr_check("a100&nvlink", &error), 0);
    assert_int_equal(feature_expr_check("(a|b)&c", &error), 0);
    assert_int_equal(feature_expr_check("a100&", &error), -1);
    assert_int_equal(errno, EINVAL);
    assert_int_equal(feature_expr_check("|a", NULL), -1);
    assert_int_equal(feature_expr_check("(a", NULL), -1);
    assert_int_equal(feature_expr_check("a b", NULL), -1);
    assert_int_equal(feature_expr_check("", NULL), -1);
    assert_false(feature_expr_match("a100&", "a100"));
}

static int collect_none(const char *name, void *arg)
{
    (void)name;
    (void)arg;
    return 0;
}

/* "(((...a...)))" with 'depth' parentheses; caller frees. */
static char *nested(size_t depth)
{
    char *s = malloc(2 * depth + 2);

    memset(s, '(', depth);
    s[depth] = 'a';
    memset(s + depth + 1, ')', depth);
    s[2 * depth + 1] = '\0';
    return s;
}

/* A hostile expression (60,000 '(' once overflowed the parser's stack)
 * is refused by every entry point, never recursed into. */
static void features_depth_and_length_are_bounded(void **state)
{
    (void)state;
    drv_error_t error = { 0 };
    char *ok = nested(FEATURE_EXPR_DEPTH_MAX);
    char *deep = nested(FEATURE_EXPR_DEPTH_MAX + 1);
    char *huge = malloc(60001), *len = malloc(FEATURE_EXPR_LEN_MAX + 2);

    assert_int_equal(feature_expr_check(ok, NULL), 0);
    assert_true(feature_expr_match(ok, "a"));
    assert_int_equal(feature_expr_check(deep, &error), -1);
    assert_int_equal(errno, EINVAL);
    assert_false(feature_expr_match(deep, "a"));
    memset(huge, '(', 60000);
    huge[60000] = '\0';
    assert_int_equal(feature_expr_check(huge, &error), -1);
    assert_false(feature_expr_match(huge, "a"));
    assert_int_equal(feature_expr_each(huge, collect_none, NULL), 0);
    for (size_t i = 0; i < FEATURE_EXPR_LEN_MAX; i++) /* "a|a|...|aa" */
        len[i] = i % 2 && i < FEATURE_EXPR_LEN_MAX - 1 ? '|' : 'a';
    len[FEATURE_EXPR_LEN_MAX] = '\0';
    assert_int_equal(feature_expr_check(len, NULL), 0);
    len[FEATURE_EXPR_LEN_MAX] = 'a';
    len[FEATURE_EXPR_LEN_MAX + 1] = '\0';
    assert_int_equal(feature_expr_check(len, &error), -1);
    assert_non_null(strstr(error.text, "longer than"));
    free(ok);
    free(deep);
    free(huge);
    free(len);
}

static int collect(const char *name, void *arg)
{
    char *buf = arg;

    strcat(buf, name);
    strcat(buf, ";");
    return 0;
}

static void features_each_names_every_feature(void **state)
{
    (void)state;
    char buf[128] = "";

    assert_int_equal(feature_expr_each("(a|b)&c", collect, buf), 0);
    assert_string_equal(buf, "a;b;c;");
}

static void select_constraint_picks_matching_nodes(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(4, 32, 64 * GIB, 0, NULL);
    struct sched_request req = { .min_nodes = 2, .features = "a100&nvlink" };
    struct sched_alloc *a = NULL;

    c->nodes[1].features = "a100";
    c->nodes[2].features = "a100,nvlink";
    c->nodes[3].features = "nvlink,a100";
    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_OK);
    assert_int_equal(a->node_count, 2);
    assert_int_equal(a->node_idx[0], 2);
    assert_int_equal(a->node_idx[1], 3);
    sched_alloc_destroy(a);
    req.min_nodes = 3;
    assert_int_equal(sched_check_never(c->nodes, c->n, &req, NULL),
                     SCHED_NEVER);
    cluster_destroy(c);
}

static void select_required_nodes_are_all_taken(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(4, 32, 64 * GIB, 0, NULL);
    bitmap_t *w = bits(4, "1,3");
    struct sched_request req = { .required_nodes = w };
    struct sched_alloc *a = NULL;

    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_OK);
    assert_int_equal(a->node_count, 2);
    assert_int_equal(a->node_idx[0], 1);
    assert_int_equal(a->node_idx[1], 3);
    sched_alloc_destroy(a);
    /* -N3 -w n1,n3: the two listed plus the first other node. */
    req.min_nodes = 3;
    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_OK);
    assert_int_equal(a->node_count, 3);
    assert_int_equal(a->node_idx[0], 0);
    sched_alloc_destroy(a);
    /* A drained listed node: busy, not never. */
    req.min_nodes = 0;
    c->nodes[3].available = false;
    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_BUSY);
    assert_null(a);
    bitmap_destroy(w);
    cluster_destroy(c);
}

static void select_required_node_outside_partition_is_never(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(4, 32, 64 * GIB, 0, NULL);
    bitmap_t *part = bits(4, "0-1");
    bitmap_t *w = bits(4, "2");
    struct sched_request req = { .required_nodes = w, .allowed_nodes = part };

    assert_int_equal(sched_check_never(c->nodes, c->n, &req, NULL),
                     SCHED_NEVER);
    req.max_nodes = 1;
    req.required_nodes = part; /* two listed, at most one wanted */
    assert_int_equal(sched_check_never(c->nodes, c->n, &req, NULL), -1);
    assert_int_equal(errno, EINVAL);
    bitmap_destroy(w);
    bitmap_destroy(part);
    cluster_destroy(c);
}

static void select_excluded_nodes_are_skipped(void **state)
{
    (void)state;
    struct cluster *c = cluster_create(3, 32, 64 * GIB, 0, NULL);
    bitmap_t *x = bits(3, "0-1");
    struct sched_request req = { .excluded_nodes = x };
    struct sched_alloc *a = NULL;

    assert_int_equal(sched_select(c->nodes, c->n, &req, &a), SCHED_OK);
    assert_int_equal(a->node_idx[0], 2);
    sched_alloc_destroy(a);
    req.min_nodes = 2;
    assert_int_equal(sched_check_never(c->nodes, c->n, &req, NULL),
                     SCHED_NEVER);
    bitmap_destroy(x);
    cluster_destroy(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(features_match_and_or_parens),
        cmocka_unit_test(features_check_rejects_bad_syntax),
        cmocka_unit_test(features_each_names_every_feature),
        cmocka_unit_test(features_depth_and_length_are_bounded),
        cmocka_unit_test(select_constraint_picks_matching_nodes),
        cmocka_unit_test(select_required_nodes_are_all_taken),
        cmocka_unit_test(select_required_node_outside_partition_is_never),
        cmocka_unit_test(select_excluded_nodes_are_skipped),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
