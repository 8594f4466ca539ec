# SPDX-License-Identifier: Apache-2.0
"""--tmp (Slurm's MinTmpDiskNode): a job runs only on nodes whose
slurm.conf TmpDisk= is at least what it asks; one no node can give is
refused at submission with Slurm's error."""

import pytest


@pytest.mark.parametrize("cluster", [{"nodes": 3, "gpus_per_node": 0}],
                         indirect=True)
def test_tmp_places_jobs_on_nodes_with_the_disk(cluster, tmp_path):
    cluster.set_node_keys(["TmpDisk=1000", "TmpDisk=4000", ""])
    big = cluster.sbatch("--tmp=2G", "--wrap", "sleep 30", cwd=tmp_path)
    some = cluster.sbatch("--tmp=500", "-N2", "--wrap", "sleep 30",
                          cwd=tmp_path)
    for j in (big, some):
        cluster.wait_job_state(j, ["RUNNING"], timeout=30)
    show = cluster.show_job(big)
    assert show["NodeList"] == "node02"
    assert show["MinTmpDiskNode"] == "2G"
    assert cluster.show_job(some)["NodeList"] == "node[01-02]"
    r = cluster.run("squeue", "-h", "-j", big, "-o", "%d", check=True)
    assert r.stdout == "2G\n"
    r = cluster.run("sbatch", "--tmp=8G", "--wrap", "true", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (
        1, "sbatch: error: Batch job submission failed: Requested node "
        "configuration is not available\n")
    # inside an allocation a step cannot ask for disk: refused, not ignored
    out = tmp_path / "step"
    j = cluster.sbatch("-o", str(out), "--wrap", "srun --tmp=1 true; "
                       "echo rc=$?", cwd=tmp_path)
    assert cluster.wait_job_done(j) == "COMPLETED"
    assert "srun: error: --tmp is not supported by Drover (for a step " \
        "inside an allocation)\nrc=1\n" == out.read_text()
    for k in (big, some):
        cluster.run("scancel", k, check=True)
