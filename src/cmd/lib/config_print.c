/* SPDX-License-Identifier: Apache-2.0
 *
 * config_print.c - `scontrol show config` in Slurm 22.05's layout
 */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/lib/config_print.h"
#include "cmd/lib/format.h"
#include "cmd/lib/jsonget.h"
#include "common/timefmt.h"

/* Slurm's keys in its order.  'unit' follows numbers from the controller;
 * 'dflt' is printed when the controller sends no value (NULL: "(null)").
 */
static const struct config_key {
    const char *key;
    const char *unit;
    const char *dflt;
} config_keys[] = {
    {"AccountingStorageBackupHost", "", "(null)"},
    {"AccountingStorageEnforce", "", "none"},
    {"AccountingStorageHost", "", "(null)"},
    {"AccountingStorageExternalHost", "", "(null)"},
    {"AccountingStorageParameters", "", "(null)"},
    {"AccountingStoragePort", "", "0"},
    {"AccountingStorageTRES", "", "cpu,mem,energy,node,billing,fs/disk,vmem,pages"},
    {"AccountingStorageType", "", "accounting_storage/none"},
    {"AccountingStorageUser", "", "root"},
    {"AccountingStoreFlags", "", "(null)"},
    {"AcctGatherEnergyType", "", "acct_gather_energy/none"},
    {"AcctGatherFilesystemType", "", "acct_gather_filesystem/none"},
    {"AcctGatherInterconnectType", "", "acct_gather_interconnect/none"},
    {"AcctGatherNodeFreq", "", "0 sec"},
    {"AcctGatherProfileType", "", "acct_gather_profile/none"},
    {"AllowSpecResourcesUsage", "", "No"},
    {"AuthAltTypes", "", "(null)"},
    {"AuthAltParameters", "", "(null)"},
    {"AuthInfo", "", "(null)"},
    {"AuthType", "", "auth/munge"},
    {"BatchStartTimeout", "", "10 sec"},
    {"BcastExclude", "", "/lib,/usr/lib,/lib64,/usr/lib64"},
    {"BcastParameters", "", "(null)"},
    {"BOOT_TIME", "", NULL},
    {"BurstBufferType", "", "(null)"},
    {"CliFilterPlugins", "", "(null)"},
    {"ClusterName", "", NULL},
    {"CommunicationParameters", "", "(null)"},
    {"CompleteWait", "", "0 sec"},
    {"CoreSpecPlugin", "", "core_spec/none"},
    {"CpuFreqDef", "", "Unknown"},
    {"CpuFreqGovernors", "", "OnDemand,Performance,UserSpace"},
    {"CredType", "", "cred/munge"},
    {"DebugFlags", "", "(null)"},
    {"DefMemPerNode", "", "UNLIMITED"},
    {"DependencyParameters", "", "(null)"},
    {"DisableRootJobs", "", "No"},
    {"EioTimeout", "", "60"},
    {"EnforcePartLimits", "", "NO"},
    {"Epilog", "", "(null)"},
    {"EpilogMsgTime", "", "2000 usec"},
    {"EpilogSlurmctld", "", "(null)"},
    {"ExtSensorsType", "", "ext_sensors/none"},
    {"ExtSensorsFreq", "", "0 sec"},
    {"FairShareDampeningFactor", "", "1"},
    {"FederationParameters", "", "(null)"},
    {"FirstJobId", "", NULL},
    {"GetEnvTimeout", "", "2 sec"},
    {"GresTypes", "", NULL},
    {"GpuFreqDef", "", "high,memory=high"},
    {"GroupUpdateForce", "", "1"},
    {"GroupUpdateTime", "sec", "600 sec"},
    {"HASH_VAL", "", "Match"},
    {"HealthCheckInterval", "sec", "0 sec"},
    {"HealthCheckNodeState", "", "ANY"},
    {"HealthCheckProgram", "", "(null)"},
    {"InactiveLimit", "sec", "0 sec"},
    {"InteractiveStepOptions", "", "--interactive --preserve-env --pty $SHELL"},
    {"JobAcctGatherFrequency", "", "30"},
    {"JobAcctGatherType", "", "jobacct_gather/none"},
    {"JobAcctGatherParams", "", "(null)"},
    {"JobCompHost", "", "localhost"},
    {"JobCompLoc", "", "/var/log/slurm_jobcomp.log"},
    {"JobCompPort", "", "0"},
    {"JobCompType", "", "jobcomp/none"},
    {"JobCompUser", "", "root"},
    {"JobContainerType", "", "job_container/none"},
    {"JobCredentialPrivateKey", "", "(null)"},
    {"JobCredentialPublicCertificate", "", "(null)"},
    {"JobDefaults", "", "(null)"},
    {"JobFileAppend", "", "0"},
    {"JobRequeue", "", "1"},
    {"JobSubmitPlugins", "", "(null)"},
    {"KillOnBadExit", "", "0"},
    {"KillWait", "sec", NULL},
    {"LaunchParameters", "", "(null)"},
    {"LaunchType", "", "launch/slurm"},
    {"Licenses", "", "(null)"},
    {"LogTimeFormat", "", "iso8601_ms"},
    {"MailDomain", "", "(null)"},
    {"MailProg", "", "/bin/mail"},
    {"MaxArraySize", "", NULL},
    {"MaxDBDMsgs", "", "20112"},
    {"MaxJobCount", "", NULL},
    {"MaxJobId", "", "67043328"},
    {"MaxMemPerNode", "", "UNLIMITED"},
    {"MaxNodeCount", "", NULL},
    {"MaxStepCount", "", "40000"},
    {"MaxTasksPerNode", "", "512"},
    {"MCSPlugin", "", "mcs/none"},
    {"MCSParameters", "", "(null)"},
    {"MessageTimeout", "sec", NULL},
    {"MinJobAge", "sec", NULL},
    {"MpiDefault", "", "none"},
    {"MpiParams", "", "(null)"},
    {"MULTIPLE_SLURMD", "", "Yes"},
    {"NEXT_JOB_ID", "", NULL},
    {"NodeFeaturesPlugins", "", "(null)"},
    {"OverTimeLimit", "", "0 min"},
    {"PluginDir", "", "(null)"},
    {"PlugStackConfig", "", "(null)"},
    {"PowerParameters", "", "(null)"},
    {"PowerPlugin", "", ""},
    {"PreemptMode", "", "OFF"},
    {"PreemptType", "", "preempt/none"},
    {"PreemptExemptTime", "", "00:00:00"},
    {"PrEpParameters", "", "(null)"},
    {"PrEpPlugins", "", "prep/script"},
    {"PriorityParameters", "", "(null)"},
    {"PrioritySiteFactorParameters", "", "(null)"},
    {"PrioritySiteFactorPlugin", "", "(null)"},
    {"PriorityDecayHalfLife", "", "7-00:00:00"},
    {"PriorityCalcPeriod", "", "00:05:00"},
    {"PriorityFavorSmall", "", "No"},
    {"PriorityFlags", "", ""},
    {"PriorityMaxAge", "", "7-00:00:00"},
    {"PriorityUsageResetPeriod", "", "NONE"},
    {"PriorityType", "", "priority/basic"},
    {"PriorityWeightAge", "", "0"},
    {"PriorityWeightAssoc", "", "0"},
    {"PriorityWeightFairShare", "", "0"},
    {"PriorityWeightJobSize", "", "0"},
    {"PriorityWeightPartition", "", "0"},
    {"PriorityWeightQOS", "", "0"},
    {"PriorityWeightTRES", "", "(null)"},
    {"PrivateData", "", "none"},
    {"ProctrackType", "", NULL},
    {"Prolog", "", "(null)"},
    {"PrologEpilogTimeout", "", "65534"},
    {"PrologSlurmctld", "", "(null)"},
    {"PrologFlags", "", "(null)"},
    {"PropagatePrioProcess", "", "0"},
    {"PropagateResourceLimits", "", "ALL"},
    {"PropagateResourceLimitsExcept", "", "(null)"},
    {"RebootProgram", "", "(null)"},
    {"ReconfigFlags", "", "(null)"},
    {"RequeueExit", "", "(null)"},
    {"RequeueExitHold", "", "(null)"},
    {"ResumeFailProgram", "", "(null)"},
    {"ResumeProgram", "", "(null)"},
    {"ResumeRate", "", "300 nodes/min"},
    {"ResumeTimeout", "", "60 sec"},
    {"ResvEpilog", "", "(null)"},
    {"ResvOverRun", "", "0 min"},
    {"ResvProlog", "", "(null)"},
    {"ReturnToService", "", NULL},
    {"RoutePlugin", "", "route/default"},
    {"SchedulerParameters", "", "(null)"},
    {"SchedulerTimeSlice", "", "30 sec"},
    {"SchedulerType", "", NULL},
    {"ScronParameters", "", "(null)"},
    {"SelectType", "", NULL},
    {"SelectTypeParameters", "", "CR_CORE"},
    {"SlurmUser", "", NULL},
    {"SlurmctldAddr", "", "(null)"},
    {"SlurmctldDebug", "", NULL},
    {"SlurmctldHost[0]", "", NULL},
    {"SlurmctldLogFile", "", NULL},
    {"SlurmctldPort", "", NULL},
    {"SlurmctldSyslogDebug", "", "(null)"},
    {"SlurmctldPrimaryOffProg", "", "(null)"},
    {"SlurmctldPrimaryOnProg", "", "(null)"},
    {"SlurmctldTimeout", "", "120 sec"},
    {"SlurmctldParameters", "", "(null)"},
    {"SlurmdDebug", "", NULL},
    {"SlurmdLogFile", "", NULL},
    {"SlurmdParameters", "", "(null)"},
    {"SlurmdPidFile", "", NULL},
    {"SlurmdPort", "", NULL},
    {"SlurmdSpoolDir", "", NULL},
    {"SlurmdSyslogDebug", "", "(null)"},
    {"SlurmdTimeout", "sec", NULL},
    {"SlurmdUser", "", "root(0)"},
    {"SlurmSchedLogFile", "", "(null)"},
    {"SlurmSchedLogLevel", "", "0"},
    {"SlurmctldPidFile", "", NULL},
    {"SlurmctldPlugstack", "", "(null)"},
    {"SLURM_CONF", "", NULL},
    {"SLURM_VERSION", "", "22.05.8"},
    {"SrunEpilog", "", "(null)"},
    {"SrunPortRange", "", "0-0"},
    {"SrunProlog", "", "(null)"},
    {"StateSaveLocation", "", NULL},
    {"SuspendExcNodes", "", "(null)"},
    {"SuspendExcParts", "", "(null)"},
    {"SuspendProgram", "", "(null)"},
    {"SuspendRate", "", "60 nodes/min"},
    {"SuspendTime", "", "INFINITE"},
    {"SuspendTimeout", "", "30 sec"},
    {"SwitchParameters", "", "(null)"},
    {"SwitchType", "", "switch/none"},
    {"TaskEpilog", "", "(null)"},
    {"TaskPlugin", "", NULL},
    {"TaskPluginParam", "", "(null type)"},
    {"TaskProlog", "", "(null)"},
    {"TCPTimeout", "", "2 sec"},
    {"TmpFS", "", "/tmp"},
    {"TopologyParam", "", "(null)"},
    {"TopologyPlugin", "", "topology/none"},
    {"TrackWCKey", "", "No"},
    {"TreeWidth", "", "50"},
    {"UsePam", "", "No"},
    {"UnkillableStepProgram", "", "(null)"},
    {"UnkillableStepTimeout", "", "60 sec"},
    {"VSizeFactor", "", "0 percent"},
    {"WaitTime", "sec", "0 sec"},
    {"X11Parameters", "", "(null)"},
    {NULL, NULL, NULL},
};

/* Keys printed in another's place when the controller sends them: Slurm's
 * DefMemPerCPU line stands where DefMemPerNode's would (one value, per CPU
 * or per node), likewise MaxMemPerCPU. */
static const struct {
    const char *key;
    const char *alt;
} config_alts[] = {
    {"DefMemPerNode", "DefMemPerCPU"},
    {"MaxMemPerNode", "MaxMemPerCPU"},
};

static const char *config_key_name(const struct config_key *k,
                                   const json_t *conf)
{
    for (size_t i = 0; i < sizeof(config_alts) / sizeof(config_alts[0]); i++)
        if (!strcmp(k->key, config_alts[i].key)
            && json_object_get(conf, config_alts[i].alt))
            return config_alts[i].alt;
    return k->key;
}

/* "slurm(64030)" as Slurm prints SlurmUser. */
static void put_user(struct fmt_buf *b, const char *name)
{
    struct passwd *pw = getpwnam(name);

    if (pw)
        fmt_buf_printf(b, "%s(%u)", name, (unsigned)pw->pw_uid);
    else
        fmt_buf_puts(b, name);
}

static void put_value(struct fmt_buf *b, const struct config_key *k,
                      const json_t *v)
{
    char buf[64];

    if (strcmp(k->key, "BOOT_TIME") == 0 && json_is_integer(v))
        fmt_buf_puts(b, timefmt_stamp((time_t)json_integer_value(v), 0, buf,
                                      sizeof(buf)));
    else if (json_is_integer(v))
        fmt_buf_printf(b, "%lld%s%s", (long long)json_integer_value(v),
                       *k->unit ? " " : "", k->unit);
    else if (json_is_string(v) && strcmp(k->key, "SlurmUser") == 0)
        put_user(b, json_string_value(v));
    else if (json_is_string(v))
        fmt_buf_puts(b, json_string_value(v));
    else
        fmt_buf_puts(b, k->dflt ? k->dflt : "(null)");
}

char *config_sprint(const json_t *resp)
{
    const json_t *conf = json_object_get(resp, "config");
    struct fmt_buf b = {0};
    char stamp[64];
    const json_t *v;

    fmt_buf_printf(&b, "Configuration data as of %s\n",
                   timefmt_stamp((time_t)jint(resp, "now", time(NULL)), 0,
                                 stamp, sizeof(stamp)));
    for (const struct config_key *k = config_keys; k->key; k++) {
        const char *key = config_key_name(k, conf);

        if (strcmp(k->key, "BOOT_TIME") == 0)
            v = json_object_get(resp, "boot_time");
        else if (strcmp(k->key, "NEXT_JOB_ID") == 0)
            v = json_object_get(resp, "next_job_id");
        else
            v = json_object_get(conf, key);
        fmt_buf_printf(&b, "%-23s = ", key);
        put_value(&b, k, v);
        fmt_buf_puts(&b, "\n");
    }
    fmt_buf_printf(&b, "\nSlurmctld(primary) at %s is UP\n",
                   jstr_or(conf, "SlurmctldHost[0]", "localhost"));
    return b.s;
}
