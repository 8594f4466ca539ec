# SPDX-License-Identifier: Apache-2.0
"""gres/shard (issue 16, Slurm's GPU sharding) on a real cluster: one node
with two GPUs of four shards each (gres.conf Name=shard Count=4 File=...).
Shard jobs share a GPU, packed on one; a GPU lending shards is not given
whole, so a gpu:2 job waits for them; each shard job sees only its GPU
(CUDA_VISIBLE_DEVICES, the device cgroup) and SLURM_SHARDS_ON_NODE; the
TRES of scontrol, squeue and sacct count gres/shard."""
import re

import pytest

from cluster import require, run_job
from test_cgroups import make_real_gpu_files

SHARD_CLUSTER = {"nodes": 1, "gpus_per_node": 2}

ENV = ("echo CVD=$CUDA_VISIBLE_DEVICES ORD=$GPU_DEVICE_ORDINAL "
       "SHARDS=$SLURM_SHARDS_ON_NODE GPUS=${SLURM_JOB_GPUS-unset}")


def with_shards(cluster):
    """Restart 'cluster' with GresTypes=gpu,shard, Gres=gpu:2,shard:8 and
    four shards on each GPU."""
    cluster.down()
    conf = cluster.conf.read_text()
    conf = conf.replace("GresTypes=gpu\n", "GresTypes=gpu,shard\n")
    conf, n = re.subn(r"Gres=gpu:2\b", "Gres=gpu:2,shard:8", conf)
    assert n == 1, conf
    cluster.conf.write_text(conf)
    gres = cluster.dir / "etc" / "gres.conf"
    dev = cluster.dir / "dev"
    gres.write_text(gres.read_text()
                    + f"NodeName=node01 Name=shard Count=4 File={dev}/nvidia0\n"
                    + f"NodeName=node01 Name=shard Count=4 File={dev}/nvidia1\n")
    cluster.up()
    cluster.wait_nodes_idle()


def out_of(tmp_path, job):
    path = tmp_path / f"slurm-{job}.out"
    return path.read_text().strip() if path.exists() else ""


@pytest.mark.parametrize("cluster", [SHARD_CLUSTER], indirect=True)
def test_shard_jobs_share_a_gpu_and_whole_gpu_jobs_wait(cluster, tmp_path):
    with_shards(cluster)
    show = cluster.run("scontrol", "show", "node", "node01", check=True).stdout
    assert "Gres=gpu:2,shard:8" in show, show
    gpu0 = cluster.visible_gpus([0])
    # Two shard jobs at once: both on GPU 0 (packed), GPU 1 left whole.
    a, b = (cluster.sbatch("--gres=shard:2", "--wrap", f"{ENV}; sleep 300",
                           cwd=tmp_path) for _ in range(2))
    for j in (a, b):
        cluster.wait_job_state(j, "RUNNING", timeout=30)
    cluster.wait_until(lambda: out_of(tmp_path, a) and out_of(tmp_path, b),
                       15, "the shard jobs' output")
    for j in (a, b):
        assert out_of(tmp_path, j) == (f"CVD={gpu0} ORD={gpu0} SHARDS=2 "
                                       "GPUS=unset"), out_of(tmp_path, j)
        show = cluster.run("scontrol", "-d", "show", "job", j,
                           check=True).stdout
        assert re.search(r"TRES=cpu=1,\S*,gres/shard=2\n", show), show
        assert "TresPerNode=gres:shard:2" in show, show
        assert "GRES=shard:2(IDX:0)" in show, show
    squeue = cluster.run("squeue", "-h", "-j", a, "-o", "%b",
                         check=True).stdout
    assert squeue == "gres:shard:2\n", squeue
    # GPU 0 lends shards: a gpu:2 job waits, a gpu:1 job gets GPU 1.
    whole = cluster.sbatch("--gres=gpu:2", "--wrap", ENV, cwd=tmp_path)
    one = cluster.sbatch("--gres=gpu:1", "--wrap", f"{ENV}; sleep 2",
                         cwd=tmp_path)
    cluster.wait_job_state(one, "COMPLETED", timeout=30)
    gpu1 = cluster.visible_gpus([1])
    assert out_of(tmp_path, one) == f"CVD={gpu1} ORD={gpu1} SHARDS= GPUS=1"
    assert cluster.job_state(whole) == "PENDING"
    assert cluster.job_field(whole, "Reason") == "Resources"
    # GPU 0's four shards are in use; GPU 1, free again, lends three.
    c = cluster.sbatch("--gres=shard:3", "--wrap", ENV, cwd=tmp_path)
    cluster.wait_job_state(c, "COMPLETED", timeout=30)
    assert out_of(tmp_path, c).startswith(f"CVD={gpu1} "), out_of(tmp_path, c)
    # The shard jobs end: the gpu:2 job starts on both GPUs.
    cluster.run("scancel", a, b, check=True)
    cluster.wait_job_state(whole, "COMPLETED", timeout=30)
    both = cluster.visible_gpus([0, 1])
    assert out_of(tmp_path, whole) == (f"CVD={both} ORD={both} SHARDS= "
                                       "GPUS=0,1")
    r = cluster.run("sacct", "-n", "-X", "-j", c, "-o", "AllocTRES%80",
                    check=True)
    assert "gres/shard=3" in r.stdout, r.stdout


@pytest.mark.parametrize("cluster", [SHARD_CLUSTER], indirect=True)
def test_srun_shards_and_requests_that_never_fit(cluster, tmp_path):
    with_shards(cluster)
    r = cluster.run("srun", "--gres=shard:1", "sh", "-c",
                    "echo $CUDA_VISIBLE_DEVICES $SLURM_SHARDS_ON_NODE",
                    check=True, timeout=60)
    assert r.stdout == f"{cluster.visible_gpus([0])} 1\n", r.stdout
    # shards come from one GPU: 5 never fit on GPUs of 4
    r = cluster.run("sbatch", "--gres=shard:5", "--wrap", "true",
                    cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr == ("sbatch: error: Batch job submission failed: "
                        "Requested node configuration is not available\n")
    # a typed shard is refused as Slurm refuses a bad GRES
    r = cluster.run("sbatch", "--gres=shard:a100:1", "--wrap", "true",
                    cwd=tmp_path)
    assert r.returncode == 1
    assert "Invalid generic resource (gres) specification" in r.stderr


@pytest.mark.parametrize("cluster", [SHARD_CLUSTER], indirect=True)
def test_shard_job_opens_its_gpu_and_not_the_other(cluster, tmp_path):
    require("cannot create fake GPU devices" not in cluster.last_up.stderr,
            "mknod is not permitted here (no CAP_MKNOD)")
    with_shards(cluster)
    require(cluster.gpus_isolated(),
            "job cgroups do not isolate devices on this machine")
    make_real_gpu_files(cluster)
    probe = f"""\
echo visible=$CUDA_VISIBLE_DEVICES shards=$SLURM_SHARDS_ON_NODE
/usr/bin/python3 - {cluster.dir / "dev"} <<'EOF'
import os, sys
for i in (0, 1):
    try:
        os.close(os.open(f"{{sys.argv[1]}}/nvidia{{i}}", os.O_RDWR))
        print(f"nvidia{{i}} opened")
    except OSError as e:
        print(f"nvidia{{i}} {{e.strerror}}")
EOF
"""
    _, out, _ = run_job(cluster, tmp_path, probe, "--gres=shard:2")
    assert out.startswith("visible=0 shards=2\n"), out
    assert "nvidia0 opened" in out, out
    assert "nvidia1 Operation not permitted" in out, out


def with_mps(cluster):
    """Restart 'cluster' with GresTypes=gpu,mps, Gres=gpu:2,mps:200 and
    100 MPS shares on each GPU, as gres.html's MPS example."""
    cluster.down()
    conf = cluster.conf.read_text()
    conf = conf.replace("GresTypes=gpu\n", "GresTypes=gpu,mps\n")
    conf, n = re.subn(r"Gres=gpu:2\b", "Gres=gpu:2,mps:200", conf)
    assert n == 1, conf
    cluster.conf.write_text(conf)
    gres = cluster.dir / "etc" / "gres.conf"
    dev = cluster.dir / "dev"
    gres.write_text(gres.read_text()
                    + f"NodeName=node01 Name=mps Count=100 File={dev}/nvidia0\n"
                    + f"NodeName=node01 Name=mps Count=100 File={dev}/nvidia1\n")
    cluster.up()
    cluster.wait_nodes_idle()


MPS_ENV = ("echo CVD=$CUDA_VISIBLE_DEVICES "
           "PCT=$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE "
           "SHARDS=${SLURM_SHARDS_ON_NODE-unset}")


@pytest.mark.parametrize("cluster", [SHARD_CLUSTER], indirect=True)
def test_mps_jobs_share_a_gpu_with_their_thread_percentage(cluster, tmp_path):
    with_mps(cluster)
    show = cluster.run("scontrol", "show", "node", "node01", check=True).stdout
    assert "Gres=gpu:2,mps:200" in show, show
    gpu0 = cluster.visible_gpus([0])
    # mps:50 and mps:25 share GPU 0: 50% and 25% of its threads
    a = cluster.sbatch("--gres=mps:50", "--wrap", f"{MPS_ENV}; sleep 300",
                       cwd=tmp_path)
    b = cluster.sbatch("--gres=mps:25", "--wrap", f"{MPS_ENV}; sleep 300",
                       cwd=tmp_path)
    for j in (a, b):
        cluster.wait_job_state(j, "RUNNING", timeout=30)
    cluster.wait_until(lambda: out_of(tmp_path, a) and out_of(tmp_path, b),
                       15, "the MPS jobs' output")
    assert out_of(tmp_path, a) == f"CVD={gpu0} PCT=50 SHARDS=unset"
    assert out_of(tmp_path, b) == f"CVD={gpu0} PCT=25 SHARDS=unset"
    show = cluster.run("scontrol", "-d", "show", "job", a, check=True).stdout
    assert re.search(r"TRES=cpu=1,\S*,gres/mps=50\n", show), show
    assert "TresPerNode=gres:mps:50" in show, show
    assert "GRES=mps:50(IDX:0)" in show, show
    # srun in the job: its tasks see the GPU and the percentage too
    r = cluster.run("srun", "--jobid", a, "--overlap", "sh", "-c",
                    "echo $CUDA_VISIBLE_DEVICES "
                    "$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
                    check=True, timeout=60)
    assert r.stdout == f"{gpu0} 50\n", r.stdout
    # GPU 0 lends MPS shares: a gpu:2 job waits for them
    whole = cluster.sbatch("--gres=gpu:2", "--wrap", "true", cwd=tmp_path)
    cluster.wait_until(lambda: cluster.job_field(whole, "Reason")
                       == "Resources", 15, "the gpu:2 job to wait")
    cluster.run("scancel", a, b, check=True)
    cluster.wait_job_state(whole, "COMPLETED", timeout=30)
    # more than a GPU's shares never fit; shard asked of MPS GPUs neither
    r = cluster.run("sbatch", "--gres=mps:101", "--wrap", "true",
                    cwd=tmp_path)
    assert r.returncode == 1
    assert "Requested node configuration is not available" in r.stderr
    r = cluster.run("sbatch", "--gres=gpu:1,mps:10", "--wrap", "true",
                    cwd=tmp_path)
    assert r.returncode == 1, r.stderr


@pytest.mark.parametrize("cluster", [SHARD_CLUSTER], indirect=True)
def test_shards_in_use_survive_a_controller_restart(cluster, tmp_path):
    with_shards(cluster)
    a = cluster.sbatch("--gres=shard:3", "-o", "/dev/null", "--wrap",
                       "sleep 300", cwd=tmp_path)
    b = cluster.sbatch("--gres=shard:3", "-o", "/dev/null", "--wrap",
                       "sleep 300", cwd=tmp_path)
    for j in (a, b):
        cluster.wait_job_state(j, "RUNNING", timeout=30)
    cluster.restart_alone("droverctld")  # kill -9: the journal replays
    # both GPUs still lend three of their four shards
    for j, gpu in ((a, 0), (b, 1)):
        show = cluster.run("scontrol", "-d", "show", "job", j,
                           check=True).stdout
        assert f"GRES=shard:3(IDX:{gpu})" in show, show
    c = cluster.sbatch("--gres=shard:2", "--wrap", "true", cwd=tmp_path)
    g = cluster.sbatch("--gres=gpu:1", "--wrap", "true", cwd=tmp_path)
    for j in (c, g):
        cluster.wait_until(lambda: cluster.job_field(j, "Reason")
                           == "Resources", 15, f"job {j} to wait")
    used = cluster.node_info()["node01"]["gres_used"]
    assert used.endswith(",shard:6(3/4,3/4)"), used
    cluster.run("scancel", a, check=True)
    cluster.wait_job_state(c, "COMPLETED", timeout=30)
    cluster.run("scancel", b, check=True)
