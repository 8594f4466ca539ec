# SPDX-License-Identifier: Apache-2.0
"""Gang scheduling (issue 11): PreemptMode=GANG with OverSubscribe=FORCE:2
lets two jobs hold the same CPUs and take turns every SchedulerTimeSlice
seconds, as Slurm's gang scheduler does: the second starts suspended, then
each is suspended while the other runs (its processes really stopped),
both make progress, never both at once; a third waits for room.  With
OverSubscribe=YES:2 only jobs submitted with --oversubscribe share."""
import time

import pytest

from test_suspend import ticks

TICKER = "for i in $(seq 900); do echo tick 0 $i; sleep 0.2; done"


def gang(partition_line):
    return {"nodes": 1, "gpus_per_node": 0,
            "up_args": ["--cpus-per-node=4",
                        "--conf-extra=PreemptMode=GANG",
                        "--conf-extra=SchedulerTimeSlice=3",
                        "--conf-extra=" + partition_line]}


FORCE = ("PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE "
         "State=UP OverSubscribe=FORCE:2")
YES = ("PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE "
       "State=UP OverSubscribe=YES:2")


def states(c, *jobs):
    out = c.run("squeue", "-h", "-o", "%i %t", check=True).stdout.split("\n")
    got = dict(line.split() for line in out if line.strip())
    return [got.get(j) for j in jobs]


@pytest.mark.parametrize("cluster", [gang(FORCE)], indirect=True)
def test_two_jobs_take_turns_on_the_same_cpus(cluster, make_user):
    c = cluster
    user = make_user("drgang1")
    outs = [c.user_workdir(user) / f"{n}.out" for n in ("a", "b")]
    a = c.sbatch("-n4", "-o", str(outs[0]), "--wrap", TICKER, user=user)
    c.wait_job_state(a, "RUNNING", timeout=30)
    b = c.sbatch("-n4", "-o", str(outs[1]), "--wrap", TICKER, user=user)
    c.wait_until(lambda: states(c, a, b) == ["R", "S"], 15,
                 "the second job to start suspended")
    third = c.sbatch("-n4", "-o", "/dev/null", "--wrap", "sleep 300",
                     user=user)
    seen = set()
    deadline = time.monotonic() + 14
    while time.monotonic() < deadline:
        st = tuple(states(c, a, b))
        assert st != ("R", "R"), "both ran at once"
        seen.add(st)
        time.sleep(0.3)
    assert ("R", "S") in seen and ("S", "R") in seen, seen
    counts = [ticks(o).get("0", 0) for o in outs]
    assert min(counts) >= 5, counts  # both made progress
    assert states(c, third) == ["PD"]
    log = c.log_file("droverctld").read_text()
    assert f"gang: JobId={b} suspended" in log
    assert f"gang: JobId={a} suspended" in log
    assert "PreemptMode             = GANG" in c.run(
        "scontrol", "show", "config", check=True).stdout
    c.run("scancel", a, b, third, check=True)


@pytest.mark.parametrize("cluster", [gang(YES)], indirect=True)
def test_yes_shares_only_jobs_that_ask(cluster, make_user):
    c = cluster
    user = make_user("drgang1")
    a = c.sbatch("-n4", "-o", "/dev/null", "--wrap", "sleep 300", user=user)
    c.wait_job_state(a, "RUNNING", timeout=30)
    plain = c.sbatch("-n4", "-o", "/dev/null", "--wrap", "sleep 300",
                     user=user)
    c.wait_until(lambda: c.job_field(plain, "Reason") == "Resources", 15,
                 "a job that did not ask to wait")
    # a running job that did not ask shares nothing: one that asks waits
    # too, until the first ends; then two that ask share the node
    c.run("scancel", a, plain, check=True)
    c.wait_job_done(a, timeout=30)
    x = c.sbatch("-s", "-n4", "-o", "/dev/null", "--wrap", "sleep 300",
                 user=user)
    y = c.sbatch("--oversubscribe", "-n4", "-o", "/dev/null", "--wrap",
                 "sleep 300", user=user)
    c.wait_until(lambda: sorted(states(c, x, y)) == ["R", "S"], 30,
                 "the two jobs that asked to share the node")
    c.run("scancel", x, y, check=True)
