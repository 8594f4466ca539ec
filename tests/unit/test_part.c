/* SPDX-License-Identifier: Apache-2.0
 *
 * test_part.c - scontrol's partition changes (src/ctld/part.h) on the
 * controller's real tables and journal: part_changed events applied, the
 * journal replayed into a second controller and its snapshot into a third
 * must give the same partitions; the merged changes the snapshot keeps;
 * a restart whose slurm.conf lost a node keeps the changes that still
 * apply.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/xalloc.h"
#include "ctld/ctld.h"
#include "ctld/event.h"
#include "ctld/part.h"
#include "ctld/priority.h"
#include "ctld/state.h"
#include "ctld/trigger.h"

static const char conf_fmt[] =
    "ClusterName=t\n"
    "SlurmctldHost=localhost\n"
    "StateSaveLocation=%s\n"
    "NodeName=n[1-%d] CPUs=4 RealMemory=1000\n"
    "PartitionName=p Nodes=n[1-3] Default=YES\n"
    "PartitionName=q Nodes=n1 MaxTime=10\n";

static char dir[] = "/tmp/test_part.XXXXXX";

static struct ctld *ctld_open(int nodes)
{
    struct ctld *ctld = xzalloc(sizeof(*ctld));
    drv_error_t error = {{0}};
    char *text = xasprintf(conf_fmt, dir, nodes);
    char *path = xasprintf("%s/slurm.conf", dir);

    ctld->conf = conf_parse(path, text, "", &error);
    if (!ctld->conf)
        fail_msg("%s", error.text);
    ctld->nodes = node_table_create(ctld->conf, &error);
    assert_non_null(ctld->nodes);
    ctld->journal = journal_open(dir, &error);
    assert_non_null(ctld->journal);
    ctld->launches = launch_store_create();
    priority_init(ctld);
    ctld->next_job_id = 1;
    ctld->acks_tail = &ctld->acks;
    free(text);
    free(path);
    return ctld;
}

static void ctld_close(struct ctld *ctld)
{
    journal_close(ctld->journal);
    launch_store_destroy(ctld->launches);
    priority_fini(ctld);
    trigger_fini(ctld);
    json_decref(ctld->crontabs);
    part_fini(ctld);
    node_table_destroy(ctld->nodes);
    conf_destroy(ctld->conf);
    free(ctld->replayed);
    ctld_job_sets_free(ctld);
    idmap_free(&ctld->job_ids);
    free(ctld);
}

static struct ctld *restored(int nodes)
{
    struct ctld *ctld = ctld_open(nodes);
    drv_error_t error = {{0}};

    if (state_restore(ctld, &error) < 0)
        fail_msg("restore: %s", error.text);
    return ctld;
}

/* Apply a change written as JSON; returns ctld_apply()'s result. */
static int change(struct ctld *ctld, const char *text)
{
    json_t *c = json_loads(text, 0, NULL);
    struct ctld_event ev = {.type = CTLD_EV_PART_CHANGED, .t = 1000,
                            .part = c};
    int rc;

    assert_non_null(c);
    rc = ctld_apply(ctld, &ev);
    json_decref(c);
    return rc;
}

/* Each partition as "name nodes default state max_time" in table order. */
static char *describe(struct ctld *ctld)
{
    char *out = xstrdup("");

    for (size_t p = 0; p < ctld->nodes->part_count; p++) {
        const struct ctld_partition *part = &ctld->nodes->parts[p];
        char *nodes = node_table_hostlist(ctld->nodes, part->nodes);
        char *next = xasprintf("%s%s %s %d %s %lld %u|", out,
                               part->conf->name, nodes,
                               part->conf->is_default, part->conf->state,
                               (long long)part->conf->max_time_s,
                               part->total_cpus);
        free(nodes);
        free(out);
        out = next;
    }
    return out;
}

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/test_part.XXXXXX"); /* a new one each test */
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    char *cmd = xasprintf("rm -rf %s", dir);

    (void)state;
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    free(cmd);
    return 0;
}

static void changes_replay_and_snapshot_alike(void **state)
{
    struct ctld *live = ctld_open(4), *replayed, *snap;
    char *want, *got;

    (void)state;
    assert_int_equal(change(live, "{\"op\":\"update\",\"name\":\"p\","
                                  "\"set\":{\"MaxTime\":\"60\","
                                  "\"State\":\"DOWN\"}}"), 0);
    assert_int_equal(change(live, "{\"op\":\"create\",\"name\":\"new\","
                                  "\"set\":{\"Nodes\":\"n[3-4]\","
                                  "\"Default\":\"YES\"}}"), 0);
    assert_int_equal(change(live, "{\"op\":\"update\",\"name\":\"p\","
                                  "\"set\":{\"maxtime\":\"30\"}}"), 0);
    assert_int_equal(change(live, "{\"op\":\"delete\",\"name\":\"q\"}"), 0);
    /* what does not apply is dropped, not journaled */
    assert_int_equal(change(live, "{\"op\":\"delete\",\"name\":\"q\"}"), -1);
    assert_int_equal(change(live, "{\"op\":\"create\",\"name\":\"new\"}"),
                     -1);
    assert_int_equal(change(live, "{\"op\":\"update\",\"name\":\"p\","
                                  "\"set\":{\"Nodes\":\"n9\"}}"), -1);
    /* what slurm.conf would refuse: SUSPEND without GANG */
    assert_int_equal(change(live, "{\"op\":\"update\",\"name\":\"p\","
                                  "\"set\":{\"PreemptMode\":\"SUSPEND\"}}"),
                     -1);
    want = describe(live);
    assert_string_equal(want, "p n[1-3] 0 DOWN 1800 12|"
                              "new n[3-4] 1 UP -1 8|");
    assert_int_equal(journal_flush(live->journal), 0);

    replayed = restored(4);
    got = describe(replayed);
    assert_string_equal(got, want);
    free(got);
    assert_int_equal(state_snapshot(replayed), 0);
    snap = restored(4);
    got = describe(snap);
    assert_string_equal(got, want);
    free(got);
    /* the merged changes: one entry a partition, the later MaxTime */
    {
        json_t *s = part_snapshot(snap);
        char *text = json_dumps(s, JSON_COMPACT | JSON_SORT_KEYS);
        assert_string_equal(text,
            "{\"default\":\"new\",\"parts\":["
            "{\"name\":\"p\",\"set\":{\"MaxTime\":\"30\",\"State\":\"DOWN\"}},"
            "{\"created\":true,\"name\":\"new\",\"set\":{\"Nodes\":\"n[3-4]\"}},"
            "{\"deleted\":true,\"name\":\"q\"}]}");
        free(text);
        json_decref(s);
    }
    free(want);
    ctld_close(snap);
    ctld_close(replayed);
    ctld_close(live);
}

static void pairs_replace_each_other_and_default_moves_back(void **state)
{
    struct ctld *live = ctld_open(4), *snap;
    json_t *s;
    char *text;

    (void)state;
    assert_int_equal(change(live, "{\"op\":\"update\",\"name\":\"q\","
                                  "\"set\":{\"DefMemPerCPU\":\"100\","
                                  "\"Default\":\"YES\"}}"), 0);
    assert_true(live->nodes->parts[1].conf->is_default);
    assert_false(live->nodes->parts[0].conf->is_default);
    assert_int_equal(change(live, "{\"op\":\"update\",\"name\":\"q\","
                                  "\"set\":{\"DefMemPerNode\":\"200\","
                                  "\"Default\":\"NO\"}}"), 0);
    assert_false(live->nodes->parts[1].conf->is_default);
    s = part_snapshot(live);
    text = json_dumps(s, JSON_COMPACT | JSON_SORT_KEYS);
    assert_string_equal(text, "{\"default\":\"\",\"parts\":["
                              "{\"name\":\"q\",\"set\":"
                              "{\"DefMemPerNode\":\"200\"}}]}");
    free(text);
    json_decref(s);
    assert_int_equal(state_snapshot(live), 0);
    snap = restored(4);
    assert_false(snap->nodes->parts[0].conf->is_default);
    assert_false(snap->nodes->parts[1].conf->is_default);
    assert_int_equal(snap->nodes->parts[1].conf->def_mem.mib, 200);
    assert_false(snap->nodes->parts[1].conf->def_mem.per_cpu);
    ctld_close(snap);
    ctld_close(live);
}

static void a_restart_keeps_what_still_applies(void **state)
{
    struct ctld *live = ctld_open(4), *fewer;
    char *got;

    (void)state;
    assert_int_equal(change(live, "{\"op\":\"update\",\"name\":\"p\","
                                  "\"set\":{\"Nodes\":\"n[1-4]\","
                                  "\"MaxTime\":\"5\"}}"), 0);
    assert_int_equal(change(live, "{\"op\":\"create\",\"name\":\"four\","
                                  "\"set\":{\"Nodes\":\"n4\"}}"), 0);
    assert_int_equal(state_snapshot(live), 0);
    /* slurm.conf lost n4: p keeps MaxTime, not Nodes=; "four" is gone */
    fewer = restored(3);
    got = describe(fewer);
    assert_string_equal(got, "p n[1-3] 1 UP 300 12|q n1 0 UP 600 4|");
    free(got);
    ctld_close(fewer);
    ctld_close(live);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(changes_replay_and_snapshot_alike,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            pairs_replace_each_other_and_default_moves_back, setup,
            teardown),
        cmocka_unit_test_setup_teardown(a_restart_keeps_what_still_applies,
                                        setup, teardown),
    };
    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
