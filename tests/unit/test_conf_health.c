/* SPDX-License-Identifier: Apache-2.0
 *
 * test_conf_health.c - HealthCheck* keywords, JobContainerType= and
 * job_container.conf
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

static struct slurm_conf *parse(const char *text, drv_error_t *error)
{
    return conf_parse("slurm.conf", text, "", error);
}

static void health_defaults_are_slurms(void **state)
{
    (void)state;
    drv_error_t error = {0};
    struct slurm_conf *conf = parse("", &error);
    char buf[64];

    assert_non_null(conf);
    assert_null(conf->health_check_program);
    assert_int_equal(conf->health_check_interval_s, 0);
    assert_string_equal(conf_health_state_string(
                            conf->health_check_node_state, buf, sizeof(buf)),
                        "ANY");
    assert_string_equal(conf->job_container_type, "job_container/none");
    assert_false(conf_job_container_tmpfs(conf));
    conf_destroy(conf);
}

static void health_keys_are_parsed(void **state)
{
    (void)state;
    drv_error_t error = {0};
    struct slurm_conf *conf = parse("HealthCheckProgram=/usr/sbin/nhc\n"
                                    "HealthCheckInterval=300\n"
                                    "HealthCheckNodeState=idle,cycle\n",
                                    &error);
    char buf[64];

    assert_non_null(conf);
    assert_string_equal(conf->health_check_program, "/usr/sbin/nhc");
    assert_int_equal(conf->health_check_interval_s, 300);
    assert_int_equal(conf->health_check_node_state,
                     CONF_HEALTH_IDLE | CONF_HEALTH_CYCLE);
    assert_string_equal(conf_health_state_string(
                            conf->health_check_node_state, buf, sizeof(buf)),
                        "CYCLE,IDLE");
    conf_destroy(conf);
    conf = parse("HealthCheckNodeState=CYCLE\n", &error);
    assert_string_equal(conf_health_state_string(
                            conf->health_check_node_state, buf, sizeof(buf)),
                        "CYCLE,ANY");
    conf_destroy(conf);
}

static void bad_values_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *text, *needle;
    } cases[] = {
        {"HealthCheckProgram=nhc\n",
         "slurm.conf:1: HealthCheckProgram=nhc: not an absolute path"},
        {"HealthCheckInterval=-1\n", "HealthCheckInterval=-1: not a number"},
        {"HealthCheckNodeState=IDLE,BUSY\n",
         "HealthCheckNodeState=IDLE,BUSY: expected a comma list of ALLOC"},
        {"JobContainerType=job_container/docker\n",
         "expected job_container/none or job_container/tmpfs"},
        /* conf_parse("slurm.conf") reads ./job_container.conf: none here */
        {"JobContainerType=job_container/tmpfs\n",
         "JobContainerType=job_container/tmpfs needs ./job_container.conf"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        drv_error_t error = {0};
        struct slurm_conf *conf = parse(cases[i].text, &error);
        if (conf)
            fail_msg("\"%s\" was accepted", cases[i].text);
        if (!strstr(error.text, cases[i].needle))
            fail_msg("\"%s\" lacks \"%s\"", error.text, cases[i].needle);
    }
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_non_null(fp = fopen(path, "w"));
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

static struct slurm_conf *load_jc(const char *jc_text, drv_error_t *error)
{
    char dir[] = "/tmp/test_conf_health.XXXXXX", path[PATH_MAX];
    struct slurm_conf *conf;

    assert_non_null(mkdtemp(dir));
    write_file(dir, "slurm.conf", "JobContainerType=job_container/tmpfs\n"
                                  "NodeName=n[1-4]\n");
    write_file(dir, "job_container.conf", jc_text);
    snprintf(path, sizeof(path), "%s/slurm.conf", dir);
    conf = conf_load(path, error);
    snprintf(path, sizeof(path), "rm -rf '%s'", dir);
    assert_int_equal(system(path), 0);
    return conf;
}

static void job_container_conf_lines(void **state)
{
    (void)state;
    drv_error_t error = {0};
    struct conf_jc jc;
    struct slurm_conf *conf = load_jc(
        "AutoBasePath=true\n"
        "BasePath=/var/jc/%n Dirs=/tmp\n"
        "NodeName=n[3-4] BasePath=/scratch InitScript=/etc/jc.sh "
        "Shared=yes AutoBasePath=false\n",
        &error);

    if (!conf)
        fail_msg("%s", error.text);
    assert_true(conf_job_container_tmpfs(conf));
    assert_int_equal(conf_job_container_for(conf, "n1", &jc), 0);
    assert_string_equal(jc.base_path, "/var/jc/n1/n1");
    assert_string_equal(jc.dirs, "/tmp");
    assert_null(jc.init_script);
    assert_true(jc.auto_base_path);
    assert_false(jc.shared);
    free(jc.base_path);
    assert_int_equal(conf_job_container_for(conf, "n4", &jc), 0);
    assert_string_equal(jc.base_path, "/scratch/n4");
    assert_string_equal(jc.dirs, "/tmp,/dev/shm");
    assert_string_equal(jc.init_script, "/etc/jc.sh");
    assert_false(jc.auto_base_path);
    assert_true(jc.shared);
    free(jc.base_path);
    conf_destroy(conf);

    conf = load_jc("NodeName=n1 BasePath=/x\n", &error);
    assert_non_null(conf);
    errno = 0;
    assert_int_equal(conf_job_container_for(conf, "n2", &jc), -1);
    assert_int_equal(errno, ENOENT);
    conf_destroy(conf);
}

static void job_container_conf_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *needle;
    } cases[] = {
        {"BasePath=relative\n", "BasePath=relative: not an absolute path"},
        {"NodeName=n1 Dirs=/tmp\n", "NodeName= line without BasePath="},
        {"BasePath=/x Dirs=/tmp,,/y\n", "expected a comma list of absolute"},
        {"BasePath=/x Shared=maybe\n", "Shared=maybe: expected true or false"},
        {"BasePath=/x Color=blue\n", "Color=blue: unknown keyword"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        drv_error_t error = {0};
        struct slurm_conf *conf = load_jc(cases[i].text, &error);
        if (conf)
            fail_msg("\"%s\" was accepted", cases[i].text);
        if (!strstr(error.text, cases[i].needle)
            || !strstr(error.text, "job_container.conf:1:"))
            fail_msg("\"%s\" lacks \"%s\"", error.text, cases[i].needle);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(health_defaults_are_slurms),
        cmocka_unit_test(health_keys_are_parsed),
        cmocka_unit_test(bad_values_are_refused),
        cmocka_unit_test(job_container_conf_lines),
        cmocka_unit_test(job_container_conf_errors),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
