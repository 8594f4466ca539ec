/* SPDX-License-Identifier: Apache-2.0
 *
 * test_scontrol_part.c - the words of scontrol create|update partition
 * (src/cmd/lib/scontrol_part.c): Slurm 22.05's key abbreviations and value
 * prefixes become slurm.conf's keywords and values, Priority= sets both
 * priorities, and what Slurm's scontrol refuses (or the file's parser
 * would) is refused before anything is sent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cmd/lib/scontrol_part.h"

/* The body of update (create: 'create') with words 'words' (NULL-ended),
 * as compact JSON with sorted keys; NULL when refused. */
static char *parse(bool create, const char *const words[])
{
    char *argv[16];
    int argc = 0;
    json_t *body;
    char *text;

    for (; words[argc]; argc++)
        argv[argc] = (char *)words[argc];
    if (scontrol_part_parse("scontrol", argc, argv, create, &body) < 0) {
        assert_null(body);
        return NULL;
    }
    text = json_dumps(body, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(body);
    return text;
}

static void expect(bool create, const char *const words[], const char *want)
{
    char *got = parse(create, words);

    if (!want) {
        if (got)
            fail_msg("accepted: %s", got);
        return;
    }
    if (!got)
        fail_msg("refused, expected %s", want);
    assert_string_equal(got, want);
    free(got);
}

static void maxtime_as_the_golden_case(void **state)
{
    (void)state;
    expect(false, (const char *[]){"PartitionName=gpu", "MaxTime=60", NULL},
           "{\"name\":\"gpu\",\"set\":{\"MaxTime\":\"60\"}}");
    expect(false, (const char *[]){"PartitionName=gpu", "MaxTime=INFINITE",
                                   NULL},
           "{\"name\":\"gpu\",\"set\":{\"MaxTime\":\"INFINITE\"}}");
}

static void abbreviations_and_prefixes_are_slurms(void **state)
{
    (void)state;
    expect(false, (const char *[]){"pa=p", "maxt=5", "st=dr", "hid=y",
                                   "overs=y:3", "sh=e", NULL},
           "{\"name\":\"p\",\"set\":{\"Hidden\":\"YES\",\"MaxTime\":\"5\","
           "\"OverSubscribe\":\"EXCLUSIVE\",\"State\":\"DRAIN\"}}");
    /* "D" is DOWN before DRAIN, as Slurm's order has it */
    expect(false, (const char *[]){"PartitionName=p", "State=D", NULL},
           "{\"name\":\"p\",\"set\":{\"State\":\"DOWN\"}}");
    expect(false, (const char *[]){"PartitionName=p", "Priority=7", NULL},
           "{\"name\":\"p\",\"set\":{\"PriorityJobFactor\":\"7\","
           "\"PriorityTier\":\"7\"}}");
    expect(true, (const char *[]){"PartitionName=new", "Nodes=n[1-2]",
                                  "Default=YES", NULL},
           "{\"name\":\"new\",\"set\":{\"Default\":\"YES\","
           "\"Nodes\":\"n[1-2]\"}}");
    /* create needs nothing but the name */
    expect(true, (const char *[]){"PartitionName=bare", NULL},
           "{\"name\":\"bare\",\"set\":{}}");
}

static void refusals(void **state)
{
    (void)state;
    expect(false, (const char *[]){"PartitionName=p", NULL}, NULL);
    expect(true, (const char *[]){"MaxTime=5", NULL}, NULL);
    expect(true, (const char *[]){"PartitionName=Default", NULL}, NULL);
    expect(false, (const char *[]){"PartitionName=p", "Colour=blue", NULL},
           NULL);
    expect(false, (const char *[]){"PartitionName=p", "partition", NULL},
           NULL);
    expect(false, (const char *[]){"PartitionName=p", "State=SIDEWAYS",
                                   NULL}, NULL);
    expect(false, (const char *[]){"PartitionName=p", "MaxTime=soon", NULL},
           NULL);
    expect(false, (const char *[]){"PartitionName=p", "MaxNodes=x", NULL},
           NULL);
    /* Slurm has them; Drover's partitions do not model them */
    expect(false, (const char *[]){"PartitionName=p", "LLN=YES", NULL},
           NULL);
    expect(false, (const char *[]){"PartitionName=p", "QOS=high", NULL},
           NULL);
    /* ... unless asked for what Drover does */
    expect(false, (const char *[]){"PartitionName=p", "LLN=no", NULL},
           "{\"name\":\"p\",\"set\":{\"LLN\":\"NO\"}}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(maxtime_as_the_golden_case),
        cmocka_unit_test(abbreviations_and_prefixes_are_slurms),
        cmocka_unit_test(refusals),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
