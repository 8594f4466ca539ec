/* SPDX-License-Identifier: Apache-2.0
 *
 * test_conf_changes.c - conf_changes(): every setting that differs between
 * two loads of slurm.conf, by keyword, record line or file
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conf/conf.h"

#define BASE "ClusterName=c\nSlurmctldHost=h\n"                            \
             "NodeName=n[1-2] CPUs=4\n"                                    \
             "PartitionName=debug Nodes=ALL Default=YES MaxTime=60\n"

static struct slurm_conf *parse(const char *text)
{
    drv_error_t error = {{0}};
    /* "/nonexistent/": no gres.conf or cgroup.conf beside it. */
    struct slurm_conf *c = conf_parse("/nonexistent/slurm.conf", text, NULL,
                                      &error);

    if (!c)
        fail_msg("%s", error.text);
    return c;
}

/* The changes as "record|key" lines, joined. */
static char *changes(const char *old_text, const char *new_text)
{
    struct slurm_conf *a = parse(old_text), *b = parse(new_text);
    struct conf_change *ch;
    size_t n;
    char *out = calloc(1, 1024);

    assert_int_equal(conf_changes(a, b, &ch, &n), 0);
    for (size_t i = 0; i < n; i++) {
        strcat(out, ch[i].record ? ch[i].record : "-");
        strcat(out, "|");
        strcat(out, ch[i].key ? ch[i].key : "-");
        strcat(out, "\n");
    }
    conf_changes_free(ch, n);
    conf_destroy(a);
    conf_destroy(b);
    return out;
}

static void same_text_no_change(void **state)
{
    char *out = changes(BASE, BASE);

    (void)state;
    assert_string_equal(out, "");
    free(out);
}

static void globals_by_last_value_any_case(void **state)
{
    char *out;

    (void)state;
    /* a later line replaces an earlier one; keywords in any case */
    out = changes(BASE "MaxArraySize=10\n",
                  BASE "MaxArraySize=5\nmaxarraysize=10\n");
    assert_string_equal(out, "");
    free(out);
    out = changes(BASE "MaxArraySize=10\nKillWait=30\n",
                  BASE "MaxArraySize=20\nMinJobAge=5\n");
    assert_string_equal(out, "-|MaxArraySize\n-|MinJobAge\n-|KillWait\n");
    free(out);
}

static void records_and_their_keywords(void **state)
{
    char *out;

    (void)state;
    out = changes(BASE, "ClusterName=c\nSlurmctldHost=h\n"
                        "NodeName=n[1-2] CPUs=8\n"
                        "PartitionName=debug Nodes=ALL Default=YES "
                        "MaxTime=30\n"
                        "PartitionName=extra Nodes=n1\n");
    assert_string_equal(out, "NodeName=n[1-2]|CPUs\n"
                             "PartitionName=debug|MaxTime\n"
                             "PartitionName=extra|PartitionName\n"
                             "PartitionName=extra|Nodes\n");
    free(out);
    /* a record removed */
    out = changes(BASE "PartitionName=extra Nodes=n1\n", BASE);
    assert_string_equal(out, "PartitionName=extra|PartitionName\n"
                             "PartitionName=extra|Nodes\n");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_text_no_change),
        cmocka_unit_test(globals_by_last_value_any_case),
        cmocka_unit_test(records_and_their_keywords),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
