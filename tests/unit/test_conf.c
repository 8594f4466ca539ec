/* SPDX-License-Identifier: Apache-2.0
 *
 * test_conf.c - slurm.conf and gres.conf: defaults, nodes, partitions, GRES
 * devices, Include, and the error messages a person reads
 *
 * Most cases parse text with conf_parse() (gres.conf text given directly);
 * the conf_load() cases write real files into a temporary directory.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "common/timefmt.h"
#include "conf/conf.h"

/* Parse 'text' as slurm.conf with 'gres' as gres.conf ("" when NULL); the
 * parse must succeed.
 */
static struct slurm_conf *parse_ok(const char *text, const char *gres)
{
    drv_error_t error = { 0 };
    struct slurm_conf *conf;

    conf = conf_parse("slurm.conf", text, gres ? gres : "", &error);
    if (!conf)
        fail_msg("conf_parse failed: %s", error.text);
    return conf;
}

/* The parse must fail with EINVAL and an error containing 'needle'. */
static void parse_fails(const char *text, const char *gres,
                        const char *needle)
{
    drv_error_t error = { 0 };
    struct slurm_conf *conf;

    errno = 0;
    conf = conf_parse("slurm.conf", text, gres ? gres : "", &error);
    if (conf) {
        conf_destroy(conf);
        fail_msg("parse of \"%s\" succeeded; expected \"%s\"", text, needle);
    }
    assert_int_equal(errno, EINVAL);
    if (!strstr(error.text, needle))
        fail_msg("error \"%s\" lacks \"%s\"", error.text, needle);
}

/* Run 'text' through conf_parse() with stderr captured into 'out'. */
static struct slurm_conf *parse_capturing_stderr(const char *text, char *out,
                                                 size_t size)
{
    char path[] = "/tmp/test_conf_stderr.XXXXXX";
    int fd = mkstemp(path), saved = dup(STDERR_FILENO);
    struct slurm_conf *conf;
    ssize_t n;

    assert_true(fd >= 0 && saved >= 0);
    fflush(stderr);
    dup2(fd, STDERR_FILENO);
    conf = conf_parse("slurm.conf", text, "", NULL);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    n = pread(fd, out, size - 1, 0);
    out[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    return conf;
}

static void defaults_without_keywords(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok("", NULL);

    assert_string_equal(conf->path, "slurm.conf");
    assert_null(conf->cluster_name);
    assert_null(conf->ctld_host);
    assert_int_equal(conf->ctld_port, 6817);
    assert_int_equal(conf->slurmd_port, 6818);
    assert_string_equal(conf->slurm_user, "root");
    assert_string_equal(conf->state_save_location, "/var/spool");
    assert_string_equal(conf->slurmd_spool_dir, "/var/spool/slurmd");
    assert_string_equal(conf->ctld_debug, "info");
    assert_string_equal(conf->slurmd_debug, "info");
    assert_null(conf->auth_socket);
    assert_null(conf->ctld_log_file);
    assert_int_equal(conf->first_job_id, 1);
    assert_int_equal(conf->max_job_count, 10000);
    assert_int_equal(conf->max_array_size, 1001);
    assert_int_equal(conf->sched.max_script_size, 4 * 1024 * 1024);
    assert_int_equal(conf->kill_wait_s, 30);
    assert_int_equal(conf->min_job_age_s, 300);
    assert_int_equal(conf->slurmd_timeout_s, 300);
    assert_int_equal(conf->msg_timeout_s, 10);
    assert_int_equal(conf->tcp_timeout_s, 2); /* Slurm's TCPTimeout */
    assert_int_equal(conf->return_to_service, 1);
    assert_string_equal(conf->select_type, "select/cons_tres");
    assert_string_equal(conf->scheduler_type, "sched/backfill");
    assert_int_equal(conf->node_count, 0);
    assert_int_equal(conf->partition_count, 0);
    assert_null(conf_partition_default(conf));
    conf_destroy(conf);
}

static void global_keywords_are_parsed(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok(
        "# a comment line\n"
        "clustername=alpha   # keywords are case-insensitive\n"
        "SlurmctldHost=ctl1(10.0.0.1)\n"
        "SlurmctldHost=ctl2\n"
        "SlurmctldPort=7817 SlurmdPort=7818\n"
        "AuthInfo=socket=/tmp/munge.sock,ttl=60\n"
        "DroverOperators=alice,bob\n"
        "SlurmctldDebug=debug2 SlurmctldLogFile= SlurmdDebug=5\n"
        "SlurmdLogFile = \"/var/log/drover/%n log\"\n"
        "MessageTimeout=20 TCPTimeout=3 KillWait=5 ReturnToService=2\n"
        "SlurmdSpoolDir=/tmp/spool/%n\n"
        "AuthType=auth/munge SchedulerParameters=bf_interval=30\n",
        NULL);

    assert_string_equal(conf->cluster_name, "alpha");
    assert_string_equal(conf->ctld_host, "ctl1"); /* the primary */
    assert_string_equal(conf->ctld_addr, "10.0.0.1");
    assert_int_equal(conf->ctld_backup_count, 1); /* a backup */
    assert_string_equal(conf->ctld_backup_hosts[0], "ctl2");
    assert_string_equal(conf->ctld_backup_addrs[0], "ctl2");
    assert_int_equal(conf->raft_port, 0);
    assert_int_equal(conf->ctld_port, 7817);
    assert_int_equal(conf->slurmd_port, 7818);
    assert_string_equal(conf->auth_socket, "/tmp/munge.sock");
    assert_string_equal(conf->operators, "alice,bob");
    assert_string_equal(conf->ctld_debug, "debug2");
    assert_string_equal(conf->slurmd_debug, "debug");
    assert_null(conf->ctld_log_file); /* empty */
    assert_string_equal(conf->slurmd_log_file, "/var/log/drover/%n log");
    assert_int_equal(conf->msg_timeout_s, 20);
    assert_int_equal(conf->tcp_timeout_s, 3);
    assert_int_equal(conf->kill_wait_s, 5);
    assert_int_equal(conf->return_to_service, 2);
    conf_destroy(conf);
}

/* SlurmctldParameters=rl_*: Slurm's defaults, values read, bad ones
 * refused naming the item, Slurm's other items still accepted. */
static void ctld_params_rate_limit(void **state)
{
    struct slurm_conf *conf;

    (void)state;
    conf = parse_ok("SlurmctldParameters=enable_configless\n", NULL);
    assert_false(conf->rl.enable);
    assert_int_equal(conf->rl.bucket_size, 30);
    assert_int_equal(conf->rl.refill_rate, 2);
    assert_int_equal(conf->rl.refill_period, 1);
    assert_int_equal(conf->rl.table_size, 8192);
    assert_int_equal(conf->rl.log_freq, 0);
    conf_destroy(conf);
    conf = parse_ok("SlurmctldParameters=idle_on_node_suspend,RL_ENABLE,"
                    "rl_bucket_size=50,rl_refill_rate=10,rl_refill_period=3,"
                    "rl_table_size=16,rl_log_freq=5,drover_raft_port=7000\n",
                    NULL);
    assert_true(conf->rl.enable);
    assert_int_equal(conf->rl.bucket_size, 50);
    assert_int_equal(conf->rl.refill_rate, 10);
    assert_int_equal(conf->rl.refill_period, 3);
    assert_int_equal(conf->rl.table_size, 16);
    assert_int_equal(conf->rl.log_freq, 5);
    assert_int_equal(conf->raft_port, 7000);
    conf_destroy(conf);
    parse_fails("SlurmctldParameters=rl_enable,rl_bucket_size=0\n", NULL,
                "slurm.conf: SlurmctldParameters=rl_bucket_size=0: expected "
                "a whole number of at least 1");
    parse_fails("SlurmctldParameters=rl_refill_rate=two\n", NULL,
                "rl_refill_rate=two");
    parse_fails("SlurmctldParameters=drover_raft_port=0\n", NULL,
                "expected a port number");
}

/* SlurmdParameters=drover_metrics=: off by default, a port alone binds
 * 127.0.0.1, "+N" adds to each node's Port=, Slurm's items accepted,
 * unknown items and bad values refused naming the item. */
static void slurmd_params_metrics(void **state)
{
    static const char node[] = "NodeName=n1 Port=7000\n";
    struct slurm_conf *conf;
    char text[256];

    (void)state;
    snprintf(text, sizeof(text), "%sSlurmdParameters=config_overrides\n",
             node);
    conf = parse_ok(text, NULL);
    assert_false(conf->metrics.enabled);
    assert_int_equal(conf_metrics_port(conf, &conf->nodes[0]), 0);
    conf_destroy(conf);
    snprintf(text, sizeof(text), "%sSlurmdParameters=drover_metrics=9101\n",
             node);
    conf = parse_ok(text, NULL);
    assert_string_equal(conf->metrics.host, "127.0.0.1");
    assert_int_equal(conf_metrics_port(conf, &conf->nodes[0]), 9101);
    conf_destroy(conf);
    snprintf(text, sizeof(text), "%sSlurmdParameters=shutdown_on_reboot,"
             "drover_metrics=10.1.2.3:+100\n", node);
    conf = parse_ok(text, NULL);
    assert_string_equal(conf->metrics.host, "10.1.2.3");
    assert_int_equal(conf_metrics_port(conf, &conf->nodes[0]), 7100);
    conf_destroy(conf);
    snprintf(text, sizeof(text), "%sSlurmdParameters=drover_metrics="
             "[::1]:9100\n", node);
    conf = parse_ok(text, NULL);
    assert_string_equal(conf->metrics.host, "::1");
    assert_int_equal(conf_metrics_port(conf, &conf->nodes[0]), 9100);
    conf_destroy(conf);
    parse_fails("SlurmdParameters=drover_metrics=0\n", NULL,
                "SlurmdParameters=drover_metrics=0: expected [HOST:]PORT");
    parse_fails("SlurmdParameters=drover_metrics=:9100\n", NULL,
                "the host is empty");
    parse_fails("SlurmdParameters=no_such_item\n", NULL,
                "SlurmdParameters=no_such_item: unknown item");
}

/* BcastParameters=: sbcast's DestDir, compression and send_libs
 * defaults; unknown items and relative directories refused. */
static void bcast_params_items(void **state)
{
    struct slurm_conf *conf;

    (void)state;
    conf = parse_ok("ClusterName=c\n", NULL);
    assert_null(conf->bcast.dest_dir);
    assert_false(conf->bcast.compress);
    assert_false(conf->bcast.send_libs);
    conf_destroy(conf);
    conf = parse_ok("BcastParameters=DestDir=/scratch,Compression=lz4,"
                    "no_send_libs\n", NULL);
    assert_string_equal(conf->bcast.dest_dir, "/scratch");
    assert_true(conf->bcast.compress);
    assert_false(conf->bcast.send_libs);
    conf_destroy(conf);
    conf = parse_ok("BcastParameters=Compression=none,send_libs\n", NULL);
    assert_false(conf->bcast.compress);
    assert_true(conf->bcast.send_libs);
    conf_destroy(conf);
    parse_fails("BcastParameters=DestDir=tmp\n", NULL,
                "BcastParameters=DestDir=tmp: not an absolute path");
    parse_fails("BcastParameters=Compression=zstd\n", NULL,
                "BcastParameters=Compression=zstd: unknown item");
}

static void task_plugin_param_items(void **state)
{
    struct slurm_conf *conf;

    (void)state;
    conf = parse_ok("TaskPluginParam=Cores,verbose,autobind=threads,"
                    "SlurmdOffSpec\n", NULL);
    assert_int_equal(conf->task_param.bind, CPUBIND_CORES);
    assert_int_equal(conf->task_param.autobind, CPUBIND_THREADS);
    assert_true(conf->task_param.verbose);
    assert_true(conf->task_param.slurmd_off_spec);
    conf_destroy(conf);
    conf = parse_ok("NodeName=n1\n", NULL);
    assert_int_equal(conf->task_param.bind, CPUBIND_UNSET);
    conf_destroy(conf);
    parse_fails("TaskPluginParam=Cores,Sockets\n", NULL,
                "more than one of None, Sockets, Cores and Threads");
    parse_fails("TaskPluginParam=autobind=none\n", NULL,
                "autobind takes Threads, Cores or Sockets");
    parse_fails("TaskPluginParam=Cpusets\n", NULL,
                "TaskPluginParam=Cpusets: unknown item");
}

static void ctld_addr_defaults_to_host(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok("ControlMachine=head\n", NULL);

    assert_string_equal(conf->ctld_host, "head");
    assert_string_equal(conf->ctld_addr, "head");
    conf_destroy(conf);
}

static void accounting_storage_keys_are_parsed(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok(
        "AccountingStorageType=accounting_storage/slurmdbd\n"
        "AccountingStorageHost=dbhost\nAccountingStoragePort=6900\n", NULL);

    assert_string_equal(conf->accounting_storage_type,
                        "accounting_storage/slurmdbd");
    assert_string_equal(conf->accounting_storage_host, "dbhost");
    assert_int_equal(conf->accounting_storage_port, 6900);
    conf_destroy(conf);
    conf = parse_ok("ControlMachine=head\n", NULL);
    assert_null(conf->accounting_storage_type);
    assert_null(conf->accounting_storage_host);
    assert_int_equal(conf->accounting_storage_port, 6819);
    conf_destroy(conf);
}

static void accounting_storage_enforce_flags(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok("", NULL);
    char buf[80];

    assert_int_equal(conf->accounting_storage_enforce, 0);
    assert_string_equal(conf_enforce_string(0, buf, sizeof(buf)), "none");
    conf_destroy(conf);
    conf = parse_ok("AccountingStorageEnforce=qos,Limits\n", NULL);
    assert_int_equal(conf->accounting_storage_enforce,
                     CONF_ENFORCE_ASSOCS | CONF_ENFORCE_LIMITS
                         | CONF_ENFORCE_QOS);
    assert_string_equal(conf_enforce_string(conf->accounting_storage_enforce,
                                            buf, sizeof(buf)),
                        "associations,limits,qos");
    conf_destroy(conf);
    conf = parse_ok("AccountingStorageEnforce=safe,nojobs\n", NULL);
    assert_string_equal(conf_enforce_string(conf->accounting_storage_enforce,
                                            buf, sizeof(buf)),
                        "associations,limits,nojobs,nosteps,safe");
    conf_destroy(conf);
    parse_fails("AccountingStorageEnforce=associations,bogus\n", NULL,
                "AccountingStorageEnforce=associations,bogus: expected");
}

static void private_data_flags(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok("", NULL);
    char buf[128];

    assert_int_equal(conf->private_data, 0);
    assert_string_equal(conf_private_string(0, buf, sizeof(buf)), "none");
    conf_destroy(conf);
    conf = parse_ok("PrivateData=usage,Jobs,nodes\n", NULL);
    assert_int_equal(conf->private_data, CONF_PRIVATE_JOBS
                                             | CONF_PRIVATE_NODES
                                             | CONF_PRIVATE_USAGE);
    assert_string_equal(conf_private_string(conf->private_data, buf,
                                            sizeof(buf)),
                        "jobs,nodes,usage");
    conf_destroy(conf);
    conf = parse_ok("PrivateData=all\n", NULL);
    assert_string_equal(conf_private_string(conf->private_data, buf,
                                            sizeof(buf)),
                        "accounts,cloud,events,jobs,nodes,partitions,"
                        "reservations,usage,users");
    conf_destroy(conf);
    parse_fails("PrivateData=jobs,secrets\n", NULL,
                "PrivateData=jobs,secrets: expected");
}

/* TaskProlog/TaskEpilog (absolute paths) and PropagateResourceLimits*
 * (checked names). */
static void task_scripts_and_propagated_limits(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok("", NULL);

    assert_null(conf->task_prolog);
    assert_string_equal(conf->propagate_rlimits, "ALL");
    assert_null(conf->propagate_rlimits_except);
    conf_destroy(conf);
    conf = parse_ok("TaskProlog=/etc/tp\nTaskEpilog=/etc/te\n"
                    "PropagateResourceLimits=CORE,nofile\n"
                    "PropagateResourceLimitsExcept=RLIMIT_AS\n", NULL);
    assert_string_equal(conf->task_prolog, "/etc/tp");
    assert_string_equal(conf->task_epilog, "/etc/te");
    assert_string_equal(conf->propagate_rlimits, "CORE,nofile");
    assert_string_equal(conf->propagate_rlimits_except, "RLIMIT_AS");
    conf_destroy(conf);
    parse_fails("TaskProlog=tp.sh\n", NULL, "not an absolute path");
    parse_fails("PropagateResourceLimits=CORE,BOGUS\n", NULL,
                "PropagateResourceLimits=CORE,BOGUS: expected ALL, NONE");
}

/* Job memory defaults and limits, DisableRootJobs, MaxTasksPerNode and
 * MaxStepCount: Slurm's defaults, each partition's own value or the
 * global one, and the errors naming line and keyword. */
static void job_defaults_and_limits(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok("NodeName=n1\nPartitionName=p Nodes=n1\n",
                                       NULL);

    assert_int_equal(conf->def_mem.mib, 0);
    assert_int_equal(conf->max_mem.mib, 0);
    assert_false(conf->disable_root_jobs);
    assert_int_equal(conf->max_tasks_per_node, 512);
    assert_int_equal(conf->max_step_count, 40000);
    assert_int_equal(conf->partitions[0].max_cpus_per_node, UINT32_MAX);
    assert_int_equal(conf->partitions[0].min_nodes, 0);
    assert_int_equal(conf->partitions[0].def_mem.mib, 0);
    conf_destroy(conf);

    /* Partitions before the global keys still inherit them. */
    conf = parse_ok("NodeName=n1\n"
                    "PartitionName=p Nodes=n1 DefMemPerNode=300 "
                    "MaxMemPerCPU=50 DisableRootJobs=NO MinNodes=2 "
                    "MaxCPUsPerNode=4 DefMemPerGPU=1G DefCpuPerGPU=3\n"
                    "PartitionName=q Nodes=n1\n"
                    "DefMemPerCPU=100 MaxMemPerNode=2000 DefMemPerGPU=64\n"
                    "DefCpuPerGPU=2 DisableRootJobs=YES MaxTasksPerNode=16\n"
                    "MaxStepCount=3\n", NULL);
    assert_int_equal(conf->def_mem.mib, 100);
    assert_true(conf->def_mem.per_cpu);
    assert_int_equal(conf->max_mem.mib, 2000);
    assert_false(conf->max_mem.per_cpu);
    assert_true(conf->disable_root_jobs);
    assert_int_equal(conf->max_tasks_per_node, 16);
    assert_int_equal(conf->max_step_count, 3);
    assert_int_equal(conf->partitions[0].def_mem.mib, 300);
    assert_false(conf->partitions[0].def_mem.per_cpu);
    assert_int_equal(conf->partitions[0].max_mem.mib, 50);
    assert_true(conf->partitions[0].max_mem.per_cpu);
    assert_false(conf->partitions[0].disable_root_jobs);
    assert_int_equal(conf->partitions[0].min_nodes, 2);
    assert_int_equal(conf->partitions[0].max_cpus_per_node, 4);
    assert_int_equal(conf->partitions[0].def_mem_per_gpu_mib, 1024);
    assert_int_equal(conf->partitions[0].def_cpu_per_gpu, 3);
    assert_int_equal(conf->partitions[1].def_mem.mib, 100);
    assert_true(conf->partitions[1].def_mem.per_cpu);
    assert_int_equal(conf->partitions[1].max_mem.mib, 2000);
    assert_false(conf->partitions[1].max_mem.per_cpu);
    assert_true(conf->partitions[1].disable_root_jobs);
    assert_int_equal(conf->partitions[1].def_mem_per_gpu_mib, 64);
    assert_int_equal(conf->partitions[1].def_cpu_per_gpu, 2);
    conf_destroy(conf);

    /* PartitionName=DEFAULT's pair value, replaced by a line's own. */
    conf = parse_ok("NodeName=n1\nPartitionName=DEFAULT DefMemPerCPU=7\n"
                    "PartitionName=p Nodes=n1 DefMemPerNode=9\n"
                    "PartitionName=q Nodes=n1\n", NULL);
    assert_int_equal(conf->partitions[0].def_mem.mib, 9);
    assert_false(conf->partitions[0].def_mem.per_cpu);
    assert_int_equal(conf->partitions[1].def_mem.mib, 7);
    assert_true(conf->partitions[1].def_mem.per_cpu);
    conf_destroy(conf);

    parse_fails("DefMemPerCPU=100\nDefMemPerNode=200\n", NULL,
                "slurm.conf:2: DefMemPerNode=200: DefMemPerCPU and "
                "DefMemPerNode are mutually exclusive");
    parse_fails("MaxMemPerNode=1 MaxMemPerCPU=2\n", NULL,
                "slurm.conf:1: MaxMemPerCPU=2: MaxMemPerCPU and "
                "MaxMemPerNode are mutually exclusive");
    parse_fails("NodeName=n1\nPartitionName=p Nodes=n1 DefMemPerCPU=1 "
                "DefMemPerNode=2\n", NULL,
                "slurm.conf:2: PartitionName=p: DefMemPerNode=2: "
                "DefMemPerCPU and DefMemPerNode are mutually exclusive");
    parse_fails("DefMemPerCPU=lots\n", NULL,
                "slurm.conf:1: DefMemPerCPU=lots: not a number");
    parse_fails("NodeName=n1\nPartitionName=p Nodes=n1 MaxMemPerNode=x\n",
                NULL, "PartitionName=p: MaxMemPerNode=x: not a number");
    parse_fails("DisableRootJobs=maybe\n", NULL,
                "DisableRootJobs=maybe: expected YES or NO");
    parse_fails("MaxTasksPerNode=70000\n", NULL,
                "MaxTasksPerNode=70000: too large");
    parse_fails("MaxStepCount=-1\n", NULL, "MaxStepCount=-1: not a number");
    parse_fails("NodeName=n1\nPartitionName=p Nodes=n1 MinNodes=two\n",
                NULL, "PartitionName=p: MinNodes=two: not a number");
    parse_fails("NodeName=n1\nPartitionName=p Nodes=n1 MaxCPUsPerNode=x\n",
                NULL, "PartitionName=p: MaxCPUsPerNode=x: not a number");
}

/* Priority*, Preempt* and EnforcePartLimits: Slurm's defaults, values,
 * and errors naming line and keyword. */
static void priority_and_preempt_keys(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok("", NULL);
    char buf[256];

    assert_false(conf->priority.multifactor);
    assert_int_equal(conf->priority.max_age_s, 7 * 86400);
    assert_int_equal(conf->priority.decay_half_life_s, 7 * 86400);
    assert_int_equal(conf->priority.calc_period_s, 300);
    assert_int_equal(conf->priority.dampening, 1);
    assert_int_equal(conf->preempt_type, CONF_PREEMPT_NONE);
    assert_int_equal(conf->preempt_mode, CONF_PREEMPT_MODE_OFF);
    assert_int_equal(conf->enforce_part_limits, CONF_PART_LIMITS_NO);
    conf_destroy(conf);
    conf = parse_ok("PriorityType=priority/multifactor\n"
                    "PriorityWeightFairshare=10000 PriorityWeightAge=1000\n"
                    "PriorityWeightTRES=CPU=1000,GRES/gpu=3000\n"
                    "PriorityMaxAge=1-0 PriorityDecayHalfLife=2-0\n"
                    "PriorityCalcPeriod=0:05 PriorityFavorSmall=YES\n"
                    "PriorityFlags=NO_FAIR_TREE,NO_NORMAL_ALL\n"
                    "PriorityUsageResetPeriod=WEEKLY\n"
                    "PreemptType=preempt/partition_prio PreemptMode=REQUEUE\n"
                    "PreemptExemptTime=5:00 EnforcePartLimits=YES\n"
                    "NodeName=n1 CPUs=4\n"
                    "PartitionName=p Nodes=n1 PreemptMode=CANCEL\n"
                    "PartitionName=q Nodes=n1\n", NULL);
    assert_true(conf->priority.multifactor);
    assert_int_equal(conf->priority.weight_fairshare, 10000);
    assert_int_equal(conf->priority.weight_tres[0], 1000);
    assert_int_equal(conf->priority.weight_tres[3], 3000);
    assert_string_equal(conf->priority.weight_tres_text,
                        "CPU=1000,GRES/gpu=3000");
    assert_int_equal(conf->priority.max_age_s, 86400);
    assert_int_equal(conf->priority.calc_period_s, 5);
    assert_true(conf->priority.favor_small);
    assert_string_equal(conf_priority_flags_string(conf->priority.flags, buf,
                                                   sizeof(buf)),
                        "NO_FAIR_TREE,NO_NORMAL_ASSOC,NO_NORMAL_PART,"
                        "NO_NORMAL_QOS,NO_NORMAL_TRES");
    assert_string_equal(
        conf_priority_reset_string(conf->priority.usage_reset), "WEEKLY");
    assert_int_equal(conf->preempt_type, CONF_PREEMPT_PARTITION_PRIO);
    assert_int_equal(conf->preempt_exempt_s, 300);
    assert_int_equal(conf->enforce_part_limits, CONF_PART_LIMITS_ALL);
    assert_int_equal(conf->partitions[0].preempt_mode,
                     CONF_PREEMPT_MODE_CANCEL);
    assert_int_equal(conf->partitions[1].preempt_mode,
                     CONF_PREEMPT_MODE_UNSET);
    conf_destroy(conf);
    parse_fails("PriorityType=priority/fancy\n", NULL,
                "slurm.conf:1: PriorityType=priority/fancy: expected");
    parse_fails("PriorityFlags=DEPTH_OBLIVIOUS\n", NULL,
                "DEPTH_OBLIVIOUS is not supported");
    parse_fails("PriorityWeightTRES=Licenses=5\n", NULL, "unknown TRES");
    conf = parse_ok("PreemptMode=SUSPEND,GANG\nNodeName=n1\n"
                    "PartitionName=p Nodes=n1 PreemptMode=REQUEUE,GANG\n", NULL);
    assert_int_equal(conf->preempt_mode, CONF_PREEMPT_MODE_SUSPEND);
    assert_true(conf->preempt_gang);
    assert_int_equal(conf->partitions[0].preempt_mode,
                     CONF_PREEMPT_MODE_REQUEUE);
    conf_destroy(conf);
    conf = parse_ok("PreemptMode=gang\n", NULL);
    assert_int_equal(conf->preempt_mode, CONF_PREEMPT_MODE_OFF);
    assert_true(conf->preempt_gang);
    conf_destroy(conf);
    parse_fails("PreemptMode=SUSPEND\n", NULL,
                "PreemptMode=SUSPEND requires GANG too");
    parse_fails("NodeName=n1\nPartitionName=p Nodes=n1 PreemptMode=SUSPEND\n",
                NULL, "PreemptMode=SUSPEND requires GANG too");
    conf = parse_ok("PreemptMode=GANG\nSchedulerTimeSlice=10\nNodeName=n1\n"
                    "PartitionName=p Nodes=n1 OverSubscribe=FORCE:2\n"
                    "PartitionName=q Nodes=n1 OverSubscribe=YES\n"
                    "PartitionName=r Nodes=n1 OverSubscribe=EXCLUSIVE\n", NULL);
    assert_int_equal(conf->sched_time_slice_s, 10);
    assert_int_equal(conf->partitions[0].oversubscribe, 2);
    assert_true(conf->partitions[0].oversubscribe_force);
    assert_int_equal(conf->partitions[1].oversubscribe, 4);
    assert_false(conf->partitions[1].oversubscribe_force);
    assert_true(conf->partitions[2].exclusive_nodes);
    assert_int_equal(conf->partitions[2].oversubscribe, 0);
    conf_destroy(conf);
    parse_fails("NodeName=n1\nPartitionName=p Nodes=n1 OverSubscribe=FORCE:0\n",
                NULL, "1 to 255");
    parse_fails("PreemptMode=CANCEL,REQUEUE\n", NULL, "expected OFF");
    parse_fails("NodeName=n1\nPartitionName=p Nodes=n1 OverSubscribe=MAYBE\n",
                NULL, "expected NO, EXCLUSIVE");
    parse_fails("EnforcePartLimits=SOME\n", NULL, "expected NO, ANY or ALL");
    parse_fails("NodeName=n1\nPartitionName=p Nodes=n1 PreemptMode=x\n",
                NULL, "PreemptMode=x");
}

static void partition_access_keys(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok(
        "NodeName=n[1-2] CPUs=1\n"
        "PartitionName=DEFAULT DenyAccounts=guest Hidden=YES\n"
        "PartitionName=a Nodes=n1 RootOnly=YES AllowGroups=wheel,admin "
        "AllowAccounts=ALL AllowQos=high\n"
        "PartitionName=b Nodes=n2 Hidden=NO DenyQos=low\n", NULL);
    const struct conf_partition *a = conf_partition_find(conf, "a");
    const struct conf_partition *b = conf_partition_find(conf, "b");

    assert_true(a->root_only && a->hidden);
    assert_string_equal(a->allow_groups, "wheel,admin");
    assert_null(a->allow_accounts); /* ALL: no restriction */
    assert_string_equal(a->deny_accounts, "guest"); /* from DEFAULT */
    assert_string_equal(a->allow_qos, "high");
    assert_null(a->deny_qos);
    assert_false(b->root_only || b->hidden);
    assert_null(b->allow_groups);
    assert_string_equal(b->deny_qos, "low");
    conf_destroy(conf);
    parse_fails("NodeName=n1 CPUs=1\nPartitionName=p Nodes=n1 RootOnly=maybe\n",
                NULL, "PartitionName=p: RootOnly=maybe: expected YES or NO");
}

static void continuation_joins_lines(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok("NodeName=n1 \\\n"
                                       "   CPUs=4 \\\n"
                                       "   RealMemory=1000 # comment\n"
                                       "ClusterName=c\n",
                                       NULL);

    assert_int_equal(conf->node_count, 1);
    assert_int_equal(conf->nodes[0].cpus, 4);
    assert_int_equal(conf->nodes[0].real_memory_mib, 1000);
    assert_string_equal(conf->cluster_name, "c");
    conf_destroy(conf);
}

static void node_ranges_and_default(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok(
        "NodeName=DEFAULT CPUs=16 RealMemory=64000 State=unknown\n"
        "NodeName=node[01-04] Feature=a100,nvlink Weight=10\n"
        "NodeName=DEFAULT TmpDisk=100\n"
        "NodeName=cpu1 CPUs=4 RealMemory=8G\n"
        "SlurmdPort=7000\n",
        NULL);
    const struct conf_node *n;

    assert_int_equal(conf->node_count, 5);
    n = &conf->nodes[0];
    assert_string_equal(n->name, "node01");
    assert_string_equal(n->hostname, "node01");
    assert_string_equal(n->addr, "node01");
    assert_int_equal(n->port, 7000); /* SlurmdPort, even when set later */
    assert_int_equal(n->cpus, 16);
    assert_int_equal(n->real_memory_mib, 64000);
    assert_int_equal(n->tmp_disk_mib, 0);
    assert_int_equal(n->weight, 10);
    assert_string_equal(n->state, "UNKNOWN");
    assert_string_equal(n->features, "a100,nvlink");
    assert_string_equal(conf->nodes[3].name, "node04");
    n = conf_node_find(conf, "cpu1");
    assert_non_null(n);
    assert_int_equal(n->cpus, 4);
    assert_int_equal(n->real_memory_mib, 8192);
    assert_int_equal(n->tmp_disk_mib, 100); /* DEFAULT lines accumulate */
    assert_string_equal(n->state, "UNKNOWN");
    assert_int_equal(n->weight, 1);
    assert_null(n->features);
    assert_null(conf_node_find(conf, "node05"));
    assert_null(conf_node_find(NULL, "node01"));
    conf_destroy(conf);
}

static const struct {
    const char *line;
    uint32_t cpus, boards, sockets, cores, threads;
} topology_cases[] = {
    { "NodeName=n1", 1, 1, 1, 1, 1 },
    { "NodeName=n1 CPUs=8", 8, 1, 1, 8, 1 },
    { "NodeName=n1 Sockets=2 CoresPerSocket=8 ThreadsPerCore=2", 32, 1, 2, 8,
      2 },
    { "NodeName=n1 Boards=2 SocketsPerBoard=2 CoresPerSocket=4", 16, 2, 4, 4,
      1 },
    { "NodeName=n1 CPUs=16 CoresPerSocket=8", 16, 1, 2, 8, 1 },
    { "NodeName=n1 CPUs=16 ThreadsPerCore=2", 16, 1, 1, 8, 2 },
    { "NodeName=n1 Procs=2", 2, 1, 1, 2, 1 },
};

static void node_topology_is_inferred(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(topology_cases) / sizeof(topology_cases[0]);
         i++) {
        struct slurm_conf *conf = parse_ok(topology_cases[i].line, NULL);
        const struct conf_node *n = &conf->nodes[0];
        if (n->cpus != topology_cases[i].cpus
            || n->boards != topology_cases[i].boards
            || n->sockets != topology_cases[i].sockets
            || n->cores_per_socket != topology_cases[i].cores
            || n->threads_per_core != topology_cases[i].threads)
            fail_msg("%s: got CPUs=%u Boards=%u Sockets=%u Cores=%u "
                     "Threads=%u", topology_cases[i].line, n->cpus, n->boards,
                     n->sockets, n->cores_per_socket, n->threads_per_core);
        conf_destroy(conf);
    }
}

static void port_range_is_assigned_in_order(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok(
        "NodeName=n[1-4] NodeHostname=localhost NodeAddr=127.0.0.1 "
        "Port=17001-17004\n"
        "NodeName=m[1-2] Port=[18001-18002]\n"
        "NodeName=k[1-3] Port=19000 NodeAddr=10.0.0.[1-3]\n",
        NULL);

    assert_int_equal(conf->node_count, 9);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(conf->nodes[i].port, 17001 + i);
        assert_string_equal(conf->nodes[i].hostname, "localhost");
        assert_string_equal(conf->nodes[i].addr, "127.0.0.1");
    }
    assert_int_equal(conf_node_find(conf, "m2")->port, 18002);
    assert_int_equal(conf_node_find(conf, "k1")->port, 19000);
    assert_int_equal(conf_node_find(conf, "k3")->port, 19000);
    assert_string_equal(conf_node_find(conf, "k1")->addr, "10.0.0.1");
    assert_string_equal(conf_node_find(conf, "k3")->addr, "10.0.0.3");
    assert_string_equal(conf_node_find(conf, "k3")->hostname, "k3");
    conf_destroy(conf);
}

static void gres_untyped_without_gres_conf(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok("GresTypes=gpu\n"
                                       "NodeName=g[1-2] Gres=gpu:8\n",
                                       NULL);
    const struct conf_node *n = &conf->nodes[1];

    assert_string_equal(conf->gres_types, "gpu");
    assert_int_equal(n->gres_count, 1);
    assert_string_equal(n->gres[0].name, "gpu");
    assert_null(n->gres[0].type);
    assert_int_equal(n->gres[0].count, 8);
    assert_int_equal(n->gres_dev_count, 8);
    for (int i = 0; i < 8; i++) {
        assert_string_equal(n->gres_devs[i].name, "gpu");
        assert_null(n->gres_devs[i].type);
        assert_null(n->gres_devs[i].file);
        assert_int_equal(n->gres_devs[i].index, i);
    }
    conf_destroy(conf);
}

/* 1,024 devices of a GRES on a node is the most; shares are no devices. */
static void gres_device_count_bound(void **state)
{
    (void)state;
    struct slurm_conf *conf =
        parse_ok("NodeName=g1 Gres=gpu:1024,mps:100000\n", NULL);

    assert_int_equal(conf->nodes[0].gres_dev_count, 1024);
    conf_destroy(conf);
}

static void gres_typed_without_gres_conf(void **state)
{
    (void)state;
    struct slurm_conf *conf =
        parse_ok("NodeName=g1 Gres=gpu:a100:4,gpu:v100:2(S:0-1),mps:100\n",
                 NULL);
    const struct conf_node *n = &conf->nodes[0];

    assert_int_equal(n->gres_count, 3);
    assert_string_equal(n->gres[0].type, "a100");
    assert_int_equal(n->gres[0].count, 4);
    assert_string_equal(n->gres[1].type, "v100");
    assert_int_equal(n->gres[1].count, 2);
    assert_string_equal(n->gres[2].name, "mps");
    assert_int_equal(n->gres_dev_count, 6); /* mps shares them */
    assert_string_equal(n->gres_devs[0].type, "a100");
    assert_string_equal(n->gres_devs[4].type, "v100");
    assert_int_equal(n->gres_devs[5].index, 5);
    assert_string_equal(n->gpu_share, "mps");
    assert_int_equal(n->gpu_shards[0], 17); /* 100 over 6 GPUs */
    assert_int_equal(n->gpu_shards[5], 16);
    conf_destroy(conf);
}

static void gres_name_only_counts_one(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok("NodeName=g1 Gres=gpu,fpga:xilinx\n",
                                       NULL);
    const struct conf_node *n = &conf->nodes[0];

    assert_int_equal(n->gres_count, 2);
    assert_int_equal(n->gres[0].count, 1);
    assert_string_equal(n->gres[1].type, "xilinx");
    assert_int_equal(n->gres[1].count, 1);
    conf_destroy(conf);
}

static void gres_conf_file_range(void **state)
{
    (void)state;
    struct slurm_conf *conf =
        parse_ok("NodeName=g[1-2] Gres=gpu:4\nNodeName=c1\n",
                 "AutoDetect=off\n"
                 "NodeName=g[1-2] Name=gpu File=/tmp/fakegpu/nvidia[0-3]\n"
                 "NodeName=other[1-9] Name=gpu File=/dev/nvidia0\n");
    const struct conf_node *n = &conf->nodes[1];

    assert_int_equal(n->gres_dev_count, 4);
    assert_string_equal(n->gres_devs[0].file, "/tmp/fakegpu/nvidia0");
    assert_string_equal(n->gres_devs[3].file, "/tmp/fakegpu/nvidia3");
    assert_int_equal(n->gres_devs[3].index, 3);
    assert_null(n->gres_devs[3].type);
    assert_int_equal(conf->nodes[2].gres_dev_count, 0);
    conf_destroy(conf);
}

/* gres/shard: per GPU, from File= lines or shared over all GPUs. */
static void gres_shards_per_gpu(void **state)
{
    (void)state;
    struct slurm_conf *conf =
        parse_ok("NodeName=g1 Gres=gpu:2,shard:6\n"
                 "NodeName=g2 Gres=gpu:3,shard:7\nNodeName=c1\n",
                 "NodeName=g1 Name=gpu File=/dev/nvidia[0-1]\n"
                 "NodeName=g1 Name=shard Count=4 File=/dev/nvidia1\n"
                 "NodeName=g1 Name=shard Count=2 File=/dev/nvidia0\n");
    const struct conf_node *g1 = &conf->nodes[0], *g2 = &conf->nodes[1];

    assert_int_equal(g1->gres_dev_count, 2); /* shards are no devices */
    assert_int_equal(g1->gpu_shards[0], 2);
    assert_int_equal(g1->gpu_shards[1], 4);
    assert_int_equal(g2->gpu_shards[0], 3); /* 7 over 3 GPUs */
    assert_int_equal(g2->gpu_shards[1], 2);
    assert_int_equal(g2->gpu_shards[2], 2);
    assert_null(conf->nodes[2].gpu_shards);
    assert_string_equal(g1->gpu_share, "shard");
    conf_destroy(conf);
    parse_fails("NodeName=g1 Gres=gpu:2,shard:6\n",
                "NodeName=g1 Name=gpu File=/dev/nvidia[0-1]\n"
                "NodeName=g1 Name=shard Count=4 File=/dev/nvidia1\n",
                "gres.conf:2: Name=shard: 4 for node g1, but its "
                "Gres= has shard:6");
    parse_fails("NodeName=g1 Gres=gpu:2,shard:6,mps:200\n", NULL,
                "node g1: gres/shard and gres/mps on one node");
    parse_fails("NodeName=g1 Gres=gpu:2,shard:4\n",
                "NodeName=g1 Name=gpu File=/dev/nvidia[0-1]\n"
                "NodeName=g1 Name=shard Count=4 File=/dev/nvidia7\n",
                "File=/dev/nvidia7: not a GPU of node g1");
    parse_fails("NodeName=c1 Gres=shard:4\n", NULL,
                "node c1: Gres=shard needs GPUs");
}

static void gres_conf_without_nodename_applies_to_all(void **state)
{
    (void)state;
    struct slurm_conf *conf =
        parse_ok("NodeName=g[1-2] Gres=gpu:a100:4\nNodeName=c1\n",
                 "Name=gpu Type=a100 File=/dev/nvidia[0-3]\n");

    for (size_t i = 0; i < 2; i++) {
        const struct conf_node *n = &conf->nodes[i];
        assert_int_equal(n->gres_dev_count, 4);
        assert_string_equal(n->gres_devs[2].type, "a100");
        assert_string_equal(n->gres_devs[2].file, "/dev/nvidia2");
    }
    assert_int_equal(conf->nodes[2].gres_dev_count, 0); /* no Gres= */
    conf_destroy(conf);
}

static void gres_conf_typed_lines(void **state)
{
    (void)state;
    struct slurm_conf *conf =
        parse_ok("NodeName=g1 Gres=gpu:a100:4,gpu:v100:4\n",
                 "Name=gpu Type=a100 File=/dev/nvidia[0-3]\n"
                 "Name=gpu Type=v100 File=/dev/nvidia[4-7]\n");
    const struct conf_node *n = &conf->nodes[0];

    assert_int_equal(n->gres_dev_count, 8);
    assert_string_equal(n->gres_devs[0].type, "a100");
    assert_string_equal(n->gres_devs[4].type, "v100");
    assert_string_equal(n->gres_devs[4].file, "/dev/nvidia4");
    assert_int_equal(n->gres_devs[7].index, 7);
    conf_destroy(conf);
}

/* MIG instances: one device per MultipleFiles= line, the parent GPU's
 * file first; the node's GPU types by index. */
static void gres_conf_multiple_files(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok(
        "NodeName=g1 Gres=gpu:1g.10gb:2,gpu:2g.20gb:1\n",
        "Name=gpu Type=1g.10gb MultipleFiles=/dev/nvidia0,"
        "/dev/nvidia-caps/nvidia-cap[21-22]\n"
        "Name=gpu Type=1g.10gb MultipleFiles=/dev/nvidia0,"
        "/dev/nvidia-caps/nvidia-cap30\n"
        "Name=gpu Type=2g.20gb MultipleFiles=/dev/nvidia0\n");
    const struct conf_node *n = &conf->nodes[0];

    assert_int_equal(n->gres_dev_count, 3);
    assert_string_equal(n->gres_devs[0].file, "/dev/nvidia0");
    assert_string_equal(n->gres_devs[0].more_files[0],
                        "/dev/nvidia-caps/nvidia-cap21");
    assert_string_equal(n->gres_devs[0].more_files[1],
                        "/dev/nvidia-caps/nvidia-cap22");
    assert_null(n->gres_devs[0].more_files[2]);
    assert_string_equal(n->gres_devs[1].more_files[0],
                        "/dev/nvidia-caps/nvidia-cap30");
    assert_null(n->gres_devs[2].more_files);
    assert_string_equal(n->gpu_types[1], "1g.10gb");
    assert_string_equal(n->gpu_types[2], "2g.20gb");
    conf_destroy(conf);
    parse_fails("NodeName=g1 Gres=gpu:1\n",
                "Name=gpu File=/dev/nvidia0 MultipleFiles=/dev/nvidia0\n",
                "File= and MultipleFiles= on one line");
    parse_fails("NodeName=g1 Gres=gpu:2\n",
                "Name=gpu Count=2 MultipleFiles=/dev/nvidia0,/dev/x\n",
                "Count=2 with MultipleFiles=");
}

static void gres_conf_untyped_line_takes_gres_type(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok("NodeName=g1 Gres=gpu:a100:2\n",
                                       "Name=gpu File=/dev/nvidia[0-1]\n");

    assert_string_equal(conf->nodes[0].gres_devs[1].type, "a100");
    conf_destroy(conf);
}

static void gres_conf_count_without_file(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok("NodeName=g1 Gres=gpu:2\n",
                                       "Name=gpu Count=2 AutoDetect=nvml\n");

    assert_int_equal(conf->nodes[0].gres_dev_count, 2);
    assert_null(conf->nodes[0].gres_devs[1].file);
    conf_destroy(conf);
}

static void partitions(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok(
        "NodeName=n[1-4]\n"
        "PartitionName=DEFAULT MaxTime=60 OverSubscribe=NO AllowGroups=ALL\n"
        "PartitionName=debug Nodes=ALL Default=YES\n"
        "PartitionName=gpu Nodes=n[1-2],n4 MaxTime=1-00:00:00 "
        "DefaultTime=30 MaxNodes=2 PriorityTier=10 PriorityJobFactor=3\n"
        "PartitionName=long Nodes=n3 MaxTime=UNLIMITED MaxNodes=UNLIMITED "
        "State=DOWN\n"
        "PartitionName=debug Nodes=n1\n", /* duplicate: ignored */
        NULL);
    const struct conf_partition *p;

    assert_int_equal(conf->partition_count, 3);
    p = conf_partition_default(conf);
    assert_non_null(p);
    assert_string_equal(p->name, "debug");
    assert_string_equal(p->nodes, "n[1-4]");
    assert_true(p->state_up);
    assert_string_equal(p->state, "UP");
    assert_int_equal(p->max_time_s, 3600); /* from DEFAULT, in minutes */
    assert_int_equal(p->default_time_s, TIME_INFINITE);
    assert_int_equal(p->max_nodes, UINT32_MAX);
    assert_int_equal(p->priority_tier, 1);
    p = conf_partition_find(conf, "gpu");
    assert_non_null(p);
    assert_false(p->is_default);
    assert_string_equal(p->nodes, "n[1-2,4]");
    assert_int_equal(p->max_time_s, 86400);
    assert_int_equal(p->default_time_s, 1800);
    assert_int_equal(p->max_nodes, 2);
    assert_int_equal(p->priority_tier, 10);
    assert_int_equal(p->priority_job_factor, 3);
    p = conf_partition_find(conf, "long");
    assert_int_equal(p->max_time_s, TIME_INFINITE);
    assert_false(p->state_up);
    assert_string_equal(p->state, "DOWN");
    assert_null(conf_partition_find(conf, "nosuch"));
    conf_destroy(conf);
}

static void partition_default_last_wins_and_fallback(void **state)
{
    (void)state;
    struct slurm_conf *conf =
        parse_ok("PartitionName=a Default=YES Nodes=n1\n"
                 "PartitionName=b Default=YES\n"
                 "NodeName=n1\n", /* nodes may follow partitions */
                 NULL);

    assert_string_equal(conf_partition_default(conf)->name, "b");
    assert_false(conf_partition_find(conf, "a")->is_default);
    assert_string_equal(conf_partition_find(conf, "b")->nodes, "");
    conf_destroy(conf);
    conf = parse_ok("PartitionName=x\nPartitionName=y\n", NULL);
    assert_string_equal(conf_partition_default(conf)->name, "x");
    conf_destroy(conf);
}

static void down_nodes_line_sets_state(void **state)
{
    (void)state;
    struct slurm_conf *conf =
        parse_ok("NodeName=n[1-3] State=UNKNOWN\n"
                 "DownNodes=n[2-3] State=DRAIN Reason=\"bad fan\"\n",
                 NULL);

    assert_string_equal(conf->nodes[0].state, "UNKNOWN");
    assert_string_equal(conf->nodes[1].state, "DRAIN");
    assert_string_equal(conf->nodes[2].reason, "bad fan");
    conf_destroy(conf);
}

static const struct {
    const char *text;
    const char *gres;
    const char *needle;
} error_cases[] = {
    { "NodeName=n[1-2] CPUs=2\nNodeName=n[1-2] RealMemory=abc\n", NULL,
      "slurm.conf:2: NodeName=n[1-2]: RealMemory=abc: not a number" },
    { "NodeName=n1 CPUs=0\n", NULL, "slurm.conf:1: NodeName=n1: CPUs=0:" },
    { "NodeName=n1 State=sleepy\n", NULL,
      "slurm.conf:1: NodeName=n1: State=sleepy: not a node state" },
    { "NodeName=n[1-\n", NULL, "slurm.conf:1: NodeName=n[1-:" },
    { "NodeName=n[1-2]\nNodeName=n[2-3]\n", NULL,
      "slurm.conf:2: NodeName=n[2-3]: node n2 is already defined" },
    { "NodeName=g1 Gres=gpu:a100:x\n", NULL,
      "slurm.conf:1: NodeName=g1: Gres=gpu:a100:x: count is not a number" },
    { "NodeName=g1 Gres=gpu:8x\n", NULL, "count is not a number" },
    { "NodeName=g1 Gres=gpu:1,gpu:2\n", NULL, "gpu given twice" },
    { "NodeName=g1 Gres=gpu:a:b:c\n", NULL, "too many ':' fields" },
    /* a device record each: a count of billions held a daemon (fuzz) */
    { "NodeName=g1 Gres=gpu:a100:2444444444\n", NULL,
      "NodeName=g1: Gres=gpu:a100:2444444444: count 2444444444 over 1024 "
      "(devices of one GRES on a node)" },
    { "NodeName=n[1-4] Port=17001-17003\n", NULL,
      "slurm.conf:1: NodeName=n[1-4]: Port=17001-17003: 3 ports for 4 nodes" },
    { "NodeName=n1 Port=70000\n", NULL, "Port=70000: not a port" },
    { "NodeName=n[1-4] NodeAddr=a[1-2]\n", NULL,
      "NodeAddr=a[1-2]: 2 names for 4 nodes" },
    { "NodeName=n1\n\nPartitionName=gpu Nodes=n9\n", NULL,
      "slurm.conf:3: PartitionName=gpu: Nodes=n9: no such node" },
    { "NodeName=n1\nPartitionName=p Nodes=n[1\n", NULL,
      "slurm.conf:2: PartitionName=p: Nodes=n[1:" },
    { "PartitionName=p MaxTime=abc\n", NULL,
      "slurm.conf:1: PartitionName=p: MaxTime=abc: not a time limit" },
    { "PartitionName=p Default=maybe\n", NULL,
      "PartitionName=p: Default=maybe:" },
    { "PartitionName=p State=SIDEWAYS\n", NULL, "State=SIDEWAYS:" },
    { "PartitionName=p MaxNodes=-1\n", NULL, "MaxNodes=-1: not a number" },
    { "ClusterName=a\nMessageTimeout=ten\n", NULL,
      "slurm.conf:2: MessageTimeout=ten: not a number" },
    { "ReturnToService=3\n", NULL, "ReturnToService=3: too large" },
    { "SlurmctldDebug=loud\n", NULL, "SlurmctldDebug=loud: not a log level" },
    { "SlurmctldHost=a(b\n", NULL, "SlurmctldHost=a(b:" },
    { "SlurmctldPort=http\n", NULL, "SlurmctldPort=http: not a port" },
    { "ClusterName=\"open\n", NULL, "slurm.conf:1: ClusterName=: unterminated" },
    { "ClusterName=a\nfoo\n", NULL,
      "slurm.conf:2: expected Keyword=Value, found 'foo'" },
    { "NodeName=a \\\n CPUs=1\nNodeName=b CPUs=x\n", NULL,
      "slurm.conf:3: NodeName=b: CPUs=x" },
    { "DownNodes=n7\n", NULL, "slurm.conf:1: DownNodes=n7: no such node n7" },
    /* gres.conf */
    { "NodeName=g1 Gres=gpu:8\n", "Name=gpu File=/dev/nvidia[0-3]\n",
      "gres.conf:1: Name=gpu: 4 devices for node g1, but its Gres= has gpu:8" },
    { "NodeName=g1 Gres=gpu:4\n", "\nName=gpu File=/dev/nvidia[0-3] Count=8\n",
      "gres.conf:2: Name=gpu: Count=8, but File=/dev/nvidia[0-3] names 4" },
    { "NodeName=g1 Gres=gpu:a100:4\n",
      "Name=gpu Type=a100 File=/dev/nvidia[0-1]\n",
      "gres.conf:1: Name=gpu: 2 a100 devices for node g1" },
    { "NodeName=g1 Gres=gpu:a100:4\n",
      "Name=gpu Type=a100 File=/dev/nvidia[0-3]\n"
      "Name=gpu Type=v100 File=/dev/nvidia[4-7]\n",
      "gres.conf:2: Name=gpu Type=v100: not in Gres= of node g1" },
    { "NodeName=g1 Gres=gpu:2\n", "Name=gpu Count=two\n",
      "gres.conf:1: Name=gpu: Count=two: not a number" },
    { "NodeName=g1 Gres=gpu:2\n", "Name=gpu Count=1025\n",
      "gres.conf:1: Name=gpu: Count=1025: over 1024 (devices of one GRES on "
      "a node)" },
    { "NodeName=g1\n", "File=/dev/nvidia0\n", "gres.conf:1: Name= is required" },
    { "NodeName=g1\n", "AutoDetect=magic\n", "gres.conf:1: AutoDetect=magic" },
    { "NodeName=g1\n", "NodeName=g[1 Name=gpu\n", "gres.conf:1: NodeName=g[1:" },
    { "NodeName=g1\n", "Name=gpu File=/dev/nv[0-\n", "gres.conf:1: File=" },
};

static void errors_name_file_line_and_keyword(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++)
        parse_fails(error_cases[i].text, error_cases[i].gres,
                    error_cases[i].needle);
}

static void unknown_keyword_warns_and_parses(void **state)
{
    (void)state;
    char out[4096];
    struct slurm_conf *conf = parse_capturing_stderr(
        "ClusterName=c\nBogusKey=1\nNodeName=n1 Wings=2\n"
        "PartitionName=p Nodes=n1 Colour=red\n",
        out, sizeof(out));

    assert_non_null(conf);
    assert_string_equal(conf->cluster_name, "c");
    assert_int_equal(conf->node_count, 1);
    assert_non_null(strstr(out, "slurm.conf:2: unknown keyword 'BogusKey' "
                                "ignored"));
    assert_non_null(strstr(out, "slurm.conf:3: unknown keyword 'Wings'"));
    assert_non_null(strstr(out, "slurm.conf:4: unknown keyword 'Colour'"));
    conf_destroy(conf);
}

static void tolerated_keyword_is_silent(void **state)
{
    (void)state;
    char out[4096];
    struct slurm_conf *conf = parse_capturing_stderr(
        "AuthType=auth/munge\nMpiDefault=none\nSwitchType=switch/none\n"
        "AccountingStorageType=accounting_storage/none\n"
        "JobCredentialPrivateKey = /etc/key\n",
        out, sizeof(out));

    assert_non_null(conf);
    assert_string_equal(out, "");
    conf_destroy(conf);
}

static void parse_rejects_null(void **state)
{
    (void)state;
    drv_error_t error = { 0 };

    errno = 0;
    assert_null(conf_parse(NULL, "", NULL, &error));
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_null(conf_parse("slurm.conf", NULL, NULL, NULL));
    assert_int_equal(errno, EINVAL);
    conf_destroy(NULL);
}

static void expand_node_path(void **state)
{
    (void)state;
    struct slurm_conf *conf = parse_ok("NodeName=n1 NodeHostname=host1\n",
                                       NULL);
    char *s = conf_expand_node_path("/var/spool/%n/%h-%x%", &conf->nodes[0]);

    assert_string_equal(s, "/var/spool/n1/host1-%x%");
    free(s);
    errno = 0;
    assert_null(conf_expand_node_path(NULL, &conf->nodes[0]));
    assert_int_equal(errno, EINVAL);
    conf_destroy(conf);
}

/* A fresh temporary directory; its path is written into 'dir'. */
static void make_dir(char *dir, size_t size)
{
    snprintf(dir, size, "/tmp/test_conf.XXXXXX");
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

static void load_from_directory(void **state)
{
    (void)state;
    char dir[64], path[PATH_MAX], sub[PATH_MAX];
    drv_error_t error = { 0 };
    struct slurm_conf *conf;

    make_dir(dir, sizeof(dir));
    snprintf(sub, sizeof(sub), "%s/conf.d", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    write_file(dir, "slurm.conf",
               "ClusterName=t\n"
               "Include nodes.conf\n"
               "Include conf.d/*.conf\n"
               "PartitionName=all Nodes=ALL Default=YES\n");
    write_file(dir, "nodes.conf", "NodeName=g[1-2] CPUs=8 Gres=gpu:2\n");
    write_file(dir, "conf.d/a.conf", "NodeName=c1\n");
    write_file(dir, "conf.d/b.conf", "NodeName=c2\n");
    write_file(dir, "gres.conf",
               "NodeName=g[1-2] Name=gpu File=/tmp/fakegpu/nvidia[0-1]\n");
    snprintf(path, sizeof(path), "%s/slurm.conf", dir);

    conf = conf_load(path, &error);
    if (!conf)
        fail_msg("conf_load: %s", error.text);
    assert_string_equal(conf->path, path);
    assert_int_equal(conf->node_count, 4);
    assert_string_equal(conf->nodes[2].name, "c1");
    assert_string_equal(conf->nodes[3].name, "c2");
    assert_string_equal(conf->nodes[1].gres_devs[1].file,
                        "/tmp/fakegpu/nvidia1");
    assert_string_equal(conf_partition_default(conf)->nodes, "g[1-2],c[1-2]");
    conf_destroy(conf);

    setenv("DROVER_CONF", path, 1);
    conf = conf_load(NULL, &error);
    unsetenv("DROVER_CONF");
    if (!conf)
        fail_msg("conf_load(NULL): %s", error.text);
    assert_string_equal(conf->path, path);
    conf_destroy(conf);

    /* SLURM_CONF, as a Slurm site sets it, when DROVER_CONF is unset or
     * empty; DROVER_CONF first */
    setenv("SLURM_CONF", path, 1);
    setenv("DROVER_CONF", "", 1);
    conf = conf_load(NULL, &error);
    if (!conf)
        fail_msg("conf_load(NULL) with SLURM_CONF: %s", error.text);
    assert_string_equal(conf->path, path);
    conf_destroy(conf);
    setenv("DROVER_CONF", "/nonexistent/drover.conf", 1);
    assert_string_equal(conf_env_path(), "/nonexistent/drover.conf");
    assert_null(conf_load(NULL, &error));
    unsetenv("DROVER_CONF");
    unsetenv("SLURM_CONF");
    assert_null(conf_env_path());
    remove_tree(dir);
}

static void load_names_included_file_in_errors(void **state)
{
    (void)state;
    char dir[64], path[PATH_MAX];
    drv_error_t error = { 0 };

    make_dir(dir, sizeof(dir));
    write_file(dir, "slurm.conf", "ClusterName=t\nInclude \"nodes.conf\"\n");
    write_file(dir, "nodes.conf", "NodeName=n1\nNodeName=n2 Weight=heavy\n");
    snprintf(path, sizeof(path), "%s/slurm.conf", dir);
    errno = 0;
    assert_null(conf_load(path, &error));
    assert_int_equal(errno, EINVAL);
    if (!strstr(error.text, "nodes.conf:2: NodeName=n2: Weight=heavy"))
        fail_msg("error: %s", error.text);
    remove_tree(dir);
}

static void load_self_include_is_stopped(void **state)
{
    (void)state;
    char dir[64], path[PATH_MAX];
    drv_error_t error = { 0 };

    make_dir(dir, sizeof(dir));
    write_file(dir, "slurm.conf", "Include slurm.conf\n");
    snprintf(path, sizeof(path), "%s/slurm.conf", dir);
    errno = 0;
    assert_null(conf_load(path, &error));
    assert_int_equal(errno, EINVAL);
    assert_non_null(strstr(error.text, "nested too deeply"));
    remove_tree(dir);
}

static void include_missing_file(void **state)
{
    (void)state;
    drv_error_t error = { 0 };

    errno = 0;
    assert_null(conf_parse("/nonexistent/slurm.conf",
                           "ClusterName=a\nInclude nodes.conf\n", "", &error));
    assert_int_equal(errno, ENOENT);
    assert_string_equal(error.text, "/nonexistent/slurm.conf:2: Include: "
                                    "cannot open /nonexistent/nodes.conf: No "
                                    "such file or directory");
}

static void load_missing_file(void **state)
{
    (void)state;
    drv_error_t error = { 0 };

    errno = 0;
    assert_null(conf_load("/nonexistent/drover/slurm.conf", &error));
    assert_int_equal(errno, ENOENT);
    assert_string_equal(error.text, "cannot open /nonexistent/drover/"
                                    "slurm.conf: No such file or directory");
}

/* SchedulerParameters: the options Drover uses, the ones it accepts, a
 * bad number refused, 512 MB at most for scripts. */
static void scheduler_parameters_max_script_size(void **state)
{
    struct slurm_conf *conf;

    (void)state;
    conf = parse_ok("SchedulerParameters=bf_continue,max_script_size=65536,"
                    "default_queue_depth=100,bf_window=60,bf_max_job_test=50,"
                    "bf_max_job_user=3,bf_max_job_part=7,bf_resolution=120,"
                    "bf_interval=10,defer,bf_max_job_start=4\n", NULL);
    assert_int_equal(conf->sched.max_script_size, 65536);
    assert_int_equal(conf->sched.bf_max_job_start, 4);
    assert_int_equal(conf->sched.bf_window_s, 3600);
    assert_int_equal(conf->sched.bf_max_job_test, 50);
    assert_int_equal(conf->sched.bf_max_job_user, 3);
    assert_int_equal(conf->sched.bf_max_job_part, 7);
    assert_int_equal(conf->sched.bf_resolution_s, 120);
    assert_int_equal(conf->sched.bf_interval_s, 10);
    assert_int_equal(conf->sched.default_queue_depth, 100);
    assert_true(conf->sched.bf_continue && conf->sched.defer);
    conf_destroy(conf);
    conf = parse_ok("SchedulerParameters=bf_continue\n", NULL);
    assert_int_equal(conf->sched.max_script_size,
                     CONF_MAX_SCRIPT_SIZE_DEFAULT);
    assert_int_equal(conf->sched.bf_interval_s, 30);
    conf_destroy(conf);
    parse_fails("SchedulerParameters=max_script_size=536870913\n", NULL,
                "max_script_size: not a number in range");
    parse_fails("SchedulerParameters=bf_max_job_start=10001\n", NULL,
                "bf_max_job_start: not a number in range");
    parse_fails("SchedulerParameters=max_script_size=4M\n", NULL,
                "not a number");
    parse_fails("SchedulerParameters=bf_window=x\n", NULL,
                "bf_window: not a number");
}

/* drover_backfill=predict|slurm (Drover's own), predict by default. */
static void scheduler_parameters_drover_backfill(void **state)
{
    struct slurm_conf *conf;

    (void)state;
    conf = parse_ok("SchedulerParameters=bf_continue\n", NULL);
    assert_int_equal(conf->sched.drover_backfill, CONF_BACKFILL_PREDICT);
    conf_destroy(conf);
    conf = parse_ok("SchedulerParameters=drover_backfill=slurm,"
                    "bf_max_job_test=10\n", NULL);
    assert_int_equal(conf->sched.drover_backfill, CONF_BACKFILL_SLURM);
    assert_int_equal(conf->sched.bf_max_job_test, 10);
    conf_destroy(conf);
    conf = parse_ok("SchedulerParameters=drover_backfill=Predict\n", NULL);
    assert_int_equal(conf->sched.drover_backfill, CONF_BACKFILL_PREDICT);
    conf_destroy(conf);
    parse_fails("SchedulerParameters=drover_backfill=fifo\n", NULL,
                "drover_backfill: not predict or slurm");
    parse_fails("SchedulerParameters=drover_backfill\n", NULL,
                "drover_backfill: not predict or slurm");
}

/* CommunicationParameters=drover_tls_*: the RPC protocol's TLS switch
 * needs the certificate, key and CA; off by default. */
static void comm_params_tls_rpc(void **state)
{
    struct slurm_conf *c;

    (void)state;
    c = parse_ok("NodeName=n1 CPUs=1\n", NULL);
    assert_false(c->tls.rpc);
    assert_null(c->tls.ca);
    conf_destroy(c);
    c = parse_ok("CommunicationParameters=NoAddrCache,drover_tls_rpc,"
                 "drover_tls_cert=/etc/d/c.pem,drover_tls_key=/etc/d/k.pem,"
                 "drover_tls_ca=/etc/d/ca.pem\nNodeName=n1 CPUs=1\n", NULL);
    assert_true(c->tls.rpc);
    assert_string_equal(c->tls.ca, "/etc/d/ca.pem");
    assert_string_equal(c->tls.cert, "/etc/d/c.pem");
    conf_destroy(c);
    parse_fails("CommunicationParameters=drover_tls_rpc,"
                "drover_tls_cert=/c.pem,drover_tls_key=/k.pem\n"
                "NodeName=n1 CPUs=1\n", NULL,
                "slurm.conf: drover_tls_rpc needs drover_tls_cert=,"
                "drover_tls_key=,drover_tls_ca=");
    parse_fails("CommunicationParameters=drover_tls_rpc,drover_tls_ca=/ca\n"
                "NodeName=n1 CPUs=1\n", NULL, "drover_tls_rpc needs");
    parse_fails("CommunicationParameters=drover_tls_ca=ca.pem\n"
                "NodeName=n1 CPUs=1\n", NULL, "not an absolute path");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scheduler_parameters_max_script_size),
        cmocka_unit_test(scheduler_parameters_drover_backfill),
        cmocka_unit_test(defaults_without_keywords),
        cmocka_unit_test(global_keywords_are_parsed),
        cmocka_unit_test(ctld_addr_defaults_to_host),
        cmocka_unit_test(accounting_storage_keys_are_parsed),
        cmocka_unit_test(accounting_storage_enforce_flags),
        cmocka_unit_test(continuation_joins_lines),
        cmocka_unit_test(node_ranges_and_default),
        cmocka_unit_test(node_topology_is_inferred),
        cmocka_unit_test(port_range_is_assigned_in_order),
        cmocka_unit_test(gres_untyped_without_gres_conf),
        cmocka_unit_test(gres_typed_without_gres_conf),
        cmocka_unit_test(gres_device_count_bound),
        cmocka_unit_test(gres_name_only_counts_one),
        cmocka_unit_test(gres_conf_file_range),
        cmocka_unit_test(gres_conf_without_nodename_applies_to_all),
        cmocka_unit_test(gres_conf_typed_lines),
        cmocka_unit_test(gres_conf_multiple_files),
        cmocka_unit_test(gres_conf_untyped_line_takes_gres_type),
        cmocka_unit_test(gres_conf_count_without_file),
        cmocka_unit_test(gres_shards_per_gpu),
        cmocka_unit_test(partitions),
        cmocka_unit_test(partition_default_last_wins_and_fallback),
        cmocka_unit_test(private_data_flags),
        cmocka_unit_test(task_scripts_and_propagated_limits),
        cmocka_unit_test(priority_and_preempt_keys),
        cmocka_unit_test(job_defaults_and_limits),
        cmocka_unit_test(partition_access_keys),
        cmocka_unit_test(down_nodes_line_sets_state),
        cmocka_unit_test(errors_name_file_line_and_keyword),
        cmocka_unit_test(comm_params_tls_rpc),
        cmocka_unit_test(unknown_keyword_warns_and_parses),
        cmocka_unit_test(tolerated_keyword_is_silent),
        cmocka_unit_test(parse_rejects_null),
        cmocka_unit_test(expand_node_path),
        cmocka_unit_test(ctld_params_rate_limit),
        cmocka_unit_test(slurmd_params_metrics),
        cmocka_unit_test(bcast_params_items),
        cmocka_unit_test(task_plugin_param_items),
        cmocka_unit_test(load_from_directory),
        cmocka_unit_test(load_names_included_file_in_errors),
        cmocka_unit_test(load_self_include_is_stopped),
        cmocka_unit_test(include_missing_file),
        cmocka_unit_test(load_missing_file),
    };

    cmocka_set_message_output(CM_OUTPUT_TAP);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
