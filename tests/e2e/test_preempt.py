# SPDX-License-Identifier: Apache-2.0
"""Preemption (issue 11): PreemptType=preempt/partition_prio and
preempt/qos with PreemptMode=REQUEUE and CANCEL, as Slurm 22.05 does it
(slurm-golden/preempt-*): a job of a higher PriorityTier partition (or a
QOS whose Preempt= names the running job's) takes the node at once; the
preempted job is requeued (PENDING, BeginTime two minutes on, Restarts=1)
or ends PREEMPTED; its processes are gone; PreemptExemptTime protects a
young job; PreemptMode=OFF exempts a partition."""
import time

import pytest

HIGH = "PartitionName=high Nodes=ALL PriorityTier=10 MaxTime=INFINITE State=UP"


def one_node(*extra):
    return {"nodes": 1, "gpus_per_node": 0,
            "up_args": ["--cpus-per-node=4"]
            + [f"--conf-extra={kv}" for kv in extra]}


def low_then_urgent(c, low_user, urgent_user, *urgent_args):
    """A 4-CPU job of 'low_user' in the default partition, running; then a
    job of 'urgent_user' with 'urgent_args' (a partition...).  Returns
    their ids."""
    low = c.sbatch("-n4", "-o", "/dev/null", "--wrap", "sleep 300",
                   user=low_user)
    c.wait_job_state(low, "RUNNING", timeout=30)
    urgent = c.sbatch(*urgent_args, "-n4", "-o", "/dev/null", "--wrap",
                      "sleep 300", user=urgent_user)
    return low, urgent


def squeue(c, job):
    r = c.run("squeue", "-h", "-j", job, "-o", "%t %r", check=True)
    return r.stdout.strip()


@pytest.mark.parametrize("cluster", [one_node(
    "PreemptType=preempt/partition_prio", "PreemptMode=REQUEUE", HIGH)],
    indirect=True)
def test_partition_prio_requeues_the_lower_tier_job(cluster, make_user):
    c = cluster
    alice, bob = make_user("drpre1"), make_user("drpre2")
    low = c.sbatch("-J", "low", "-n4", "-o", "/dev/null", "--wrap",
                   "sleep 300", user=alice)
    c.wait_job_state(low, "RUNNING", timeout=30)
    c.wait_until(lambda: c.job_pids(low), 10, "the low job's processes")
    first_submit = c.job_field(low, "SubmitTime")
    time.sleep(1.1)  # so that the requeue's SubmitTime differs
    urgent = c.sbatch("-J", "urgent", "-p", "high", "-n2", "-o", "/dev/null",
                      "--wrap", "sleep 300", user=bob)
    c.wait_job_state(urgent, "RUNNING", timeout=30)
    assert squeue(c, low) == "PD BeginTime"
    assert c.job_field(low, "Restarts") == "1"
    submit = c.job_field(low, "SubmitTime")
    eligible = c.job_field(low, "EligibleTime")
    assert eligible > submit  # two minutes after the preemption
    assert submit > first_submit  # as Slurm: the requeue is a new submission
    c.wait_until(lambda: not c.job_pids(low), 30, "the low job's processes gone")
    # sacct -D: the preempted run (its batch step CANCELLED by SIGTERM)
    # and the pending one, as slurm-golden/preempt-sacct-D; plain sacct
    # shows only the newest (preempt-sacct)
    part = c.job_field(low, "Partition")
    want = [f"{low}|low|{part}|PREEMPTED|0:0",
            f"{low}.batch|batch||CANCELLED|0:15", f"{low}|low|{part}|PENDING|0:0"]
    c.wait_until(lambda: c.run(
        "sacct", "-D", "-n", "-P", "-j", low,
        "-o", "JobID,JobName,Partition,State,ExitCode").stdout.split() == want,
        30, "sacct -D to show both runs")
    assert c.run("sacct", "-n", "-P", "-j", low, "-o", "JobID,State",
                 check=True).stdout.split() == [f"{low}|PENDING"]
    assert c.run("scontrol", "show", "partition", "high",
                 check=True).stdout.count("PreemptMode=REQUEUE") == 1
    assert "preempted JobId=" in c.log_file("droverctld").read_text()
    c.run("scancel", low, urgent, check=True)


@pytest.mark.parametrize("cluster", [one_node(
    "PreemptType=preempt/partition_prio", "PreemptMode=CANCEL", HIGH)],
    indirect=True)
def test_cancel_mode_ends_the_job_preempted(cluster, make_user):
    c = cluster
    alice, bob = make_user("drpre1"), make_user("drpre2")
    low, urgent = low_then_urgent(c, alice, bob, "-p", "high")
    c.wait_job_state(urgent, "RUNNING", timeout=30)
    c.wait_job_state(low, "PREEMPTED", timeout=30)
    c.wait_until(lambda: "PREEMPTED" in c.run(
        "sacct", "-X", "-n", "-j", low, "-o", "State").stdout, 30,
        "sacct to show PREEMPTED")
    # a job of the same tier preempts nothing: it waits
    same = c.sbatch("-p", "high", "-n4", "-o", "/dev/null", "--wrap",
                    "sleep 300", user=alice)
    c.wait_until(lambda: squeue(c, same) == "PD Resources", 15,
                 "the same-tier job to wait")
    assert c.job_state(urgent) == "RUNNING"
    c.run("scancel", urgent, same, check=True)


@pytest.mark.parametrize("cluster", [one_node(
    "PreemptType=preempt/partition_prio", "PreemptMode=REQUEUE",
    "PreemptExemptTime=10:00", HIGH)], indirect=True)
def test_exempt_time_protects_a_young_job(cluster, make_user):
    c = cluster
    alice, bob = make_user("drpre1"), make_user("drpre2")
    low, urgent = low_then_urgent(c, alice, bob, "-p", "high")
    c.wait_until(lambda: squeue(c, urgent) == "PD Resources", 15,
                 "the urgent job to wait")
    assert c.job_state(low) == "RUNNING"
    c.run("scancel", low, urgent, check=True)


@pytest.mark.parametrize("cluster", [one_node(
    "PreemptType=preempt/qos", "PreemptMode=REQUEUE")], indirect=True)
def test_qos_preempt_list(cluster, make_user):
    c = cluster
    alice, bob = make_user("drpre1"), make_user("drpre2")
    for cmd in (["add", "qos", "high", "preempt=normal"],
                ["add", "account", "research"],
                ["add", "user", alice, "account=research", "qos=normal"],
                ["add", "user", bob, "account=research", "qos=normal,high"]):
        c.run("sacctmgr", "-i", *cmd, check=True)
    # the controller reads the tables for preempt/qos when it polls
    low, normal = low_then_urgent(c, alice, bob)  # normal: same QOS
    urgent = c.sbatch("--qos=high", "-n4", "-o", "/dev/null", "--wrap",
                      "sleep 300", user=bob)
    c.wait_job_state(urgent, "RUNNING", timeout=30)
    assert squeue(c, low) == "PD BeginTime"
    assert squeue(c, normal).startswith("PD")  # QOS normal preempts nothing
    c.run("scancel", low, normal, urgent, check=True)


LOW = "PartitionName=low Nodes=ALL PriorityTier=1 GraceTime=4 MaxTime=INFINITE"


@pytest.mark.parametrize("cluster", [one_node(
    "PreemptType=preempt/partition_prio", "PreemptMode=CANCEL", HIGH, LOW)],
    indirect=True)
def test_grace_time_sigterm_then_kill(cluster, make_user):
    """GraceTime=4 on the preempted job's partition: SIGTERM at once (the
    job may clean up), the kill 4 s later."""
    c = cluster
    alice, bob = make_user("drpre1"), make_user("drpre2")
    assert "GraceTime=4 " in c.run("scontrol", "show", "partition", "low",
                                   check=True).stdout
    out = c.user_workdir(alice) / "grace.out"
    low = c.sbatch("-p", "low", "-n4", "-o", str(out), "--wrap",
                   "trap 'echo got TERM; sleep 30' TERM; sleep 300 & wait",
                   user=alice)
    c.wait_job_state(low, "RUNNING", timeout=30)
    c.wait_until(lambda: c.job_pids(low), 10, "the job's processes")
    urgent = c.sbatch("-p", "high", "-n4", "-o", "/dev/null", "--wrap",
                      "sleep 300", user=bob)
    c.wait_until(lambda: out.exists() and "got TERM" in out.read_text(), 15,
                 "the SIGTERM")
    assert c.job_pids(low)  # still there within its grace time
    c.wait_job_state(urgent, "RUNNING", timeout=30)
    c.wait_job_state(low, "PREEMPTED", timeout=30)
    c.run("scancel", urgent, check=True)
