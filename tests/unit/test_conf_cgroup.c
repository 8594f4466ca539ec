/* SPDX-License-Identifier: Apache-2.0
 *
 * test_conf_cgroup.c - cgroup.conf: defaults, keywords, errors, and when
 * cgroups are in use (ProctrackType, TaskPlugin)
 *
 * Text cases go through conf_cgroup_parse(); the conf_load() cases write
 * slurm.conf and cgroup.conf into a temporary directory.
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
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf/conf.h"

static void parse_ok(struct conf_cgroup *cg, const char *text)
{
    drv_error_t error = { 0 };

    if (conf_cgroup_parse(cg, "cgroup.conf", text, &error) < 0)
        fail_msg("conf_cgroup_parse failed: %s", error.text);
}

/* The parse must fail with EINVAL and an error equal to 'want'. */
static void parse_fails(const char *text, const char *want)
{
    struct conf_cgroup cg = { 0 };
    drv_error_t error = { 0 };

    errno = 0;
    if (conf_cgroup_parse(&cg, "cgroup.conf", text, &error) == 0) {
        conf_cgroup_clear(&cg);
        fail_msg("parse of \"%s\" succeeded; expected \"%s\"", text, want);
    }
    assert_int_equal(errno, EINVAL);
    assert_string_equal(error.text, want);
}

static void assert_defaults(const struct conf_cgroup *cg)
{
    assert_int_equal(cg->plugin, CONF_CGROUP_AUTODETECT);
    assert_string_equal(cg->mountpoint, "/sys/fs/cgroup");
    assert_false(cg->constrain_cores);
    assert_false(cg->constrain_devices);
    assert_false(cg->constrain_ram_space);
    assert_false(cg->constrain_swap_space);
    assert_true(cg->allowed_ram_space == 100.0);
    assert_true(cg->allowed_swap_space == 0.0);
    assert_int_equal(cg->min_ram_space_mib, 30);
}

static void defaults_without_a_file(void **state)
{
    (void)state;
    struct conf_cgroup cg = { 0 };

    assert_int_equal(conf_cgroup_parse(&cg, NULL, NULL, NULL), 0);
    assert_null(cg.path);
    assert_defaults(&cg);
    conf_cgroup_clear(&cg);
}

static void empty_file_gives_defaults(void **state)
{
    (void)state;
    struct conf_cgroup cg = { 0 };

    parse_ok(&cg, "# nothing but a comment\n");
    assert_string_equal(cg.path, "cgroup.conf");
    assert_defaults(&cg);
    conf_cgroup_clear(&cg);
}

static void every_keyword_is_parsed(void **state)
{
    (void)state;
    struct conf_cgroup cg = { 0 };

    parse_ok(&cg, "CgroupPlugin=cgroup/v2\n"
                  "CgroupMountpoint=/tmp/fakecg\n"
                  "ConstrainCores=yes\n"
                  "constraindevices=YES\n" /* keywords in any case */
                  "ConstrainRAMSpace=true\n"
                  "ConstrainSwapSpace=1\n"
                  "AllowedRAMSpace=101.5\n"
                  "AllowedSwapSpace=50\n"
                  "MinRAMSpace=64\n");
    assert_int_equal(cg.plugin, CONF_CGROUP_V2);
    assert_string_equal(cg.mountpoint, "/tmp/fakecg");
    assert_true(cg.constrain_cores);
    assert_true(cg.constrain_devices);
    assert_true(cg.constrain_ram_space);
    assert_true(cg.constrain_swap_space);
    assert_true(cg.allowed_ram_space == 101.5);
    assert_true(cg.allowed_swap_space == 50.0);
    assert_int_equal(cg.min_ram_space_mib, 64);

    /* A second parse into the same struct replaces every value. */
    parse_ok(&cg, "CgroupPlugin=cgroup/v1\nMinRAMSpace=1G\n");
    assert_int_equal(cg.plugin, CONF_CGROUP_V1);
    assert_int_equal(cg.min_ram_space_mib, 1024);
    assert_false(cg.constrain_ram_space);
    assert_string_equal(cg.mountpoint, "/sys/fs/cgroup");
    conf_cgroup_clear(&cg);
}

static void plugin_words(void **state)
{
    (void)state;
    struct conf_cgroup cg = { 0 };

    parse_ok(&cg, "CgroupPlugin=autodetect\n");
    assert_int_equal(cg.plugin, CONF_CGROUP_AUTODETECT);
    parse_ok(&cg, "CgroupPlugin=disabled\n");
    assert_int_equal(cg.plugin, CONF_CGROUP_DISABLED);
    parse_ok(&cg, "CgroupPlugin=\n"); /* "Key=": the default */
    assert_int_equal(cg.plugin, CONF_CGROUP_AUTODETECT);
    conf_cgroup_clear(&cg);
}

static void bad_values_name_file_line_and_keyword(void **state)
{
    (void)state;
    parse_fails("ConstrainCores=yes\nConstrainRAMSpace=maybe\n",
                "cgroup.conf:2: ConstrainRAMSpace=maybe: expected yes or no");
    parse_fails("CgroupPlugin=cgroup/v3\n",
                "cgroup.conf:1: CgroupPlugin=cgroup/v3: expected autodetect, "
                "cgroup/v1, cgroup/v2 or disabled");
    parse_fails("AllowedRAMSpace=-5\n",
                "cgroup.conf:1: AllowedRAMSpace=-5: not a percentage");
    parse_fails("AllowedSwapSpace=1e3\n",
                "cgroup.conf:1: AllowedSwapSpace=1e3: not a percentage");
    parse_fails("AllowedSwapSpace=.\n",
                "cgroup.conf:1: AllowedSwapSpace=.: not a percentage");
    parse_fails("MinRAMSpace=lots\n",
                "cgroup.conf:1: MinRAMSpace=lots: not a size in MiB");
    parse_fails("CgroupMountpoint=sys/fs/cgroup\n",
                "cgroup.conf:1: CgroupMountpoint=sys/fs/cgroup: not an "
                "absolute path");
}

static void failed_parse_leaves_the_struct_alone(void **state)
{
    (void)state;
    struct conf_cgroup cg = { 0 };

    parse_ok(&cg, "ConstrainRAMSpace=yes\nMinRAMSpace=50\n");
    assert_int_equal(conf_cgroup_parse(&cg, "cgroup.conf",
                                       "MinRAMSpace=10\nAllowedRAMSpace=x\n",
                                       NULL), -1);
    assert_true(cg.constrain_ram_space);
    assert_int_equal(cg.min_ram_space_mib, 50);
    conf_cgroup_clear(&cg);
}

/* Parse 'text' with stderr captured into 'out'. */
static void parse_capturing_stderr(struct conf_cgroup *cg, const char *text,
                                   char *out, size_t size)
{
    char path[] = "/tmp/test_conf_cgroup.XXXXXX";
    int fd = mkstemp(path), saved = dup(STDERR_FILENO);
    ssize_t n;

    assert_true(fd >= 0 && saved >= 0);
    fflush(stderr);
    dup2(fd, STDERR_FILENO);
    parse_ok(cg, text);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    n = pread(fd, out, size - 1, 0);
    out[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
}

static void unknown_keywords_warn_and_ignored_ones_are_noticed(void **state)
{
    (void)state;
    struct conf_cgroup cg = { 0 };
    char out[1024];

    parse_capturing_stderr(&cg, "CgroupAutomount=yes\n"
                                "ConstrainKmemSpace=no\n"
                                "AllowedKmemSpace=100\n"
                                "MaxRAMPercent=98\n"
                                "MemorySwappiness=0\n"
                                "IgnoreSystemd=yes\n"
                                "ConstrainRAMSpace=yes\n"
                                "ConstrainEverything=yes\n",
                           out, sizeof(out));
    assert_true(cg.constrain_ram_space);
    if (!strstr(out, "cgroup.conf:8: unknown keyword 'ConstrainEverything' "
                     "ignored"))
        fail_msg("stderr: %s", out);
    assert_null(strstr(out, "CgroupAutomount"));
    assert_null(strstr(out, "MaxRAMPercent"));
    /* not on stderr: in the notices droverctld logs, one each */
    assert_int_equal(cg.notice_count, 6);
    assert_string_equal(cg.notices[0],
                        "cgroup.conf:1: CgroupAutomount=yes has no effect in "
                        "Drover: Drover mounts nothing; it uses the "
                        "hierarchies mounted");
    assert_non_null(strstr(cg.notices[3], "cgroup.conf:4: MaxRAMPercent=98 "
                                          "has no effect in Drover: "));
    conf_cgroup_clear(&cg);
    assert_int_equal(cg.notice_count, 0);
}

static struct slurm_conf *parse_slurm_conf(const char *text)
{
    drv_error_t error = { 0 };
    struct slurm_conf *conf;

    /* "/nonexistent/": no cgroup.conf beside it. */
    conf = conf_parse("/nonexistent/slurm.conf", text, "", &error);
    if (!conf)
        fail_msg("conf_parse: %s", error.text);
    return conf;
}

static void in_use_follows_proctrack_and_task_plugin(void **state)
{
    (void)state;
    struct slurm_conf *conf;

    /* Slurm's defaults: proctrack/cgroup, task/none. */
    conf = parse_slurm_conf("ClusterName=t\n");
    assert_null(conf->cgroup.path);
    assert_defaults(&conf->cgroup);
    assert_true(conf_cgroup_in_use(conf));
    assert_false(conf_task_cgroup(conf));
    conf_destroy(conf);

    conf = parse_slurm_conf("ProctrackType=proctrack/linuxproc\n");
    assert_false(conf_cgroup_in_use(conf));
    conf_destroy(conf);

    conf = parse_slurm_conf("ProctrackType=proctrack/linuxproc\n"
                            "TaskPlugin=task/affinity,task/cgroup\n");
    assert_true(conf_cgroup_in_use(conf));
    assert_true(conf_task_cgroup(conf));
    conf_destroy(conf);

    conf = parse_slurm_conf("TaskPlugin=task/cgroupx\n");
    assert_false(conf_task_cgroup(conf));
    conf_destroy(conf);

    conf = parse_slurm_conf("TaskPlugin=task/cgroup\n");
    conf->cgroup.plugin = CONF_CGROUP_DISABLED;
    assert_false(conf_cgroup_in_use(conf));
    conf_destroy(conf);
}

static void make_dir(char *dir, size_t size)
{
    snprintf(dir, size, "/tmp/test_conf_cgroup.XXXXXX");
    assert_non_null(mkdtemp(dir));
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX];
    FILE *fp;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_non_null(fp = fopen(path, "w"));
    assert_int_equal(fputs(text, fp) >= 0, 1);
    assert_int_equal(fclose(fp), 0);
}

static void remove_tree(const char *dir)
{
    char cmd[PATH_MAX + 16];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void load_reads_cgroup_conf_beside_slurm_conf(void **state)
{
    (void)state;
    char dir[64], path[PATH_MAX], cg_path[PATH_MAX];
    drv_error_t error = { 0 };
    struct slurm_conf *conf;

    make_dir(dir, sizeof(dir));
    write_file(dir, "slurm.conf", "ClusterName=t\nTaskPlugin=task/cgroup\n");
    write_file(dir, "cgroup.conf", "ConstrainRAMSpace=yes\n"
                                   "Include more.conf\n");
    write_file(dir, "more.conf", "ConstrainDevices=yes\nMinRAMSpace=16\n");
    snprintf(path, sizeof(path), "%s/slurm.conf", dir);
    snprintf(cg_path, sizeof(cg_path), "%s/cgroup.conf", dir);

    conf = conf_load(path, &error);
    if (!conf)
        fail_msg("conf_load: %s", error.text);
    assert_string_equal(conf->cgroup.path, cg_path);
    assert_true(conf->cgroup.constrain_ram_space);
    assert_true(conf->cgroup.constrain_devices);
    assert_false(conf->cgroup.constrain_swap_space);
    assert_int_equal(conf->cgroup.min_ram_space_mib, 16);
    assert_true(conf_task_cgroup(conf));
    conf_destroy(conf);
    remove_tree(dir);
}

static void load_fails_on_a_bad_cgroup_conf(void **state)
{
    (void)state;
    char dir[64], path[PATH_MAX], want[PATH_MAX + 64];
    drv_error_t error = { 0 };

    make_dir(dir, sizeof(dir));
    write_file(dir, "slurm.conf", "ClusterName=t\n");
    write_file(dir, "cgroup.conf", "\n\nAllowedSwapSpace=lots\n");
    snprintf(path, sizeof(path), "%s/slurm.conf", dir);
    errno = 0;
    assert_null(conf_load(path, &error));
    assert_int_equal(errno, EINVAL);
    snprintf(want, sizeof(want),
             "%s/cgroup.conf:3: AllowedSwapSpace=lots: not a percentage", dir);
    assert_string_equal(error.text, want);
    remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_without_a_file),
        cmocka_unit_test(empty_file_gives_defaults),
        cmocka_unit_test(every_keyword_is_parsed),
        cmocka_unit_test(plugin_words),
        cmocka_unit_test(bad_values_name_file_line_and_keyword),
        cmocka_unit_test(failed_parse_leaves_the_struct_alone),
        cmocka_unit_test(unknown_keywords_warn_and_ignored_ones_are_noticed),
        cmocka_unit_test(in_use_follows_proctrack_and_task_plugin),
        cmocka_unit_test(load_reads_cgroup_conf_beside_slurm_conf),
        cmocka_unit_test(load_fails_on_a_bad_cgroup_conf),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
