# SPDX-License-Identifier: Apache-2.0
"""gres.conf AutoDetect=nvml (issue 16) on a real cluster: droverd dlopens
libnvidia-ml.so.1, here tests/fake_nvml's (LD_LIBRARY_PATH in the daemons'
environment, its GPUs from $DROVER_FAKE_NVML), registers what it found,
and the controller checks it against slurm.conf's Gres=."""
import re
from pathlib import Path

from cluster import Cluster, build_dir, require
from test_rest import call, token

UUIDS = ["GPU-0f1e2d3c-0000-4000-8000-000000000001",
         "GPU-0f1e2d3c-0000-4000-8000-000000000002"]
# Two H100s with minors 0 and 2 (not contiguous), NVLinked to each other.
FAKE_GPUS = (
    f"NVIDIA H100 80GB HBM3|{UUIDS[0]}|0|0-1|00000000:1B:00.0|"
    "00000000:2C:00.0 00000000:2C:00.0\n"
    f"NVIDIA H100 80GB HBM3|{UUIDS[1]}|2|2-3|00000000:2C:00.0|"
    "00000000:1B:00.0 00000000:1B:00.0\n")


def nvml_cluster(root, configured, shards=0):
    """One node, slurm.conf Gres=gpu:h100:<configured> (and shard:<shards>
    with GresTypes=gpu,shard), gres.conf AutoDetect=nvml, droverd seeing
    the two fake H100s."""
    lib = build_dir() / "tests" / "fake_nvml"
    require((lib / "libnvidia-ml.so.1").exists(),
            f"{lib}/libnvidia-ml.so.1 is not built")
    gpus = root / "fake_gpus.txt"
    gpus.write_text(FAKE_GPUS)
    gpus.chmod(0o644)
    c = Cluster(root, nodes=1, gpus_per_node=configured,
                up_args=["--gpu-type=h100"])
    c.env["LD_LIBRARY_PATH"] = str(lib)
    c.env["DROVER_FAKE_NVML"] = str(gpus)
    c.up()  # writes the configuration; then gres.conf is replaced
    c.down()
    (c.dir / "etc" / "gres.conf").write_text("AutoDetect=nvml\n")
    if shards:
        conf = c.conf.read_text().replace("GresTypes=gpu\n",
                                          "GresTypes=gpu,shard\n")
        c.conf.write_text(conf.replace(f"Gres=gpu:h100:{configured}",
                                       f"Gres=gpu:h100:{configured},"
                                       f"shard:{shards}"))
    c.up()
    return c


def show_node(c):
    return c.run("scontrol", "show", "node", "node01", check=True).stdout


def job_gpu_index(c, job):
    out = c.run("scontrol", "-d", "show", "job", job, check=True).stdout
    m = re.search(r"GRES=gpu(?::\w+)?:1\(IDX:(\d+)\)", out)
    assert m, out
    return m.group(1)


def isolated(c):
    """Whether job cgroups deny the other GPUs (CUDA then counts from 0)."""
    log = c.log_file("node01").read_text(errors="replace")
    cg = (c.dir / "etc" / "cgroup.conf").read_text()
    return (re.search(r"jobs run in cgroup v1 \(\S*devices", log) is not None
            and re.search(r"^ConstrainDevices=yes$", cg, re.M | re.I)
            is not None)


def test_discovered_gpus_register_and_reach_jobs_and_metrics(cluster_root):
    c = nvml_cluster(cluster_root, 2)
    try:
        c.wait_nodes_idle()
        show = show_node(c)
        assert "Gres=gpu:h100:2" in show, show
        assert "DRAIN" not in show, show
        log = c.log_file("node01").read_text()
        assert (f"AutoDetect=nvml: GPU 1: NVIDIA H100 80GB HBM3 /dev/nvidia2 "
                f"{UUIDS[1]} Cores=2-3 Links=2,-1") in log, log
        # srun: a job with one GPU sees one GPU.
        r = c.run("srun", "--gres=gpu:1", "printenv", "CUDA_VISIBLE_DEVICES",
                  check=True, timeout=60)
        assert re.fullmatch(r"\d+\n", r.stdout), r.stdout
        # Two one-GPU jobs at once: the second holds index 1 (/dev/nvidia2).
        jobs = [c.sbatch("--gres=gpu:1", "-o", f"gpu_{i}.out", "--wrap",
                         "echo CVD=$CUDA_VISIBLE_DEVICES "
                         "ORD=$GPU_DEVICE_ORDINAL GPUS=$SLURM_JOB_GPUS; "
                         "sleep 30", cwd=c.workdir) for i in range(2)]
        for j in jobs:
            c.wait_job_state(j, ["RUNNING"])
        idx = [job_gpu_index(c, j) for j in jobs]
        assert sorted(idx) == ["0", "1"]
        for i, j in enumerate(jobs):
            out = c.workdir / f"gpu_{i}.out"
            c.wait_until(lambda: out.exists() and out.read_text(),
                         what=f"{out}")
            cvd = "0" if isolated(c) else idx[i]
            assert out.read_text().strip() == \
                f"CVD={cvd} ORD={cvd} GPUS={idx[i]}"
        status, text = call(c, "/metrics", token(c))
        assert status == 200
        lines = [l for l in text.splitlines()
                 if l.startswith("drover_job_gpu_info{")]
        want = {j: UUIDS[int(idx[i])] for i, j in enumerate(jobs)}
        for j, uuid in want.items():
            assert any(f'job_id="{j}"' in l and f'uuid="{uuid}"' in l
                       for l in lines), lines
        c.run("scancel", *jobs, check=True)
    finally:
        c.down()


def test_fewer_gpus_than_configured_drains_the_node(cluster_root):
    c = nvml_cluster(cluster_root, 4)
    try:
        reason = "gres/gpu count reported lower than configured (2 < 4)"
        c.wait_until(lambda: reason in show_node(c),
                     what="the node drained for its GPU count")
        show = show_node(c)
        assert "+DRAIN" in show and re.search(
            re.escape(f"Reason={reason} [") + r"\w+@", show), show
        sinfo = c.run("sinfo", "-R", "-h", "-o", "%E|%N", check=True).stdout
        assert f"{reason}|node01" in sinfo
    finally:
        c.down()


def test_without_nvml_one_log_line_and_the_configured_gpus(cluster_root):
    c = Cluster(cluster_root, nodes=1, gpus_per_node=2,
                up_args=["--gpu-type=h100"])
    # A libnvidia-ml.so.1 that cannot load comes first on the library
    # path: the same as none, also on a host with a real one.
    broken = Path(cluster_root) / "broken-nvml"
    broken.mkdir()
    (broken / "libnvidia-ml.so.1").write_bytes(b"")
    c.env["LD_LIBRARY_PATH"] = str(broken)
    c.up()
    c.down()
    (c.dir / "etc" / "gres.conf").write_text("AutoDetect=nvml\n")
    c.up()
    try:
        c.wait_nodes_idle()
        log = c.log_file("node01").read_text()
        lines = [l for l in log.splitlines() if "AutoDetect=nvml" in l]
        assert len(lines) == 1, lines
        assert re.search(r"AutoDetect=nvml: cannot load libnvidia-ml\.so\.1: "
                         r".+: the GPUs of gres\.conf/slurm\.conf are used",
                         lines[0]), lines
        show = show_node(c)
        assert "Gres=gpu:h100:2" in show and "DRAIN" not in show, show
        r = c.run("srun", "--gres=gpu:2", "printenv", "SLURM_STEP_GPUS",
                  check=True, timeout=60)
        assert r.stdout == "0,1\n"
    finally:
        c.down()


def test_autodetected_gpus_share_their_shards_evenly(cluster_root):
    # No Name=shard line: Gres=shard:8 is shared over the two GPUs NVML
    # finds (four each, as Slurm), and a shard job gets one of them.
    c = nvml_cluster(cluster_root, 2, shards=8)
    try:
        c.wait_nodes_idle()
        job = c.sbatch("--gres=shard:3", "-o", "shard.out", "--wrap",
                       "echo $CUDA_VISIBLE_DEVICES $SLURM_SHARDS_ON_NODE; "
                       "sleep 30", cwd=c.workdir)
        c.wait_job_state(job, "RUNNING", timeout=30)
        used = c.run("sinfo", "-h", "-N", "-O", "GresUsed:60",
                     check=True).stdout.strip()
        assert used == "gpu:h100:0,shard:3", used
        node = c.node_info()["node01"]
        assert node["gres_used"].endswith(",shard:3(3/4,0/4)"), node
        c.wait_until(lambda: (c.workdir / "shard.out").exists()
                     and (c.workdir / "shard.out").read_text(),
                     what="the shard job's output")
        assert re.fullmatch(r"\d+ 3\n", (c.workdir / "shard.out").read_text())
        c.run("scancel", job, check=True)
    finally:
        c.down()
