# SPDX-License-Identifier: Apache-2.0
"""slurm.conf job defaults and limits (issue 13): DefMemPerCPU/Node,
DefMemPerGPU, DefCpuPerGPU, MaxMemPerCPU/Node (global and per partition),
DisableRootJobs, partition MinNodes and MaxCPUsPerNode, MaxTasksPerNode
and MaxStepCount, seen through the real commands.  Once accepted and
ignored; each test here fails on a controller that ignores them."""
import os
import re
from pathlib import Path

import pytest

from cluster import require, run_job

NOGPU = {"nodes": 2, "gpus_per_node": 0}


def up(*extra, **kw):
    """A cluster parameter: NOGPU with these slurm.conf lines."""
    return dict(NOGPU, **kw, up_args=["--conf-extra=" + e for e in extra])


def part_fields(c, name):
    out = c.run("scontrol", "show", "partition", name, check=True).stdout
    return dict(re.findall(r"(\S+?)=(\S*)", out)), out


def held(c, *args):
    return c.sbatch("-H", "-o", "/dev/null", *args, "--wrap", "true")


def refused(c, *args):
    r = c.run("sbatch", "-o", "/dev/null", *args, "--wrap", "true")
    assert r.returncode != 0, r.stdout
    return r.stderr


@pytest.mark.parametrize("cluster", [up(
    "DefMemPerCPU=100", "MaxMemPerNode=2000", "DisableRootJobs=NO",
    "MaxTasksPerNode=16", "MaxStepCount=5", "DefCpuPerGPU=2",
    "DefMemPerGPU=64",
    "PartitionName=p2 Nodes=ALL DefMemPerNode=300 MaxMemPerCPU=150 "
    "DefCpuPerGPU=3 MinNodes=2 MaxCPUsPerNode=4")], indirect=True)
def test_show_config_and_partition_print_the_values(cluster):
    c = cluster
    assert c.show_config("DefMemPerCPU") == "100"
    assert c.show_config("DefMemPerNode") is None
    assert c.show_config("MaxMemPerNode") == "2000"
    assert c.show_config("DisableRootJobs") == "No"
    assert c.show_config("MaxTasksPerNode") == "16"
    assert c.show_config("MaxStepCount") == "5"
    assert c.show_config("JobDefaults") == "DefCpuPerGPU=2,DefMemPerGPU=64"
    f, out = part_fields(c, "p2")
    assert "DefMemPerNode=300 MaxMemPerCPU=150\n" in out, out
    assert "JobDefaults=DefCpuPerGPU=3,DefMemPerGPU=64\n" in out, out
    assert (f["MinNodes"], f["MaxCPUsPerNode"], f["DisableRootJobs"]) == (
        "2", "4", "NO"), out
    f, out = part_fields(c, "debug")  # the global values
    assert "DefMemPerCPU=100 MaxMemPerNode=2000\n" in out, out
    assert (f["MinNodes"], f["MaxCPUsPerNode"]) == ("0", "UNLIMITED"), out


@pytest.mark.parametrize("cluster", [up(
    "DefMemPerCPU=100",
    "PartitionName=p2 Nodes=ALL DefMemPerNode=300",
    "PartitionName=g Nodes=ALL DefMemPerGPU=512 DefCpuPerGPU=2",
    gpus_per_node=2)], indirect=True)
def test_default_memory_is_the_jobs_and_survives_a_restart(cluster):
    c = cluster
    job = held(c, "-c", "2")
    assert c.job_field(job, "MinMemoryCPU") == "100M"
    assert "mem=200M" in c.job_field(job, "TRES")
    explicit = held(c, "--mem=50")
    assert c.job_field(explicit, "MinMemoryNode") == "50M"
    p2 = held(c, "-p", "p2")
    assert c.job_field(p2, "MinMemoryNode") == "300M"
    # DefMemPerGPU and DefCpuPerGPU: seen in the allocation
    gpu = c.sbatch("-p", "g", "--gpus-per-node=2", "-o", "/dev/null",
                   "--wrap", "sleep 60")
    c.wait_job_state(gpu, ["RUNNING"], timeout=30)
    tres = c.job_field(gpu, "TRES")
    assert "cpu=4," in tres and "mem=1G" in tres, tres
    # The default is in the job's record: a controller restarted without
    # the key keeps it.
    text = c.conf.read_text()
    c.conf.write_text(text.replace("DefMemPerCPU=100\n", ""))
    c.kill("droverctld")
    c.start("droverctld")
    assert c.show_config("DefMemPerNode") == "UNLIMITED"
    assert c.job_field(job, "MinMemoryCPU") == "100M"
    assert c.job_field(p2, "MinMemoryNode") == "300M"
    c.run("scancel", job, explicit, p2, gpu, check=True)


@pytest.mark.parametrize("cluster", [up(
    "MaxMemPerCPU=100",
    "PartitionName=small Nodes=ALL MaxMemPerNode=1000",
    "PartitionName=strict Nodes=ALL MaxMemPerNode=1000")], indirect=True)
def test_max_mem_raises_cpus_or_pends(cluster):
    c = cluster
    # MaxMemPerCPU: -c raised by ceil(250/100)=3, 84 MiB per CPU
    job = held(c, "--mem-per-cpu=250")
    assert c.job_field(job, "CPUs/Task") == "3"
    assert c.job_field(job, "MinMemoryCPU") == "84M"
    # --mem with MaxMemPerCPU: --mincpus raised to ceil(350/100)
    job2 = held(c, "--mem=350")
    assert c.job_field(job2, "MinCPUsNode") == "4"
    # MaxMemPerNode with EnforcePartLimits=NO: pends, never starts
    big = c.sbatch("-p", "small", "--mem=1500", "-o", "/dev/null", "--wrap",
                   "true")
    c.wait_until(lambda: c.job_field(big, "Reason") == "MaxMemPerLimit",
                 what="the job pends with MaxMemPerLimit")
    assert c.job_state(big) == "PENDING"
    ok = c.sbatch("-p", "small", "--mem=1000", "-o", "/dev/null", "--wrap",
                  "true")
    c.wait_job_done(ok, timeout=60)
    assert c.job_state(ok) == "COMPLETED"
    assert c.job_state(big) == "PENDING"
    c.run("scancel", job, job2, big, check=True)


@pytest.mark.parametrize("cluster", [up(
    "EnforcePartLimits=ALL", "MaxMemPerNode=1000")], indirect=True)
def test_max_mem_per_node_refused_under_enforce_part_limits(cluster):
    err = refused(cluster, "--mem=1001")
    assert err == ("sbatch: error: Batch job submission failed: Memory "
                   "required by task is not available\n")


@pytest.mark.parametrize("cluster", [up(
    "DisableRootJobs=YES",
    "PartitionName=open Nodes=ALL DisableRootJobs=NO")], indirect=True)
def test_disable_root_jobs_refuses_root(cluster):
    c = cluster
    require(c.user == "root", "the tests must submit as root")
    assert c.show_config("DisableRootJobs") == "Yes"
    assert refused(c) == ("sbatch: error: Batch job submission failed: "
                          "Invalid user id\n")
    assert part_fields(c, "debug")[0]["DisableRootJobs"] == "YES"
    assert part_fields(c, "open")[0]["DisableRootJobs"] == "NO"
    job = c.sbatch("-p", "open", "-o", "/dev/null", "--wrap", "true")
    c.wait_job_done(job, timeout=60)


@pytest.mark.parametrize("cluster", [up(
    "PartitionName=big Nodes=ALL MinNodes=2 MaxCPUsPerNode=4")],
    indirect=True)
def test_min_nodes_and_max_cpus_per_node(cluster):
    c = cluster
    small = c.sbatch("-p", "big", "-N", "1", "-o", "/dev/null", "--wrap",
                     "true")
    c.wait_until(lambda: c.job_field(small, "Reason") == "PartitionNodeLimit",
                 what="the -N1 job pends with PartitionNodeLimit")
    raised = held(c, "-p", "big")
    assert c.job_field(raised, "NumNodes").startswith("2")
    # more CPUs on one node than MaxCPUsPerNode: never runs
    err = refused(c, "-p", "big", "-N", "2", "-c", "5")
    assert "Requested node configuration is not available" in err, err
    fits = c.sbatch("-p", "big", "-N", "2", "-n", "8", "-o", "/dev/null",
                    "--wrap", "true")
    c.wait_job_done(fits, timeout=60)
    assert c.job_state(fits) == "COMPLETED"
    assert c.job_state(small) == "PENDING"
    c.run("scancel", small, raised, check=True)


@pytest.mark.parametrize("cluster", [up(
    "MaxTasksPerNode=4", "MaxStepCount=2")], indirect=True)
def test_max_tasks_per_node_and_max_step_count(cluster, tmp_path):
    c = cluster
    assert refused(c, "--ntasks-per-node=5") == (
        "sbatch: error: Batch job submission failed: Task count "
        "specification invalid\n")
    _, out, err = run_job(c, tmp_path,
                          "srun -n 5 true; echo rc=$?\n"
                          "srun true; echo rc=$?\n"
                          "srun true; echo rc=$?\n"
                          "srun true; echo rc=$?\n",
                          "-N", "1", "-n", "1", "-c", "8")
    assert out.count("rc=0") == 2, out
    assert "Task count specification invalid" in err, err
    assert "Step limit reached for this job" in err, err


@pytest.mark.parametrize("cluster", [up("DefMemPerNode=100", nodes=1)],
                         indirect=True)
def test_default_memory_is_the_cgroup_limit(cluster, tmp_path):
    """drover up's cgroup.conf constrains RAM: the default is the job's
    limit, as --mem=100M would be (test_cgroups.py)."""
    require(os.geteuid() == 0 and not Path("/sys/fs/cgroup/cgroup.controllers")
            .exists() and Path("/sys/fs/cgroup/memory/cgroup.procs").exists(),
            "needs root and the cgroup v1 memory hierarchy")
    _, out, _ = run_job(
        cluster, tmp_path,
        "p=$(grep -E '^[0-9]+:memory:' /proc/self/cgroup | cut -d: -f3)\n"
        "echo limit=$(cat /sys/fs/cgroup/memory$p/../memory.limit_in_bytes)\n")
    assert f"limit={100 << 20}\n" in out, out
