# SPDX-License-Identifier: Apache-2.0
"""squeue, sinfo, scontrol and scancel on a live queue; drain and resume."""
import re


def test_squeue_shows_running_and_pending_with_slurm_columns(cluster, tmp_path):
    run = cluster.sbatch("-J", "runner", "--exclusive", "-N4", "--wrap", "sleep 300",
                         cwd=tmp_path)
    cluster.wait_job_state(run, ["RUNNING"], timeout=30)
    pend = cluster.sbatch("-J", "waiter", "--wrap", "true", cwd=tmp_path)
    cluster.wait_until(lambda: cluster.job_field(pend, "Reason") == "Resources",
                       timeout=30, what="pending job reason Resources")
    out = cluster.run("squeue", check=True).stdout.splitlines()
    assert out[0] == ("             JOBID PARTITION     NAME     USER ST"
                      "       TIME  NODES NODELIST(REASON)")
    user = cluster.run("id", "-un", check=True).stdout.strip()
    pend_row = next(l for l in out if l.split()[0] == pend)
    assert pend_row.split()[1:] == ["debug", "waiter", user[:8], "PD", "0:00", "1",
                                    "(Resources)"]
    run_row = next(l for l in out if l.split()[0] == run)
    assert run_row.split()[4] == "R"
    assert run_row.split()[6:] == ["4", "node[01-04]"]
    # Filters and formats.
    assert cluster.run("squeue", "-h", "-t", "PD", "-o", "%i", check=True).stdout == pend + "\n"
    assert cluster.run("squeue", "-h", "-j", run, "-o", "%j %T", check=True).stdout \
        == "runner RUNNING\n"
    mine = cluster.run("squeue", "-h", "-u", user, "-p", "debug", "-o", "%i",
                       check=True).stdout.split()
    assert sorted(mine) == sorted([pend, run])
    assert cluster.run("squeue", "-h", "-u", "root" if user != "root" else "nobody",
                       "-o", "%i", check=True).stdout == ""
    cluster.run("scancel", run, pend, check=True)


def test_sinfo_shows_idle_mixed_allocated(cluster, tmp_path):
    out = cluster.run("sinfo", check=True).stdout
    assert out == ("PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
                   "debug*       up   infinite      4   idle node[01-04]\n")
    j1 = cluster.sbatch("--exclusive", "--wrap", "sleep 300", cwd=tmp_path)
    j2 = cluster.sbatch("-n1", "--wrap", "sleep 300", cwd=tmp_path)
    cluster.wait_job_state(j1, ["RUNNING"], timeout=30)
    cluster.wait_job_state(j2, ["RUNNING"], timeout=30)
    rows = cluster.run("sinfo", "-N", "-h", "-o", "%N %t", check=True).stdout.split("\n")
    states = dict(r.split() for r in rows if r)
    assert states == {"node01": "alloc", "node02": "mix", "node03": "idle",
                      "node04": "idle"}
    fmt = cluster.run("sinfo", "-N", "-h", "-o", "%N %c %m %G", check=True).stdout
    assert "node01 32 262144 gpu:8" in fmt
    cluster.run("scancel", j1, j2, check=True)


def test_drained_node_gets_no_new_jobs_and_running_ones_finish(cluster, tmp_path):
    long = cluster.sbatch("--exclusive", "--wrap", "sleep 4", cwd=tmp_path)
    cluster.wait_job_state(long, ["RUNNING"], timeout=30)
    node = cluster.job_field(long, "NodeList")
    r = cluster.run("scontrol", "update", f"NodeName={node}", "State=DRAIN",
                    "Reason=bad gpu", check=True)
    assert r.stdout == "" and r.stderr == ""
    show = cluster.run("scontrol", "show", "node", node, check=True).stdout
    assert "State=ALLOCATED+DRAIN" in show
    assert re.search(r"Reason=bad gpu \[\w+@", show)
    sinfo = cluster.run("sinfo", "-N", "-h", "-o", "%N %t", check=True).stdout
    assert f"{node} drng" in sinfo
    # New jobs go elsewhere.
    others = [cluster.sbatch("--exclusive", "--wrap", "sleep 1", cwd=tmp_path)
              for _ in range(3)]
    for j in others:
        cluster.wait_job_state(j, ["RUNNING", "COMPLETED"], timeout=30)
        assert cluster.job_field(j, "NodeList") != node
    cluster.wait_job_state(long, ["COMPLETED"], timeout=30)
    sinfo = cluster.run("sinfo", "-N", "-h", "-o", "%N %t", check=True).stdout
    assert f"{node} drain" in sinfo
    cluster.run("scontrol", "update", f"NodeName={node}", "State=RESUME", check=True)
    sinfo = cluster.run("sinfo", "-N", "-h", "-o", "%N %t", check=True).stdout
    assert f"{node} idle" in sinfo


def test_hold_release_requeue(cluster, tmp_path):
    job = cluster.sbatch("-H", "--wrap", "echo run $SLURM_RESTART_COUNT", cwd=tmp_path)
    assert cluster.job_field(job, "Reason") == "JobHeldUser"
    assert cluster.job_field(job, "Priority") == "0"
    r = cluster.run("squeue", "-h", "-j", job, "-o", "%t %r", check=True)
    assert r.stdout == "PD JobHeldUser\n"
    cluster.run("scontrol", "release", job, check=True)
    cluster.wait_job_state(job, ["COMPLETED"], timeout=30)
    cluster.run("scontrol", "requeue", job, check=True)
    cluster.wait_until(lambda: cluster.job_field(job, "Restarts") == "1",
                       timeout=30, what="Restarts=1 after requeue")
    cluster.wait_job_state(job, ["COMPLETED"], timeout=30)

    held = cluster.sbatch("--wrap", "sleep 300", cwd=tmp_path)
    cluster.wait_job_state(held, ["RUNNING"], timeout=30)
    cluster.run("scontrol", "hold", held, check=True)
    cluster.run("scontrol", "requeue", held, check=True)
    cluster.wait_until(lambda: cluster.job_field(held, "JobState") == "PENDING",
                       timeout=30, what="requeued running job back to PENDING")
    cluster.run("scancel", held, check=True)
    # each run is an accounting record of its own: sacct -D lists them,
    # plain sacct the newest
    def runs(j, *flags):
        return cluster.run("sacct", *flags, "-X", "-n", "-P", "-j", j, "-o",
                           "JobID,State", check=True).stdout.splitlines()
    cluster.wait_until(lambda: runs(held, "-D") == [
        f"{held}|REQUEUED", f"{held}|CANCELLED by 0"], 30, "sacct -D: both runs")
    assert runs(held) == [f"{held}|CANCELLED by 0"]
    assert runs(job, "-D") == [f"{job}|COMPLETED", f"{job}|COMPLETED"]


def test_scontrol_show_and_ping(cluster):
    r = cluster.run("scontrol", "show", "hostnames", "node[01-03],login1", check=True)
    assert r.stdout == "node01\nnode02\nnode03\nlogin1\n"
    r = cluster.run("scontrol", "ping", check=True)
    assert re.fullmatch(r"Slurmctld\(primary\) at \S+ is UP\n", r.stdout)
    part = cluster.run("scontrol", "show", "partition", check=True).stdout
    assert part.startswith("PartitionName=debug\n")
    assert "Nodes=node[01-04]" in part and "TotalCPUs=128 TotalNodes=4" in part
    node = cluster.run("scontrol", "-o", "show", "node", "node02", check=True).stdout
    assert node.startswith("NodeName=node02 ") and node.count("\n") == 1
    assert "CfgTRES=cpu=32,mem=256G,billing=32,gres/gpu=8" in node
