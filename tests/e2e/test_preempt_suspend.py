# SPDX-License-Identifier: Apache-2.0
"""PreemptMode=SUSPEND,GANG (issue 11): a job of a higher PriorityTier
partition suspends the lower-tier job in its way (every process stopped,
squeue S), runs on its CPUs, and the suspended job resumes where it was
once the CPUs are free again; a suspended job keeps its memory and GPUs,
so SUSPEND makes room for CPUs only (Slurm's cons_tres); SUSPEND without
GANG is refused at startup, as Slurm's slurmctld does."""
import subprocess

import pytest

from test_suspend import proc_state, ticks

HIGH = "PartitionName=high Nodes=ALL PriorityTier=10 MaxTime=INFINITE State=UP"
TICKER = "for i in $(seq 900); do echo tick 0 $i; sleep 0.2; done"


def one_node(gpus=0, *extra):
    return {"nodes": 1, "gpus_per_node": gpus,
            "up_args": ["--cpus-per-node=4"]
            + [f"--conf-extra={kv}" for kv in
               ("PreemptType=preempt/partition_prio",
                "PreemptMode=SUSPEND,GANG", HIGH) + extra]}


def squeue(c, job):
    return c.run("squeue", "-h", "-j", job, "-o", "%t %r",
                 check=True).stdout.strip()


@pytest.mark.parametrize("cluster", [one_node()], indirect=True)
def test_suspend_mode_stops_the_low_job_and_resumes_it(cluster, make_user):
    c = cluster
    alice, bob = make_user("drpre1"), make_user("drpre2")
    out = c.user_workdir(alice) / "low.out"
    low = c.sbatch("-J", "low", "-n4", "-o", str(out), "--wrap", TICKER,
                   user=alice)
    c.wait_until(lambda: out.exists() and ticks(out).get("0", 0) >= 5, 30,
                 "the low job ticking")
    assert "PreemptMode             = GANG,SUSPEND" in c.run(
        "scontrol", "show", "config", check=True).stdout
    urgent = c.sbatch("-J", "urgent", "-p", "high", "-n2", "-o", "/dev/null",
                      "--wrap", "sleep 8", user=bob)
    c.wait_job_state(urgent, "RUNNING", timeout=30)
    assert squeue(c, low) == "S None"
    assert c.job_field(low, "JobState") == "SUSPENDED"
    pids = c.job_pids(low)
    assert pids
    c.wait_until(lambda: all(proc_state(p) in ("T", None) for p in pids), 10,
                 "every process of the low job stopped")
    stopped_at = ticks(out)["0"]
    # kill -9 of the controller: the suspension and the CPUs it gave back
    # are restored (the low job stays stopped while the urgent one runs)
    c.kill("droverctld")
    c.up()
    assert squeue(c, low) == "S None"
    assert c.job_state(urgent) == "RUNNING"
    # the urgent job ends: the low one resumes where it was
    c.wait_job_state(urgent, "COMPLETED", timeout=30)
    c.wait_job_state(low, "RUNNING", timeout=30)
    c.wait_until(lambda: ticks(out)["0"] > stopped_at + 3, 15,
                 "the low job ticking again")
    assert ticks(out)["0"] - stopped_at < 40  # it went on, not over
    log = c.log_file("droverctld").read_text()
    assert f"preempted JobId={low} (suspend) for JobId={urgent}" in log
    assert f"JobId={low} resumed" in log
    c.run("scancel", low, check=True)
    c.wait_job_done(low, timeout=30)


@pytest.mark.parametrize("cluster", [one_node(1)], indirect=True)
def test_suspend_makes_room_for_cpus_not_gpus(cluster, make_user):
    c = cluster
    alice, bob = make_user("drpre1"), make_user("drpre2")
    low = c.sbatch("-n4", "--gres=gpu:1", "-o", "/dev/null", "--wrap",
                   "sleep 300", user=alice)
    c.wait_job_state(low, "RUNNING", timeout=30)
    gpu = c.sbatch("-p", "high", "-n1", "--gres=gpu:1", "-o", "/dev/null",
                   "--wrap", "sleep 300", user=bob)
    c.wait_until(lambda: squeue(c, gpu) == "PD Resources", 15,
                 "the GPU job to wait: a suspended job keeps its GPU")
    assert c.job_state(low) == "RUNNING"
    cpu = c.sbatch("-p", "high", "-n1", "-o", "/dev/null", "--wrap",
                   "sleep 300", user=bob)
    c.wait_job_state(cpu, "RUNNING", timeout=30)
    assert c.job_state(low) == "SUSPENDED"
    # an operator cannot resume it while its CPUs are taken
    r = c.run("scontrol", "resume", low)
    assert (r.returncode, r.stderr) == (
        1, f"Requested nodes are busy for job {low}\n")
    c.run("scancel", cpu, check=True)
    c.wait_job_state(low, "RUNNING", timeout=30)
    c.run("scancel", low, gpu, check=True)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_suspend_without_gang_is_refused(cluster, drover_bin):
    conf = cluster.conf.parent / "suspend.conf"
    conf.write_text(cluster.conf.read_text()
                    + "PreemptType=preempt/partition_prio\n"
                    "PreemptMode=SUSPEND\n")
    r = subprocess.run([drover_bin("droverctld"), "-D", "-f", str(conf)],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode != 0
    assert "PreemptMode=SUSPEND requires GANG too" in r.stderr
