# SPDX-License-Identifier: Apache-2.0
"""gres.conf AutoDetect=nvml (issue 16) on a real cluster: droverd dlopens
libnvidia-ml.so.1, here tests/fake_nvml's (LD_LIBRARY_PATH in the daemons'
environment, its GPUs from $DROVER_FAKE_NVML), registers what it found,
and the controller checks it against slurm.conf's Gres=."""
import os
import re
import stat
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


# MIG: an A100 in MIG mode (minor MIG_MINOR) whose instances are, in
# NVML's order, a 2g.20gb (GPU instance 5) and two 1g.10gb (3 and 4),
# each with compute instance 0; the capability minors of the driver's
# mig-minors file start at MIG_CAP.  Numbers no real device has, as the
# device test makes these files in /dev.
MIG_MINOR = 200 + os.getpid() % 50
MIG_CAP = 4000 + (os.getpid() % 1000) * 8
MIG_UUIDS = {gi: f"MIG-0f1e2d3c-0000-4000-8000-00000000000{gi}"
             for gi in (3, 4, 5)}
MIG_PROFILES = {5: "2g.20gb", 3: "1g.10gb", 4: "1g.10gb"}


def mig_caps(gi):
    """The GPU instance's and compute instance's capability files."""
    base = MIG_CAP + (gi - 3) * 2
    return [f"/dev/nvidia-caps/nvidia-cap{base}",
            f"/dev/nvidia-caps/nvidia-cap{base + 1}"]


def mig_cluster(root):
    """One node, Gres=gpu:1g.10gb:2,gpu:2g.20gb:1, gres.conf
    AutoDetect=nvml, droverd seeing the fake A100's MIG instances."""
    lib = build_dir() / "tests" / "fake_nvml"
    require((lib / "libnvidia-ml.so.1").exists(),
            f"{lib}/libnvidia-ml.so.1 is not built")
    root = Path(root)
    gpus, minors = root / "fake_gpus.txt", root / "mig-minors"
    gpus.write_text(
        f"NVIDIA A100-SXM4-80GB|GPU-0f1e2d3c-0000-4000-8000-0000000000a1|"
        f"{MIG_MINOR}|0-1|00000000:3D:00.0||"
        + ";".join(f"{MIG_PROFILES[gi]},{gi},0,{MIG_UUIDS[gi]}"
                   for gi in (5, 3, 4)) + "\n")
    minors.write_text("config 1\nmonitor 2\n" + "".join(
        f"gpu0/gi{gi}/access {mig_caps(gi)[0].rsplit('cap', 1)[1]}\n"
        f"gpu0/gi{gi}/ci0/access {mig_caps(gi)[1].rsplit('cap', 1)[1]}\n"
        for gi in (3, 4, 5)))
    c = Cluster(root, nodes=1, gpus_per_node=3,
                up_args=["--gpu-type=1g.10gb"])
    c.env["LD_LIBRARY_PATH"] = str(lib)
    c.env["DROVER_FAKE_NVML"] = str(gpus)
    c.env["DROVER_NVML_MIG_MINORS"] = str(minors)
    c.up()  # writes the configuration; then it is replaced
    c.down()
    (c.dir / "etc" / "gres.conf").write_text("AutoDetect=nvml\n")
    c.conf.write_text(c.conf.read_text().replace(
        "Gres=gpu:1g.10gb:3", "Gres=gpu:1g.10gb:2,gpu:2g.20gb:1"))
    c.up()
    return c


def run_probe(c, script, gres):
    """A batch job with 'gres' running 'script'; its output."""
    out = c.workdir / f"probe{len(list(c.workdir.glob('probe*')))}.out"
    job = c.sbatch(f"--gres={gres}", "-o", str(out), "--wrap", script,
                   cwd=c.workdir)
    assert c.wait_job_done(job) == "COMPLETED", out.read_text()
    return job, out.read_text()


def test_mig_instances_are_found_and_given_as_typed_gpus(cluster_root):
    """The A100 in MIG mode is not a GPU of the node: its three instances
    are, typed by profile, registered as Gres= says, each logged with its
    files, and given to jobs by type."""
    c = mig_cluster(cluster_root)
    try:
        c.wait_nodes_idle()
        show = show_node(c)
        assert "Gres=gpu:1g.10gb:2,gpu:2g.20gb:1" in show, show
        assert "DRAIN" not in show, show
        log = c.log_file("node01").read_text()
        assert (f"AutoDetect=nvml: GPU 0 is in MIG mode: its 3 MIG "
                f"instance(s) are used, not the GPU") in log, log
        caps = ",".join(mig_caps(5))
        assert (f"AutoDetect=nvml: GPU 0 MIG 0: NVIDIA A100-SXM4-80GB MIG "
                f"2g.20gb /dev/nvidia{MIG_MINOR},{caps} {MIG_UUIDS[5]} "
                f"GI=5 CI=0") in log, log
        assert "AutoDetect=nvml: 3 GPU(s) in use of 3 found" in log, log
        # In Gres= order: the 1g.10gb instances are GPUs 0 and 1, the
        # 2g.20gb GPU 2, whatever NVML's order.
        probe = "echo given=$SLURM_JOB_GPUS visible=$CUDA_VISIBLE_DEVICES"
        job, out = run_probe(c, probe, "gpu:1g.10gb:1")
        assert out == "given=0 visible=0\n", out
        detail = c.run("scontrol", "-d", "show", "job", job,
                       check=True).stdout
        assert "GRES=gpu:1g.10gb:1(IDX:0)" in detail, detail
        _, out = run_probe(c, probe, "gpu:2g.20gb:1")
        assert out == f"given=2 visible={'0' if isolated(c) else '2'}\n", out
        # Both 1g.10gb instances in one step.
        r = c.run("srun", "--gres=gpu:1g.10gb:2", "printenv",
                  "SLURM_STEP_GPUS", check=True, timeout=60)
        assert r.stdout == "0,1\n", r.stdout
    finally:
        c.down()


MIG_PROBE = """
for f in {files}; do
  if (exec 3<"$f") 2>/dev/null; then echo "$f opened"
  else echo "$f denied"; fi
done
"""


def test_a_mig_job_opens_its_instance_and_not_the_others(cluster_root):
    """The found instance's files are real device files here (made in
    /dev with mknod: the numbers of /dev/full, zero, random and kmsg,
    which open unless the cgroup refuses; the 2g.20gb's two files share
    kmsg's, as a number denied once is denied for all its files): a job
    given a 1g.10gb instance opens its GPU's file and its two capability
    files, not the 2g.20gb's."""
    parent = Path(f"/dev/nvidia{MIG_MINOR}")
    caps_dir = Path("/dev/nvidia-caps")
    files = [parent] + [Path(f) for gi in (3, 5) for f in mig_caps(gi)]
    require(not any(f.exists() for f in files),
            "the test's device numbers are taken on this host")
    made_dir = not caps_dir.exists()
    made = []
    try:
        caps_dir.mkdir(mode=0o755, exist_ok=True)
        for f, minor in zip(files, (7, 5, 8, 11, 11)):
            try:
                os.mknod(f, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
            except PermissionError:
                require(False, "mknod in /dev is not permitted here")
            made.append(f)
            os.chmod(f, 0o666)
        c = mig_cluster(cluster_root)
        try:
            c.wait_nodes_idle()
            require(isolated(c), "job cgroups do not constrain devices here")
            _, out = run_probe(c, MIG_PROBE.format(
                files=" ".join(map(str, files))), "gpu:1g.10gb:1")
            assert out == "".join(
                f"{f} opened\n" for f in files[:3]) + "".join(
                f"{f} denied\n" for f in files[3:]), out
        finally:
            c.down()
    finally:
        for f in made:
            f.unlink()
        if made_dir and caps_dir.exists():
            caps_dir.rmdir()
