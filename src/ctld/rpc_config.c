/* SPDX-License-Identifier: Apache-2.0
 *
 * rpc_config.c - config_info: the controller's running configuration
 *
 * Answers `scontrol show config` with the values this controller parsed at
 * start (not whatever slurm.conf says now), keyed by Slurm's names.  Times
 * are seconds; the command adds Slurm's units.  Keys Drover does not parse
 * are left out and the command prints Slurm's defaults for them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/log.h"
#include "common/timefmt.h"
#include "ctld/ctld.h"

static void set_s(json_t *o, const char *key, const char *value)
{
    if (value)
        json_object_set_new(o, key, json_string(value));
}

static void set_i(json_t *o, const char *key, json_int_t value)
{
    json_object_set_new(o, key, json_integer(value));
}

/* The Priority* keys, as Slurm prints them (times D-HH:MM:SS). */
static void priority_values(json_t *o, const struct conf_priority *p)
{
    char buf[128];

    set_s(o, "PriorityType",
          p->multifactor ? "priority/multifactor" : "priority/basic");
    set_s(o, "PriorityDecayHalfLife",
          timefmt_duration(p->decay_half_life_s, 1, buf, sizeof(buf)));
    set_s(o, "PriorityCalcPeriod",
          timefmt_duration(p->calc_period_s, 1, buf, sizeof(buf)));
    set_s(o, "PriorityMaxAge",
          timefmt_duration(p->max_age_s, 1, buf, sizeof(buf)));
    set_s(o, "PriorityFavorSmall", p->favor_small ? "Yes" : "No");
    set_s(o, "PriorityFlags",
          conf_priority_flags_string(p->flags, buf, sizeof(buf)));
    set_s(o, "PriorityUsageResetPeriod",
          conf_priority_reset_string(p->usage_reset));
    set_i(o, "PriorityWeightAge", p->weight_age);
    set_i(o, "PriorityWeightAssoc", p->weight_assoc);
    set_i(o, "PriorityWeightFairShare", p->weight_fairshare);
    set_i(o, "PriorityWeightJobSize", p->weight_jobsize);
    set_i(o, "PriorityWeightPartition", p->weight_partition);
    set_i(o, "PriorityWeightQOS", p->weight_qos);
    set_s(o, "PriorityWeightTRES", p->weight_tres_text);
    set_i(o, "FairShareDampeningFactor", p->dampening);
}

/* The job-lifecycle keys (conf_lifecycle.c), with Slurm's units. */
static void lifecycle_values(json_t *o, const struct slurm_conf *c)
{
    char buf[32];

    set_i(o, "MaxJobId", c->max_job_id);
    if (c->over_time_min == CONF_OVERTIME_UNLIMITED)
        set_s(o, "OverTimeLimit", "UNLIMITED");
    else {
        snprintf(buf, sizeof(buf), "%u min", c->over_time_min);
        set_s(o, "OverTimeLimit", buf);
    }
    set_i(o, "JobRequeue", c->job_requeue);
    set_s(o, "RequeueExit", c->requeue_exit);
    set_s(o, "RequeueExitHold", c->requeue_exit_hold);
    set_i(o, "KillOnBadExit", c->kill_on_bad_exit);
    set_i(o, "JobFileAppend", c->job_file_append);
    snprintf(buf, sizeof(buf), "%u sec", c->complete_wait_s);
    set_s(o, "CompleteWait", buf);
}

/* A memory pair under the key of the keyword given (Slurm prints
 * DefMemPerCPU in DefMemPerNode's place), UNLIMITED when none. */
static void set_mem(json_t *o, const char *cpu_key, const char *node_key,
                    const struct conf_mem *m)
{
    if (m->mib && m->per_cpu)
        set_i(o, cpu_key, (json_int_t)m->mib);
    else if (m->mib)
        set_i(o, node_key, (json_int_t)m->mib);
    else
        set_s(o, node_key, "UNLIMITED");
}

static json_t *config_values(const struct slurm_conf *c)
{
    json_t *o = json_object();
    char buf[128];

    set_s(o, "ClusterName", c->cluster_name);
    set_s(o, "AccountingStorageEnforce",
          conf_enforce_string(c->accounting_storage_enforce, buf, sizeof(buf)));
    set_s(o, "AccountingStorageType", c->accounting_storage_type);
    if (c->accounting_storage_type) {
        set_s(o, "AccountingStorageHost", c->accounting_storage_host
                                              ? c->accounting_storage_host
                                              : c->ctld_host);
        set_i(o, "AccountingStoragePort", c->accounting_storage_port);
    }
    set_s(o, "PrivateData",
          conf_private_string(c->private_data, buf, sizeof(buf)));
    set_s(o, "SlurmctldHost[0]", c->ctld_host);
    set_s(o, "SlurmctldParameters", c->ctld_params);
    set_i(o, "SlurmctldPort", c->ctld_port);
    set_i(o, "SlurmdPort", c->slurmd_port);
    set_s(o, "SlurmUser", c->slurm_user);
    set_s(o, "StateSaveLocation", c->state_save_location);
    set_s(o, "SlurmdSpoolDir", c->slurmd_spool_dir);
    set_s(o, "SlurmctldLogFile", c->ctld_log_file);
    set_s(o, "SlurmdLogFile", c->slurmd_log_file);
    set_s(o, "SlurmctldPidFile", c->ctld_pid_file);
    set_s(o, "SlurmdPidFile", c->slurmd_pid_file);
    set_s(o, "SlurmctldDebug", c->ctld_debug);
    set_s(o, "SlurmdDebug", c->slurmd_debug);
    set_s(o, "GresTypes", c->gres_types);
    set_i(o, "FirstJobId", c->first_job_id);
    set_i(o, "MaxJobCount", c->max_job_count);
    set_i(o, "MaxArraySize", c->max_array_size);
    set_mem(o, "DefMemPerCPU", "DefMemPerNode", &c->def_mem);
    set_mem(o, "MaxMemPerCPU", "MaxMemPerNode", &c->max_mem);
    set_s(o, "JobDefaults", conf_job_defaults_string(c->def_cpu_per_gpu,
                                                     c->def_mem_per_gpu_mib,
                                                     buf, sizeof(buf)));
    set_s(o, "DisableRootJobs", c->disable_root_jobs ? "Yes" : "No");
    set_i(o, "MaxTasksPerNode", c->max_tasks_per_node);
    set_i(o, "MaxStepCount", c->max_step_count);
    set_i(o, "KillWait", c->kill_wait_s);
    set_i(o, "MinJobAge", c->min_job_age_s);
    set_i(o, "SlurmdTimeout", c->slurmd_timeout_s);
    set_i(o, "MessageTimeout", c->msg_timeout_s);
    set_i(o, "ReturnToService", c->return_to_service);
    set_s(o, "SelectType", c->select_type);
    set_s(o, "SchedulerType", c->scheduler_type);
    set_s(o, "ProctrackType", c->proctrack_type);
    set_s(o, "TaskPlugin", c->task_plugin);
    set_s(o, "MpiDefault", c->mpi_default);
    set_i(o, "GroupUpdateTime", c->group_update_time_s);
    set_i(o, "WaitTime", c->wait_time_s);
    set_i(o, "InactiveLimit", c->inactive_limit_s);
    set_s(o, "TaskPluginParam", c->task_plugin_param);
    set_s(o, "HealthCheckProgram", c->health_check_program);
    set_s(o, "MailProg", c->mail_prog);
    set_s(o, "MailDomain", c->mail_domain);
    set_s(o, "ScronParameters", c->scron_params);
    set_s(o, "TaskProlog", c->task_prolog);
    set_s(o, "SrunProlog", c->srun_prolog);
    set_s(o, "SrunEpilog", c->srun_epilog);
    set_s(o, "TaskEpilog", c->task_epilog);
    set_s(o, "Prolog", c->prolog);
    set_s(o, "Epilog", c->epilog);
    set_s(o, "PrologSlurmctld", c->prolog_slurmctld);
    set_s(o, "EpilogSlurmctld", c->epilog_slurmctld);
    set_s(o, "PrologFlags",
          conf_prolog_flags_string(c->prolog_flags, buf, sizeof(buf)));
    set_s(o, "PropagateResourceLimits", c->propagate_rlimits);
    set_s(o, "PropagateResourceLimitsExcept", c->propagate_rlimits_except);
    set_i(o, "HealthCheckInterval", c->health_check_interval_s);
    set_s(o, "HealthCheckNodeState",
          conf_health_state_string(c->health_check_node_state, buf,
                                   sizeof(buf)));
    set_s(o, "JobContainerType", c->job_container_type);
    set_i(o, "MaxNodeCount", (json_int_t)c->node_count);
    set_s(o, "SLURM_CONF", c->path);
    priority_values(o, &c->priority);
    set_s(o, "EnforcePartLimits",
          conf_part_limits_string(c->enforce_part_limits));
    set_s(o, "PreemptType", conf_preempt_type_string(c->preempt_type));
    if (c->preempt_gang && c->preempt_mode == CONF_PREEMPT_MODE_OFF)
        set_s(o, "PreemptMode", "GANG");
    else if (c->preempt_gang) /* Slurm's spelling: "GANG,SUSPEND" */
        set_s(o, "PreemptMode",
              c->preempt_mode == CONF_PREEMPT_MODE_SUSPEND ? "GANG,SUSPEND"
              : c->preempt_mode == CONF_PREEMPT_MODE_REQUEUE ? "GANG,REQUEUE"
                                                            : "GANG,CANCEL");
    else
        set_s(o, "PreemptMode", conf_preempt_mode_string(c->preempt_mode));
    set_s(o, "PreemptExemptTime",
          timefmt_duration(c->preempt_exempt_s, 1, buf, sizeof(buf)));
    lifecycle_values(o, c);
    return o;
}

static void rpc_config_info(proto_req_t *req, void *arg)
{
    struct ctld *ctld = arg;
    json_t *body = json_pack("{s:I s:I s:I s:o}", "now",
                             (json_int_t)ctld_now(ctld), "boot_time",
                             (json_int_t)ctld->boot_time, "next_job_id",
                             (json_int_t)ctld->next_job_id, "config",
                             config_values(ctld->conf));

    if (proto_respond(req, body) < 0)
        log_err("config_info: responding");
}

const struct proto_handler rpc_config_handlers[] = {
    {"config_info", rpc_config_info, PROTO_ROLE_USER},
    PROTO_HANDLER_END,
};
