/* SPDX-License-Identifier: Apache-2.0
 *
 * test_srun_mpi.c - srun's --mpi types and its PMIx fence hub
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

#include "cmd/lib/srun_mpi.h"
#include "common/base64.h"

static json_t *share(int id, const char *node, const char *data)
{
    char *b64 = base64_encode(data, strlen(data));
    json_t *m = json_pack("{s:i s:s s:s}", "fence", id, "node", node, "data",
                          b64);

    free(b64);
    return m;
}

/* Feed a share; returns the answer's decoded data (caller frees) or NULL. */
static char *add(struct srun_fence_hub *hub, int id, const char *node,
                 const char *data, const char **error)
{
    json_t *m = share(id, node, data), *answer = srun_fence_add(hub, m, error);
    unsigned char *bytes;
    size_t len;
    char *s;

    json_decref(m);
    if (!answer)
        return NULL;
    assert_int_equal(json_integer_value(json_object_get(answer, "fence")), id);
    bytes = base64_decode(
        json_string_value(json_object_get(answer, "data")), &len);
    s = calloc(1, len + 1);
    memcpy(s, bytes, len);
    free(bytes);
    json_decref(answer);
    return s;
}

static void answers_when_every_node_has_shared(void **state)
{
    struct srun_fence_hub *hub = srun_fence_hub_create(2);
    const char *error;
    char *all;

    (void)state;
    assert_null(add(hub, 0, "node01", "aa", &error));
    assert_null(error);
    /* fence 1 may start on one node before fence 0 ends on another */
    assert_null(add(hub, 1, "node01", "cc", &error));
    all = add(hub, 0, "node02", "bb", &error);
    assert_string_equal(all, "aabb");
    free(all);
    all = add(hub, 1, "node02", "", &error);
    assert_string_equal(all, "cc");
    free(all);
    srun_fence_hub_destroy(hub);
}

static void refuses_a_second_share_and_garbage(void **state)
{
    struct srun_fence_hub *hub = srun_fence_hub_create(2);
    const char *error;
    json_t *bad = json_pack("{s:i s:s s:s}", "fence", 0, "node", "n",
                            "data", "***");

    (void)state;
    assert_null(add(hub, 0, "node01", "aa", &error));
    assert_null(add(hub, 0, "node01", "aa", &error));
    assert_string_equal(error, "second fence share from one node");
    assert_null(srun_fence_add(hub, bad, &error));
    assert_string_equal(error, "malformed fence frame");
    json_decref(bad);
    srun_fence_hub_destroy(hub);
}

static void knows_slurms_types(void **state)
{
    char *text = NULL;
    size_t len = 0;
    FILE *err = open_memstream(&text, &len);

    (void)state;
    assert_int_equal(srun_mpi_check("pmix", stdout, err), 0);
    assert_int_equal(srun_mpi_check("pmix_v4", stdout, err), 0);
    assert_int_equal(srun_mpi_check("none", stdout, err), 0);
    assert_int_equal(srun_mpi_check("foo", stdout, err), -1);
    fclose(err);
    assert_non_null(strstr(text, "srun: error: Invalid MPI type 'foo', "
                                 "--mpi=list for acceptable types\n"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(answers_when_every_node_has_shared),
        cmocka_unit_test(refuses_a_second_share_and_garbage),
        cmocka_unit_test(knows_slurms_types),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
