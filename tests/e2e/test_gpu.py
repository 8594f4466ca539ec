# SPDX-License-Identifier: Apache-2.0
"""GPU jobs get exactly their GPUs, disjoint between concurrent jobs."""
import re

import pytest

GPU_JOB = """\
#!/bin/bash
#SBATCH --gres=gpu:2
#SBATCH --output=gpu_%j.out
echo "CVD=$CUDA_VISIBLE_DEVICES GPUS=$SLURM_JOB_GPUS"
sleep 3
"""


def gpus_of(cluster, job_id):
    """The IDX list scontrol -d shows for the job, e.g. '0-1'."""
    out = cluster.run("scontrol", "-d", "show", "job", job_id, check=True).stdout
    m = re.search(r"GRES=gpu(?::\w+)?:(\d+)\(IDX:([^)]*)\)", out)
    assert m, out
    return int(m.group(1)), m.group(2)


def expand(idx):
    out = []
    for part in idx.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def test_two_concurrent_2gpu_jobs_on_one_node_get_disjoint_gpus(cluster, tmp_path):
    script = tmp_path / "gpu.sh"
    script.write_text(GPU_JOB)
    a = cluster.sbatch(str(script), cwd=tmp_path)
    b = cluster.sbatch(str(script), cwd=tmp_path)
    cluster.wait_job_state(a, ["RUNNING", "COMPLETED"], timeout=30)
    cluster.wait_job_state(b, ["RUNNING", "COMPLETED"], timeout=30)
    na, ia = gpus_of(cluster, a)
    nb, ib = gpus_of(cluster, b)
    assert na == nb == 2
    # Both fit on node01 (first fit), so the indices must differ.
    assert cluster.job_field(a, "NodeList") == cluster.job_field(b, "NodeList") == "node01"
    assert set(expand(ia)).isdisjoint(expand(ib))
    cluster.wait_job_state(a, ["COMPLETED"], timeout=30)
    cluster.wait_job_state(b, ["COMPLETED"], timeout=30)
    cva = (tmp_path / f"gpu_{a}.out").read_text().strip()
    cvb = (tmp_path / f"gpu_{b}.out").read_text().strip()
    # SLURM_JOB_GPUS: the node's indices; CUDA_VISIBLE_DEVICES from 0 when
    # the job's cgroup hides the other GPUs (ConstrainDevices, as Slurm).
    for cv, idx in ((cva, ia), (cvb, ib)):
        assert cv == (f"CVD={cluster.visible_gpus(expand(idx))} "
                      f"GPUS={','.join(map(str, expand(idx)))}")


def test_gpus_and_gpus_per_node_options_allocate_gpus(cluster, tmp_path):
    j1 = cluster.sbatch("--gpus=3", "--wrap", "echo $CUDA_VISIBLE_DEVICES", cwd=tmp_path)
    j2 = cluster.sbatch("--gpus-per-node=1", "--wrap", "echo $CUDA_VISIBLE_DEVICES",
                        cwd=tmp_path)
    for j, n in ((j1, 3), (j2, 1)):
        cluster.wait_job_state(j, ["COMPLETED"], timeout=30)
        cvd = (tmp_path / f"slurm-{j}.out").read_text().strip()
        assert len(cvd.split(",")) == n, cvd


def test_16_gpus_on_8_gpu_nodes_is_rejected_at_submit(cluster, tmp_path):
    r = cluster.run("sbatch", "--gres=gpu:16", "--wrap", "true", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr == ("sbatch: error: Batch job submission failed: "
                        "Requested node configuration is not available\n")


def test_oversubscribed_1gpu_jobs_some_run_rest_pend_for_resources(cluster, tmp_path):
    # 4 nodes x 8 GPUs = 32 GPUs; 36 one-GPU jobs.
    ids = [cluster.sbatch("--gres=gpu:1", "-o", "/dev/null", "--wrap", "sleep 300",
                          cwd=tmp_path) for _ in range(36)]

    def states():
        out = cluster.run("squeue", "-h", "-o", "%i %t %r", check=True).stdout
        return [l.split() for l in out.splitlines()]

    cluster.wait_until(lambda: sum(s[1] == "R" for s in states()) == 32,
                       timeout=30, what="32 GPU jobs running")
    rows = states()
    pending = [r for r in rows if r[1] == "PD"]
    assert len(pending) == 4
    assert all(r[2] == "Resources" for r in pending), pending
    cluster.run("scancel", *ids, check=True)


def test_typed_gpu_request_on_untyped_nodes_is_rejected(cluster, tmp_path):
    r = cluster.run("sbatch", "--gres=gpu:h100:1", "--wrap", "true", cwd=tmp_path)
    assert r.returncode == 1
    assert r.stderr == ("sbatch: error: Batch job submission failed: "
                        "Requested node configuration is not available\n")


@pytest.mark.parametrize("cluster", [{"nodes": 2, "up_args": ["--gpu-type", "a100"]}],
                         indirect=True)
def test_typed_gpu_request_runs_on_typed_nodes(cluster, tmp_path):
    job = cluster.sbatch("--gres=gpu:a100:2", "--wrap", "echo $CUDA_VISIBLE_DEVICES",
                         cwd=tmp_path)
    cluster.wait_job_state(job, ["COMPLETED"], timeout=30)
    assert (tmp_path / f"slurm-{job}.out").read_text() == "0,1\n"
    detail = cluster.run("scontrol", "-d", "show", "job", job, check=True).stdout
    assert "GRES=gpu:a100:2(IDX:0-1)" in detail
    node = cluster.run("scontrol", "show", "node", "node01", check=True).stdout
    assert "Gres=gpu:a100:8" in node
    r = cluster.run("sbatch", "--gres=gpu:v100:1", "--wrap", "true", cwd=tmp_path)
    assert r.returncode == 1 and "configuration is not available" in r.stderr


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 4}],
                         indirect=True)
def test_node_with_two_gpu_types(cluster, tmp_path):
    """Gres=gpu:a100:2,gpu:v100:2 with gres.conf Type= lines (a mixed
    node, or MIG profiles): a typed request gets GPUs of its type only,
    numbered over the node's GPUs as Slurm does; an untyped one any; the
    node shows each type."""
    c = cluster
    c.down()
    c.conf.write_text(c.conf.read_text().replace(
        "Gres=gpu:4", "Gres=gpu:a100:2,gpu:v100:2"))
    dev = c.dir / "dev"
    (c.dir / "etc" / "gres.conf").write_text(
        f"NodeName=node01 Name=gpu Type=a100 File={dev}/nvidia[0-1]\n"
        f"NodeName=node01 Name=gpu Type=v100 File={dev}/nvidia[2-3]\n")
    c.up()
    node = c.run("scontrol", "show", "node", "node01", check=True).stdout
    assert "Gres=gpu:a100:2,gpu:v100:2\n" in node, node
    env = "echo $SLURM_JOB_GPUS $CUDA_VISIBLE_DEVICES; sleep 300"
    v1 = c.sbatch("--gres=gpu:v100:1", "--wrap", env, cwd=tmp_path)
    v2 = c.sbatch("--gres=gpu:v100:1", "--wrap", env, cwd=tmp_path)
    c.wait_job_state(v1, "RUNNING", timeout=30)
    c.wait_job_state(v2, "RUNNING", timeout=30)
    assert {gpus_of(c, v1)[1], gpus_of(c, v2)[1]} == {"2", "3"}
    detail = c.run("scontrol", "-d", "show", "job", v1, check=True).stdout
    assert re.search(r"GRES=gpu:v100:1\(IDX:[23]\)", detail), detail
    # both V100s held: a third waits though the A100s are free
    v3 = c.sbatch("--gres=gpu:v100:1", "--wrap", "true", cwd=tmp_path)
    a = c.sbatch("--gres=gpu:a100:2", "--wrap", env, cwd=tmp_path)
    c.wait_job_state(a, "RUNNING", timeout=30)
    assert gpus_of(c, a) == (2, "0-1")
    state = c.run("squeue", "-h", "-j", v3, "-o", "%T %r", check=True).stdout
    assert state == "PENDING Resources\n", state
    sinfo = c.run("sinfo", "-h", "-N", "-O", "Gres:30,GresUsed:30",
                  check=True).stdout
    assert sinfo.split() == ["gpu:a100:2,gpu:v100:2"] * 2, sinfo
    c.wait_until(lambda: (tmp_path / f"slurm-{v1}.out").exists()
                 and (tmp_path / f"slurm-{v1}.out").read_text(), timeout=30,
                 what="the job's output")
    idx = gpus_of(c, v1)[1]
    assert (tmp_path / f"slurm-{v1}.out").read_text() == f"{idx} 0\n"
    r = c.run("sbatch", "--gres=gpu:h100:1", "--wrap", "true", cwd=tmp_path)
    assert r.returncode == 1 and "configuration is not available" in r.stderr
    c.run("scancel", v1, v2, v3, a, check=True)
