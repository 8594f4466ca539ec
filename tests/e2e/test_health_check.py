# SPDX-License-Identifier: Apache-2.0
"""HealthCheckProgram, HealthCheckInterval, HealthCheckNodeState.

droverd runs the program as root at its start and every interval; a run
that fails (non-zero exit, or killed at its timeout) drains the node with
the program's output as the reason; a later passing run returns it to
service when ReturnToService is 1 or 2, and only a drain the health check
made (an administrator's drain stays).  The program here fails while a
flag file for its node ($SLURMD_NODENAME) exists, printing the file.
"""
import os
import re
import time

import pytest

from cluster import Cluster, wait_until

INTERVAL = 1


def health_cluster(root, *extra):
    script = root / "healthcheck.sh"
    script.write_text(
        "#!/bin/sh\n"
        f"f={root}/fail-$SLURMD_NODENAME\n"
        "echo ran >> \"$f.runs\"\n"
        "if [ -e \"$f\" ]; then cat \"$f\"; exit 1; fi\n"
        "exit 0\n")
    os.chmod(script, 0o755)
    args = [f"--conf-extra=HealthCheckProgram={script}",
            f"--conf-extra=HealthCheckInterval={INTERVAL}",
            *(f"--conf-extra={e}" for e in extra)]
    return Cluster(root, nodes=2, gpus_per_node=0, up_args=args)


def node(c, name):
    r = c.run("scontrol", "show", "node", name, check=True)
    return r.stdout


def reason_of(c, name):
    m = re.search(r"^\s*Reason=(.*)$", node(c, name), re.M)
    return m.group(1) if m else None


def sinfo_reasons(c):
    r = c.run("sinfo", "-R", "-h", "-o", "%N|%E|%T", check=True)
    return [line.split("|") for line in r.stdout.splitlines() if line]


def runs(root, name):
    p = root / f"fail-{name}.runs"
    return len(p.read_text().splitlines()) if p.exists() else 0


@pytest.mark.needs_root
def test_failing_check_drains_and_passing_check_resumes(cluster_root):
    c = health_cluster(cluster_root)
    flag = cluster_root / "fail-node02"
    try:
        c.up()
        cfg = c.run("scontrol", "show", "config", check=True).stdout
        assert re.search(rf"^HealthCheckProgram\s+= {cluster_root}/"
                         r"healthcheck.sh$", cfg, re.M), cfg
        assert re.search(rf"^HealthCheckInterval\s+= {INTERVAL} sec$", cfg,
                         re.M), cfg
        assert re.search(r"^HealthCheckNodeState\s+= ANY$", cfg, re.M), cfg
        # It ran at droverd's start and runs again every interval.
        wait_until(lambda: runs(cluster_root, "node01") >= 3, 20,
                   "the health check to run periodically on node01")
        c.wait_nodes_idle()

        flag.write_text("ib0 link down\nport 1: Down\n")
        wait_until(lambda: c.node_states()["node02"] == "IDLE+DRAIN", 20,
                   "node02 drained by its failing health check")
        assert reason_of(c, "node02").startswith(
            "ib0 link down port 1: Down [root@"), node(c, "node02")
        assert ["node02", "ib0 link down port 1: Down", "drained"] \
            in sinfo_reasons(c), sinfo_reasons(c)
        assert c.node_states()["node01"] == "IDLE"
        # A drained node takes no new job.
        out = c.run("srun", "-w", "node02", "--immediate=1", "true")
        assert out.returncode != 0

        # The output changes: the reason follows.
        flag.write_text("gpu 3 fell off the bus")
        wait_until(lambda: (reason_of(c, "node02") or "").startswith(
            "gpu 3 fell off the bus"), 20, "the new reason")

        flag.unlink()
        wait_until(lambda: c.node_states()["node02"] == "IDLE", 20,
                   "node02 back in service once the check passes")
        assert reason_of(c, "node02") is None, node(c, "node02")
        assert c.run("srun", "-w", "node02", "true").returncode == 0
    finally:
        c.down()


@pytest.mark.needs_root
def test_admin_drain_is_not_undone_nor_replaced(cluster_root):
    c = health_cluster(cluster_root)
    try:
        c.up()
        c.wait_nodes_idle()
        c.run("scontrol", "update", "nodename=node01", "state=drain",
              "reason=disk swap", check=True)
        start = runs(cluster_root, "node01")
        wait_until(lambda: runs(cluster_root, "node01") >= start + 3, 20,
                   "passing checks on the drained node01")
        time.sleep(1)
        assert c.node_states()["node01"] == "IDLE+DRAIN"
        assert reason_of(c, "node01").startswith("disk swap [root@")
        # A failing check does not replace the administrator's reason.
        (cluster_root / "fail-node01").write_text("fan failure")
        n = runs(cluster_root, "node01")
        wait_until(lambda: runs(cluster_root, "node01") >= n + 3, 20,
                   "failing checks on node01")
        time.sleep(1)
        assert reason_of(c, "node01").startswith("disk swap [root@")
        # Health drains node02; an administrator's drain takes it over.
        (cluster_root / "fail-node02").write_text("bad dimm")
        wait_until(lambda: c.node_states()["node02"] == "IDLE+DRAIN", 20,
                   "node02 drained")
        c.run("scontrol", "update", "nodename=node02", "state=drain",
              "reason=replace dimm", check=True)
        (cluster_root / "fail-node02").unlink()
        n = runs(cluster_root, "node02")
        wait_until(lambda: runs(cluster_root, "node02") >= n + 3, 20,
                   "passing checks on node02")
        time.sleep(1)
        assert c.node_states()["node02"] == "IDLE+DRAIN"
        assert reason_of(c, "node02").startswith("replace dimm [root@")
    finally:
        c.down()


@pytest.mark.needs_root
def test_return_to_service_0_keeps_the_drain(cluster_root):
    c = health_cluster(cluster_root, "ReturnToService=0")
    flag = cluster_root / "fail-node01"
    try:
        c.up()
        flag.write_text("temperature high")
        wait_until(lambda: c.node_states()["node01"] == "IDLE+DRAIN", 30,
                   "node01 drained")
        flag.unlink()
        n = runs(cluster_root, "node01")
        wait_until(lambda: runs(cluster_root, "node01") >= n + 3, 20,
                   "passing checks on node01")
        time.sleep(1)
        assert c.node_states()["node01"] == "IDLE+DRAIN"
        assert reason_of(c, "node01").startswith("temperature high [root@")
        c.run("scontrol", "update", "nodename=node01", "state=resume",
              check=True)
        wait_until(lambda: c.node_states()["node01"] == "IDLE", 10,
                   "node01 resumed by the administrator")
    finally:
        c.down()


@pytest.mark.needs_root
def test_node_state_alloc_skips_idle_nodes(cluster_root):
    """HealthCheckNodeState=ALLOC: only a node with every CPU allocated
    runs the program (after the run at droverd's start)."""
    c = health_cluster(cluster_root, "HealthCheckNodeState=ALLOC")
    try:
        c.up()
        c.wait_nodes_idle()
        time.sleep(2 * INTERVAL + 1)
        n = runs(cluster_root, "node01")
        n2 = runs(cluster_root, "node02")
        time.sleep(3 * INTERVAL + 1)
        assert runs(cluster_root, "node01") == n, "ran on an IDLE node"
        job = c.sbatch("-w", "node01", "--exclusive", "-o", "/dev/null",
                       "--wrap", "sleep 30")
        c.wait_job_state(job, ["RUNNING"])
        wait_until(lambda: runs(cluster_root, "node01") >= n + 2, 20,
                   "the check on the ALLOCATED node01")
        assert runs(cluster_root, "node02") == n2, "ran on an IDLE node"
        c.run("scancel", job, check=True)
    finally:
        c.down()


@pytest.mark.needs_root
def test_program_that_cannot_run_drains(cluster_root):
    missing = cluster_root / "no-such-check"
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0, up_args=[
        f"--conf-extra=HealthCheckProgram={missing}",
        "--conf-extra=HealthCheckInterval=1"])
    try:
        c.up()
        wait_until(lambda: c.node_states()["node01"] == "IDLE+DRAIN", 20,
                   "node01 drained")
        assert reason_of(c, "node01").startswith(
            f"cannot run {missing}: No such file or directory [root@")
        # Output that is not UTF-8 reaches the reason as '?'.
        missing.write_bytes(b"#!/bin/sh\nprintf 'bad \\377 byte'; exit 3\n")
        missing.chmod(0o755)
        wait_until(lambda: (reason_of(c, "node01") or "").startswith(
            "bad ? byte [root@"), 20, "the reason with '?'")
    finally:
        c.down()


def test_bad_values_are_refused(cluster_root):
    c = Cluster(cluster_root, nodes=1, gpus_per_node=0)
    try:
        r = c.drover_cmd("up", "--nodes=1", "--gpus-per-node=0",
                         "--conf-extra=HealthCheckNodeState=IDLE,BUSY")
        assert r.returncode != 0
        assert re.search(r"slurm.conf:\d+: HealthCheckNodeState=IDLE,BUSY: "
                         r"expected a comma list of ALLOC, ANY, CYCLE",
                         r.stdout + r.stderr), r.stdout + r.stderr
    finally:
        c.down()
