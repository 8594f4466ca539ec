/* SPDX-License-Identifier: Apache-2.0
 *
 * test_part_access.c - partition access and visibility (src/ctld/part_access.c):
 * RootOnly, AllowGroups (against the groups of root and of a uid no group
 * lists), Allow/Deny accounts and QOS, Hidden
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/ident.h"
#include "ctld/part_access.h"

/* The lookups every test shares (ident.h). */
static struct ident *ident;

/* A uid no passwd entry (and so no group) has. */
#define NOBODY_UID 4000000111u

static struct conf_partition part(void)
{
    return (struct conf_partition){ .name = "p" };
}

static void in_list_matches_whole_names(void **state)
{
    (void)state;
    assert_true(part_access_in_list("a,bb,c", "bb"));
    assert_true(part_access_in_list("a", "a"));
    assert_false(part_access_in_list("a,bb,c", "b"));
    assert_false(part_access_in_list("abc", "ab"));
    assert_false(part_access_in_list(NULL, "a"));
    assert_false(part_access_in_list("a", NULL));
}

static void root_only_needs_root_submitter(void **state)
{
    (void)state;
    struct part_access *pa = part_access_create(0, ident);
    struct conf_partition p = part();
    drv_error_t error = {0};

    p.root_only = true;
    assert_int_equal(part_access_check(pa, &p, 1000, false, NULL, NULL, 100,
                                       &error), -1);
    assert_int_equal(errno, EDRV_ACCESS_DENIED);
    /* Root submits for another user: allowed, as Slurm. */
    assert_int_equal(part_access_check(pa, &p, 1000, true, NULL, NULL, 100,
                                       &error), 0);
    part_access_destroy(pa);
}

/* DisableRootJobs: the job's owner is judged, not the submitter (root
 * may still submit for another user). */
static void disable_root_jobs_refuses_root_owner(void **state)
{
    (void)state;
    struct part_access *pa = part_access_create(0, ident);
    struct conf_partition p = part();
    drv_error_t error = {0};

    assert_int_equal(part_access_check(pa, &p, 0, true, NULL, NULL, 100,
                                       &error), 0);
    p.disable_root_jobs = true;
    errno = 0;
    assert_int_equal(part_access_check(pa, &p, 0, true, NULL, NULL, 100,
                                       &error), -1);
    assert_int_equal(errno, EDRV_USER_ID_MISSING);
    assert_non_null(strstr(error.text, "SUBMIT_JOB for user root disabled"));
    assert_int_equal(part_access_check(pa, &p, 1000, true, NULL, NULL, 100,
                                       &error), 0);
    part_access_destroy(pa);
}

static void allow_groups_checks_the_owner(void **state)
{
    (void)state;
    struct part_access *pa = part_access_create(0, ident);
    struct conf_partition p = part();
    drv_error_t error = {0};

    p.allow_groups = "root";
    assert_int_equal(part_access_check(pa, &p, 0, false, NULL, NULL, 100,
                                       &error), 0);
    /* A privileged submitter does not lift it for an owner outside. */
    assert_int_equal(part_access_check(pa, &p, NOBODY_UID, true, NULL, NULL,
                                       100, &error), -1);
    assert_int_equal(errno, EDRV_JOB_MISSING_REQUIRED_PARTITION_GROUP);
    assert_non_null(strstr(error.text, "AllowGroups=root"));
    p.allow_groups = "no-such-group-x,root";
    assert_int_equal(part_access_check(pa, &p, 0, false, NULL, NULL, 100,
                                       &error), 0);
    assert_false(part_access_visible(pa, &p, NOBODY_UID, false, 100));
    assert_true(part_access_visible(pa, &p, NOBODY_UID, true, 100));
    part_access_destroy(pa);
}

static void accounts_and_qos(void **state)
{
    (void)state;
    struct part_access *pa = part_access_create(0, ident);
    struct conf_partition p = part();
    drv_error_t error = {0};

    p.allow_accounts = "phys,chem";
    p.deny_accounts = "phys"; /* ignored under AllowAccounts= */
    assert_int_equal(part_access_check(pa, &p, 5, false, "phys", NULL, 1,
                                       &error), 0);
    assert_int_equal(part_access_check(pa, &p, 5, false, "bio", NULL, 1,
                                       &error), -1);
    assert_int_equal(errno, EDRV_INVALID_ACCOUNT);
    assert_int_equal(part_access_check(pa, &p, 5, false, NULL, NULL, 1,
                                       &error), -1);
    p.allow_accounts = NULL;
    assert_int_equal(part_access_check(pa, &p, 5, false, "phys", NULL, 1,
                                       &error), -1);
    assert_int_equal(part_access_check(pa, &p, 5, false, NULL, NULL, 1,
                                       &error), 0);
    p.deny_accounts = NULL;
    p.deny_qos = "normal";
    assert_int_equal(part_access_check(pa, &p, 5, false, "a", "normal", 1,
                                       &error), -1);
    assert_int_equal(errno, EDRV_INVALID_QOS);
    /* A job without a QOS (no accounting) is not judged, as Slurm. */
    assert_int_equal(part_access_check(pa, &p, 5, false, "a", NULL, 1,
                                       &error), 0);
    p.deny_qos = NULL;
    p.allow_qos = "high";
    assert_int_equal(part_access_check(pa, &p, 5, false, "a", "high", 1,
                                       &error), 0);
    part_access_destroy(pa);
}

static void hidden_is_seen_by_root_only(void **state)
{
    (void)state;
    struct part_access *pa = part_access_create(0, ident);
    struct conf_partition p = part();

    assert_true(part_access_visible(pa, &p, NOBODY_UID, false, 1));
    p.hidden = true;
    assert_false(part_access_visible(pa, &p, NOBODY_UID, false, 1));
    assert_true(part_access_visible(pa, &p, 0, false, 1));
    assert_true(part_access_visible(pa, &p, NOBODY_UID, true, 1));
    part_access_destroy(NULL);
    part_access_destroy(pa);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(in_list_matches_whole_names),
        cmocka_unit_test(root_only_needs_root_submitter),
        cmocka_unit_test(disable_root_jobs_refuses_root_owner),
        cmocka_unit_test(allow_groups_checks_the_owner),
        cmocka_unit_test(accounts_and_qos),
        cmocka_unit_test(hidden_is_seen_by_root_only),
    };
    int rc;

    cmocka_set_message_output(CM_OUTPUT_TAP);
    ident = ident_create(0);
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    ident_destroy(ident);
    return rc;
}
