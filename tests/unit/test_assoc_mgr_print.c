/* SPDX-License-Identifier: Apache-2.0
 *
 * test_assoc_mgr_print.c - scontrol show assoc_mgr against Slurm 22.05.8's
 *
 * The golden case scontrol-show-assoc-mgr-alice ("show assoc_mgr
 * users=alice flags=assoc"): root and research carry bob's block job
 * (running, 128 CPUs on 4 nodes with 32 GPUs, no time limit) and four
 * pending jobs, two of them alice's; RawUsage alice 799.98 of 26200.53.
 * The assoc_mgr_info answer (docs/protocol-messages.md) rebuilt with
 * those figures must print as the golden's stdout byte for byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "cmd/lib/assoc_mgr_print.h"
#include "golden.h"

#define TRES_NAMES                                                             \
    "cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages",      \
        "gres/gpu"

static json_t *tres(int64_t cpu, int64_t node, int64_t gpu)
{
    return json_pack("[I,i,i,I,I,i,i,i,I]", (json_int_t)cpu, 0, 0,
                     (json_int_t)node, (json_int_t)cpu, 0, 0, 0,
                     (json_int_t)gpu);
}

static json_t *no_limits(void)
{
    return json_pack("[i,i,i,i,i,i,i,i,i]", -1, -1, -1, -1, -1, -1, -1, -1,
                     -1);
}

/* Running and pending counts, TRES in use and their seconds left, then
 * the decayed usage: raw, wall seconds, TRES-seconds. */
static json_t *assoc(const char *acct, const char *user, int id, double norm,
                     int level, double fs, double raw, double unorm,
                     double eff, int lft, int jobs, int accrue, int submit,
                     json_t *used_tres, json_t *run_secs, double wall_s,
                     json_t *tres_secs)
{
    json_t *a = json_pack(
        "{s:s s:s s:s s:i s:s s:i s:i s:i s:i s:b s:i s:f s:f s:f s:f "
        "s:i s:i s:i s:i s:i s:o s:o}",
        "cluster", "anchor", "account", acct, "user", user, "uid",
        *user ? 1012 : -1, "partition", "", "id", id, "priority", -1,
        "shares", 1, "lft", lft, "is_def", *user != '\0', "level_shares",
        level, "shares_norm", norm, "fs_factor", fs, "usage_norm", unorm,
        "usage_efctv", eff, "grp_jobs", -1, "grp_submit_jobs", -1,
        "max_jobs", -1, "max_submit_jobs", -1, "max_wall_pj", -1, "grp_tres",
        no_limits(), "max_tres_pj", no_limits());

    json_object_set_new(a, "used",
                        json_pack("{s:i s:i s:i s:o s:o}", "jobs", jobs,
                                  "accrue", accrue, "submit_jobs", submit,
                                  "tres", used_tres, "tres_run_secs",
                                  run_secs));
    json_object_set_new(a, "usage",
                        json_pack("{s:f s:f s:o}", "raw", raw, "wall_s",
                                  wall_s, "tres_secs", tres_secs));
    return a;
}

static json_t *golden_answer(void)
{
    json_t *resp = json_pack("{s:[s,s,s,s,s,s,s,s,s] s:[] s:[] s:[]}",
                             "tres", TRES_NAMES, "assocs", "qos", "users");
    json_t *assocs = json_object_get(resp, "assocs");
    /* block: 128 CPUs, 4 nodes, 32 GPUs for Slurm's INFINITE minutes */
    int64_t inf_s = INT64_C(4294967295) * 60;

    for (int k = 0; k < 2; k++) {
        json_t *a = assoc(k ? "research" : "root", "", k ? 3 : 1,
                          k ? 0.5 : 0, k ? 2 : 0, 0, 26200.53, 1, 1, k + 1,
                          1, 4, 5, tres(128, 4, 32),
                          tres(128 * inf_s, 4 * inf_s, 32 * inf_s),
                          355.61 * 60, tres(436 * 60 + 17, 359 * 60,
                                            244 * 60 + 59));
        if (k) {
            json_object_set_new(a, "parent_account", json_string("root"));
            json_object_set_new(a, "parent_id", json_integer(1));
        }
        json_array_append_new(assocs, a);
    }
    json_array_append_new(assocs,
                          assoc("research", "alice", 4, 0.5, 2, 0.666667,
                                799.98, 0, 0, 5, 0, 2, 2, tres(0, 0, 0),
                                tres(0, 0, 0), 0.62 * 60,
                                tres(13 * 60, 0, 0)));
    return resp;
}

static char *printed(const json_t *resp, unsigned flags, bool one_liner)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    assoc_mgr_print(f, resp, flags, one_liner);
    fclose(f);
    return buf;
}

static void golden_alice_assoc(void **state)
{
    (void)state;
    char *argv[] = {"users=alice", "flags=assoc"};
    char *want = golden_text("scontrol-show-assoc-mgr-alice.stdout");
    json_t *body = NULL, *resp = golden_answer();
    unsigned flags = 0;
    char *got;

    assert_non_null(want);
    assert_int_equal(assoc_mgr_parse(2, argv, false, stderr, &body, &flags),
                     0);
    assert_int_equal(flags, ASSOC_MGR_ASSOC);
    assert_string_equal(json_string_value(json_array_get(
                            json_object_get(body, "users"), 0)),
                        "alice");
    got = printed(resp, flags, false);
    assert_string_equal(got, want);
    free(got);
    free(want);
    json_decref(body);
    json_decref(resp);
}

static void parse_defaults_and_errors(void **state)
{
    (void)state;
    char *none[] = {NULL};
    char *dup[] = {"u=alice,bob", "users=ALICE", "acc=research", "q=normal"};
    char *novalue[] = {"users="};
    char *badflag[] = {"flags=nothing"};
    char *badtag[] = {"nodes=x"};
    char *buf = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&buf, &len);
    json_t *body;
    unsigned flags;

    assert_int_equal(assoc_mgr_parse(0, none, false, err, &body, &flags), 0);
    assert_int_equal(flags, 7);
    json_decref(body);
    assert_int_equal(assoc_mgr_parse(4, dup, false, err, &body, &flags), 0);
    assert_int_equal(json_array_size(json_object_get(body, "users")), 2);
    assert_int_equal(json_array_size(json_object_get(body, "accounts")), 1);
    assert_int_equal(json_array_size(json_object_get(body, "qos")), 1);
    assert_int_equal(flags, 7); /* filters alone ask for every section */
    json_decref(body);
    assert_int_equal(assoc_mgr_parse(1, novalue, false, err, &body, &flags),
                     -1);
    assert_null(body);
    assert_int_equal(assoc_mgr_parse(1, badflag, false, err, &body, &flags),
                     -1);
    assert_int_equal(assoc_mgr_parse(1, badtag, false, err, &body, &flags),
                     -1);
    fclose(err);
    assert_string_equal(buf,
                        "No value given for option users=\n"
                        "invalid flag 'nothing', valid options are 'Assoc, "
                        "QOS, and/or Users'\n"
                        "invalid entity: nodes=x for keyword:show "
                        "assoc_mgr\n");
    free(buf);
}

/* Empty sections asked for say so; ones not asked for print nothing. */
static void empty_sections(void **state)
{
    (void)state;
    json_t *resp = json_pack("{s:[s] s:[] s:[] s:[]}", "tres", "cpu",
                             "assocs", "qos", "users");
    char *got = printed(resp, 7, false);

    assert_string_equal(got, "Current Association Manager state\n"
                             "\nNo users currently cached in Slurm.\n\n"
                             "\nNo associations currently cached in "
                             "Slurm.\n\n"
                             "\nNo QOS currently cached in Slurm.\n\n");
    free(got);
    got = printed(resp, ASSOC_MGR_QOS, false);
    assert_string_equal(got, "Current Association Manager state\n"
                             "\nNo QOS currently cached in Slurm.\n\n");
    free(got);
    json_decref(resp);
}

/* A user record, and a QOS with a limit, a user and an account using it. */
static void users_and_qos(void **state)
{
    (void)state;
    json_t *resp = json_pack(
        "{s:[s,s] s:[] s:[{s:s s:i s:s s:s}] s:[{s:s s:i s:i s:s s:i s:i "
        "s:i s:i s:i s:[i,i] s:[i,i] s:[i,i] "
        "s:{s:i s:i s:i s:[i,i] s:[i,i]} s:{s:f s:f s:[i,i]} "
        "s:[{s:s s:i s:i s:i s:i s:[i,i] s:[i,i]}] "
        "s:[{s:s s:i s:i s:i s:[i,i] s:[i,i]}]}]}",
        "tres", "cpu", "node", "assocs", "users", "name", "alice", "uid",
        1012, "default_account", "research", "admin_level", "None", "qos",
        "name", "normal", "id", 1, "priority", 0, "preempt_mode", "cluster",
        "grp_jobs", 10, "grp_submit_jobs", -1, "max_jobs_pu", 2,
        "max_submit_jobs_pu", -1, "max_wall_pj", 60, "grp_tres", 8, -1,
        "max_tres_pj", -1, 1, "max_tres_pu", 4, -1, "used", "jobs", 1,
        "accrue", 1, "submit_jobs", 2, "tres", 4, 1, "tres_run_secs", 2400,
        600, "usage", "raw", 120.0, "wall_s", 30.0, "tres_secs", 120, 30,
        "user_limits", "name", "alice", "uid", 1012, "jobs", 1, "accrue", 1,
        "submit_jobs", 2, "tres", 4, 1, "tres_run_secs", 0, 0,
        "account_limits", "name", "research", "jobs", 1, "accrue", 1,
        "submit_jobs", 2, "tres", 4, 1, "tres_run_secs", 0, 0);
    char *got;

    assert_non_null(resp);
    got = printed(resp, 7, false);
    assert_string_equal(
        got,
        "Current Association Manager state\n"
        "\nUser Records\n\n"
        "UserName=alice(1012) DefAccount=research DefWckey=(null) "
        "AdminLevel=None\n"
        "\nNo associations currently cached in Slurm.\n\n"
        "\nQOS Records\n\n"
        "QOS=normal(1)\n"
        "    UsageRaw=120.000000\n"
        "    GrpJobs=10(1) GrpJobsAccrue=N(1) GrpSubmitJobs=N(2) "
        "GrpWall=N(0.50)\n"
        "    GrpTRES=cpu=8(4),node=N(1)\n"
        "    GrpTRESMins=cpu=N(2),node=N(0)\n"
        "    GrpTRESRunMins=cpu=N(40),node=N(10)\n"
        "    MaxWallPJ=60\n"
        "    MaxTRESPJ=node=1\n"
        "    MaxTRESPN=\n"
        "    MaxTRESMinsPJ=\n"
        "    MinPrioThresh= \n"
        "    MinTRESPJ=\n"
        "    PreemptMode=OFF\n"
        "    Priority=0\n"
        "    Account Limits\n"
        "      research\n"
        "        MaxJobsPA=N(1) MaxJobsAccruePA=N(1) MaxSubmitJobsPA=N(2)\n"
        "        MaxTRESPA=cpu=N(4),node=N(1)\n"
        "    User Limits\n"
        "      alice(1012)\n"
        "        MaxJobsPU=2(1) MaxJobsAccruePU=N(1) MaxSubmitJobsPU=N(2)\n"
        "        MaxTRESPU=cpu=4(4),node=N(1)\n");
    free(got);
    json_decref(resp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(golden_alice_assoc),
        cmocka_unit_test(parse_defaults_and_errors),
        cmocka_unit_test(empty_sections),
        cmocka_unit_test(users_and_qos),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
