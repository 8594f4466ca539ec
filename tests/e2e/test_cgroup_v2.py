# SPDX-License-Identifier: Apache-2.0
"""cgroup v2: a job's GPUs isolated by an eBPF device program.

The clusters here run with cgroup.conf CgroupPlugin=cgroup/v2 and
CgroupMountpoint= a cgroup2 filesystem this module mounts itself, so the
test runs on a cgroup v1 host too: the v2 hierarchy there has no
controllers (they are bound to v1), but the device program needs none, only
a cgroup2 directory to be attached to.  The same checks on cgroup v1
(devices.deny) are test_cgroups.py's test_job_opens_its_gpu_and_not_the_others
and test_step_sees_only_its_gpu, whose helpers this module uses.

Skips (even under DROVER_TEST_STRICT) where this machine cannot: not root,
no cgroup2 filesystem, no eBPF device programs (CONFIG_CGROUP_BPF).
"""
import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from cluster import require, run_job
from test_cgroups import GPU_PROBE, make_real_gpu_files, node_port

MNT = Path(tempfile.gettempdir()) / f"drover-cgroup2-{os.getpid()}"


@pytest.fixture(scope="module", autouse=True)
def cgroup2_mount():
    """A cgroup2 filesystem of our own at MNT for the module's clusters."""
    require(os.geteuid() == 0, "mounting cgroup2 needs root")
    MNT.mkdir(exist_ok=True)
    r = subprocess.run(["mount", "-t", "cgroup2", "none", str(MNT)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        MNT.rmdir()
    require(r.returncode == 0, f"cannot mount cgroup2: {r.stderr.strip()}")
    try:
        yield MNT
    finally:
        subprocess.run(["umount", str(MNT)], check=False)
        MNT.rmdir()


V2_CLUSTER = {"nodes": 1, "gpus_per_node": 2,
              "up_args": ["--cgroup-conf-extra=CgroupPlugin=cgroup/v2",
                          f"--cgroup-conf-extra=CgroupMountpoint={MNT}"]}


def devices_isolated(cluster):
    """droverd's start line names devices among the v2 controllers; a
    kernel that refuses the eBPF program is a missing prerequisite (a
    failure under DROVER_TEST_STRICT)."""
    log = cluster.log_file("node01").read_text()
    refused = re.search(r".*ConstrainDevices is not applied.*", log)
    require(not refused, "this kernel refuses eBPF device programs: "
            + (refused.group(0) if refused else ""))
    return re.search(r"jobs run in cgroup v2 \(\S*devices\S*\) under "
                     rf"{re.escape(str(MNT))}\S*/drover_node01_"
                     rf"{node_port(cluster)}", log)


def gpu_probe(cluster, tmp_path):
    require("cannot create fake GPU devices" not in cluster.last_up.stderr,
            "mknod is not permitted here (no CAP_MKNOD)")
    make_real_gpu_files(cluster)
    return GPU_PROBE.format(dev=cluster.dir / "dev")


@pytest.mark.parametrize("cluster", [V2_CLUSTER], indirect=True)
def test_v2_job_opens_its_gpu_and_is_refused_the_other(cluster, tmp_path):
    assert devices_isolated(cluster), cluster.log_file("node01").read_text()
    probe = gpu_probe(cluster, tmp_path)
    job_id, out, err = run_job(cluster, tmp_path,
                               "grep '^0::' /proc/self/cgroup\n" + probe,
                               "--gres=gpu:1")
    # the job ran in our cgroup2 tree; the other GPU numbered out
    assert re.search(rf"^0::\S*/drover_node01_{node_port(cluster)}/"
                     rf"job_{job_id}/step_batch$", out, re.M), out
    assert "given=0 visible=0\n" in out, (out, err)
    assert "nvidia0 opened" in out, out
    assert "nvidia1 Operation not permitted" in out, out

    # with GPU 0 taken, the next job gets GPU 1, numbered 0 for CUDA
    hold = cluster.sbatch("--gres=gpu:1", "-o", "/dev/null", "--wrap",
                          "sleep 300", cwd=tmp_path)
    cluster.wait_job_state(hold, "RUNNING", timeout=30)
    _, out, _ = run_job(cluster, tmp_path, probe, "--gres=gpu:1")
    assert out.startswith("given=1 visible=0\n"), out
    assert "nvidia1 opened" in out, out
    assert "nvidia0 Operation not permitted" in out, out
    cluster.run("scancel", hold, check=True)
    cluster.wait_job_state(hold, "CANCELLED", timeout=30)

    _, out, _ = run_job(cluster, tmp_path, probe)
    assert "nvidia0 Operation not permitted" in out, out
    assert "nvidia1 Operation not permitted" in out, out

    _, out, _ = run_job(cluster, tmp_path, probe, "--gres=gpu:2")
    assert "nvidia0 opened" in out and "nvidia1 opened" in out, out


@pytest.mark.parametrize("cluster", [V2_CLUSTER], indirect=True)
def test_v2_step_sees_only_its_gpu(cluster, tmp_path):
    assert devices_isolated(cluster)
    probe = tmp_path / "probe.sh"
    probe.write_text("#!/bin/bash\n" + gpu_probe(cluster, tmp_path)
                     .replace("$SLURM_JOB_GPUS", "$SLURM_STEP_GPUS"))
    probe.chmod(0o755)
    # a job with both GPUs, steps with one each: the step's program
    # refuses the other, below the job's (which refuses none)
    _, out, err = run_job(
        cluster, tmp_path,
        f"srun --gres=gpu:1 --exact -n1 {probe} &\nwait\n"
        f"srun -n1 --gpus-per-task=1 --overlap {probe}\n"
        f"{probe}\n",
        "--gres=gpu:2", "-n2")
    assert out.count("visible=0\n") == 2, (out, err)
    assert out.count(" opened\n") == 4, out
    assert out.count("Operation not permitted") == 2, out


@pytest.mark.parametrize("cluster", [V2_CLUSTER], indirect=True)
def test_v2_node_metrics_count_cpu_from_cpu_stat(cluster):
    """droverd's /metrics on cgroup v2: a job's CPU time is its cgroup's
    cpu.stat usage_usec (kept by the kernel with or without the cpu
    controller), so the time of processes that already exited counts:
    here a child burns 2 s of CPU and ends, then the job only sleeps.
    (2 s of its own CPU time, not of the clock: on a loaded machine, the
    e2e suite's other worker beside it, 2 s of the clock gave it 1.3.)"""
    from test_node_exporter import node_url, samples, scrape
    c = cluster
    url = node_url(c, "node01")
    job = c.sbatch("--wrap", "/usr/bin/python3 -c 'import time\n"
                   "while time.process_time() < 2: pass'; "
                   "touch burnt; sleep 120", cwd=c.workdir)
    c.wait_until(lambda: (c.workdir / "burnt").exists(), timeout=30,
                 what="the burner to end")
    fams = scrape(url)
    assert samples(fams, "drover_node_job_cpu_seconds", job)[None] >= 1.5
    assert samples(fams, "drover_node_step_cpu_seconds", job)["batch"] \
        >= 1.5
    assert samples(fams, "drover_node_job_processes", job)[None] >= 1
    c.run("scancel", job, check=True)
    c.wait_job_done(job)
    c.wait_until(lambda: not samples(scrape(url),
                                     "drover_node_job_cpu_seconds"),
                 timeout=30, what="the job's series to go")


def test_v2_tree_leaves_a_cgroup_with_processes(cluster_root, tmp_path):
    """droverd started from a cgroup that holds other processes (the
    shell's that started it, a container's init cgroup: seen on the GPU
    machine): the kernel lets such a cgroup enable no controller for its
    children, so the jobs' tree goes to the nearest ancestor that holds
    none, here our mount's root, and `drover down` removes it there."""
    from cluster import Cluster
    busy = MNT / f"drover-busy-{os.getpid()}"
    busy.mkdir()
    other = subprocess.Popen(["sleep", "600"])
    c = None
    try:
        (busy / "cgroup.procs").write_text(str(other.pid))
        c = Cluster(cluster_root, nodes=1, gpus_per_node=0,
                    up_args=V2_CLUSTER["up_args"])
        wrapper = tmp_path / "drover"
        wrapper.write_text(f"#!/bin/sh\necho $$ >{busy}/cgroup.procs\n"
                           f"exec {c.drover} \"$@\"\n")
        wrapper.chmod(0o755)
        c.drover = wrapper
        c.up()
        pid = c.pid("node01")
        assert f"\n0::/{busy.name}\n" in \
            "\n" + Path(f"/proc/{pid}/cgroup").read_text()
        tree = f"drover_node01_{node_port(c)}"
        log = c.log_file("node01").read_text()
        assert f"jobs run in cgroup v2 (devices) under {MNT}/{tree}\n" \
            in log, log
        job_id, out, _ = run_job(c, tmp_path,
                                 "grep '^0::' /proc/self/cgroup\n")
        assert out == f"0::/{tree}/job_{job_id}/step_batch\n"
        c.down()
        c = None
        assert not (MNT / tree).exists()
    finally:
        if c:
            c.down()
        other.kill()
        other.wait()
        busy.rmdir()
