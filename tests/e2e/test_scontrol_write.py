# SPDX-License-Identifier: Apache-2.0
"""scontrol write batch_script JOBID [FILE] (issue 13): the script as
submitted, to slurm-JOBID.sh by default or standard output with "-", for
the job's owner or an operator, with Slurm's messages."""
import pytest

SCRIPT = "#!/bin/bash\n#SBATCH -J written\necho 'the job'\n"


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_write_batch_script(cluster, test_user, tmp_path):
    c = cluster
    tmp_path.chmod(0o777)
    job = c.sbatch("-H", input=SCRIPT, user=test_user)
    r = c.run("scontrol", "write", "batch_script", job, "-", user=test_user,
              check=True)
    assert r.stdout == SCRIPT
    r = c.run("scontrol", "write", "batch_script", job, cwd=tmp_path,
              check=True)  # root, an administrator
    assert r.stdout == f"batch script for job {job} written to slurm-{job}.sh\n"
    assert (tmp_path / f"slurm-{job}.sh").read_text() == SCRIPT
    # another user's job: Slurm's "Invalid user id"; nothing written
    mine = c.sbatch("-H", "--wrap", "true")
    r = c.run("scontrol", "write", "batch_script", mine, str(tmp_path / "x"),
              user=test_user)
    assert (r.returncode, r.stderr) == (
        1, "job script retrieval failed: Invalid user id\n")
    assert not (tmp_path / "x").exists()
    r = c.run("scontrol", "write", "batch_script", "999999", "-")
    assert r.stderr == "job script retrieval failed: Invalid job id specified\n"
    alloc = c.run("salloc", "--no-shell", "-n1", "-t", "1", check=True)
    aid = alloc.stderr.split()[-1]
    r = c.run("scontrol", "write", "batch_script", aid, "-")
    assert r.stderr == "job script retrieval failed: Job script not specified\n"
    c.run("scancel", job, mine, aid, check=True)
