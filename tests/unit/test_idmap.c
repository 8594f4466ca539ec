/* SPDX-License-Identifier: Apache-2.0
 *
 * test_idmap.c - pointers by id in a page table (common/idmap.h)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/idmap.h"

/* What is put is found, what is deleted is not, ids apart or on the
 * edges of a page alike; a page goes when its last id does. */
static void put_get_del(void **state)
{
    static const uint32_t ids[] = {0, 1, IDMAP_PAGE - 1, IDMAP_PAGE,
                                   5 * IDMAP_PAGE + 7, 67043327, UINT32_MAX};
    struct idmap m = {0};
    int v[7];

    (void)state;
    assert_null(idmap_get(&m, 3));
    for (size_t i = 0; i < 7; i++)
        idmap_put(&m, ids[i], &v[i]);
    for (size_t i = 0; i < 7; i++)
        assert_ptr_equal(idmap_get(&m, ids[i]), &v[i]);
    assert_null(idmap_get(&m, 2));
    assert_null(idmap_get(&m, 5 * IDMAP_PAGE + 8));
    idmap_put(&m, 1, &v[3]); /* replaced */
    assert_ptr_equal(idmap_get(&m, 1), &v[3]);
    idmap_del(&m, 0);
    idmap_del(&m, 0); /* twice: no-op */
    idmap_del(&m, 12345678); /* never put: no-op */
    assert_null(idmap_get(&m, 0));
    assert_ptr_equal(idmap_get(&m, 1), &v[3]);
    assert_non_null(m.pages[0]);
    idmap_del(&m, 1);
    idmap_del(&m, IDMAP_PAGE - 1);
    assert_null(m.pages[0]); /* its last id gone */
    assert_ptr_equal(idmap_get(&m, IDMAP_PAGE), &v[3]);
    idmap_free(&m);
    assert_null(idmap_get(&m, IDMAP_PAGE));
    idmap_put(&m, 9, &v[0]); /* usable again */
    assert_ptr_equal(idmap_get(&m, 9), &v[0]);
    idmap_free(&m);
}

/* 100,000 ids in sequence, then every other one deleted. */
static void a_sequence(void **state)
{
    struct idmap m = {0};
    static char p[100000];

    (void)state;
    for (uint32_t id = 1; id <= 100000; id++)
        idmap_put(&m, id, &p[id - 1]);
    for (uint32_t id = 2; id <= 100000; id += 2)
        idmap_del(&m, id);
    for (uint32_t id = 1; id <= 100000; id++)
        if (id % 2)
            assert_ptr_equal(idmap_get(&m, id), &p[id - 1]);
        else
            assert_null(idmap_get(&m, id));
    idmap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(put_get_del),
        cmocka_unit_test(a_sequence),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
