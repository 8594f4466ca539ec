/* SPDX-License-Identifier: Apache-2.0
 *
 * test_sacctmgr_print.c - sacctmgr's show tables against Slurm 22.05.8's
 *
 * Records shaped like acct_assoc_list's (docs/protocol.md) reproduce the
 * setup of each golden case (cluster anchor, account research, users alice
 * with QOS normal,gpu4 default gpu4 and bob with normal, QOS gpu4 with
 * MaxTRESPerUser=gres/gpu=4; a second cluster atf) and go through the
 * printer sacctmgr uses; the output must equal the golden byte for byte.
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

#include "cmd/lib/sacctmgr_print.h"
#include "golden.h"

static json_t *assoc(const char *cluster, const char *acct, const char *user,
                     const char *parent, const char *qos, const char *defq)
{
    json_t *q = json_array();

    for (const char *p = qos; *p;) {
        size_t len = strcspn(p, ",");
        json_array_append_new(q, json_stringn(p, len));
        p += len + (p[len] == ',');
    }
    return json_pack("{s:i,s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:s,s:i,s:i,s:s,s:i,"
                     "s:i,s:i,s:o,s:s}",
                     "id", 1, "cluster", cluster, "account", acct, "user",
                     user, "partition", "", "parent_account", parent,
                     "shares", 1, "priority", -1, "grp_tres", "", "grp_jobs",
                     -1, "grp_submit_jobs", -1, "max_tres_per_job", "",
                     "max_jobs", -1, "max_submit_jobs", -1, "max_wall_min",
                     -1, "qos", q, "def_qos", defq);
}

static json_t *qos(const char *name, const char *max_tres_pu)
{
    return json_pack("{s:s,s:s,s:i,s:f,s:i,s:[],s:s,s:s,s:s,s:i,s:i,s:s,s:s,"
                     "s:i,s:i,s:i}",
                     "name", name, "description", name, "priority", 0,
                     "usage_factor", 1.0, "grace_time_s", 0, "preempt",
                     "preempt_mode", "cluster", "flags", "", "grp_tres", "",
                     "grp_jobs", -1, "grp_submit_jobs", -1,
                     "max_tres_per_job", "", "max_tres_per_user",
                     max_tres_pu, "max_jobs_per_user", -1,
                     "max_submit_jobs_per_user", -1, "max_wall_min", -1);
}

static json_t *alice(void)
{
    return json_pack("{s:s,s:i,s:s,s:s}", "name", "alice", "uid", 1001,
                     "default_account", "research", "admin_level", "None");
}

static char *print(enum smgr_kind kind, bool withassoc, const char *format,
                   json_t *rows, int parsable)
{
    struct smgr_out o = {.parsable = parsable};
    struct fmt_buf b = {0};
    drv_error_t error = {{0}};

    assert_int_equal(smgr_print(&b, kind, withassoc, format, rows, &o,
                                &error), 0);
    json_decref(rows);
    return b.s;
}

static void test_show_assoc(void **state)
{
    json_t *rows = json_pack(
        "[o,o,o,o,o,o,o,o,o,o]",
        assoc("anchor", "root", "", "", "normal", ""),
        assoc("anchor", "root", "root", "root", "normal", ""),
        assoc("anchor", "research", "", "root", "normal", ""),
        assoc("anchor", "research", "alice", "research", "normal,gpu4",
              "gpu4"),
        assoc("anchor", "research", "bob", "research", "normal", ""),
        assoc("atf", "root", "", "", "normal", ""),
        assoc("atf", "root", "root", "root", "normal", ""),
        assoc("atf", "atfacct", "", "root", "normal", ""),
        assoc("atf", "atfacct", "atf", "atfacct", "normal", ""),
        assoc("atf", "atfacct", "slurm", "atfacct", "normal", ""));
    char *got = print(SMGR_ASSOC, false, "Cluster,Account,User,QOS", rows, 2);

    (void)state;
    golden_assert("sacctmgr-show-assoc", got);
    free(got);
}

static void test_show_qos(void **state)
{
    json_t *rows = json_pack("[o,o]", qos("normal", ""),
                             qos("gpu4", "gres/gpu=4"));
    char *got = print(SMGR_QOS, false, "Name,Priority,MaxTRESPU", rows, 0);

    (void)state;
    golden_assert("sacctmgr-show-qos", got);
    free(got);
}

static void test_show_user(void **state)
{
    char *got = print(SMGR_USER, false, NULL, json_pack("[o]", alice()), 0);

    (void)state;
    golden_assert("sacctmgr-show-user-alice", got);
    free(got);
}

static void test_show_user_withassoc(void **state)
{
    json_t *rows = json_pack("[{s:o,s:o}]", "user", alice(), "assoc",
                             assoc("anchor", "research", "alice", "research",
                                   "normal,gpu4", "gpu4"));
    char *got = print(SMGR_USER, true, "User,Account,DefaultQOS,QOS%20",
                      rows, 0);

    (void)state;
    golden_assert("sacctmgr-show-user-alice-withassoc", got);
    free(got);
}

/* Cut with '+', -p's trailing bar, -n, left-justified %-W, bad field. */
static void test_layout_rules(void **state)
{
    json_t *rows = json_pack("[o]", qos("averyveryverylongname", ""));
    struct smgr_out o = {.noheader = true};
    struct fmt_buf b = {0};
    drv_error_t error = {{0}};
    char *got;

    (void)state;
    got = print(SMGR_QOS, false, "Name,Priority", json_incref(rows), 0);
    assert_string_equal(got, "      Name   Priority \n---------- ---------- \n"
                             "averyvery+          0 \n");
    free(got);
    got = print(SMGR_QOS, false, "Name%-12,Priority", json_incref(rows), 1);
    assert_string_equal(got, "Name|Priority|\naveryveryverylongname|0|\n");
    free(got);
    assert_int_equal(smgr_print(&b, SMGR_QOS, false, "Name%-12", rows, &o,
                                &error), 0);
    assert_string_equal(b.s, "averyveryve+ \n");
    free(b.s);
    b.s = NULL;
    assert_int_equal(smgr_print(&b, SMGR_QOS, false, "Name,Bogus", rows, &o,
                                &error), -1);
    assert_string_equal(error.text, "Unknown field 'Bogus'");
    free(b.s);
    json_decref(rows);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_show_assoc),
        cmocka_unit_test(test_show_qos),
        cmocka_unit_test(test_show_user),
        cmocka_unit_test(test_show_user_withassoc),
        cmocka_unit_test(test_layout_rules),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
