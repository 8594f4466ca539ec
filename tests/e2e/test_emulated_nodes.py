# SPDX-License-Identifier: Apache-2.0
"""Emulated nodes (drover-emud, docs/emulator.md) at a modest scale.

One real node and 500 emulated ones (`drover up --nodes=1
--emulate-nodes=500`) in one cluster; 5,000 batch jobs (five arrays of
1,000) run on the emulated nodes and all complete, accounting has every
one, and every node is registered and idle at the end, none lost.  The
full sizes (1k-10k nodes, 10k-100k jobs) are bench/scale, not a test.
"""

import re
import time

import pytest

EMULATED = 500
ARRAYS = 5
ARRAY_SIZE = 1000
JOBS = ARRAYS * ARRAY_SIZE

pytestmark = pytest.mark.parametrize(
    "cluster",
    [{"nodes": 1, "gpus_per_node": 1,
      "up_args": [f"--emulate-nodes={EMULATED}", "--cpus-per-node=4",
                  "--conf-extra=MaxArraySize=2000",
                  "--conf-extra=MinJobAge=3600"]}],
    indirect=True)


def sacct_states(cluster, *args):
    r = cluster.run("sacct", "-X", "-n", "-P", "-o", "JobID,State,ExitCode",
                    *args, check=True, timeout=120)
    return [line.split("|") for line in r.stdout.splitlines() if line]


def node_states(cluster):
    r = cluster.run("sinfo", "-h", "-N", "-o", "%N %T", check=True)
    return dict(line.split() for line in r.stdout.splitlines())


def test_emulated_cluster_runs_5000_jobs(cluster):
    nodes = node_states(cluster)
    sims = [n for n in nodes if n.startswith("sim")]
    assert len(sims) == EMULATED and "node01" in nodes
    assert "sim00042" in nodes  # zero-padded to 5 digits
    rc, daemons = cluster.status()
    assert rc == 0 and daemons.get("drover-emud sim[00001-00500]")

    # A hint sets the run time and the exit code; srun is refused clearly.
    failed = cluster.sbatch("--parsable", "-x", "node01", "--wrap", "true",
                            "--comment=emulate:run=0.2,exit=3")
    r = cluster.run("srun", "-x", "node01", "hostname", timeout=60)
    assert r.returncode != 0 and "emulated" in r.stderr
    # The real node still runs real jobs beside them.
    real = cluster.sbatch("--parsable", "-w", "node01", "--wrap", "true")

    t0 = time.monotonic()
    arrays = [cluster.sbatch("--parsable", f"--array=1-{ARRAY_SIZE}",
                             "-x", "node01", "--comment=emulate:run=1",
                             "--wrap", "true", timeout=120)
              for _ in range(ARRAYS)]

    def all_done():
        r = cluster.run("squeue", "-h", "-r", "-o", "%i", check=True,
                        timeout=120)
        return not r.stdout.strip()
    cluster.wait_until(all_done, timeout=240, what="every job to end")
    elapsed = time.monotonic() - t0

    # Accounting follows the controller through its spool: wait for it.
    def accounted():
        states = {jobid: state for jobid, state, _ in
                  sacct_states(cluster, "-j", ",".join(arrays))}
        done = len(states) == JOBS and all(
            s != "RUNNING" and s != "PENDING" for s in states.values())
        return states if done else None
    states = cluster.wait_until(accounted, timeout=120,
                                what=f"accounting to hold all {JOBS} jobs")
    assert len(states) == JOBS, f"accounting has {len(states)} of {JOBS}"
    bad = {j: s for j, s in states.items() if s != "COMPLETED"}
    assert not bad, f"{len(bad)} not COMPLETED, e.g. {list(bad.items())[:5]}"
    for a in arrays:
        ids = {j for j in states if j.startswith(a + "_")}
        assert len(ids) == ARRAY_SIZE

    (row,) = sacct_states(cluster, "-j", failed)
    assert row[1:] == ["FAILED", "3:0"]
    (row,) = sacct_states(cluster, "-j", real)
    assert row[1] == "COMPLETED"

    # Every node registered and idle; none lost on the way.
    nodes = node_states(cluster)
    assert len(nodes) == EMULATED + 1
    busy = {n: s for n, s in nodes.items() if s != "idle"}
    assert not busy, f"not idle: {list(busy.items())[:5]}"
    log = (cluster.dir / "log" / "droverctld.log").read_text()
    for lost in ("not running on", "not responding", "Not responding",
                 "launch on"):
        assert lost not in log, re.findall(rf".*{lost}.*", log)[:3]
    print(f"\n[emulated] {JOBS} jobs on {EMULATED} emulated nodes: "
          f"{elapsed:.1f} s from the first submission to the last end")


def test_emulated_nodes_register_again_when_the_controller_is_back(cluster):
    """kill -9 of the controller: once the new one answers (another
    boot_time in the registration's answer) drover-emud has every node
    register at once, not at its next heartbeat; all 500 come back idle."""
    log = cluster.log_file("drover-emud")
    said = "another controller answers: every node registers"
    before = log.read_text().count(said)
    cluster.kill("droverctld")
    time.sleep(1.5)  # another second: boot_time differs
    cluster.start()
    cluster.wait_until(lambda: log.read_text().count(said) > before,
                       timeout=30, what="drover-emud to register every node")
    cluster.wait_until(
        lambda: sum(s == "idle" for s in node_states(cluster).values())
        == EMULATED + 1, timeout=60, what="every node idle again")
