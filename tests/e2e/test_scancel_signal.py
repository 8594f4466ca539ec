# SPDX-License-Identifier: Apache-2.0
"""scancel -s (issue 13): as Slurm's, a signal goes to the job's steps and
not to its batch script; -b/--batch sends it to the batch script (and its
children) only, -f/--full to both.  The script's children include srun,
which forwards the signal to its step's tasks, as Slurm's srun does: with
-b or -f the step hears it through srun too."""
import time

import pytest

SCRIPT = r"""#!/bin/bash
trap 'echo batch >> {d}/batch.log' USR1
srun -n1 bash -c 'trap "echo step >> {d}/step.log" USR1; touch {d}/ready; while :; do sleep 0.1; done' &
while :; do sleep 0.1; done
"""


def lines(path):
    return path.read_text().split() if path.exists() else []


@pytest.mark.parametrize("cluster", [{"nodes": 1, "gpus_per_node": 0}],
                         indirect=True)
def test_scancel_signal_scopes(cluster, tmp_path):
    c = cluster
    tmp_path.chmod(0o777)
    script = tmp_path / "job.sh"
    script.write_text(SCRIPT.format(d=tmp_path))
    job = c.sbatch("-n2", "-o", str(tmp_path / "out"), str(script))
    c.wait_until(lambda: (tmp_path / "ready").exists(), 30, "the step")
    step, batch = tmp_path / "step.log", tmp_path / "batch.log"

    c.run("scancel", "-s", "USR1", job, check=True)
    c.wait_until(lambda: lines(step) == ["step"], 15, "the step's trap")
    assert lines(batch) == []  # not the script

    c.run("scancel", "--full", "--signal=USR1", job, check=True)
    # directly and through srun (two USR1s that arrive together while the
    # first trap runs merge into one, as pending signals do: 1 or 2 more)
    c.wait_until(lambda: len(lines(step)) >= 2 and lines(batch) == ["batch"],
                 15, "both traps")
    time.sleep(1)
    seen = len(lines(step))
    assert seen in (2, 3)

    c.run("scancel", "-b", "-s", "USR1", job, check=True)
    # the script, and srun forwards it: once, not also directly
    c.wait_until(lambda: lines(batch) == ["batch", "batch"]
                 and len(lines(step)) == seen + 1, 15, "the script's trap")
    c.run("scancel", job, check=True)
    c.wait_job_done(job, timeout=30)


@pytest.mark.parametrize("cluster", [1], indirect=True)
def test_scancel_verbose_and_refusals(cluster):
    c = cluster
    job = c.sbatch("-H", "--wrap", "true")
    r = c.run("scancel", "-v", job, check=True)
    assert r.stderr == f"scancel: Terminating job {job}\n"
    job = c.sbatch("-H", "--wrap", "true")
    # a pending job has nothing to signal (slurmctld's job_signal)
    r = c.run("scancel", "-v", "-s", "USR1", job)
    assert r.stderr == (f"scancel: Signal 10 to job {job}\n"
                        f"scancel: error: Kill job error on job id {job}: "
                        "Job can not be altered now, try again later\n")
    assert c.job_state(job) == "PENDING"
    # no job has a wckey in Drover: --wckey matches none
    c.run("scancel", "--wckey=w", check=True)
    assert c.job_state(job) == "PENDING"
    r = c.run("scancel", "--sibling=other", job)
    assert r.returncode == 1 and "federated" in r.stderr
    c.run("scancel", job, check=True)
