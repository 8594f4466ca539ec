/* SPDX-License-Identifier: Apache-2.0
 *
 * test_taskdist.c - -m / --distribution values as Slurm 22.05 reads them
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/taskdist.h"

/* Parse 'spec' and return its SLURM_DISTRIBUTION text (static buffer). */
static const char *name_of(const char *spec, const char *env)
{
    static char buf[TASKDIST_TEXT_MAX];
    struct taskdist d;

    if (taskdist_parse(spec, env, &d, NULL) < 0)
        return "ERROR";
    return taskdist_format(&d, 0, buf);
}

static void node_level_words_and_their_names(void **state)
{
    struct taskdist d;

    (void)state;
    assert_int_equal(taskdist_parse("cyclic", NULL, &d, NULL), 0);
    assert_int_equal(d.node, TASKDIST_CYCLIC);
    assert_int_equal(d.socket, TASKDIST_LEVEL_NONE);
    assert_string_equal(name_of("block", NULL), "block");
    assert_string_equal(name_of("CYCLIC", NULL), "cyclic");
    assert_string_equal(name_of("Arbitrary", NULL), "arbitrary");
    assert_string_equal(name_of("hostfile", NULL), "arbitrary");
}

static void two_and_three_levels_pass_through(void **state)
{
    struct taskdist d;

    (void)state;
    assert_int_equal(taskdist_parse("block:cyclic", NULL, &d, NULL), 0);
    assert_int_equal(d.node, TASKDIST_BLOCK);
    assert_int_equal(d.socket, TASKDIST_LEVEL_CYCLIC);
    assert_string_equal(name_of("cyclic:block", NULL), "cyclic:block");
    assert_string_equal(name_of("block:block", NULL), "block:block");
    assert_string_equal(name_of("cyclic:cyclic", NULL), "cyclic:cyclic");
    assert_string_equal(name_of("block:fcyclic", NULL), "block:fcyclic");
    assert_string_equal(name_of("cyclic:fcyclic:block", NULL),
                        "cyclic:fcyclic:block");
}

/* '*': block for nodes, cyclic for sockets, the socket's for cores. */
static void stars_take_slurms_defaults(void **state)
{
    (void)state;
    assert_string_equal(name_of("*", NULL), "block");
    assert_string_equal(name_of("*:*", NULL), "block:cyclic");
    assert_string_equal(name_of("*:fcyclic", NULL), "block:fcyclic");
    assert_string_equal(name_of("cyclic:*", NULL), "cyclic:cyclic");
    assert_string_equal(name_of("*:*:*", NULL), "block:cyclic:cyclic");
    assert_string_equal(name_of("block:block:*", NULL), "block:block:block");
}

static void pack_flags(void **state)
{
    struct taskdist d;

    (void)state;
    assert_string_equal(name_of("block,Pack", NULL), "block,pack");
    assert_string_equal(name_of("cyclic:block,nopack", NULL),
                        "cyclic:block,nopack");
    assert_int_equal(taskdist_parse("pack", NULL, &d, NULL), 0);
    assert_int_equal(d.node, TASKDIST_UNSET);
    assert_int_equal(d.pack, TASKDIST_PACK);
    assert_string_equal(name_of("pack", NULL), "pack");
    assert_string_equal(name_of("block,", NULL), "block");
}

static void plane_size_from_value_or_env(void **state)
{
    char buf[TASKDIST_TEXT_MAX];
    struct taskdist d;

    (void)state;
    assert_int_equal(taskdist_parse("plane=4", NULL, &d, NULL), 0);
    assert_int_equal(d.node, TASKDIST_PLANE);
    assert_int_equal(d.plane_size, 4);
    assert_string_equal(taskdist_format(&d, 0, buf), "plane");
    assert_string_equal(taskdist_format(&d, 1, buf), "plane=4");
    assert_int_equal(taskdist_parse("Plane", "3", &d, NULL), 0);
    assert_int_equal(d.plane_size, 3);
    /* the value wins over the variable */
    assert_int_equal(taskdist_parse("plane=2", "3", &d, NULL), 0);
    assert_int_equal(d.plane_size, 2);
}

static void bad_plane_says_why_then_slurms_line(void **state)
{
    drv_error_t error = {{0}};
    struct taskdist d = {.node = TASKDIST_CYCLIC};

    (void)state;
    errno = 0;
    assert_int_equal(taskdist_parse("plane", NULL, &d, &error), -1);
    assert_int_equal(errno, EINVAL);
    assert_string_equal(error.text, "Invalid plane size or size not "
                                    "specified\nInvalid --distribution "
                                    "specification");
    assert_int_equal(d.node, TASKDIST_CYCLIC); /* unchanged */
    assert_int_equal(taskdist_parse("plane=0", NULL, &d, NULL), -1);
    assert_int_equal(taskdist_parse("plane=x", NULL, &d, NULL), -1);
    assert_int_equal(taskdist_parse("plane=2:block", NULL, &d, NULL), -1);
    assert_int_equal(taskdist_parse("plane=", "", &d, NULL), -1);
    assert_int_equal(taskdist_parse("plane=-1", NULL, &d, NULL), -1);
    /* anything that starts with "plane" is a plane (Slurm's prefix test) */
    assert_int_equal(taskdist_parse("plane:2", NULL, &d, &error), -1);
    assert_non_null(strstr(error.text, "Invalid plane size"));
}

static void refuses_what_slurm_refuses(void **state)
{
    static const char *const bad[] = {
        "", ",pack", "bogus", "fcyclic", "fcyclic:block", "arbitrary:block",
        "block:arbitrary", "block:cyclic:block:block", "block,bogus",
        "block:pack", "blocks", NULL,
    };
    drv_error_t error = {{0}};
    struct taskdist d;

    (void)state;
    for (size_t i = 0; bad[i]; i++) {
        errno = 0;
        if (taskdist_parse(bad[i], NULL, &d, &error) != -1)
            fail_msg("accepted '%s'", bad[i]);
        assert_int_equal(errno, EINVAL);
        assert_string_equal(error.text,
                            "Invalid --distribution specification");
    }
    assert_int_equal(taskdist_parse(NULL, NULL, &d, NULL), -1);
}

/* scontrol show step's Dist=, Slurm's slurm_step_layout_type_name(). */
static void layout_names_are_slurms(void **state)
{
    static const char *const cases[][2] = {
        {"block", "Block"}, {"cyclic", "Cyclic"}, {"plane=2", "Plane"},
        {"arbitrary", "Arbitrary"}, {"block:cyclic", "BCyclic"},
        {"cyclic:cyclic", "CCyclic"}, {"cyclic:block", "CBlock"},
        {"block:fcyclic", "BFCyclic"}, {"*:*:*", "BCyclicCyclic"},
        {"cyclic:fcyclic:block", "CFCyclicBlock"},
        {"block,pack", "Block,Pack"}, {"cyclic,nopack", "Cyclic,NoPack"},
    };
    char buf[TASKDIST_TEXT_MAX];
    struct taskdist d;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(taskdist_parse(cases[i][0], NULL, &d, NULL), 0);
        assert_string_equal(taskdist_layout_name(&d, buf), cases[i][1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(node_level_words_and_their_names),
        cmocka_unit_test(two_and_three_levels_pass_through),
        cmocka_unit_test(stars_take_slurms_defaults),
        cmocka_unit_test(pack_flags),
        cmocka_unit_test(plane_size_from_value_or_env),
        cmocka_unit_test(bad_plane_says_why_then_slurms_line),
        cmocka_unit_test(refuses_what_slurm_refuses),
        cmocka_unit_test(layout_names_are_slurms),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
