/* SPDX-License-Identifier: Apache-2.0
 *
 * conf.c - slurm.conf: the table of global keywords, line dispatch, and the
 * public entry points
 *
 * conf_parse() reads the whole file into a fresh struct slurm_conf and
 * checks all of it (partitions' Nodes=, gres.conf, cgroup.conf) before
 * returning it, so a caller that reconfigures can keep the old one on
 * failure.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/rlimits.h"
#include "conf/conf.h"
#include "conf/conf_private.h"

enum key_type {
    KEY_STRING,    /* char *; "Key=" restores the default */
    KEY_UINT32,    /* uint32_t, 0..max */
    KEY_PORT,      /* uint16_t; "6817", or "6817-6818" (the first is used) */
    KEY_DEBUG,     /* char *, a Slurm log level name, or 0-9 */
    KEY_CTLD_HOST, /* char *, "name" or "name(addr)"; the first line wins */
    KEY_AUTHINFO,  /* char *, socket= of "socket=PATH,ttl=60" */
    KEY_MPI,       /* char *, none|pmix|pmix_v4 (srun --mpi=list) */
    KEY_ENFORCE,   /* uint32_t enum conf_enforce, "associations,limits" */
    KEY_SCHED_PARAMS, /* struct conf_sched (conf_sched.c) */
    KEY_PRIVATE,   /* uint32_t enum conf_private, "jobs,nodes" */
    KEY_PRIORITY,  /* a field of struct conf_priority (conf_priority.c) */
    KEY_PREEMPT,   /* PreemptType/Mode/ExemptTime (conf_preempt.c) */
    KEY_PART_LIMITS, /* uint32_t enum conf_part_limits */
    KEY_AUTH_ALT_TYPES,  /* char *, checked: "auth/jwt" (conf_auth.c) */
    KEY_AUTH_ALT_PARAMS, /* char *, checked: jwt_key=... (conf_auth.c) */
    KEY_ABS_PATH,  /* char *, an absolute path */
    KEY_HEALTH_STATE, /* uint32_t enum conf_health_state (conf_health.c) */
    KEY_JOB_CONTAINER, /* char *, job_container/none|tmpfs (conf_health.c) */
    KEY_RLIMITS,   /* char *, checked: ALL, NONE or names (rlimits.h) */
    KEY_PROLOG_FLAGS, /* uint32_t enum conf_prolog_flags (conf_prolog.c) */
    KEY_OVERTIME,  /* uint32_t minutes or UNLIMITED (conf_lifecycle.c) */
    KEY_EXIT_CODES,/* char *, checked: "1-9,18" (conf_lifecycle.c) */
    KEY_MEM_CPU,   /* struct conf_mem, the ...PerCPU keyword of its pair */
    KEY_MEM_NODE,  /* struct conf_mem, the ...PerNode keyword of its pair */
    KEY_MIB,       /* uint64_t MiB ("16G" too, as RealMemory) */
    KEY_BOOL,      /* bool, YES/NO */
};

struct conf_key {
    const char *name; /* Slurm's spelling; matched case-insensitively */
    enum key_type type;
    size_t offset;    /* into struct slurm_conf */
    const char *dflt; /* parsed like a value from the file; NULL: none */
    uint32_t max;     /* KEY_UINT32: largest value; 0: UINT32_MAX */
};

#define FIELD(f) offsetof(struct slurm_conf, f)

/* Every char * field of struct slurm_conf except 'path' has a row here:
 * conf_destroy() frees them through it.  Defaults are Slurm's (slurm.conf(5)),
 * except ReturnToService (Slurm: 0).
 */
static const struct conf_key conf_keys[] = {
    /* keyword             type           field                      default */
    { "ClusterName",       KEY_STRING,    FIELD(cluster_name),       NULL, 0 },
    { "SlurmctldHost",     KEY_CTLD_HOST, FIELD(ctld_host),          NULL, 0 },
    { "ControlMachine",    KEY_CTLD_HOST, FIELD(ctld_host),          NULL, 0 },
    { "ControlAddr",       KEY_STRING,    FIELD(ctld_addr),          NULL, 0 },
    { "SlurmctldPort",     KEY_PORT,      FIELD(ctld_port),          "6817", 0 },
    { "SlurmctldParameters", KEY_STRING,  FIELD(ctld_params),        NULL, 0 },
    { "SlurmdParameters",    KEY_STRING,  FIELD(slurmd_params),      NULL, 0 },
    { "CommunicationParameters", KEY_STRING, FIELD(comm_params),     NULL, 0 },
    { "BcastParameters", KEY_STRING, FIELD(bcast_params),             NULL, 0 },
    { "TaskPluginParam",     KEY_STRING,  FIELD(task_plugin_param),  NULL, 0 },
    { "SlurmdPort",        KEY_PORT,      FIELD(slurmd_port),        "6818", 0 },
    { "AccountingStorageType", KEY_STRING, FIELD(accounting_storage_type), NULL, 0 },
    { "AccountingStorageHost", KEY_STRING, FIELD(accounting_storage_host), NULL, 0 },
    { "AccountingStoragePort", KEY_PORT,   FIELD(accounting_storage_port), "6819", 0 },
    { "AccountingStorageEnforce", KEY_ENFORCE, FIELD(accounting_storage_enforce), "none", 0 },
    { "PrivateData",       KEY_PRIVATE,   FIELD(private_data),       "none", 0 },
    { "SlurmUser",         KEY_STRING,    FIELD(slurm_user),         "root", 0 },
    { "StateSaveLocation", KEY_STRING,    FIELD(state_save_location), "/var/spool", 0 },
    { "SlurmdSpoolDir",    KEY_STRING,    FIELD(slurmd_spool_dir),   "/var/spool/slurmd", 0 },
    { "SlurmctldLogFile",  KEY_STRING,    FIELD(ctld_log_file),      NULL, 0 },
    { "SlurmdLogFile",     KEY_STRING,    FIELD(slurmd_log_file),    NULL, 0 },
    { "SlurmctldPidFile",  KEY_STRING,    FIELD(ctld_pid_file),      NULL, 0 },
    { "SlurmdPidFile",     KEY_STRING,    FIELD(slurmd_pid_file),    NULL, 0 },
    { "SlurmctldDebug",    KEY_DEBUG,     FIELD(ctld_debug),         "info", 0 },
    { "SlurmdDebug",       KEY_DEBUG,     FIELD(slurmd_debug),       "info", 0 },
    { "AuthInfo",          KEY_AUTHINFO,  FIELD(auth_socket),        NULL, 0 },
    { "AuthAltTypes",      KEY_AUTH_ALT_TYPES, FIELD(auth_alt_types), NULL, 0 },
    { "AuthAltParameters", KEY_AUTH_ALT_PARAMS, FIELD(auth_alt_params), NULL, 0 },
    { "GresTypes",         KEY_STRING,    FIELD(gres_types),         NULL, 0 },
    { "DroverOperators",   KEY_STRING,    FIELD(operators),          NULL, 0 },
    { "FirstJobId",        KEY_UINT32,    FIELD(first_job_id),       "1", 0 },
    /* job lifecycle (conf_lifecycle.c) */
    { "MaxJobId",          KEY_UINT32,    FIELD(max_job_id),         "67043328", CONF_MAX_JOB_ID_MAX },
    { "OverTimeLimit",     KEY_OVERTIME,  FIELD(over_time_min),      "0", 0 },
    { "JobRequeue",        KEY_UINT32,    FIELD(job_requeue),        "1", 1 },
    { "RequeueExit",       KEY_EXIT_CODES, FIELD(requeue_exit),      NULL, 0 },
    { "RequeueExitHold",   KEY_EXIT_CODES, FIELD(requeue_exit_hold), NULL, 0 },
    { "KillOnBadExit",     KEY_UINT32,    FIELD(kill_on_bad_exit),   "0", 1 },
    { "JobFileAppend",     KEY_UINT32,    FIELD(job_file_append),    "0", 1 },
    { "CompleteWait",      KEY_UINT32,    FIELD(complete_wait_s),    "0", 65533 },
    { "MaxJobCount",       KEY_UINT32,    FIELD(max_job_count),      "10000", 0 },
    { "MaxArraySize",      KEY_UINT32,    FIELD(max_array_size),     "1001", 4000001 },
    { "KillWait",          KEY_UINT32,    FIELD(kill_wait_s),        "30", 0 },
    { "SchedulerTimeSlice", KEY_UINT32,   FIELD(sched_time_slice_s), "30", 0 },
    { "MinJobAge",         KEY_UINT32,    FIELD(min_job_age_s),      "300", 0 },
    { "SlurmdTimeout",     KEY_UINT32,    FIELD(slurmd_timeout_s),   "300", 0 },
    { "MessageTimeout",    KEY_UINT32,    FIELD(msg_timeout_s),      "10", 0 },
    { "TCPTimeout",        KEY_UINT32,    FIELD(tcp_timeout_s),      "2", 0 },
    { "ReturnToService",   KEY_UINT32,    FIELD(return_to_service),  "1", 2 },
    { "SelectType",        KEY_STRING,    FIELD(select_type),        "select/cons_tres", 0 },
    { "SchedulerType",     KEY_STRING,    FIELD(scheduler_type),     "sched/backfill", 0 },
    { "ProctrackType",     KEY_STRING,    FIELD(proctrack_type),     "proctrack/cgroup", 0 },
    { "TaskPlugin",        KEY_STRING,    FIELD(task_plugin),        "task/none", 0 },
    { "SchedulerParameters", KEY_SCHED_PARAMS, FIELD(sched), "", 0 },
    { "PriorityType",      KEY_PRIORITY,  FIELD(priority),  "priority/basic", 0 },
    { "PriorityWeightAge", KEY_PRIORITY,  FIELD(priority),  "0", 0 },
    { "PriorityWeightAssoc", KEY_PRIORITY, FIELD(priority), "0", 0 },
    { "PriorityWeightFairshare", KEY_PRIORITY, FIELD(priority), "0", 0 },
    { "PriorityWeightJobSize", KEY_PRIORITY, FIELD(priority), "0", 0 },
    { "PriorityWeightPartition", KEY_PRIORITY, FIELD(priority), "0", 0 },
    { "PriorityWeightQOS", KEY_PRIORITY,  FIELD(priority),  "0", 0 },
    { "PriorityWeightTRES", KEY_PRIORITY, FIELD(priority),  "", 0 },
    { "PriorityMaxAge",    KEY_PRIORITY,  FIELD(priority),  "7-0", 0 },
    { "PriorityDecayHalfLife", KEY_PRIORITY, FIELD(priority), "7-0", 0 },
    { "PriorityCalcPeriod", KEY_PRIORITY, FIELD(priority),  "5", 0 },
    { "PriorityUsageResetPeriod", KEY_PRIORITY, FIELD(priority), "NONE", 0 },
    { "PriorityFavorSmall", KEY_PRIORITY, FIELD(priority),  "NO", 0 },
    { "PriorityFlags",     KEY_PRIORITY,  FIELD(priority),  "", 0 },
    { "FairShareDampeningFactor", KEY_PRIORITY, FIELD(priority), "1", 0 },
    { "PreemptType",       KEY_PREEMPT,   FIELD(preempt_type), "preempt/none", 0 },
    { "PreemptMode",       KEY_PREEMPT,   FIELD(preempt_mode), "OFF", 0 },
    { "PreemptExemptTime", KEY_PREEMPT,   FIELD(preempt_exempt_s), "0", 0 },
    { "EnforcePartLimits", KEY_PART_LIMITS, FIELD(enforce_part_limits), "NO", 0 },
    { "HealthCheckProgram", KEY_ABS_PATH, FIELD(health_check_program), NULL, 0 },
    { "MailProg",          KEY_STRING,    FIELD(mail_prog),          "/bin/mail", 0 },
    { "ScronParameters",   KEY_STRING,    FIELD(scron_params),       NULL, 0 },
    { "MailDomain",        KEY_STRING,    FIELD(mail_domain),        NULL, 0 },
    { "Prolog",            KEY_ABS_PATH,  FIELD(prolog),             NULL, 0 },
    { "Epilog",            KEY_ABS_PATH,  FIELD(epilog),             NULL, 0 },
    { "PrologEpilogTimeout", KEY_UINT32,  FIELD(prolog_epilog_timeout_s), "0", 0 },
    { "PrologFlags",       KEY_PROLOG_FLAGS, FIELD(prolog_flags),    NULL, 0 },
    { "PrologSlurmctld",   KEY_ABS_PATH,  FIELD(prolog_slurmctld),   NULL, 0 },
    { "EpilogSlurmctld",   KEY_ABS_PATH,  FIELD(epilog_slurmctld),   NULL, 0 },
    { "TaskProlog",        KEY_ABS_PATH,  FIELD(task_prolog),        NULL, 0 },
    { "TaskEpilog",        KEY_ABS_PATH,  FIELD(task_epilog),        NULL, 0 },
    { "SrunProlog",        KEY_ABS_PATH,  FIELD(srun_prolog),        NULL, 0 },
    { "SrunEpilog",        KEY_ABS_PATH,  FIELD(srun_epilog),        NULL, 0 },
    { "PropagateResourceLimits", KEY_RLIMITS, FIELD(propagate_rlimits), "ALL", 0 },
    { "PropagateResourceLimitsExcept", KEY_RLIMITS, FIELD(propagate_rlimits_except), NULL, 0 },
    { "HealthCheckInterval", KEY_UINT32,  FIELD(health_check_interval_s), "0", 0 },
    { "HealthCheckNodeState", KEY_HEALTH_STATE, FIELD(health_check_node_state), "ANY", 0 },
    { "JobContainerType",  KEY_JOB_CONTAINER, FIELD(job_container_type), "job_container/none", 0 },
    { "DefMemPerCPU",      KEY_MEM_CPU,   FIELD(def_mem),            NULL, 0 },
    { "DefMemPerNode",     KEY_MEM_NODE,  FIELD(def_mem),            NULL, 0 },
    { "MaxMemPerCPU",      KEY_MEM_CPU,   FIELD(max_mem),            NULL, 0 },
    { "MaxMemPerNode",     KEY_MEM_NODE,  FIELD(max_mem),            NULL, 0 },
    { "DefMemPerGPU",      KEY_MIB,       FIELD(def_mem_per_gpu_mib), NULL, 0 },
    { "DefCpuPerGPU",      KEY_UINT32,    FIELD(def_cpu_per_gpu),    NULL, 0 },
    { "DisableRootJobs",   KEY_BOOL,      FIELD(disable_root_jobs),  NULL, 0 },
    { "MaxTasksPerNode",   KEY_UINT32,    FIELD(max_tasks_per_node), "512", 65533 },
    { "MaxStepCount",      KEY_UINT32,    FIELD(max_step_count),     "40000", 0 },
    { "InactiveLimit",     KEY_UINT32,    FIELD(inactive_limit_s),   "0", 65533 },
    { "AccountingStorageTRES", KEY_STRING, FIELD(accounting_storage_tres), NULL, 0 },
    { "MpiDefault",        KEY_MPI,       FIELD(mpi_default),        "none", 0 },
    { "GroupUpdateTime",   KEY_UINT32,    FIELD(group_update_time_s), "600", 0 },
    { "WaitTime",          KEY_UINT32,    FIELD(wait_time_s),        "0", 0 },
    /* Slurm's keywords with no counterpart in Drover are not here: they
     * are conf_inert.c's, refused or noticed, never silently ignored. */
};

#define CONF_KEY_COUNT (sizeof(conf_keys) / sizeof(conf_keys[0]))

/* Slurm's level names, indexed by the numbers SlurmctldDebug also takes. */
static const char *const debug_levels[] = {
    "quiet", "fatal", "error", "info", "verbose",
    "debug", "debug2", "debug3", "debug4", "debug5",
};

typedef int (*line_kind_f)(struct conf_parser *p, const struct conf_line *l,
                           drv_error_t *error);

static int unsupported_line(struct conf_parser *p, const struct conf_line *l,
                            drv_error_t *error);

/* Lines whose first keyword makes the whole line one record. */
static const struct line_kind {
    const char *key;
    line_kind_f fn;
} line_kinds[] = {
    { "NodeName", conf__node_line },
    { "PartitionName", conf__part_line },
    { "DownNodes", conf__down_line },
    { "NodeSet", unsupported_line },
    { "FrontendName", unsupported_line },
    { "SwitchName", unsupported_line },
};

static const struct conf_key *conf_key_find(const char *name)
{
    static const struct conf_keytab table = {
        conf_keys, CONF_KEY_COUNT, sizeof(conf_keys[0]), NULL, NULL,
    };

    return conf__key_find(&table, name);
}

static bool key_is_string(enum key_type t)
{
    return t == KEY_STRING || t == KEY_DEBUG || t == KEY_CTLD_HOST
           || t == KEY_AUTHINFO || t == KEY_AUTH_ALT_TYPES
           || t == KEY_AUTH_ALT_PARAMS || t == KEY_ABS_PATH
           || t == KEY_JOB_CONTAINER || t == KEY_RLIMITS
           || t == KEY_EXIT_CODES || t == KEY_MPI;
}

int conf__set_string(char **field, const char *value, size_t n)
{
    char *s = strndup(value, n);

    if (!s)
        return -1;
    free(*field);
    *field = s;
    return 0;
}

const char *conf__set_debug(char **field, const char *value)
{
    uint32_t n;

    if (conf__parse_u32(value, &n) == 0) {
        if (n >= sizeof(debug_levels) / sizeof(debug_levels[0]))
            return "not a log level";
        value = debug_levels[n];
    }
    for (size_t i = 0; i < sizeof(debug_levels) / sizeof(debug_levels[0]);
         i++)
        if (!strcasecmp(value, debug_levels[i]))
            return conf__set_string(field, debug_levels[i],
                              strlen(debug_levels[i])) < 0 ? "" : NULL;
    return "not a log level";
}

const char *conf_ctld_name(const struct slurm_conf *conf, size_t i)
{
    return i ? conf->ctld_backup_hosts[i - 1] : conf->ctld_host;
}

const char *conf_ctld_addr(const struct slurm_conf *conf, size_t i)
{
    return i ? conf->ctld_backup_addrs[i - 1]
             : conf->ctld_addr ? conf->ctld_addr : conf->ctld_host;
}

/* A later SlurmctldHost= line: a backup controller's address, which
 * commands try after the first (slurm.conf(5): "the first entry will run
 * the primary, additional entries are backups", in order).
 */
static const char *add_ctld_backup(struct slurm_conf *conf, const char *value,
                                   size_t n, const char *paren, size_t len)
{
    size_t k = conf->ctld_backup_count;
    char **addrs = realloc(conf->ctld_backup_addrs, (k + 1) * sizeof(char *));

    if (addrs)
        conf->ctld_backup_addrs = addrs;
    char **hosts = realloc(conf->ctld_backup_hosts, (k + 1) * sizeof(char *));
    if (hosts)
        conf->ctld_backup_hosts = hosts;
    if (!addrs || !hosts)
        return "";
    addrs[k] = hosts[k] = NULL;
    if (conf__set_string(&hosts[k], value, n) < 0
        || conf__set_string(&addrs[k], paren ? paren + 1 : value,
                            paren ? len - n - 2 : n)
               < 0) {
        free(hosts[k]);
        return "";
    }
    conf->ctld_backup_count++;
    return NULL;
}

/* SlurmctldHost=ctld1(10.0.0.1): the first line names the controller,
 * later ones its backups (add_ctld_backup()).
 */
static const char *set_ctld_host(struct slurm_conf *conf, const char *value)
{
    const char *paren = strchr(value, '(');
    size_t n = paren ? (size_t)(paren - value) : strlen(value);
    size_t len = strlen(value);

    if (n == 0 || (paren && (len - n < 3 || value[len - 1] != ')')))
        return "expected NAME or NAME(ADDRESS)";
    if (conf->ctld_host)
        return add_ctld_backup(conf, value, n, paren, len);
    if (conf__set_string(&conf->ctld_host, value, n) < 0
        || (paren
            && conf__set_string(&conf->ctld_addr, paren + 1, len - n - 2)
                   < 0))
        return "";
    return NULL;
}

/* AuthInfo=socket=/run/munge/munge.socket.2,ttl=60 (or, as old Slurm, a
 * bare socket path).
 */
const char *conf__set_port(uint16_t *field, const char *value)
{
    uint16_t *ports;
    size_t count;

    if (conf__parse_ports(value, &ports, &count) < 0)
        return errno == ENOMEM ? "" : "not a port number";
    *field = ports[0];
    free(ports);
    return NULL;
}

const char *conf__set_authinfo(char **field, const char *value)
{
    const char *s = value;

    if (value[0] == '/')
        return conf__set_string(field, value, strlen(value)) < 0 ? "" : NULL;
    while (*s) {
        size_t n = strcspn(s, ",");
        if (!strncasecmp(s, "socket=", 7))
            return conf__set_string(field, s + 7, n - 7) < 0 ? "" : NULL;
        s += n + (s[n] == ',' ? 1 : 0);
    }
    return NULL;
}

/* AccountingStorageEnforce words in Slurm's print order, with the flags
 * each sets (conf.h: enum conf_enforce). */

static const struct flag_word enforce_words[] = {
    { "associations", CONF_ENFORCE_ASSOCS, CONF_ENFORCE_ASSOCS },
    { "limits", CONF_ENFORCE_LIMITS, CONF_ENFORCE_ASSOCS | CONF_ENFORCE_LIMITS },
    { "nojobs", CONF_ENFORCE_NOJOBS, CONF_ENFORCE_NOJOBS | CONF_ENFORCE_NOSTEPS },
    { "nosteps", CONF_ENFORCE_NOSTEPS, CONF_ENFORCE_NOSTEPS },
    { "qos", CONF_ENFORCE_QOS, CONF_ENFORCE_ASSOCS | CONF_ENFORCE_QOS },
    { "safe", CONF_ENFORCE_SAFE,
      CONF_ENFORCE_ASSOCS | CONF_ENFORCE_LIMITS | CONF_ENFORCE_SAFE },
    { "wckeys", CONF_ENFORCE_WCKEYS, CONF_ENFORCE_ASSOCS | CONF_ENFORCE_WCKEYS },
    { "all", 0, CONF_ENFORCE_ASSOCS | CONF_ENFORCE_LIMITS | CONF_ENFORCE_QOS
                    | CONF_ENFORCE_SAFE | CONF_ENFORCE_WCKEYS },
    { "none", 0, 0 },
};
#define ENFORCE_WORD_COUNT (sizeof(enforce_words) / sizeof(enforce_words[0]))

/* PrivateData words in Slurm's print order. */
static const struct flag_word private_words[] = {
    { "accounts", CONF_PRIVATE_ACCOUNTS, CONF_PRIVATE_ACCOUNTS },
    { "cloud", CONF_PRIVATE_CLOUD, CONF_PRIVATE_CLOUD },
    { "events", CONF_PRIVATE_EVENTS, CONF_PRIVATE_EVENTS },
    { "jobs", CONF_PRIVATE_JOBS, CONF_PRIVATE_JOBS },
    { "nodes", CONF_PRIVATE_NODES, CONF_PRIVATE_NODES },
    { "partitions", CONF_PRIVATE_PARTITIONS, CONF_PRIVATE_PARTITIONS },
    { "reservations", CONF_PRIVATE_RESERVATIONS, CONF_PRIVATE_RESERVATIONS },
    { "usage", CONF_PRIVATE_USAGE, CONF_PRIVATE_USAGE },
    { "users", CONF_PRIVATE_USERS, CONF_PRIVATE_USERS },
    { "all", 0, CONF_PRIVATE_ACCOUNTS | CONF_PRIVATE_CLOUD
                    | CONF_PRIVATE_EVENTS | CONF_PRIVATE_JOBS
                    | CONF_PRIVATE_NODES | CONF_PRIVATE_PARTITIONS
                    | CONF_PRIVATE_RESERVATIONS | CONF_PRIVATE_USAGE
                    | CONF_PRIVATE_USERS },
    { "none", 0, 0 },
};
#define PRIVATE_WORD_COUNT (sizeof(private_words) / sizeof(private_words[0]))

/* A comma list of the words of table 'words' (n rows) into flag bits. */
const char *conf__set_flags(uint32_t *field, const char *value,
                            const struct flag_word *words, size_t n_words,
                            const char *expected)
{
    uint32_t flags = 0;

    while (*value) {
        size_t n = strcspn(value, ","), i;
        for (i = 0; i < n_words; i++)
            if (strlen(words[i].word) == n
                && !strncasecmp(value, words[i].word, n))
                break;
        if (i == n_words)
            return expected;
        flags |= words[i].sets;
        value += n + (value[n] == ',');
    }
    *field = flags;
    return NULL;
}

char *conf__flags_string(uint32_t flags, const struct flag_word *words,
                         size_t n_words, const char *empty, char *buf,
                         size_t size)
{
    size_t len = 0;

    if (!size)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < n_words; i++)
        if (words[i].flag && (flags & words[i].flag))
            len += (size_t)snprintf(buf + len, len < size ? size - len : 0,
                                    "%s%s", len ? "," : "", words[i].word);
    if (!len)
        snprintf(buf, size, "%s", empty);
    return buf;
}


char *conf_enforce_string(uint32_t flags, char *buf, size_t size)
{
    return conf__flags_string(flags, enforce_words, ENFORCE_WORD_COUNT, "none",
                              buf, size);
}

char *conf_private_string(uint32_t flags, char *buf, size_t size)
{
    return conf__flags_string(flags, private_words, PRIVATE_WORD_COUNT, "none",
                              buf, size);
}

static const char *set_number(struct slurm_conf *conf,
                              const struct conf_key *k, const char *value)
{
    void *field = (char *)conf + k->offset;
    uint32_t v;

    if (k->type == KEY_PORT)
        return conf__set_port(field, value);
    if (conf__parse_u32(value, &v) < 0)
        return "not a number";
    if (k->max && v > k->max)
        return "too large";
    *(uint32_t *)field = v;
    return NULL;
}

static const char *const part_limits_words[] = { "NO", "ANY", "ALL" };

const char *conf_part_limits_string(uint32_t v)
{
    return v <= CONF_PART_LIMITS_ALL ? part_limits_words[v] : "NO";
}

/* EnforcePartLimits=NO|ANY|ALL (YES: ALL, as Slurm). */
static const char *set_part_limits(uint32_t *field, const char *value)
{
    for (uint32_t i = 0; i <= CONF_PART_LIMITS_ALL; i++)
        if (!strcasecmp(value, part_limits_words[i])) {
            *field = i;
            return NULL;
        }
    if (!strcasecmp(value, "YES")) {
        *field = CONF_PART_LIMITS_ALL;
        return NULL;
    }
    return "expected NO, ANY or ALL";
}

/* DefMemPerCPU=/DefMemPerNode= (or the Max pair) into their one value;
 * the pair's other keyword given too is refused (slurm.conf(5): they are
 * mutually exclusive; Slurm keeps one and says nothing). */
static const char *set_mem(struct conf_mem *field, const struct conf_key *k,
                           const char *value)
{
    static char why[80]; /* the parse runs in one thread */
    bool per_cpu = k->type == KEY_MEM_CPU;
    uint64_t mib;

    if (field->given && field->per_cpu != per_cpu) {
        snprintf(why, sizeof(why), "%.3sMemPerCPU and %.3sMemPerNode are "
                 "mutually exclusive", k->name, k->name);
        return why;
    }
    if (conf__parse_mib(value, &mib) < 0)
        return "not a number";
    *field = (struct conf_mem){ .mib = mib, .per_cpu = per_cpu,
                                .given = true };
    return NULL;
}

/* srun's --mpi types (src/cmd/lib/srun_mpi.c), any case, kept in
 * srun's spelling. */
static const char *set_mpi(char **field, const char *value)
{
    static const char *const types[] = { "none", "pmix", "pmix_v4" };

    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (!strcasecmp(value, types[i]))
            return conf__set_string(field, types[i], strlen(types[i])) < 0
                       ? ""
                       : NULL;
    return "expected none, pmix or pmix_v4 (srun --mpi=list)";
}

/* Set one global keyword.  Returns NULL, or why not ("" for ENOMEM). */
static const char *set_key(struct slurm_conf *conf, const struct conf_key *k,
                           const char *value)
{
    char **field = (char **)((char *)conf + k->offset);

    if (!*value) {
        if (!k->dflt) {
            if (key_is_string(k->type) && k->type != KEY_CTLD_HOST) {
                free(*field);
                *field = NULL;
            }
            return NULL;
        }
        value = k->dflt;
    }
    switch (k->type) {
    case KEY_STRING:
        return conf__set_string(field, value, strlen(value)) < 0 ? "" : NULL;
    case KEY_DEBUG:
        return conf__set_debug(field, value);
    case KEY_CTLD_HOST:
        return set_ctld_host(conf, value);
    case KEY_AUTHINFO:
        return conf__set_authinfo(field, value);
    case KEY_AUTH_ALT_TYPES:
        return conf__set_auth_alt_types(field, value);
    case KEY_AUTH_ALT_PARAMS:
        return conf__set_auth_alt_params(field, value);
    case KEY_MPI:
        return set_mpi(field, value);
    case KEY_MEM_CPU:
    case KEY_MEM_NODE:
        return set_mem((struct conf_mem *)field, k, value);
    case KEY_MIB:
        return conf__parse_mib(value, (uint64_t *)field) < 0 ? "not a number"
                                                            : NULL;
    case KEY_BOOL:
        return conf__parse_bool(value, (bool *)field) < 0 ? "expected YES or NO"
                                                         : NULL;
    case KEY_ABS_PATH:
        if (value[0] != '/')
            return "not an absolute path";
        return conf__set_string(field, value, strlen(value)) < 0 ? "" : NULL;
    case KEY_HEALTH_STATE:
        return conf__set_health_state((uint32_t *)field, value);
    case KEY_PROLOG_FLAGS:
        return conf__set_prolog_flags((uint32_t *)field, value);
    case KEY_JOB_CONTAINER:
        return conf__set_job_container(field, value);
    case KEY_OVERTIME:
        return conf__parse_overtime(value, (uint32_t *)field);
    case KEY_EXIT_CODES:
        return conf__set_exit_codes(field, value);
    case KEY_RLIMITS: {
        unsigned mask;
        const char *bad;

        if (rlimits_parse(value, &mask, &bad) < 0)
            return "expected ALL, NONE or a list of AS, CORE, CPU, DATA, "
                   "FSIZE, MEMLOCK, NOFILE, NPROC, RSS, STACK";
        return conf__set_string(field, value, strlen(value)) < 0 ? "" : NULL;
    }
    case KEY_ENFORCE:
        return conf__set_flags((uint32_t *)field, value, enforce_words,
                         ENFORCE_WORD_COUNT,
                         "expected associations, limits, qos, safe, wckeys, "
                         "nojobs, nosteps, all or none");
    case KEY_SCHED_PARAMS:
        return conf__set_sched_params((struct conf_sched *)field, value);
    case KEY_PRIORITY:
        return conf__set_priority(&conf->priority, k->name, value);
    case KEY_PREEMPT:
        return conf__set_preempt(conf, k->name, value);
    case KEY_PART_LIMITS:
        return set_part_limits((uint32_t *)field, value);
    case KEY_PRIVATE:
        return conf__set_flags((uint32_t *)field, value, private_words,
                         PRIVATE_WORD_COUNT,
                         "expected accounts, cloud, events, jobs, nodes, "
                         "partitions, reservations, usage, users, all or "
                         "none");
    default:
        return set_number(conf, k, value);
    }
}

static int global_line(struct conf_parser *p, const struct conf_line *l,
                       drv_error_t *error)
{
    for (size_t i = 0; i < l->count; i++) {
        const struct conf_pair *kv = &l->pairs[i];
        const struct conf_key *k = conf_key_find(kv->key);
        const struct conf_inert *inert;
        const char *why;

        if (!k && (inert = conf__inert_find(CONF_INERT_GLOBAL, kv->key))) {
            if (conf__inert_apply(p->conf, inert, l, kv, error) < 0)
                return -1;
            continue;
        }
        if (!k) {
            log_error("%s:%d: unknown keyword '%s' ignored", l->file, l->line,
                      kv->key);
            continue;
        }
        if (!(why = set_key(p->conf, k, kv->value)))
            continue;
        if (!*why)
            return conf__enomem(error);
        return conf__einval(error, "%s:%d: %s=%s: %s", l->file, l->line,
                            kv->key, kv->value, why);
    }
    return 0;
}

static int unsupported_line(struct conf_parser *p, const struct conf_line *l,
                            drv_error_t *error)
{
    (void)p;
    (void)error;
    log_error("%s:%d: %s lines are not supported; ignored", l->file, l->line,
              l->pairs[0].key);
    return 0;
}

/* Keep 'setting' (taken) in conf->settings. */
static int keep_setting(struct slurm_conf *conf, char *setting,
                        drv_error_t *error)
{
    char **grown;

    if (!setting)
        return conf__enomem(error);
    if (!(grown = realloc(conf->settings,
                          (conf->setting_count + 1) * sizeof(*grown)))) {
        free(setting);
        return conf__enomem(error);
    }
    conf->settings = grown;
    conf->settings[conf->setting_count++] = setting;
    return 0;
}

/* A line's settings as conf->settings keeps them (conf.h). */
static int keep_line(struct slurm_conf *conf, const struct conf_line *l,
                     bool record, drv_error_t *error)
{
    const struct conf_pair *r = &l->pairs[0];
    char *s;

    for (size_t i = 0; i < l->count; i++) {
        const struct conf_pair *kv = &l->pairs[i];

        int rc = !record || i == 0
                     ? asprintf(&s, "%s=%s", kv->key, kv->value)
                     : asprintf(&s, "%s=%s\x1f%s=%s", r->key, r->value,
                                kv->key, kv->value);

        if (keep_setting(conf, rc < 0 ? NULL : s, error) < 0)
            return -1;
    }
    return 0;
}

static int slurm_line(const struct conf_line *l, void *arg, drv_error_t *error)
{
    struct conf_parser *p = arg;
    bool record = false;

    for (size_t i = 0; i < sizeof(line_kinds) / sizeof(line_kinds[0]); i++)
        record = record || !strcasecmp(l->pairs[0].key, line_kinds[i].key);
    if (!p->client && keep_line(p->conf, l, record, error) < 0)
        return -1;
    for (size_t i = 0; i < sizeof(line_kinds) / sizeof(line_kinds[0]); i++)
        if (!strcasecmp(l->pairs[0].key, line_kinds[i].key))
            return line_kinds[i].fn(arg, l, error);
    return global_line(arg, l, error);
}

struct slurm_conf *conf__create(const char *path)
{
    struct slurm_conf *conf = calloc(1, sizeof(*conf));

    if (!conf)
        return NULL;
    if (!(conf->path = strdup(path))
        || !(conf->node_index = conf__index_create())
        || conf_cgroup_parse(&conf->cgroup, NULL, NULL, NULL) < 0)
        goto error;
    for (size_t i = 0; i < CONF_KEY_COUNT; i++)
        if (conf_keys[i].dflt && set_key(conf, &conf_keys[i],
                                         conf_keys[i].dflt) != NULL)
            goto error; /* defaults are valid: only ENOMEM */
    return conf;
error:
    conf_destroy(conf);
    errno = ENOMEM;
    return NULL;
}

/* After the last line: what depends on keywords that may come later. */
static int conf_finish(struct conf_parser *p, drv_error_t *error)
{
    struct slurm_conf *conf = p->conf;

    if (!conf->ctld_addr && conf->ctld_host
        && !(conf->ctld_addr = strdup(conf->ctld_host)))
        return conf__enomem(error);
    if (conf->scheduler_type && strcasecmp(conf->scheduler_type,
                                           "sched/backfill")
        && strcasecmp(conf->scheduler_type, "sched/builtin"))
        return conf__einval(error, "%s: SchedulerType=%s: expected "
                            "sched/backfill or sched/builtin", conf->path,
                            conf->scheduler_type);
    for (size_t i = 0; i < conf->node_count; i++)
        if (conf->nodes[i].port == 0)
            conf->nodes[i].port = conf->slurmd_port;
    if (conf__ctld_params(conf, error) < 0
        || conf__slurmd_params(conf, error) < 0
        || conf__comm_params(conf, error) < 0
        || conf__bcast_params(conf, error) < 0
        || conf__task_param(conf, error) < 0)
        return -1;
    if (conf__preempt_check(conf, error) < 0
        || conf__lifecycle_check(conf, error) < 0)
        return -1;
    return conf__part_resolve(p, error);
}

/* gres.conf beside slurm.conf, or 'text' in its place; optional. */
static int load_gres(struct conf_parser *p, const char *text,
                     drv_error_t *error)
{
    char *path, *file_text = NULL;
    int rc;

    if (asprintf(&path, "%s/gres.conf", p->confdir) < 0)
        return conf__enomem(error);
    if (!text && !(text = file_text = conf__read_file(path))
        && errno != ENOENT) {
        int saved_errno = errno;
        errprintf(error, "cannot open %s: %s", path, strerror(saved_errno));
        free(path);
        errno = saved_errno;
        return -1;
    }
    rc = conf__gres_devs(p, path, text, error);
    free(file_text);
    free(path);
    return rc;
}

/* cgroup.conf beside slurm.conf; optional (Slurm's defaults without). */
static int load_cgroup(struct conf_parser *p, drv_error_t *error)
{
    char *path, *text;
    int rc;

    if (asprintf(&path, "%s/cgroup.conf", p->confdir) < 0)
        return conf__enomem(error);
    if (!(text = conf__read_file(path))) {
        int saved_errno = errno;
        rc = saved_errno == ENOENT ? 0 : -1;
        if (rc < 0)
            errprintf(error, "cannot open %s: %s", path,
                      strerror(saved_errno));
        free(path);
        errno = saved_errno;
        return rc;
    }
    rc = conf_cgroup_parse(&p->conf->cgroup, path, text, error);
    free(text);
    free(path);
    return rc;
}

/* The files beside slurm.conf as conf->settings keeps them ('gres_text'
 * stands for gres.conf when given). */
static int keep_files(struct conf_parser *p, const char *gres_text,
                      drv_error_t *error)
{
    static const char *const files[] = {"gres.conf", "cgroup.conf",
                                        "job_container.conf", "oci.conf"};

    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char *path, *text = NULL, *s;

        if (i == 0 && gres_text) {
            text = strdup(gres_text);
        } else if (asprintf(&path, "%s/%s", p->confdir, files[i]) >= 0) {
            text = conf__read_file(path);
            free(path);
        }
        if (!text)
            continue; /* not there (or unreadable: its loader said so) */
        int rc = asprintf(&s, "%s\x1f%s", files[i], text);

        free(text);
        if (keep_setting(p->conf, rc < 0 ? NULL : s, error) < 0)
            return -1;
    }
    return 0;
}

static void parser_clear(struct conf_parser *p)
{
    conf__node_spec_destroy(p->node_defaults);
    if (p->conf)
        conf__part_parser_clear(p);
    free((char *)p->confdir);
}

static struct slurm_conf *parse(const char *path, const char *text,
                                const char *gres_text, bool client,
                                drv_error_t *error)
{
    struct conf_parser p = { .client = client };
    struct slurm_conf *conf;

    if (!path || !text) {
        errno = EINVAL;
        errprintf(error, "conf_parse: no path or no text");
        return NULL;
    }
    if (!(p.conf = conf__create(path)) || !(p.confdir = conf__dir_of(path))) {
        conf__enomem(error);
        goto error;
    }
    if (conf__lex(path, text, p.confdir, slurm_line, &p, error) < 0
        || conf_finish(&p, error) < 0
        || (!client && load_gres(&p, gres_text, error) < 0)
        || load_cgroup(&p, error) < 0
        || conf__load_job_container(p.conf, p.confdir, error) < 0
        || conf__load_oci(p.conf, p.confdir, error) < 0
        || (!client && keep_files(&p, gres_text, error) < 0))
        goto error;
    conf = p.conf;
    parser_clear(&p);
    return conf;
error:
    parser_clear(&p);
    conf_destroy(p.conf);
    return NULL;
}

struct slurm_conf *conf_parse(const char *path, const char *text,
                              const char *gres_text, drv_error_t *error)
{
    return parse(path, text, gres_text, false, error);
}

const char *conf_env_path(void)
{
    const char *names[] = {"DROVER_CONF", "SLURM_CONF"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *v = getenv(names[i]);
        if (v && *v)
            return v;
    }
    return NULL;
}

static struct slurm_conf *load(const char *path, bool client,
                               drv_error_t *error)
{
    struct slurm_conf *conf;
    char *text;

    if (!path)
        path = conf_env_path();
    if (!path || !*path)
        path = DROVER_SYSCONFDIR "/slurm.conf";
    if (!(text = conf__read_file(path))) {
        int saved_errno = errno;
        errprintf(error, "cannot open %s: %s", path, strerror(saved_errno));
        errno = saved_errno;
        return NULL;
    }
    conf = parse(path, text, NULL, client, error);
    if (!conf) {
        int saved_errno = errno;
        free(text);
        errno = saved_errno;
        return NULL;
    }
    free(text);
    return conf;
}

struct slurm_conf *conf_load(const char *path, drv_error_t *error)
{
    return load(path, false, error);
}

struct slurm_conf *conf_load_client(const char *path, drv_error_t *error)
{
    return load(path, true, error);
}

const struct conf_node *conf_node_find(const struct slurm_conf *conf,
                                       const char *name)
{
    long i;

    if (!conf || !name)
        return NULL;
    i = conf->node_index ? conf__index_find(conf->node_index, name) : -1;
    return i >= 0 ? &conf->nodes[i] : NULL;
}

const struct conf_partition *conf_partition_find(const struct slurm_conf *conf,
                                                 const char *name)
{
    for (size_t i = 0; conf && name && i < conf->partition_count; i++)
        if (!strcmp(conf->partitions[i].name, name))
            return &conf->partitions[i];
    return NULL;
}

const struct conf_partition *conf_partition_default(const struct slurm_conf *c)
{
    if (!c || c->partition_count == 0)
        return NULL;
    for (size_t i = 0; i < c->partition_count; i++)
        if (c->partitions[i].is_default)
            return &c->partitions[i];
    return &c->partitions[0];
}

/* Write the expansion into 'out' (if non-NULL); return its length. */
static size_t expand(const char *tmpl, const struct conf_node *node,
                     char *out)
{
    size_t len = 0;

    for (const char *s = tmpl; *s; s++) {
        const char *sub = NULL;
        if (s[0] == '%' && s[1] == 'n')
            sub = node->name;
        else if (s[0] == '%' && s[1] == 'h')
            sub = node->hostname ? node->hostname : node->name;
        if (sub) {
            if (out)
                memcpy(out + len, sub, strlen(sub));
            len += strlen(sub);
            s++;
        } else {
            if (out)
                out[len] = *s;
            len++;
        }
    }
    if (out)
        out[len] = '\0';
    return len;
}

char *conf_expand_node_path(const char *tmpl, const struct conf_node *node)
{
    char *out;

    if (!tmpl || !node || !node->name) {
        errno = EINVAL;
        return NULL;
    }
    if (!(out = malloc(expand(tmpl, node, NULL) + 1)))
        return NULL;
    expand(tmpl, node, out);
    return out;
}

void conf_destroy(struct slurm_conf *conf)
{
    if (!conf)
        return;
    int saved_errno = errno;
    for (size_t i = 0; i < CONF_KEY_COUNT; i++) {
        if (key_is_string(conf_keys[i].type)) {
            char **field = (char **)((char *)conf + conf_keys[i].offset);
            free(*field);
            *field = NULL;
        }
    }
    for (size_t i = 0; i < conf->node_count; i++)
        conf__node_clear(&conf->nodes[i]);
    free(conf->nodes);
    for (size_t i = 0; i < conf->partition_count; i++)
        conf__part_clear(&conf->partitions[i]);
    free(conf->partitions);
    conf__index_destroy(conf->node_index);
    conf__part_defaults_free(conf);
    conf_cgroup_clear(&conf->cgroup);
    conf__job_container_clear(&conf->job_container);
    conf__oci_clear(&conf->oci);
    conf__priority_clear(&conf->priority);
    conf__notices_clear(conf);
    for (size_t i = 0; i < conf->setting_count; i++)
        free(conf->settings[i]);
    free(conf->settings);
    conf_tls_clear(&conf->tls);
    free(conf->bcast.dest_dir);
    for (size_t i = 0; i < conf->ctld_backup_count; i++) {
        free(conf->ctld_backup_addrs[i]);
        free(conf->ctld_backup_hosts[i]);
    }
    free(conf->ctld_backup_addrs);
    free(conf->ctld_backup_hosts);
    free(conf->path);
    free(conf);
    errno = saved_errno;
}
