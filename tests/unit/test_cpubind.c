/* SPDX-License-Identifier: Apache-2.0
 *
 * test_cpubind.c - --cpu-bind, --gpu-bind and --hint as Slurm 22.05 reads
 * them
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/cpubind.h"

static void words_and_verbose(void **state)
{
    struct cpubind b;

    (void)state;
    assert_int_equal(cpubind_parse("verbose,cores", &b, NULL), 0);
    assert_true(b.verbose);
    assert_int_equal(b.type, CPUBIND_CORES);
    assert_int_equal(cpubind_parse("v,THREAD", &b, NULL), 0);
    assert_int_equal(b.type, CPUBIND_THREADS);
    assert_int_equal(cpubind_parse("no", &b, NULL), 0);
    assert_int_equal(b.type, CPUBIND_NONE);
    assert_false(b.verbose);
    assert_int_equal(cpubind_parse("verbose", &b, NULL), 0);
    assert_int_equal(b.type, CPUBIND_UNSET);
    assert_int_equal(cpubind_parse("sockets,quiet", &b, NULL), 0);
    assert_false(b.verbose);
    assert_string_equal(cpubind_type_name(CPUBIND_SOCKETS), "sockets");
}

static void lists_run_to_the_end(void **state)
{
    struct cpubind b;
    cpu_set_t *sets;
    size_t n;

    (void)state;
    assert_int_equal(cpubind_parse("verbose,map_cpu:1,0x3", &b, NULL), 0);
    assert_int_equal(b.type, CPUBIND_MAP_CPU);
    assert_string_equal(b.list, "1,0x3");
    assert_int_equal(cpubind_list(b.list, false, &sets, &n, NULL), 0);
    assert_int_equal(n, 2);
    assert_true(CPU_ISSET(1, &sets[0]));
    assert_true(CPU_ISSET(3, &sets[1]));
    assert_int_equal(CPU_COUNT(&sets[1]), 1);
    free(sets);
    cpubind_clear(&b);
    assert_int_equal(cpubind_parse("mask_cpu:0x3,c", &b, NULL), 0);
    assert_int_equal(cpubind_list(b.list, true, &sets, &n, NULL), 0);
    assert_int_equal(CPU_COUNT(&sets[0]), 2);
    assert_true(CPU_ISSET(2, &sets[1]) && CPU_ISSET(3, &sets[1]));
    free(sets);
    cpubind_clear(&b);
    /* masks longer than 64 bits */
    assert_int_equal(cpubind_list("10000000000000000", true, &sets, &n,
                                  NULL), 0);
    assert_true(CPU_ISSET(64, &sets[0]));
    free(sets);
}

static void errors_name_the_word(void **state)
{
    struct cpubind b;
    drv_error_t e;

    (void)state;
    assert_int_equal(cpubind_parse("verbose,bogus", &b, &e), -1);
    assert_string_equal(e.text, "unrecognized --cpu-bind argument \"bogus\"");
    assert_int_equal(cpubind_parse("map_cpu", &b, &e), -1);
    assert_string_equal(e.text, "missing list for "
                                "\"--cpu-bind=<map_cpu|mask_cpu>:<list>\"");
    assert_int_equal(cpubind_parse("map_cpu:1,x", &b, &e), -1);
    assert_non_null(strstr(e.text, "\"x\""));
    assert_int_equal(cpubind_parse("mask_cpu:0xg", &b, &e), -1);
    assert_int_equal(cpubind_parse("map_ldom:0", &b, &e), -1);
    assert_non_null(strstr(e.text, "not supported"));
}

static void hints_map_to_bindings(void **state)
{
    enum cpubind_type t;
    bool one;
    drv_error_t e;

    (void)state;
    assert_int_equal(cpubind_hint("nomultithread", &t, &one, NULL), 0);
    assert_int_equal(t, CPUBIND_THREADS);
    assert_true(one);
    assert_int_equal(cpubind_hint("multithread", &t, &one, NULL), 0);
    assert_false(one);
    assert_int_equal(cpubind_hint("compute_bound", &t, &one, NULL), 0);
    assert_int_equal(t, CPUBIND_CORES);
    assert_false(one);
    assert_int_equal(cpubind_hint("memory_bound", &t, &one, NULL), 0);
    assert_true(one);
    assert_int_equal(cpubind_hint("fast", &t, &one, &e), -1);
    assert_string_equal(e.text, "Invalid --hint argument: fast");
}

static void gpu_bind_forms(void **state)
{
    struct gpubind b;
    drv_error_t e;

    (void)state;
    assert_int_equal(gpubind_parse("map_gpu:1,0", &b, NULL), 0);
    assert_int_equal(b.type, GPUBIND_MAP_GPU);
    assert_string_equal(b.list, "1,0");
    gpubind_clear(&b);
    assert_int_equal(gpubind_parse("verbose,mask_gpu:0x2,0x1", &b, NULL), 0);
    assert_true(b.verbose);
    assert_int_equal(b.type, GPUBIND_MASK_GPU);
    gpubind_clear(&b);
    assert_int_equal(gpubind_parse("single:2", &b, NULL), 0);
    assert_int_equal(b.single, 2);
    assert_int_equal(gpubind_parse("closest", &b, NULL), 0);
    assert_int_equal(b.type, GPUBIND_CLOSEST);
    assert_int_equal(gpubind_parse("none", &b, NULL), 0);
    assert_int_equal(b.type, GPUBIND_NONE);
    assert_int_equal(gpubind_parse("single:0", &b, &e), -1);
    assert_string_equal(e.text, "Invalid --gpu-bind argument: single:0");
    assert_int_equal(gpubind_parse("map_gpu:", &b, &e), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(words_and_verbose),
        cmocka_unit_test(lists_run_to_the_end),
        cmocka_unit_test(errors_name_the_word),
        cmocka_unit_test(hints_map_to_bindings),
        cmocka_unit_test(gpu_bind_forms),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
