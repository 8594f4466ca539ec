/* SPDX-License-Identifier: Apache-2.0
 *
 * test_ident.c - the controller's cached user and group lookups
 * (src/ctld/ident.c): answers for root and for ids nobody has, each looked
 * up once per time to live, again after it (or when the clock went back)
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "common/ident.h"

/* A uid and a gid no passwd or group entry has. */
#define NOBODY_UID 4000000111u
#define NOBODY_GID 4000000222u

static void root_is_known_with_its_groups(void **state)
{
    struct ident *id = ident_create(0);
    const struct ident_user *u = ident_user(id, 0, 1000);

    (void)state;
    assert_true(u->known);
    assert_string_equal(u->name, "root");
    assert_int_equal(u->gid, 0);
    assert_true(u->ngids >= 1);
    assert_int_equal(u->gids[0], 0);
    assert_string_equal(ident_group_name(id, 0, 1000), "root");
    ident_destroy(id);
    ident_destroy(NULL);
}

static void unknown_ids_are_answered_and_cached(void **state)
{
    struct ident *id = ident_create(0);
    gid_t gid = 1;

    (void)state;
    assert_false(ident_user(id, NOBODY_UID, 1000)->known);
    assert_int_equal(ident_user(id, NOBODY_UID, 1000)->ngids, 0);
    assert_null(ident_group_name(id, NOBODY_GID, 1000));
    assert_false(ident_group_id(id, "no-such-group-xyz", 17, &gid, 1000));
    assert_false(ident_group_id(id, "no-such-group-xyz", 17, &gid, 1001));
    assert_int_equal(ident_lookups(id), 3);
    ident_destroy(id);
}

static void one_lookup_per_time_to_live(void **state)
{
    struct ident *id = ident_create(60);
    gid_t gid = 99;

    (void)state;
    for (int i = 0; i < 1000; i++)
        assert_true(ident_user(id, 0, 5000 + i % 60)->known);
    assert_int_equal(ident_lookups(id), 1);
    assert_true(ident_group_id(id, "root,other", 4, &gid, 5000));
    assert_int_equal(gid, 0);
    assert_true(ident_group_id(id, "root", 4, &gid, 5059));
    assert_int_equal(ident_lookups(id), 2);
    /* 60 s later the answers are looked up again... */
    ident_user(id, 0, 5060);
    ident_group_id(id, "root", 4, &gid, 5060);
    assert_int_equal(ident_lookups(id), 4);
    /* ...and when the clock went back (a stale answer is not trusted). */
    ident_user(id, 0, 4000);
    assert_int_equal(ident_lookups(id), 5);
    ident_destroy(id);
}

/* GroupUpdateTime=0: droverctld's cache keeps answers until it stops. */
static void unlimited_time_to_live_never_looks_up_again(void **state)
{
    struct ident *id = ident_create(UINT_MAX);

    (void)state;
    ident_user(id, 0, 1000);
    ident_user(id, 0, 1000 + 10L * 365 * 86400);
    assert_int_equal(ident_lookups(id), 1);
    ident_destroy(id);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(root_is_known_with_its_groups),
        cmocka_unit_test(unknown_ids_are_answered_and_cached),
        cmocka_unit_test(one_lookup_per_time_to_live),
        cmocka_unit_test(unlimited_time_to_live_never_looks_up_again),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
