/* SPDX-License-Identifier: Apache-2.0
 *
 * test_conf_inert.c - slurm.conf keywords with no counterpart in Drover
 * (src/conf/conf_inert.c): ONLY values accepted or refused with file:line,
 * NO_EFFECT notices recorded, Shared= as OverSubscribe=, the partition
 * and node rows, and every row of the table behaving as one of the two;
 * MpiDefault, GroupUpdateTime and WaitTime parsed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "conf/conf.h"
#include "conf/conf_private.h"

#define NODES "NodeName=n1 CPUs=1\n"

static struct slurm_conf *parse_ok(const char *text)
{
    drv_error_t error = {0};
    struct slurm_conf *conf = conf_parse("slurm.conf", text, "", &error);

    if (!conf)
        fail_msg("\"%s\" refused: %s", text, error.text);
    return conf;
}

/* The error text of a refused 'text'. */
static const char *refused(const char *text)
{
    static drv_error_t error;
    struct slurm_conf *conf;

    memset(&error, 0, sizeof(error));
    errno = 0;
    if ((conf = conf_parse("slurm.conf", text, "", &error))) {
        conf_destroy(conf);
        fail_msg("\"%s\" was accepted", text);
    }
    assert_int_equal(errno, EINVAL);
    return error.text;
}

static void only_value_is_accepted_any_case(void **state)
{
    struct slurm_conf *c = parse_ok("AuthType=AUTH/Munge\n"
                                    "JobAcctGatherType=jobacct_gather/linux\n"
                                    "SuspendTime=NONE\nUsePAM=0\n"
                                    "SlurmdUser=root\nLicenses=\n" NODES);

    (void)state;
    assert_int_equal(c->notice_count, 0);
    conf_destroy(c);
}

static void other_value_is_refused_with_file_and_line(void **state)
{
    (void)state;
    assert_string_equal(refused("ClusterName=c\nAuthType=auth/jwt\n"),
                        "slurm.conf:2: AuthType=auth/jwt: Drover "
                        "authenticates with MUNGE only (auth/munge)");
    assert_string_equal(refused("SuspendTime=600\n"),
                        "slurm.conf:1: SuspendTime=600: power saving is not "
                        "supported (NONE, INFINITE or -1)");
    assert_string_equal(refused("Licenses=matlab:4\n"),
                        "slurm.conf:1: Licenses=matlab:4: licenses are not "
                        "supported (sbatch -L is refused)");
    assert_string_equal(refused("BackupController=ctl2\n"),
                        "slurm.conf:1: BackupController=ctl2: use a second "
                        "SlurmctldHost= line; controllers replicate through "
                        "Raft (docs/ha.md)");
}

static void no_effect_records_a_notice(void **state)
{
    struct slurm_conf *c = parse_ok("ClusterName=c\nFastSchedule=1\n"
                                    "DebugFlags=Backfill,Gres\n"
                                    "TreeWidth=\n" NODES);

    (void)state;
    assert_int_equal(c->notice_count, 2); /* not the empty TreeWidth= */
    assert_string_equal(c->notices[0],
                        "slurm.conf:2: FastSchedule=1 has no effect in "
                        "Drover: removed from Slurm; nodes are scheduled by "
                        "their configured sizes");
    assert_string_equal(c->notices[1],
                        "slurm.conf:3: DebugFlags=Backfill,Gres has no "
                        "effect in Drover: raise SlurmctldDebug instead");
    conf_destroy(c);
}

static void partition_rows(void **state)
{
    struct slurm_conf *c = parse_ok(NODES "PartitionName=p Nodes=n1 "
                                    "AllocNodes=all LLN=no QOS= "
                                    "TRESBillingWeights=CPU=1.0\n");

    (void)state;
    assert_int_equal(c->notice_count, 1);
    assert_string_equal(c->notices[0],
                        "slurm.conf:2: PartitionName=p: "
                        "TRESBillingWeights=CPU=1.0 has no effect in "
                        "Drover: billing TRES is not counted");
    conf_destroy(c);
    assert_string_equal(refused(NODES "PartitionName=p Nodes=n1 "
                                "ExclusiveUser=YES\n"),
                        "slurm.conf:2: PartitionName=p: ExclusiveUser=YES: "
                        "nodes are not reserved for one user (NO)");
    assert_string_equal(refused(NODES "PartitionName=p Nodes=n1 QOS=high\n"),
                        "slurm.conf:2: PartitionName=p: QOS=high: partition "
                        "QOS limits are not supported");
}

static void shared_is_oversubscribe(void **state)
{
    struct slurm_conf *c = parse_ok(NODES "PartitionName=a Nodes=n1 "
                                    "Shared=FORCE:2\n"
                                    "PartitionName=b Nodes=n1 "
                                    "Shared=EXCLUSIVE\n");

    (void)state;
    assert_int_equal(c->partitions[0].oversubscribe, 2);
    assert_true(c->partitions[0].oversubscribe_force);
    assert_true(c->partitions[1].exclusive_nodes);
    assert_int_equal(c->notice_count, 0);
    conf_destroy(c);
    assert_non_null(strstr(refused(NODES "PartitionName=a Nodes=n1 "
                                   "Shared=maybe\n"),
                           "Shared=maybe: expected NO, EXCLUSIVE, YES[:N] "
                           "or FORCE[:N]"));
}

static void node_rows(void **state)
{
    struct slurm_conf *c = parse_ok("NodeName=n1 CPUs=1 CoreSpecCount=0 "
                                    "MemSpecLimit=0 Comment=\"rack 4\"\n");

    (void)state;
    assert_int_equal(c->node_count, 1);
    assert_int_equal(c->notice_count, 1);
    assert_string_equal(c->notices[0],
                        "slurm.conf:1: NodeName=n1: Comment=rack 4 has no "
                        "effect in Drover: node comments are not kept");
    conf_destroy(c);
    assert_string_equal(refused("NodeName=n1 CPUs=4 CPUSpecList=0,1\n"),
                        "slurm.conf:1: NodeName=n1: CPUSpecList=0,1: there "
                        "is no core specialization");
    assert_string_equal(refused("NodeName=n1 CPUs=4 CoreSpecCount=2\n"),
                        "slurm.conf:1: NodeName=n1: CoreSpecCount=2: there "
                        "is no core specialization (0)");
}

/* 'key=value' placed where its scope belongs. */
static void line_for(const struct conf_inert *k, const char *value,
                     char *buf, size_t size)
{
    switch (k->scope) {
    case CONF_INERT_GLOBAL:
        snprintf(buf, size, "%s=%s\n" NODES, k->name, value);
        break;
    case CONF_INERT_PARTITION:
        snprintf(buf, size, NODES "PartitionName=p Nodes=n1 %s=%s\n",
                 k->name, value);
        break;
    case CONF_INERT_NODE:
        snprintf(buf, size, "NodeName=n1 CPUs=1 %s=%s\n", k->name, value);
        break;
    }
}

/* Every row is reached by the parser (no table of real keywords shadows
 * it) and behaves as its kind says: nothing is accepted silently. */
static void every_row_refuses_or_notices(void **state)
{
    size_t count;
    const struct conf_inert *t = conf__inert_table(&count);
    char text[512];

    (void)state;
    assert_true(count > 100);
    for (size_t i = 0; i < count; i++) {
        drv_error_t error = {0};
        struct slurm_conf *c;

        assert_non_null(t[i].why);
        line_for(&t[i], "drover-no-such-value", text, sizeof(text));
        c = conf_parse("slurm.conf", text, "", &error);
        if (t[i].only) {
            if (c)
                fail_msg("%s: a bad value was accepted", t[i].name);
            assert_non_null(strstr(error.text, t[i].why));
            if (t[i].values[0]) { /* and its first value is accepted */
                line_for(&t[i], t[i].values[0], text, sizeof(text));
                c = parse_ok(text);
                assert_int_equal(c->notice_count, 0);
                conf_destroy(c);
            }
        } else {
            if (!c)
                fail_msg("%s: refused: %s", t[i].name, error.text);
            if (c->notice_count != 1
                || !strstr(c->notices[0], "has no effect in Drover"))
                fail_msg("%s: no notice", t[i].name);
            conf_destroy(c);
        }
    }
}

/* A refusal says everything within drv_error_t's 160 bytes for a usual
 * path, a long value and a partition's or node's name: nothing cut. */
static void every_refusal_fits_in_an_error(void **state)
{
    size_t count;
    const struct conf_inert *t = conf__inert_table(&count);
    const char *path = "/etc/slurm/slurm.conf";
    char text[512];

    (void)state;
    for (size_t i = 0; i < count; i++) {
        drv_error_t error = {0};
        struct slurm_conf *c;

        if (!t[i].only)
            continue;
        line_for(&t[i], "a-value-of-20-chars", text, sizeof(text));
        c = conf_parse(path, text, "", &error);
        assert_null(c);
        if (strlen(error.text) + 1 >= sizeof(error.text)
            || error.text[strlen(error.text) - 1] == ' ')
            fail_msg("%s: cut: %s", t[i].name, error.text);
        if (t[i].values[0] && !strchr(error.text, '('))
            fail_msg("%s: the values are not named: %s", t[i].name,
                     error.text);
    }
}

/* The keywords that were accepted silently before issue 13, each now in
 * the table or implemented: a keyword dropped from both would be an
 * unknown-keyword warning, which this catches as "not in the table". */
static void former_ignored_keywords_are_covered(void **state)
{
    static const char *const implemented[] = {
        "MpiDefault", "GroupUpdateTime", "WaitTime",
    };
    static const char *const global[] = {
        "AccountingStorageBackupHost", "AccountingStorageExternalHost",
        "AccountingStorageLoc", "AccountingStorageParameters",
        "AccountingStoragePass", "AccountingStorageUser",
        "AccountingStoreFlags", "AccountingStoreJobComment",
        "AcctGatherEnergyType", "AcctGatherFilesystemType",
        "AcctGatherInterconnectType", "AcctGatherNodeFreq",
        "AcctGatherProfileType", "AllowSpecResourcesUsage", "AuthType",
        "BackupAddr", "BackupController", "BatchStartTimeout",
        "BurstBufferType", "CacheGroups", "CheckpointType",
        "CliFilterPlugins", "CoreSpecPlugin", "CpuFreqDef",
        "CpuFreqGovernors", "CredType", "DebugFlags", "DefaultStorageHost",
        "DefaultStorageLoc", "DefaultStoragePass", "DefaultStoragePort",
        "DefaultStorageType", "DefaultStorageUser", "DependencyParameters",
        "EioTimeout", "EpilogMsgTime", "ExtSensorsFreq", "ExtSensorsType",
        "FastSchedule", "FederationParameters", "GetEnvTimeout",
        "GpuFreqDef", "GroupUpdateForce",
        "InteractiveStepOptions", "JobAcctGatherFrequency",
        "JobAcctGatherParams", "JobAcctGatherType", "JobCompHost",
        "JobCompLoc", "JobCompParams", "JobCompPass", "JobCompPort",
        "JobCompType", "JobCompUser", "JobCredentialPrivateKey",
        "JobCredentialPublicCertificate", "JobSubmitPlugins",
        "KeepAliveTime", "LaunchParameters", "LaunchType", "Licenses",
        "LogTimeFormat", "MaxDBDMsgs", "MCSParameters", "MCSPlugin",
        "MemLimitEnforce", "MpiParams", "PluginDir", "PlugStackConfig",
        "PowerParameters", "PowerPlugin", "PrEpParameters", "PrEpPlugins",
        "PriorityParameters", "PrioritySiteFactorParameters",
        "PrioritySiteFactorPlugin", "PropagatePrioProcess", "RebootProgram",
        "ReconfigFlags", "ResumeFailProgram", "ResumeProgram", "ResumeRate",
        "ResumeTimeout", "ResvEpilog", "ResvOverRun", "ResvProlog",
        "SallocDefaultCommand", "SchedulerPort", "SelectTypeParameters",
        "SlurmctldAddr", "SlurmctldPrimaryOffProg", "SlurmctldPrimaryOnProg",
        "SlurmctldSyslogDebug", "SlurmctldTimeout", "SlurmdSyslogDebug",
        "SlurmdUser", "SlurmSchedLogFile", "SlurmSchedLogLevel",
        "SrunPortRange", "SuspendExcNodes", "SuspendExcParts",
        "SuspendProgram", "SuspendRate", "SuspendTime", "SuspendTimeout",
        "SwitchParameters", "SwitchType", "TmpFS", "TopologyParam",
        "TopologyPlugin", "TrackWCKey", "TreeWidth", "UnkillableStepProgram",
        "UnkillableStepTimeout", "UsePAM", "VSizeFactor", "X11Parameters",
    };
    static const char *const part[] = {
        "AllocNodes", "Alternate", "CpuBind", "ExclusiveUser", "LLN",
        "MaxCPUsPerSocket", "PowerDownOnIdle", "QOS", "ReqResv",
        "ResumeTimeout", "SelectTypeParameters", "SuspendTime",
        "SuspendTimeout", "TRESBillingWeights",
    };
    static const char *const node[] = {
        "CoreSpecCount", "CpuBind", "CPUSpecList", "MemSpecLimit",
        "TRESWeights", "Comment", "Extra",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(global) / sizeof(global[0]); i++)
        if (!conf__inert_find(CONF_INERT_GLOBAL, global[i]))
            fail_msg("%s is not in the table", global[i]);
    for (size_t i = 0; i < sizeof(part) / sizeof(part[0]); i++)
        if (!conf__inert_find(CONF_INERT_PARTITION, part[i]))
            fail_msg("PartitionName %s is not in the table", part[i]);
    for (size_t i = 0; i < sizeof(node) / sizeof(node[0]); i++)
        if (!conf__inert_find(CONF_INERT_NODE, node[i]))
            fail_msg("NodeName %s is not in the table", node[i]);
    for (size_t i = 0; i < sizeof(implemented) / sizeof(implemented[0]); i++)
        assert_null(conf__inert_find(CONF_INERT_GLOBAL, implemented[i]));
}

static void implemented_keywords(void **state)
{
    struct slurm_conf *c = parse_ok(NODES);

    (void)state;
    assert_string_equal(c->mpi_default, "none");
    assert_int_equal(c->group_update_time_s, 600);
    assert_int_equal(c->wait_time_s, 0);
    conf_destroy(c);
    c = parse_ok("MpiDefault=PMIx\nGroupUpdateTime=30\nWaitTime=5\n" NODES);
    assert_string_equal(c->mpi_default, "pmix");
    assert_int_equal(c->group_update_time_s, 30);
    assert_int_equal(c->wait_time_s, 5);
    assert_int_equal(c->notice_count, 0);
    conf_destroy(c);
    assert_string_equal(refused("MpiDefault=openmpi\n"),
                        "slurm.conf:1: MpiDefault=openmpi: expected none, "
                        "pmix or pmix_v4 (srun --mpi=list)");
    assert_non_null(strstr(refused("WaitTime=soon\n"), "not a number"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(only_value_is_accepted_any_case),
        cmocka_unit_test(other_value_is_refused_with_file_and_line),
        cmocka_unit_test(no_effect_records_a_notice),
        cmocka_unit_test(partition_rows),
        cmocka_unit_test(shared_is_oversubscribe),
        cmocka_unit_test(node_rows),
        cmocka_unit_test(every_row_refuses_or_notices),
        cmocka_unit_test(every_refusal_fits_in_an_error),
        cmocka_unit_test(former_ignored_keywords_are_covered),
        cmocka_unit_test(implemented_keywords),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
