/* SPDX-License-Identifier: Apache-2.0
 *
 * test_conf_oci.c - oci.conf (oci.conf(5), Slurm 22.05): its keys, the
 * RunTime* sets Slurm accepts, refusals with file:line, and the copy the
 * step daemons get (conf_step_to_json/from_json).
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
#include "conf/conf.h"

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_non_null(fp = fopen(path, "w"));
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

/* slurm.conf with oci.conf 'text' beside it (NULL: none). */
static struct slurm_conf *load_oci(const char *text, drv_error_t *error)
{
    char dir[] = "/tmp/test_conf_oci.XXXXXX", path[PATH_MAX];
    struct slurm_conf *conf;

    assert_non_null(mkdtemp(dir));
    write_file(dir, "slurm.conf", "NodeName=n[1-2]\n");
    if (text)
        write_file(dir, "oci.conf", text);
    snprintf(path, sizeof(path), "%s/slurm.conf", dir);
    conf = conf_load(path, error);
    snprintf(path, sizeof(path), "rm -rf '%s'", dir);
    assert_int_equal(system(path), 0);
    return conf;
}

static const char run_conf[] =
    "# as Slurm's containers guide\n"
    "RunTimeQuery=\"crun --rootless=true --root=/run/user/%U/ state "
    "%n.%u.%j.%s.%t\"\n"
    "runtimekill=\"crun kill -a %n.%u.%j.%s.%t\"\n"
    "RunTimeDelete=\"crun delete --force %n.%u.%j.%s.%t\"\n"
    "RunTimeRun=\"crun run --bundle %b %n.%u.%j.%s.%t\"\n"
    "CreateEnvFile=true\nContainerPath=/var/oci/%j.%s\n";

static void no_oci_conf_means_off(void **state)
{
    (void)state;
    drv_error_t error = {0};
    struct slurm_conf *conf = load_oci(NULL, &error);

    if (!conf)
        fail_msg("%s", error.text);
    assert_null(conf->oci.path);
    assert_null(conf->oci.runtime_run);
    conf_destroy(conf);
}

static void keys_are_read_and_travel_to_steps(void **state)
{
    (void)state;
    drv_error_t error = {0};
    struct slurm_conf *conf = load_oci(run_conf, &error), *step;
    json_t *o;

    if (!conf)
        fail_msg("%s", error.text);
    assert_non_null(strstr(conf->oci.path, "/oci.conf"));
    assert_string_equal(conf->oci.runtime_run,
                        "crun run --bundle %b %n.%u.%j.%s.%t");
    assert_string_equal(conf->oci.runtime_kill, "crun kill -a %n.%u.%j.%s.%t");
    assert_string_equal(conf->oci.container_path, "/var/oci/%j.%s");
    assert_true(conf->oci.create_env_file);
    assert_null(conf->oci.runtime_create);
    o = conf_step_to_json(conf, &conf->nodes[0]);
    assert_non_null(o);
    step = conf_step_from_json(o, &error);
    if (!step)
        fail_msg("%s", error.text);
    assert_string_equal(step->oci.path, conf->oci.path);
    assert_string_equal(step->oci.runtime_run, conf->oci.runtime_run);
    assert_string_equal(step->oci.runtime_query, conf->oci.runtime_query);
    assert_string_equal(step->oci.container_path, "/var/oci/%j.%s");
    assert_true(step->oci.create_env_file);
    json_decref(o);
    conf_destroy(step);
    conf_destroy(conf);
}

static void create_start_set_is_accepted(void **state)
{
    (void)state;
    drv_error_t error = {0};
    struct slurm_conf *conf = load_oci(
        "RunTimeCreate=\"c %b\"\nRunTimeStart=\"s\"\nRunTimeQuery=q\n"
        "RunTimeKill=k\nRunTimeDelete=d\n", &error);

    if (!conf)
        fail_msg("%s", error.text);
    assert_string_equal(conf->oci.runtime_create, "c %b");
    conf_destroy(conf);
}

static void bad_files_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *text, *needle;
    } cases[] = {
        {"RunTimeRun=r\nOCIPattern=x\n", "oci.conf:2: OCIPattern=x: unknown"},
        {"CreateEnvFile=maybe\n", "oci.conf:1: CreateEnvFile=maybe: expected"},
        {"# nothing\n", "missing required options"},
        {"RunTimeRun=r\n", "are mutually exclusive"},
        {"RunTimeRun=r\nRunTimeCreate=c\nRunTimeStart=s\nRunTimeQuery=q\n"
         "RunTimeKill=k\nRunTimeDelete=d\n", "are mutually exclusive"},
        {"RunTimeRun=r\nRunTimeQuery=q\nRunTimeKill=k\nRunTimeDelete=d\n"
         "ContainerPath=rel/%j\n", "ContainerPath=rel/%j: not an absolute"},
        {"RunTimeRun=\"crun run %b %Q\"\nRunTimeQuery=q\nRunTimeKill=k\n"
         "RunTimeDelete=d\n", "RunTimeRun=crun run %b %Q: unknown %-"},
        {"RunTimeRun=r%\nRunTimeQuery=q\nRunTimeKill=k\nRunTimeDelete=d\n",
         "RunTimeRun=r%: unknown %-"},
        {"RunTimeRun=r\nRunTimeQuery=q\nRunTimeKill=k\nRunTimeDelete=d\n"
         "ContainerPath=/var/oci/%u\n", "needs %j and %s"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        drv_error_t error = {0};
        struct slurm_conf *conf = load_oci(cases[i].text, &error);
        if (conf)
            fail_msg("\"%s\" was accepted", cases[i].text);
        if (!strstr(error.text, cases[i].needle))
            fail_msg("\"%s\" lacks \"%s\"", error.text, cases[i].needle);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_oci_conf_means_off),
        cmocka_unit_test(keys_are_read_and_travel_to_steps),
        cmocka_unit_test(create_start_set_is_accepted),
        cmocka_unit_test(bad_files_are_refused),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
