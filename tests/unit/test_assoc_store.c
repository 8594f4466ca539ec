/* SPDX-License-Identifier: Apache-2.0
 *
 * test_assoc_store.c - associations, QOS and users in a real SQLite file
 *
 * The golden cases' accounting setup is made through assoc_store_modify
 * (as sacctmgr -i would), listed back with assoc_store_list and printed
 * with sacctmgr's printer: the output must equal Slurm's byte for byte.
 * Then inheritance, the version counter, dry runs, bad input, deletion.
 * "test_assoc_store pgsql" runs the same on the PostgreSQL server named by
 * DROVER_TEST_PG_HOST/_PORT/_USER/_DB (tests/pg_private.sh run).
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
#include "dbd/assoc_store.h"
#include "dbd/schema.h"
#include "dbtest.h"
#include "golden.h"

/* Apply one acct_modify body (JSON text) as an Administrator or (!admin)
 * an Operator; returns the lines or NULL.
 */
static json_t *modify_as(db_t *db, const char *body_text, bool dry,
                         bool admin, drv_error_t *error)
{
    json_t *body = json_loads(body_text, 0, NULL), *r;

    assert_non_null(body);
    r = assoc_store_modify(db, body, dry, admin, error);
    json_decref(body);
    return r;
}

static json_t *modify(db_t *db, const char *body_text, bool dry,
                      drv_error_t *error)
{
    return modify_as(db, body_text, dry, true, error);
}

static void must(db_t *db, const char *body)
{
    drv_error_t error = {{0}};
    json_t *r = modify(db, body, false, &error);

    if (!r)
        fail_msg("%s: %s", body, error.text);
    json_decref(r);
}

static json_t *list(db_t *db)
{
    drv_error_t error = {{0}};
    json_t *l = assoc_store_list(db, NULL, -1, &error);

    if (!l)
        fail_msg("list: %s", error.text);
    return l;
}

static void test_golden_setup(void **state)
{
    db_t *db = *state;
    struct smgr_out p2 = {.parsable = 2}, plain = {0};
    struct fmt_buf b = {0};
    drv_error_t error = {{0}};
    json_t *l;

    assert_int_equal(assoc_store_ensure_cluster(db, "anchor", &error), 0);
    must(db, "{\"op\":\"add\",\"entity\":\"cluster\",\"names\":[\"atf\"]}");
    must(db, "{\"op\":\"add\",\"entity\":\"qos\",\"names\":[\"gpu4\"],"
             "\"set\":{\"maxtresperuser\":\"gres/gpu=4\"}}");
    must(db, "{\"op\":\"add\",\"entity\":\"account\",\"names\":[\"research\"],"
             "\"set\":{\"cluster\":\"anchor\"}}");
    must(db, "{\"op\":\"add\",\"entity\":\"user\",\"names\":[\"alice\"],"
             "\"set\":{\"account\":\"research\",\"cluster\":\"anchor\","
             "\"qos\":\"normal,gpu4\",\"defaultqos\":\"gpu4\"}}");
    must(db, "{\"op\":\"add\",\"entity\":\"user\",\"names\":[\"bob\"],"
             "\"set\":{\"account\":\"research\",\"cluster\":\"anchor\"}}");
    must(db, "{\"op\":\"add\",\"entity\":\"account\",\"names\":[\"atfacct\"],"
             "\"set\":{\"cluster\":\"atf\"}}");
    must(db, "{\"op\":\"add\",\"entity\":\"user\",\"names\":[\"slurm\","
             "\"atf\"],\"set\":{\"account\":\"atfacct\",\"cluster\":\"atf\"}}");
    l = list(db);
    assert_int_equal(smgr_print(&b, SMGR_ASSOC, false,
                                "Cluster,Account,User,QOS",
                                json_object_get(l, "assocs"), &p2, &error),
                     0);
    golden_assert("sacctmgr-show-assoc", b.s);
    free(b.s);
    b = (struct fmt_buf){0};
    assert_int_equal(smgr_print(&b, SMGR_QOS, false, "Name,Priority,MaxTRESPU",
                                json_object_get(l, "qos"), &plain, &error),
                     0);
    golden_assert("sacctmgr-show-qos", b.s);
    free(b.s);
    json_decref(l);
}

static json_t *find_assoc(json_t *l, const char *acct, const char *user)
{
    json_t *a;
    size_t i;

    json_array_foreach(json_object_get(l, "assocs"), i, a) {
        if (!strcmp(json_string_value(json_object_get(a, "cluster")),
                    "anchor")
            && !strcmp(json_string_value(json_object_get(a, "account")), acct)
            && !strcmp(json_string_value(json_object_get(a, "user")), user))
            return a;
    }
    fail_msg("no association %s/%s", acct, user);
    return NULL;
}

static void test_inheritance_and_version(void **state)
{
    db_t *db = *state;
    drv_error_t error = {{0}};
    json_t *l = list(db), *r, *a;
    json_int_t v0 = json_integer_value(json_object_get(l, "version"));

    json_decref(l);
    must(db, "{\"op\":\"modify\",\"entity\":\"account\",\"names\":"
             "[\"research\"],\"set\":{\"maxjobs\":\"7\",\"grpjobs\":\"20\","
             "\"maxwall\":\"1-00:00:00\"}}");
    l = list(db);
    assert_true(json_integer_value(json_object_get(l, "version")) > v0);
    a = find_assoc(l, "research", "bob");
    assert_int_equal(json_integer_value(json_object_get(a, "max_jobs")), 7);
    assert_int_equal(json_integer_value(json_object_get(a, "max_wall_min")),
                     1440);
    /* Grp limits belong to their level only */
    assert_int_equal(json_integer_value(json_object_get(a, "grp_jobs")), -1);
    assert_int_equal(json_integer_value(json_object_get(
                         find_assoc(l, "research", ""), "grp_jobs")), 20);
    /* unchanged since this version */
    r = assoc_store_list(db, NULL,
                         json_integer_value(json_object_get(l, "version")),
                         &error);
    assert_true(json_is_true(json_object_get(r, "unchanged")));
    json_decref(r);
    json_decref(l);
}

static void test_modify_qos_and_dry_run(void **state)
{
    db_t *db = *state;
    drv_error_t error = {{0}};
    json_t *r, *l, *q;
    size_t i;

    r = modify(db, "{\"op\":\"modify\",\"entity\":\"qos\",\"where\":"
                   "{\"name\":\"gpu4\"},\"set\":{\"maxtresperuser\":"
                   "\"gres/gpu=8\"}}", true, &error);
    assert_non_null(r);
    assert_string_equal(json_string_value(json_array_get(
                            json_object_get(r, "changed"), 0)),
                        " Modified qos...");
    json_decref(r);
    l = list(db);
    json_array_foreach(json_object_get(l, "qos"), i, q) {
        if (!strcmp(json_string_value(json_object_get(q, "name")), "gpu4"))
            assert_string_equal(json_string_value(json_object_get(
                                    q, "max_tres_per_user")), "gres/gpu=4");
    }
    json_decref(l);
    must(db, "{\"op\":\"modify\",\"entity\":\"qos\",\"names\":[\"gpu4\"],"
             "\"set\":{\"maxtresperuser\":\"gres/gpu=8,cpu=16\"}}");
    l = list(db);
    json_array_foreach(json_object_get(l, "qos"), i, q) {
        if (!strcmp(json_string_value(json_object_get(q, "name")), "gpu4"))
            assert_string_equal(json_string_value(json_object_get(
                                    q, "max_tres_per_user")),
                                "gres/gpu=8,cpu=16");
    }
    json_decref(l);
}

static void test_bad_input(void **state)
{
    db_t *db = *state;
    drv_error_t error = {{0}};

    assert_null(modify(db, "{\"op\":\"add\",\"entity\":\"account\",\"names\":"
                           "[\"x\"],\"set\":{\"parent\":\"nosuch\"}}",
                       false, &error));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(error.text, "nosuch"));
    assert_null(modify(db, "{\"op\":\"modify\",\"entity\":\"qos\",\"names\":"
                           "[\"gpu4\"],\"set\":{\"maxjobspu\":\"lots\"}}",
                       false, &error));
    assert_int_equal(errno, EINVAL);
    assert_null(modify(db, "{\"op\":\"add\",\"entity\":\"user\",\"names\":"
                           "[\"carol\"],\"set\":{\"account\":\"research\","
                           "\"qos\":\"nosuchqos\"}}", false, &error));
    assert_non_null(strstr(error.text, "nosuchqos"));
    assert_null(modify(db, "{\"op\":\"frobnicate\",\"entity\":\"qos\"}", false,
                       &error));
    assert_null(modify(db, "{\"op\":\"add\",\"entity\":\"wckey\",\"names\":"
                           "[\"a\"]}", false, &error));
    assert_non_null(strstr(error.text, "wckey"));
}

static void test_delete(void **state)
{
    db_t *db = *state;
    drv_error_t error = {{0}};
    json_t *r, *l, *a;
    size_t i;

    r = modify(db, "{\"op\":\"delete\",\"entity\":\"qos\",\"names\":"
                   "[\"gpu4\"]}", false, &error);
    assert_non_null(r);
    assert_string_equal(json_string_value(json_array_get(
                            json_object_get(r, "changed"), 1)), "  gpu4");
    json_decref(r);
    l = list(db);
    a = find_assoc(l, "research", "alice");
    assert_int_equal(json_array_size(json_object_get(a, "qos")), 1);
    assert_string_equal(json_string_value(json_object_get(a, "def_qos")), "");
    json_decref(l);
    must(db, "{\"op\":\"delete\",\"entity\":\"user\",\"names\":[\"bob\"]}");
    must(db, "{\"op\":\"delete\",\"entity\":\"account\",\"names\":"
             "[\"research\"]}");
    l = list(db);
    json_array_foreach(json_object_get(l, "assocs"), i, a)
        assert_string_not_equal(json_string_value(json_object_get(a,
                                                                  "account")),
                                "research");
    json_decref(l);
    r = modify(db, "{\"op\":\"delete\",\"entity\":\"user\",\"names\":"
                   "[\"nosuch\"]}", false, &error);
    assert_int_equal(json_array_size(json_object_get(r, "changed")), 0);
    json_decref(r);
}

static void test_names(void **state)
{
    static const char *const bad[] = {"", "sp ace", "tab\there", "new\nline",
                                      "a,b", "quo'te", "dq\"x", "back`tick",
                                      "eq=x", "pi|pe", "back\\slash",
                                      "del\x7f", NULL};
    db_t *db = *state;
    drv_error_t error = {{0}};
    char longest[ASSOC_NAME_MAX + 2];
    json_t *r;

    (void)db;
    for (size_t i = 0; bad[i]; i++) {
        errno = 0;
        assert_int_equal(assoc_store_check_name("account", bad[i], &error),
                         -1);
        assert_int_equal(errno, EINVAL);
        assert_non_null(strstr(error.text, "Invalid account name"));
        assert_null(strchr(error.text, '\n'));
    }
    memset(longest, 'a', sizeof(longest) - 1);
    longest[ASSOC_NAME_MAX] = '\0';
    assert_int_equal(assoc_store_check_name("user", longest, &error), 0);
    longest[ASSOC_NAME_MAX] = 'a';
    longest[ASSOC_NAME_MAX + 1] = '\0';
    assert_int_equal(assoc_store_check_name("user", longest, &error), -1);
    assert_non_null(strstr(error.text, "longer than 64"));
    assert_true(strlen(error.text) < 120);
    assert_int_equal(assoc_store_check_name("QOS", "good-name_1.x@y", &error),
                     0);
    assert_int_equal(assoc_store_ensure_cluster(*state, "new\nline", &error),
                     -1);
    assert_int_equal(errno, EINVAL);
    assert_null(modify(*state, "{\"op\":\"add\",\"entity\":\"qos\",\"names\":"
                               "[\"q q\"]}", false, &error));
    assert_int_equal(errno, EINVAL);
    assert_null(modify(*state, "{\"op\":\"add\",\"entity\":\"user\",\"names\":"
                               "[\"u\\tv\"],\"set\":{\"account\":\"root\"}}",
                       false, &error));
    assert_non_null(strstr(error.text, "Invalid user name"));
    r = modify(*state, "{\"op\":\"add\",\"entity\":\"account\",\"names\":"
                       "[\"ok.name\"]}", false, &error);
    assert_non_null(r);
    json_decref(r);
}

static void test_operator_rule(void **state)
{
    db_t *db = *state;
    drv_error_t error = {{0}};
    char level[32];
    json_t *r;

    must(db, "{\"op\":\"add\",\"entity\":\"user\",\"names\":[\"op\",\"u2\"],"
             "\"set\":{\"account\":\"root\"}}");
    /* An Operator cannot grant Administrator, add one, demote or remove one. */
    assert_null(modify_as(db, "{\"op\":\"modify\",\"entity\":\"user\","
                              "\"names\":[\"u2\"],\"set\":{\"adminlevel\":"
                              "\"admin\"}}", false, false, &error));
    assert_int_equal(errno, EPERM);
    assert_string_equal(error.text, "You have to be the same or higher admin "
                                    "level to change another persons");
    assert_null(modify_as(db, "{\"op\":\"add\",\"entity\":\"user\","
                              "\"names\":[\"u3\"],\"set\":{\"account\":"
                              "\"root\",\"adminlevel\":\"Administrator\"}}",
                          false, false, &error));
    assert_int_equal(errno, EPERM);
    assert_string_equal(error.text,
                        "Only Administrators can add an Administrator");
    assert_null(modify_as(db, "{\"op\":\"modify\",\"entity\":\"user\","
                              "\"names\":[\"root\"],\"set\":{\"adminlevel\":"
                              "\"None\"}}", false, false, &error));
    assert_int_equal(errno, EPERM);
    assert_null(modify_as(db, "{\"op\":\"delete\",\"entity\":\"user\","
                              "\"names\":[\"root\"]}", false, false, &error));
    assert_int_equal(errno, EPERM);
    assert_string_equal(error.text,
                        "Only Administrators can remove an Administrator");
    assert_int_equal(assoc_store_admin_level(db, "u2", level, sizeof(level),
                                             &error), 0);
    assert_string_equal(level, "None");
    assert_int_equal(assoc_store_admin_level(db, "root", level, sizeof(level),
                                             &error), 0);
    assert_string_equal(level, "Administrator");
    /* It may make an Operator; an Administrator may make an Administrator. */
    r = modify_as(db, "{\"op\":\"modify\",\"entity\":\"user\",\"names\":"
                      "[\"u2\"],\"set\":{\"adminlevel\":\"operator\"}}", false,
                  false, &error);
    assert_non_null(r);
    json_decref(r);
    r = modify_as(db, "{\"op\":\"modify\",\"entity\":\"user\",\"names\":"
                      "[\"u2\"],\"set\":{\"adminlevel\":\"Administrator\"}}",
                  false, true, &error);
    assert_non_null(r);
    json_decref(r);
    assert_int_equal(assoc_store_admin_level(db, "u2", level, sizeof(level),
                                             &error), 0);
    assert_string_equal(level, "Administrator");
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_setup),
        cmocka_unit_test(test_inheritance_and_version),
        cmocka_unit_test(test_modify_qos_and_dry_run),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_delete),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_operator_rule),
    };

    return dbtest_main(argc, argv, tests, sizeof(tests) / sizeof(*tests),
                       dbtest_setup, dbtest_teardown);
}
