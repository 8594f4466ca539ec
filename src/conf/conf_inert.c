/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_inert.c - slurm.conf keywords with no counterpart in Drover
 *
 * One table for the global keywords and those of PartitionName= and
 * NodeName= lines that Drover has nothing to do with.  Each row either
 * accepts only the values whose behaviour is Drover's own and refuses the
 * rest (ONLY), or accepts any value and records a notice, which
 * droverctld logs once at start (NO_EFFECT).  Nothing is accepted
 * silently (issue 13).  An empty value ("Key=") is Slurm's default, which
 * is Drover's behaviour for every row: accepted, no notice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf/conf_private.h"

#define G CONF_INERT_GLOBAL
#define P CONF_INERT_PARTITION
#define N CONF_INERT_NODE

/* ONLY(scope, key, why, accepted values...): the values any case; none
 * given: every value refused.  NO_EFFECT(scope, key, why). */
#define ONLY(scope, key, why, ...) \
    { scope, key, true, why, { __VA_ARGS__ } }
#define NO_EFFECT(scope, key, why) { scope, key, false, why, { NULL } }

#define POWER_SAVING "power saving is off (SuspendTime)"
#define JOBCOMP "there is no job completion plugin; sacct reads droverdbd"
#define DBD_CONF "droverdbd reads its database settings from slurmdbd.conf"
#define DEFAULT_STORAGE "a default of AccountingStorage* and JobComp* " \
    "keywords; set AccountingStorageHost and slurmdbd.conf instead"
#define BACKUP_CTLD "use a second SlurmctldHost= line; controllers " \
    "replicate through Raft (docs/ha.md)"

static const struct conf_inert inert_keys[] = {
    /* Plugins: only the one whose behaviour Drover has. */
    ONLY(G, "AuthType", "Drover authenticates with MUNGE only",
         "auth/munge"),
    ONLY(G, "CredType", "job credentials are MUNGE credentials",
         "cred/munge"),
    ONLY(G, "LaunchType", "srun launches steps through the controller and "
         "droverd", "launch/slurm"),
    ONLY(G, "SwitchType", "there is no interconnect switch plugin",
         "switch/none"),
    ONLY(G, "SlurmdUser", "droverd runs as root", "root", "0"),
    ONLY(G, "AcctGatherEnergyType", "no energy data is gathered",
         "acct_gather_energy/none"),
    ONLY(G, "AcctGatherFilesystemType", "no filesystem data is gathered",
         "acct_gather_filesystem/none"),
    ONLY(G, "AcctGatherInterconnectType", "no interconnect data is "
         "gathered", "acct_gather_interconnect/none"),
    ONLY(G, "AcctGatherProfileType", "no job profiles are gathered",
         "acct_gather_profile/none"),
    ONLY(G, "ExtSensorsType", "there are no external sensors",
         "ext_sensors/none"),
    ONLY(G, "CheckpointType", "jobs are not checkpointed (the keyword was "
         "removed from Slurm)", "checkpoint/none"),
    ONLY(G, "CoreSpecPlugin", "there is no core specialization",
         "core_spec/none"),
    ONLY(G, "MCSPlugin", "there are no MCS labels", "mcs/none"),
    ONLY(G, "PowerPlugin", "there is no power management", "power/none"),
    ONLY(G, "PrEpPlugins", "Drover runs Prolog and Epilog scripts itself",
         "prep/script"),
    ONLY(G, "PrioritySiteFactorPlugin", "job priorities have no site "
         "factor", "site_factor/none"),
    ONLY(G, "TopologyPlugin", "there is no network topology",
         "topology/none"),
    ONLY(G, "JobCompType", JOBCOMP, "jobcomp/none"),
    ONLY(G, "JobAcctGatherType", "Drover gathers usage", /* cgroup, wait4 */
         "jobacct_gather/none",
         "jobacct_gather/linux", "jobacct_gather/cgroup"),
    /* Slurm prints SuspendTime=INFINITE when it is off. */
    ONLY(G, "SuspendTime", "power saving is not supported", "NONE",
         "INFINITE", "-1"),
    ONLY(G, "UsePAM", "jobs get no PAM sessions", "0", "no", "false"),
    ONLY(G, "TrackWCKey", "there are no wckeys", "0", "no", "false"),
    /* Unsupported: every value refused. */
    ONLY(G, "BurstBufferType", "burst buffers are not supported"),
    ONLY(G, "CliFilterPlugins", "command line filter plugins are not "
         "supported"),
    ONLY(G, "JobSubmitPlugins", "job submit plugins are not supported"),
    ONLY(G, "Licenses", "licenses are not supported (sbatch -L is "
         "refused)"),
    ONLY(G, "BackupController", BACKUP_CTLD),
    ONLY(G, "BackupAddr", BACKUP_CTLD),

    /* Accepted, logged by droverctld. */
    NO_EFFECT(G, "AccountingStorageBackupHost", "there is one droverdbd; "
              "the controller spools records on disk while it is away"),
    NO_EFFECT(G, "AccountingStorageExternalHost", "accounting goes to one "
              "droverdbd only"),
    NO_EFFECT(G, "AccountingStorageLoc", DBD_CONF),
    NO_EFFECT(G, "AccountingStoragePass", DBD_CONF),
    NO_EFFECT(G, "AccountingStorageUser", DBD_CONF),
    NO_EFFECT(G, "AccountingStorageParameters", "the link to droverdbd "
              "takes no parameters"),
    NO_EFFECT(G, "AccountingStoreFlags", "job scripts, environments and "
              "comments are not stored in accounting"),
    NO_EFFECT(G, "AccountingStoreJobComment", "job comments are not "
              "stored in accounting"),
    NO_EFFECT(G, "AcctGatherNodeFreq", "no node energy or sensor data is "
              "gathered"),
    NO_EFFECT(G, "AllowSpecResourcesUsage", "there is no core "
              "specialization"),
    NO_EFFECT(G, "BatchStartTimeout", "a batch launch is not timed; a node "
              "that stops answering is handled by SlurmdTimeout"),
    NO_EFFECT(G, "CacheGroups", "removed from Slurm; the controller caches "
              "users and groups for GroupUpdateTime"),
    NO_EFFECT(G, "CpuFreqDef", "Drover does not set CPU frequencies"),
    NO_EFFECT(G, "CpuFreqGovernors", "Drover does not set CPU frequencies"),
    NO_EFFECT(G, "DebugFlags", "raise SlurmctldDebug instead"),
    NO_EFFECT(G, "DefaultStorageHost", DEFAULT_STORAGE),
    NO_EFFECT(G, "DefaultStorageLoc", DEFAULT_STORAGE),
    NO_EFFECT(G, "DefaultStoragePass", DEFAULT_STORAGE),
    NO_EFFECT(G, "DefaultStoragePort", DEFAULT_STORAGE),
    NO_EFFECT(G, "DefaultStorageType", DEFAULT_STORAGE),
    NO_EFFECT(G, "DefaultStorageUser", DEFAULT_STORAGE),
    NO_EFFECT(G, "DependencyParameters", "job dependencies take no "
              "parameters"),
    NO_EFFECT(G, "EioTimeout", "srun and the step daemons keep their own "
              "I/O timeouts"),
    NO_EFFECT(G, "EpilogMsgTime", "the controller takes epilog messages "
              "without pacing them"),
    NO_EFFECT(G, "ExtSensorsFreq", "there are no external sensors"),
    NO_EFFECT(G, "FastSchedule", "removed from Slurm; nodes are scheduled "
              "by their configured sizes"),
    NO_EFFECT(G, "FederationParameters", "there are no federations"),
    NO_EFFECT(G, "GetEnvTimeout", "droverd gives --get-user-env its own "
              "timeout"),
    NO_EFFECT(G, "GpuFreqDef", "Drover does not set GPU frequencies"),
    NO_EFFECT(G, "GroupUpdateForce", "the controller looks users and "
              "groups up again after GroupUpdateTime in any case"),
    NO_EFFECT(G, "InteractiveStepOptions", "salloc runs its command "
              "itself, with no interactive step"),
    NO_EFFECT(G, "JobAcctGatherFrequency", "usage is taken when a step "
              "ends, not sampled"),
    NO_EFFECT(G, "JobAcctGatherParams", "Drover gathers usage from "
              "cgroups and wait4() as it is"),
    NO_EFFECT(G, "JobCompHost", JOBCOMP),
    NO_EFFECT(G, "JobCompLoc", JOBCOMP),
    NO_EFFECT(G, "JobCompParams", JOBCOMP),
    NO_EFFECT(G, "JobCompPass", JOBCOMP),
    NO_EFFECT(G, "JobCompPort", JOBCOMP),
    NO_EFFECT(G, "JobCompUser", JOBCOMP),
    NO_EFFECT(G, "JobCredentialPrivateKey", "job credentials are MUNGE "
              "credentials"),
    NO_EFFECT(G, "JobCredentialPublicCertificate", "job credentials are "
              "MUNGE credentials"),
    NO_EFFECT(G, "KeepAliveTime", "the daemons set no TCP keep-alive time"),
    NO_EFFECT(G, "LaunchParameters", "srun launches steps one way; its "
              "options are not read"),
    NO_EFFECT(G, "LogTimeFormat", "Drover logs ISO 8601 times with "
              "milliseconds"),
    NO_EFFECT(G, "MaxDBDMsgs", "the controller spools accounting records "
              "on disk"),
    NO_EFFECT(G, "MCSParameters", "there are no MCS labels"),
    NO_EFFECT(G, "MemLimitEnforce", "removed from Slurm; cgroup.conf's "
              "ConstrainRAMSpace limits memory"),
    NO_EFFECT(G, "MpiParams", "srun's PMIx support takes no parameters"),
    NO_EFFECT(G, "PluginDir", "there are no plugins to load"),
    NO_EFFECT(G, "PlugStackConfig", "SPANK plugins are not loaded"),
    NO_EFFECT(G, "PowerParameters", "there is no power management"),
    NO_EFFECT(G, "PrEpParameters", "Drover runs Prolog and Epilog scripts "
              "itself"),
    NO_EFFECT(G, "PriorityParameters", "the priority plugins take no "
              "parameters"),
    NO_EFFECT(G, "PrioritySiteFactorParameters", "job priorities have no "
              "site factor"),
    NO_EFFECT(G, "PropagatePrioProcess", "tasks do not take srun's "
              "scheduling priority"),
    NO_EFFECT(G, "RebootProgram", "nodes are not rebooted by Drover"),
    NO_EFFECT(G, "ReconfigFlags", "the controller reads slurm.conf at "
              "start only"),
    NO_EFFECT(G, "ResumeFailProgram", POWER_SAVING),
    NO_EFFECT(G, "ResumeProgram", POWER_SAVING),
    NO_EFFECT(G, "ResumeRate", POWER_SAVING),
    NO_EFFECT(G, "ResumeTimeout", POWER_SAVING),
    NO_EFFECT(G, "SuspendExcNodes", POWER_SAVING),
    NO_EFFECT(G, "SuspendExcParts", POWER_SAVING),
    NO_EFFECT(G, "SuspendProgram", POWER_SAVING),
    NO_EFFECT(G, "SuspendRate", POWER_SAVING),
    NO_EFFECT(G, "SuspendTimeout", POWER_SAVING),
    NO_EFFECT(G, "ResvEpilog", "reservations run no programs"),
    NO_EFFECT(G, "ResvProlog", "reservations run no programs"),
    NO_EFFECT(G, "ResvOverRun", "jobs in a reservation get no overrun"),
    NO_EFFECT(G, "SallocDefaultCommand", "removed from Slurm; salloc runs "
              "the command given, else the user's shell"),
    NO_EFFECT(G, "SchedulerPort", "removed from Slurm; there is no "
              "external scheduler port"),
    NO_EFFECT(G, "SelectTypeParameters", "Drover counts CPUs and, for jobs "
              "that ask, memory"),
    NO_EFFECT(G, "SlurmctldAddr", "commands and nodes reach the controller "
              "at its SlurmctldHost address"),
    NO_EFFECT(G, "SlurmctldPrimaryOffProg", "no program runs when a "
              "controller gains or loses the lead"),
    NO_EFFECT(G, "SlurmctldPrimaryOnProg", "no program runs when a "
              "controller gains or loses the lead"),
    NO_EFFECT(G, "SlurmctldSyslogDebug", "the daemons log to their log "
              "file or stderr"),
    NO_EFFECT(G, "SlurmdSyslogDebug", "the daemons log to their log file "
              "or stderr"),
    NO_EFFECT(G, "SlurmctldTimeout", "a Raft election decides a takeover "
              "within about a second (docs/ha.md)"),
    NO_EFFECT(G, "SlurmSchedLogFile", "the scheduler logs into "
              "SlurmctldLogFile"),
    NO_EFFECT(G, "SlurmSchedLogLevel", "the scheduler logs into "
              "SlurmctldLogFile"),
    NO_EFFECT(G, "SrunPortRange", "srun listens on ports the system "
              "picks"),
    NO_EFFECT(G, "SwitchParameters", "there is no interconnect switch "
              "plugin"),
    NO_EFFECT(G, "TmpFS", "TmpDisk is taken as configured"),
    NO_EFFECT(G, "TopologyParam", "there is no network topology"),
    NO_EFFECT(G, "TreeWidth", "the controller talks to each node "
              "directly"),
    NO_EFFECT(G, "UnkillableStepProgram", "no program runs for a step "
              "that cannot be killed"),
    NO_EFFECT(G, "UnkillableStepTimeout", "no program runs for a step "
              "that cannot be killed"),
    NO_EFFECT(G, "VSizeFactor", "virtual memory is not limited"),
    NO_EFFECT(G, "X11Parameters", "X11 forwarding is not supported"),

    /* PartitionName= lines */
    ONLY(P, "AllocNodes", "jobs may be submitted from any host", "ALL"),
    ONLY(P, "ExclusiveUser", "nodes are not reserved for one user", "NO"),
    ONLY(P, "LLN", "nodes are chosen in order, not by least load", "NO"),
    ONLY(P, "PowerDownOnIdle", "there is no power saving", "NO"),
    ONLY(P, "ReqResv", "jobs need no reservation", "NO"),
    ONLY(P, "MaxCPUsPerSocket", "CPUs are not limited per socket",
         "UNLIMITED"),
    ONLY(P, "QOS", "partition QOS limits are not supported"),
    NO_EFFECT(P, "Alternate", "jobs are not moved to another partition"),
    NO_EFFECT(P, "CpuBind", "srun's --cpu-bind and TaskPluginParam decide "
              "the binding"),
    NO_EFFECT(P, "ResumeTimeout", POWER_SAVING),
    NO_EFFECT(P, "SuspendTime", POWER_SAVING),
    NO_EFFECT(P, "SuspendTimeout", POWER_SAVING),
    NO_EFFECT(P, "SelectTypeParameters", "Drover counts CPUs and, for jobs "
              "that ask, memory"),
    NO_EFFECT(P, "TRESBillingWeights", "billing TRES is not counted"),

    /* NodeName= lines */
    ONLY(N, "CoreSpecCount", "there is no core specialization", "0"),
    ONLY(N, "CPUSpecList", "there is no core specialization"),
    ONLY(N, "MemSpecLimit", "there is no memory specialization", "0"),
    NO_EFFECT(N, "CpuBind", "srun's --cpu-bind and TaskPluginParam decide "
              "the binding"),
    NO_EFFECT(N, "TRESWeights", "billing TRES is not counted"),
    NO_EFFECT(N, "Comment", "node comments are not kept"),
    NO_EFFECT(N, "Extra", "node extra data is not kept"),
};

#define INERT_COUNT (sizeof(inert_keys) / sizeof(inert_keys[0]))

const struct conf_inert *conf__inert_find(enum conf_inert_scope scope,
                                          const char *name)
{
    for (size_t i = 0; i < INERT_COUNT; i++)
        if (inert_keys[i].scope == scope
            && !strcasecmp(inert_keys[i].name, name))
            return &inert_keys[i];
    return NULL;
}

const struct conf_inert *conf__inert_table(size_t *count)
{
    *count = INERT_COUNT;
    return inert_keys;
}

static bool accepted(const struct conf_inert *k, const char *value)
{
    for (size_t i = 0; i < CONF_INERT_MAX_VALUES && k->values[i]; i++)
        if (!strcasecmp(k->values[i], value))
            return true;
    return false;
}

/* "why (a, b or c)"; just "why" when nothing is accepted. */
static void refusal(const struct conf_inert *k, char *buf, size_t size)
{
    size_t n = 0, len;

    for (n = 0; n < CONF_INERT_MAX_VALUES && k->values[n]; n++)
        ;
    len = (size_t)snprintf(buf, size, "%s", k->why);
    for (size_t i = 0; i < n && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s%s",
                                i == 0 ? " (" : i + 1 < n ? ", " : " or ",
                                k->values[i], i + 1 == n ? ")" : "");
}

/* "PartitionName=debug: " before a partition's or node's keyword. */
static const char *record_of(const struct conf_inert *k,
                             const struct conf_line *l, char *buf,
                             size_t size)
{
    if (k->scope == CONF_INERT_GLOBAL)
        return "";
    snprintf(buf, size, "%s=%s: ", l->pairs[0].key, l->pairs[0].value);
    return buf;
}

int conf__notice_add(char ***v, size_t *n, const struct conf_line *l,
                     const char *record, const struct conf_pair *kv,
                     const char *why, drv_error_t *error)
{
    char **grown, *s;

    if (!(grown = realloc(*v, (*n + 1) * sizeof(*grown))))
        return conf__enomem(error);
    *v = grown;
    if (asprintf(&s, "%s:%d: %s%s=%s has no effect in Drover: %s", l->file,
                 l->line, record, kv->key, kv->value, why) < 0)
        return conf__enomem(error);
    (*v)[(*n)++] = s;
    return 0;
}

void conf__notice_list_free(char ***v, size_t *n)
{
    for (size_t i = 0; i < *n; i++)
        free((*v)[i]);
    free(*v);
    *v = NULL;
    *n = 0;
}

static int add_notice(struct slurm_conf *conf, const struct conf_inert *k,
                      const struct conf_line *l, const struct conf_pair *kv,
                      const char *record, drv_error_t *error)
{
    return conf__notice_add(&conf->notices, &conf->notice_count, l, record,
                            kv, k->why, error);
}

int conf__inert_apply(struct slurm_conf *conf, const struct conf_inert *k,
                      const struct conf_line *l, const struct conf_pair *kv,
                      drv_error_t *error)
{
    char buf[160], why[256];
    const char *record;

    if (!*kv->value) /* Slurm's default, which is Drover's behaviour */
        return 0;
    record = record_of(k, l, buf, sizeof(buf));
    if (!k->only)
        return add_notice(conf, k, l, kv, record, error);
    if (accepted(k, kv->value))
        return 0;
    refusal(k, why, sizeof(why));
    return conf__einval(error, "%s:%d: %s%s=%s: %s", l->file, l->line, record,
                        kv->key, kv->value, why);
}

void conf__notices_clear(struct slurm_conf *conf)
{
    conf__notice_list_free(&conf->notices, &conf->notice_count);
}

int conf__inert_check(const struct conf_inert *k, const char *value,
                      char *why, size_t size)
{
    if (!*value || (k->only && accepted(k, value)))
        return 0;
    if (k->only)
        refusal(k, why, size);
    else
        snprintf(why, size, "has no effect in Drover: %s", k->why);
    return -1;
}
