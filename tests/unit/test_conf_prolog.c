/* SPDX-License-Identifier: Apache-2.0
 *
 * test_conf_prolog.c - PrologFlags=, PrologSlurmctld= and EpilogSlurmctld=
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "conf/conf.h"

static struct slurm_conf *parse(const char *text, drv_error_t *error)
{
    return conf_parse("slurm.conf", text, "", error);
}

static void defaults_are_none(void **state)
{
    (void)state;
    drv_error_t error = {0};
    struct slurm_conf *conf = parse("", &error);
    char buf[96];

    assert_non_null(conf);
    assert_int_equal(conf->prolog_flags, 0);
    assert_null(conf->prolog_slurmctld);
    assert_null(conf->epilog_slurmctld);
    assert_string_equal(conf_prolog_flags_string(0, buf, sizeof(buf)),
                        "(null)");
    conf_destroy(conf);
}

static void keys_are_parsed(void **state)
{
    (void)state;
    drv_error_t error = {0};
    struct slurm_conf *conf = parse("PrologFlags=serial,ALLOC,NoHold,"
                                    "deferbatch\n"
                                    "PrologSlurmctld=/etc/slurm/pc.sh\n"
                                    "EpilogSlurmctld=/etc/slurm/ec.sh\n",
                                    &error);
    char buf[96];

    assert_non_null(conf);
    assert_int_equal(conf->prolog_flags,
                     CONF_PROLOG_SERIAL | CONF_PROLOG_ALLOC
                         | CONF_PROLOG_NOHOLD | CONF_PROLOG_DEFER_BATCH);
    assert_string_equal(conf_prolog_flags_string(conf->prolog_flags, buf,
                                                 sizeof(buf)),
                        "Alloc,DeferBatch,NoHold,Serial");
    assert_string_equal(conf->prolog_slurmctld, "/etc/slurm/pc.sh");
    assert_string_equal(conf->epilog_slurmctld, "/etc/slurm/ec.sh");
    conf_destroy(conf);
}

static void flags_print_in_slurms_words(void **state)
{
    (void)state;
    char buf[96];

    assert_string_equal(conf_prolog_flags_string(CONF_PROLOG_ALLOC
                                                     | CONF_PROLOG_SERIAL
                                                     | CONF_PROLOG_X11,
                                                 buf, sizeof(buf)),
                        "Alloc,Serial,X11");
}

/* Contain is taken as Alloc too, as Slurm's, and printed so. */
static void contain_implies_alloc(void **state)
{
    drv_error_t error = {0};
    struct slurm_conf *conf;
    char buf[128];

    (void)state;
    conf = parse("PrologFlags=contain\n", &error);
    assert_non_null(conf);
    assert_int_equal(conf->prolog_flags,
                     CONF_PROLOG_CONTAIN | CONF_PROLOG_ALLOC);
    assert_string_equal(conf_prolog_flags_string(conf->prolog_flags, buf,
                                                 sizeof(buf)),
                        "Alloc,Contain");
    conf_destroy(conf);
}

/* Each refusal names the file, the line, the key and the flag. */
static void bad_values_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"PrologFlags=Serial,Bogus\n",
         "slurm.conf:1: PrologFlags=Serial,Bogus: unknown flag 'Bogus'"},
        {"PrologFlags=Alloc,RunInJob\n",
         "PrologFlags=Alloc,RunInJob: flag 'RunInJob' unsupported by "
         "Drover"},
        {"PrologFlags=serial,x11\n", "flag 'X11' unsupported by Drover"},
        {"PrologFlags=ForceRequeueOnFail\n",
         "flag 'ForceRequeueOnFail' unsupported by Drover"},
        {"PrologFlags=RunInJob\n", "flag 'RunInJob' unsupported by Drover"},
        {"PrologFlags=X11\n", "flag 'X11' unsupported by Drover"},
        {"PrologSlurmctld=pc.sh\n",
         "PrologSlurmctld=pc.sh: not an absolute path"},
        {"EpilogSlurmctld=ec.sh\n",
         "EpilogSlurmctld=ec.sh: not an absolute path"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        drv_error_t error = {0};

        errno = 0;
        assert_null(parse(cases[i].text, &error));
        assert_int_equal(errno, EINVAL);
        if (!strstr(error.text, cases[i].want))
            fail_msg("%s: got \"%s\"", cases[i].text, error.text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_none),
        cmocka_unit_test(keys_are_parsed),
        cmocka_unit_test(flags_print_in_slurms_words),
        cmocka_unit_test(contain_implies_alloc),
        cmocka_unit_test(bad_values_are_refused),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
