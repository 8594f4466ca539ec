/* SPDX-License-Identifier: Apache-2.0
 *
 * test_conf_part.c - scontrol create|update partition's settings, read by
 * the table that reads slurm.conf's PartitionName= lines
 * (conf_partition_update(), conf_partition_init()): values mean what they
 * mean in the file, a bad one or one Drover does not model changes
 * nothing and says which, Nodes= is resolved against the nodes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/error.h"
#include "common/timefmt.h"
#include "conf/conf.h"

#define CONF \
    "DefMemPerCPU=100\n" \
    "NodeName=n[1-4] CPUs=4\n" \
    "PartitionName=gpu Nodes=n[1-4] Default=YES\n" \
    "PartitionName=DEFAULT MaxTime=30 AllowGroups=wheel\n" \
    "PartitionName=debug Nodes=n1\n"

struct fixture {
    struct slurm_conf *conf;
    struct conf_partition part; /* a copy of gpu */
};

static int setup(void **state)
{
    static struct fixture f;
    drv_error_t error = {0};

    if (!(f.conf = conf_parse("slurm.conf", CONF, "", &error))) {
        fprintf(stderr, "%s\n", error.text);
        return -1;
    }
    if (conf_partition_copy(&f.part, conf_partition_find(f.conf, "gpu")) < 0)
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    conf_partition_clear(&f->part);
    conf_destroy(f->conf);
    return 0;
}

/* Apply "K=V" words; returns the call's result, error text in 'error'. */
static int update(struct fixture *f, drv_error_t *error, size_t n, ...)
{
    const char *keys[8], *values[8];
    char buf[8][128];
    va_list ap;

    va_start(ap, n);
    for (size_t i = 0; i < n; i++) {
        const char *kv = va_arg(ap, const char *);
        char *eq;
        snprintf(buf[i], sizeof(buf[i]), "%s", kv);
        eq = strchr(buf[i], '=');
        *eq = '\0';
        keys[i] = buf[i];
        values[i] = eq + 1;
    }
    va_end(ap);
    memset(error, 0, sizeof(*error));
    errno = 0;
    return conf_partition_update(f->conf, &f->part, n, keys, values, error);
}

static void max_time_reads_as_in_the_file(void **state)
{
    struct fixture *f = *state;
    drv_error_t error;

    assert_int_equal(update(f, &error, 1, "MaxTime=60"), 0);
    assert_int_equal(f->part.max_time_s, 3600);
    assert_int_equal(update(f, &error, 1, "maxtime=1-00:00:00"), 0);
    assert_int_equal(f->part.max_time_s, 86400);
    assert_int_equal(update(f, &error, 1, "MaxTime=INFINITE"), 0);
    assert_int_equal(f->part.max_time_s, TIME_INFINITE);
    assert_int_equal(update(f, &error, 1, "MaxTime=UNLIMITED"), 0);
    assert_int_equal(f->part.max_time_s, TIME_INFINITE);
}

static void state_sets_both_fields(void **state)
{
    struct fixture *f = *state;
    drv_error_t error;

    assert_int_equal(update(f, &error, 1, "State=DOWN"), 0);
    assert_string_equal(f->part.state, "DOWN");
    assert_false(f->part.state_up);
    assert_int_equal(update(f, &error, 1, "State=inactive"), 0);
    assert_string_equal(f->part.state, "INACTIVE");
    assert_int_equal(update(f, &error, 1, "State=UP"), 0);
    assert_true(f->part.state_up);
}

static void a_bad_value_changes_nothing(void **state)
{
    struct fixture *f = *state;
    drv_error_t error;

    assert_int_equal(update(f, &error, 2, "MaxTime=90", "State=SIDEWAYS"),
                     -1);
    assert_int_equal(errno, EINVAL);
    assert_string_equal(error.text,
                        "State=SIDEWAYS: expected UP, DOWN, DRAIN or "
                        "INACTIVE");
    assert_int_equal(f->part.max_time_s, TIME_INFINITE); /* not 90 min */
    assert_int_equal(update(f, &error, 1, "MaxTime=soon"), -1);
    assert_string_equal(error.text, "MaxTime=soon: not a time limit");
}

static void unknown_and_unmodelled_keys_are_refused(void **state)
{
    struct fixture *f = *state;
    drv_error_t error;

    assert_int_equal(update(f, &error, 1, "Colour=blue"), -1);
    assert_int_equal(errno, ENOENT);
    assert_string_equal(error.text, "Colour=blue: not a partition keyword");
    assert_int_equal(update(f, &error, 1, "LLN=YES"), -1);
    assert_int_equal(errno, ENOTSUP);
    assert_non_null(strstr(error.text, "LLN=YES: "));
    /* Drover's behaviour, asked for: no change */
    assert_int_equal(update(f, &error, 1, "LLN=NO"), 0);
    /* NO_EFFECT in slurm.conf: a change never takes it silently */
    assert_int_equal(update(f, &error, 1, "Alternate=debug"), -1);
    assert_int_equal(errno, ENOTSUP);
    assert_non_null(strstr(error.text, "has no effect in Drover"));
    assert_int_equal(update(f, &error, 1, "QOS=high"), -1);
    assert_int_equal(errno, ENOTSUP);
}

static void nodes_are_resolved_against_the_conf(void **state)
{
    struct fixture *f = *state;
    drv_error_t error;

    assert_int_equal(update(f, &error, 1, "Nodes=n[2-3]"), 0);
    assert_string_equal(f->part.nodes, "n[2-3]");
    assert_int_equal(update(f, &error, 1, "Nodes=ALL"), 0);
    assert_string_equal(f->part.nodes, "n[1-4]");
    assert_int_equal(update(f, &error, 1, "Nodes=n9"), -1);
    assert_int_equal(errno, EDRV_INVALID_NODE_NAME);
    assert_string_equal(error.text, "Nodes=n9: no such node n9");
    assert_string_equal(f->part.nodes, "n[1-4]");
    assert_int_equal(update(f, &error, 1, "Nodes="), 0);
    assert_string_equal(f->part.nodes, "");
}

static void lists_all_and_empty_mean_no_restriction(void **state)
{
    struct fixture *f = *state;
    drv_error_t error;

    assert_int_equal(update(f, &error, 2, "AllowAccounts=a,b",
                            "DenyQos=low"), 0);
    assert_string_equal(f->part.allow_accounts, "a,b");
    assert_string_equal(f->part.deny_qos, "low");
    assert_int_equal(update(f, &error, 2, "AllowAccounts=ALL", "DenyQos="),
                     0);
    assert_null(f->part.allow_accounts);
    assert_null(f->part.deny_qos);
}

static void memory_pairs_exclude_each_other(void **state)
{
    struct fixture *f = *state;
    drv_error_t error;

    assert_int_equal(f->part.def_mem.mib, 100); /* the global one */
    assert_int_equal(update(f, &error, 1, "DefMemPerNode=2G"), 0);
    assert_int_equal(f->part.def_mem.mib, 2048);
    assert_false(f->part.def_mem.per_cpu);
    assert_int_equal(update(f, &error, 2, "MaxMemPerCPU=1", "MaxMemPerNode=2"),
                     -1);
    assert_string_equal(error.text, "MaxMemPerNode=2: MaxMemPerCPU and "
                                    "MaxMemPerNode are mutually exclusive");
}

static void oversubscribe_and_job_defaults(void **state)
{
    struct fixture *f = *state;
    drv_error_t error;

    assert_int_equal(update(f, &error, 1, "OverSubscribe=FORCE:2"), 0);
    assert_int_equal(f->part.oversubscribe, 2);
    assert_true(f->part.oversubscribe_force);
    assert_int_equal(update(f, &error, 1, "Shared=EXCLUSIVE"), 0);
    assert_true(f->part.exclusive_nodes);
    assert_int_equal(f->part.oversubscribe, 0);
    assert_int_equal(update(f, &error, 1,
                            "JobDefaults=DefCpuPerGPU=2,DefMemPerGPU=1G"), 0);
    assert_int_equal(f->part.def_cpu_per_gpu, 2);
    assert_int_equal(f->part.def_mem_per_gpu_mib, 1024);
    assert_int_equal(update(f, &error, 1, "JobDefaults=DefCpuPerTask=1"), -1);
    assert_int_equal(update(f, &error, 1, "JobDefaults="), 0);
    assert_int_equal(f->part.def_cpu_per_gpu, 0);
}

static void default_time_may_not_exceed_max_time(void **state)
{
    struct fixture *f = *state;
    drv_error_t error;

    assert_int_equal(update(f, &error, 2, "MaxTime=10", "DefaultTime=20"), -1);
    assert_string_equal(error.text, "DefaultTime would exceed MaxTime");
    assert_int_equal(update(f, &error, 2, "MaxTime=30", "DefaultTime=20"), 0);
    assert_int_equal(f->part.default_time_s, 1200);
}

static void init_starts_from_the_default_line(void **state)
{
    struct fixture *f = *state;
    struct conf_partition p;
    drv_error_t error = {0};

    assert_int_equal(conf_partition_init(f->conf, &p, "new", &error), 0);
    assert_string_equal(p.name, "new");
    assert_string_equal(p.nodes, "");
    assert_false(p.is_default);
    assert_true(p.state_up);
    assert_int_equal(p.max_time_s, 30 * 60);      /* PartitionName=DEFAULT */
    assert_string_equal(p.allow_groups, "wheel");
    assert_int_equal(p.def_mem.mib, 100);          /* DefMemPerCPU= */
    assert_int_equal(p.priority_tier, 1);
    conf_partition_clear(&p);
}

static void without_a_conf_nodes_stay_as_written(void **state)
{
    struct conf_partition p;
    drv_error_t error = {0};
    const char *k[] = {"Nodes", "PriorityTier"}, *v[] = {"x[1-2]", "5"};

    (void)state;
    assert_int_equal(conf_partition_init(NULL, &p, "c", &error), 0);
    assert_int_equal(conf_partition_update(NULL, &p, 2, k, v, &error), 0);
    assert_string_equal(p.nodes, "x[1-2]");
    assert_int_equal(p.priority_tier, 5);
    conf_partition_clear(&p);
}

static void job_defaults_in_the_file_too(void **state)
{
    drv_error_t error = {0};
    struct slurm_conf *c = conf_parse(
        "slurm.conf", "NodeName=n1 CPUs=1\n"
        "PartitionName=p Nodes=n1 JobDefaults=DefCpuPerGPU=3,DefMemPerGPU=64\n",
        "", &error);

    (void)state;
    assert_non_null(c);
    assert_int_equal(conf_partition_find(c, "p")->def_cpu_per_gpu, 3);
    assert_int_equal(conf_partition_find(c, "p")->def_mem_per_gpu_mib, 64);
    conf_destroy(c);
}

static void keywords_and_overlaps(void **state)
{
    (void)state;
    assert_string_equal(conf_partition_keyword("maxtime"), "MaxTime");
    assert_string_equal(conf_partition_keyword("SHARED"), "OverSubscribe");
    assert_string_equal(conf_partition_keyword("lln"), "LLN");
    assert_null(conf_partition_keyword("Colour"));
    assert_true(conf_partition_keys_overlap("DefMemPerCPU", "DefMemPerNode"));
    assert_true(conf_partition_keys_overlap("JobDefaults", "DefMemPerGPU"));
    assert_true(conf_partition_keys_overlap("Shared", "OverSubscribe"));
    assert_false(conf_partition_keys_overlap("MaxTime", "DefaultTime"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(max_time_reads_as_in_the_file, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(state_sets_both_fields, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_bad_value_changes_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            unknown_and_unmodelled_keys_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(nodes_are_resolved_against_the_conf,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            lists_all_and_empty_mean_no_restriction, setup, teardown),
        cmocka_unit_test_setup_teardown(memory_pairs_exclude_each_other,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(oversubscribe_and_job_defaults, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(default_time_may_not_exceed_max_time,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(init_starts_from_the_default_line,
                                        setup, teardown),
        cmocka_unit_test(without_a_conf_nodes_stay_as_written),
        cmocka_unit_test(job_defaults_in_the_file_too),
        cmocka_unit_test(keywords_and_overlaps),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
