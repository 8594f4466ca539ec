/* SPDX-License-Identifier: Apache-2.0
 *
 * test_fairshare.c - Fair Tree and classic fair-share (src/sched/fairshare.h)
 * on hand-computed trees
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sched/fairshare.h"

#define EPS 1e-6

/* The golden cluster (slurm-golden/sshare-a-fairshare): root's own user,
 * account research with alice (799) and bob (25400). */
static const struct fs_assoc golden[] = {
    { "root", "", "", 1, 0 },
    { "root", "root", "", 1, 0 },
    { "research", "", "root", 1, 0 },
    { "research", "alice", "", 1, 799 },
    { "research", "bob", "", 1, 25400 },
};

static void fair_tree_matches_slurm(void **state)
{
    fs_tree_t *t = fs_tree_build(golden, 5, FS_FAIR_TREE);
    const struct fs_row *rows;
    const struct fs_row *research, *bob;

    (void)state;
    assert_int_equal(fs_tree_rows(t, &rows), 5);
    /* sshare's order: root, its user, research, research's users */
    assert_string_equal(rows[0].account, "root");
    assert_string_equal(rows[0].user, "");
    assert_string_equal(rows[1].user, "root");
    assert_string_equal(rows[2].account, "research");
    assert_string_equal(rows[3].user, "alice");
    assert_string_equal(rows[4].user, "bob");
    assert_int_equal(rows[3].depth, 2);
    assert_int_equal(rows[0].raw_shares, -1);
    assert_true(fabs(rows[0].raw_usage - 26199) < EPS);
    /* one rank per user, from the count down: 3/3, 2/3, 1/3 */
    assert_true(fabs(fs_tree_factor(t, "root", "root") - 1.0) < EPS);
    assert_true(fabs(fs_tree_factor(t, "research", "alice") - 2.0 / 3) < EPS);
    assert_true(fabs(fs_tree_factor(t, "research", "bob") - 1.0 / 3) < EPS);
    research = fs_tree_find(t, "research", "");
    assert_non_null(research);
    assert_true(fabs(research->norm_shares - 0.5) < EPS);
    assert_true(fabs(research->effective_usage - 1.0) < EPS);
    assert_true(fabs(research->level_fs - 0.5) < EPS);
    assert_true(research->fairshare < 0);
    bob = fs_tree_find(t, "research", "bob");
    assert_true(fabs(bob->effective_usage - 25400.0 / 26199) < EPS);
    assert_true(fabs(bob->level_fs - 0.5 / (25400.0 / 26199)) < EPS);
    assert_true(isinf(fs_tree_find(t, "root", "root")->level_fs));
    assert_true(fs_tree_factor(t, "research", "nobody") == 0);
    fs_tree_destroy(t);
}

/* Fair Tree's promise: every user of the account with the higher LevelFS
 * ranks above every user of its sibling, whatever their own usage.
 * A (40 shares) used 10% of the machine, B (60) 90%: LevelFS A = 0.4/0.1
 * = 4, B = 0.6/0.9.  a2 used all of A's usage, b1 nothing. */
static void fair_tree_ranks_accounts_first(void **state)
{
    const struct fs_assoc in[] = {
        { "A", "", "root", 40, 0 }, { "B", "", "root", 60, 0 },
        { "A", "a1", "", 1, 0 },    { "A", "a2", "", 1, 100 },
        { "B", "b1", "", 1, 0 },    { "B", "b2", "", 1, 900 },
    };
    fs_tree_t *t = fs_tree_build(in, 6, FS_FAIR_TREE);

    (void)state;
    assert_true(fabs(fs_tree_find(t, "A", "")->level_fs - 4.0) < EPS);
    assert_true(fabs(fs_tree_factor(t, "A", "a1") - 4.0 / 4) < EPS);
    assert_true(fabs(fs_tree_factor(t, "A", "a2") - 3.0 / 4) < EPS);
    assert_true(fabs(fs_tree_factor(t, "B", "b1") - 2.0 / 4) < EPS);
    assert_true(fabs(fs_tree_factor(t, "B", "b2") - 1.0 / 4) < EPS);
    fs_tree_destroy(t);
}

/* Equal LevelFS, equal rank; the next user takes the rank after both.
 * Tied accounts have their users ranked together. */
static void fair_tree_ties(void **state)
{
    const struct fs_assoc in[] = {
        { "A", "", "root", 1, 0 }, { "B", "", "root", 1, 0 },
        { "A", "u1", "", 1, 0 },   { "A", "u2", "", 1, 0 },
        { "A", "u3", "", 1, 50 },  { "B", "v1", "", 1, 0 },
        { "B", "v2", "", 1, 50 },
    };
    fs_tree_t *t = fs_tree_build(in, 7, FS_FAIR_TREE);

    (void)state;
    /* A and B both used half with half the shares: LevelFS 1, tied.
     * u1, u2, v1 have no usage (inf): rank 5 all; then v2 (0.5/1 = 0.5
     * in B) and u3 (1/3 / 1) */
    assert_true(fabs(fs_tree_factor(t, "A", "u1") - 1.0) < EPS);
    assert_true(fabs(fs_tree_factor(t, "A", "u2") - 1.0) < EPS);
    assert_true(fabs(fs_tree_factor(t, "B", "v1") - 1.0) < EPS);
    assert_true(fabs(fs_tree_factor(t, "B", "v2") - 2.0 / 5) < EPS);
    assert_true(fabs(fs_tree_factor(t, "A", "u3") - 1.0 / 5) < EPS);
    fs_tree_destroy(t);
}

/* Classic: S the product of fractions, UE = UA + (UEparent - UA) * S
 * fraction, F = 2^(-UE/S). */
static void classic_formula(void **state)
{
    const struct fs_assoc in[] = {
        { "A", "", "root", 1, 0 }, { "A", "u1", "", 1, 0 },
        { "A", "u2", "", 1, 100 }, { "B", "", "root", 1, 0 },
        { "B", "w", "", 1, 300 },
    };
    fs_tree_t *t = fs_tree_build(in, 5, FS_CLASSIC);
    const struct fs_row *a = fs_tree_find(t, "A", "");
    const struct fs_row *u1 = fs_tree_find(t, "A", "u1");
    double ue_a = 0.25 + (1.0 - 0.25) * 0.5;  /* 0.625 */
    double ue_u1 = 0 + (ue_a - 0) * 0.5;       /* 0.3125 */

    (void)state;
    assert_true(fabs(a->norm_shares - 0.5) < EPS);
    assert_true(fabs(a->effective_usage - ue_a) < EPS);
    assert_true(fabs(u1->norm_shares - 0.25) < EPS);
    assert_true(fabs(u1->effective_usage - ue_u1) < EPS);
    assert_true(fabs(fs_tree_factor(t, "A", "u1") - exp2(-ue_u1 / 0.25))
                < EPS);
    assert_true(u1->level_fs < 0);
    fs_tree_destroy(t);
}

/* Unknown parents hang from the root; a parent loop does not hang; a
 * user listed per partition counts once. */
static void odd_trees(void **state)
{
    const struct fs_assoc in[] = {
        { "x", "", "y", 1, 0 },  { "y", "", "x", 1, 0 },
        { "z", "", "nosuch", 1, 0 }, { "z", "u", "", 1, 10 },
        { "z", "u", "", 1, 5 },
    };
    fs_tree_t *t = fs_tree_build(in, 5, FS_FAIR_TREE);
    const struct fs_row *rows;

    (void)state;
    assert_int_equal(fs_tree_rows(t, &rows), 5);
    assert_true(fabs(fs_tree_find(t, "z", "u")->raw_usage - 15) < EPS);
    assert_true(fabs(fs_tree_factor(t, "z", "u") - 1.0) < EPS);
    fs_tree_destroy(t);
    t = fs_tree_build(NULL, 0, FS_FAIR_TREE);
    assert_int_equal(fs_tree_rows(t, &rows), 1);
    fs_tree_destroy(t);
}

/* fs_tree_update() after fs_tree_set_usage() gives what a new build on
 * those usages gives, row for row, under both algorithms; an account's
 * row takes no usage. */
static void update_matches_a_new_build(void **state)
{
    struct fs_assoc in[] = {
        { "a", "", "root", 2, 0 },   { "b", "", "root", 1, 0 },
        { "a", "u1", "", 1, 100 },   { "a", "u2", "", 3, 0 },
        { "b", "u3", "", 1, 50 },    { "b", "u1", "", 1, 7 },
    };
    const double later[] = { 0, 0, 10, 4000, 4000, 0 };

    (void)state;
    for (int algo = FS_FAIR_TREE; algo <= FS_CLASSIC; algo++) {
        fs_tree_t *t = fs_tree_build(in, 6, algo), *fresh;
        const struct fs_row *rows, *frows;
        size_t n = fs_tree_rows(t, &rows);
        struct fs_assoc in2[6];

        for (size_t i = 0; i < 6; i++) {
            in2[i] = in[i];
            in2[i].usage = later[i];
            if (*in[i].user)
                assert_int_equal(fs_tree_set_usage(t,
                    (size_t)(fs_tree_find(t, in[i].account, in[i].user)
                             - rows), later[i]), 0);
        }
        assert_int_equal(fs_tree_set_usage(t, (size_t)(fs_tree_find(t, "a",
                                                       "") - rows), 1), -1);
        assert_int_equal(fs_tree_set_usage(t, n, 1), -1);
        fs_tree_update(t);
        fresh = fs_tree_build(in2, 6, algo);
        assert_int_equal(fs_tree_rows(fresh, &frows), n);
        for (size_t i = 0; i < n; i++) {
            assert_string_equal(rows[i].account, frows[i].account);
            assert_string_equal(rows[i].user, frows[i].user);
            assert_true(rows[i].raw_usage == frows[i].raw_usage);
            assert_true(rows[i].effective_usage == frows[i].effective_usage);
            assert_true(rows[i].level_fs == frows[i].level_fs);
            assert_true(rows[i].fairshare == frows[i].fairshare);
        }
        /* Fair Tree: a's LevelFS (2/3) / (4010/8010) beats b's (1/3) /
         * (4000/8010); in a, u1 (1/4 of the shares, 10 of 4010) beats
         * u2; in b, u1 (no usage) beats u3: ranks 4, 3, 2, 1 of 4. */
        if (algo == FS_FAIR_TREE) {
            assert_true(fabs(fs_tree_factor(t, "a", "u1") - 1.0) < EPS);
            assert_true(fabs(fs_tree_factor(t, "a", "u2") - 0.75) < EPS);
            assert_true(fabs(fs_tree_factor(t, "b", "u1") - 0.5) < EPS);
            assert_true(fabs(fs_tree_factor(t, "b", "u3") - 0.25) < EPS);
        }
        fs_tree_destroy(fresh);
        fs_tree_destroy(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fair_tree_matches_slurm),
        cmocka_unit_test(fair_tree_ranks_accounts_first),
        cmocka_unit_test(fair_tree_ties),
        cmocka_unit_test(classic_formula),
        cmocka_unit_test(odd_trees),
        cmocka_unit_test(update_matches_a_new_build),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
