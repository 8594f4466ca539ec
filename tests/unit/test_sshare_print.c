/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sshare_print.c - sshare's table against Slurm 22.05.8's
 *
 * share_info answers (docs/protocol.md shapes) rebuilt from the golden
 * cases: the tree root -> {root/root, research -> {alice, bob}}, every
 * RawShares 1, Fair Tree.  The first queue (sshare-a, sshare-default)
 * has heavy usage by bob; the fair-share cases (sshare-a-P, sshare-l, ...)
 * RawUsage alice 799 and bob 25400, with block (no time limit, 128 CPUs)
 * running in research.  sshare runs as alice where the case did.  The
 * printed text must equal the golden's stdout byte for byte.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "cmd/lib/sshare_print.h"
#include "golden.h"

#define RUN_IDLE "cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,"    \
                 "pages=0,gres/gpu=0"
#define RUN_BLOCK "cpu=549755813760,mem=0,energy=0,node=4294967295,"          \
                  "billing=549755813760,fs/disk=0,vmem=0,pages=0,gres/gpu=0"

/* One row; fs/level_fs NULL: null, level "inf": the text. */
static json_t *row(const char *acct, const char *user, int depth, int shares,
                   double norm_shares, double raw_usage, double norm_usage,
                   double eff, json_t *fs, json_t *level, const char *run)
{
    return json_pack("{s:s,s:s,s:i,s:i,s:f,s:f,s:f,s:f,s:o,s:o,s:s,s:s,"
                     "s:s}",
                     "account", acct, "user", user, "depth", depth,
                     "raw_shares", shares, "norm_shares", norm_shares,
                     "raw_usage", raw_usage, "norm_usage", norm_usage,
                     "effective_usage", eff, "fairshare",
                     fs ? fs : json_null(), "level_fs",
                     level ? level : json_null(), "grp_tres_mins", "",
                     "tres_run_mins", run, "partition", "");
}

static json_t *inf(void)
{
    return json_string("inf");
}

/* The first queue: bob's heavy usage (RawUsage ~282600); 'eff' is
 * alice's effective usage (decayed, so not RawUsage's ratio). */
static json_t *tree_busy(double alice, double bob, double eff)
{
    double total = alice + bob;

    return json_pack(
        "{s:b,s:[o,o,o,o,o]}", "fair_tree", 1, "rows",
        row("root", "", 0, -1, 0.0, total, 1.0, 1.0, NULL, NULL, RUN_IDLE),
        row("root", "root", 1, 1, 0.5, 0, 0, 0, json_real(1.0), inf(),
            RUN_IDLE),
        row("research", "", 1, 1, 0.5, total, 1.0, 1.0, NULL,
            json_real(0.5), RUN_IDLE),
        row("research", "alice", 2, 1, 0.5, alice, eff, eff,
            json_real(0.666667), inf(), RUN_IDLE),
        row("research", "bob", 2, 1, 0.5, bob, 1.0 - eff, 1.0 - eff,
            json_real(0.333333), json_real(0.5), RUN_IDLE));
}

/* The fair-share cases: RawUsage 799 and 25400, EffectvUsage last
 * computed before alice's usage (so 0 and 1), block running. */
static json_t *tree_fairshare(void)
{
    return json_pack(
        "{s:b,s:[o,o,o,o,o]}", "fair_tree", 1, "rows",
        row("root", "", 0, -1, 0.0, 26200.4, 1.0, 1.0, NULL, NULL,
            RUN_BLOCK),
        row("root", "root", 1, 1, 0.5, 0, 0, 0, json_real(1.0), inf(),
            RUN_IDLE),
        row("research", "", 1, 1, 0.5, 26200.4, 1.0, 1.0, NULL,
            json_real(0.5), RUN_BLOCK),
        row("research", "alice", 2, 1, 0.5, 799.9, 0.0, 0.0,
            json_real(0.666667), inf(), RUN_IDLE),
        row("research", "bob", 2, 1, 0.5, 25400.5, 1.0, 1.0,
            json_real(0.333333), json_real(0.0), RUN_BLOCK));
}

static const char *const alice[] = {"alice"};

static char *print(json_t *resp, const struct sshare_out *o)
{
    struct fmt_buf b = {0};
    drv_error_t error = {{0}};

    assert_int_equal(sshare_print(&b, resp, o, &error), 0);
    json_decref(resp);
    return b.s ? b.s : strdup("");
}

static void check(const char *golden, json_t *resp,
                  const struct sshare_out *o)
{
    char *got = print(resp, o);

    golden_assert(golden, got);
    free(got);
}

static void all_users(void **state)
{
    struct sshare_out o = {0};

    (void)state;
    check("sshare-a", tree_busy(81.5, 282587.9, 0.00029), &o);
    check("sshare-a-fairshare", tree_fairshare(), &o);
}

static void parsable2(void **state)
{
    struct sshare_out o = {.layout = PF_PARSABLE2};

    (void)state;
    check("sshare-a-P", tree_fairshare(), &o);
}

/* Without -a the caller's user rows and every account row. */
static void default_is_the_callers_rows(void **state)
{
    struct sshare_out o = {.users = alice, .nusers = 1};

    (void)state;
    check("sshare-default", tree_busy(83.2, 282588.1, 0.00029), &o);
    check("sshare-fairshare", tree_fairshare(), &o);
}

static void long_adds_norm_usage_levelfs_and_tres(void **state)
{
    struct sshare_out o = {.long_list = true, .users = alice, .nusers = 1};

    (void)state;
    check("sshare-l", tree_fairshare(), &o);
}

static void parsable_keeps_the_last_delimiter(void **state)
{
    struct sshare_out o = {.layout = PF_PARSABLE, .noheader = true,
                           .users = alice, .nusers = 1,
                           .format = "Account,User,LevelFS"};
    char *got;

    (void)state;
    got = print(tree_fairshare(), &o);
    assert_string_equal(got, "root|||\n research||0.500000|\n"
                             "  research|alice|inf|\n");
    free(got);
}

/* -o: prefixes pick the first field in Slurm's order ("P" is Partition,
 * "Raw" RawShares), "%N" sets a width, which right-justifies. */
static void format_prefixes_and_widths(void **state)
{
    const char *const accts[] = {"research"};
    struct sshare_out o = {.format = "Acc%12,u,Raw,RawU%6,P,Eff",
                           .accounts = accts, .naccounts = 1};
    char *got;

    (void)state;
    got = print(tree_fairshare(), &o);
    assert_string_equal(got,
                        "     Account       User  RawShares RawUsa "
                        "   Partition  EffectvUsage \n"
                        "------------ ---------- ---------- ------ "
                        "------------ ------------- \n"
                        "    research                     1  26200 "
                        "                  1.000000 \n"
                        "    research      alice          1    799 "
                        "                  0.000000 \n"
                        "    research        bob          1  25400 "
                        "                  1.000000 \n");
    free(got);
}

static void users_only(void **state)
{
    struct sshare_out o = {.users_only = true, .layout = PF_PARSABLE2,
                           .format = "A,User,FairShare"};
    char *got;

    (void)state;
    got = print(tree_fairshare(), &o);
    assert_string_equal(got, "Account|User|FairShare\n"
                             " root|root|1.000000\n"
                             "  research|alice|0.666667\n"
                             "  research|bob|0.333333\n");
    free(got);
}

static void invalid_field_is_slurms_error(void **state)
{
    struct sshare_out o = {.format = "Account,Bogus"};
    struct fmt_buf b = {0};
    drv_error_t error = {{0}};
    json_t *resp = tree_fairshare();

    (void)state;
    assert_int_equal(sshare_print(&b, resp, &o, &error), -1);
    assert_string_equal(error.text, "Invalid field requested: \"Bogus\"");
    assert_null(b.s);
    json_decref(resp);
}

/* print_fields_double(): a value too wide for "%f" goes to "%e"; "parent"
 * shares leave LevelFS empty; the ID and cluster columns. */
static void wide_values_and_parent_shares(void **state)
{
    struct sshare_out o = {.format = "User,Eff%8,RawShares,LevelFS,ID,Cl",
                           .users_only = true, .cluster = "anchor"};
    json_t *resp = json_pack("{s:b,s:[{s:s,s:s,s:i,s:s,s:f,s:f,s:i}]}",
                             "fair_tree", 1, "rows", "account", "research",
                             "user", "carol", "depth", 2, "raw_shares",
                             "parent", "effective_usage", 123456.5,
                             "level_fs", 2.0, "id", 7);
    char *got;

    (void)state;
    got = print(resp, &o);
    assert_string_equal(got, "      User EffectvU  RawShares    LevelFS "
                             "    ID    Cluster \n"
                             "---------- -------- ---------- ---------- "
                             "------ ---------- \n"
                             "     carol 1.23e+05     parent            "
                             "     7     anchor \n");
    free(got);
}

static void helpformat_and_usage(void **state)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    (void)state;
    sshare_print_helpformat(f);
    fclose(f);
    assert_string_equal(buf,
                        "Account           Cluster           EffectvUsage  "
                        "    FairShare        \n"
                        "GrpTRESMins       GrpTRESRaw        ID            "
                        "    LevelFS          \n"
                        "NormShares        NormUsage         Partition     "
                        "    RawShares        \n"
                        "RawUsage          TRESRunMins       User          "
                        "   \n");
    free(buf);
    golden_assert("help-sshare", sshare_usage_text);
    golden_assert("usage-sshare", sshare_usage_text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_users),
        cmocka_unit_test(parsable2),
        cmocka_unit_test(default_is_the_callers_rows),
        cmocka_unit_test(long_adds_norm_usage_levelfs_and_tres),
        cmocka_unit_test(parsable_keeps_the_last_delimiter),
        cmocka_unit_test(format_prefixes_and_widths),
        cmocka_unit_test(users_only),
        cmocka_unit_test(invalid_field_is_slurms_error),
        cmocka_unit_test(wide_values_and_parent_shares),
        cmocka_unit_test(helpformat_and_usage),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
